//! What the engine keeps per OpenViking session, durably (one JSON document in the host's
//! state store, key `session/<ov session id>`), plus the `sessionKey` → current session map.

use super::Engine;
use crate::checkpoint::CheckpointIndex;
use crate::commit_guard::CommitGuard;
use crate::host::{Host, HostErrorKind, HostResult};
use crate::triggers::SessionState;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// How many advancement keys are remembered per session for idempotency.
pub const APPLIED_KEYS_KEPT: usize = 512;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SessionRecord {
    pub ov_session_id: String,
    /// OpenClaw's `sessionId` (a transcript).
    pub session_id: String,
    /// OpenClaw's `sessionKey` (a conversation; survives `/new`).
    pub session_key: Option<String>,
    /// The OpenViking session has been created.
    pub created: bool,
    pub state: SessionState,
    pub guard: CommitGuard,
    /// Advancement keys already written, oldest first.
    pub applied_keys: Vec<String>,
    /// Content keys of turns already written (see `write::content_key`), oldest first: hosts
    /// that call both `commitTurn` and `afterTurn` for one turn get it written once.
    pub content_keys: Vec<String>,
    pub checkpoints: CheckpointIndex,
    /// Turn ids of the archive whose commit task is being followed.
    pub pending_turn_ids: Vec<String>,
    /// The session's live message count on OpenViking after this engine's last confirmed
    /// write; `None` when unknown (nothing confirmed yet, or a commit since).
    pub live_count: Option<u64>,
    /// A turn whose write failed in a way that may still have reached OpenViking (timeout,
    /// reset, 5xx, garbled answer): checked before it is sent again (see `write::flush`).
    pub unconfirmed: Option<Unconfirmed>,
}

/// A turn sent but not acknowledged, and the live count it would leave if it was stored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Unconfirmed {
    pub sequence: u64,
    /// `live_count` before the send.
    pub live_before: u64,
    pub message_count: u64,
}

pub fn state_key(ov_session_id: &str) -> String {
    format!("session/{ov_session_id}")
}

pub fn outbox_key(ov_session_id: &str) -> String {
    format!("outbox/{ov_session_id}")
}

pub fn session_key_key(agent_id: &str, session_key: &str) -> String {
    format!("key/{}/{}", crate::session_map::safe_segment(agent_id), crate::session_map::safe_segment(session_key))
}

impl SessionRecord {
    pub fn remember_key(&mut self, key: &str) {
        remember(&mut self.applied_keys, key);
    }

    pub fn remember_content(&mut self, key: &str) {
        remember(&mut self.content_keys, key);
    }
}

fn remember(list: &mut Vec<String>, key: &str) {
    list.push(key.to_string());
    let excess = list.len().saturating_sub(APPLIED_KEYS_KEPT);
    list.drain(..excess);
}

impl<H: Host> Engine<H> {
    /// The record of a session: from this process's cache, else the state store, else new.
    pub async fn load_record(&self, ov_session_id: &str, session_id: &str) -> HostResult<SessionRecord> {
        if let Some(r) = self.records.borrow().get(ov_session_id) {
            return Ok(r.clone());
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
        // Reconcile with OpenViking once per process: writes made elsewhere (another
        // process, a lost state dir) show up in its pending_tokens.
        if rec.created {
            if let Ok(Some(meta)) = self.host.session_meta(ov_session_id).await {
                rec.state.server_pending_tokens = Some(meta.pending_tokens);
                rec.live_count = Some(meta.message_count);
            }
        }
        if let Some(cached) = self.records.borrow().get(ov_session_id) {
            return Ok(cached.clone()); // loaded concurrently meanwhile: keep that one
        }
        self.records.borrow_mut().insert(ov_session_id.to_string(), rec.clone());
        Ok(rec)
    }

    /// Changes a cached record in place — synchronously, so concurrent operations on the
    /// same session (a background commit and the next turn's write) never overwrite each
    /// other's changes — and persists the result. `load_record` must have cached it.
    pub async fn update<R>(&self, ov_session_id: &str, f: impl FnOnce(&mut SessionRecord) -> R) -> HostResult<R> {
        let (out, snapshot) = {
            let mut records = self.records.borrow_mut();
            let rec = records.entry(ov_session_id.to_string()).or_insert_with(|| SessionRecord {
                ov_session_id: ov_session_id.to_string(),
                ..Default::default()
            });
            let out = f(rec);
            (out, rec.clone())
        };
        let v = serde_json::to_value(&snapshot).unwrap_or(Value::Null);
        self.host.save_state(&state_key(ov_session_id), v).await?;
        Ok(out)
    }

    /// Saves a record (cache first, then durably).
    pub async fn save_record(&self, rec: &SessionRecord) -> HostResult<()> {
        self.records.borrow_mut().insert(rec.ov_session_id.clone(), rec.clone());
        let v = serde_json::to_value(rec).unwrap_or(Value::Null);
        self.host.save_state(&state_key(&rec.ov_session_id), v).await
    }

    /// Creates the OpenViking session once: working-memory summaries on; with
    /// `autoCapture: false`, long-term memory extraction off (turns are still recorded).
    pub async fn ensure_session(&self, ov_session_id: &str) -> HostResult<()> {
        let created = self.records.borrow().get(ov_session_id).is_some_and(|r| r.created);
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
            }
        })
        .await
    }
}
