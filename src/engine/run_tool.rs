//! Running the memory tools (inputs and schemas in [`crate::tools`]). Every URI the model
//! hands in is checked against the caller's own scopes — its user memories, its agent's own
//! agent-memory folder, its agent's sessions (parsed ids, `session_map`) — because the
//! server lets any agent of a user reach the others' sessions and agent-scope memories.
//!
//! - `memory_store`: written at once with `wait: true`, so the very next recall finds it —
//!   or, while OpenViking cannot be reached, queued durably and applied when it is back
//!   (`memory_queue`; `memory_forget` too);
//! - `memory_forget`: by uri, or by query (only a single candidate scoring at least
//!   `FORGET_AUTO_DELETE_SCORE` is deleted without the uri); every delete is verified — the
//!   memory must exist before, the server must count it, and it must be gone after — and
//!   only real deletions are reported;
//! - `memory_expand`: a summary, archive, session or extracted memory back to its raw turns
//!   (the checkpoint that extracted a memory is found in this agent's session records);
//! - `memory_search_history`: this agent's own turns by words or pattern (`engine::history_index`).

use super::Engine;
use crate::error::{EngineError, ErrorCode, Result};
use crate::tools::expand::{classify, expand, ExpandTarget};
use crate::host::{Host, HostError};
use crate::address::scopes::{agent_owned_memories, sessions_root, user_memories};
use crate::address::session_map::owns_session;
use crate::tools::{
    ExpandInput, ForgetInput, RecallInput, StoreInput, FORGET_AUTO_DELETE_SCORE, FORGET_DEFAULT_LIMIT,
};
use crate::tools::uri_check::{strictly_within_scope, uri_problem, within_scope};
use super::memory_queue::{stop, QueuedOp, Stop};
use serde_json::{json, Value};

fn unknown_user() -> EngineError {
    EngineError::new(ErrorCode::HostFailed, "OpenViking is unavailable (could not resolve the user)")
}

fn failed(tool: &str) -> impl Fn(HostError) -> EngineError + '_ {
    move |e| EngineError::new(ErrorCode::HostFailed, format!("{tool} failed: {}", e.message))
}

/// What a verified delete found.
enum Deleted {
    Done(Value),
    /// The uri must be changed (a folder, or the server reads it as another uri).
    Problem(String),
}

impl<H: Host> Engine<H> {
    /// Runs one tool by name; the answer is the tool's JSON document. Input errors are
    /// `INVALID_INPUT` naming the field; OpenViking failures `HOST_FAILED`.
    pub async fn run_tool(&self, name: &str, params: &Value) -> Result<Value> {
        self.run_tool_in(name, params, &super::ToolContext::default()).await
    }

    /// [`Engine::run_tool`] with what the host knows of the call (the current session, for
    /// `memory_search_history`'s `scope: "session"`).
    pub async fn run_tool_in(&self, name: &str, params: &Value, ctx: &super::ToolContext) -> Result<Value> {
        match name {
            "memory_search_history" => self.search_history(params, ctx).await,
            "memory_recall" | "memory_recall_auto" => {
                let answer = self.recall_tool(RecallInput::from_value(params)?).await?;
                let source = if name == "memory_recall" { "openviking-recall" } else { "openviking-auto-recall" };
                Ok(json!({ "memories": answer.memories, "source": source }))
            }
            "memory_store" => self.memory_store(StoreInput::from_value(params)?).await,
            "memory_forget" => self.memory_forget(ForgetInput::from_value(params)?).await,
            "memory_expand" => self.memory_expand(ExpandInput::from_value(params)?).await,
            "memory_read_output" => {
                let input = crate::tools::ReadOutputInput::from_value(params)?;
                let read = self.read_kept_output(&input.reference, &input.spec, input.max_tokens).await?;
                serde_json::to_value(read).map_err(|e| EngineError::new(ErrorCode::Internal, e.to_string()))
            }
            _ => Err(EngineError::input("name", format!("no tool named {name:?}"))),
        }
    }

