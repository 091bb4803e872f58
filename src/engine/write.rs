//! The lossless write path. Every turn is stored — written to OpenViking, or, when that is
//! not possible right now, appended to the durable outbox and replayed in order later. The
//! turn itself never fails because OpenViking is down or slow.

use super::confirm::Check;
use super::record::{outbox_key, session_key_key, Unconfirmed};
use super::Engine;
use crate::capture::{capture_decision, CaptureReason};
use crate::commit_guard::{Admission, TurnRouting};
use crate::error::{EngineError, ErrorCode, Result};
use crate::host::{Host, HostError, HostErrorKind};
use crate::input::as_object;
use crate::messages::estimate_message_tokens;
use crate::messages::synthetic::is_synthetic;
use crate::session_map::ov_session_id;
use crate::triggers::{allocate_sequence, evaluate, note_recorded, record_turn, Trigger};
use crate::turn::{build_envelope, to_openviking_messages, TurnMeta};
use serde::Serialize;
use serde_json::{json, Value};

/// One finished turn, as the host hands it over (`commitTurn` / `afterTurn`).
#[derive(Debug, Clone, PartialEq)]
pub struct TurnWrite {
    pub session_id: String,
    pub session_key: Option<String>,
    /// Exactly the turn's messages (the host's slice), synthetic pairs may be included.
    pub messages: Vec<Value>,
    /// `commitTurn`'s idempotency key; `None` for `afterTurn`.
    pub advancement_key: Option<String>,
    pub token_budget: Option<u64>,
    /// Estimated tokens of the context the model saw this turn (from `assemble`).
    pub context_tokens: Option<u64>,
    /// Memory URIs `assemble` injected for this turn.
    pub used_context_uris: Vec<String>,
    pub is_heartbeat: bool,
}

impl TurnWrite {
    /// Reads `{sessionId, sessionKey?, messages, advancementKey?, tokenBudget?, contextTokens?,
    /// usedContextUris?, isHeartbeat?}`.
    pub fn from_value(v: &Value) -> Result<Self> {
        let o = as_object("", v)?;
        let session_id = o.req_str("sessionId")?.to_string();
        if session_id.trim().is_empty() {
            return Err(EngineError::input("sessionId", "must not be empty"));
        }
        let messages = o.opt_array("messages")?.cloned().unwrap_or_default();
        for (i, m) in messages.iter().enumerate() {
            if !m.is_object() {
                return Err(EngineError::input(format!("messages[{i}]"), "expected an object (an AgentMessage)"));
            }
        }
        let used = match o.opt_array("usedContextUris")? {
            None => Vec::new(),
            Some(a) => a
                .iter()
                .enumerate()
                .map(|(i, u)| {
                    u.as_str().map(str::to_string).ok_or_else(|| EngineError::input(format!("usedContextUris[{i}]"), "expected a string"))
                })
                .collect::<Result<_>>()?,
        };
        Ok(TurnWrite {
            session_id,
            session_key: o.opt_str("sessionKey")?.map(str::to_string),
            messages,
            advancement_key: o.opt_str("advancementKey")?.map(str::to_string),
            token_budget: o.opt_u64("tokenBudget")?,
            context_tokens: o.opt_u64("contextTokens")?,
            used_context_uris: used,
            is_heartbeat: o.opt_bool("isHeartbeat")?.unwrap_or(false),
        })
    }
}

