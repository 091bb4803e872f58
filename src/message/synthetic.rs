//! The synthetic `memory_recall_auto` pair that carries automatic recall to the model: an
//! assistant tool call followed by its tool result, placed right before the current user
//! turn, and opened by a one-line user message ([`RECALL_OPENING`]) so the call always
//! follows a user turn: Anthropic's and Bedrock's Messages APIs refuse a conversation that
//! starts with an assistant message (a new session has nothing before the pair), and Gemini
//! refuses a function call that follows neither a user turn nor a function response.
//!
//! The result text is compact ([`recall_text`]): one line per memory, `- ` + its text with
//! every run of whitespace (line breaks included) collapsed to one space — so a memory can
//! never open a line of its own or forge another entry — and nothing else: no uri, category
//! or score, no header (the explicit `memory_recall` tool lists uris, for `memory_forget` and
//! `memory_expand`). That it is stored data and not instructions is said once per request,
//! in the `memory_recall_auto` tool's description (`tools::tool_definitions`), not in every
//! recall. The call's arguments are empty: the query is the user's own recent turns, which
//! the conversation already holds.
//! Earlier releases put a JSON document there (`{"memories":[…],"source":…}`,
//! [`recall_document`], still what the hook fallback block carries); such pairs in stored
//! sessions are recognised and removed by the same id rule, whatever their text.
//!
//! Injection is idempotent: every earlier synthetic pair (recognised by the fixed id prefix)
//! is removed before the new one is inserted, so assembling the same turn twice, or once per
//! tool-loop call, never stacks pairs.

use crate::message::{role, text_of};
use serde::Serialize;
use serde_json::{json, Value};

pub const RECALL_AUTO_TOOL: &str = "memory_recall_auto";
/// Prefix of synthetic tool-call ids. Letters only, so providers that strip `_` or `-` from
/// ids on the wire leave it recognisable.
pub const SYNTHETIC_ID_PREFIX: &str = "ovrecall";
pub const AUTO_RECALL_SOURCE: &str = "openviking-auto-recall";
pub const EXPLICIT_RECALL_SOURCE: &str = "openviking-recall";
/// The text of the user message that opens the pair (recognised as ours by exact text).
pub const RECALL_OPENING: &str = "[memory_recall_auto]";
/// The opening's text in earlier releases: still recognised (stored sessions hold it).
pub const RECALL_OPENING_BEFORE: &str = "[memory_recall_auto: what OpenViking holds for my next message]";

/// The user message that opens the pair.
pub fn recall_opening(now_ms: u64) -> Value {
    json!({"role": "user", "content": [{"type": "text", "text": RECALL_OPENING}], "timestamp": now_ms})
}

fn is_opening_text(t: &str) -> bool {
    t == RECALL_OPENING || t == RECALL_OPENING_BEFORE
}

fn is_recall_opening(m: &Value) -> bool {
    match m.get("content") {
        Some(Value::String(t)) => is_opening_text(t),
        Some(Value::Array(parts)) => {
            parts.len() == 1
                && parts[0].get("type").and_then(Value::as_str) == Some("text")
                && parts[0].get("text").and_then(Value::as_str).is_some_and(is_opening_text)
        }
        _ => false,
    }
}

/// One memory as the model sees it.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
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

/// The JSON document `{"memories":[{uri,category,content,score}],"source":…}`: what the
/// hook fallback block carries, and what the pair's result carried before [`recall_text`].
pub fn recall_document(memories: &[RecalledMemory], source: &str) -> String {
    serde_json::to_string(&RecallDocument { memories, source }).unwrap_or_else(|_| "{\"memories\":[]}".into())
}

/// A memory's line in the tool result, without its line break: `- ` + the text with every
/// run of whitespace collapsed to one space.
pub fn recall_line(m: &RecalledMemory) -> String {
    let mut line = String::with_capacity(m.content.len() + 2);
    line.push_str("- ");
    line.push_str(&crate::text::collapse_whitespace(&m.content));
    line
}