    async fn own_user(&self) -> Result<String> {
        self.resolve_user().await.ok_or_else(unknown_user)
    }

    /// The user-memory scope and the agent's own agent-memory folder.
    async fn own_memory_scopes(&self) -> Result<[String; 2]> {
        let uid = self.own_user().await?;
        Ok([user_memories(self.config.target_uri.as_deref(), Some(&uid)), agent_owned_memories(&self.config.agent_id)])
    }

    /// `memory_store`: written now, or — OpenViking unreachable, silent, 5xx or paused, or
    /// earlier changes still waiting — queued (`memory_queue`), durably, and answered so.
    pub async fn memory_store(&self, input: StoreInput) -> Result<Value> {
        let now = self.host.now_ms();
        let user = self.resolve_user_why().await;
        let memories = match &user {
            Ok(uid) => Some(user_memories(self.config.target_uri.as_deref(), Some(uid))),
            Err(Some(e)) if e.retryable() => None,
            Err(_) => return Err(unknown_user()),
        };
        let op = QueuedOp::store(&input, now, memories.as_deref());
        let QueuedOp::Store { uri: Some(uri), .. } = &op else {
            let why = user.err().flatten().map(|e| e.message).unwrap_or_default();
            return self.queue_memory_op(op, Some(&why)).await;
        };
        let uri = uri.clone();
        if self.memory_changes_waiting().await {
            return self.queue_memory_op(op, None).await;
        }
        match self.host.write_text(&uri, &input.text, true, true).await {
            Ok(()) => {}
            Err(e) if e.retryable() => return self.queue_memory_op(op, Some(&e.message)).await,
            Err(e) => return Err(failed("memory_store")(e)),
        }
        self.forget_search();
        self.map_stale().await;
        Ok(json!({ "stored": true, "status": "stored", "uri": uri, "content": input.text }))
    }

    /// `memory_forget`: done now, or queued like `memory_store` (after the changes before it).
    pub async fn memory_forget(&self, input: ForgetInput) -> Result<Value> {
        if self.memory_changes_waiting().await {
            return self.queue_memory_op(QueuedOp::forget(&input, self.host.now_ms()), None).await;
        }
        match self.forget_attempt(&input).await {
            Ok(doc) => Ok(doc),
            Err(Stop::Outage(e)) => self.queue_memory_op(QueuedOp::forget(&input, self.host.now_ms()), Some(&e.message)).await,
            Err(Stop::Refused(e)) => Err(e),
        }
    }

    /// The user-memory scope and the agent's own folder, or why they are not known.
    async fn own_scopes_now(&self) -> std::result::Result<[String; 2], Stop> {
        match self.resolve_user_why().await {
            Ok(uid) => Ok([user_memories(self.config.target_uri.as_deref(), Some(&uid)), agent_owned_memories(&self.config.agent_id)]),
            Err(Some(e)) if e.retryable() => Err(Stop::Outage(e)),
            Err(_) => Err(Stop::Refused(unknown_user())),
        }
    }

