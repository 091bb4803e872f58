//! OpenClaw's own transcript of a session, read into the turns the engine would have
//! written, for bringing an agent's past (sessions from before this engine) into OpenViking.
//!
//! OpenClaw keeps one event per line or row — `{type, id, parentId, timestamp, …}`: the JSONL
//! transcripts of 2026.7.x and older (`agents/<agent>/sessions/<id>.jsonl`) and the
//! `transcript_events.event_json` rows of 2026.9.x (`agents/<agent>/agent/openclaw-agent.sqlite`)
//! share it. `type: "message"` events carry an agent message (`user`, `assistant`,
//! `toolResult`); the others (session header, model and thinking changes, custom records,
//! compaction markers) are not part of what was said. Events form a tree by `parentId` (a
//! rewind or an edit starts a branch); the conversation is the branch that ends in the last
//! event, read from the root.
//!
//! A turn opens at a user message and runs through every assistant message and tool result
//! until the next user message — the same slice `commitTurn` hands the engine live. Its
//! identity is the id of the event that opens it, so a rerun names every turn as the first
//! run did.

use crate::message::Message;
use crate::text::time::parse_iso8601;
use serde::Serialize;
use serde_json::Value;
use std::collections::HashMap;

/// One turn of a past session, as the live write path takes it.
#[derive(Debug, Clone, PartialEq)]
pub struct PastTurn {
    /// The id of the event that opens the turn (unique in its transcript).
    pub entry_id: String,
    /// The host's time of the turn: the opening message's `timestamp`, else the event's.
    pub at_ms: Option<u64>,
    /// The turn's agent messages, in order.
    pub messages: Vec<Value>,
}

/// What a transcript held that is not a turn, counted for the operator's report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Skipped {
    /// Lines that are not a JSON object (a truncated last line of a transcript cut by a crash).
    pub unreadable: usize,
    /// Message events whose message has no role this engine stores.
    pub unknown_messages: usize,
    /// Events of other branches (an edit or rewind left them behind).
    pub other_branches: usize,
}

/// A transcript read: its turns in order and what was left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Transcript {
    pub turns: Vec<PastTurn>,
    pub skipped: Skipped,
}

const MESSAGE_ROLES: [&str; 3] = ["user", "assistant", "toolResult"];
/// Longest entry id kept as given (longer ones are not OpenClaw's; they are cut).
const ENTRY_ID_MAX: usize = 96;

fn event_id(e: &Value) -> Option<&str> {
    e.get("id").and_then(Value::as_str).filter(|s| !s.is_empty())
}

fn time_of(event: &Value, message: &Value) -> Option<u64> {
    let ms = |v: &Value| v.as_u64().or_else(|| v.as_f64().filter(|f| f.is_finite() && *f >= 0.0).map(|f| f as u64));
    Message::of(message).timestamp().and_then(|t| ms(t).or_else(|| t.as_str().and_then(parse_iso8601))).or_else(|| event.get("timestamp").and_then(Value::as_str).and_then(parse_iso8601))
}

/// The events of the conversation's branch, oldest first: from the last event with an id
/// back through `parentId` to the root. Events without ids (a transcript written before ids)
/// are all one branch, in order.
fn active_branch(events: Vec<Value>, skipped: &mut Skipped) -> Vec<Value> {
    if !events.iter().any(|e| event_id(e).is_some()) {
        return events;
    }
    let index: HashMap<&str, usize> = events.iter().enumerate().filter_map(|(i, e)| event_id(e).map(|id| (id, i))).collect();
    let mut chain = Vec::new();
    let mut at = events.iter().rposition(|e| event_id(e).is_some());
    let mut seen = std::collections::HashSet::new();
    while let Some(i) = at {
        if !seen.insert(i) {
            break; // a parent cycle: what was walked is the branch
        }
        chain.push(i);
        at = events[i].get("parentId").and_then(Value::as_str).and_then(|p| index.get(p).copied());
    }
    let keep: std::collections::HashSet<usize> = chain.into_iter().collect();
    let is_message = |e: &Value| e.get("type").and_then(Value::as_str) == Some("message");
    skipped.other_branches = events.iter().enumerate().filter(|(i, e)| is_message(e) && event_id(e).is_some() && !keep.contains(i)).count();
    // events without an id (headers) stay where they are; only other branches drop out
    events.into_iter().enumerate().filter(|(i, e)| keep.contains(i) || event_id(e).is_none()).map(|(_, e)| e).collect()
}

