//! `openclaw openviking export`: an agent's past out of OpenViking into one file
//! (`lifecycle::export_file`): every session of the agent — archived and live turns with
//! their ids and times, its checkpoints — and the memories of its user and its own.
//! The host writes the lines; the engine reads OpenViking and makes them, a session at a
//! time, so a long past never has to be held at once.

use super::Engine;
use crate::address::scopes::{agent_owned_memories, user_memories};
use crate::address::session_map::{owns_session, parse_ov_session_id};
use crate::error::{EngineError, ErrorCode, Result};
use crate::host::{Host, HostErrorKind};
use crate::lifecycle::checkpoint::checkpoint_uri;
use crate::lifecycle::export_file::{header_line, memory_path_ok, ExportedCheckpoint, ExportedMemory, ExportedTurn, Line, MemoryScope, SessionHead};
use crate::lifecycle::stored_turns::stored_turns;
use crate::message::StoredPart;
use serde::Serialize;
use serde_json::Value;

/// Depth and size of one memory folder's listing (`fs/tree`).
pub const EXPORT_TREE_LEVELS: usize = 12;
pub const EXPORT_TREE_NODES: usize = 100_000;

/// What an export starts from: the header line and the agent's sessions in OpenViking.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ExportStart {
    pub header: String,
    /// The agent's OpenViking sessions (ids), oldest first.
    pub sessions: Vec<String>,
}

/// Lines of the file and what they hold.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct ExportLines {
    pub lines: Vec<String>,
    pub turns: u64,
    pub memories: u64,
    /// What could not be exported, each with why.
    pub problems: Vec<String>,
}


impl<H: Host> Engine<H> {
    /// The header and the agent's sessions (every session OpenViking lists under this agent,
    /// the imported ones included; never another agent's).
    pub async fn export_start(&self) -> Result<ExportStart> {
        let mut sessions: Vec<String> = self.host.list_sessions().await.map_err(|e| e.while_doing("listing the sessions"))?.into_iter().filter(|id| owns_session(&self.config.agent_id, id)).collect();
        sessions.reverse(); // OpenViking lists the newest first
        Ok(ExportStart { header: header_line(&self.config.agent_id, self.host.now_ms()), sessions })
    }

    /// One session's lines: its head, its turns (archives in order, then the live ones) and
    /// its checkpoints.
    pub async fn export_session(&self, ov_id: &str) -> Result<ExportLines> {
        if !owns_session(&self.config.agent_id, ov_id) {
            return Err(EngineError::input("ovSessionId", format!("{ov_id} is not a session of agent {}", self.config.agent_id)));
        }
        let meta = self.host.session_meta(ov_id).await.map_err(|e| e.while_doing(ov_id))?.ok_or_else(|| EngineError::new(ErrorCode::HostFailed, format!("OpenViking has no session {ov_id}")))?;
        let rec = self.load_record(ov_id, "").await.map_err(|e| e.while_doing(ov_id))?;
        let session_id = match rec.session_id.as_str() {
            "" => parse_ov_session_id(ov_id).map_or_else(|| ov_id.to_string(), |(_, s)| s.to_string()),
            s => s.to_string(),
        };
        let mut out = ExportLines::default();
        let mut turns = Vec::new();
        for n in 1..=meta.commit_count {
            let mut messages = self.archive_messages(ov_id, n).await.map_err(|e| e.while_doing(&format!("archive {n} of {ov_id}")))?;
            self.whole_outputs(ov_id, &mut messages, &mut out.problems).await;
            turns.extend(stored_turns(&messages).into_iter().map(|t| (Some(n), t)));
        }
        let mut live = self.host.live_messages(ov_id).await.map_err(|e| e.while_doing(&format!("the live messages of {ov_id}")))?;
        self.whole_outputs(ov_id, &mut live, &mut out.problems).await;
        turns.extend(stored_turns(&live).into_iter().map(|t| (None, t)));

        let head = SessionHead { session_id: session_id.clone(), ov_session_id: ov_id.to_string(), archives: meta.commit_count, turns: turns.len() as u64 };
        out.lines.push(Line::Session(head).to_line());
        for (archive, t) in turns {
            out.turns += 1;
            out.lines.push(Line::Turn(ExportedTurn { session_id: session_id.clone(), turn_id: t.entry_id, at_ms: t.at_ms, archive, messages: t.messages }).to_line());
        }
        if let Some(uid) = self.resolve_user().await {
            for n in 1..=meta.commit_count {
                let uri = checkpoint_uri(&uid, &self.config.agent_id, ov_id, u32::try_from(n).unwrap_or(u32::MAX));
                match self.host.read_json(&uri).await {
                    Ok(checkpoint @ Value::Object(_)) => out.lines.push(Line::Checkpoint(ExportedCheckpoint { session_id: session_id.clone(), checkpoint }).to_line()),
                    Ok(_) => {}
                    Err(e) if e.kind == HostErrorKind::NotFound => {}
                    Err(e) => out.problems.push(format!("checkpoint {n} of {ov_id}: {e}")),
                }
            }
        }
        Ok(out)
    }

