//! The Host: what the engine asks of its embedder, split by concern — OpenViking, Storage,
//! Clock — and the answers and errors that cross it.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HostErrorKind {
    /// Connection refused/reset, DNS: the server is not there.
    Unreachable,
    /// No answer within the timeout.
    Timeout,
    /// The server answered 5xx.
    ServerError,
    /// The answer was not the expected JSON.
    BadResponse,
    /// 404 / NOT_FOUND.
    NotFound,
    /// 409 / ALREADY_EXISTS or CONFLICT.
    Conflict,
    /// The server refused the API key: HTTP 401/403 with an error code, `UNAUTHENTICATED`,
    /// `PERMISSION_DENIED`, `FORBIDDEN` (a wrong, missing or root key).
    Denied,
    /// Any other 4xx: the request was refused (invalid argument, bad URI).
    Rejected,
    /// Local state (files in the state dir) could not be read or written.
    Local,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostError {
    pub kind: HostErrorKind,
    pub message: String,
}

impl HostError {
    pub fn new(kind: HostErrorKind, message: impl Into<String>) -> Self {
        HostError { kind, message: message.into() }
    }

    /// What happened, for a message that names the step it happened in: "no answer" only
    /// when there was none (a refused key is not silence).
    pub fn described(&self) -> String {
        let what = match self.kind {
            HostErrorKind::Unreachable | HostErrorKind::Timeout => "no answer",
            HostErrorKind::Denied => "the API key was refused",
            HostErrorKind::ServerError => "OpenViking failed",
            HostErrorKind::BadResponse => "an answer that could not be read",
            HostErrorKind::Local => "the state dir failed",
            HostErrorKind::NotFound | HostErrorKind::Conflict | HostErrorKind::Rejected => "OpenViking refused the request",
        };
        format!("{what} ({})", self.message)
    }

    /// Worth retrying later (the server may come back); the turn goes to the outbox.
    pub fn retryable(&self) -> bool {
        matches!(self.kind, HostErrorKind::Unreachable | HostErrorKind::Timeout | HostErrorKind::ServerError | HostErrorKind::BadResponse)
    }
}

/// The engine's error for a host failure: `HOST_TIMEOUT` for no answer in time, else
/// `HOST_FAILED`, with the host's message.
impl From<HostError> for crate::error::EngineError {
    fn from(e: HostError) -> Self {
        let code = if e.kind == HostErrorKind::Timeout { crate::error::ErrorCode::HostTimeout } else { crate::error::ErrorCode::HostFailed };
        crate::error::EngineError::new(code, e.message)
    }
}

impl HostError {
    /// The engine's error for this failure, naming what was being done (`"archive 2 of
    /// main--s1: Timeout: …"`).
    pub fn while_doing(self, what: &str) -> crate::error::EngineError {
        let text = format!("{what}: {self}");
        let mut e = crate::error::EngineError::from(self);
        e.message = text;
        e
    }
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.kind, self.message)
    }
}

pub type HostResult<T> = Result<T, HostError>;

/// What narrows one `find` besides its target (OpenViking 0.5.2's `FindRequest`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FindFilter {
    /// Only memories created at or after this time (ISO 8601): sent as `since` with
    /// `time_field: "created_at"`.
    pub since: Option<String>,
}

impl FindFilter {
    pub const NONE: FindFilter = FindFilter { since: None };
}

/// `GET /api/v1/sessions/{id}` as far as the engine uses it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SessionMeta {
    pub message_count: u64,
    pub commit_count: u64,
    pub pending_tokens: u64,
}

/// `POST /api/v1/sessions/{id}/commit`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum CommitAnswer {
    Accepted { task_id: String, archive_uri: String },
    Skipped { reason: String },
}

/// `GET /api/v1/tasks/{id}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum TaskAnswer {
    Pending,
    Running,
    Completed { result: Value },
    Failed { error: String },
}

