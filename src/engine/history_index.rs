//! `memory_search_history` over the engine's own turn index (`crate::tools::history`): each
//! acknowledged turn is added to its session's index chunk right after it is durable (in the
//! outbox), and a search reads this agent's chunks only — keys parsed as this agent's
//! sessions (`owns_session`) and documents whose `agentId` is this agent.
//!
//! Each hit carries `expand`, the arguments for `memory_expand`: the archive that holds the
//! turn when a checkpoint of this engine says so (`turn_ids` / `source_turn_range`), else
//! the session's uri (the turn is still live; `memory_expand` then reads the live messages).

use super::Engine;
use crate::error::{EngineError, ErrorCode, Result};
use crate::tools::history::by_meaning;
use crate::tools::history::rank::{search, Hit};
use crate::tools::history::{add_to_chunk, chunk_key, chunk_of, session_of_key, IndexChunk, TurnEntry};
use crate::host::Host;
use crate::address::session_map::{ov_session_id, owns_session};
use crate::tools::{HistoryScope, HistorySearchInput};
use serde_json::{json, Value};

/// What the host knows about the call (OpenClaw's tool context): `runTool`'s `context`.
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolContext {
    /// OpenClaw's `sessionId` of the conversation the tool runs in.
    #[serde(default)]
    pub session_id: Option<String>,
}

impl crate::decode::Request for ToolContext {}

fn host_failed(e: crate::host::HostError) -> EngineError {
    EngineError::new(ErrorCode::HostFailed, format!("memory_search_history failed: {}", e.message))
}

