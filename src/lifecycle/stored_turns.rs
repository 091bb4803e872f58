//! A session's turns as OpenViking stores them, read back into the agent messages the write
//! path takes — for moving an agent to another OpenViking (export, then restore).
//!
//! OpenViking 0.5 keeps each message as `{role, parts, turn_id, created_at, message_kind}`
//! (the engine's stamps, `turn::stamp_messages`), with native parts: `text`, and `tool` parts
//! that carry a call's input and its output together. Read back, a turn is what `commitTurn`
//! handed the engine: the user's message, each assistant message with its text and
//! `toolCall`s, and one `toolResult` per finished call after it — the user's and the
//! assistant's messages stamped with the turn's time (so the restored turn gets the same
//! `created_at`), a result with that time plus the call's duration where it was known.
//!
//! A message without a `turn_id` (written by something else) opens a turn when it is the
//! user's, and belongs to the turn before it otherwise. `context` parts (the memory URIs a
//! turn used) are not a message of the conversation and are left out.

use super::transcript::PastTurn;
use crate::message::{StoredMessage, StoredPart};
use crate::text::time::parse_iso8601;
use serde_json::{json, Value};

/// The agent messages of one stored message (the assistant's followed by its tool results).
fn agent_messages(m: &Value, at_ms: Option<u64>) -> Vec<Value> {
    let m = StoredMessage::of(m);
    let stamp = |mut v: Value| {
        if let (Some(t), Some(o)) = (at_ms, v.as_object_mut()) {
            o.insert("timestamp".into(), json!(t));
        }
        v
    };
    let texts = || m.parts().filter_map(|p| match p {
        StoredPart::Text { text } => Some(json!({"type": "text", "text": text.unwrap_or("")})),
        _ => None,
    });
    match m.role().unwrap_or("") {
        "user" => {
            let content: Vec<Value> = texts().collect();
            if content.is_empty() {
                return Vec::new();
            }
            vec![stamp(json!({"role": "user", "content": content}))]
        }
        "assistant" => {
            // OpenViking merges an assistant's steps into one message (text, calls, text…):
            // text after a call is the next step, which follows the call's results
            let mut out = Vec::new();
            let mut content: Vec<Value> = Vec::new();
            let mut results: Vec<Value> = Vec::new();
            let mut called = false;
            for p in m.parts() {
                match p {
                    StoredPart::Text { text } => {
                        if called {
                            out.push(stamp(json!({"role": "assistant", "content": std::mem::take(&mut content)})));
                            out.append(&mut results);
                            called = false;
                        }
                        content.push(json!({"type": "text", "text": text.unwrap_or("")}));
                    }
                    StoredPart::Tool(t) => {
                        let (id, name) = (t.id.unwrap_or(""), t.name.unwrap_or(""));
                        let input = t.input.cloned().unwrap_or_else(|| json!({}));
                        content.push(json!({"type": "toolCall", "id": id, "name": name, "arguments": input}));
                        called = true;
                        let status = t.status.unwrap_or("");
                        if status != "pending" && !status.is_empty() {
                            let mut result = json!({
                                "role": "toolResult", "toolCallId": id, "toolName": name,
                                "content": [{"type": "text", "text": t.output.unwrap_or("")}], "isError": status == "error",
                            });
                            // its time only where the call's duration was known (the write
                            // path measures it from the two times)
                            if let (Some(at), Some(d)) = (at_ms, t.duration_ms) {
                                result["timestamp"] = json!(at.saturating_add(d));
                            }
                            results.push(result);
                        }
                    }
                    StoredPart::Context { .. } | StoredPart::Other(_) => {}
                }
            }
            if !content.is_empty() {
                out.push(stamp(json!({"role": "assistant", "content": content})));
                out.append(&mut results);
            }
            out
        }
        _ => Vec::new(),
    }
}

