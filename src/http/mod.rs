//! Live OpenViking search from wasm (the demo page's live mode): a small client on gloo-net
//! (`fetch`) for `GET /api/v1/system/status` and `POST /api/v1/search/find`, returning the
//! find results of both memory scopes (user, then agent; a failed agent scope counts as empty).
//!
//! - [`protocol`] — pure: request checks, URLs, bodies, envelopes, user-facing errors (also
//!   tested natively and in wasm by `tests/http_host.rs`)
//! - [`client`] — the calls, with gloo-net
//!
//! Errors are `EngineError`s; the API key is never part of a message.

#[cfg(target_arch = "wasm32")]
pub mod client;
pub mod protocol;



#[cfg(target_arch = "wasm32")]
pub use client::{live_search, page_origin, LiveResults};
pub use protocol::LiveSearch;
