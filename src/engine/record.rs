//! What the engine keeps per OpenViking session, durably (one JSON document in the host's
//! state store, key `session/<ov session id>`), plus the `sessionKey` → current session map.

use super::Engine;
use crate::lifecycle::checkpoint::CheckpointIndex;
use crate::lifecycle::commit_guard::CommitGuard;
use crate::host::{Host, HostErrorKind, HostResult};
use crate::lifecycle::shared_window::{SharedWindow, WindowTurn};
use crate::lifecycle::triggers::SessionState;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::cell::{Cell, Ref, RefCell, RefMut};
use std::collections::{HashMap, HashSet};

/// How many advancement keys (and content keys) are remembered per session for
/// idempotency: hosts retry the turn in hand, not one from hundreds of turns ago.
pub const APPLIED_KEYS_KEPT: usize = 256;

/// Checkpoints kept in the record (newest), and how many of them keep their summary text
/// (assembly uses the newest summaries; every checkpoint is also stored in OpenViking).
pub const CHECKPOINTS_KEPT: usize = 64;
/// Session records a process keeps in memory; beyond this the least recently used saved,
/// idle ones are dropped down to three quarters of it (they are in the state dir).
pub const RECORDS_CACHED: usize = 256;
pub const SUMMARIES_KEPT: usize = 8;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct SessionRecord {
    pub ov_session_id: String,
    /// OpenClaw's `sessionId` (a transcript).
    pub session_id: String,
    /// OpenClaw's `sessionKey` (a conversation; survives `/new`).
    pub session_key: Option<String>,
    /// The OpenViking session has been created.
    pub created: bool,
    #[cfg_attr(feature = "typescript", ts(type = "Record<string, unknown>"))]
    pub state: SessionState,
    #[cfg_attr(feature = "typescript", ts(type = "Record<string, unknown>"))]
    pub guard: CommitGuard,
    /// Advancement keys already written, oldest first.
    pub applied_keys: Vec<String>,
    /// Content keys of turns already written (see `write::content_key`), oldest first: hosts
    /// that call both `commitTurn` and `afterTurn` for one turn get it written once.
    pub content_keys: Vec<String>,
    #[cfg_attr(feature = "typescript", ts(inline))]
    pub checkpoints: CheckpointIndex,
    /// Turn ids of the archive whose commit task is being followed.
    pub pending_turn_ids: Vec<String>,
    /// The session's live message count on OpenViking after this engine's last confirmed
    /// write; `None` when unknown (nothing confirmed yet, or a commit since).
    pub live_count: Option<u64>,
    /// A turn whose write failed in a way that may still have reached OpenViking (timeout,
    /// reset, 5xx, garbled answer): checked before it is sent again (see `write::flush`).
    /// The durable copy is the mark's own document ([`mark_key`]).
    #[cfg_attr(feature = "typescript", ts(inline))]
    pub unconfirmed: Option<Unconfirmed>,
    /// OpenViking was asked whether it holds this session already (what another machine or
    /// an earlier state dir wrote is adopted then, see `rebuild`). A record saved before
    /// this field existed was made with the session: nothing to adopt.
    #[serde(default = "yes")]
    pub openviking_checked: bool,
    /// The session's transcript was looked at for turns from before the engine (once, at
    /// the first contact: `import::past_check_due`).
    pub past_checked: bool,
    /// OpenViking's commit count for the session as this state dir last knew it (its own
    /// commits, an adoption, a follow of another machine's: `follow`); `None` in a record
    /// from before it was kept.
    pub seen_commits: Option<u64>,
    /// The live message count up to which this state dir knows every message's turn: moved
    /// by a send only when OpenViking's answer shows no other writer's messages came between;
    /// `None`: unknown (a commit since). A count past it means another machine wrote (`follow`).
    pub followed_live: Option<u64>,
}

fn yes() -> bool {
    true
}

