//! Live OpenViking search from wasm (the demo page's live mode): `GET /api/v1/system/status`
//! and `POST /api/v1/search/find` through the same protocol code the plugin runs
//! (`openviking`), over a gloo-net (`fetch`) transport; the find results of both memory
//! scopes (user, then agent; a failed agent scope counts as empty).
//!
//! - [`live_search`] — pure: the page's request checks and its errors (field + hint) (also
//!   tested natively and in wasm by `tests/http_host.rs`)
//! - `gloo` (wasm32, the `page` feature) — the transport and the search
//!
//! Errors are `EngineError`s; the API key is never part of a message.

#[cfg(all(target_arch = "wasm32", feature = "page"))]
pub mod gloo;
pub mod live_search;

#[cfg(all(target_arch = "wasm32", feature = "page"))]
pub use gloo::{live_search, page_origin, GlooTransport, LiveResults};
pub use live_search::LiveSearch;
