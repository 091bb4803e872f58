#![doc = include_str!("README.md")]
//! ## The crate: the drive contract and its parts
//!
//! The engine decides what an OpenClaw agent's model sees each turn, with OpenViking as the
//! memory behind it. This crate is its pure core, compiled to WebAssembly for the JS plugin
//! (`js-glue/`) and the tuning page (`www-demo/`).
//!
//! ## Drive contract
//! The core does no I/O and reads no clock: time comes in as `now_ms`, and every read or
//! write of the outside world goes through the [`host::Host`] the embedder supplies. The pure
//! functions can also be driven directly with data — the tuning page does, with bundled or
//! live search results:
//!
//! ```
//! use openviking_context_engine::{config::{parse_config, Env}, recall::auto::{auto_recall, RecallRequest}};
//! let cfg = parse_config(&serde_json::json!({"recallLimit": 3}), &Env::new()).unwrap().config;
//! let req = RecallRequest::from_json(&serde_json::json!({
//!     "prompt": "Which theme do I prefer?",
//!     "search": {"user": {"memories": [{"uri": "viking://user/alice/memories/preferences/theme.md",
//!         "level": 2, "score": 0.7, "abstract": "Prefers a dark theme", "category": "preferences"}]}},
//!     "nowMs": 1764000000000u64
//! })).unwrap();
//! let out = auto_recall(&cfg, req).unwrap();
//! assert_eq!(out.messages.len(), 3); // the pair's one-line user opening, the memory_recall_auto call, its result
//! ```
//!
//! ## The engine that owns a turn
//! [`engine::Engine`] is one async engine per agent over a [`host::Host`] — the I/O the
//! embedder performs: OpenViking calls (sessions, messages, commits, tasks, archives, find,
//! content reads and writes, stat, delete, the user id), durable local state and the outbox,
//! time. The plugin's host is JS callbacks (`wasm::js_host`); the native tests' an in-memory
//! fake. The engine decides everything else:
//!
//! - `assemble` — the query, both memory scopes searched (`scopes`), the stable profile,
//!   full texts where the rules need them, the pipeline, the composition; what it injected
//!   is remembered for the turn's write;
//! - `write_turn` (commitTurn) / `after_turn` (afterTurn: checkpoints write nothing, a
//!   finished turn is written whole) — acknowledged means durably stored: in the outbox or in
//!   OpenViking (the invariant is on `write_turn`);
//! - `flush` / `drain`, `run_commit` / `follow_task`, `compact` (a forced commit followed
//!   to its `CompactCheckpoint`);
//! - `run_tool` — `memory_recall`, `memory_store`, `memory_forget`, `memory_expand`,
//!   `memory_read_output`, `memory_search_history`, with every URI checked against the
//!   caller's own scopes (`uri_check`, `session_map`);
//! - `hook_fallback` — recall for a turn the engine did not assemble (and the `inert`
//!   diagnosis: the host is running turns without the engine);
//! - `status` / `trace` — what an operator sees (the plugin's `openclaw openviking …`).
//!
//! ## Layout
//! - [`recall`] — which memories a turn gets: the query, its intent, both scopes' URIs,
//!   rerank, dedupe, budget, explain records, one turn's automatic recall; the experiences
//!   and skills listed after the memories
//! - [`context`] — what the model sees: one turn's `assemble`, the composition under one
//!   budget, the map of folders, the synthetic messages, which summaries can be trusted
//! - [`lifecycle`] — the stored turn, capture, the triggers and the commit guard,
//!   checkpoints, session ids and agent isolation, the inert diagnosis
//! - [`tools`] — the memory tools' schemas and inputs, URI checks, `memory_expand`'s
//!   ranking, oversized outputs' stand-ins, `memory_search_history`
//! - [`text`] — UTF-16-safe text, token estimates, sanitising, SHA-256, ISO times
//! - [`engine`] over [`host`] — the async lifecycle and the I/O it asks of the embedder
//! - [`config`], [`decode`], [`error`], [`typescript`] — the boundary: keys and bounds,
//!   typed decoding of untrusted input, errors naming the field, the generated `.d.ts`
//! - [`openviking`], `http` — the OpenViking protocol, written once; the page's live search
//!   (gloo-net on wasm32, the `page` feature)
//! - `wasm` (wasm32 only) — the exports and the JS-callback host; wasm-bindgen lives there
//!   and in `http`'s wasm transport only. Two packages are built from it by cargo features:
//!   `plugin` (`ContextEngine` and the plugin's free functions) and `page` (the pure `Engine`,
//!   `liveSearch`); `testing` adds the test-only exports to a build with both

pub mod config;
pub mod context;
pub mod decode;
pub mod engine;
pub mod error;
pub mod host;
pub mod lifecycle;
pub mod openviking;
pub mod recall;
pub mod text;
pub mod tools;
pub mod typescript;

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