/// A turn sent but not acknowledged, and the live count it would leave if it was stored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Unconfirmed {
    pub sequence: u64,
    /// `live_count` before the send.
    pub live_before: u64,
    pub message_count: u64,
    /// When the send started (the host's wall clock); 0 in a mark saved before this field
    /// existed. Read only as far as it is plausible (`host::clock::wall_elapsed_ms`).
    pub at_ms: u64,
    /// When the send started on this process's monotonic clock (`Clock::monotonic_ms`): never
    /// saved (it means nothing to another process), `None` in a mark read back.
    #[serde(skip)]
    pub sent_mono_ms: Option<u64>,
}

impl Unconfirmed {
    /// The same send as `other`, whatever either knows of the monotonic clock.
    pub fn same_send(&self, other: &Unconfirmed) -> bool {
        (self.sequence, self.live_before, self.message_count, self.at_ms) == (other.sequence, other.live_before, other.message_count, other.at_ms)
    }
}

/// The write-ahead mark of the send under way ([`Unconfirmed`]), or `null`: a document of its
/// own, written only by the holder of the session's replay lease, so the next holder (another
/// process, whose cached record never saw the mark) reads it when it takes the lease.
pub fn mark_key(ov_session_id: &str) -> String {
    format!("sending/{ov_session_id}")
}

pub fn state_key(ov_session_id: &str) -> String {
    format!("session/{ov_session_id}")
}

pub fn outbox_key(ov_session_id: &str) -> String {
    format!("outbox/{ov_session_id}")
}

/// The session's turn ledger ([`TurnLedger`]), changed only under the write lock.
pub fn ledger_key(ov_session_id: &str) -> String {
    format!("turns/{ov_session_id}")
}

/// What every process on one state dir agrees on about a session's turns, because it is
/// only read and changed under the session's write lock (the session record is saved by
/// each process from its own cache, and the last save wins): the next sequence, and the
/// newest turn ids and content keys appended — a retry that reaches another process (a
/// CLI turn after the gateway took it) is recognised here even after the turn was sent and
/// dropped from the outbox.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TurnLedger {
    pub next: u64,
    pub turn_ids: Vec<String>,
    pub content_keys: Vec<String>,
    /// The trigger window every writer counts (`None` in a ledger from before it was shared:
    /// begun from the first writer's own counters).
    pub window: Option<SharedWindow>,
}

impl TurnLedger {
    pub fn note(&mut self, sequence: u64, turn_id: &str, content_key: Option<&str>) {
        self.next = self.next.max(sequence + 1);
        remember(&mut self.turn_ids, turn_id);
        if let Some(c) = content_key {
            remember(&mut self.content_keys, c);
        }
    }

    /// Notes a queued outbox entry the ledger lacks (its process died between the append and
    /// the ledger's save): its turn id, content key and sequence (so neither a retry of it
    /// nor a later turn's sequence repeats it once it has left the outbox), and its weight in
    /// the shared window. Whether anything was added.
    pub fn note_queued_entry(&mut self, entry: &Value, now_ms: u64) -> bool {
        let Some(sequence) = entry.get("sequence").and_then(Value::as_u64) else { return false };
        let turn_id = entry.get("turnId").and_then(Value::as_str).unwrap_or_default();
        let mut added = false;
        if !turn_id.is_empty() && !self.turn_ids.iter().any(|t| t == turn_id) {
            self.note(sequence, turn_id, entry.get("contentKey").and_then(Value::as_str));
            added = true;
        }
        if sequence >= self.next {
            self.next = sequence + 1;
            added = true;
        }
        self.note_window_entry(entry, now_ms) || added
    }

    /// Adds a queued entry's weight to the shared window when the window lacks it.
    fn note_window_entry(&mut self, entry: &Value, now_ms: u64) -> bool {
        let (Some(window), Some(sequence)) = (self.window.as_mut(), entry.get("sequence").and_then(Value::as_u64)) else { return false };
        let before = window.sums().turns;
        window.record(
            WindowTurn {
                sequence,
                tokens: entry.get("tokens").and_then(Value::as_u64).unwrap_or(0),
                counts: entry.get("counts").and_then(Value::as_bool).unwrap_or(false),
                turn_id: entry.get("turnId").and_then(Value::as_str).unwrap_or_default().to_string(),
            },
            now_ms,
        );
        window.sums().turns != before
    }
}

