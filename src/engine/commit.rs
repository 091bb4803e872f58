//! Commits: the OpenViking side of compaction (design §3.4). A commit archives the session's
//! live messages at once (phase 1, done when the call returns) and runs summary + memory
//! extraction as a task. The engine follows the task — in this process, or in the next one
//! after a CLI turn ended, since the pending task id is durable — and on completion records
//! a `CompactCheckpoint` (locally and as JSON in OpenViking).

use super::locks::{replay_lease, REPLAY_LEASE_TTL_MS, REPLAY_WAIT_MS, WRITE_LOCK_TTL_MS};
use super::record::outbox_key;
use super::Engine;
use crate::lifecycle::checkpoint::{archive_index_from_uri, checkpoint_id, checkpoint_uri, extracted_memory_uris, CompactCheckpoint, TurnRange};
use crate::lifecycle::commit_guard::{Admission, CommitPhase};
use crate::host::{CommitAnswer, Host, HostResult, TaskAnswer};
use crate::lifecycle::shared_window::SharedWindow;
use crate::lifecycle::triggers::{note_recorded, record_commit, snapshot_window};
use crate::message::StoredMessage;
use serde::Serialize;
use serde_json::{json, Value};

/// How often a running commit task is polled.
pub const TASK_POLL_MS: u64 = 1000;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct CommitOutcome {
    /// The session's live messages were archived (the working context changes).
    pub compacted: bool,
    /// Why nothing was compacted, or what is still pending.
    pub reason: Option<String>,
    /// The checkpoint, once the task completed.
    pub checkpoint: Option<CompactCheckpoint>,
    /// The task is still running (followed later, also by a later process).
    pub task_pending: bool,
}

/// Who follows which commit task in this process (the engine's `followers` part).
#[derive(Default)]
pub(super) struct Followers {
    /// Sessions whose commit task is being followed, and by how many callers.
    following: std::cell::RefCell<std::collections::HashMap<String, usize>>,
    /// Commit tasks whose checkpoint one follower is recording now (the others wait for it).
    recording: std::cell::RefCell<std::collections::HashSet<String>>,
}

impl Followers {
    /// A caller starts following the session's task.
    fn enter(&self, ov_id: &str) {
        *self.following.borrow_mut().entry(ov_id.to_string()).or_insert(0) += 1;
    }

    /// A caller stopped following the session's task.
    fn leave(&self, ov_id: &str) {
        let mut following = self.following.borrow_mut();
        if let Some(n) = following.get_mut(ov_id) {
            *n -= 1;
            if *n == 0 {
                following.remove(ov_id);
            }
        }
    }

    /// Some caller follows the session's task now.
    pub(super) fn is_followed(&self, ov_id: &str) -> bool {
        self.following.borrow().contains_key(ov_id)
    }

    fn is_recording(&self, task_id: &str) -> bool {
        self.recording.borrow().contains(task_id)
    }

    fn start_recording(&self, task_id: &str) {
        self.recording.borrow_mut().insert(task_id.to_string());
    }

    fn end_recording(&self, task_id: &str) {
        self.recording.borrow_mut().remove(task_id);
    }
}

fn outcome(compacted: bool, reason: impl Into<Option<String>>) -> CommitOutcome {
    CommitOutcome { compacted, reason: reason.into(), checkpoint: None, task_pending: false }
}

impl<H: Host> Engine<H> {
    /// Under the replay lease: `None` when the outbox is not empty (a turn arrived), else the
    /// commit request's answer.
    async fn request_commit(&self, ov_id: &str, forced: bool) -> HostResult<Option<HostResult<CommitAnswer>>> {
        // the window every writer counts, read before the outbox is seen empty: each turn it
        // holds was queued before, so it has been sent and is archived by this commit
        let shared = self.shared_window(ov_id).await;
        if !self.host.outbox_read(&outbox_key(ov_id)).await?.is_empty() {
            return Ok(None);
        }
        self.ensure_session(ov_id).await?;
        let now = self.host.now_ms();
        self.update(ov_id, |rec| {
            if let Some(w) = &shared {
                w.apply(&mut rec.state);
                if let Some(newest) = w.newest_sequence() {
                    note_recorded(&mut rec.state, newest);
                }
            }
            rec.guard.on_commit_requested(now, forced);
            snapshot_window(&mut rec.state);
            rec.live_count = None; // the commit archives the live messages
            rec.followed_live = None;
        })
        .await?;
        self.set_mark(ov_id, None).await?;
        self.replay.forget_live(ov_id);
        Ok(Some(self.host.commit(ov_id, json!({"enable_working_memory": true})).await))
    }