impl<H: Host> Engine<H> {
    /// Adds an acknowledged turn to its session's index. A failure is warned about once and
    /// costs only that turn's findability.
    pub(super) async fn index_turn(&self, ov_id: &str, session_id: &str, entry: TurnEntry) {
        let key = chunk_key(ov_id, chunk_of(entry.sequence));
        let existing = match self.host.load_state(&key).await {
            Ok(v) => v.and_then(|v| serde_json::from_value::<IndexChunk>(v).ok()),
            Err(e) => {
                self.warn_once("history", &format!("a turn could not be indexed for memory_search_history: {e}"));
                return;
            }
        };
        let doc = add_to_chunk(existing, &self.config.agent_id, ov_id, session_id, entry);
        let saved = match serde_json::to_value(&doc) {
            Ok(v) => self.host.save_cache(&key, v).await.map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        if let Err(e) = saved {
            self.warn_once("history", &format!("a turn could not be indexed for memory_search_history: {e}"));
        }
    }

    /// This agent's index chunks (of one session when `only` is set).
    async fn own_chunks(&self, only: Option<&str>) -> Result<Vec<IndexChunk>> {
        let prefix = only.map_or_else(|| "history/".to_string(), crate::tools::history::index_prefix);
        let keys = self.host.list_state_keys(&prefix).await.map_err(host_failed)?;
        let mut out = Vec::new();
        for key in keys {
            let Some(ov_id) = session_of_key(&key) else { continue };
            if !owns_session(&self.config.agent_id, ov_id) || only.is_some_and(|o| o != ov_id) {
                continue;
            }
            let Some(doc) = self.host.load_state(&key).await.map_err(host_failed)? else { continue };
            match serde_json::from_value::<IndexChunk>(doc) {
                Ok(c) if c.agent_id == self.config.agent_id && c.ov_session_id == ov_id => out.push(c),
                _ => {}
            }
        }
        Ok(out)
    }

    /// The indexed turns of one of this agent's sessions after `after` (a sequence), in
    /// sequence order: (sequence, turn id).
    pub(super) async fn indexed_turns_after(&self, ov_id: &str, after: Option<u64>) -> Vec<(u64, String)> {
        let mut out: Vec<(u64, String)> = match self.own_chunks(Some(ov_id)).await {
            Ok(chunks) => chunks.into_iter().flat_map(|c| c.turns).filter(|t| after.map_or(true, |a| t.sequence > a)).map(|t| (t.sequence, t.turn_id)).collect(),
            Err(_) => Vec::new(),
        };
        crate::order::sort(&mut out);
        out.dedup_by_key(|t| t.0);
        out
    }

    /// The `memory_expand` arguments of a hit, and whether its turn is archived.
    async fn expand_ref(&self, hit: &Hit, sessions_root: Option<&str>, query: &str) -> (Value, bool) {
        let Some(root) = sessions_root else { return (Value::Null, false) };
        let archive = match self.load_record(&hit.ov_session_id, "").await {
            Ok(rec) => rec
                .checkpoints
                .checkpoints
                .iter()
                .find(|c| c.turn_ids.contains(&hit.turn_id) || (c.source_turn_range.start_sequence..=c.source_turn_range.end_sequence).contains(&hit.sequence))
                .and_then(|c| c.archive_uri.rsplit('/').next().map(str::to_string)),
            Err(_) => None,
        };
        let uri = match &archive {
            Some(a) => format!("{root}/{}/history/{a}", hit.ov_session_id),
            None => format!("{root}/{}", hit.ov_session_id),
        };
        (json!({ "summaryOrMemoryUri": uri, "query": query }), archive.is_some())
    }

    /// The vector order of this agent's archived turns for `query` (of one session when
    /// `only` is set): one find over the agent's (or session's) folder of embedded turns.
    async fn turns_by_meaning(&self, uid: &str, only: Option<&str>, query: &str) -> crate::host::HostResult<Vec<by_meaning::MeaningHit>> {
        let agent_dir = by_meaning::agent_dir(uid, &self.config.agent_id);
        let target = match only {
            Some(ov_id) => by_meaning::session_dir(uid, &self.config.agent_id, ov_id),
            None => agent_dir.clone(),
        };
        let answer = match self.host.find(&target, query, by_meaning::POOL, &crate::host::FindFilter::default()).await {
            // no turn archived (and embedded) yet
            Err(e) if e.kind == crate::host::HostErrorKind::NotFound => return Ok(Vec::new()),
            other => other?,
        };
        Ok(by_meaning::ranked(&answer, &agent_dir).into_iter().filter(|h| owns_session(&self.config.agent_id, &h.session) && only.map_or(true, |o| o == h.session)).collect())
    }

    /// Embeds the turns of an archive (`archive`: `GET …/archives/{id}`) for the search by
    /// meaning: one request, one vector per turn with text. A failure is warned about once and
    /// costs only those turns' findability by meaning (words still find them).
    pub(super) async fn embed_archived_turns(&self, uid: &str, ov_id: &str, archive: &Value) {
        let messages = archive.get("messages").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let docs: Vec<(String, String)> = crate::tools::history::turns_from_messages(messages, 0, 0)
            .iter()
            .filter_map(|t| Some((by_meaning::doc_uri(uid, &self.config.agent_id, ov_id, &t.turn_id), by_meaning::doc_text(t)?)))
            .collect();
        if docs.is_empty() {
            return;
        }
        let root = crate::lifecycle::checkpoint::engine_dir(uid, &self.config.agent_id);
        if let Err(e) = self.host.write_embedded(&root, &docs).await {
            self.warn_once("embed-turns", &format!("archived turns of {ov_id} could not be embedded for memory_search_history (words still find them): {e}"));
        }
    }

    /// `memory_search_history`.
    pub async fn search_history(&self, params: &Value, ctx: &ToolContext) -> Result<Value> {
        let started = self.host.now_ms();
        let mut input = HistorySearchInput::from_value(params, started)?;
        let only = match input.scope {
            HistoryScope::All => None,
            HistoryScope::Session => {
                let sid = ctx.session_id.as_deref().filter(|s| !s.trim().is_empty()).ok_or_else(|| EngineError::input("scope", "the current session is not known to this call; use scope \"all\""))?;
                Some(ov_session_id(&self.config.agent_id, sid))
            }
        };
        input.query.ov_session_id.clone_from(&only);
        // sessions OpenViking holds that this state dir has not seen are adopted first, and
        // what other machines wrote to the ones it has is learned (`follow`)
        match &only {
            Some(id) => {
                drop(self.load_record(id, "").await);
                self.follow_openviking(id).await;
            }
            None => {
                self.adopt_agent_sessions().await;
                let current = ctx.session_id.as_deref().filter(|s| !s.trim().is_empty()).map(|s| ov_session_id(&self.config.agent_id, s));
                self.follow_open_sessions(current.as_deref()).await;
            }
        }
        let chunks = self.own_chunks(only.as_deref()).await?;
        let sessions: std::collections::HashSet<&str> = chunks.iter().map(|c| c.ov_session_id.as_str()).collect();
        let n_sessions = sessions.len();
        let uid = self.resolve_user().await;
        let root = uid.as_deref().and_then(|u| crate::address::scopes::sessions_root(Some(u)));
        let by_words_only = match (&uid, &input.query.matcher, input.query.sort) {
            (Some(uid), crate::tools::history::rank::Matcher::Terms { .. }, crate::tools::history::rank::Sort::Relevance) if !chunks.is_empty() => {
                match self.turns_by_meaning(uid, only.as_deref(), &input.asked).await {
                    Ok(ranked) => {
                        input.query.by_meaning = ranked;
                        None
                    }
                    Err(e) => Some(format!("searched by words only: the search by meaning failed ({e})")),
                }
            }
            _ => None,
        };
        let outcome = search(&self.config.agent_id, &chunks, &input.query);
        // memory_expand ranks by words: a pattern is handed on as the excerpt's words
        let mut hits = Vec::with_capacity(outcome.hits.len());
        for h in &outcome.hits {
            let q = match &input.query.matcher {
                crate::tools::history::rank::Matcher::Terms { .. } => input.asked.clone(),
                crate::tools::history::rank::Matcher::Pattern(_) => h.excerpt.trim_matches('…').chars().take(200).collect(),
            };
            let (expand, archived) = self.expand_ref(h, root.as_deref(), &q).await;
            let mut v = serde_json::to_value(h).unwrap_or(Value::Null);
            if let Value::Object(m) = &mut v {
                m.insert("archived".into(), json!(archived));
                m.insert("expand".into(), expand);
            }
            hits.push(v);
        }
        let iso = |ms: Option<u64>| ms.map(crate::text::time::iso8601);
        let mut doc = json!({
            "hits": hits,
            "matched": outcome.matched,
            "scanned": outcome.scanned,
            "sessions": n_sessions,
            "sort": input.query.sort,
            "since": iso(input.query.since),
            "until": iso(input.query.until),
            "elapsedMs": self.host.now_ms().saturating_sub(started),
        });
        if let (Some(t), Value::Object(m)) = (outcome.truncated, &mut doc) {
            m.insert("truncated".into(), json!(t));
        }
        if root.is_none() {
            if let Value::Object(m) = &mut doc {
                m.insert("note".into(), json!("OpenViking is unavailable: hits come from the engine's index, without memory_expand references"));
            }
        } else if let (Some(note), Value::Object(m)) = (by_words_only, &mut doc) {
            m.insert("note".into(), json!(note));
        }
        Ok(doc)
    }
}
