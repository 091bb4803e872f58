//! The lifecycle of a turn and of a session, as pure rules: the stored turn ([`turn`]), what
//! counts toward the triggers ([`capture`], [`after_turn`]), when to compact ([`triggers`],
//! [`commit_guard`], [`trigger_timeline`], [`shared_window`]), what a compaction produced
//! ([`checkpoint`]), whether the host uses the engine at all ([`inert`]), and a past OpenClaw
//! transcript read into turns ([`transcript`]), and turns as OpenViking stores them read back
//! ([`stored_turns`]), what OpenViking takes of a turn ([`text_limits`]) and the export file an agent moves in ([`export_file`]). The engine drives them.

pub mod after_turn;
pub mod capture;
pub mod checkpoint;
pub mod commit_guard;
pub mod export_file;
pub mod inert;
pub mod shared_window;
pub mod stored_turns;
pub mod text_limits;
pub mod transcript;
pub mod trigger_timeline;
pub mod triggers;
pub mod turn;