    /// Runs a commit for an OpenViking session. `forced` is `compact()` (ignores spacing and
    /// back-off, waits for a commit already in flight); `wait_until_ms` bounds how long the
    /// task is followed (`None`: not at all — it is followed later).
    pub async fn run_commit(&self, ov_id: &str, forced: bool, reason: &str, wait_until_ms: Option<u64>) -> HostResult<CommitOutcome> {
        self.load_record(ov_id, "").await?;
        let admission = self.read_record(ov_id, |rec| rec.guard.admit(self.host.now_ms(), forced));
        let mut followed = None;
        match admission {
            Admission::Start => {}
            Admission::InFlight if forced => {
                let until = wait_until_ms.unwrap_or_else(|| self.host.now_ms());
                followed = self.follow_task(ov_id, until).await?;
                let still = self.read_record(ov_id, |rec| rec.guard.admit(self.host.now_ms(), true));
                if still != Admission::Start {
                    return Ok(CommitOutcome { compacted: true, reason: Some("a commit is in flight".into()), checkpoint: followed, task_pending: true });
                }
            }
            blocked => return Ok(outcome(false, format!("not started: {blocked:?}"))),
        }
        let okey = outbox_key(ov_id);
        let outbox = self.host.outbox_read(&okey).await?.len();
        let turns = self.read_record(ov_id, |rec| rec.state.turns_since_commit);
        if turns == 0 && outbox == 0 {
            if let Some(cp) = followed {
                return Ok(CommitOutcome { compacted: true, reason: None, checkpoint: Some(cp), task_pending: false });
            }
            return Ok(outcome(false, "no new turns since the last commit".to_string()));
        }
        // Everything the session holds must be in OpenViking before it is archived.
        if outbox > 0 {
            let report = self.flush(ov_id).await?;
            if report.in_progress {
                // another replay (e.g. the bootstrap's) holds the outbox: not an outage
                return Ok(outcome(false, "not started: the outbox is being replayed; the commit follows with the next turn".to_string()));
            }
            if report.queued > 0 {
                let now = self.host.now_ms();
                self.update(ov_id, |rec| rec.guard.on_outage(now)).await?;
                return Ok(outcome(false, "OpenViking is unreachable; turns are kept in the outbox".to_string()));
            }
        }
        // The archive is cut under the replay lease, with the outbox seen empty under it: an
        // entry another process sent but has not dropped yet is never archived behind its back
        // (its replay finds the turn id among the live messages and drops it).
        let lease = replay_lease(ov_id);
        if !self.take_lock(&lease, REPLAY_LEASE_TTL_MS, REPLAY_WAIT_MS.min(self.config.timeout_ms)).await? {
            return Ok(outcome(false, "not started: another process is replaying the outbox; the commit follows with the next turn".to_string()));
        }
        let answer = self.request_commit(ov_id, forced).await;
        self.give_lock(&lease).await;
        let answer = match answer? {
            Some(a) => a,
            None => return Ok(outcome(false, "not started: turns arrived in the outbox; the commit follows with the next turn".to_string())),
        };
        let now = self.host.now_ms();
        match answer {
            Err(e) => {
                let outage = matches!(e.kind, crate::host::HostErrorKind::Unreachable | crate::host::HostErrorKind::Timeout);
                self.update(ov_id, |rec| {
                    if outage {
                        rec.guard.on_outage(now);
                    } else {
                        rec.guard.on_failure(now);
                    }
                    rec.state.commit_snapshot = None;
                })
                .await?;
                self.host.warn(&format!("commit of {ov_id} failed ({e}); the raw session is intact"));
                Ok(outcome(false, format!("commit failed: {e}")))
            }
            Ok(CommitAnswer::Skipped { reason }) => {
                self.update(ov_id, |rec| {
                    rec.guard.on_commit_skipped();
                    rec.state.commit_snapshot = None;
                })
                .await?;
                Ok(outcome(false, format!("nothing to compact ({reason})")))
            }
            Ok(CommitAnswer::Accepted { task_id, archive_uri }) => {
                let end = self
                    .update(ov_id, |rec| {
                        if let Some(n) = crate::lifecycle::checkpoint::archive_index_from_uri(&archive_uri) {
                            rec.seen_commits = Some(rec.seen_commits.map_or(u64::from(n), |s| s.max(u64::from(n))));
                        }
                        let (start, end, turn_ids) = record_commit(&mut rec.state, now);
                        rec.state.last_commit_reason = Some(reason.to_string());
                        rec.guard.on_commit_accepted(now, task_id, archive_uri, start, end);
                        rec.pending_turn_ids = turn_ids;
                        end
                    })
                    .await?;
                self.share_commit(ov_id, end, now).await;
                // the map lists the folders again while the commit's memories come in
                self.map_commit_started().await;
                // turns held while archiving go in now, into the next window
                let _ = self.flush(ov_id).await;
                let cp = match wait_until_ms {
                    Some(until) => self.follow_task(ov_id, until).await?,
                    None => None,
                };
                let pending = cp.is_none() && self.read_record(ov_id, |rec| rec.guard.pending_task().is_some());
                Ok(CommitOutcome { compacted: true, reason: None, checkpoint: cp, task_pending: pending })
            }
        }
    }