/// The engine's I/O, split by concern: [`OpenViking`] (the server), [`Storage`] (the
/// plugin's state dir: documents and the outbox), [`Clock`] (time, waiting, the log). Any
/// type with all three is a `Host`.
pub trait Host: OpenViking + Storage + Clock {}
impl<T: OpenViking + Storage + Clock> Host for T {}

/// The OpenViking server, one method per operation the engine uses.
#[allow(async_fn_in_trait)]
pub trait OpenViking {
    /// Session meta, or `None` when the session does not exist.
    async fn session_meta(&self, ov_session_id: &str) -> HostResult<Option<SessionMeta>>;
    /// Creates a session; an existing one is not an error (`Conflict` is handled by the engine).
    async fn create_session(&self, ov_session_id: &str, memory_policy: Value) -> HostResult<()>;
    /// Appends messages (`{role, parts}`) in order; returns the session's live message count
    /// afterwards when the server says it (`message_count`).
    async fn add_messages(&self, ov_session_id: &str, messages: Vec<Value>) -> HostResult<Option<u64>>;
    /// The session's live (not yet archived) messages, oldest first (`GET …/context`).
    async fn live_messages(&self, ov_session_id: &str) -> HostResult<Vec<Value>>;
    async fn commit(&self, ov_session_id: &str, body: Value) -> HostResult<CommitAnswer>;
    async fn task(&self, task_id: &str) -> HostResult<TaskAnswer>;
    /// `GET /api/v1/sessions`: the ids of the user's sessions (every agent's: the caller
    /// keeps only its own), newest first.
    async fn list_sessions(&self) -> HostResult<Vec<String>>;
    /// `GET …/archives/{archive_id}` → `{archive_id, abstract, overview, messages}`.
    async fn archive(&self, ov_session_id: &str, archive_id: &str) -> HostResult<Value>;
    /// `GET …/sessions/{id}/tool-results/{tool_result_id}?limit=-1`: the whole text of a tool
    /// output OpenViking externalized at a commit (an archived tool part names it in
    /// `tool_output_ref`), `None` when there is no such result.
    async fn tool_result(&self, ov_session_id: &str, tool_result_id: &str) -> HostResult<Option<String>>;
    /// Reads a JSON file (e.g. `memory_diff.json`, a checkpoint).
    async fn read_json(&self, uri: &str) -> HostResult<Value>;
    /// Writes (creates or replaces) a JSON file.
    async fn write_json(&self, uri: &str, value: Value) -> HostResult<()>;