/// The pair's tool-result text: one [`recall_line`] per memory, joined by line breaks.
pub fn recall_text(memories: &[RecalledMemory]) -> String {
    let mut out = String::new();
    for m in memories {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&recall_line(m));
    }
    out
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
    [recall_call(query, &id, now_ms), recall_result(&id, &recall_text(memories), now_ms)]
}

/// The pair's assistant tool call. Its arguments are empty: the query is the user's own
/// recent turns, already in the conversation (earlier releases repeated it here, up to 1000
/// characters); `query` is only part of the id.
pub fn recall_call(_query: &str, id: &str, now_ms: u64) -> Value {
    json!({
        "role": "assistant",
        "content": [{"type": "toolCall", "id": id, "name": RECALL_AUTO_TOOL, "arguments": {}}],
        "api": "openviking-context-engine",
        "provider": "openviking",
        "model": "memory-recall",
        "usage": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0,
                  "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
        "stopReason": "toolUse",
        "timestamp": now_ms,
    })
}

/// `estimate_message_tokens(&recall_call(query, id, now_ms))`, without building the message:
/// its framing and its one tool call — the name and the empty arguments `{}` — whatever the
/// query, id or time.
pub fn recall_call_tokens() -> usize {
    use crate::text::tokens::{estimate_tokens, MESSAGE_OVERHEAD_TOKENS};
    MESSAGE_OVERHEAD_TOKENS + estimate_tokens(RECALL_AUTO_TOOL) + estimate_tokens("{}") + 3
}

/// `estimate_message_tokens(&recall_result(id, document, now_ms))`, without building the
/// message: its framing and its one text part (the id and the other fields are not counted).
pub fn recall_result_tokens(document: &str) -> usize {
    crate::text::tokens::MESSAGE_OVERHEAD_TOKENS + crate::text::tokens::estimate_tokens(document)
}

/// The pair's tool result, carrying `document` ([`recall_text`]).
pub fn recall_result(id: &str, document: &str, now_ms: u64) -> Value {
    json!({
        "role": "toolResult",
        "toolCallId": id,
        "toolName": RECALL_AUTO_TOOL,
        "content": [{"type": "text", "text": document}],
        "isError": false,
        "timestamp": now_ms,
    })
}

fn is_synthetic_id(id: &str) -> bool {
    id.starts_with(SYNTHETIC_ID_PREFIX)
}

/// The one rule for "ours": a tool call or tool result is part of a synthetic recall pair
/// when its id starts with the prefix *and* it names `memory_recall_auto`. Anything else with
/// an `ovrecall…` id is the host's and is kept — call and result together.
fn is_ours(id: Option<&str>, name: Option<&str>) -> bool {
    id.is_some_and(is_synthetic_id) && name == Some(RECALL_AUTO_TOOL)
}

fn is_synthetic_call_part(p: &Value) -> bool {
    p.get("type").and_then(Value::as_str) == Some("toolCall")
        && is_ours(p.get("id").and_then(Value::as_str), p.get("name").and_then(Value::as_str))
}

fn is_synthetic_result(m: &Value) -> bool {
    role(m) == Some("toolResult") && is_ours(m.get("toolCallId").and_then(Value::as_str), m.get("toolName").and_then(Value::as_str))
}

/// Is `m` (part of) a synthetic recall pair, or the message that opens one?
pub fn is_synthetic(m: &Value) -> bool {
    match role(m) {
        Some("toolResult") => is_synthetic_result(m),
        Some("user") => is_recall_opening(m),
        Some("assistant") => match m.get("content") {
            Some(Value::Array(parts)) => parts.iter().any(is_synthetic_call_part),
            _ => false,
        },
        _ => false,
    }
}

/// The user message opening a recall pair ([`RECALL_OPENING`] or [`RECALL_OPENING_BEFORE`]).
pub fn is_pair_opening(m: &Value) -> bool {
    role(m) == Some("user") && is_recall_opening(m)
}