    /// Tool outputs OpenViking moved out of a message (`tool_output_ref`: a large one, when it
    /// was added) are put
    /// back whole, so the file holds what was said, not a pointer into this server.
    async fn whole_outputs(&self, ov_id: &str, messages: &mut [Value], problems: &mut Vec<String>) {
        for m in messages.iter_mut() {
            let Some(parts) = m.get_mut("parts").and_then(Value::as_array_mut) else { continue };
            for p in parts.iter_mut() {
                let Some(external) = StoredPart::of(p).tool().map(|t| t.output_ref.unwrap_or("").to_string()) else { continue };
                if external.is_empty() {
                    continue;
                }
                let id = external.rsplit('/').next().unwrap_or(&external);
                match self.host.tool_result(ov_id, id).await {
                    Ok(Some(text)) => p["tool_output"] = Value::String(text),
                    Ok(None) => problems.push(format!("a tool output of {ov_id} ({id}) is gone from OpenViking; its excerpt is exported")),
                    Err(e) => problems.push(format!("a tool output of {ov_id} ({id}) could not be read ({e}); its excerpt is exported")),
                }
            }
        }
    }

    /// The memory files of the user's and this agent's own folders (OpenViking's derived
    /// `.abstract`/`.overview` files left out: the server makes them again).
    pub async fn export_memories(&self) -> Result<ExportLines> {
        let uid = self.resolve_user().await;
        if uid.is_none() && self.config.target_uri.is_none() {
            return Err(EngineError::new(ErrorCode::HostFailed, "the user of the API key is not known (OpenViking unreachable?): the user's memories cannot be listed"));
        }
        let mut out = ExportLines::default();
        let roots = [(MemoryScope::User, user_memories(self.config.target_uri.as_deref(), uid.as_deref())), (MemoryScope::Agent, agent_owned_memories(&self.config.agent_id))];
        for (scope, root) in roots {
            let tree = match self.host.tree(&root, EXPORT_TREE_LEVELS, EXPORT_TREE_NODES).await {
                Ok(Some(t)) => t,
                Ok(None) => continue,
                Err(e) if e.kind == HostErrorKind::NotFound => continue,
                Err(e) => return Err(e.while_doing(&format!("listing {root}"))),
            };
            if crate::context::map::tree_truncated(&tree) {
                out.problems.push(format!("{root} holds more than {EXPORT_TREE_NODES} entries: the rest are not exported"));
            }
            let prefix = format!("{}/", root.trim_end_matches('/'));
            for item in tree.as_array().into_iter().flatten() {
                let Some(uri) = item.get("uri").and_then(Value::as_str) else { continue };
                let Some(path) = uri.strip_prefix(&prefix) else { continue };
                if item.get("isDir").and_then(Value::as_bool).unwrap_or(false) || !memory_path_ok(path) {
                    continue;
                }
                match self.host.read_raw(uri).await {
                    Ok(Some(content)) => {
                        out.memories += 1;
                        out.lines.push(Line::Memory(ExportedMemory { scope, path: path.to_string(), content }).to_line());
                    }
                    Ok(None) => {}
                    Err(e) => out.problems.push(format!("{uri} could not be read ({e})")),
                }
            }
        }
        Ok(out)
    }
}