pub fn session_key_key(agent_id: &str, session_key: &str) -> String {
    format!("key/{}/{}", crate::address::session_map::safe_segment(agent_id), crate::address::session_map::safe_segment(session_key))
}

impl SessionRecord {
    pub fn remember_key(&mut self, key: &str) {
        remember(&mut self.applied_keys, key);
    }

    pub fn remember_content(&mut self, key: &str) {
        remember(&mut self.content_keys, key);
    }
}

/// Takes what the record lacks from outbox entries it has not seen (a crash between the
/// append and the record's save): their keys, their sequences, their weight in the triggers.
pub(super) fn adopt_outbox_entries(rec: &mut SessionRecord, entries: &[Value], now_ms: u64) {
    for e in entries {
        let Some(sequence) = e.get("sequence").and_then(Value::as_u64) else { continue };
        if let Some(k) = e.get("advancementKey").and_then(Value::as_str) {
            if !rec.applied_keys.iter().any(|x| x == k) {
                rec.remember_key(k);
            }
        }
        if let Some(k) = e.get("contentKey").and_then(Value::as_str) {
            if !rec.content_keys.iter().any(|x| x == k) {
                rec.remember_content(k);
            }
        }
        if sequence >= rec.state.next_sequence {
            rec.state.next_sequence = sequence + 1;
            let tokens = e.get("tokens").and_then(Value::as_u64).unwrap_or(0);
            let counts = e.get("counts").and_then(Value::as_bool).unwrap_or(false);
            crate::lifecycle::triggers::record_turn(&mut rec.state, tokens, counts, now_ms);
            crate::lifecycle::triggers::note_recorded(&mut rec.state, sequence);
            if let Some(id) = e.get("turnId").and_then(Value::as_str) {
                crate::lifecycle::triggers::push_window_turn_id(&mut rec.state, id.to_string());
            }
        }
    }
}

/// Keeps the record bounded: the newest checkpoints, summaries only on the newest few.
pub(super) fn bound_checkpoints(rec: &mut SessionRecord) {
    let cps = &mut rec.checkpoints.checkpoints;
    let excess = cps.len().saturating_sub(CHECKPOINTS_KEPT);
    cps.drain(..excess);
    let keep_from = cps.len().saturating_sub(SUMMARIES_KEPT);
    for c in &mut cps[..keep_from] {
        c.summary = None;
    }
}

/// Adds a key to a bounded list of the newest keys.
pub(super) fn remember(list: &mut Vec<String>, key: &str) {
    list.push(key.to_string());
    let excess = list.len().saturating_sub(APPLIED_KEYS_KEPT);
    list.drain(..excess);
}

/// The session records this process holds (the engine's `records` part): at most
/// [`RECORDS_CACHED`] of them; a saved, idle one is dropped (and loaded again when it is
/// used) so a gateway that sees thousands of sessions keeps a bounded cache.
#[derive(Default)]
pub(super) struct Records {
    /// Records loaded in this process, by OpenViking session id.
    cached: RefCell<HashMap<String, SessionRecord>>,
    /// When each cached record was last used (a counter, not a time).
    used: RefCell<HashMap<String, u64>>,
    tick: Cell<u64>,
    /// Records changed in memory since their last save (`update_cached`): saved with the next
    /// `update`, or by `save_unsaved` before a turn or a replay ends.
    unsaved: RefCell<HashSet<String>>,
    /// Operations running now (`Operation`).
    operations: Cell<usize>,
}

