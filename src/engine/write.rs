//! The lossless write path. Every turn is appended to the durable outbox first, then
//! replayed into OpenViking in order (`outbox`). The turn itself never fails because
//! OpenViking is down or slow; it fails only when it could not be stored anywhere.

use super::locks::WRITE_LOCK_TTL_MS;
use super::record::{outbox_key, session_key_key};
use super::Engine;
use crate::lifecycle::after_turn::{classify_after_turn, AfterTurn};
use crate::lifecycle::capture::{capture_decision, CaptureReason};
use crate::lifecycle::commit_guard::{Admission, TurnRouting};
use crate::error::{EngineError, ErrorCode, Result};
use crate::host::Host;
use crate::message::estimate_message_tokens;
use crate::message::synthetic::is_synthetic;
use crate::address::session_map::ov_session_id;
use crate::lifecycle::shared_window::{SharedWindow, WindowTurn};
use crate::lifecycle::triggers::{allocate_sequence, evaluate, note_recorded, Trigger};
use crate::lifecycle::turn::{build_envelope, stamp_messages, to_openviking_messages, TurnMeta};
use crate::decode::Request;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

/// One finished turn, as the host hands it over (`commitTurn` / `afterTurn`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnWrite {
    pub session_id: String,
    #[serde(default)]
    pub session_key: Option<String>,
    /// Exactly the turn's messages (the host's slice), synthetic pairs may be included.
    /// Carried as JSON ([`Request::JSON_FIELDS`]).
    #[serde(skip)]
    pub messages: Vec<Value>,
    /// `commitTurn`'s idempotency key; `None` for `afterTurn`.
    #[serde(default)]
    pub advancement_key: Option<String>,
    #[serde(default, deserialize_with = "crate::decode::count")]
    pub token_budget: Option<u64>,
    /// Estimated tokens of the context the model saw this turn (from `assemble`).
    #[serde(default, deserialize_with = "crate::decode::count")]
    pub context_tokens: Option<u64>,
    /// Memory URIs `assemble` injected for this turn.
    #[serde(default, deserialize_with = "crate::decode::or_default")]
    pub used_context_uris: Vec<String>,
    #[serde(default, deserialize_with = "crate::decode::or_default")]
    pub is_heartbeat: bool,
    /// `afterTurn` only: how many of `messages` came before this turn's prompt. Lenient, as
    /// hosts send it: anything but a non-negative integer reads as 0.
    #[serde(default, deserialize_with = "crate::decode::lenient_count")]
    pub pre_prompt_message_count: Option<u64>,
    /// Append to the outbox only; the caller replays it (an import appends under another
    /// session's lock and sends after letting it go). Never set by a host.
    #[serde(skip)]
    pub defer_send: bool,
}

impl Request for TurnWrite {
    const JSON_FIELDS: &'static [&'static str] = &["messages"];

    fn set_json(&mut self, _field: &str, value: Value) -> Result<()> {
        self.messages = super::read::agent_messages(value)?;
        Ok(())
    }

    fn check(&self) -> Result<()> {
        super::read::non_empty_session_id(&self.session_id)
    }
}

impl TurnWrite {
    /// Reads `{sessionId, sessionKey?, messages, advancementKey?, tokenBudget?, contextTokens?,
    /// usedContextUris?, isHeartbeat?}`.
    pub fn from_value(v: &Value) -> Result<Self> {
        crate::decode::request_from_value(v.clone())
    }
}

/// Identifies a turn by its content, for hosts that hand one turn to both `commitTurn` and
/// `afterTurn`: the first user message's text and the first assistant message's timestamp
/// (identical in both copies; the user message's may differ — 2026.9.2 stamps the transcript
/// entry and the live message ~1 s apart), else the user message's timestamp. `None`
/// without any timestamp (two identical untimed messages are not the same turn).
pub fn content_key(messages: &[Value]) -> Option<String> {
    let first = messages.iter().find(|m| crate::message::role(m) == Some("user") && !is_synthetic(m))?;
    let ts = |m: &Value| crate::message::Message::of(m).timestamp().and_then(Value::as_f64);
    let answer_ts = messages.iter().find(|m| crate::message::role(m) == Some("assistant") && !is_synthetic(m)).and_then(ts);
    let ts = match answer_ts {
        Some(t) => format!("a{t}"),
        None => format!("{}", ts(first)?),
    };
    let text = crate::message::text_of(first);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    Some(format!("{ts}:{h:016x}"))
}

