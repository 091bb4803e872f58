//! The outbox: every turn's way into OpenViking. A turn is appended (fsync'd) to its
//! session's outbox before anything else happens to it; writing to OpenViking is always a
//! replay of the outbox head, one entry at a time, in order.
//!
//! Each send is marked write-ahead (`SessionRecord::unconfirmed`, with the live message count
//! it would leave) before it leaves, and the entry is dropped only after OpenViking answered.
//! A process that dies between the send and the drop leaves the entry marked: the next replay
//! asks OpenViking whether it landed (`confirm`) instead of sending it twice.
//!
//! A session that vanished on the server (deleted, a lost data dir) is created again and the
//! entry sent to it.

use super::confirm::{Check, Unchecked};
use super::record::{mark_key, outbox_key, Unconfirmed};
use super::memory_queue::MemoryStillQueued;
use super::Engine;
use crate::host::clock::Moment;
use crate::message::StoredMessage;
use crate::host::{Host, HostError, HostErrorKind, HostResult};
use super::locks::{replay_lease, REPLAY_LEASE_TTL_MS, REPLAY_WAIT_MS, WRITE_LOCK_TTL_MS};
use serde::Serialize;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::task::{Context, Poll, Waker};

/// This process's replays of the sessions' outboxes (the engine's `replay` part).
#[derive(Default)]
pub(super) struct Replay {
    /// Sessions whose outbox is being replayed: one replay at a time per session (two at once
    /// would both send the head entry).
    flushing: RefCell<HashSet<String>>,
    /// Calls waiting for a session's running replay to end (`drain`).
    waiters: RefCell<HashMap<String, Vec<Waker>>>,
    /// Per session, what this process knows of the live messages on OpenViking: their
    /// count and turn ids as last read, plus its own sends since (the replay asks OpenViking
    /// again only when the server's count differs).
    live_known: RefCell<HashMap<String, LiveKnown>>,
}

/// See `Replay::live_known`.
#[derive(Debug, Clone, Default)]
struct LiveKnown {
    count: u64,
    turn_ids: HashSet<String>,
}

impl Replay {
    /// Claims the session's replay for this caller; `false` when one is running already.
    fn begin(&self, ov_id: &str) -> bool {
        self.flushing.borrow_mut().insert(ov_id.to_string())
    }

    /// The session's replay is over: the calls waiting for it go on.
    fn end(&self, ov_id: &str) {
        self.flushing.borrow_mut().remove(ov_id);
        for waker in self.waiters.borrow_mut().remove(ov_id).unwrap_or_default() {
            waker.wake();
        }
    }

    /// A replay of the session runs in this process now.
    pub(super) fn is_running(&self, ov_id: &str) -> bool {
        self.flushing.borrow().contains(ov_id)
    }

    /// Ready once no replay of the session runs; else wakes `cx` when it ends.
    fn poll_finished(&self, ov_id: &str, cx: &mut Context<'_>) -> Poll<()> {
        if !self.is_running(ov_id) {
            return Poll::Ready(());
        }
        self.waiters.borrow_mut().entry(ov_id.to_string()).or_default().push(cx.waker().clone());
        Poll::Pending
    }

    /// Forgets what this process knew of the session's live messages (read again when needed).
    pub(super) fn forget_live(&self, ov_id: &str) {
        self.live_known.borrow_mut().remove(ov_id);
    }

    /// The live count and turn ids last known, if any.
    fn known_live(&self, ov_id: &str) -> Option<(u64, HashSet<String>)> {
        self.live_known.borrow().get(ov_id).map(|k| (k.count, k.turn_ids.clone()))
    }

    fn note_live(&self, ov_id: &str, count: u64, turn_ids: HashSet<String>) {
        self.live_known.borrow_mut().insert(ov_id.to_string(), LiveKnown { count, turn_ids });
    }

    /// A send of `turn_id` was answered: with the new live count (`Some`), the turn joins
    /// what is known; without one, nothing is known any more.
    fn note_sent(&self, ov_id: &str, count: Option<u64>, turn_id: &str) {
        let mut known = self.live_known.borrow_mut();
        match (count, known.get_mut(ov_id)) {
            (Some(c), Some(k)) => {
                k.count = c;
                k.turn_ids.insert(turn_id.to_string());
            }
            _ => {
                known.remove(ov_id);
            }
        }
    }
}

