//! Text utilities shared by every layer: plain-text lengths, cuts, whitespace, case and
//! scripts ([`plain`], re-exported here), tokens, dates, times, digests, percent-encoding,
//! redaction, sanitizing injected blocks.

pub mod bm25;
pub mod dates;
pub mod percent;
pub mod redact;
pub mod sanitize;
pub mod sha256;
pub mod time;
pub mod tokens;
pub mod plain;

pub use plain::*;
