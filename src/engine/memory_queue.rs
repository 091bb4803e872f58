//! Explicit memory changes that outlive an outage. A `memory_store` or `memory_forget` that
//! cannot reach OpenViking (unreachable, no answer, a 5xx, a paused server — never a 4xx,
//! which is answered as the error it is) is appended to the agent's memory queue (an outbox
//! of its own, `memory-ops/<agent>`, fsync'd) before the tool answers `status: "queued"`;
//! acknowledged means durably stored. The queue is applied in order by the replay that sends
//! the queued turns (`outbox.rs`: every flush, a turn's write, `drain`, the operator's
//! `flush`), one change at a time, each dropped only after OpenViking answered it:
//!
//! - while changes wait, a new one joins the queue after them (a forget never runs before
//!   the store it follows, nor a store before an earlier forget);
//! - replaying twice never doubles a memory: a store's uri is fixed when it is queued —
//!   `<slug>-<queue id>.md`, the queue id from the time and a digest of the text — and written
//!   again to the same uri (OpenViking's `create` replaces); a forget that finds nothing
//!   deleted nothing twice;
//! - a change OpenViking refuses (a 4xx) is dropped with a warning, never retried forever.

use super::locks::{replay_lease, REPLAY_LEASE_TTL_MS, REPLAY_WAIT_MS, WRITE_LOCK_TTL_MS};
use super::Engine;
use crate::error::{EngineError, ErrorCode};
use crate::host::{Host, HostError, HostErrorKind};
use crate::tools::{memory_file_name, ForgetInput, StoreInput};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The agent's memory queue (an outbox key of its own: no OpenViking session id has a `/`).
pub fn memory_queue_key(agent_id: &str) -> String {
    format!("memory-ops/{}", crate::address::session_map::safe_segment(agent_id))
}

/// What this process knows of the agent's memory queue (the engine's `memory_queue` part).
#[derive(Default)]
pub(super) struct MemoryQueueState {
    /// The queue was read empty, and this process queued nothing since.
    empty: std::cell::Cell<bool>,
    /// This process is applying the queue.
    replaying: std::cell::Cell<bool>,
}

impl MemoryQueueState {
    /// Nothing waits in the queue as far as this process knows.
    fn known_empty(&self) -> bool {
        self.empty.get()
    }

    fn set_empty(&self, empty: bool) {
        self.empty.set(empty);
    }

    /// Marks this process as applying the queue; `false` when it already was.
    fn start_replay(&self) -> bool {
        !self.replaying.replace(true)
    }

    fn end_replay(&self) {
        self.replaying.set(false);
    }
}

/// Why a memory change did not happen now.
pub(super) enum Stop {
    /// OpenViking did not answer, answered 5xx or is paused: queue it.
    Outage(HostError),
    /// Refused (bad input, a 4xx, no user): the tool's error.
    Refused(EngineError),
}

impl From<EngineError> for Stop {
    fn from(e: EngineError) -> Self {
        Stop::Refused(e)
    }
}

/// A host failure of `tool`: an outage when it is worth retrying, else the tool's error.
pub(super) fn stop(tool: &'static str) -> impl Fn(HostError) -> Stop {
    move |e| if e.retryable() { Stop::Outage(e) } else { Stop::Refused(EngineError::new(ErrorCode::HostFailed, format!("{tool} failed: {}", e.message))) }
}

/// One queued change, as kept in the queue (`turnId` is the queue's id for drops).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase")]
pub enum QueuedOp {
    #[serde(rename = "store", rename_all = "camelCase")]
    Store { turn_id: String, at_ms: u64, category: String, text: String, name: String, uri: Option<String> },
    #[serde(rename = "forget", rename_all = "camelCase")]
    Forget {
        turn_id: String,
        at_ms: u64,
        uri: Option<String>,
        query: Option<String>,
        limit: Option<usize>,
        score_threshold: Option<f64>,
        target_uri: Option<String>,
    },
}

fn short_digest(text: &str) -> String {
    crate::text::sha256::sha256_hex(text.as_bytes())[..12].to_string()
}

impl QueuedOp {
    /// A store at `now_ms`; `uri` when the user is known. The file name (and so the uri) is
    /// fixed here: every later write of it goes to the same place.
    pub fn store(input: &StoreInput, now_ms: u64, user_memories: Option<&str>) -> QueuedOp {
        let name = memory_file_name(&input.text, now_ms);
        let uri = user_memories.map(|m| format!("{m}/{}/{name}", input.category));
        let turn_id = format!("mem-store-{}", short_digest(&name));
        QueuedOp::Store { turn_id, at_ms: now_ms, category: input.category.to_string(), text: input.text.clone(), name, uri }
    }