impl Records {
    /// The cached records, to read.
    pub(super) fn cache(&self) -> Ref<'_, HashMap<String, SessionRecord>> {
        self.cached.borrow()
    }

    /// The cached records, to change in place (marked neither used nor unsaved).
    pub(super) fn cache_mut(&self) -> RefMut<'_, HashMap<String, SessionRecord>> {
        self.cached.borrow_mut()
    }

    fn touch(&self, ov_session_id: &str) {
        let tick = self.tick.get() + 1;
        self.tick.set(tick);
        self.used.borrow_mut().insert(ov_session_id.to_string(), tick);
    }

    /// The cached record, marked used.
    fn get(&self, ov_session_id: &str) -> Option<SessionRecord> {
        let cached = self.cached.borrow();
        let r = cached.get(ov_session_id)?;
        self.touch(ov_session_id);
        Some(r.clone())
    }

    /// Caches a record just loaded, unless one was loaded concurrently meanwhile: the one
    /// cached is returned.
    fn adopt(&self, rec: SessionRecord) -> SessionRecord {
        if let Some(cached) = self.cached.borrow().get(&rec.ov_session_id) {
            return cached.clone(); // loaded concurrently meanwhile: keep that one
        }
        self.cached.borrow_mut().insert(rec.ov_session_id.clone(), rec.clone());
        self.touch(&rec.ov_session_id);
        rec
    }

    fn read<R>(&self, ov_session_id: &str, f: impl FnOnce(&SessionRecord) -> R) -> R {
        match self.cached.borrow().get(ov_session_id) {
            Some(rec) => f(rec),
            None => f(&SessionRecord { ov_session_id: ov_session_id.to_string(), ..Default::default() }),
        }
    }

    fn update_cached<R>(&self, ov_session_id: &str, f: impl FnOnce(&mut SessionRecord) -> R) -> R {
        let mut records = self.cached.borrow_mut();
        let rec = records.entry(ov_session_id.to_string()).or_insert_with(|| SessionRecord {
            ov_session_id: ov_session_id.to_string(),
            ..Default::default()
        });
        let out = f(rec);
        drop(records);
        self.unsaved.borrow_mut().insert(ov_session_id.to_string());
        self.touch(ov_session_id);
        out
    }

    /// Caches a record as it is, to be saved.
    fn put(&self, rec: &SessionRecord) {
        self.cached.borrow_mut().insert(rec.ov_session_id.clone(), rec.clone());
        self.unsaved.borrow_mut().insert(rec.ov_session_id.clone());
    }

    /// The record to save when it changed since its last save (no longer marked unsaved).
    fn take_unsaved(&self, ov_session_id: &str) -> Option<Option<SessionRecord>> {
        if !self.unsaved.borrow_mut().remove(ov_session_id) {
            return None;
        }
        Some(self.cached.borrow().get(ov_session_id).cloned())
    }

    fn mark_unsaved(&self, ov_session_id: &str) {
        self.unsaved.borrow_mut().insert(ov_session_id.to_string());
    }

    /// Drops the least recently used records that are saved and idle (no unsaved change,
    /// none `busy`, no send awaiting its answer) once more than [`RECORDS_CACHED`] are cached,
    /// down to three quarters of it. Returns the ids dropped.
    fn evict_idle(&self, busy: impl Fn(&str) -> bool) -> Vec<String> {
        if self.cached.borrow().len() <= RECORDS_CACHED {
            return Vec::new();
        }
        let busy = |id: &str| self.unsaved.borrow().contains(id) || busy(id);
        let mut idle: Vec<(u64, String)> = {
            let records = self.cached.borrow();
            let used = self.used.borrow();
            records.iter().filter(|(id, r)| r.unconfirmed.is_none() && !busy(id)).map(|(id, _)| (used.get(id).copied().unwrap_or(0), id.clone())).collect()
        };
        crate::order::sort(&mut idle);
        let excess = self.cached.borrow().len().saturating_sub(RECORDS_CACHED * 3 / 4);
        let mut dropped = Vec::new();
        for (_, id) in idle.into_iter().take(excess) {
            self.cached.borrow_mut().remove(&id);
            self.used.borrow_mut().remove(&id);
            dropped.push(id);
        }
        dropped
    }

    fn operation_started(&self) {
        self.operations.set(self.operations.get() + 1);
    }

    /// An operation ended: how many still run.
    fn operation_ended(&self) -> usize {
        let left = self.operations.get().saturating_sub(1);
        self.operations.set(left);
        left
    }
}

