//! The lifecycle orchestrator: one async engine over a [`Host`], shared by every host
//! generation. It owns no I/O: OpenViking calls, durable state and time all go through the
//! host. Decisions come from the pure modules (`turn`, `capture`, `triggers`,
//! `commit_guard`, `checkpoint`).
//!
//! - [`Engine::write_turn`] — the lossless write path (`commitTurn`, `afterTurn`): envelope,
//!   capture decision, outbox first, then the replay into OpenViking, trigger evaluation.
//!   Never waits for a commit. Its durability invariant and crash points are documented on it.
//! - [`Engine::run_commit`] — a commit (automatic or `compact()`), followed to its checkpoint.
//! - [`Engine::assemble`] / [`Engine::recall_tool`] — the read path (`read`): both memory
//!   scopes searched through the host, the profile, the full texts, the composition.
//! - [`Engine::run_tool`] — the memory tools (`tools`), with every URI checked against the
//!   caller's own scopes and every delete verified; `memory_search_history` over the turn
//!   index each acknowledged write adds to (`history_index`).
//! - [`Engine::flush`] — replays the outbox in order (every send marked write-ahead; a turn
//!   whose write may have landed unacknowledged is checked first, `confirm`), and reports
//!   what stayed queued and why.
//!
//! Per-session state lives in [`SessionRecord`]s saved through the host after every change,
//! so a process per turn behaves exactly like a long-lived gateway.
//!
//! What an engine keeps in memory is split into parts, each a struct in the file that uses
//! it, held by [`Engine`] one field each:
//!
//! - `records` (`record::Records`) — the cached session records, when each was last used,
//!   which are unsaved, and the operations running (idle records are dropped when none runs);
//! - `replay` (`outbox::Replay`) — the sessions whose outbox is being replayed, the calls
//!   waiting for that, and what is known of each session's live messages;
//! - `writing` (`write::Writing`) — turn keys whose outbox append has not finished, and where
//!   each session's turn in progress opens;
//! - `followers` (`commit::Followers`) — the commit tasks followed and the checkpoints being
//!   recorded;
//! - `reads` (`read::ReadCache`) — what the read path reuses: the last assembled turn per
//!   session, the last search, the profile, experiences, skills, the kept tool outputs;
//! - `memory_queue` (`memory_queue::MemoryQueueState`) — the memory queue known empty, or
//!   being applied;
//! - `seen` (`agent_engine::Surroundings`) — the user id, the host's and the local server's
//!   facts, why the engine is not in use, and the outages already reported.

mod commit;
mod compact;
mod confirm;
mod experience_lineage;
mod export;
mod skills_and_map;
mod follow;
mod history_index;
mod identity;
mod import;
mod locks;
mod memory_queue;
mod outbox;
mod kept_outputs;
mod read;
mod rebuild;
mod record;
mod restore;
mod status;
mod run_tool;
mod search;
mod write;

pub use commit::CommitOutcome;
pub use skills_and_map::{MAP_COMMIT_REFRESH_MS, MAP_COMMIT_WINDOW_MS};
pub use follow::{Followed, FOLLOW_ARCHIVES_MAX, FOLLOW_SESSIONS_MAX};
pub use compact::{CommitCall, CompactAnswer, CompactCall, HookCall, COMPACT_WAIT_MAX_MS};
pub use history_index::ToolContext;
pub use identity::{identity_key, IDENTITY_TTL_MS};
pub use import::{imported_session_id, ImportReport, ImportRequest, IMPORTED_SUFFIX, IMPORT_COMMIT_WAIT_MS};
pub use memory_queue::{memory_queue_key, MemoryReplay, MemoryWait, QueuedOp};
pub use export::{ExportLines, ExportStart, EXPORT_TREE_LEVELS, EXPORT_TREE_NODES};
pub use outbox::FlushReport;
pub use restore::{MemoryRestoreReport, RestoreReport, RestoreRequest};
pub use read::{AssembleCall, Assembled, IntentTrace, LastAssembled, RecallStatus, RecallToolAnswer};
pub use search::{Search, SEARCH_REUSE_MS};
pub use record::{Operation, SessionRecord, RECORDS_CACHED};
pub use status::{SessionStatus, Trace};
pub use write::{content_key, TurnWrite, WriteOutcome, WriteStatus};
mod agent_engine;

pub use agent_engine::Engine;
