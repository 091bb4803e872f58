//! The only code that touches wasm-bindgen. Every export is thin: decode the JS value,
//! call the core, encode the result. Errors become JS `Error`s with a stable `code` and the
//! offending `field`.

mod codec;
mod js_host;
mod lifecycle;
mod live;
pub mod exports;
mod tail;
mod types;
pub mod utf8;

pub use codec::{decode, encode, millis_arg, string_arg, to_js_error};
