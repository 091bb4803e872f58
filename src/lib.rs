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
//! use openviking_context_engine::{config::{parse_config, Env}, auto_recall::{auto_recall, RecallRequest}};
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
//! ## Modules
//! - [`config`] — every plugin key: defaults, bounds, env resolution, errors naming the key
//! - [`tokens`] — token estimation for English, CJK and code
//! - [`text`], [`sanitize`] — UTF-16-safe truncation, lone surrogates; removing injected blocks
//! - [`recall`] — query building, rerank, dedupe, budget, explain records
//! - [`messages`] — AgentMessage helpers; the synthetic `memory_recall_auto` pair; the hook
//!   fallback's block
//! - [`auto_recall`], [`assemble`], [`assemble_turn`] — one turn's recall and composition
//! - [`turn`], [`capture`], [`after_turn`] — TurnEnvelope and its OpenViking messages; what
//!   counts toward the triggers; which part of an `afterTurn` call is a finished turn
//! - [`triggers`], [`commit_guard`], [`checkpoint`], [`replay`] — when to compact, one commit
//!   at a time, CompactCheckpoint, the triggers over a transcript
//! - [`session_map`] — OpenViking session ids (injective) and agent isolation
//! - [`scopes`] — the memory URIs searched, read and written (the plugin builds none)
//! - [`tools`], [`uri_check`] — the memory tools' schemas and inputs; URIs a caller hands in
//! - [`expand`] — memory_expand's ranking of archived turns
//! - [`tool_output`] — oversized tool outputs: stand-ins in the context, read back by reference
//! - [`history`] — `memory_search_history`: the engine's index of acknowledged turns, its
//!   time phrases, a linear-time regex, ranking and excerpts
//! - [`engine`], [`host`] — the async lifecycle and the I/O it needs
//! - [`inert`] — is the host using the engine at all (slot, version, unassembled turns)
//! - [`decode`] — typed decoding of untrusted requests (serde, over serde-wasm-bindgen at the
//!   boundary): field paths in errors, never the input's content, nesting and size limits
//! - [`time`], [`error`], [`input`], [`join`] — ISO times from `now_ms`; the error type;
//!   field-aware reading of JSON documents; host calls side by side without an executor
//! - [`typescript`] — the `.d.ts` of the boundary types, generated from their definitions
//! - `http` — the OpenViking protocol for the demo's live search (gloo-net on wasm32, the
//!   `page` feature)
//! - `wasm` (wasm32 only) — the exports and the JS-callback host; wasm-bindgen lives there
//!   and in `http`'s wasm transport only. Two packages are built from it by cargo features:
//!   `plugin` (`ContextEngine` and the plugin's free functions) and `page` (the pure `Engine`,
//!   `liveSearch`); `testing` adds the test-only exports to a build with both

pub mod after_turn;
pub mod assemble;
pub mod assemble_turn;
pub mod auto_recall;
pub mod capture;
pub mod checkpoint;
pub mod commit_guard;
pub mod config;
pub mod decode;
pub mod engine;
pub mod error;
pub mod expand;
pub mod history;
pub mod host;
pub mod inert;
pub mod input;
pub mod join;
pub mod map;
pub mod messages;
pub mod openviking;
pub mod recall;
pub mod replay;
pub mod sanitize;
pub mod scopes;
pub mod session_map;
pub mod summary_check;
pub mod sha256;
pub mod text;
pub mod time;
pub mod tokens;
pub mod tool_output;
pub mod tools;
pub mod triggers;
pub mod turn;
pub mod typescript;
pub mod uri_check;

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