/// Removes every synthetic recall call and result, pairs together: a result goes when it is
/// ours by the rule above or answers a call removed here (a host that dropped `toolName`).
/// An assistant message that also carried other content keeps that content.
pub fn strip_synthetic(messages: Vec<Value>) -> Vec<Value> {
    let keep = synthetic_plan(&messages);
    messages.into_iter().zip(keep).filter_map(|(m, k)| k.apply(m)).collect()
}

/// Like [`strip_synthetic`], by reference: the remaining messages with their indices in
/// `messages` (for errors that name the host's index).
pub fn without_synthetic(messages: &[Value]) -> Vec<(usize, std::borrow::Cow<'_, Value>)> {
    let keep = synthetic_plan(messages);
    messages
        .iter()
        .zip(keep)
        .enumerate()
        .filter_map(|(i, (m, k))| match k {
            Keep::Whole => Some((i, std::borrow::Cow::Borrowed(m))),
            Keep::Drop => None,
            Keep::WithoutOurCalls => Keep::WithoutOurCalls.apply(m.clone()).map(|m| (i, std::borrow::Cow::Owned(m))),
        })
        .collect()
}

#[derive(Clone, Copy)]
enum Keep {
    Whole,
    Drop,
    WithoutOurCalls,
}

impl Keep {
    fn apply(self, mut m: Value) -> Option<Value> {
        match self {
            Keep::Whole => Some(m),
            Keep::Drop => None,
            Keep::WithoutOurCalls => {
                if let Some(Value::Array(parts)) = m.get_mut("content") {
                    parts.retain(|p| !is_synthetic_call_part(p));
                    if parts.is_empty() {
                        return None;
                    }
                }
                Some(m)
            }
        }
    }
}

/// What becomes of each message when the synthetic pairs are removed.
fn synthetic_plan(messages: &[Value]) -> Vec<Keep> {
    let (mut removed_calls, mut kept_calls) = (Vec::new(), Vec::new());
    for p in messages.iter().filter(|m| role(m) == Some("assistant")).filter_map(|m| m.get("content").and_then(Value::as_array)).flatten() {
        if p.get("type").and_then(Value::as_str) != Some("toolCall") {
            continue;
        }
        let id = p.get("id").and_then(Value::as_str).unwrap_or("");
        if is_synthetic_call_part(p) { removed_calls.push(id) } else { kept_calls.push(id) }
    }
    // sorted, so each result's lookup is a binary search (a scan per result was quadratic in
    // a long session's tool calls)
    crate::order::sort(&mut removed_calls);
    crate::order::sort(&mut kept_calls);
    messages
        .iter()
        .map(|m| {
            if role(m) == Some("toolResult") {
                let id = m.get("toolCallId").and_then(Value::as_str).unwrap_or("");
                let answers_removed = removed_calls.binary_search(&id).is_ok();
                let answers_kept = kept_calls.binary_search(&id).is_ok();
                // a result goes with its call: never orphan a call that stays
                return if answers_removed || (is_synthetic_result(m) && !answers_kept) { Keep::Drop } else { Keep::Whole };
            }
            if role(m) == Some("user") && is_recall_opening(m) {
                Keep::Drop
            } else if is_synthetic(m) {
                Keep::WithoutOurCalls
            } else {
                Keep::Whole
            }
        })
        .collect()
}

/// Index of the current user turn: the last `user` message.
fn current_user_index(messages: &[Value]) -> Option<usize> {
    messages.iter().rposition(|m| role(m) == Some("user"))
}

/// Removes earlier synthetic pairs, then inserts `pair` (after its opening message) right
/// before the current user turn.
/// When the host passes the current input separately (`prompt`, OpenClaw 2026.9.x) the
/// messages are the prior turns and the pair goes at the end, right before the prompt the
/// host appends. `None` only removes.
pub fn inject_recall(messages: Vec<Value>, pair: Option<[Value; 2]>, prompt_is_separate: bool) -> Vec<Value> {
    let mut out = strip_synthetic(messages);
    if let Some([call, result]) = pair {
        let at = if prompt_is_separate { out.len() } else { current_user_index(&out).unwrap_or(out.len()) };
        let now = call.get("timestamp").and_then(Value::as_u64).unwrap_or(0);
        out.insert(at, result);
        out.insert(at, call);
        out.insert(at, recall_opening(now));
    }
    out
}