    pub fn forget(input: &ForgetInput, now_ms: u64) -> QueuedOp {
        let what = format!("{now_ms}\0{:?}\0{:?}\0{:?}", input.uri, input.query, input.target_uri);
        QueuedOp::Forget {
            turn_id: format!("mem-forget-{}", short_digest(&what)),
            at_ms: now_ms,
            uri: input.uri.clone(),
            query: input.query.clone(),
            limit: input.limit,
            score_threshold: input.score_threshold,
            target_uri: input.target_uri.clone(),
        }
    }

    pub fn id(&self) -> &str {
        match self {
            QueuedOp::Store { turn_id, .. } | QueuedOp::Forget { turn_id, .. } => turn_id,
        }
    }

    fn forget_input(&self) -> Option<ForgetInput> {
        match self {
            QueuedOp::Forget { uri, query, limit, score_threshold, target_uri, .. } => {
                Some(ForgetInput { uri: uri.clone(), query: query.clone(), limit: *limit, score_threshold: *score_threshold, target_uri: target_uri.clone() })
            }
            QueuedOp::Store { .. } => None,
        }
    }

    /// The tool's answer for a change queued because of `why` (`None`: behind earlier
    /// changes that still wait).
    pub fn queued_answer(&self, why: Option<&str>) -> Value {
        let cause = match why {
            Some(why) => format!("OpenViking cannot be reached right now ({why})"),
            None => "earlier memory changes are still waiting for OpenViking, and this one keeps its place after them".to_string(),
        };
        match self {
            QueuedOp::Store { text, uri, .. } => json!({
                "stored": false,
                "status": "queued",
                "uri": uri,
                "content": text,
                "note": format!("Queued: {cause}. The memory is saved on this machine and will be stored in OpenViking as soon as it is back, in the order it was asked; until then recall does not find it. The user does not need to repeat it."),
            }),
            QueuedOp::Forget { uri, query, .. } => json!({
                "deleted": [],
                "status": "queued",
                "uri": uri,
                "query": query,
                "note": format!("Queued: {cause}. The deletion is saved on this machine and will be applied when OpenViking is back, after any memory change asked before it; until then the memory may still be recalled."),
            }),
        }
    }
}

/// What one replay of the memory queue did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MemoryReplay {
    /// Changes applied (or dropped as refused) and removed from the queue.
    pub applied: usize,
    /// Changes still waiting.
    pub queued: usize,
    /// Why the replay stopped with changes still waiting.
    pub reason: Option<MemoryWait>,
}

/// Why queued memory changes still wait: [`MemoryReplay::reason`], rendered (with its text
/// kept) into the operator's `flush` of the memory queue and, through
/// [`MemoryStillQueued`], into a session's flush report.
#[derive(Debug, Clone, PartialEq)]
pub enum MemoryWait {
    /// The queue itself could not be read.
    Unreadable(HostError),
    /// This process is applying the queue already.
    ApplyingHere,
    /// Another process holds the queue's replay lease.
    ApplyingElsewhere,
    /// A change was applied but could not be dropped from the queue: the queue's lock or
    /// the drop failed.
    NotDropped(HostError),
    /// A change was applied but another process held the queue's lock too long to drop it.
    QueueHeld,
    /// OpenViking did not answer (or failed) for the next change: its message.
    Outage(HostError),
    /// The next store has no uri yet, and the user behind the API key is not known.
    UserUnknown,
}

impl std::fmt::Display for MemoryWait {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MemoryWait::Unreadable(e) => write!(f, "the memory queue could not be read: {e}"),
            MemoryWait::ApplyingHere => f.write_str("being applied by this process"),
            MemoryWait::ApplyingElsewhere => f.write_str("another process is applying them"),
            MemoryWait::NotDropped(e) => write!(f, "{e}"),
            MemoryWait::QueueHeld => f.write_str("another process held the memory queue too long"),
            MemoryWait::Outage(e) => f.write_str(&e.message),
            MemoryWait::UserUnknown => f.write_str("the user behind the API key is not known yet"),
        }
    }
}

/// A session's flush report's reason when its turns went but memory changes still wait:
/// `queued` of them, and why.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct MemoryStillQueued {
    pub queued: usize,
    pub why: MemoryWait,
}

impl std::fmt::Display for MemoryStillQueued {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} memory change(s) still queued: {}", self.queued, self.why)
    }
}

impl<H: Host> Engine<H> {
    /// Appends a change to the memory queue, durably, and answers that it is queued.
    pub(super) async fn queue_memory_op(&self, op: QueuedOp, why: Option<&str>) -> crate::error::Result<Value> {
        let key = memory_queue_key(&self.config.agent_id);
        let local = |e: String| EngineError::new(ErrorCode::HostFailed, format!("OpenViking cannot take the change now ({}) and it could not be queued on this machine either: {e}", why.unwrap_or("earlier changes wait")));
        if !self.take_lock(&key, WRITE_LOCK_TTL_MS, self.config.timeout_ms).await.map_err(|e| local(e.to_string()))? {
            return Err(local("another process held the memory queue too long".into()));
        }
        let value = serde_json::to_value(&op).unwrap_or(Value::Null);
        let appended = self.host.outbox_append(&key, value).await;
        self.give_lock(&key).await;
        appended.map_err(|e| local(e.to_string()))?;
        self.memory_queue.set_empty(false);
        Ok(op.queued_answer(why))
    }