/// Reads a transcript given as its lines (JSONL lines or `event_json` rows, in order).
pub fn read_transcript<S: AsRef<str>>(lines: &[S]) -> Transcript {
    let mut skipped = Skipped::default();
    let mut events = Vec::new();
    for line in lines {
        let line = line.as_ref().trim();
        if line.is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(v) if v.is_object() => events.push(v),
            _ => skipped.unreadable += 1,
        }
    }
    let events = active_branch(events, &mut skipped);
    let mut turns: Vec<PastTurn> = Vec::new();
    for (i, e) in events.into_iter().enumerate() {
        if e.get("type").and_then(Value::as_str) != Some("message") {
            continue;
        }
        let Some(message) = e.get("message").filter(|m| m.is_object()) else {
            skipped.unknown_messages += 1;
            continue;
        };
        let role = Message::of(message).role_name().unwrap_or("");
        if !MESSAGE_ROLES.contains(&role) {
            skipped.unknown_messages += 1;
            continue;
        }
        if role == "user" || turns.is_empty() {
            let id = event_id(&e).map_or_else(|| format!("line-{i}"), |s| s.chars().take(ENTRY_ID_MAX).collect());
            turns.push(PastTurn { entry_id: id, at_ms: time_of(&e, message), messages: Vec::new() });
        }
        if let Some(t) = turns.last_mut() {
            t.messages.push(message.clone());
        }
    }
    // a turn none of whose messages has a time gets its event's, on its first message (the
    // messages stay as the host wrote them otherwise: their content identifies a turn)
    for t in &mut turns {
        if let (Some(at), false) = (t.at_ms, t.messages.iter().any(|m| Message::of(m).timestamp().is_some())) {
            t.messages[0]["timestamp"] = Value::from(at);
        }
    }
    Transcript { turns, skipped }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;
    use serde_json::json;

    fn ev(id: &str, parent: Option<&str>, role: &str, text: &str, ts: u64) -> String {
        json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-12-05T06:16:38.663Z",
               "message": {"role": role, "content": text, "timestamp": ts}}).to_string()
    }

    #[test]
    fn turns_open_at_user_messages_and_keep_tool_rounds() {
        let lines = vec![
            json!({"type": "session", "version": 4, "id": "s1", "timestamp": "2026-12-05T06:16:38.263Z"}).to_string(),
            json!({"type": "model_change", "id": "m", "parentId": null}).to_string(),
            ev("u1", Some("m"), "user", "my dog is Rex", 10),
            ev("a1", Some("u1"), "assistant", "noted", 11),
            ev("u2", Some("a1"), "user", "read the notes", 20),
            json!({"type": "message", "id": "a2", "parentId": "u2", "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "read", "arguments": {}}], "timestamp": 21}}).to_string(),
            json!({"type": "message", "id": "r2", "parentId": "a2", "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "read", "content": [{"type": "text", "text": "4711"}], "timestamp": 22}}).to_string(),
            json!({"type": "custom", "customType": "openclaw.cache-ttl", "id": "x", "parentId": "r2"}).to_string(),
            ev("a3", Some("x"), "assistant", "the code is 4711", 23),
        ];
        let t = read_transcript(&lines);
        assert_eq!(t.turns.iter().map(|t| t.entry_id.as_str()).collect::<Vec<_>>(), ["u1", "u2"]);
        assert_eq!(t.turns[1].messages.len(), 4, "call, result and answer belong to the turn");
        assert_eq!(t.turns[0].at_ms, Some(10));
        assert_eq!(t.skipped, Skipped::default());
    }

    #[test]
    fn the_branch_ending_last_is_the_conversation() {
        // u2 was edited: u2b replaced it; the old branch (u2, a2) is left behind
        let lines = vec![
            ev("u1", None, "user", "hi", 1),
            ev("a1", Some("u1"), "assistant", "hello", 2),
            ev("u2", Some("a1"), "user", "old question", 3),
            ev("a2", Some("u2"), "assistant", "old answer", 4),
            ev("u2b", Some("a1"), "user", "new question", 5),
            ev("a2b", Some("u2b"), "assistant", "new answer", 6),
        ];
        let t = read_transcript(&lines);
        assert_eq!(t.turns.iter().map(|t| t.entry_id.as_str()).collect::<Vec<_>>(), ["u1", "u2b"]);
        assert_eq!(t.skipped.other_branches, 2);
    }

    #[test]
    fn a_truncated_line_and_unknown_shapes_are_counted_not_fatal() {
        let mut lines = vec![ev("u1", None, "user", "hi", 1), ev("a1", Some("u1"), "assistant", "hello", 2)];
        lines.push(json!({"type": "message", "id": "b", "parentId": "a1", "message": {"role": "bashExecution", "command": "ls"}}).to_string());
        lines.push(json!({"type": "message", "id": "c", "parentId": "b", "message": "not an object"}).to_string());
        lines.push(r#"{"type":"message","id":"u2","parentId":"c","message":{"role":"user","content":"cut of"#.to_string());
        let t = read_transcript(&lines);
        assert_eq!(t.turns.len(), 1);
        assert_eq!(t.skipped, Skipped { unreadable: 1, unknown_messages: 2, other_branches: 0 });
    }

    #[test]
    fn events_without_ids_are_one_branch_and_times_come_from_the_event() {
        let lines = vec![
            json!({"type": "message", "timestamp": "2026-01-02T03:04:05.000Z", "message": {"role": "user", "content": "a"}}).to_string(),
            json!({"type": "message", "message": {"role": "assistant", "content": "b"}}).to_string(),
        ];
        let t = read_transcript(&lines);
        assert_eq!(t.turns.len(), 1);
        assert_eq!(t.turns[0].entry_id, "line-0");
        assert_eq!(t.turns[0].at_ms, parse_iso8601("2026-01-02T03:04:05.000Z"));
        assert_eq!(t.turns[0].messages[0]["timestamp"], json!(parse_iso8601("2026-01-02T03:04:05.000Z")));
        assert!(Message::of(&t.turns[0].messages[1]).timestamp().is_none(), "only a turn without any time gets one");
    }

    #[test]
    fn a_parent_cycle_ends_the_walk() {
        let lines = vec![ev("a", Some("b"), "user", "x", 1), ev("b", Some("a"), "assistant", "y", 2)];
        let t = read_transcript(&lines);
        assert_eq!(t.turns.len(), 1);
    }
}