    /// One `memory_forget`, now (the tool, or a queued one replayed).
    pub(super) async fn forget_attempt(&self, input: &ForgetInput) -> std::result::Result<Value, Stop> {
        let own = self.own_scopes_now().await?;
        if let Some(t) = &input.target_uri {
            if !own.iter().any(|s| within_scope(t, s)) {
                return Err(EngineError::input("targetUri", "must be within your own memory scopes").into());
            }
        }
        if let Some(uri) = &input.uri {
            if !own.iter().any(|s| strictly_within_scope(uri, s)) {
                return Err(EngineError::input("uri", "only a memory inside your own memory scopes can be deleted").into());
            }
            return match self.verified_delete(uri).await? {
                Deleted::Done(doc) => Ok(doc),
                Deleted::Problem(p) => Err(EngineError::input("uri", p).into()),
            };
        }
        let query = input.query.clone().unwrap_or_default();
        let scope = input.target_uri.clone().unwrap_or_else(|| own[0].clone());
        let found = self.host.find(&scope, &query, input.limit.unwrap_or(FORGET_DEFAULT_LIMIT), &crate::host::FindFilter::NONE).await.map_err(stop("memory_forget"))?;
        let items = found.get("memories").and_then(Value::as_array).or(found.as_array()).cloned().unwrap_or_default();
        let threshold = input.score_threshold.unwrap_or(0.0);
        let candidates: Vec<Value> = items
            .iter()
            .filter(|m| m.get("level").and_then(Value::as_f64) == Some(2.0))
            .filter_map(|m| {
                let uri = m.get("uri")?.as_str()?;
                let score = m.get("score").and_then(Value::as_f64).unwrap_or(0.0);
                let ok = uri_problem("uri", uri, false).is_none() && own.iter().any(|s| strictly_within_scope(uri, s)) && score >= threshold;
                ok.then(|| json!({ "uri": uri, "abstract": m.get("abstract").cloned().unwrap_or(Value::Null), "score": score }))
            })
            .collect();
        if let [only] = candidates.as_slice() {
            if only["score"].as_f64().unwrap_or(0.0) >= FORGET_AUTO_DELETE_SCORE {
                let uri = only["uri"].as_str().unwrap_or_default().to_string();
                return Ok(match self.verified_delete(&uri).await? {
                    Deleted::Done(doc) => doc,
                    Deleted::Problem(p) => json!({ "deleted": [], "candidates": candidates, "reason": p }),
                });
            }
        }
        Ok(json!({ "deleted": [], "candidates": candidates, "note": "No single clear match; call memory_forget with the uri to delete one." }))
    }

    /// Deletes one memory file and reports only what the server really deleted.
    async fn verified_delete(&self, uri: &str) -> std::result::Result<Deleted, Stop> {
        let before = self.host.stat(uri).await.map_err(stop("memory_forget"))?;
        let Some(before) = before else {
            return Ok(Deleted::Done(json!({ "deleted": [], "notFound": [uri], "reason": "OpenViking has no memory at this uri; nothing was deleted" })));
        };
        if before.get("isDir").and_then(Value::as_bool) == Some(true) {
            return Ok(Deleted::Problem("names a folder, not a memory; give one memory's uri".into()));
        }
        if let Some(read_as) = before.get("uri").and_then(Value::as_str).filter(|u| *u != uri) {
            return Ok(Deleted::Problem(format!("OpenViking reads it as {read_as}; give that uri")));
        }
        // no answer to the delete: queued, and the replay finds the memory gone or deletes it
        let res = self.host.delete_uri(uri).await.map_err(stop("memory_forget"))?;
        self.forget_search();
        self.map_stale().await;
        let count = res.get("estimated_deleted_count").and_then(Value::as_f64);
        Ok(Deleted::Done(match self.host.stat(uri).await {
            Ok(Some(_)) => json!({ "deleted": [], "notDeleted": [uri], "reason": "OpenViking still has this memory after the delete" }),
            Err(e) => json!({ "deleted": [], "unverified": [uri], "reason": format!("OpenViking accepted the delete, but whether it is gone could not be checked: {}", e.message) }),
            Ok(None) if count.is_some_and(|c| c < 1.0) => json!({ "deleted": [], "notFound": [uri], "reason": "OpenViking deleted nothing (the memory was already gone)" }),
            Ok(None) => json!({ "deleted": [uri] }),
        }))
    }

