//! `openclaw openviking import --from <file>`: an export (`lifecycle::export_file`) back into
//! OpenViking — another account, another server, or the same one again.
//!
//! Each session's turns go through the live write path (envelope, tool parts, large
//! outputs, outbox, replay) under their own turn ids and times, in order; where the source
//! had archived them, the restore commits at the same boundaries, so the archives, their
//! summaries and the memories extracted from them are made again by the new server, and the
//! engine writes a checkpoint for each. A turn already there (by its id) is not written
//! again, and an archive the session already has is not committed again: a rerun, or a run
//! after a kill, writes only what is missing. Memories are created where missing and never
//! overwrite a memory the target has.

use super::{Engine, TurnWrite, WriteStatus};
use crate::address::scopes::{agent_owned_memories, user_memories};
use crate::address::session_map::ov_session_id;
use crate::error::{EngineError, ErrorCode, Result};
use crate::host::{Host, HostErrorKind};
use crate::lifecycle::export_file::{read_memories, read_session, MemoryScope};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// Lines of an export to restore: one session's (`ExportIndex.sessions[i].lines`) or the
/// memories' (`ExportIndex.memoryLines`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RestoreRequest {
    #[serde(default, deserialize_with = "crate::decode::or_default")]
    pub lines: Vec<String>,
    /// Write (otherwise only say what would be written).
    #[serde(default, deserialize_with = "crate::decode::or_default")]
    pub apply: bool,
    /// Write at most this many turns (or memories) in this run; the next run goes on.
    #[serde(default, deserialize_with = "crate::decode::count")]
    pub limit: Option<u64>,
    /// How long to wait for each commit's task.
    #[serde(default, deserialize_with = "crate::decode::count")]
    pub commit_wait_ms: Option<u64>,
}

impl crate::decode::Request for RestoreRequest {
    fn check(&self) -> Result<()> {
        if self.lines.is_empty() {
            return Err(EngineError::input("lines", "must hold at least one line of the export"));
        }
        Ok(())
    }
}

/// What a restore of one session found and did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct RestoreReport {
    pub session_id: String,
    pub ov_session_id: String,
    /// Turns in the file for it, and how many archives they were in.
    pub turns: usize,
    pub archives: u64,
    pub already_stored: usize,
    pub written: usize,
    pub remaining: usize,
    /// Of the written turns, still in the outbox.
    pub queued: usize,
    /// Commits this run made at the source's archive boundaries.
    pub commits: usize,
    /// Archives the session has in OpenViking now.
    pub archived: u64,
    pub stopped: Option<String>,
}

/// What a restore of the memories found and did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct MemoryRestoreReport {
    pub memories: usize,
    /// A memory at the same path is there already (it is kept, never overwritten).
    pub already_stored: usize,
    pub written: usize,
    pub remaining: usize,
    pub problems: Vec<String>,
}