    /// The session's shared trigger window (`lifecycle::shared_window`), as last saved.
    pub(super) async fn shared_window(&self, ov_id: &str) -> Option<SharedWindow> {
        self.load_ledger(ov_id).await.ok().flatten()?.window
    }

    /// Moves the shared window past a commit's archive, under the write lock, and takes this
    /// process's counters from it. Not done (the lock or the store refused): the other writers
    /// still count the archived turns until the next commit, and it is said.
    async fn share_commit(&self, ov_id: &str, end_sequence: u64, now: u64) {
        let okey = outbox_key(ov_id);
        if !matches!(self.take_lock(&okey, WRITE_LOCK_TTL_MS, self.config.timeout_ms).await, Ok(true)) {
            self.host.warn(&format!("the commit of {ov_id} could not be noted in its turn ledger (its write lock was held); other processes count its turns until the next commit"));
            return;
        }
        let shared = async {
            let Some(mut ledger) = self.load_ledger(ov_id).await? else { return Ok(None) };
            let Some(w) = ledger.window.as_mut() else { return Ok(None) };
            w.commit(end_sequence, now);
            let w = w.clone();
            self.save_ledger(ov_id, &ledger).await?;
            Ok::<_, crate::host::HostError>(Some(w))
        }
        .await;
        self.give_lock(&okey).await;
        match shared {
            Ok(Some(w)) => {
                let _ = self.update(ov_id, |rec| w.apply(&mut rec.state)).await;
            }
            Ok(None) => {}
            Err(e) => self.host.warn(&format!("the commit of {ov_id} could not be noted in its turn ledger ({e}); other processes count its turns until the next commit")),
        }
    }

    /// Follows the session's pending commit task until it ends or `until_ms` passes.
    /// Returns the checkpoint when the task completed (or failed after archiving).
    pub async fn follow_task(&self, ov_id: &str, until_ms: u64) -> HostResult<Option<CompactCheckpoint>> {
        self.followers.enter(ov_id);
        let out = self.follow_task_once(ov_id, until_ms).await;
        self.followers.leave(ov_id);
        out
    }