/// What a replay did, and what stayed queued and why.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct FlushReport {
    /// Turns that reached OpenViking during this replay (including ones found already
    /// stored after an unacknowledged write).
    pub written: usize,
    /// Turns still waiting in the outbox.
    pub queued: usize,
    /// Sequences of the turns still waiting, oldest first.
    #[serde(skip)]
    pub queued_sequences: Vec<u64>,
    /// Why the replay stopped with turns still queued (`None` when the outbox is empty, or
    /// when another replay of the session was still under way).
    pub reason: Option<String>,
    /// Another replay of this session was under way: it takes the queued turns.
    pub in_progress: bool,
    /// Queued memory changes (`memory_store`, `memory_forget` during an outage) this replay
    /// applied, before the turns.
    pub memory_applied: usize,
    /// Memory changes still waiting.
    pub memory_queued: usize,
}

/// Why a replay stopped with turns still queued: rendered into [`FlushReport::reason`] (and
/// the outage warning), whose text it keeps.
#[derive(Debug, Clone)]
enum StillQueued {
    /// Which turns OpenViking holds could not be read.
    StoredUnknown(HostError),
    /// A write sent earlier and not acknowledged could not be checked yet (why, from `confirm`).
    Unchecked(Unchecked),
    /// The send, or what it needs first (the session, the mark, the record), failed.
    Failed(HostError),
}

impl std::fmt::Display for StillQueued {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StillQueued::StoredUnknown(e) => write!(f, "{} while checking which turns OpenViking holds", e.described()),
            StillQueued::Unchecked(why) => write!(f, "an unacknowledged write could not be checked yet: {why}"),
            StillQueued::Failed(e) => write!(f, "{e}"),
        }
    }
}

/// One outbox entry as the replay needs it.
struct Entry {
    sequence: Option<u64>,
    turn_id: String,
    messages: Vec<Value>,
    /// The entry as queued (its weight in the triggers: `tokens`, `counts`).
    raw: Value,
}

fn entry(v: &Value) -> Entry {
    Entry {
        sequence: v.get("sequence").and_then(Value::as_u64),
        turn_id: v.get("turnId").and_then(Value::as_str).unwrap_or_default().to_string(),
        messages: v.get("messages").and_then(Value::as_array).cloned().unwrap_or_default(),
        raw: serde_json::json!({"sequence": v.get("sequence"), "turnId": v.get("turnId"), "contentKey": v.get("contentKey"), "tokens": v.get("tokens"), "counts": v.get("counts")}),
    }
}

/// The turn ids on a list of OpenViking messages (`turn_id`, as the engine sends them).
fn turn_ids_of(messages: &[Value]) -> HashSet<String> {
    messages.iter().filter_map(|m| StoredMessage::of(m).turn_id()).map(str::to_string).collect()
}

impl<H: Host> Engine<H> {
    /// Replays the outbox in order; stops at the first failure. One replay per session at a
    /// time: while one runs, another call returns at once (`inProgress`) — the running one
    /// reads the outbox again before it ends, so it also takes entries appended meanwhile.
    pub async fn flush(&self, ov_id: &str) -> HostResult<FlushReport> {
        self.replay(ov_id, false).await
    }

    /// [`flush`](Self::flush) right after this process queued a turn: the outbox is not
    /// empty, so it is not read first to see whether it is.
    pub(super) async fn flush_after_append(&self, ov_id: &str) -> HostResult<FlushReport> {
        self.replay(ov_id, true).await
    }

    /// The agent's queued memory changes first (in order, before the turns: a memory the
    /// model stored during a turn precedes that turn's write), then the session's turns.
    async fn replay(&self, ov_id: &str, queued_known: bool) -> HostResult<FlushReport> {
        let memory = self.replay_memory_ops().await;
        let mut report = self.replay_turns(ov_id, queued_known).await?;
        report.memory_applied = memory.applied;
        report.memory_queued = memory.queued;
        if report.reason.is_none() && memory.queued > 0 {
            if let Some(why) = memory.reason {
                report.reason = Some(MemoryStillQueued { queued: memory.queued, why }.to_string());
            }
        }
        Ok(report)
    }

