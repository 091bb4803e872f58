//! Reading an OpenClaw `AgentMessage` through the [`Message`] view: its role, its text, its
//! token estimate, the ids of the tool calls it makes.

use super::agent_message::{ContentPart, Message};
use crate::text::tokens::{estimate_tokens, MESSAGE_OVERHEAD_TOKENS};
use serde_json::Value;

pub fn role(m: &Value) -> Option<&str> {
    Message::of(m).role_name()
}

/// The text parts of a message's `content`, joined by newlines (images, thinking and tool
/// calls left out).
pub fn text_of(m: &Value) -> String {
    let mut out = String::new();
    for p in Message::of(m).content_parts() {
        if let ContentPart::Text { text: Some(t) } = p {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(t);
        }
    }
    out
}

/// Estimated tokens of one message as a model would receive it: its text, tool calls (name +
/// arguments), tool results, plus per-message framing. Images count a flat 800.
pub fn estimate_message_tokens(m: &Value) -> usize {
    let mut total = MESSAGE_OVERHEAD_TOKENS;
    for p in Message::of(m).content_parts() {
        total += match p {
            ContentPart::Text { text } => text.map_or(0, estimate_tokens),
            ContentPart::Thinking { thinking } => thinking.map_or(0, estimate_tokens),
            ContentPart::ToolCall { name, arguments, .. } => {
                let args = arguments.map(|a| a.to_string()).unwrap_or_default();
                estimate_tokens(name.unwrap_or("")) + estimate_tokens(&args) + 3
            }
            ContentPart::Image { .. } => 800,
            ContentPart::Other(_) => 0,
        };
    }
    total
}

/// Is this a tool call part (`{type:"toolCall", id, …}`)?
pub fn tool_call_id(part: &Value) -> Option<&str> {
    match ContentPart::of(part) {
        ContentPart::ToolCall { id, .. } => id,
        _ => None,
    }
}

/// Ids of the tool calls an assistant message makes.
pub fn tool_call_ids(m: &Value) -> Vec<&str> {
    let v = Message::of(m);
    if v.role_name() != Some("assistant") || !v.content().is_some_and(Value::is_array) {
        return Vec::new();
    }
    v.content_parts().filter_map(|p| match p {
        ContentPart::ToolCall { id, .. } => id,
        _ => None,
    }).collect()
}
