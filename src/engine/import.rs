//! Bringing an agent's past into OpenViking: the turns of an OpenClaw transcript written
//! before this engine (or while it was off) go through the same write path as a live turn —
//! envelope, tool parts, large outputs, outbox, replay, triggers and commits — so summaries
//! and memories are extracted from them as from live turns.
//!
//! Where they go: a session's past turns are written to a session of their own beside the
//! live one ([`imported_session_id`]: the transcript's `sessionId` + `-imported`), never
//! into the live session. OpenViking appends a session's messages in arrival order, so
//! earlier turns added to a session that already holds later live turns would be out of
//! order, and a session that turns live during an import would interleave the two. Each
//! session stays in order; the agent's history search covers both.
//!
//! Once, however often it runs: every past turn is named by the transcript event that opens
//! it (`<live session id>:e<event id>`), so a rerun — or a run after a kill — finds what it
//! wrote (in OpenViking or still in the outbox) and writes the rest. A turn the live engine
//! wrote itself is recognised by its text and left out, and a turn that arrives live while
//! it is being imported is decided under the live session's write lock: whichever writer
//! comes second finds the other's key (the import notes each turn's content key in the live
//! session's ledger, where a live write looks before it appends).

use super::locks::WRITE_LOCK_TTL_MS;
use super::record::outbox_key;
use super::{Engine, TurnWrite};
use crate::message::estimate_message_tokens;
use crate::error::{EngineError, ErrorCode, Result};
use crate::host::{Host, HostResult};
use crate::address::session_map::ov_session_id;
use crate::lifecycle::transcript::{read_transcript, PastTurn, Skipped};
use crate::lifecycle::turn::{build_envelope, TurnMeta};
use crate::tools::history::{turn_entry, turns_from_messages, TurnEntry};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// The suffix of the session a transcript's past turns are written to.
pub const IMPORTED_SUFFIX: &str = "-imported";
/// How long an import waits for each commit's task (summaries, memories) before it goes on;
/// a task still running then is followed by the next commit or turn.
pub const IMPORT_COMMIT_WAIT_MS: u64 = 120_000;

/// The OpenClaw `sessionId` whose OpenViking session holds a transcript's past turns.
pub fn imported_session_id(session_id: &str) -> String {
    format!("{session_id}{IMPORTED_SUFFIX}")
}

/// One transcript to bring in: `{sessionId, lines, apply?, sinceMs?, untilMs?, limit?,
/// commitWaitMs?}`. `lines` are the transcript's events in order (JSONL lines, or the
/// `event_json` of OpenClaw's rows).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportRequest {
    pub session_id: String,
    #[serde(default, deserialize_with = "crate::decode::or_default")]
    pub lines: Vec<String>,
    /// Write (otherwise only say what would be written).
    #[serde(default, deserialize_with = "crate::decode::or_default")]
    pub apply: bool,
    /// Only turns at or after this time (ms since the epoch).
    #[serde(default, deserialize_with = "crate::decode::count")]
    pub since_ms: Option<u64>,
    /// Only turns before this time.
    #[serde(default, deserialize_with = "crate::decode::count")]
    pub until_ms: Option<u64>,
    /// Write at most this many turns in this run (the next run goes on where it stopped).
    #[serde(default, deserialize_with = "crate::decode::count")]
    pub limit: Option<u64>,
    /// How long to wait for each commit's task.
    #[serde(default, deserialize_with = "crate::decode::count")]
    pub commit_wait_ms: Option<u64>,
    /// The first contact with a live session (the host's bootstrap): its transcript ends in
    /// the turn being run, which is the live write's; `apply` follows `importOnBootstrap`, and
    /// the report's `note` says what the log should.
    #[serde(default, deserialize_with = "crate::decode::or_default")]
    pub first_contact: bool,
}

impl crate::decode::Request for ImportRequest {
    fn check(&self) -> Result<()> {
        super::read::non_empty_session_id(&self.session_id)?;
        if let (Some(s), Some(u)) = (self.since_ms, self.until_ms) {
            if s >= u {
                return Err(EngineError::input("untilMs", "must be later than sinceMs"));
            }
        }
        Ok(())
    }
}