    /// `POST /api/v1/search/find {query, target_uri, limit, score_threshold: 0}` (plus
    /// `since` and `time_field: "created_at"` when `filter.since` is set): the raw result
    /// (`{memories: [...]}` or the bare list), read by `recall::candidate`.
    async fn find(&self, target_uri: &str, query: &str, limit: usize, filter: &FindFilter) -> HostResult<Value>;
    /// The same find over several folders in one request (`target_uri` a list, which
    /// OpenViking 0.5.x accepts): one query embedding and one vector search, `limit` over all
    /// of them, best score first.
    async fn find_in(&self, target_uris: &[&str], query: &str, limit: usize) -> HostResult<Value>;
    /// `POST /api/v1/search/grep` with `recall::lexical::grep_body(uri, pattern)`: the lines
    /// of the files under `uri` that match `pattern` (case-insensitive), with the lines around
    /// them — the raw `{matches: [{uri, line, content, before_context, after_context}]}`, read
    /// by `recall::lexical`. No embedding.
    async fn grep(&self, uri: &str, pattern: &str) -> HostResult<Value>;
    /// `GET /api/v1/content/read?uri=…`: a file's text, `None` when there is no such file.
    async fn read_content(&self, uri: &str) -> HostResult<Option<String>>;
    /// `GET /api/v1/content/read?uri=…&raw=true`: a memory file as stored, its
    /// `MEMORY_FIELDS` comment included (an experience's links, a trajectory's source
    /// archive); `None` when there is no such file.
    async fn read_raw(&self, uri: &str) -> HostResult<Option<String>>;
    /// `POST /api/v1/content/write {uri, content, mode: create|replace, wait}`.
    async fn write_text(&self, uri: &str, content: &str, create_only: bool, wait: bool) -> HostResult<()>;
    /// `POST /api/v1/content/batch-write {root_uri, operations: [{uri, content, mode:
    /// "replace"}], wait: false, processing_mode: "vectors_only"}`: text files OpenViking
    /// embeds (one vector each) without its semantic pipeline — no model call. `root` is an
    /// existing folder below `resources/<name>/` that holds every uri; when it does not exist
    /// yet, the first file is written alone (which makes the folders) and the rest in batches.
    async fn write_embedded(&self, root: &str, docs: &[(String, String)]) -> HostResult<()>;
    /// `GET /api/v1/fs/stat`: `{uri, isDir, …}`, `None` when nothing is there.
    async fn stat(&self, uri: &str) -> HostResult<Option<Value>>;
    /// `DELETE /api/v1/fs?uri=…&wait=true` (not recursive): `{uri, estimated_deleted_count}`.
    async fn delete_uri(&self, uri: &str) -> HostResult<Value>;
    /// The OpenViking user id behind the API key (`GET /api/v1/system/status`), `None` when
    /// the server does not say. The host may keep it (it is the same for the key's lifetime).
    async fn user_id(&self) -> HostResult<Option<String>>;
    /// `POST /api/v1/skills/find {query, limit}` (no `target_uri`: the user's skills and the
    /// account's agent skills, merged by score): the raw `{skills: [...]}`, read by
    /// `recall::skills`.
    async fn find_skills(&self, query: &str, limit: usize) -> HostResult<Value>;
    /// `GET /api/v1/fs/tree?uri=…&output=agent&include_abstract=false&level_limit=…&node_limit=…`:
    /// the entries under `uri` (`[{uri, isDir, rel_path}]`; no abstracts: the map shows none),
    /// `None` when there is no such folder. Read by `map`.
    async fn tree(&self, uri: &str, level_limit: usize, node_limit: usize) -> HostResult<Option<Value>>;
    /// `GET /api/v1/fs/ls?uri=…&output=original&sort_by=mtime&sort_order=desc&node_limit=…`:
    /// the files of a folder and when each was last written (ms), newest first; `None` when
    /// there is no such folder. Read by the recall read path (`engine::read`): which of two
    /// versions of a fact the store learned last.
    async fn written_times(&self, folder: &str, node_limit: usize) -> HostResult<Option<Vec<(String, u64)>>>;
}

/// Durable local state (the plugin's state dir): one JSON document per key, and the outbox.
#[allow(async_fn_in_trait)]
pub trait Storage {
    /// One JSON document per key; `None` when there is none.
    async fn load_state(&self, key: &str) -> HostResult<Option<Value>>;
    async fn save_state(&self, key: &str, value: Value) -> HostResult<()>;
    /// Saves a document that can be rebuilt — from OpenViking, or by the next turn (a cache:
    /// the profile, a turn's trace, the history index, who the user is): replaced atomically
    /// but not synced to disk, so a crash may leave the one before it or none, never a torn
    /// one. A host that keeps every document alike saves it as any other.
    async fn save_cache(&self, key: &str, value: Value) -> HostResult<()> {
        self.save_state(key, value).await
    }
    /// The state keys starting with `prefix`.
    async fn list_state_keys(&self, prefix: &str) -> HostResult<Vec<String>>;
    /// The outbox: an ordered, durable queue per key. An append resolves only once every
    /// byte is written, synced and readable back; an entry whose `turnId` is already queued
    /// is not appended twice. Entries torn by a crash or a full disk are never returned.
    async fn outbox_append(&self, key: &str, entry: Value) -> HostResult<()>;
    async fn outbox_read(&self, key: &str) -> HostResult<Vec<Value>>;
    /// Removes the entries with these `turnId`s (by identity, never by position).
    async fn outbox_drop(&self, key: &str, turn_ids: &[String]) -> HostResult<()>;
    /// Takes the lock `name` shared by every process on this state dir, without waiting:
    /// `true` when taken. A holder that died, or whose `ttl_ms` ran out, loses it. Not
    /// re-entrant. An operation on the outbox `name` issued after this settles after it.
    async fn try_lock(&self, name: &str, ttl_ms: u64) -> HostResult<bool>;
    /// Gives the lock back (only the holder's own lock is removed).
    async fn unlock(&self, name: &str) -> HostResult<()>;
}