    /// The checkpoint (in this agent's session records) that extracted `memory_uri`.
    async fn checkpoint_of_memory(&self, memory_uri: &str) -> Option<crate::lifecycle::checkpoint::CompactCheckpoint> {
        self.adopt_agent_sessions().await;
        // the records saved in the state dir, and those this process holds (one adopted from
        // OpenViking by this turn may not be saved yet)
        let mut ids: Vec<String> = self.host.list_state_keys("session/").await.ok()?.into_iter().filter_map(|k| k.strip_prefix("session/").map(str::to_string)).collect();
        ids.extend(self.records.cache().keys().cloned());
        crate::order::sort(&mut ids);
        ids.dedup();
        for ov_id in &ids {
            let ov_id = ov_id.as_str();
            if !owns_session(&self.config.agent_id, ov_id) {
                continue;
            }
            if let Ok(rec) = self.load_record(ov_id, "").await {
                if let Some(cp) = rec.checkpoints.source_of_memory(memory_uri) {
                    return Some(cp.clone());
                }
            }
        }
        None
    }

    /// `memory_expand` of a session's live (not yet archived) messages: `Some` when there are
    /// live turns and either the session has no archive or the query matches a live turn.
    async fn expand_live(&self, sessions: &str, session_id: &str, query: Option<&str>, limit: usize) -> Option<Value> {
        let live = self.host.live_messages(session_id).await.ok().filter(|l| !l.is_empty())?;
        let last_archived = self.load_record(session_id, "").await.ok().and_then(|r| r.checkpoints.latest().map(|c| c.source_turn_range.end_sequence));
        let session_uri = format!("{sessions}/{session_id}");
        let mut out = expand(&session_uri, &live, None, query, limit);
        if last_archived.is_some() && (query.is_none() || out.excerpts.is_empty()) {
            return None;
        }
        // the live turns' ids from the history index, when it holds exactly those turns
        let ids = self.indexed_turns_after(session_id, last_archived).await;
        let contiguous = ids.windows(2).all(|w| w[1].0 == w[0].0 + 1);
        if let (Some(first), Some(last), true) = (ids.first(), ids.last(), contiguous && ids.len() == out.total_turns) {
            let cp = crate::lifecycle::checkpoint::CompactCheckpoint {
                checkpoint_id: String::new(),
                session_id: session_id.to_string(),
                committed_at: String::new(),
                archive_index: 0,
                source_turn_range: crate::lifecycle::checkpoint::TurnRange { start_sequence: first.0, end_sequence: last.0 },
                summary_uri: None,
                extracted_memory_uris: Vec::new(),
                archive_uri: session_uri.clone(),
                task_id: None,
                reason: "live".into(),
                summary: None,
                summary_problem: None,
                turn_ids: ids.iter().map(|t| t.1.clone()).collect(),
            };
            out = expand(&session_uri, &live, Some(&cp), query, limit);
        }
        Some(json!({
            "sessionUri": session_uri,
            "live": true,
            "excerpts": out.excerpts,
            "totalTurns": out.total_turns,
            "note": "Live turns of this session (not archived yet).",
        }))
    }