/// A running operation (see [`Engine::operation`]).
pub struct Operation<H: Host> {
    engine: std::rc::Rc<Engine<H>>,
}

impl<H: Host> Drop for Operation<H> {
    fn drop(&mut self) {
        if self.engine.records.operation_ended() == 0 {
            self.engine.evict_idle_records();
        }
    }
}

impl<H: Host> Engine<H> {
    /// The session's turn ledger as saved (`None`: none yet). Changed only under the write lock.
    pub(super) async fn load_ledger(&self, ov_id: &str) -> HostResult<Option<TurnLedger>> {
        Ok(self.host.load_state(&ledger_key(ov_id)).await?.map(|v| serde_json::from_value(v).unwrap_or_default()))
    }

    pub(super) async fn save_ledger(&self, ov_id: &str, ledger: &TurnLedger) -> HostResult<()> {
        self.host.save_state(&ledger_key(ov_id), serde_json::to_value(ledger).unwrap_or(Value::Null)).await
    }

    /// The record of a session: from this process's cache, else the state store, else new.
    pub async fn load_record(&self, ov_session_id: &str, session_id: &str) -> HostResult<SessionRecord> {
        if let Some(r) = self.records.get(ov_session_id) {
            return Ok(r);
        }
        let stored = self.host.load_state(&state_key(ov_session_id)).await?;
        let rec = match stored.map(serde_json::from_value::<SessionRecord>) {
            Some(Ok(r)) => r,
            Some(Err(e)) => {
                self.host.warn(&format!("session state for {ov_session_id} was unreadable ({e}); starting it afresh"));
                SessionRecord { ov_session_id: ov_session_id.into(), session_id: session_id.into(), ..Default::default() }
            }
            None => SessionRecord { ov_session_id: ov_session_id.into(), session_id: session_id.into(), ..Default::default() },
        };
        let mut rec = rec;
        // A session OpenViking holds that this state dir has not seen (a second machine, a
        // deleted state dir): adopted from the server once (`rebuild`). Asked again by the
        // next process while OpenViking does not answer.
        if !rec.openviking_checked {
            match self.host.session_meta(ov_session_id).await {
                Ok(Some(meta)) => match self.adopt_session(&mut rec, &meta).await {
                    Ok(()) => rec.openviking_checked = true,
                    Err(e) => self.host.warn(&format!("session {ov_session_id} could not be adopted from OpenViking yet ({e})")),
                },
                Ok(None) => rec.openviking_checked = true,
                Err(_) => {}
            }
        }
        // The outbox is the reservation: a turn appended by a process that died before its
        // record was saved is known again from its entry (keys, sequence, weight).
        let queued = self.host.outbox_read(&outbox_key(ov_session_id)).await?;
        adopt_outbox_entries(&mut rec, &queued, self.host.now_ms());
        // Reconcile with OpenViking once per process: writes made elsewhere (another
        // process, a lost state dir) show up in its pending_tokens.
        if rec.created {
            match self.host.session_meta(ov_session_id).await {
                Ok(Some(meta)) => {
                    rec.state.server_pending_tokens = Some(meta.pending_tokens);
                    rec.live_count = Some(meta.message_count);
                }
                // the session vanished on the server: created again by the next write
                Ok(None) => {
                    rec.created = false;
                    rec.live_count = None;
                }
                Err(_) => {}
            }
        }
        Ok(self.records.adopt(rec))
    }