/// Marks the engine's summary message, so a later assemble (or a capture) recognises it.
pub const SUMMARY_MARKER: &str = "<conversation-summary";

/// The engine's summary message (a user message opening with [`SUMMARY_MARKER`]).
pub fn is_summary_message(m: &Value) -> bool {
    role(m) == Some("user") && text_of(m).trim_start().starts_with(SUMMARY_MARKER)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    fn call(id: &str, name: &str) -> Value {
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": name, "arguments": {}}]})
    }
    fn result(id: &str, name: Option<&str>) -> Value {
        let mut r = json!({"role": "toolResult", "toolCallId": id, "content": [{"type": "text", "text": "x"}]});
        if let Some(n) = name {
            r["toolName"] = json!(n);
        }
        r
    }

    #[test]
    fn the_result_tokens_are_the_result_messages_tokens() {
        use crate::message::estimate_message_tokens;
        for (query, memories) in [("", vec![]), ("what pool size?", vec![RecalledMemory { uri: "viking://u".into(), category: "events".into(), content: "x".into(), score: 0.5 }])] {
            let id = synthetic_id(query, &memories);
            for now in [0, 1_764_000_000_000] {
                assert_eq!(recall_call_tokens(), estimate_message_tokens(&recall_call(query, &id, now)));
            }
        }
        for doc in ["", "- a", "- Postgres pool size is 20\n- 用户偏好在凌晨执行数据库变更", "- x  y\n\n  - z 12,345 ok!", &"- long line with words ".repeat(90)] {
            for id in ["", "ovrecall_0123456789abcdef"] {
                assert_eq!(recall_result_tokens(doc), estimate_message_tokens(&recall_result(id, doc, 1_764_000_000_000)), "{doc:?}");
            }
        }
    }

    #[test]
    fn a_host_pair_with_a_look_alike_id_is_kept_whole() {
        let msgs = vec![call("ovrecall1234", "exec"), result("ovrecall1234", Some("exec"))];
        assert_eq!(strip_synthetic(msgs.clone()), msgs, "neither the call nor the result is ours");
    }

    #[test]
    fn our_pair_goes_together_even_when_the_result_lost_its_tool_name() {
        let user = json!({"role": "user", "content": "hi"});
        let msgs = vec![call("ovrecallabcd", RECALL_AUTO_TOOL), result("ovrecallabcd", None), user.clone()];
        assert_eq!(strip_synthetic(msgs), vec![user.clone()]);
        let orphan = vec![result("ovrecallffff", Some(RECALL_AUTO_TOOL)), user.clone()];
        assert_eq!(strip_synthetic(orphan), vec![user]);
    }

    #[test]
    fn every_call_left_has_its_result_and_every_result_its_call() {
        let cases = [("ovrecall1", RECALL_AUTO_TOOL), ("ovrecall2", "exec"), ("call_3", RECALL_AUTO_TOOL), ("call_4", "exec")];
        for (id, name) in cases {
            for result_name in [Some(name), None, Some(RECALL_AUTO_TOOL), Some("exec")] {
                let out = strip_synthetic(vec![call(id, name), result(id, result_name)]);
                let calls = out.iter().filter(|m| role(m) == Some("assistant")).count();
                let results = out.iter().filter(|m| role(m) == Some("toolResult")).count();
                assert!(calls == results || (calls == 1 && result_name != Some(name) && results == 1), "{id} {name} {result_name:?}: {out:?}");
                assert!(!(calls == 1 && results == 0), "orphaned call for {id} {name} {result_name:?}");
            }
        }
    }
}