impl<H: Host> Engine<H> {
    /// Restores one session of an export (see the module doc).
    pub async fn restore_session(&self, req: RestoreRequest) -> Result<RestoreReport> {
        let (head, turns, _checkpoints) = read_session(&req.lines)?;
        super::read::non_empty_session_id(&head.session_id)?;
        let sid = head.session_id.clone();
        let ov = ov_session_id(&self.config.agent_id, &sid);
        let mut report = RestoreReport { session_id: sid.clone(), ov_session_id: ov.clone(), turns: turns.len(), archives: head.archives, ..Default::default() };
        let held: HashSet<String> = self.held_turns(&ov).await.map_err(|e| e.while_doing(&ov))?.into_iter().map(|t| t.turn_id).collect();
        let mut archived = self.host.session_meta(&ov).await.map_err(|e| e.while_doing(&ov))?.map_or(0, |m| m.commit_count);
        report.archived = archived;
        report.already_stored = turns.iter().filter(|t| held.contains(&t.turn_id)).count();
        report.remaining = turns.len() - report.already_stored;
        if !req.apply {
            return Ok(report);
        }
        let wait = req.commit_wait_ms.unwrap_or(super::IMPORT_COMMIT_WAIT_MS);
        let mut budget = req.limit.map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
        let mut i = 0;
        while i < turns.len() {
            let archive = turns[i].archive;
            let end = turns[i..].iter().position(|t| t.archive != archive).map_or(turns.len(), |n| i + n);
            for t in &turns[i..end] {
                if held.contains(&t.turn_id) {
                    continue;
                }
                if budget == 0 {
                    return Ok(report);
                }
                budget -= 1;
                let write = TurnWrite {
                    session_id: sid.clone(),
                    session_key: None,
                    messages: t.messages.clone(),
                    advancement_key: Some(t.turn_id.clone()),
                    token_budget: None,
                    context_tokens: None,
                    used_context_uris: vec![],
                    is_heartbeat: false,
                    pre_prompt_message_count: None,
                    defer_send: true,
                };
                let outcome = self.write_turn(write).await.map_err(|e| EngineError::new(e.code, format!("turn {} of {sid}: {}", t.turn_id, e.message)))?;
                report.remaining -= 1;
                if outcome.status == WriteStatus::Duplicate || outcome.already_stored {
                    report.already_stored += 1;
                } else {
                    report.written += 1;
                }
                if let Some(stop) = self.restore_send(&ov, &mut report).await {
                    report.stopped = Some(stop);
                    return Ok(report);
                }
            }
            // the source archived these turns here: so does the restore
            if let Some(k) = archive.filter(|k| *k > archived) {
                match self.run_commit(&ov, true, "restore", Some(self.host.now_ms().saturating_add(wait))).await {
                    Ok(c) if c.compacted => {
                        archived += 1;
                        report.commits += 1;
                    }
                    Ok(c) => {
                        report.stopped = Some(format!("archive {k} of {sid} could not be made yet ({}); run the import again to go on", c.reason.unwrap_or_default()));
                        break;
                    }
                    Err(e) => {
                        report.stopped = Some(format!("archive {k} of {sid} could not be made ({e}); run the import again to go on"));
                        break;
                    }
                }
            }
            i = end;
        }
        report.archived = archived;
        Ok(report)
    }

    /// Sends what the restore queued; the reason to stop when OpenViking did not take it.
    async fn restore_send(&self, ov: &str, report: &mut RestoreReport) -> Option<String> {
        match self.flush(ov).await {
            Ok(r) => {
                report.queued = r.queued;
                (r.queued > 0 && !r.in_progress && r.reason.is_some())
                    .then(|| format!("OpenViking did not take the turns ({}); {} wait in the outbox and are sent by the next flush or turn; run the import again to go on", r.reason.unwrap_or_default(), r.queued))
            }
            Err(e) => Some(format!("the outbox could not be replayed ({e}); run the import again to go on")),
        }
    }

    /// Restores the memories of an export: each created where the target has none at its
    /// path (the user's memories under this key's user, the agent's under this agent).
    pub async fn restore_memories(&self, req: RestoreRequest) -> Result<MemoryRestoreReport> {
        let memories = read_memories(&req.lines)?;
        let uid = self.resolve_user().await;
        if uid.is_none() && self.config.target_uri.is_none() {
            return Err(EngineError::new(ErrorCode::HostFailed, "the user of the API key is not known (OpenViking unreachable?): the memories cannot be restored"));
        }
        let user = user_memories(self.config.target_uri.as_deref(), uid.as_deref());
        let agent = agent_owned_memories(&self.config.agent_id);
        let mut report = MemoryRestoreReport { memories: memories.len(), remaining: memories.len(), ..Default::default() };
        let mut budget = req.limit.map_or(usize::MAX, |l| usize::try_from(l).unwrap_or(usize::MAX));
        for m in memories {
            let root = if m.scope == MemoryScope::User { &user } else { &agent };
            let uri = format!("{root}/{}", m.path);
            match self.host.stat(&uri).await {
                Ok(Some(_)) => {
                    report.already_stored += 1;
                    report.remaining -= 1;
                    continue;
                }
                Ok(None) => {}
                Err(e) if e.kind == HostErrorKind::NotFound => {}
                Err(e) => return Err(e.while_doing(&uri)),
            }
            if !req.apply || budget == 0 {
                continue;
            }
            budget -= 1;
            match self.host.write_text(&uri, &m.content, true, false).await {
                Ok(()) => report.written += 1,
                Err(e) if e.kind == HostErrorKind::Conflict => report.already_stored += 1,
                Err(e) => return Err(e.while_doing(&uri)),
            }
            report.remaining -= 1;
        }
        Ok(report)
    }
}