/// The turns of stored messages (a live list or an archive's), in order; each turn's
/// `entry_id` is its stored `turn_id`.
pub fn stored_turns(messages: &[Value]) -> Vec<PastTurn> {
    let mut out: Vec<PastTurn> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let view = StoredMessage::of(m);
        let user = view.is_user();
        let id = match view.turn_id().filter(|s| !s.is_empty()) {
            Some(t) => t.to_string(),
            None if user || out.is_empty() => view.id().map_or_else(|| format!("message-{i}"), str::to_string),
            None => out.last().map(|t| t.entry_id.clone()).unwrap_or_default(),
        };
        if out.last().map_or(true, |t| t.entry_id != id) {
            let at_ms = view.created_at().and_then(parse_iso8601);
            out.push(PastTurn { entry_id: id, at_ms, messages: Vec::new() });
        }
        if let Some(turn) = out.last_mut() {
            let at = turn.at_ms;
            turn.messages.extend(agent_messages(m, at));
        }
    }
    out.retain(|t| !t.messages.is_empty());
    out
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;
    use crate::lifecycle::turn::{build_envelope, stamp_messages, to_openviking_messages, TurnMeta};

    fn stored(turn_id: &str, at_ms: u64, messages: &[Value]) -> Vec<Value> {
        let meta = TurnMeta { turn_id: turn_id.into(), session_id: "main--s".into(), sequence: 0, now_ms: at_ms, used_context_uris: vec!["viking://user/u/memories/a.md".into()], compact_checkpoint_id: None };
        let env = build_envelope(messages, meta).unwrap();
        let mut out = to_openviking_messages(&env);
        stamp_messages(&mut out, turn_id, at_ms);
        out
    }

    #[test]
    fn a_stored_turn_reads_back_into_the_messages_that_store_the_same() {
        let at = 1_764_892_800_000;
        let turn = vec![
            json!({"role": "user", "content": [{"type": "text", "text": "list the files"}], "timestamp": at}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "Listing."}, {"type": "toolCall", "id": "c1", "name": "exec", "arguments": {"command": "ls"}}], "timestamp": at}),
            json!({"role": "toolResult", "toolCallId": "c1", "toolName": "exec", "content": [{"type": "text", "text": "a.txt\nb.txt"}], "isError": false, "timestamp": at}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "Two files."}], "timestamp": at}),
        ];
        let mut messages = stored("t-1", at, &turn);
        messages.extend(stored("t-2", at + 60_000, &[json!({"role": "user", "content": "and now?", "timestamp": at + 60_000})]));
        let back = stored_turns(&messages);
        assert_eq!(back.iter().map(|t| (t.entry_id.as_str(), t.at_ms)).collect::<Vec<_>>(), [("t-1", Some(at)), ("t-2", Some(at + 60_000))]);
        assert_eq!(back[0].messages, turn, "the turn as the host handed it");
        // written again, it is stored the same (no context parts: they were not conversation)
        let again = stored("t-1", at, &back[0].messages);
        let strip = |v: &[Value]| v.iter().map(|m| { let mut m = m.clone(); m["parts"].as_array_mut().unwrap().retain(|p| p["type"] != "context"); m }).collect::<Vec<_>>();
        assert_eq!(strip(&again), strip(&messages[..again.len()]));
    }

    #[test]
    fn messages_without_turn_ids_open_a_turn_at_each_user_message() {
        let m = [
            json!({"id": "m1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}),
            json!({"id": "m2", "role": "assistant", "parts": [{"type": "text", "text": "hello"}]}),
            json!({"id": "m3", "role": "user", "parts": [{"type": "text", "text": "bye"}]}),
            json!({"id": "m4", "role": "system", "parts": [{"type": "text", "text": "ignored"}]}),
            json!({"id": "m5", "role": "user", "parts": []}),
        ];
        let t = stored_turns(&m);
        assert_eq!(t.iter().map(|t| (t.entry_id.as_str(), t.messages.len(), t.at_ms)).collect::<Vec<_>>(), [("m1", 2, None), ("m3", 1, None)]);
    }

    #[test]
    fn a_pending_call_has_no_result_and_an_error_keeps_its_flag() {
        let m = [json!({"turn_id": "t", "role": "assistant", "parts": [
            {"type": "tool", "tool_id": "a", "tool_name": "exec", "tool_input": {"c": 1}, "tool_output": "", "tool_status": "pending"},
            {"type": "tool", "tool_id": "b", "tool_name": "exec", "tool_input": {"c": 2}, "tool_output": "boom", "tool_status": "error"},
        ]})];
        let t = stored_turns(&m);
        assert_eq!(t[0].messages.len(), 2);
        assert_eq!(t[0].messages[1]["toolCallId"], "b");
        assert_eq!(t[0].messages[1]["isError"], true);
    }
}
