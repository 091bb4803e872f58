//! The lifecycle of a turn and of a session, as pure rules: the stored turn ([`turn`]), what
//! counts toward the triggers ([`capture`], [`after_turn`]), when to compact ([`triggers`],
//! [`commit_guard`], [`trigger_timeline`], [`shared_window`]), what a compaction produced
//! ([`checkpoint`]), whether the host uses the engine at all ([`inert`]), and a past OpenClaw
//! transcript read into turns ([`transcript`]). The engine drives them.

pub mod after_turn;
pub mod capture;
pub mod checkpoint;
pub mod commit_guard;
pub mod inert;
pub mod shared_window;
pub mod transcript;
pub mod trigger_timeline;
pub mod triggers;
pub mod turn;
