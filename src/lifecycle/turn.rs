//! `TurnEnvelope` (design §5.1): one OpenClaw turn — the user input through the final
//! assistant answer, tool calls and results included — as the engine stores it losslessly.
//!
//! One envelope per turn. `role` is the role that opened the turn (normally "user"); each
//! text part carries the role of the message it came from, so the conversation can be
//! rebuilt message by message. Synthetic recall pairs and legacy `<relevant-memories>`
//! blocks are not part of what the user or model said and are left out; the memory URIs the
//! engine injected for the turn are kept in `used_context_uris` instead. Images are kept as
//! `meta` parts (kind, mime type, size — not the bytes). Field names are stable.

use crate::error::{EngineError, Result};
use crate::message::synthetic::without_synthetic;
use crate::message::{role, text_of, ContentPart, Message, StoredMessage, StoredPart};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
    System,
    Tool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    Text { text: String, role: Role },
    ToolCall {
        tool_name: String,
        arguments: Value,
        id: String,
        /// The skill the call belongs to (see [`skill_of_call`]), as OpenViking's `skill_uri`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        skill_uri: Option<String>,
    },
    ToolResult {
        tool_name: String,
        result: Value,
        id: String,
        #[serde(default)]
        is_error: bool,
        /// The host's time of the result minus the time of the message that made the call,
        /// when both messages carry a `timestamp`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        duration_ms: Option<u64>,
    },
    ContextRef { uri: String, #[serde(skip_serializing_if = "Option::is_none")] r#abstract: Option<String> },
    Meta { key: String, value: Value },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UsedSkill {
    pub uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub success: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Success,
    Error,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCallRecord {
    pub tool_name: String,
    pub arguments: Value,
    pub status: Option<Status>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill_uri: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResultRecord {
    pub tool_name: String,
    pub result: Value,
    pub status: Option<Status>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkerSource {
    Raw,
    PostCompact,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompactionMarker {
    pub source: MarkerSource,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compact_checkpoint_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnEnvelope {
    pub turn_id: String,
    pub session_id: String,
    pub sequence: u64,
    pub timestamp: String,
    pub role: Role,
    pub parts: Vec<Part>,
    pub used_context_uris: Vec<String>,
    pub used_skills: Vec<UsedSkill>,
    pub tool_calls: Vec<ToolCallRecord>,
    pub tool_results: Vec<ToolResultRecord>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compaction_marker: Option<CompactionMarker>,
}

/// Meta key set when injected recall text was removed from the turn.
pub const INJECTED_REMOVED: &str = "injected_context_removed";

/// What identifies a turn besides its messages.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnMeta {
    pub turn_id: String,
    pub session_id: String,
    pub sequence: u64,
    pub now_ms: u64,
    /// Memory URIs `assemble` injected for this turn.
    pub used_context_uris: Vec<String>,
    /// Set when the turn follows a compaction.
    pub compact_checkpoint_id: Option<String>,
}

fn role_of(m: &Value) -> Option<Role> {
    match role(m)? {
        "user" => Some(Role::User),
        "assistant" => Some(Role::Assistant),
        "system" => Some(Role::System),
        "toolResult" | "tool" => Some(Role::Tool),
        _ => None,
    }
}

/// `text` with injected `<relevant-memories>` blocks removed (`sanitize::strip_recall_blocks`,
/// the one rule), formatting otherwise kept; `removed` is set when a block was there.
fn without_injected(text: &str, removed: &mut bool) -> String {
    let (t, r) = crate::text::sanitize::strip_recall_blocks(text);
    if !r {
        return text.to_string();
    }
    *removed = true;
    t.trim().to_string()
}

fn image_meta(mime_type: Option<&str>, data: Option<&str>) -> Value {
    json!({
        "kind": "image",
        "mimeType": mime_type,
        "approxBytes": data.map(|d| d.len() * 3 / 4),
    })
}

fn tool_result_value(m: &Value) -> Value {
    let view = Message::of(m);
    match view.content() {
        Some(Value::Array(_)) if view.content_parts().all(|p| matches!(p, ContentPart::Text { .. })) => Value::String(text_of(m)),
        Some(v) => v.clone(),
        None => Value::Null,
    }
}

/// Where a skill lives in OpenViking: the caller's own skills (`~` is the user the API key
/// belongs to, resolved by the server when the message is added).
pub fn skill_uri(name: &str) -> String {
    format!("viking://~/skills/{name}")
}

/// The skill a tool call loads or runs, if it says so. OpenClaw 2026.9.6 has no skill marker
/// in its messages: it lists the eligible skills in the system prompt with their `SKILL.md`
/// path and the model loads one with the `read` tool, so a `read` of a file named `SKILL.md`
/// is that skill's use (its name is the folder holding the file); a skill's slash command
/// dispatched to a tool (`command-dispatch: tool`) passes `skillName` in the arguments.
/// A name that is not a plain path segment is not used (OpenViking validates the uri).
pub fn skill_of_call(tool_name: &str, arguments: &Value) -> Option<String> {
    let plain = |n: &str| crate::address::scopes::is_plain_segment(n).then(|| n.to_string());
    if let Some(name) = arguments.get("skillName").and_then(Value::as_str) {
        return plain(name);
    }
    if tool_name != "read" {
        return None;
    }
    let path = ["path", "file_path", "filePath"].iter().find_map(|k| arguments.get(*k).and_then(Value::as_str))?;
    let mut segments = path.rsplit(['/', '\\']);
    (segments.next()? == "SKILL.md").then_some(())?;
    plain(segments.next()?)
}

/// Text clipped to `max` characters, for the `used_skills` summary.
fn clip(text: &str, max: usize) -> Option<String> {
    let t = text.trim();
    (!t.is_empty()).then(|| t.chars().take(max).collect())
}

/// The envelope's `used_skills`: each skill the turn used once, in order of first use, with
/// the user's request as its input, the turn's last assistant text as its output (both at most
/// [`USED_SKILL_TEXT_MAX`] characters) and `success` when every result of its calls is known:
/// true unless one was an error.
fn used_skills(parts: &[Part], tool_calls: &[ToolCallRecord]) -> Vec<UsedSkill> {
    let said = |who: Role| parts.iter().filter_map(move |p| match p {
        Part::Text { text, role } if *role == who => Some(text.as_str()),
        _ => None,
    });
    let input = said(Role::User).next().and_then(|t| clip(t, USED_SKILL_TEXT_MAX));
    let output = said(Role::Assistant).next_back().and_then(|t| clip(t, USED_SKILL_TEXT_MAX));
    let mut out: Vec<UsedSkill> = Vec::new();
    for call in tool_calls {
        let Some(uri) = &call.skill_uri else { continue };
        let statuses: Vec<Option<Status>> = tool_calls.iter().filter(|c| c.skill_uri.as_ref() == Some(uri)).map(|c| c.status).collect();
        let success = statuses.iter().all(Option::is_some).then(|| statuses.iter().all(|s| *s == Some(Status::Success)));
        if !out.iter().any(|u| &u.uri == uri) {
            out.push(UsedSkill { uri: uri.clone(), input: input.clone(), output: output.clone(), success });
        }
    }
    out
}

/// `used_skills` input and output are cut to this many characters.
pub const USED_SKILL_TEXT_MAX: usize = 500;

/// Builds the envelope of one turn from its messages (synthetic recall pairs and injected
/// blocks left out). Messages without a known role are an error naming their index.
pub fn build_envelope(messages: &[Value], meta: TurnMeta) -> Result<TurnEnvelope> {
    let mut parts = Vec::new();
    let mut tool_calls = Vec::new();
    let mut tool_results = Vec::new();
    let mut opener: Option<Role> = None;
    let mut injected_removed = false;
    // the skill the calls since its `SKILL.md` was read belong to, and when each call was made
    let mut skill: Option<String> = None;
    let mut called_at: Vec<(String, Option<u64>)> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        role_of(m).ok_or_else(|| EngineError::input(format!("messages[{i}].role"), "expected user, assistant, toolResult or system"))?;
    }
    // the synthetic recall pairs are never stored (a host call sharing their message stays)
    for (_, m) in without_synthetic(messages) {
        let m: &Value = &m;
        let r = role_of(m).unwrap_or(Role::User);
        opener.get_or_insert(r);
        let view = Message::of(m);
        let at = view.timestamp().and_then(Value::as_u64);
        match r {
            Role::User | Role::System | Role::Assistant => {
                for p in view.content_parts() {
                    match p {
                        ContentPart::Text { text } => {
                            let text = without_injected(text.unwrap_or(""), &mut injected_removed);
                            if !text.is_empty() {
                                parts.push(Part::Text { text, role: r });
                            }
                        }
                        ContentPart::Image { mime_type, data } => parts.push(Part::Meta { key: "image".into(), value: image_meta(mime_type, data) }),
                        ContentPart::ToolCall { id, name, arguments } => {
                            let tool_name = name.unwrap_or("").to_string();
                            let arguments = arguments.cloned().unwrap_or(Value::Null);
                            let id = id.unwrap_or("").to_string();
                            if let Some(name) = skill_of_call(&tool_name, &arguments) {
                                skill = Some(skill_uri(&name));
                            }
                            called_at.push((id.clone(), at));
                            tool_calls.push(ToolCallRecord {
                                tool_name: tool_name.clone(),
                                arguments: arguments.clone(),
                                status: None,
                                skill_uri: skill.clone(),
                            });
                            parts.push(Part::ToolCall { tool_name, arguments, id, skill_uri: skill.clone() });
                        }
                        ContentPart::Thinking { thinking } => {
                            let t = thinking.unwrap_or("");
                            if !t.is_empty() {
                                parts.push(Part::Meta { key: "thinking".into(), value: Value::String(t.to_string()) });
                            }
                        }
                        ContentPart::Other(_) => {}
                    }
                }
            }
            Role::Tool => {
                let id = view.tool_call_id().unwrap_or("").to_string();
                let tool_name = view.tool_name().unwrap_or("").to_string();
                let is_error = view.is_error().unwrap_or(false);
                let status = Some(if is_error { Status::Error } else { Status::Success });
                let result = tool_result_value(m);
                let call_index = parts.iter().filter_map(|p| match p {
                    Part::ToolCall { id: cid, .. } => Some(cid),
                    _ => None,
                }).position(|cid| *cid == id);
                if let Some(call) = call_index.and_then(|i| tool_calls.get_mut(i)) {
                    call.status = status;
                }
                let started = called_at.iter().find(|(cid, _)| *cid == id).and_then(|(_, t)| *t);
                let duration_ms = match (started, at) {
                    (Some(a), Some(b)) if b >= a => Some(b - a),
                    _ => None,
                };
                tool_results.push(ToolResultRecord { tool_name: tool_name.clone(), result: result.clone(), status, duration_ms });
                parts.push(Part::ToolResult { tool_name, result, id, is_error, duration_ms });
            }
        }
    }
    if injected_removed {
        parts.push(Part::Meta { key: INJECTED_REMOVED.into(), value: Value::Bool(true) });
    }
    let skills = used_skills(&parts, &tool_calls);
    Ok(TurnEnvelope {
        turn_id: meta.turn_id,
        session_id: meta.session_id,
        sequence: meta.sequence,
        timestamp: crate::text::time::iso8601(meta.now_ms),
        role: opener.unwrap_or(Role::User),
        parts,
        used_context_uris: meta.used_context_uris,
        used_skills: skills,
        tool_calls,
        tool_results,
        compaction_marker: Some(CompactionMarker {
            source: if meta.compact_checkpoint_id.is_some() { MarkerSource::PostCompact } else { MarkerSource::Raw },
            compact_checkpoint_id: meta.compact_checkpoint_id,
        }),
    })
}

fn tool_output_text(result: &Value) -> String {
    match result {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Gives every message of a turn its identity as OpenViking 0.5 stores it per message: the
/// engine's `turn_id`, `created_at` (the host's time of the turn, ISO 8601) and
/// `message_kind` — `user_query` for the user's words, `tool_transport` for an assistant
/// message that only carries tool calls and results, `assistant_step` for the rest. The
/// replay finds a turn by its id among the live messages; a second machine reads when it
/// happened from the messages themselves.
pub fn stamp_messages(messages: &mut [Value], turn_id: &str, at_ms: u64) {
    let at = crate::text::time::iso8601(at_ms);
    for m in messages.iter_mut() {
        let view = StoredMessage::of(m);
        let user = view.is_user();
        let tools_only = view.raw_parts().is_some_and(|p| !p.is_empty()) && view.parts().all(|p| matches!(p, StoredPart::Tool(_)));
        let kind = if user { "user_query" } else if tools_only { "tool_transport" } else { "assistant_step" };
        if let Some(o) = m.as_object_mut() {
            o.insert("turn_id".into(), Value::String(turn_id.to_string()));
            o.insert("created_at".into(), Value::String(at.clone()));
            o.insert("message_kind".into(), Value::String(kind.into()));
        }
    }
}

/// The envelope as OpenViking session messages with native parts, in conversation order:
/// user text → a `user` message; assistant text and tool calls → an `assistant` message whose
/// `tool` parts carry both the input and, once it arrives, the output of each call; the memory
/// URIs used for the turn → `context` parts on the first assistant message. Meta parts
/// (images, thinking) are not sent: the extractor reads a normal conversation.
pub fn to_openviking_messages(env: &TurnEnvelope) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    let mut context_done = env.used_context_uris.is_empty();
    let push_part = |out: &mut Vec<Value>, role: &str, part: Value| {
        let same = out.last().and_then(|m| StoredMessage::of(m).role()) == Some(role);
        if !same {
            out.push(json!({"role": role, "parts": []}));
        }
        if let Some(Value::Array(parts)) = out.last_mut().and_then(|m| m.get_mut("parts")) {
            parts.push(part);
        }
    };
    for part in &env.parts {
        match part {
            Part::Text { text, role } => {
                let r = if *role == Role::Assistant { "assistant" } else { "user" };
                push_part(&mut out, r, json!({"type": "text", "text": text}));
            }
            Part::ToolCall { tool_name, arguments, id, skill_uri } => {
                let input = if arguments.is_object() { arguments.clone() } else { json!({"value": arguments}) };
                let mut part = json!({"type": "tool", "tool_id": id, "tool_name": tool_name, "tool_input": input,
                                      "tool_output": "", "tool_status": "pending"});
                if let Some(uri) = skill_uri {
                    part["skill_uri"] = Value::String(uri.clone());
                }
                push_part(&mut out, "assistant", part);
            }
            Part::ToolResult { tool_name, result, id, is_error, duration_ms } => {
                let status = if *is_error { "error" } else { "completed" };
                let target = out.iter_mut().rev().find_map(|m| {
                    m.get_mut("parts")?.as_array_mut()?.iter_mut().find(|p| StoredPart::of(p).tool().is_some_and(|t| t.id == Some(id.as_str())))
                });
                match target {
                    Some(p) => {
                        p["tool_output"] = Value::String(tool_output_text(result));
                        p["tool_status"] = Value::String(status.into());
                        if let Some(d) = duration_ms {
                            p["duration_ms"] = json!(d);
                        }
                    }
                    None => {
                        let mut part = json!({"type": "tool", "tool_id": id, "tool_name": tool_name, "tool_input": {},
                                              "tool_output": tool_output_text(result), "tool_status": status});
                        if let Some(d) = duration_ms {
                            part["duration_ms"] = json!(d);
                        }
                        push_part(&mut out, "assistant", part)
                    }
                }
            }
            Part::ContextRef { uri, r#abstract } => push_part(
                &mut out,
                "assistant",
                json!({"type": "context", "uri": uri, "context_type": "memory", "abstract": r#abstract.clone().unwrap_or_default()}),
            ),
            Part::Meta { .. } => {}
        }
        if !context_done && out.last().and_then(|m| StoredMessage::of(m).role()) == Some("assistant") {
            context_done = true;
            for uri in &env.used_context_uris {
                push_part(&mut out, "assistant", json!({"type": "context", "uri": uri, "context_type": "memory", "abstract": ""}));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    fn meta() -> TurnMeta {
        TurnMeta {
            turn_id: "t-1".into(),
            session_id: "s".into(),
            sequence: 3,
            now_ms: 0,
            used_context_uris: vec!["viking://user/u/memories/preferences/theme.md".into()],
            compact_checkpoint_id: None,
        }
    }

    fn turn() -> Vec<Value> {
        vec![
            json!({"role": "assistant", "content": [{"type": "toolCall", "id": "ovrecall1", "name": "memory_recall_auto", "arguments": {"query": "q"}}]}),
            json!({"role": "toolResult", "toolCallId": "ovrecall1", "toolName": "memory_recall_auto", "content": [{"type": "text", "text": "{}"}], "isError": false}),
            json!({"role": "user", "content": [{"type": "text", "text": "<relevant-memories>\n- x\n</relevant-memories>\nList the files"}, {"type": "image", "mimeType": "image/png", "data": "AAAA"}]}),
            json!({"role": "assistant", "content": [{"type": "thinking", "thinking": "use ls"}, {"type": "text", "text": "Listing."}, {"type": "toolCall", "id": "c1", "name": "exec", "arguments": {"command": "ls"}}]}),
            json!({"role": "toolResult", "toolCallId": "c1", "toolName": "exec", "content": [{"type": "text", "text": "a.txt\nb.txt"}], "isError": false}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "Two files: a.txt and b.txt."}]}),
        ]
    }

    #[test]
    fn envelope_keeps_everything_said_and_drops_what_was_injected() {
        let env = build_envelope(&turn(), meta()).unwrap();
        assert_eq!(env.role, Role::User);
        let texts: Vec<&str> = env.parts.iter().filter_map(|p| match p { Part::Text { text, .. } => Some(text.as_str()), _ => None }).collect();
        assert_eq!(texts, vec!["List the files", "Listing.", "Two files: a.txt and b.txt."]);
        assert_eq!(env.tool_calls.len(), 1, "the synthetic recall call is not part of the turn");
        assert_eq!(env.tool_calls[0].status, Some(Status::Success));
        assert_eq!(env.tool_results[0].result, json!("a.txt\nb.txt"));
        assert!(env.parts.iter().any(|p| matches!(p, Part::Meta { key, .. } if key == "image")));
        assert!(env.parts.iter().any(|p| matches!(p, Part::Meta { key, .. } if key == "thinking")));
        assert_eq!(env.used_context_uris.len(), 1);
        let stable = serde_json::to_value(&env).unwrap();
        for key in ["turn_id", "session_id", "sequence", "timestamp", "role", "parts", "used_context_uris", "used_skills", "tool_calls", "tool_results", "compaction_marker"] {
            assert!(stable.get(key).is_some(), "missing {key}");
        }
    }

    #[test]
    fn openviking_messages_use_native_parts() {
        let env = build_envelope(&turn(), meta()).unwrap();
        let msgs = to_openviking_messages(&env);
        let roles: Vec<&str> = msgs.iter().map(|m| m["role"].as_str().unwrap()).collect();
        assert_eq!(roles, vec!["user", "assistant"]);
        let parts = msgs[1]["parts"].as_array().unwrap();
        let tool = parts.iter().find(|p| p["type"] == "tool").unwrap();
        assert_eq!(tool["tool_output"], "a.txt\nb.txt");
        assert_eq!(tool["tool_status"], "completed");
        assert_eq!(tool["tool_input"], json!({"command": "ls"}));
        assert!(parts.iter().any(|p| p["type"] == "context"));
    }

    #[test]
    fn unknown_roles_are_errors_naming_the_index() {
        let err = build_envelope(&[json!({"role": "user", "content": "x"}), json!({"role": 5})], meta()).unwrap_err();
        assert_eq!(err.field.as_deref(), Some("messages[1].role"));
    }

    #[test]
    fn a_user_mentioning_the_tag_is_stored_whole() {
        let said = "How does the <relevant-memories> tag work, and why is it stripped?";
        let env = build_envelope(&[json!({"role": "user", "content": said})], meta()).unwrap();
        let texts: Vec<&str> = env.parts.iter().filter_map(|p| match p { Part::Text { text, .. } => Some(text.as_str()), _ => None }).collect();
        assert_eq!(texts, [said]);
    }
}