/// What an import found and did for one transcript.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ImportReport {
    pub session_id: String,
    /// The live session of the transcript.
    pub live_ov_session_id: String,
    /// Where its past turns go.
    pub ov_session_id: String,
    /// Turns in the transcript (within since/until).
    pub turns: usize,
    pub tool_calls: usize,
    /// Estimated tokens of those turns.
    pub tokens: u64,
    /// Time of the first and the last of them (ms), when the transcript says.
    pub first_ms: Option<u64>,
    pub last_ms: Option<u64>,
    /// Of them, already in OpenViking or this state dir's outbox (imported before, or
    /// written live by the engine).
    pub already_stored: usize,
    /// Written by this run (durable: in OpenViking or the outbox).
    pub written: usize,
    /// Still to write (a dry run, `limit`, or a stop).
    pub remaining: usize,
    /// Of the written turns, still in the outbox (OpenViking did not take them yet).
    pub queued: usize,
    /// Commits this run started (each followed up to `commitWaitMs`).
    pub commits: usize,
    pub skipped: Skipped,
    /// Why the run stopped before the end, if it did.
    pub stopped: Option<String>,
    /// At a first contact: the one line for the log (earlier turns found, and the command
    /// that brings them in, or what was brought in); `None` when there is nothing to say.
    pub note: Option<String>,
}

/// What a turn is made of, for recognising one the live engine wrote: its user and
/// assistant text as the history index keeps it.
fn fingerprint(entry: &TurnEntry) -> String {
    serde_json::to_string(&entry.messages).unwrap_or_default()
}


/// One transcript turn, prepared.
struct Prepared {
    turn: PastTurn,
    turn_id: String,
    content_key: Option<String>,
    fingerprint: String,
}

impl<H: Host> Engine<H> {
    /// The turns a session holds — in OpenViking (every archive, then the live messages) and
    /// in this state dir's outbox — as the history index reads them.
    pub(super) async fn held_turns(&self, ov_id: &str) -> HostResult<Vec<TurnEntry>> {
        let mut messages: Vec<Value> = Vec::new();
        if let Some(meta) = self.host.session_meta(ov_id).await? {
            for n in 1..=meta.commit_count {
                messages.extend(self.archive_messages(ov_id, n).await?);
            }
            messages.extend(self.host.live_messages(ov_id).await?);
        }
        for e in self.host.outbox_read(&outbox_key(ov_id)).await? {
            messages.extend(e.get("messages").and_then(Value::as_array).cloned().unwrap_or_default());
        }
        Ok(turns_from_messages(&messages, 0, self.host.now_ms()))
    }

    /// Reads a transcript, says what of it OpenViking lacks, and with `apply` writes that,
    /// in order, committing the way the live triggers would.
    pub async fn import_session(&self, mut req: ImportRequest) -> Result<ImportReport> {
        if req.first_contact {
            req.apply = self.config.import_on_bootstrap;
        }
        let mut report = self.import_transcript(&req).await?;
        if req.first_contact {
            // looked at: the next bootstraps of this session need not (a look that failed,
            // OpenViking down, is tried again at the next one)
            let ov = ov_session_id(&self.config.agent_id, &req.session_id);
            self.load_record(&ov, &req.session_id).await.map_err(EngineError::from)?;
            self.update(&ov, |r| r.past_checked = true).await.map_err(EngineError::from)?;
        }
        if req.first_contact && (report.remaining > 0 || report.written > 0) {
            let sid = &req.session_id;
            report.note = Some(if report.written > 0 || report.stopped.is_some() {
                let more = if report.remaining > 0 { format!("; {} more: `openclaw openviking import --session {sid} --apply`", report.remaining) } else { String::new() };
                format!("imported {} earlier turns of session {sid} into {}{more}", report.written, report.ov_session_id)
            } else {
                format!("session {sid} has {} earlier turns that OpenViking does not: `openclaw openviking import --session {sid} --apply` brings them in (or importOnBootstrap: true)", report.remaining)
            });
        }
        Ok(report)
    }

