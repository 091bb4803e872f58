//! The only code that touches wasm-bindgen. Every export is thin: decode the JS value,
//! call the core, encode the result. Errors become JS `Error`s with a stable `code` and the
//! offending `field`.
//!
//! What is compiled follows the package being built (cargo features, see Cargo.toml):
//! `plugin` — `context_engine` (ContextEngine over `js_host`) and the plugin's free functions;
//! `page` — the pure `Engine`, `live` (liveSearch) and `tail`; `testing` — the test-only
//! methods of `ContextEngine` and `Engine`. `exports` holds the free functions and `Engine`, each under
//! its package's feature.

mod codec;
#[cfg(feature = "plugin")]
mod js_host;
#[cfg(feature = "plugin")]
mod context_engine;
#[cfg(feature = "plugin")]
mod export_restore;
#[cfg(feature = "page")]
mod live;
pub mod exports;
#[cfg(feature = "page")]
mod tail;
mod types;
pub mod utf8;

pub use codec::{decode, encode, millis_arg, string_arg, to_js_error};