    /// Marks an operation of the host's (a turn's write, an assemble, a tool call…) as
    /// running until the returned guard drops; when the last one ends, idle records beyond
    /// [`RECORDS_CACHED`] are dropped (`evict_idle_records`). No operation then holds a record
    /// it expects to find cached.
    pub fn operation(self: &std::rc::Rc<Self>) -> Operation<H> {
        self.records.operation_started();
        Operation { engine: self.clone() }
    }

    /// Records in this process's cache.
    pub fn cached_records(&self) -> usize {
        self.records.cache().len()
    }

    /// Drops the least recently used records that are saved and idle (no unsaved change, no
    /// replay, no commit followed, no send awaiting its answer) once more than
    /// [`RECORDS_CACHED`] are cached, down to three quarters of it; with them what this
    /// process knew of their live messages (read again from OpenViking when needed). Called
    /// when no operation runs ([`operation`](Self::operation)).
    pub fn evict_idle_records(&self) {
        for id in self.records.evict_idle(|id| self.replay.is_running(id) || self.followers.is_followed(id)) {
            self.replay.forget_live(&id);
        }
    }

    /// Changes a cached record in place — synchronously, so concurrent operations on the
    /// same session (a background commit and the next turn's write) never overwrite each
    /// other's changes — and persists the result. `load_record` must have cached it.
    pub async fn update<R>(&self, ov_session_id: &str, f: impl FnOnce(&mut SessionRecord) -> R) -> HostResult<R> {
        let out = self.update_cached(ov_session_id, f);
        self.save_unsaved(ov_session_id).await?;
        Ok(out)
    }

    /// Reads the cached record (a default one when it is not loaded), saving nothing.
    pub fn read_record<R>(&self, ov_session_id: &str, f: impl FnOnce(&SessionRecord) -> R) -> R {
        self.records.read(ov_session_id, f)
    }

    /// Changes a cached record in place like [`update`](Self::update), without saving it: for
    /// a change a crash may lose because it is known again from elsewhere (a turn's weight in
    /// the triggers from its outbox entry; a send's answer from the write-ahead mark's check),
    /// and that is saved durably when the replay or the turn ends (`save_unsaved`) — the same
    /// document saved once instead of once per change.
    pub fn update_cached<R>(&self, ov_session_id: &str, f: impl FnOnce(&mut SessionRecord) -> R) -> R {
        self.records.update_cached(ov_session_id, f)
    }

    /// Saves a record changed since its last save (durably); nothing when it is saved already.
    pub async fn save_unsaved(&self, ov_session_id: &str) -> HostResult<()> {
        let Some(Some(snapshot)) = self.records.take_unsaved(ov_session_id) else { return Ok(()) };
        let v = serde_json::to_value(&snapshot).unwrap_or(Value::Null);
        let saved = self.host.save_state(&state_key(ov_session_id), v).await;
        if saved.is_err() {
            self.records.mark_unsaved(ov_session_id);
        }
        saved
    }

    /// Saves a record (cache first, then durably).
    pub async fn save_record(&self, rec: &SessionRecord) -> HostResult<()> {
        self.records.put(rec);
        self.save_unsaved(&rec.ov_session_id).await
    }

    /// Creates the OpenViking session once: working-memory summaries on; with
    /// `autoCapture: false`, long-term memory extraction off (turns are still recorded).
    pub async fn ensure_session(&self, ov_session_id: &str) -> HostResult<()> {
        let created = self.records.cache().get(ov_session_id).is_some_and(|r| r.created);
        if created {
            return Ok(());
        }
        let mut policy = json!({"working_memory": {"enabled": true}});
        if !self.config.auto_capture {
            policy["self"] = json!({"enabled": false});
            policy["peer"] = json!({"enabled": false});
        }
        let fresh = match self.host.create_session(ov_session_id, policy).await {
            Ok(()) => true,
            Err(e) if e.kind == HostErrorKind::Conflict => false,
            Err(e) => return Err(e),
        };
        self.update(ov_session_id, |r| {
            r.created = true;
            if fresh {
                r.live_count = Some(0);
                r.followed_live = Some(0);
            }
        })
        .await
    }
}
