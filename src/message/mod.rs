//! OpenClaw's agent messages, the ground floor every layer above reads them through: a
//! borrowing view of one message and its content parts ([`agent_message`]); a view of a
//! message as OpenViking stores it, with its text and tool parts ([`stored_message`]); a
//! message's role, text and tool call ids, its token estimate ([`read`]); a transcript split
//! into turns ([`turns`]); the synthetic `memory_recall_auto` pair the engine injects
//! ([`synthetic`]) and the prompt block of the fallback hook ([`fallback`]). Messages stay
//! JSON values, so every field the host sends survives untouched when handed back.

mod agent_message;
pub mod fallback;
mod read;
mod stored_message;
pub mod synthetic;
mod turns;

pub use agent_message::{ContentPart, Message, Role};
pub use read::*;
pub use stored_message::{StoredMessage, StoredPart, ToolPart};
pub use turns::split_turns;
