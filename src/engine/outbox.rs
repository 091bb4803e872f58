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

use super::confirm::Check;
use super::record::{outbox_key, Unconfirmed};
use super::Engine;
use crate::host::{Host, HostError, HostErrorKind, HostResult};
use serde::Serialize;
use serde_json::Value;

crate::ts_type! {
/// What a replay did, and what stayed queued and why.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
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
}
}

/// One outbox entry as the replay needs it.
struct Entry {
    sequence: Option<u64>,
    messages: Vec<Value>,
}

fn entry(v: &Value) -> Entry {
    Entry {
        sequence: v.get("sequence").and_then(Value::as_u64),
        messages: v.get("messages").and_then(Value::as_array).cloned().unwrap_or_default(),
    }
}

impl<H: Host> Engine<H> {
    /// Replays the outbox in order; stops at the first failure. One replay per session at a
    /// time: while one runs, another call returns at once (`inProgress`) — the running one
    /// reads the outbox again before it ends, so it also takes entries appended meanwhile.
    pub async fn flush(&self, ov_id: &str) -> HostResult<FlushReport> {
        if !self.flushing.borrow_mut().insert(ov_id.to_string()) {
            let queued = self.host.outbox_read(&outbox_key(ov_id)).await?.len();
            return Ok(FlushReport { queued, in_progress: true, ..Default::default() });
        }
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
        self.flushing.borrow_mut().remove(ov_id);
        for waker in self.replay_waiters.borrow_mut().remove(ov_id).unwrap_or_default() {
            waker.wake();
        }
        let report = out?;
        match &report.reason {
            Some(why) => self.warn_once(ov_id, &format!("OpenViking unavailable ({why}); {} turn(s) kept in the outbox", report.queued)),
            None => self.outage_over(ov_id),
        }
        Ok(report)
    }

    /// Resolves once no replay of this session is running.
    async fn replay_finished(&self, ov_id: &str) {
        std::future::poll_fn(|cx| {
            if !self.flushing.borrow().contains(ov_id) {
                return std::task::Poll::Ready(());
            }
            self.replay_waiters.borrow_mut().entry(ov_id.to_string()).or_default().push(cx.waker().clone());
            std::task::Poll::Pending
        })
        .await
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
        let mut done = 0;
        if let (Some(head), Some(last)) = (entries.first().and_then(|e| e.sequence), self.records.borrow().get(ov_id).and_then(|r| r.last_dropped)) {
            if head <= last {
                // the host's drop said done but the entry is still there: stop, do not resend
                report.queued = entries.len();
                report.queued_sequences = entries.iter().filter_map(|e| e.sequence).collect();
                report.reason = Some(format!("the outbox still holds turn {head}, already written and dropped; the state dir is not keeping drops"));
                return Ok(report);
            }
        }
        for e in &entries {
            match self.replay_one(ov_id, e).await {
                Ok(()) => {
                    // one drop per entry: a crash replays at most the entry in hand
                    self.host.outbox_drop(&okey, 1).await?;
                    if let Some(seq) = e.sequence {
                        if let Some(rec) = self.records.borrow_mut().get_mut(ov_id) {
                            rec.last_dropped = Some(seq);
                        }
                    }
                    done += 1;
                }
                Err(why) => {
                    report.reason = Some(why);
                    break;
                }
            }
        }
        report.written = done;
        report.queued_sequences = entries[done..].iter().filter_map(|e| e.sequence).collect();
        report.queued = entries.len() - done;
        // a mark whose entry was dropped is done with
        let stale = self.records.borrow().get(ov_id).and_then(|r| r.unconfirmed.as_ref()).is_some_and(|u| !report.queued_sequences.contains(&u.sequence));
        if stale {
            self.update(ov_id, |rec| rec.unconfirmed = None).await?;
        }
        Ok(report)
    }

    /// Brings one entry into OpenViking: found there already (an unacknowledged earlier
    /// send), or sent now. `Err` says why it is still queued.
    async fn replay_one(&self, ov_id: &str, e: &Entry) -> Result<(), String> {
        let marked = self.records.borrow().get(ov_id).and_then(|r| r.unconfirmed.clone());
        if let Some(u) = marked.filter(|u| Some(u.sequence) == e.sequence) {
            match self.check_unconfirmed(ov_id, &u, &e.messages).await {
                Check::Stored => {
                    self.host.warn(&format!("turn {} of {ov_id} had reached OpenViking unacknowledged; not written again", u.sequence));
                    let live = u.live_before + u.message_count;
                    self.update(ov_id, |rec| {
                        rec.unconfirmed = None;
                        rec.live_count = Some(live);
                    })
                    .await
                    .map_err(|e| e.to_string())?;
                    return Ok(());
                }
                Check::Absent { live } => {
                    self.update(ov_id, |rec| {
                        rec.unconfirmed = None;
                        rec.live_count = Some(live);
                    })
                    .await
                    .map_err(|e| e.to_string())?;
                }
                Check::Unknown(why) => return Err(format!("no answer while checking an unacknowledged write: {why}")),
            }
        }
        match self.send_marked(ov_id, e).await {
            Err(err) if err.kind == HostErrorKind::NotFound => {
                // the session vanished on the server: create it again and send once more
                self.host.warn(&format!("OpenViking session {ov_id} no longer exists; creating it again"));
                self.update(ov_id, |rec| {
                    rec.created = false;
                    rec.live_count = None;
                    rec.unconfirmed = None;
                })
                .await
                .map_err(|e| e.to_string())?;
                self.send_marked(ov_id, e).await.map_err(|e| e.to_string())
            }
            other => other.map_err(|e| e.to_string()),
        }
    }

    /// Sends one entry, marked write-ahead with the live count it would leave.
    async fn send_marked(&self, ov_id: &str, e: &Entry) -> HostResult<()> {
        self.ensure_session(ov_id).await?;
        let live_before = self.live_count_now(ov_id).await?;
        let n = e.messages.len() as u64;
        if let Some(sequence) = e.sequence {
            let u = Unconfirmed { sequence, live_before, message_count: n };
            self.update(ov_id, |rec| rec.unconfirmed = Some(u)).await?;
        }
        let answer = if e.messages.is_empty() { Ok(Some(live_before)) } else { self.host.add_messages(ov_id, e.messages.clone()).await };
        match answer {
            Ok(count) => {
                // the mark stays until the entry is dropped (a crash in between is checked)
                let live = count.unwrap_or(live_before + n);
                self.update(ov_id, |rec| rec.live_count = Some(live)).await?;
                self.outage_over(ov_id);
                Ok(())
            }
            Err(err) => {
                // retryable: it may have landed (the mark stays, checked before the resend);
                // refused: it did not
                let ambiguous = err.retryable();
                self.update(ov_id, |rec| {
                    if !ambiguous {
                        rec.unconfirmed = None;
                    }
                    rec.live_count = None;
                })
                .await?;
                if !ambiguous && err.kind != HostErrorKind::NotFound {
                    self.host.warn(&format!("OpenViking refused turn {} of {ov_id} ({err}); kept in the outbox", e.sequence.unwrap_or(0)));
                }
                Err(err)
            }
        }
    }

    /// The session's live message count: known from the last confirmed write, else asked.
    async fn live_count_now(&self, ov_id: &str) -> HostResult<u64> {
        if let Some(n) = self.records.borrow().get(ov_id).and_then(|r| r.live_count) {
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

/// Replays of entries appended during a replay, at most, before `flush` returns.
const MAX_REPLAY_ROUNDS: usize = 8;
