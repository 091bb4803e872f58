//! # OpenViking context engine for OpenClaw
//!
//! The engine decides what an OpenClaw agent's model sees each turn, with OpenViking as the
//! memory behind it. This crate is its pure core, compiled to WebAssembly for the JS plugin
//! (`js-glue/`) and the tuning page (`www-demo/`).
//!
//! ## Drive contract
//! The core does no I/O and reads no clock. The host (JS) searches OpenViking, hands the
//! results and `now_ms` in, and gets decisions and messages back:
//!
//! ```
//! use openviking_context_engine::{config::{parse_config, Env}, auto_recall::{auto_recall, RecallRequest}};
//! let cfg = parse_config(&serde_json::json!({"recallLimit": 3}), &Env::new()).unwrap().config;
//! let req = RecallRequest::from_json(&serde_json::json!({
//!     "prompt": "Which theme do I prefer?",
//!     "search": {"user": {"memories": [{"uri": "viking://user/alice/memories/preferences/theme.md",
//!         "level": 2, "score": 0.7, "abstract": "Prefers a dark theme", "category": "preferences"}]}},
//!     "nowMs": 1764000000000u64
//! })).unwrap();
//! let out = auto_recall(&cfg, req).unwrap();
//! assert_eq!(out.messages.len(), 2); // memory_recall_auto call + result
//! ```
//!
//! ## Modules
//! - [`config`] — every plugin key: defaults, bounds, env resolution, errors naming the key
//! - [`tokens`] — token estimation for English, CJK and code
//! - [`text`], [`sanitize`] — UTF-16-safe truncation; removing injected blocks from user text
//! - [`recall`] — query building, rerank, dedupe, budget, explain records
//! - [`messages`] — AgentMessage helpers; the synthetic `memory_recall_auto` pair
//! - [`auto_recall`] — one turn's automatic recall, end to end
//! - `wasm` (wasm32 only) — the only code that touches wasm-bindgen

pub mod after_turn;
pub mod assemble;
pub mod assemble_turn;
pub mod auto_recall;
pub mod capture;
pub mod checkpoint;
pub mod commit_guard;
pub mod config;
pub mod engine;
pub mod error;
pub mod expand;
pub mod host;
pub mod input;
pub mod messages;
pub mod recall;
pub mod replay;
pub mod sanitize;
pub mod session_map;
pub mod text;
pub mod time;
pub mod triggers;
pub mod tokens;
pub mod turn;

pub mod http;
#[cfg(target_arch = "wasm32")]
pub mod wasm;

#[cfg(all(test, target_arch = "wasm32", feature = "browser-tests"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

/// The unit tests' `#[test]` in wasm (each test module aliases it under cfg(wasm32)), so the
/// same tests run natively and under wasm-bindgen-test.
#[cfg(all(test, target_arch = "wasm32"))]
pub(crate) use wasm_bindgen_test::wasm_bindgen_test as wasm_test;

pub use error::{EngineError, ErrorCode};

/// The crate version, as the plugin reports it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