    /// First contact with a session: `true` until a first-contact import of it got through
    /// (its record remembers), so the host looks at the transcript for earlier turns once.
    pub async fn past_check_due(&self, session_id: &str) -> Result<bool> {
        super::read::non_empty_session_id(session_id)?;
        let ov = ov_session_id(&self.config.agent_id, session_id);
        self.load_record(&ov, session_id).await.map_err(EngineError::from)?;
        Ok(!self.read_record(&ov, |r| r.past_checked))
    }

    async fn import_transcript(&self, req: &ImportRequest) -> Result<ImportReport> {
        let now = self.host.now_ms();
        let live = ov_session_id(&self.config.agent_id, &req.session_id);
        let target_sid = imported_session_id(&req.session_id);
        let target = ov_session_id(&self.config.agent_id, &target_sid);
        let mut transcript = read_transcript(&req.lines);
        // the turn being run is the live write's (its answer is not in the transcript yet)
        if req.first_contact && transcript.turns.last().is_some_and(|t| !t.messages.iter().any(|m| crate::message::role(m) == Some("assistant"))) {
            transcript.turns.pop();
        }
        let within = |t: &PastTurn| match t.at_ms {
            Some(at) => req.since_ms.map_or(true, |s| at >= s) && req.until_ms.map_or(true, |u| at < u),
            None => req.since_ms.is_none() && req.until_ms.is_none(),
        };
        let mut report = ImportReport { session_id: req.session_id.clone(), live_ov_session_id: live.clone(), ov_session_id: target.clone(), skipped: transcript.skipped, ..Default::default() };

        let mut prepared = Vec::new();
        for (i, turn) in transcript.turns.into_iter().enumerate().filter(|(_, t)| within(t)) {
            let turn_id = format!("{live}:e{}", turn.entry_id);
            let meta = TurnMeta { turn_id: turn_id.clone(), session_id: target.clone(), sequence: i as u64, now_ms: now, used_context_uris: vec![], compact_checkpoint_id: None };
            let env = build_envelope(&turn.messages, meta).map_err(|e| EngineError::new(e.code, format!("turn {} of {}: {}", i + 1, req.session_id, e.message)))?;
            report.turns += 1;
            report.tool_calls += env.tool_calls.len();
            report.tokens += turn.messages.iter().map(|m| estimate_message_tokens(m) as u64).sum::<u64>();
            if let Some(at) = turn.at_ms {
                report.first_ms = Some(report.first_ms.map_or(at, |f| f.min(at)));
                report.last_ms = Some(report.last_ms.map_or(at, |l| l.max(at)));
            }
            let fingerprint = fingerprint(&turn_entry(&env, &turn.messages, now));
            prepared.push(Prepared { content_key: super::write::content_key(&turn.messages), turn, turn_id, fingerprint });
        }

        // what is there already: imported before (by id), or written live (by its text)
        let imported: HashSet<String> = self.held_turns(&target).await.map_err(EngineError::from)?.into_iter().map(|t| t.turn_id).collect();
        let mut live_texts: HashMap<String, usize> = HashMap::new();
        for t in self.held_turns(&live).await.map_err(EngineError::from)? {
            *live_texts.entry(fingerprint(&t)).or_default() += 1;
        }
        let mut missing = Vec::new();
        for p in prepared {
            let by_text = live_texts.get_mut(&p.fingerprint).filter(|n| **n > 0);
            if imported.contains(&p.turn_id) {
                report.already_stored += 1;
            } else if let Some(n) = by_text {
                *n -= 1;
                report.already_stored += 1;
            } else {
                missing.push(p);
            }
        }
        report.remaining = missing.len();
        if !req.apply {
            return Ok(report);
        }

        let limit = req.limit.map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
        let wait = req.commit_wait_ms.unwrap_or(IMPORT_COMMIT_WAIT_MS);
        for p in missing.into_iter().take(limit) {
            match self.import_turn(&live, &target_sid, &p).await? {
                None => report.already_stored += 1, // it came in live meanwhile
                Some(outcome) => {
                    report.written += 1;
                    let sent = self.flush(&target).await;
                    // a trigger fired: commit now, waiting for the task (at most one of this
                    // import's commits in flight; OpenViking's queue is never flooded)
                    if outcome.trigger.is_some() && sent.as_ref().is_ok_and(|r| r.queued == 0) && self.commit_imported(&target, wait).await {
                        report.commits += 1;
                    }
                    match sent {
                        Ok(r) if r.queued > 0 && !r.in_progress && r.reason.is_some() => {
                            report.remaining -= 1;
                            report.queued = r.queued;
                            report.stopped = Some(format!("OpenViking did not take the turns ({}); {} wait in the outbox and are sent by the next flush or turn; run the import again to go on", r.reason.unwrap_or_default(), r.queued));
                            return Ok(report);
                        }
                        Ok(r) => report.queued = r.queued,
                        Err(e) => {
                            report.remaining -= 1;
                            report.stopped = Some(format!("the outbox could not be replayed ({e}); run the import again to go on"));
                            return Ok(report);
                        }
                    }
                }
            }
            report.remaining -= 1;
        }
        // the last turns: no live turn will follow them into this session to fire a trigger
        let pending = self.read_record(&target, |r| r.state.turns_since_commit > 0);
        if report.written > 0 && pending && report.queued == 0 && self.commit_imported(&target, wait).await {
            report.commits += 1;
        }
        Ok(report)
    }