/// A turn's identity, the same however often the host retries it and unique in its session
/// across processes and machines: the host's `advancementKey` (when not empty); else one made from the
/// content key (both copies of a turn handed to commitTurn and afterTurn share it); else
/// (no timestamps to identify it) the session, its sequence and the time it was queued.
/// OpenViking stores it with every message of the turn (`turn_id`).
pub fn turn_id(req: &TurnWrite, ov_id: &str, ckey: Option<&str>, sequence: u64, now_ms: u64) -> String {
    match (req.advancement_key.as_deref().filter(|k| !k.is_empty()), ckey) {
        (Some(k), _) => k.to_string(),
        (None, Some(c)) => format!("{ov_id}:c{c}"),
        (None, None) => format!("{ov_id}:{sequence}:{now_ms}"),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum WriteStatus {
    Committed,
    Duplicate,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct WriteOutcome {
    #[cfg_attr(feature = "typescript", ts(inline))]
    pub status: WriteStatus,
    /// The turn's content had already been written (by the other of commitTurn/afterTurn):
    /// acknowledged, not written again.
    pub already_stored: bool,
    pub ov_session_id: String,
    pub sequence: Option<u64>,
    /// The turn is in the outbox (OpenViking unreachable, or a commit is archiving).
    pub queued: bool,
    /// Turns still waiting in the outbox after this call.
    pub outbox_len: usize,
    pub counted: bool,
    pub capture_reason: Option<CaptureReason>,
    /// The trigger that fired, if one did.
    pub trigger: Option<Trigger>,
    /// A commit should start now (trigger fired and protection admits it); the host runs
    /// `runCommit` without awaiting it.
    pub commit_due: bool,
    /// `/new` or `/reset` moved this `sessionKey` to a new transcript: the previous
    /// OpenViking session that should get its final commit.
    pub previous_ov_session_id: Option<String>,
}

/// What an append gives the rest of the write: the sequence, the turn id, whether it counts,
/// its tokens, the capture decision and its history entry.
/// What an append under the write lock took: the sequence, whether it counts, the capture
/// decision, its history entry, and the shared window after it.
type Appended = (u64, bool, CaptureReason, crate::tools::history::TurnEntry, SharedWindow);


/// The turns this process is writing now (the engine's `writing` part).
#[derive(Default)]
pub(super) struct Writing {
    /// Advancement and content keys reserved whose outbox append has not finished: a retry
    /// of one of them is refused (retryable), never answered `duplicate` before it is durable.
    in_flight: RefCell<HashSet<String>>,
    /// Per session, where the turn in progress opens, from its first `afterTurn` checkpoint
    /// (see `after_turn`): the end-of-turn call is written whole from there.
    turn_openings: RefCell<HashMap<String, usize>>,
}

impl Writing {
    /// One of the turn's keys is still on its way into the outbox.
    fn is_in_flight(&self, advancement_key: Option<&String>, ckey: Option<&str>) -> bool {
        let in_flight = self.in_flight.borrow();
        advancement_key.is_some_and(|k| in_flight.contains(&format!("k:{k}"))) || ckey.is_some_and(|c| in_flight.contains(&format!("c:{c}")))
    }

    fn hold_content(&self, ckey: &str) {
        self.in_flight.borrow_mut().insert(format!("c:{ckey}"));
    }

    fn hold_key(&self, key: &str) {
        self.in_flight.borrow_mut().insert(format!("k:{key}"));
    }

    /// The turn's keys are durable (or given back): no longer in flight.
    fn landed(&self, advancement_key: Option<&String>, ckey: Option<&str>) {
        let mut in_flight = self.in_flight.borrow_mut();
        if let Some(k) = advancement_key {
            in_flight.remove(&format!("k:{k}"));
        }
        if let Some(c) = ckey {
            in_flight.remove(&format!("c:{c}"));
        }
    }

    /// Where the session's turn in progress opens, if a checkpoint said so.
    fn opening(&self, ov_id: &str) -> Option<usize> {
        self.turn_openings.borrow().get(ov_id).copied()
    }

    fn note_opening(&self, ov_id: String, opening: usize) {
        self.turn_openings.borrow_mut().entry(ov_id).or_insert(opening);
    }

    /// The session's turn in progress ended.
    fn turn_ended(&self, ov_id: &str) {
        self.turn_openings.borrow_mut().remove(ov_id);
    }
}

impl<H: Host> Engine<H> {
    /// Writes one turn (lossless), updates the trigger state, and says whether a commit is due.
    ///
    /// The durability invariant — *acknowledged means durably stored*: this resolves
    /// (`committed`, or `duplicate` for a retried key) only once the turn is fsync'd in the
    /// outbox or stored in OpenViking. Crash points:
    /// - before the outbox append: nothing was recorded; the host's retry writes the turn;
    /// - after the append, before the record is saved: the entry carries its advancement
    ///   and content keys and its sequence, and the next process reads them back from the
    ///   outbox (`load_record`), so a retry is `duplicate` and the entry is replayed;
    /// - mid-send, or after the send before the drop: the entry is marked write-ahead and
    ///   checked against OpenViking before it is sent again (`outbox`, `confirm`);
    /// - mid-commit: a commit starts only with an empty outbox, and turns arriving while it
    ///   archives stay in the outbox until the archive is cut.
    pub async fn write_turn(&self, mut req: TurnWrite) -> Result<WriteOutcome> {
        let now = self.host.now_ms();
        let ov_id = ov_session_id(&self.config.agent_id, &req.session_id);
        // what this engine assembled for the turn, where the host does not say it
        if let Some(last) = self.last_assembled(&ov_id) {
            req.token_budget = req.token_budget.or(last.token_budget);
            req.context_tokens = req.context_tokens.or(Some(last.estimated_tokens));
            if req.used_context_uris.is_empty() {
                req.used_context_uris = last.used_uris;
            }
            self.keep_trace(&ov_id).await;
        }
        if req.advancement_key.is_some() {
            self.writing.turn_ended(&ov_id); // commitTurn ends the turn
        }
        self.load_record(&ov_id, &req.session_id).await.map_err(EngineError::from)?;
        let previous = self.track_session_key(&req, &ov_id).await;
        let okey = outbox_key(&ov_id);

        // Reserve the keys in memory (no await until the append is requested), so a
        // concurrent call for the same turn in this process sees them; they become durable
        // with the outbox entry.
        let ckey = content_key(&req.messages);
        let reserved = self.reserve(&ov_id, &req, ckey.as_deref(), now)?;
        let Some(Some((checkpoint_id, routing))) = reserved else {
            let already_stored = reserved.is_some();
            if already_stored {
                // the trigger state may still take the host's latest budget
                // (saved only when it changed: a host that calls both commitTurn and afterTurn
                // gives the same budget twice)
                if let Some(b) = req.token_budget.filter(|b| self.read_record(&ov_id, |rec| rec.state.token_budget != Some(*b))) {
                    self.update(&ov_id, |rec| rec.state.token_budget = Some(b)).await.map_err(EngineError::from)?;
                }
            }
            return Ok(self.settled(&ov_id, &okey, already_stored, previous).await);
        };
        // The append under the write lock every process on this state dir shares: the
        // sequence is taken there, and a turn another process (or a late append of this
        // one) already queued is recognised by its keys instead of queued twice.
        let appended = match self.take_lock(&okey, WRITE_LOCK_TTL_MS, self.config.timeout_ms).await {
            Ok(true) => {
                let r = self.append_locked(&req, &ov_id, &okey, checkpoint_id, ckey.as_deref(), now).await;
                self.give_lock(&okey).await;
                r
            }
            Ok(false) => Err(EngineError::new(ErrorCode::HostTimeout, format!("another process held the outbox of {ov_id} for {} ms; retry the turn", self.config.timeout_ms))),
            Err(e) => Err(EngineError::from(e)),
        };
        let (sequence, counts, capture_reason, indexed, window) = match appended {
            Ok(Ok(v)) => {
                self.landed(&req, ckey.as_deref());
                v
            }
            Ok(Err(already_stored)) => {
                // already queued: durable, so a retry is answered as one
                self.landed(&req, ckey.as_deref());
                return Ok(self.settled(&ov_id, &okey, already_stored, previous).await);
            }
            Err(e) => {
                // Not stored anywhere: give the keys back so the host's retry writes it.
                self.release(&ov_id, &req, ckey.as_deref());
                self.landed(&req, ckey.as_deref());
                return Err(e);
            }
        };

        // Durable from here on. The trigger state follows, saved with the record when the
        // replay or the turn ends; losing it to a crash only loses the turn's weight in the
        // triggers (the next process reads the entry back).
        self.index_turn(&ov_id, &req.session_id, indexed).await;
        let (trigger, admission) = self.update_cached(&ov_id, |rec| {
            // every writer's turns since the last commit (the ledger's window), not only ours
            window.apply(&mut rec.state);
            note_recorded(&mut rec.state, sequence);
            if let Some(b) = req.token_budget {
                rec.state.token_budget = Some(b);
            }
            if let Some(t) = req.context_tokens {
                rec.state.context_tokens = t;
            }
            (evaluate(&rec.state, &self.config, now), rec.guard.admit(now, false))
        });

        let mut queued = routing == TurnRouting::HoldUntilArchived || req.defer_send;
        let mut outbox_len = None;
        if routing == TurnRouting::WriteNow && !req.defer_send {
            // one more pass when the first left it unacknowledged: the check may settle it
            for attempt in 0..2 {
                // the first pass follows this turn's append: the outbox holds it (unless
                // another process sent it meanwhile, which the replay's own read sees)
                let pass = if attempt == 0 { self.flush_after_append(&ov_id).await } else { self.flush(&ov_id).await };
                match pass {
                    Ok(r) => {
                        let mine = r.in_progress || r.queued_sequences.contains(&sequence);
                        queued |= mine;
                        outbox_len = Some(r.queued);
                        let marked = self.records.cache().get(&ov_id).and_then(|r| r.unconfirmed.as_ref().map(|u| u.sequence)) == Some(sequence);
                        if !mine || attempt == 1 || !marked || r.in_progress {
                            break;
                        }
                    }
                    Err(e) => {
                        self.host.warn(&format!("replaying the outbox of {ov_id} failed: {e}"));
                        queued = true;
                        break;
                    }
                }
            }
        }
        let outbox_len = match outbox_len {
            Some(n) => n,
            None => self.host.outbox_read(&okey).await.map(|v| v.len()).unwrap_or(0),
        };
        if let Err(e) = self.save_unsaved(&ov_id).await {
            self.host.warn(&format!("turn {sequence} of {ov_id} is in the outbox, but its session state could not be saved ({e})"));
        }
        // an outage's back-off ends when a turn reaches OpenViking (`CommitGuard::on_reachable`):
        // this one just did, so a due commit starts now rather than after the back-off's time
        let admission = match admission {
            Admission::BackingOff { .. } if !queued => self.records.cache().get(&ov_id).map_or(admission, |r| r.guard.admit(self.host.now_ms(), false)),
            other => other,
        };
        Ok(WriteOutcome {
            status: WriteStatus::Committed,
            already_stored: false,
            ov_session_id: ov_id,
            sequence: Some(sequence),
            queued,
            outbox_len,
            counted: counts,
            capture_reason: Some(capture_reason),
            trigger,
            commit_due: trigger.is_some() && admission == Admission::Start,
            previous_ov_session_id: previous,
        })
    }

    /// The answer for a turn that is durable already: `duplicate` (its key was written or
    /// queued), or `committed` with `already_stored` (its content came through the other of
    /// commitTurn/afterTurn).
    async fn settled(&self, ov_id: &str, okey: &str, already_stored: bool, previous: Option<String>) -> WriteOutcome {
        let outbox_len = self.host.outbox_read(okey).await.map(|v| v.len()).unwrap_or(0);
        WriteOutcome {
            status: if already_stored { WriteStatus::Committed } else { WriteStatus::Duplicate },
            already_stored,
            ov_session_id: ov_id.to_string(),
            sequence: None,
            queued: false,
            outbox_len,
            counted: false,
            capture_reason: None,
            trigger: None,
            commit_due: false,
            previous_ov_session_id: previous,
        }
    }

    /// Under the write lock: `Err(already_stored)` when the turn is queued or was appended
    /// already (by another process, or by an append of this one that answered too late;
    /// `true` when it came through the other of commitTurn/afterTurn) — the outbox and the
    /// session's [`TurnLedger`] say so; else takes the next sequence (past every queued entry
    /// and the ledger's) and appends the entry.
    async fn append_locked(
        &self,
        req: &TurnWrite,
        ov_id: &str,
        okey: &str,
        checkpoint_id: Option<String>,
        ckey: Option<&str>,
        now: u64,
    ) -> Result<std::result::Result<Appended, bool>> {
        let queued = self.host.outbox_read(okey).await.map_err(EngineError::from)?;
        let same = |e: &Value, field: &str, key: Option<&str>| key.is_some() && e.get(field).and_then(Value::as_str) == key;
        if queued.iter().any(|e| same(e, "advancementKey", req.advancement_key.as_deref())) {
            return Ok(Err(false));
        }
        if queued.iter().any(|e| same(e, "contentKey", ckey)) {
            return Ok(Err(true));
        }
        let mut ledger = self.load_ledger(ov_id).await.map_err(EngineError::from)?.unwrap_or_default();
        if req.advancement_key.as_ref().is_some_and(|k| ledger.turn_ids.contains(k)) {
            return Ok(Err(false));
        }
        if ckey.is_some_and(|c| ledger.content_keys.iter().any(|k| k == c)) {
            return Ok(Err(true));
        }
        if ledger.window.is_none() {
            ledger.window = Some(self.read_record(ov_id, |r| SharedWindow::from_state(&r.state)));
        }
        let past_queue = queued.iter().filter_map(|e| e.get("sequence").and_then(Value::as_u64)).max().map_or(0, |s| s + 1);
        let sequence = {
            let mut records = self.records.cache_mut();
            let rec = records.get_mut(ov_id).ok_or_else(|| EngineError::new(ErrorCode::Internal, "session record not loaded"))?;
            rec.state.next_sequence = rec.state.next_sequence.max(ledger.next).max(past_queue);
            allocate_sequence(&mut rec.state)
        };
        let turn_id = turn_id(req, ov_id, ckey, sequence, now);
        let (entry, counts, tokens, reason, indexed) = self.prepare(req, ov_id, sequence, &turn_id, checkpoint_id, ckey, now)?;
        self.host.outbox_append(okey, entry).await.map_err(EngineError::from)?;
        ledger.note(sequence, &turn_id, ckey);
        // a queued turn whose process died before the ledger was saved is noted from its entry
        for e in &queued {
            ledger.note_queued_entry(e, now);
        }
        let window = ledger.window.get_or_insert_with(SharedWindow::default);
        window.record(WindowTurn { sequence, tokens, counts, turn_id: turn_id.clone() }, now);
        let window = window.clone();
        if let Err(e) = self.save_ledger(ov_id, &ledger).await {
            // the queued entry itself keeps the next sequence past it and its keys
            self.host.warn(&format!("the turn ledger of {ov_id} could not be saved ({e})"));
        }
        Ok(Ok((sequence, counts, reason, indexed, window)))
    }

    /// The keys check, at once in the cached record (not saved yet): `None` — a duplicate
    /// key; `Some(None)` — the content was already written (the other of
    /// commitTurn/afterTurn); `Some(Some(..))` — the latest checkpoint and where the turn goes.
    fn reserve(&self, ov_id: &str, req: &TurnWrite, ckey: Option<&str>, now: u64) -> Result<Option<Option<(Option<String>, TurnRouting)>>> {
        let mut records = self.records.cache_mut();
        let rec = records.entry(ov_id.to_string()).or_insert_with(|| super::SessionRecord { ov_session_id: ov_id.to_string(), ..Default::default() });
        if rec.session_key.is_none() {
            rec.session_key = req.session_key.clone();
        }
        if rec.session_id.is_empty() {
            rec.session_id = req.session_id.clone();
        }
        // a key whose turn is still on its way into the outbox is not durable yet: the
        // caller must not be told `duplicate` (it would drop the turn if that append fails)
        if self.writing.is_in_flight(req.advancement_key.as_ref(), ckey) {
            return Err(EngineError::new(ErrorCode::HostTimeout, "the same turn is still being stored; retry it"));
        }
        if let Some(key) = &req.advancement_key {
            if rec.applied_keys.iter().any(|k| k == key) {
                return Ok(None);
            }
        }
        if let Some(c) = ckey {
            if rec.content_keys.iter().any(|k| k == c) {
                if let Some(key) = &req.advancement_key {
                    rec.remember_key(key);
                }
                return Ok(Some(None));
            }
            rec.remember_content(c);
            self.writing.hold_content(c);
        }
        if let Some(key) = &req.advancement_key {
            rec.remember_key(key);
            self.writing.hold_key(key);
        }
        Ok(Some(Some((rec.checkpoints.latest().map(|c| c.checkpoint_id.clone()), rec.guard.route_turn(now)))))
    }

    /// The turn's keys are durable (or given back): no longer in flight.
    fn landed(&self, req: &TurnWrite, ckey: Option<&str>) {
        self.writing.landed(req.advancement_key.as_ref(), ckey);
    }

    /// Undoes `reserve` for a turn that could not be stored anywhere.
    fn release(&self, ov_id: &str, req: &TurnWrite, ckey: Option<&str>) {
        if let Some(rec) = self.records.cache_mut().get_mut(ov_id) {
            if let Some(key) = &req.advancement_key {
                rec.applied_keys.retain(|k| k != key);
            }
            if let Some(c) = ckey {
                rec.content_keys.retain(|k| k != c);
            }
        }
    }

    /// The turn's outbox entry (envelope → OpenViking messages) and its capture decision.
    #[allow(clippy::too_many_arguments)]
    fn prepare(
        &self,
        req: &TurnWrite,
        ov_id: &str,
        sequence: u64,
        turn_id: &str,
        checkpoint_id: Option<String>,
        ckey: Option<&str>,
        now: u64,
    ) -> Result<(Value, bool, u64, CaptureReason, crate::tools::history::TurnEntry)> {
        let meta = TurnMeta {
            turn_id: turn_id.to_string(),
            session_id: ov_id.to_string(),
            sequence,
            now_ms: now,
            used_context_uris: req.used_context_uris.clone(),
            compact_checkpoint_id: checkpoint_id,
        };
        let env = build_envelope(&req.messages, meta)?;
        let indexed = crate::tools::history::turn_entry(&env, &req.messages, now);
        let mut messages = to_openviking_messages(&env);
        stamp_messages(&mut messages, turn_id, indexed.timestamp_ms);
        // what OpenViking would refuse every time, holding the session's later turns back
        for cut in crate::lifecycle::text_limits::fit_turn(&mut messages) {
            self.host.warn(&format!(
                "turn {turn_id} of {ov_id}: its {} has {} characters, more than OpenViking takes; {} of them are stored (head and tail, with a note of the cut)",
                cut.what, cut.chars, cut.kept
            ));
        }
        let decision = capture_decision(&env, self.config.capture_mode, self.config.capture_max_length);
        let counts = decision.counts && !req.is_heartbeat;
        let tokens: u64 = crate::message::synthetic::without_synthetic(&req.messages).iter().map(|(_, m)| estimate_message_tokens(m) as u64).sum();
        let entry = json!({
            "sequence": sequence,
            "turnId": turn_id,
            "advancementKey": req.advancement_key,
            "contentKey": ckey,
            "tokens": tokens,
            "counts": counts,
            "queuedAtMs": self.host.now_ms(),
            "messages": messages,
        });
        Ok((entry, counts, tokens, decision.reason, indexed))
    }

    /// `afterTurn`: the whole transcript and `prePromptMessageCount`. A tool-loop checkpoint
    /// writes nothing (`None`); a finished turn is written whole (`crate::lifecycle::after_turn`).
    pub async fn after_turn(&self, mut req: TurnWrite, pre_prompt_message_count: usize) -> Result<Option<WriteOutcome>> {
        let ov_id = ov_session_id(&self.config.agent_id, &req.session_id);
        let remembered = self.writing.opening(&ov_id);
        match classify_after_turn(&req.messages, pre_prompt_message_count, remembered) {
            AfterTurn::Checkpoint { opening } => {
                self.writing.note_opening(ov_id, opening);
                Ok(None)
            }
            AfterTurn::Complete { start } => {
                self.writing.turn_ended(&ov_id);
                req.messages.drain(..start);
                req.advancement_key = None;
                self.write_turn(req).await.map(Some)
            }
        }
    }

    /// Keeps `sessionKey` → current transcript. When the key arrives with a new `sessionId`
    /// (`/new`, `/reset`), returns the previous OpenViking session (for its final commit).
    async fn track_session_key(&self, req: &TurnWrite, ov_id: &str) -> Option<String> {
        let key = req.session_key.as_deref()?;
        let k = session_key_key(&self.config.agent_id, key);
        let prev = self.host.load_state(&k).await.ok().flatten();
        let prev_id = prev.as_ref().and_then(|v| v.get("ovSessionId")).and_then(Value::as_str).map(str::to_string);
        if prev_id.as_deref() != Some(ov_id) {
            let _ = self.host.save_state(&k, json!({"sessionId": req.session_id, "ovSessionId": ov_id})).await;
        }
        prev_id.filter(|p| p != ov_id)
    }
}