    async fn replay_turns(&self, ov_id: &str, queued_known: bool) -> HostResult<FlushReport> {
        if !self.replay.begin(ov_id) {
            let queued = self.host.outbox_read(&outbox_key(ov_id)).await?.len();
            return Ok(FlushReport { queued, in_progress: true, ..Default::default() });
        }
        // nothing queued (most flushes: a turn's own write landed): no lease to take and give
        // back (lock files on the state dir, ~20 ms of an exiting CLI turn's dispose)
        let probe = if queued_known { None } else { Some(self.host.outbox_read(&outbox_key(ov_id)).await) };
        match probe {
            Some(Ok(queued)) if queued.is_empty() => {
                self.replay_done(ov_id);
                self.outage_over(ov_id);
                return Ok(FlushReport::default());
            }
            Some(Err(e)) => {
                self.replay_done(ov_id);
                return Err(e);
            }
            _ => {}
        }
        // one replay per session across the processes on this state dir, too
        let lease = replay_lease(ov_id);
        let taken = self.take_lock(&lease, REPLAY_LEASE_TTL_MS, REPLAY_WAIT_MS.min(self.config.timeout_ms)).await;
        if !matches!(taken, Ok(true)) {
            self.replay_done(ov_id);
            let queued = self.host.outbox_read(&outbox_key(ov_id)).await?.len();
            taken?;
            return Ok(FlushReport { queued, in_progress: true, ..Default::default() });
        }
        let out = self.replay_rounds(ov_id).await;
        let saved = self.save_unsaved(ov_id).await;
        self.give_lock(&lease).await;
        self.replay_done(ov_id);
        let report = out?;
        saved?;
        match &report.reason {
            Some(why) => self.warn_once(ov_id, &format!("OpenViking unavailable ({why}); {} turn(s) kept in the outbox", report.queued)),
            None => self.outage_over(ov_id),
        }
        Ok(report)
    }

    /// This process's replay of the session is over: the calls waiting for it go on.
    fn replay_done(&self, ov_id: &str) {
        self.replay.end(ov_id);
    }

    /// Replays until the outbox is empty, a send fails, or the bound is reached.
    async fn replay_rounds(&self, ov_id: &str) -> HostResult<FlushReport> {
        let mut total = FlushReport::default();
        let mut rounds = 0;
        let out = loop {
            rounds += 1;
            match self.replay_outbox(ov_id).await {
                Ok(r) => {
                    total.written += r.written;
                    // again for entries appended meanwhile; a bounded number of times (an
                    // outbox whose drops do not take effect must not loop forever)
                    let again = r.written > 0 && r.reason.is_none() && rounds < MAX_REPLAY_ROUNDS;
                    total.queued = r.queued;
                    total.queued_sequences = r.queued_sequences;
                    total.reason = r.reason;
                    if !again {
                        break Ok(total);
                    }
                }
                Err(e) => break Err(e),
            }
        };
        out
    }

    /// Resolves once no replay of this session is running.
    async fn replay_finished(&self, ov_id: &str) {
        std::future::poll_fn(|cx| self.replay.poll_finished(ov_id, cx)).await
    }

    /// Before the process exits: waits for a replay already running (a signal handler's, a
    /// turn's), then replays what is left — so a stop right after a signal still empties the
    /// outbox instead of returning `inProgress` while the first replay is cut off.
    pub async fn drain(&self, ov_id: &str) -> HostResult<FlushReport> {
        for _ in 0..MAX_REPLAY_ROUNDS {
            self.replay_finished(ov_id).await;
            let report = self.flush(ov_id).await?;
            if !report.in_progress {
                return Ok(report);
            }
        }
        self.flush(ov_id).await
    }

    async fn replay_outbox(&self, ov_id: &str) -> HostResult<FlushReport> {
        let okey = outbox_key(ov_id);
        let entries: Vec<Entry> = self.host.outbox_read(&okey).await?.iter().map(entry).collect();
        let mut report = FlushReport::default();
        if entries.is_empty() {
            return Ok(report);
        }
        self.load_record(ov_id, "").await?;
        self.adopt_mark(ov_id).await;
        let mut done = 0;
        // What OpenViking holds already, by turn id: a send whose answer was lost, an entry
        // another process sent and died before dropping, a turn queued twice.
        match self.stored_turn_ids(ov_id).await {
            Ok(mut stored) => {
                for e in &entries {
                    let there = !e.turn_id.is_empty() && stored.contains(&e.turn_id);
                    if there {
                        self.host.warn(&format!("turn {} of {ov_id} had reached OpenViking unacknowledged; not written again", e.sequence.unwrap_or(0)));
                    }
                    let sent = if there { Ok(()) } else { self.replay_one(ov_id, e).await };
                    if let Err(why) = sent {
                        report.reason = Some(why.to_string());
                        break;
                    }
                    stored.insert(e.turn_id.clone());
                    // one drop per entry: a crash replays at most the entry in hand
                    self.drop_entry(ov_id, &okey, e).await?;
                    done += 1;
                }
            }
            Err(why) => report.reason = Some(why.to_string()),
        }
        report.written = done;
        report.queued_sequences = entries[done..].iter().filter_map(|e| e.sequence).collect();
        report.queued = entries.len() - done;
        // a mark whose entry was dropped is done with
        let stale = self.records.cache().get(ov_id).and_then(|r| r.unconfirmed.as_ref()).is_some_and(|u| !report.queued_sequences.contains(&u.sequence));
        if stale {
            self.set_mark(ov_id, None).await?;
        }
        Ok(report)
    }