/// Time, waiting and the log (the core reads no clock of its own).
#[allow(async_fn_in_trait)]
pub trait Clock {
    /// The wall clock, ms since the epoch. It may jump either way or answer nonsense: a wait
    /// is measured with [`clock::Moment`], a kept stamp read with [`clock::wall_elapsed_ms`].
    fn now_ms(&self) -> u64;
    /// A clock that never goes back and ignores changes to the wall clock (`performance.now()`),
    /// in ms from an origin of this process's own — only the difference of two readings in one
    /// process means anything; `None` when the host has none.
    fn monotonic_ms(&self) -> Option<u64> {
        None
    }
    /// The host's timer: resolves after `ms`.
    async fn sleep(&self, ms: u64);
    fn warn(&self, message: &str);
}

/// `Storage` and `Clock` for a wrapper that passes both through to the host it wraps (a
/// transport layer: the OpenViking protocol, the pause), written once:
/// `delegate_storage_and_clock!(Wrapper, field)` for `struct Wrapper<T> { field: T, … }`.
macro_rules! delegate_storage_and_clock {
    ($wrapper:ident, $field:ident) => {
        impl<T: $crate::host::Storage> $crate::host::Storage for $wrapper<T> {
            async fn load_state(&self, key: &str) -> $crate::host::HostResult<Option<serde_json::Value>> {
                self.$field.load_state(key).await
            }
            async fn save_state(&self, key: &str, value: serde_json::Value) -> $crate::host::HostResult<()> {
                self.$field.save_state(key, value).await
            }
            async fn save_cache(&self, key: &str, value: serde_json::Value) -> $crate::host::HostResult<()> {
                self.$field.save_cache(key, value).await
            }
            async fn list_state_keys(&self, prefix: &str) -> $crate::host::HostResult<Vec<String>> {
                self.$field.list_state_keys(prefix).await
            }
            async fn outbox_append(&self, key: &str, entry: serde_json::Value) -> $crate::host::HostResult<()> {
                self.$field.outbox_append(key, entry).await
            }
            async fn outbox_read(&self, key: &str) -> $crate::host::HostResult<Vec<serde_json::Value>> {
                self.$field.outbox_read(key).await
            }
            async fn outbox_drop(&self, key: &str, turn_ids: &[String]) -> $crate::host::HostResult<()> {
                self.$field.outbox_drop(key, turn_ids).await
            }
            async fn try_lock(&self, name: &str, ttl_ms: u64) -> $crate::host::HostResult<bool> {
                self.$field.try_lock(name, ttl_ms).await
            }
            async fn unlock(&self, name: &str) -> $crate::host::HostResult<()> {
                self.$field.unlock(name).await
            }
        }

        impl<T: $crate::host::Clock> $crate::host::Clock for $wrapper<T> {
            fn now_ms(&self) -> u64 {
                self.$field.now_ms()
            }
            fn monotonic_ms(&self) -> Option<u64> {
                self.$field.monotonic_ms()
            }
            async fn sleep(&self, ms: u64) {
                self.$field.sleep(ms).await
            }
            fn warn(&self, message: &str) {
                self.$field.warn(message)
            }
        }
    };
}
pub(crate) use delegate_storage_and_clock;