/// Identifies a turn by its content: the first user message's timestamp and text. `None`
/// when that message has no timestamp (two identical untimed messages are not the same turn).
pub fn content_key(messages: &[Value]) -> Option<String> {
    let first = messages.iter().find(|m| crate::messages::role(m) == Some("user") && !is_synthetic(m))?;
    let ts = first.get("timestamp").and_then(Value::as_f64)?;
    let text = crate::messages::text_of(first);
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    Some(format!("{ts}:{h:016x}"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WriteStatus {
    Committed,
    Duplicate,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteOutcome {
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
    /// The trigger that fired, if any.
    pub trigger: Option<Trigger>,
    /// A commit should start now (trigger fired and protection admits it); the host runs
    /// `runCommit` without awaiting it.
    pub commit_due: bool,
    /// `/new` or `/reset` moved this `sessionKey` to a new transcript: the previous
    /// OpenViking session that should get its final commit.
    pub previous_ov_session_id: Option<String>,
}

fn host_err(e: HostError) -> EngineError {
    let code = if e.kind == crate::host::HostErrorKind::Timeout { ErrorCode::HostTimeout } else { ErrorCode::HostFailed };
    EngineError::new(code, e.message)
}

impl<H: Host> Engine<H> {
    /// Writes one turn (lossless), updates the trigger state, and says whether a commit is due.
    pub async fn write_turn(&self, req: TurnWrite) -> Result<WriteOutcome> {
        let now = self.host.now_ms();
        let ov_id = ov_session_id(&self.config.agent_id, &req.session_id);
        self.load_record(&ov_id, &req.session_id).await.map_err(host_err)?;
        let previous = self.track_session_key(&req, &ov_id).await;
        let okey = outbox_key(&ov_id);

        // Reserve the advancement key and the sequence number at once (no await in between),
        // so a retried or concurrent call can never write the same turn twice. A turn whose
        // content was already written (the other of commitTurn/afterTurn) is acknowledged
        // without a second write.
        let ckey = content_key(&req.messages);
        let reserved = self
            .update(&ov_id, |rec| {
                if rec.session_key.is_none() {
                    rec.session_key = req.session_key.clone();
                }
                if rec.session_id.is_empty() {
                    rec.session_id = req.session_id.clone();
                }
                if let Some(key) = &req.advancement_key {
                    if rec.applied_keys.iter().any(|k| k == key) {
                        return None;
                    }
                    rec.remember_key(key);
                }
                if let Some(c) = &ckey {
                    if rec.content_keys.iter().any(|k| k == c) {
                        return Some(None);
                    }
                    rec.remember_content(c);
                }
                let seq = allocate_sequence(&mut rec.state);
                Some(Some((seq, rec.checkpoints.latest().map(|c| c.checkpoint_id.clone()), rec.guard.route_turn(now))))
            })
            .await
            .map_err(host_err)?;
        let already_stored = matches!(reserved, Some(None));
        let Some(Some((sequence, checkpoint_id, routing))) = reserved else {
            let outbox_len = self.host.outbox_read(&okey).await.map(|v| v.len()).unwrap_or(0);
            if already_stored {
                // the trigger state may still take the host's latest budget
                if let Some(b) = req.token_budget {
                    self.update(&ov_id, |rec| rec.state.token_budget = Some(b)).await.map_err(host_err)?;
                }
            }
            return Ok(WriteOutcome {
                status: if already_stored { WriteStatus::Committed } else { WriteStatus::Duplicate },
                already_stored,
                ov_session_id: ov_id,
                sequence: None,
                queued: false,
                outbox_len,
                counted: false,
                capture_reason: None,
                trigger: None,
                commit_due: false,
                previous_ov_session_id: previous,
            });
        };
        match self.store_turn(&req, &ov_id, sequence, checkpoint_id, routing, now).await {
            Ok(out) => Ok(WriteOutcome { previous_ov_session_id: previous, ..out }),
            Err(e) => {
                // Not stored anywhere: give the keys back so the host's retry writes it.
                let _ = self
                    .update(&ov_id, |rec| {
                        if let Some(key) = &req.advancement_key {
                            rec.applied_keys.retain(|k| k != key);
                        }
                        if let Some(c) = &ckey {
                            rec.content_keys.retain(|k| k != c);
                        }
                    })
                    .await;
                Err(e)
            }
        }
    }

    async fn store_turn(
        &self,
        req: &TurnWrite,
        ov_id: &str,
        sequence: u64,
        checkpoint_id: Option<String>,
        routing: TurnRouting,
        now: u64,
    ) -> Result<WriteOutcome> {
        let turn_id = req.advancement_key.clone().unwrap_or_else(|| format!("{ov_id}:{sequence}"));
        let meta = TurnMeta {
            turn_id: turn_id.clone(),
            session_id: ov_id.to_string(),
            sequence,
            now_ms: now,
            used_context_uris: req.used_context_uris.clone(),
            compact_checkpoint_id: checkpoint_id,
        };
        let env = build_envelope(&req.messages, meta)?;
        let decision = capture_decision(&env, self.config.capture_mode, self.config.capture_max_length);
        let counts = decision.counts && !req.is_heartbeat;
        let tokens: u64 = req.messages.iter().filter(|m| !is_synthetic(m)).map(|m| estimate_message_tokens(m) as u64).sum();
        let ov_messages = to_openviking_messages(&env);
        let message_count = ov_messages.len() as u64;
        let entry = json!({"sequence": sequence, "turnId": turn_id, "messages": ov_messages});

        // Durable first: write now, or queue. Order is kept: once anything is queued, later
        // turns queue behind it until the outbox drains.
        let okey = outbox_key(ov_id);
        let pending = self.host.outbox_read(&okey).await.map(|v| v.len()).unwrap_or(0);
        let mut queued = false;
        let mut sent = Sent::NotTried;
        if routing == TurnRouting::HoldUntilArchived || pending > 0 {
            self.host.outbox_append(&okey, entry).await.map_err(host_err)?;
            queued = true;
        } else {
            let live_before = self.records.borrow().get(ov_id).and_then(|r| r.live_count);
            match self.send(ov_id, ov_messages).await {
                Ok(count) => {
                    sent = Sent::Stored(count);
                    self.outage_over(ov_id);
                }
                Err(e) => {
                    sent = Sent::Unconfirmed(live_before.filter(|_| e.retryable()).map(|live_before| Unconfirmed { sequence, live_before, message_count }));
                    if e.retryable() {
                        self.warn_once(ov_id, &format!("OpenViking unavailable ({e}); turns are kept in the outbox and replayed when it is back"));
                    } else {
                        self.host.warn(&format!("OpenViking refused turn {sequence} of {ov_id} ({e}); kept in the outbox"));
                    }
                    self.host.outbox_append(&okey, entry).await.map_err(host_err)?;
                    queued = true;
                }
            }
        }

        let (trigger, admission) = self
            .update(ov_id, |rec| {
                sent.apply(rec);
                record_turn(&mut rec.state, tokens, counts, now);
                note_recorded(&mut rec.state, sequence);
                rec.state.window_turn_ids.push(turn_id.clone());
                if let Some(b) = req.token_budget {
                    rec.state.token_budget = Some(b);
                }
                if let Some(t) = req.context_tokens {
                    rec.state.context_tokens = t;
                }
                (evaluate(&rec.state, &self.config, now), rec.guard.admit(now, false))
            })
            .await
            .map_err(host_err)?;

        if queued && routing == TurnRouting::WriteNow {
            let _ = self.flush(ov_id).await;
        }
        let outbox_len = self.host.outbox_read(&okey).await.map(|v| v.len()).unwrap_or(0);
        Ok(WriteOutcome {
            status: WriteStatus::Committed,
            already_stored: false,
            ov_session_id: ov_id.to_string(),
            sequence: Some(sequence),
            queued,
            outbox_len,
            counted: counts,
            capture_reason: Some(decision.reason),
            trigger,
            commit_due: trigger.is_some() && admission == Admission::Start,
            previous_ov_session_id: None,
        })
    }

    /// Creates the session if needed and appends the messages. Returns the session's live
    /// message count afterwards, when known.
    async fn send(&self, ov_id: &str, messages: Vec<Value>) -> std::result::Result<Option<u64>, HostError> {
        self.ensure_session(ov_id).await?;
        if messages.is_empty() {
            return Ok(self.records.borrow().get(ov_id).and_then(|r| r.live_count));
        }
        self.host.add_messages(ov_id, messages).await
    }

    /// Replays the outbox in order; stops at the first failure. Returns how many were written.
    /// The first entry, if its earlier write went unacknowledged, is checked first and dropped
    /// without a second write when OpenViking already holds it (`confirm`).
    pub async fn flush(&self, ov_id: &str) -> std::result::Result<usize, HostError> {
        // one replay per session at a time: a second caller waits for the first, then
        // replays whatever is still queued
        while self.flushing.borrow().contains(ov_id) {
            self.host.sleep(FLUSH_WAIT_MS).await;
        }
        self.flushing.borrow_mut().insert(ov_id.to_string());
        let out = self.replay_outbox(ov_id).await;
        self.flushing.borrow_mut().remove(ov_id);
        out
    }

    async fn replay_outbox(&self, ov_id: &str) -> std::result::Result<usize, HostError> {
        let okey = outbox_key(ov_id);
        let entries = self.host.outbox_read(&okey).await?;
        if entries.is_empty() {
            return Ok(0);
        }
        let rec = self.load_record(ov_id, "").await?;
        let mut unconfirmed = rec.unconfirmed.clone();
        let mut live = rec.live_count;
        let mut written = 0;
        let mut failure = None;
        for e in entries {
            let msgs = e.get("messages").and_then(Value::as_array).cloned().unwrap_or_default();
            let sequence = e.get("sequence").and_then(Value::as_u64);
            let prior = unconfirmed.take().filter(|u| Some(u.sequence) == sequence);
            if let Some(u) = &prior {
                match self.check_unconfirmed(ov_id, u, &msgs).await {
                    Check::Stored => {
                        self.host.warn(&format!("turn {} of {ov_id} had reached OpenViking unacknowledged; not written again", u.sequence));
                        self.host.outbox_drop(&okey, 1).await?;
                        live = Some(u.live_before + u.message_count);
                        written += 1;
                        continue;
                    }
                    Check::Absent { live: now } => live = Some(now),
                    Check::Unknown => {
                        failure = Some((HostError::new(HostErrorKind::Unreachable, "no answer while checking an unacknowledged write"), Some(u.clone())));
                        break;
                    }
                }
            }
            let live_before = live;
            // write-ahead: should the process die between this write and dropping the entry,
            // the next process finds the entry marked and checks before sending it again
            if let (Some(sequence), Some(live_before)) = (sequence, live_before) {
                let u = Unconfirmed { sequence, live_before, message_count: msgs.len() as u64 };
                self.update(ov_id, |rec| rec.unconfirmed = Some(u)).await?;
            }
            match self.send(ov_id, msgs.clone()).await {
                Ok(count) => {
                    // one drop per entry: a crash replays at most the entry in hand
                    self.host.outbox_drop(&okey, 1).await?;
                    live = count;
                    written += 1;
                }
                Err(err) => {
                    let u = sequence.zip(live_before).filter(|_| err.retryable()).map(|(sequence, live_before)| Unconfirmed {
                        sequence,
                        live_before,
                        message_count: msgs.len() as u64,
                    });
                    failure = Some((err, u));
                    break;
                }
            }
        }
        let sent = match &failure {
            Some((_, u)) => Sent::Unconfirmed(u.clone()),
            None => Sent::Stored(live),
        };
        if written > 0 || failure.is_some() {
            self.update(ov_id, |rec| sent.apply(rec)).await?;
        }
        match failure {
            Some((err, _)) => self.warn_once(ov_id, &format!("OpenViking unavailable ({err}); turns are kept in the outbox")),
            None => self.outage_over(ov_id),
        }
        Ok(written)
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

/// How often a replay waiting for another replay of the same session looks again.
const FLUSH_WAIT_MS: u64 = 20;

/// What became of a write, for the session record.
enum Sent {
    /// Not sent (queued behind others, or held while a commit archives).
    NotTried,
    /// Acknowledged; the live message count afterwards, when the server said it.
    Stored(Option<u64>),
    /// Failed; `Some` when it may still have been stored (checked before the replay).
    Unconfirmed(Option<Unconfirmed>),
}

impl Sent {
    fn apply(&self, rec: &mut super::SessionRecord) {
        match self {
            Sent::NotTried => {}
            Sent::Stored(count) => {
                rec.live_count = *count;
                rec.unconfirmed = None;
            }
            Sent::Unconfirmed(u) => {
                rec.live_count = None;
                rec.unconfirmed = u.clone();
            }
        }
    }
}
