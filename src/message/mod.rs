//! OpenClaw's agent messages, the ground floor every layer above reads them through: a
//! message's role, text and tool call ids, its token estimate ([`read`]); a transcript split
//! into turns ([`turns`]); the synthetic `memory_recall_auto` pair the engine injects
//! ([`synthetic`]) and the prompt block of the fallback hook ([`fallback`]). Messages stay
//! JSON values, so every field the host sends survives untouched when handed back.

pub mod fallback;
mod read;
pub mod synthetic;
mod turns;

pub use read::*;
pub use turns::split_turns;