    /// How many memory changes wait in the queue (for `status`).
    pub async fn memory_queue_len(&self) -> crate::host::HostResult<usize> {
        Ok(self.host.outbox_read(&memory_queue_key(&self.config.agent_id)).await?.len())
    }

    /// Applies the memory queue, or what can be of it now: `true` when changes still wait
    /// (a new change must then join the queue behind them).
    pub(super) async fn memory_changes_waiting(&self) -> bool {
        if self.memory_queue.known_empty() {
            return false;
        }
        self.replay_memory_ops().await.queued > 0
    }

    /// Applies the queued memory changes in order, each dropped once OpenViking answered it;
    /// stops at the first that OpenViking cannot be reached for.
    pub async fn replay_memory_ops(&self) -> MemoryReplay {
        let key = memory_queue_key(&self.config.agent_id);
        if self.memory_queue.known_empty() {
            return MemoryReplay::default();
        }
        let entries = match self.host.outbox_read(&key).await {
            Ok(e) => e,
            Err(e) => return MemoryReplay { reason: Some(MemoryWait::Unreadable(e)), ..Default::default() },
        };
        if entries.is_empty() {
            self.memory_queue.set_empty(true);
            return MemoryReplay::default();
        }
        if !self.memory_queue.start_replay() {
            return MemoryReplay { queued: entries.len(), reason: Some(MemoryWait::ApplyingHere), ..Default::default() };
        }
        let lease = replay_lease(&key);
        let taken = self.take_lock(&lease, REPLAY_LEASE_TTL_MS, REPLAY_WAIT_MS.min(self.config.timeout_ms)).await;
        let mut out = MemoryReplay { queued: entries.len(), ..Default::default() };
        if matches!(taken, Ok(true)) {
            // read again under the lease: another holder may have applied some meanwhile
            let entries = self.host.outbox_read(&key).await.unwrap_or(entries);
            out = self.apply_queue(&key, &entries).await;
            self.give_lock(&lease).await;
        } else {
            out.reason = Some(MemoryWait::ApplyingElsewhere);
        }
        self.memory_queue.end_replay();
        if out.queued == 0 {
            self.memory_queue.set_empty(true);
        }
        out
    }

    async fn apply_queue(&self, key: &str, entries: &[Value]) -> MemoryReplay {
        let mut out = MemoryReplay { queued: entries.len(), ..Default::default() };
        for v in entries {
            let id = v.get("turnId").and_then(Value::as_str).unwrap_or_default().to_string();
            let applied = match serde_json::from_value::<QueuedOp>(v.clone()) {
                Ok(op) => self.apply_queued(&op).await,
                Err(e) => Ok(Some(format!("a memory queue entry could not be read ({e}); dropped"))),
            };
            match applied {
                Ok(note) => {
                    if let Some(note) = note {
                        self.host.warn(&note);
                    }
                    if let Err(e) = self.drop_memory_entry(key, &id).await {
                        out.reason = Some(e);
                        break;
                    }
                    out.applied += 1;
                    out.queued -= 1;
                }
                Err(why) => {
                    out.reason = Some(why);
                    break;
                }
            }
        }
        out
    }

    async fn drop_memory_entry(&self, key: &str, id: &str) -> Result<(), MemoryWait> {
        if !self.take_lock(key, WRITE_LOCK_TTL_MS, self.config.timeout_ms).await.map_err(MemoryWait::NotDropped)? {
            return Err(MemoryWait::QueueHeld);
        }
        let r = self.host.outbox_drop(key, &[id.to_string()]).await.map_err(MemoryWait::NotDropped);
        self.give_lock(key).await;
        r
    }

