//! Reading an OpenClaw `AgentMessage`, handled as a JSON value so that every field the host sends
//! survives untouched when messages are handed back.
//!
//! - user: `{role:"user", content: string | [{type:"text",text} | {type:"image",…}], timestamp}`
//! - assistant: `{role:"assistant", content:[{type:"text"} | {type:"thinking"} |
//!   {type:"toolCall", id, name, arguments}], stopReason, …}`
//! - tool result: `{role:"toolResult", toolCallId, toolName, content:[{type:"text",text}], isError}`

use crate::text::tokens::{estimate_tokens, MESSAGE_OVERHEAD_TOKENS};
use serde_json::Value;

pub fn role(m: &Value) -> Option<&str> {
    m.get("role").and_then(Value::as_str)
}

/// The text parts of a message's `content`, joined by newlines (images, thinking and tool
/// calls left out).
pub fn text_of(m: &Value) -> String {
    match m.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => {
            let mut out = String::new();
            for p in parts {
                if p.get("type").and_then(Value::as_str) == Some("text") {
                    if let Some(t) = p.get("text").and_then(Value::as_str) {
                        if !out.is_empty() {
                            out.push('\n');
                        }
                        out.push_str(t);
                    }
                }
            }
            out
        }
        _ => String::new(),
    }
}

/// Estimated tokens of one message as a model would receive it: its text, tool calls (name +
/// arguments), tool results, plus per-message framing. Images count a flat 800.
pub fn estimate_message_tokens(m: &Value) -> usize {
    let mut total = MESSAGE_OVERHEAD_TOKENS;
    match m.get("content") {
        Some(Value::String(s)) => total += estimate_tokens(s),
        Some(Value::Array(parts)) => {
            for p in parts {
                total += match p.get("type").and_then(Value::as_str) {
                    Some("text") => p.get("text").and_then(Value::as_str).map_or(0, estimate_tokens),
                    Some("thinking") => p.get("thinking").and_then(Value::as_str).map_or(0, estimate_tokens),
                    Some("toolCall") => {
                        let name = p.get("name").and_then(Value::as_str).unwrap_or("");
                        let args = p.get("arguments").map(|a| a.to_string()).unwrap_or_default();
                        estimate_tokens(name) + estimate_tokens(&args) + 3
                    }
                    Some("image") => 800,
                    _ => 0,
                };
            }
        }
        _ => {}
    }
    total
}

/// Is this a tool call part (`{type:"toolCall", id, …}`)?
pub fn tool_call_id(part: &Value) -> Option<&str> {
    if part.get("type").and_then(Value::as_str) == Some("toolCall") {
        part.get("id").and_then(Value::as_str)
    } else {
        None
    }
}

/// Ids of the tool calls an assistant message makes.
pub fn tool_call_ids(m: &Value) -> Vec<&str> {
    match (role(m), m.get("content")) {
        (Some("assistant"), Some(Value::Array(parts))) => parts.iter().filter_map(tool_call_id).collect(),
        _ => Vec::new(),
    }
}
