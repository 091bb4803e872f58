//! The OpenViking 0.5 HTTP protocol, written once: URLs, headers, bodies, the envelope, error
//! classes (and so retryability), redaction of the API key. It runs over any [`Transport`] —
//! one async "send this request" call the embedder provides: the plugin's `fetch` (a
//! host-imported callback, `wasm::js_host`), gloo-net in the browser page (`http`), an
//! in-memory fake in the native tests.
//!
//! - [`transport`] — the request and response an embedder carries, and how it can fail
//! - [`server`] — where and as whom: base URL, agent header, key, timeout; URL encoding
//! - [`answer`] — reading an answer: the `result` of the envelope, or a classified failure
//! - [`pause`] — a server that stopped answering is not asked again at once: the rules
//! - [`pausing`] — the transport wrapper that applies them
//! - [`probe`] — the operator's checks: health, the key, search
//! - [`admin`] — a user key made with the root key (`setup`, local mode)
//! - [`client`] — [`OpenVikingHttp`]: every operation the engine uses, as the `host::OpenViking`
//!   trait over a transport (storage and clock pass through to the embedder's)
//!
//! No wasm-bindgen and no I/O of its own here.

pub mod admin;
pub mod answer;
pub mod client;
pub mod pause;
pub mod pausing;
pub mod probe;
pub mod server;
pub mod transport;

pub use answer::Refusal;
pub use client::OpenVikingHttp;
pub use pausing::Pausing;
pub use server::Server;
pub use transport::{HttpRequest, HttpResponse, Method, Transport, TransportFailure};
