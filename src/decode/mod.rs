//! Decoding untrusted input into typed values with serde, for any serde data format (JS values
//! through serde-wasm-bindgen at the wasm boundary, JSON text in tests and files):
//!
//! - every error names the field path (`search.user[3].score`), like the hand parsers in
//!   [`crate::decode::fields`];
//! - no error repeats input content (a wrong-typed field may hold private text): "expected a
//!   string, got a number", never the number or the text;
//! - nesting deeper than [`MAX_DEPTH`] (a cyclic JS object reaches it at once) and arrays or
//!   objects of more than [`MAX_ITEMS`] entries are errors, not a stack overflow or a hang.
//!
//! Unknown fields are ignored (serde's default for the derived types used here).
//!
//! How: a `Tracked` deserializer wraps the format's own and hands the derived visitors this
//! module's error type. Errors raised inside the format's deserializer (a JS value of the
//! wrong kind for an `Option`, say) come out as the format's error type; the wrapper keeps
//! its own errors aside while they pass through the format's code, and words the format's
//! own ones from what the visitor expected, not from the format's message.

pub mod fields;
mod request;
mod tracked;

pub use request::*;
pub use tracked::*;