    /// The write-ahead mark another holder of the replay lease left (a process that died or
    /// gave up mid-send, whose mark this process's cached record never saw): taken as this
    /// replay's, so its entry is checked before it is sent again. This process's own mark
    /// read back keeps its monotonic stamp.
    async fn adopt_mark(&self, ov_id: &str) {
        let Ok(Some(v)) = self.host.load_state(&mark_key(ov_id)).await else { return };
        if let Ok(Some(u)) = serde_json::from_value::<Option<Unconfirmed>>(v) {
            if let Some(rec) = self.records.cache_mut().get_mut(ov_id) {
                let mono = rec.unconfirmed.as_ref().filter(|mine| mine.same_send(&u)).and_then(|mine| mine.sent_mono_ms);
                rec.unconfirmed = Some(Unconfirmed { sent_mono_ms: mono, ..u });
            }
        }
    }

    /// Sets (durably, before a send) or clears the write-ahead mark, in the cached record and
    /// in its own document. A cleared mark is saved without fsync: one a crash brings back
    /// names an entry that was dropped, and is cleared again by the next replay.
    pub(super) async fn set_mark(&self, ov_id: &str, mark: Option<Unconfirmed>) -> HostResult<()> {
        let v = serde_json::to_value(&mark).unwrap_or(Value::Null);
        let durable = mark.is_some();
        self.update_cached(ov_id, |rec| rec.unconfirmed = mark);
        if durable {
            self.host.save_state(&mark_key(ov_id), v).await
        } else {
            self.host.save_cache(&mark_key(ov_id), v).await
        }
    }

    /// [`check_unconfirmed`](Self::check_unconfirmed), allowing for a send still on its way:
    /// while the marked turn is not found and the send is recent (a process killed as
    /// its request went out, or a send that timed out on a slow server — OpenViking may still
    /// be storing it), it waits and asks again, up to [`SETTLE_INLINE_MS`]; a longer wait is
    /// left to a later replay (`Unknown`: the entry stays queued). How recent is
    /// [`settle_left`](Self::settle_left): never longer than the wait itself, whatever the
    /// clock says.
    async fn check_settled(&self, ov_id: &str, u: &Unconfirmed, messages: &[Value]) -> Check {
        // (bounded in polls too: a host whose sleep returns at once must not spin)
        let mut polls = 0;
        loop {
            polls += 1;
            let check = self.check_unconfirmed(ov_id, u, messages).await;
            if !matches!(check, Check::Absent { .. }) || polls > SETTLE_INLINE_MS / SETTLE_STEP_MS {
                return check;
            }
            let Some((elapsed, left)) = self.settle_left(u) else { return check };
            if left > SETTLE_INLINE_MS {
                return Check::Unknown(Unchecked::MayStillLand { sequence: u.sequence, elapsed_ms: elapsed });
            }
            self.host.sleep(left.min(SETTLE_STEP_MS)).await;
        }
    }

    /// How long ago the marked send went out and how much of its wait (the request timeout
    /// plus a second, at least [`SETTLE_MIN_MS`]) is left; `None` once the wait is over or
    /// when how long ago cannot be told. Measured on this process's monotonic clock for its
    /// own sends; a mark from another process (or one without a monotonic stamp) on the wall
    /// clock, only when its stamp is plausible and not later than now (a stamp taken while
    /// the clock was a day or years ahead, or by a clock answering nonsense, is over).
    fn settle_left(&self, u: &Unconfirmed) -> Option<(u64, u64)> {
        let wait = self.config.timeout_ms.saturating_add(1000).max(SETTLE_MIN_MS);
        let sent = Moment { wall_ms: u.at_ms, mono_ms: u.sent_mono_ms };
        let elapsed = sent.elapsed_ms(&self.host)?;
        Some((elapsed, wait.checked_sub(elapsed).filter(|left| *left > 0)?))
    }