    /// Applies one queued change: `Ok(note)` when it is done with (applied, or refused and
    /// dropped — the note says so), `Err(why)` when it must wait.
    async fn apply_queued(&self, op: &QueuedOp) -> Result<Option<String>, MemoryWait> {
        match op {
            QueuedOp::Store { text, uri, category, name, .. } => {
                let uri = match uri {
                    Some(u) => u.clone(),
                    None => match self.resolve_user_why().await {
                        Ok(uid) => format!("{}/{category}/{name}", crate::address::scopes::user_memories(self.config.target_uri.as_deref(), Some(&uid))),
                        Err(Some(e)) if e.retryable() => return Err(MemoryWait::Outage(e)),
                        Err(_) => return Err(MemoryWait::UserUnknown),
                    },
                };
                match self.host.write_text(&uri, text, true, true).await {
                    // an earlier replay's write that landed unacknowledged: the same text there
                    Ok(()) | Err(HostError { kind: HostErrorKind::Conflict, .. }) => {
                        self.forget_search();
                        self.map_stale().await;
                        Ok(None)
                    }
                    Err(e) if e.retryable() => Err(MemoryWait::Outage(e)),
                    Err(e) => Ok(Some(format!("a queued memory_store was refused by OpenViking and dropped ({e}): {uri}"))),
                }
            }
            QueuedOp::Forget { .. } => {
                let Some(input) = op.forget_input() else { return Ok(None) };
                match self.forget_attempt(&input).await {
                    Ok(doc) => {
                        let none = doc.get("deleted").and_then(Value::as_array).map_or(true, Vec::is_empty);
                        let why = doc.get("reason").or(doc.get("note")).and_then(Value::as_str).unwrap_or("nothing matched");
                        Ok(none.then(|| format!("a queued memory_forget deleted nothing: {why}")))
                    }
                    Err(Stop::Outage(e)) => Err(MemoryWait::Outage(e)),
                    Err(Stop::Refused(e)) => Ok(Some(format!("a queued memory_forget was refused and dropped: {}", e.message))),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    #[test]
    fn a_queued_store_keeps_its_uri_and_id_and_reads_back() {
        let input = StoreInput { text: "Deploys go out on Tuesdays".into(), category: "events" };
        let a = QueuedOp::store(&input, 1_764_000_000_000, Some("viking://user/alice/memories"));
        let b = QueuedOp::store(&input, 1_764_000_000_000, Some("viking://user/alice/memories"));
        assert_eq!(a, b, "the same text at the same time: the same change");
        let QueuedOp::Store { uri, name, .. } = &a else { panic!() };
        assert!(uri.as_deref().unwrap().starts_with("viking://user/alice/memories/events/deploys-go-out-on-tuesdays-"), "{uri:?}");
        assert!(name.ends_with(".md"));
        let other = QueuedOp::store(&StoreInput { text: "Deploys go out on Tuesdays!".into(), category: "events" }, 1_764_000_000_000, None);
        assert_ne!(other.id(), a.id(), "another text: another id");
        let v = serde_json::to_value(&a).unwrap();
        assert_eq!(v["op"], "store");
        assert_eq!(v["turnId"], a.id());
        assert_eq!(serde_json::from_value::<QueuedOp>(v).unwrap(), a);
        let answer = a.queued_answer(Some("OpenViking unreachable"));
        assert_eq!((answer["status"].as_str(), answer["stored"].as_bool()), (Some("queued"), Some(false)));
        assert!(answer["note"].as_str().unwrap().contains("as soon as it is back"));
    }

    #[test]
    fn a_queued_forget_reads_back_as_the_input_it_was() {
        let input = ForgetInput { uri: None, query: Some("old theme".into()), limit: Some(3), score_threshold: Some(0.5), target_uri: None };
        let op = QueuedOp::forget(&input, 5);
        let back: QueuedOp = serde_json::from_value(serde_json::to_value(&op).unwrap()).unwrap();
        assert_eq!(back.forget_input(), Some(input));
        assert!(op.id().starts_with("mem-forget-"));
        assert_eq!(op.queued_answer(None)["status"], "queued");
        assert_eq!(memory_queue_key("main"), "memory-ops/main");
    }

    #[test]
    fn why_memory_changes_wait_reads_as_before() {
        let e = HostError::new(HostErrorKind::Unreachable, "connect ECONNREFUSED");
        let local = HostError::new(HostErrorKind::Local, "EACCES");
        let cases = [
            (MemoryWait::Unreadable(local.clone()), "the memory queue could not be read: Local: EACCES"),
            (MemoryWait::ApplyingHere, "being applied by this process"),
            (MemoryWait::ApplyingElsewhere, "another process is applying them"),
            (MemoryWait::NotDropped(local), "Local: EACCES"),
            (MemoryWait::QueueHeld, "another process held the memory queue too long"),
            (MemoryWait::Outage(e.clone()), "connect ECONNREFUSED"),
            (MemoryWait::UserUnknown, "the user behind the API key is not known yet"),
        ];
        for (why, text) in cases {
            assert_eq!(why.to_string(), text);
        }
        let still = MemoryStillQueued { queued: 2, why: MemoryWait::Outage(e) };
        assert_eq!(still.to_string(), "2 memory change(s) still queued: connect ECONNREFUSED");
        assert_eq!(MemoryStillQueued { queued: 1, why: MemoryWait::ApplyingElsewhere }.to_string(), "1 memory change(s) still queued: another process is applying them");
    }
}