    /// Commits the imported session and follows the task for up to `wait_ms`: archived?
    async fn commit_imported(&self, target: &str, wait_ms: u64) -> bool {
        // the previous commit's task still running (not waited for): the next trigger commits
        if self.read_record(target, |r| r.guard.admit(self.host.now_ms(), true)) == crate::lifecycle::commit_guard::Admission::InFlight {
            return false;
        }
        let until = self.host.now_ms().saturating_add(wait_ms);
        match self.run_commit(target, true, "import", Some(until)).await {
            Ok(c) => c.compacted,
            Err(e) => {
                self.host.warn(&format!("a commit of the imported {target} failed ({e}); the next import or flush retries it"));
                false
            }
        }
    }

    /// Writes one past turn to the imported session, deciding under the live session's write
    /// lock against a live write of the same turn: `None` when the live session has it.
    async fn import_turn(&self, live: &str, target_sid: &str, p: &Prepared) -> Result<Option<super::WriteOutcome>> {
        let lock = outbox_key(live);
        match self.take_lock(&lock, WRITE_LOCK_TTL_MS, self.config.timeout_ms).await {
            Ok(true) => {}
            Ok(false) => return Err(EngineError::new(ErrorCode::HostTimeout, format!("another process held the outbox of {live} for {} ms; run the import again", self.config.timeout_ms))),
            Err(e) => return Err(EngineError::from(e)),
        }
        let out = self.import_turn_locked(live, target_sid, p).await;
        self.give_lock(&lock).await;
        out
    }

    async fn import_turn_locked(&self, live: &str, target_sid: &str, p: &Prepared) -> Result<Option<super::WriteOutcome>> {
        let mut ledger = self.load_ledger(live).await.map_err(EngineError::from)?.unwrap_or_default();
        if let Some(c) = &p.content_key {
            let queued_live = self.host.outbox_read(&outbox_key(live)).await.map_err(EngineError::from)?;
            let live_has = ledger.content_keys.contains(c) || queued_live.iter().any(|e| e.get("contentKey").and_then(Value::as_str) == Some(c.as_str()));
            if live_has && !ledger.turn_ids.iter().any(|t| t == &p.turn_id) {
                return Ok(None);
            }
        }
        let write = TurnWrite {
            session_id: target_sid.to_string(),
            session_key: None,
            messages: p.turn.messages.clone(),
            advancement_key: Some(p.turn_id.clone()),
            token_budget: None,
            context_tokens: None,
            used_context_uris: vec![],
            is_heartbeat: false,
            pre_prompt_message_count: None,
            defer_send: true,
        };
        let outcome = self.write_turn(write).await?;
        // a live write of this turn from now on finds it here and is answered as stored
        if let Some(c) = &p.content_key {
            super::record::remember(&mut ledger.content_keys, c);
            super::record::remember(&mut ledger.turn_ids, &p.turn_id);
            if let Err(e) = self.save_ledger(live, &ledger).await {
                self.host.warn(&format!("the turn ledger of {live} could not note an imported turn ({e})"));
            }
        }
        Ok(Some(outcome))
    }
}