    /// The turn ids among the session's live messages on OpenViking. Asked for, unless the
    /// live count is what this process last saw plus its own sends since: then the ids it
    /// knows are all there is (a turn this process sent may still come back into the outbox —
    /// a retry another process appended again — and is found among them). `Err` says why it
    /// is unknown.
    async fn stored_turn_ids(&self, ov_id: &str) -> Result<HashSet<String>, StillQueued> {
        let why = StillQueued::StoredUnknown;
        let known = self.replay.known_live(ov_id);
        let marked = self.records.cache().get(ov_id).is_some_and(|r| r.unconfirmed.is_some());
        if let (Some((count, turn_ids)), false) = (known, marked) {
            match self.host.session_meta(ov_id).await {
                Ok(Some(meta)) if meta.message_count == count => return Ok(turn_ids),
                Ok(None) => return Ok(HashSet::new()),
                Ok(Some(_)) => {}
                Err(e) => return Err(why(e)),
            }
        }
        match self.host.live_messages(ov_id).await {
            Ok(live) => {
                let turn_ids = turn_ids_of(&live);
                // the count a send's mark starts from (another process may have written since
                // this one's last send)
                self.update_cached(ov_id, |rec| rec.live_count = Some(live.len() as u64));
                self.replay.note_live(ov_id, live.len() as u64, turn_ids.clone());
                Ok(turn_ids)
            }
            Err(e) if e.kind == HostErrorKind::NotFound => Ok(HashSet::new()),
            Err(e) => Err(why(e)),
        }
    }

    /// Drops one replayed entry, by its turn id, under the write lock (a drop rewrites the
    /// outbox: an append by another process must not land in the file it replaces).
    /// The turn ledger notes the entry first when it lacks it (its writer died before saving
    /// the ledger): its id, its sequence and its weight in the shared trigger window.
    async fn drop_entry(&self, ov_id: &str, okey: &str, e: &Entry) -> HostResult<()> {
        if !self.take_lock(okey, WRITE_LOCK_TTL_MS, self.config.timeout_ms).await? {
            return Err(HostError::new(HostErrorKind::Local, format!("another process held the outbox {okey} too long to drop a written turn")));
        }
        if let Ok(Some(mut ledger)) = self.load_ledger(ov_id).await {
            if ledger.note_queued_entry(&e.raw, self.host.now_ms()) {
                if let Err(err) = self.save_ledger(ov_id, &ledger).await {
                    self.host.warn(&format!("the turn ledger of {ov_id} could not be saved ({err})"));
                }
            }
        }
        let r = self.host.outbox_drop(okey, &[e.turn_id.clone()]).await;
        self.give_lock(okey).await;
        r
    }

    /// Brings one entry into OpenViking: found there already (an unacknowledged earlier
    /// send), or sent now. `Err` says why it is still queued.
    async fn replay_one(&self, ov_id: &str, e: &Entry) -> Result<(), StillQueued> {
        let marked = self.records.cache().get(ov_id).and_then(|r| r.unconfirmed.clone());
        if let Some(u) = marked.filter(|u| Some(u.sequence) == e.sequence) {
            match self.check_settled(ov_id, &u, &e.messages).await {
                Check::Stored => {
                    self.host.warn(&format!("turn {} of {ov_id} had reached OpenViking unacknowledged; not written again", u.sequence));
                    let live = u.live_before + u.message_count;
                    self.update_cached(ov_id, |rec| rec.live_count = Some(live));
                    self.set_mark(ov_id, None).await.map_err(StillQueued::Failed)?;
                    return Ok(());
                }
                Check::Absent { live } => {
                    self.update_cached(ov_id, |rec| rec.live_count = Some(live));
                    self.set_mark(ov_id, None).await.map_err(StillQueued::Failed)?;
                }
                Check::Unknown(why) => return Err(StillQueued::Unchecked(why)),
            }
        }
        match self.send_marked(ov_id, e).await {
            Err(err) if err.kind == HostErrorKind::NotFound => {
                // the session vanished on the server: create it again and send once more
                self.host.warn(&format!("OpenViking session {ov_id} no longer exists; creating it again"));
                self.update(ov_id, |rec| {
                    rec.created = false;
                    rec.live_count = None;
                })
                .await
                .map_err(StillQueued::Failed)?;
                self.set_mark(ov_id, None).await.map_err(StillQueued::Failed)?;
                self.send_marked(ov_id, e).await.map_err(StillQueued::Failed)
            }
            other => other.map_err(StillQueued::Failed),
        }
    }