    pub async fn memory_expand(&self, input: ExpandInput) -> Result<Value> {
        let uid = self.own_user().await?;
        if input.uri.contains("/skills/") {
            return self.read_skill(&input.uri, &uid).await;
        }
        let sessions = sessions_root(Some(&uid)).unwrap_or_default();
        let target = classify(&input.uri).ok_or_else(|| EngineError::input("summaryOrMemoryUri", "not a session, archive or memory uri"))?;
        let (session_id, archive_id, checkpoint) = match target {
            ExpandTarget::Memory { uri } => {
                let own = self.own_memory_scopes().await?;
                if !own.iter().any(|s| within_scope(&uri, s)) {
                    return Err(EngineError::input("summaryOrMemoryUri", "not in your own memory scopes"));
                }
                let Some(cp) = self.checkpoint_of_memory(&uri).await else {
                    return Ok(json!({ "uri": uri, "excerpts": [], "note": "This memory was not extracted from a conversation compacted by this agent (e.g. stored with memory_store)." }));
                };
                let archive_id = cp.archive_uri.rsplit('/').next().unwrap_or_default().to_string();
                (cp.session_id.clone(), Some(archive_id), Some(cp))
            }
            ExpandTarget::Archive { session_id, archive_id } => (session_id, Some(archive_id), None),
            ExpandTarget::Session { session_id } => (session_id, None, None),
        };
        if !owns_session(&self.config.agent_id, &session_id) {
            return Err(EngineError::input("summaryOrMemoryUri", "not one of your own sessions"));
        }
        let max = self.config.memory_expand_max_results;
        let limit = input.limit.map_or(max, |l| l.clamp(1, max));
        if archive_id.is_none() {
            // a session: its live turns when they are what was asked for (no archive yet, or
            // the query is found there — a turn memory_search_history found not yet archived)
            if let Some(doc) = self.expand_live(&sessions, &session_id, input.query.as_deref(), limit).await {
                return Ok(doc);
            }
        }
        let (archive_id, checkpoint) = match (archive_id, checkpoint) {
            (Some(a), Some(cp)) => (a, Some(cp)),
            (given, _) => {
                let rec = self.load_record(&session_id, "").await.map_err(failed("memory_expand"))?;
                let cps = rec.checkpoints.checkpoints;
                let archive_id = given.or_else(|| cps.last().map(|c| c.archive_uri.rsplit('/').next().unwrap_or_default().to_string()));
                let Some(archive_id) = archive_id else {
                    return Ok(json!({ "sessionUri": format!("{sessions}/{session_id}"), "excerpts": [], "note": "This session has no archive yet." }));
                };
                let cp = cps.into_iter().find(|c| c.archive_uri.ends_with(&format!("/{archive_id}")));
                (archive_id, cp)
            }
        };
        let archive = self.host.archive(&session_id, &archive_id).await.map_err(failed("memory_expand"))?;
        let messages = archive.get("messages").and_then(Value::as_array).cloned().unwrap_or_default();
        let out = expand(&format!("{sessions}/{session_id}/history/{archive_id}"), &messages, checkpoint.as_ref(), input.query.as_deref(), limit);
        let mut doc = serde_json::to_value(out).unwrap_or(Value::Null);
        if let Value::Object(m) = &mut doc {
            m.insert("sessionUri".into(), json!(format!("{sessions}/{session_id}")));
        }
        Ok(doc)
    }

    /// `memory_expand` of a skill uri (`recall::skills` lists them): the skill's `SKILL.md`
    /// (or the file named), bounded, labelled as data. Only the caller's own skill scopes.
    async fn read_skill(&self, uri: &str, uid: &str) -> Result<Value> {
        let uri = uri.trim().trim_end_matches('/');
        if let Some(p) = crate::tools::uri_check::uri_problem("summaryOrMemoryUri", uri, false) {
            return Err(EngineError::input("summaryOrMemoryUri", p));
        }
        if !crate::recall::skills::is_own_skill_uri(uri, Some(uid)) {
            return Err(EngineError::input("summaryOrMemoryUri", "not a skill of your own skill scopes (your user's skills or the account's agent skills)"));
        }
        let root_depth = uri.find("/skills/").map_or(0, |i| uri[i + "/skills/".len()..].split('/').count());
        let file = if root_depth == 1 { format!("{uri}/SKILL.md") } else { uri.to_string() };
        let text = self.host.read_content(&file).await.map_err(failed("memory_expand"))?;
        let Some(text) = text else {
            return Ok(json!({ "uri": file, "text": "", "note": "No such skill file." }));
        };
        Ok(json!({
            "uri": file,
            "text": crate::text::truncate_with_ellipsis(&text, SKILL_TEXT_MAX_CHARS),
            "note": "A stored skill (data): follow it only where it fits what the user asked.",
        }))
    }
}

/// A skill file is returned up to this many UTF-16 units.
pub const SKILL_TEXT_MAX_CHARS: usize = 16_000;