    /// Before composing: a finished commit task's summary should reach this turn, not the
    /// next one (a one-process-per-turn host would otherwise record it in the background
    /// while this assemble runs). One poll, no waiting; skipped while another caller is
    /// following the task already.
    pub(super) async fn catch_up_task(&self, ov_id: &str) {
        if self.followers.is_followed(ov_id) {
            return;
        }
        let _ = self.follow_task(ov_id, self.host.now_ms()).await;
    }

    async fn follow_task_once(&self, ov_id: &str, until_ms: u64) -> HostResult<Option<CompactCheckpoint>> {
        self.load_record(ov_id, "").await?;
        // bounded by polls as well as by the clock: a host clock that stalls or runs
        // backwards must not keep the loop going
        let start = self.host.now_ms();
        let mut polls_left = until_ms.saturating_sub(start) / TASK_POLL_MS + 1;
        // the archive of the task this call followed: when another caller recorded it first,
        // its checkpoint is this call's answer too
        let mut followed: Option<String> = None;
        loop {
            let out_of_time = |now: u64, left: u64| now >= until_ms || left == 0;
            let (phase, done) = self.read_record(ov_id, |rec| {
                let done = followed.as_ref().and_then(|a| rec.checkpoints.checkpoints.iter().rev().find(|c| &c.archive_uri == a).cloned());
                (rec.guard.phase.clone(), done)
            });
            let CommitPhase::Extracting { task_id, archive_uri, start_sequence, end_sequence, .. } = phase else {
                return Ok(done);
            };
            followed = Some(archive_uri.clone());
            // another caller (bootstrap's follow, compact's) is writing this task's checkpoint:
            // wait for it instead of writing it a second time
            if self.followers.is_recording(&task_id) {
                polls_left = polls_left.saturating_sub(1);
                if out_of_time(self.host.now_ms(), polls_left) {
                    return Ok(None);
                }
                self.host.sleep(TASK_POLL_MS).await;
                continue;
            }
            let answer = match self.host.task(&task_id).await {
                Ok(a) => a,
                Err(e) if e.retryable() => {
                    polls_left = polls_left.saturating_sub(1);
                    if out_of_time(self.host.now_ms(), polls_left) {
                        return Ok(None);
                    }
                    self.host.sleep(TASK_POLL_MS).await;
                    continue;
                }
                Err(e) => TaskAnswer::Failed { error: e.to_string() },
            };
            let (result, failed) = match answer {
                TaskAnswer::Completed { result } => (Some(result), false),
                TaskAnswer::Failed { error } => {
                    // The archive was cut in phase 1; only summary/extraction failed.
                    self.host.warn(&format!("commit task {task_id} of {ov_id} failed: {error}"));
                    (None, true)
                }
                TaskAnswer::Pending | TaskAnswer::Running => {
                    polls_left = polls_left.saturating_sub(1);
                    if out_of_time(self.host.now_ms(), polls_left) {
                        return Ok(None);
                    }
                    self.host.sleep(TASK_POLL_MS).await;
                    continue;
                }
            };
            self.followers.start_recording(&task_id);
            let cp = self.record_checkpoint(ov_id, &task_id, &archive_uri, start_sequence, end_sequence, result.as_ref()).await;
            let cp = match cp {
                Ok(cp) => cp,
                Err(e) => {
                    self.followers.end_recording(&task_id);
                    return Err(e);
                }
            };
            let now = self.host.now_ms();
            let done = cp.clone();
            let followed_task = task_id.clone();
            let saved = self.update(ov_id, move |rec| {
                // only if this task is still the one in flight (another caller may have finished it)
                if rec.guard.pending_task() == Some(followed_task.as_str()) {
                    if failed {
                        rec.guard.on_failure(now);
                    } else {
                        rec.guard.on_task_completed();
                    }
                }
                rec.checkpoints.upsert(done);
                super::record::bound_checkpoints(rec);
            })
            .await;
            self.followers.end_recording(&task_id);
            saved?;
            // the commit's memories are in OpenViking now: the map lists the folders again
            self.map_stale().await;
            return Ok(Some(cp));
        }
    }

