//! The synthetic `memory_recall_auto` pair that carries automatic recall to the model: an
//! assistant tool call followed by its tool result, placed right before the current user
//! turn. The result text is one JSON document — memory text is data inside JSON strings,
//! never loose prompt text — in the same shape the explicit `memory_recall` tool returns.
//!
//! Injection is idempotent: every earlier synthetic pair (recognised by the fixed id prefix)
//! is removed before the new one is inserted, so assembling the same turn twice, or once per
//! tool-loop call, never stacks pairs.

use crate::messages::role;
use serde::Serialize;
use serde_json::{json, Value};

pub const RECALL_AUTO_TOOL: &str = "memory_recall_auto";
/// Prefix of synthetic tool-call ids. Letters only, so providers that strip `_` or `-` from
/// ids on the wire leave it recognisable.
pub const SYNTHETIC_ID_PREFIX: &str = "ovrecall";
pub const AUTO_RECALL_SOURCE: &str = "openviking-auto-recall";
pub const EXPLICIT_RECALL_SOURCE: &str = "openviking-recall";

/// One memory as the model sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecalledMemory {
    pub uri: String,
    pub category: String,
    pub content: String,
    pub score: f64,
}

#[derive(Serialize)]
struct RecallDocument<'a> {
    memories: &'a [RecalledMemory],
    source: &'a str,
}

/// The tool-result text: `{"memories":[{uri,category,content,score}],"source":…}`.
pub fn recall_document(memories: &[RecalledMemory], source: &str) -> String {
    serde_json::to_string(&RecallDocument { memories, source }).unwrap_or_else(|_| "{\"memories\":[]}".into())
}

/// FNV-1a 64 — a stable, dependency-free hash for deterministic ids.
fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain(std::iter::once(0xff)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// A deterministic id for the pair: same query and memories → same id, which keeps the
/// prompt stable across re-assemblies of one turn. Matches `[A-Za-z0-9_-]{1,64}`.
pub fn synthetic_id(query: &str, memories: &[RecalledMemory]) -> String {
    let mut parts: Vec<&str> = vec![query];
    parts.extend(memories.iter().map(|m| m.uri.as_str()));
    format!("{SYNTHETIC_ID_PREFIX}{:016x}", fnv1a(&parts))
}

/// Builds the assistant tool call + tool result for the given recall.
pub fn recall_pair(query: &str, memories: &[RecalledMemory], now_ms: u64) -> [Value; 2] {
    let id = synthetic_id(query, memories);
    let call = json!({
        "role": "assistant",
        "content": [{"type": "toolCall", "id": id, "name": RECALL_AUTO_TOOL, "arguments": {"query": query}}],
        "api": "openviking-context-engine",
        "provider": "openviking",
        "model": "memory-recall",
        "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "stopReason": "toolUse",
        "timestamp": now_ms,
    });
    let result = json!({
        "role": "toolResult",
        "toolCallId": id,
        "toolName": RECALL_AUTO_TOOL,
        "content": [{"type": "text", "text": recall_document(memories, AUTO_RECALL_SOURCE)}],
        "isError": false,
        "timestamp": now_ms,
    });
    [call, result]
}

fn is_synthetic_id(id: &str) -> bool {
    id.starts_with(SYNTHETIC_ID_PREFIX)
}

fn is_synthetic_call_part(p: &Value) -> bool {
    p.get("type").and_then(Value::as_str) == Some("toolCall")
        && p.get("name").and_then(Value::as_str) == Some(RECALL_AUTO_TOOL)
        && p.get("id").and_then(Value::as_str).is_some_and(is_synthetic_id)
}

/// Is `m` (part of) a synthetic recall pair?
pub fn is_synthetic(m: &Value) -> bool {
    match role(m) {
        Some("toolResult") => m.get("toolCallId").and_then(Value::as_str).is_some_and(is_synthetic_id),
        Some("assistant") => match m.get("content") {
            Some(Value::Array(parts)) => parts.iter().any(is_synthetic_call_part),
            _ => false,
        },
        _ => false,
    }
}

/// Removes every synthetic recall call and result. An assistant message that also carried
/// other content keeps that content.
pub fn strip_synthetic(messages: Vec<Value>) -> Vec<Value> {
    let mut out = Vec::with_capacity(messages.len());
    for mut m in messages {
        if !is_synthetic(&m) {
            out.push(m);
            continue;
        }
        if role(&m) == Some("assistant") {
            if let Some(Value::Array(parts)) = m.get_mut("content") {
                parts.retain(|p| !is_synthetic_call_part(p));
                if !parts.is_empty() {
                    out.push(m);
                }
            }
        }
    }
    out
}

/// Index of the current user turn: the last `user` message.
fn current_user_index(messages: &[Value]) -> Option<usize> {
    messages.iter().rposition(|m| role(m) == Some("user"))
}

/// Removes earlier synthetic pairs, then inserts `pair` right before the current user turn.
/// When the host passes the current input separately (`prompt`, OpenClaw 2026.9.x) the
/// messages are the prior turns and the pair goes at the end, right before the prompt the
/// host appends. `None` only removes.
pub fn inject_recall(messages: Vec<Value>, pair: Option<[Value; 2]>, prompt_is_separate: bool) -> Vec<Value> {
    let mut out = strip_synthetic(messages);
    if let Some([call, result]) = pair {
        let at = if prompt_is_separate { out.len() } else { current_user_index(&out).unwrap_or(out.len()) };
        out.insert(at, result);
        out.insert(at, call);
    }
    out
}
