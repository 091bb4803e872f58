//! `compact()`: the host asks for a smaller context; the engine answers with a forced
//! OpenViking commit (archive + summary + memory extraction), followed for a while to its
//! [`CompactCheckpoint`](crate::lifecycle::checkpoint::CompactCheckpoint), in the host's result shape.

use super::Engine;
use crate::host::{Host, HostResult};
use crate::address::session_map::ov_session_id;
use crate::text::tokens::estimate_tokens;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The longest `compact()` follows the commit task before answering (the task goes on).
/// `compact({sessionId, currentTokenCount?})`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactCall {
    pub session_id: String,
    #[serde(default, deserialize_with = "crate::decode::count")]
    pub current_token_count: Option<u64>,
}

impl crate::decode::Request for CompactCall {
    fn check(&self) -> crate::error::Result<()> {
        super::read::non_empty_session_id(&self.session_id)
    }
}

/// `runCommit({ovSessionId, forced?, reason?, waitMs?})`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommitCall {
    pub ov_session_id: String,
    #[serde(default, deserialize_with = "crate::decode::or_default")]
    pub forced: bool,
    /// Why (a trigger's reason); `"compact()"` when forced, `"trigger"` otherwise.
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default, deserialize_with = "crate::decode::count")]
    pub wait_ms: Option<u64>,
}

impl crate::decode::Request for CommitCall {}

/// The `before_prompt_build` fallback's `{sessionId?, prompt?, messages?}`; messages that are
/// not objects are left out (the hook sees whatever the host has).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookCall {
    #[serde(default)]
    pub session_id: Option<String>,
    #[serde(default)]
    pub prompt: Option<String>,
    #[serde(skip)]
    pub messages: Vec<Value>,
}

impl crate::decode::Request for HookCall {
    const JSON_FIELDS: &'static [&'static str] = &["messages"];

    fn set_json(&mut self, _field: &str, value: Value) -> crate::error::Result<()> {
        match value {
            Value::Array(ms) => self.messages = ms.into_iter().filter(Value::is_object).collect(),
            other => return Err(crate::error::EngineError::input("messages", format!("expected an array, got {}", crate::decode::fields::describe(&other)))),
        }
        Ok(())
    }
}

pub const COMPACT_WAIT_MAX_MS: u64 = 120_000;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct CompactResult {
    pub summary: String,
    pub tokens_before: u64,
    pub tokens_after: u64,
    #[cfg_attr(feature = "typescript", ts(type = "{ checkpoint: CompactCheckpoint | null; taskPending: boolean }"))]
    pub details: Value,
}

/// What `compact()` answers the host.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct CompactAnswer {
    pub ok: bool,
    pub compacted: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "typescript", ts(inline))]
    #[cfg_attr(feature = "typescript", ts(optional))]
    pub result: Option<CompactResult>,
}

impl<H: Host> Engine<H> {
    /// `compact({sessionId, currentTokenCount?})`: waits up to 4 × `timeoutMs` (at most
    /// [`COMPACT_WAIT_MAX_MS`]) for the summary.
    pub async fn compact(&self, session_id: &str, current_tokens: Option<u64>) -> HostResult<CompactAnswer> {
        let ov_id = ov_session_id(&self.config.agent_id, session_id);
        let before = self.last_assembled(&ov_id).map(|l| l.estimated_tokens).or(current_tokens).unwrap_or(0);
        let wait = self.config.timeout_ms.saturating_mul(4).min(COMPACT_WAIT_MAX_MS);
        let until = self.host.now_ms().saturating_add(wait);
        let out = self.run_commit(&ov_id, true, "compact()", Some(until)).await?;
        if !out.compacted {
            return Ok(CompactAnswer { ok: true, compacted: false, reason: Some(out.reason.unwrap_or_else(|| "nothing to compact".into())), result: None });
        }
        let summary = out.checkpoint.as_ref().and_then(|c| c.summary.clone()).unwrap_or_default();
        let details = serde_json::json!({ "checkpoint": out.checkpoint, "taskPending": out.task_pending });
        Ok(CompactAnswer {
            ok: true,
            compacted: true,
            reason: out.task_pending.then(|| "archived; the summary is still being written".to_string()),
            result: Some(CompactResult { tokens_after: estimate_tokens(&summary) as u64, summary, tokens_before: before, details }),
        })
    }
}