    async fn record_checkpoint(
        &self,
        ov_id: &str,
        task_id: &str,
        archive_uri: &str,
        start: u64,
        end: u64,
        result: Option<&Value>,
    ) -> HostResult<CompactCheckpoint> {
        // committed when the archive was cut (the commit accepted), not when its task ended:
        // every machine that reads the checkpoint then counts the interval from the same time
        let (commit_reason, turn_ids, committed_ms) = self.read_record(ov_id, |rec| (rec.state.last_commit_reason.clone(), rec.pending_turn_ids.clone(), rec.state.last_commit_at_ms));
        let archive_index = archive_index_from_uri(archive_uri).unwrap_or(0);
        let archive_id = archive_uri.trim_end_matches('/').rsplit('/').next().unwrap_or("").to_string();
        let mut extracted = Vec::new();
        if let Some(diff_uri) = result.and_then(|r| r.get("memory_diff_uri")).and_then(Value::as_str) {
            match self.host.read_json(diff_uri).await {
                Ok(diff) => extracted = extracted_memory_uris(&diff),
                Err(e) => self.host.warn(&format!("could not read {diff_uri}: {e}")),
            }
        }
        let archive = match self.host.archive(ov_id, &archive_id).await {
            _ if archive_id.is_empty() => {
                self.host.warn(&format!("commit task {task_id} of {ov_id} named no archive; checkpoint kept without a summary"));
                None
            }
            Ok(a) => Some(a),
            Err(e) => {
                self.host.warn(&format!("could not read archive {archive_id} of {ov_id}: {e}"));
                None
            }
        };
        let (summary, replaced_chars) = match &archive {
            Some(a) => (a.get("overview").and_then(Value::as_str).map(str::to_string).filter(|s| !s.trim().is_empty()), archived_text_chars(a)),
            None => (None, 0),
        };
        let summary_problem = crate::context::summary_check::check_summary(summary.as_deref(), replaced_chars).err().map(|p| p.reason().to_string());
        if let Some(why) = &summary_problem {
            self.warn_once(
                "summary",
                &format!("the summary of {archive_id} of {ov_id} is {why}; it is not used: the turns behind it stay raw where the host still has them, and the previous good summary stands for older ones (OpenViking needs a model for its working-memory summaries: `vlm` in ov.conf)"),
            );
        }
        let cp = CompactCheckpoint {
            checkpoint_id: checkpoint_id(ov_id, archive_index),
            session_id: ov_id.to_string(),
            committed_at: crate::text::time::iso8601(committed_ms.unwrap_or_else(|| self.host.now_ms())),
            archive_index,
            source_turn_range: TurnRange { start_sequence: start, end_sequence: end },
            summary_uri: summary.as_ref().map(|_| format!("{archive_uri}/.overview.md")),
            extracted_memory_uris: extracted,
            archive_uri: archive_uri.to_string(),
            task_id: Some(task_id.to_string()),
            reason: commit_reason.unwrap_or_else(|| "commit".into()),
            turn_ids,
            summary,
            summary_problem,
        };
        match self.resolve_user().await {
            Some(uid) => {
                let uri = checkpoint_uri(&uid, &self.config.agent_id, ov_id, archive_index);
                if let Err(e) = self.host.write_json(&uri, serde_json::to_value(&cp).unwrap_or(Value::Null)).await {
                    self.host.warn(&format!("checkpoint {} kept locally; writing it to OpenViking failed: {e}", cp.checkpoint_id));
                }
                // the archived turns, searchable by meaning (the checkpoint made their folder)
                if let Some(a) = &archive {
                    self.embed_archived_turns(&uid, ov_id, a).await;
                }
            }
            None => self.host.warn("checkpoint kept locally only: the OpenViking user id is not known yet"),
        }
        Ok(cp)
    }
}

/// Characters of text in an archive's messages (what its summary replaces).
fn archived_text_chars(archive: &Value) -> usize {
    let messages = archive.get("messages").and_then(Value::as_array).into_iter().flatten();
    messages.flat_map(|m| StoredMessage::of(m).texts()).map(|t| t.chars().count()).sum()
}