    /// Sends one entry, marked write-ahead with the live count it would leave.
    async fn send_marked(&self, ov_id: &str, e: &Entry) -> HostResult<()> {
        self.ensure_session(ov_id).await?;
        let live_before = self.live_count_now(ov_id).await?;
        let n = e.messages.len() as u64;
        if let Some(sequence) = e.sequence {
            let at = Moment::now(&self.host);
            let u = Unconfirmed { sequence, live_before, message_count: n, at_ms: at.wall_ms, sent_mono_ms: at.mono_ms };
            self.set_mark(ov_id, Some(u)).await?;
        }
        let answer = if e.messages.is_empty() { Ok(Some(live_before)) } else { self.host.add_messages(ov_id, e.messages.clone()).await };
        match answer {
            Ok(count) => {
                // the mark stays until the entry is dropped (a crash in between is checked)
                let live = count.unwrap_or(live_before + n);
                // what this process knows is live now: what it saw, plus this turn
                self.replay.note_sent(ov_id, count, &e.turn_id);
                // saved with the record when the replay ends (a crash before that leaves the
                // mark, which the next replay checks)
                self.update_cached(ov_id, |rec| {
                    rec.live_count = Some(live);
                    // every message up to here is known when nothing came between
                    if count.is_some() && rec.followed_live == Some(live_before) && live == live_before + n {
                        rec.followed_live = Some(live);
                    }
                    rec.guard.on_reachable();
                });
                self.outage_over(ov_id);
                Ok(())
            }
            Err(err) => {
                // retryable: it may have landed (the mark stays, checked before the resend);
                // refused: it did not
                let ambiguous = err.retryable();
                self.replay.forget_live(ov_id);
                self.update_cached(ov_id, |rec| rec.live_count = None);
                if !ambiguous {
                    self.set_mark(ov_id, None).await?;
                }
                if !ambiguous && err.kind != HostErrorKind::NotFound {
                    self.host.warn(&format!("OpenViking refused turn {} of {ov_id} ({err}); kept in the outbox", e.sequence.unwrap_or(0)));
                }
                Err(err)
            }
        }
    }

    /// The session's live message count: known from the last confirmed write, else asked.
    async fn live_count_now(&self, ov_id: &str) -> HostResult<u64> {
        if let Some(n) = self.records.cache().get(ov_id).and_then(|r| r.live_count) {
            return Ok(n);
        }
        match self.host.session_meta(ov_id).await? {
            Some(meta) => {
                self.update(ov_id, |rec| rec.live_count = Some(meta.message_count)).await?;
                Ok(meta.message_count)
            }
            None => Err(HostError::new(HostErrorKind::NotFound, format!("session {ov_id} not found"))),
        }
    }
}

/// How long after a send its mark is waited on while none of it has landed: the request
/// timeout plus a second, and at least [`SETTLE_MIN_MS`] (see `settle_left`).
const SETTLE_MIN_MS: u64 = 3000;
/// The longest wait inside one replay for a send that may still land; polled every
/// [`SETTLE_STEP_MS`].
const SETTLE_INLINE_MS: u64 = 3000;
const SETTLE_STEP_MS: u64 = 100;

/// Replays of entries appended during a replay, at most, before `flush` returns.
const MAX_REPLAY_ROUNDS: usize = 8;

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    #[test]
    fn why_turns_stay_queued_reads_as_before() {
        let e = HostError::new(HostErrorKind::Timeout, "no answer in 5000 ms");
        assert_eq!(StillQueued::StoredUnknown(e.clone()).to_string(), "no answer (no answer in 5000 ms) while checking which turns OpenViking holds");
        assert_eq!(StillQueued::Unchecked(Unchecked::NoAnswer(e.clone())).to_string(), "an unacknowledged write could not be checked yet: no answer (no answer in 5000 ms)");
        assert_eq!(StillQueued::Failed(e).to_string(), "Timeout: no answer in 5000 ms");
    }
}
