//! The turn index of `memory_search_history`: its documents (chunks of turns in a ring per
//! session), a turn's entry from its envelope or from stored messages, the caps.

use super::when;
use crate::lifecycle::turn::{Part, Role, TurnEnvelope};
use crate::message::{Message, StoredMessage, StoredPart};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Turns per index chunk.
pub const CHUNK_TURNS: u64 = 64;
/// Chunks kept per session (a ring): the newest `CHUNK_TURNS × CHUNK_SLOTS` turns are searchable.
pub const CHUNK_SLOTS: u64 = 32;
/// Text kept per message of a turn (characters).
pub const MESSAGE_TEXT_MAX_CHARS: usize = 2_000;
/// Text kept per turn (characters), over all its messages.
pub const TURN_TEXT_MAX_CHARS: usize = 6_000;
/// The index format.
pub const INDEX_VERSION: u64 = 1;
/// A host timestamp earlier than this (2000-01-01) is not a wall-clock time (tests and some
/// hosts send counters); the engine's clock is used instead.
pub const HOST_TIMESTAMP_MIN_MS: u64 = 946_684_800_000;

/// One message of an indexed turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexedMessage {
    pub role: Role,
    pub text: String,
}

/// One acknowledged turn as the history search sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnEntry {
    pub turn_id: String,
    pub sequence: u64,
    /// When the turn happened: the host's message timestamp, or the engine's clock.
    pub timestamp_ms: u64,
    /// The user and assistant text of the turn, in order (tool results are not indexed:
    /// large outputs have `memory_read_output`, and they would crowd the caps).
    pub messages: Vec<IndexedMessage>,
}

/// One index document (`history/<ov session id>/<slot>`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexChunk {
    pub version: u64,
    pub agent_id: String,
    pub ov_session_id: String,
    /// OpenClaw's `sessionId` (the transcript).
    pub session_id: String,
    pub chunk: u64,
    pub turns: Vec<TurnEntry>,
}

/// The state key prefix of a session's index (and of all of them: `history/`).
pub fn index_prefix(ov_session_id: &str) -> String {
    format!("history/{ov_session_id}/")
}

/// The chunk a sequence belongs to, and the state key of its slot.
pub fn chunk_of(sequence: u64) -> u64 {
    sequence / CHUNK_TURNS
}

pub fn chunk_key(ov_session_id: &str, chunk: u64) -> String {
    format!("{}{:02}", index_prefix(ov_session_id), chunk % CHUNK_SLOTS)
}

/// The OpenViking session id in an index key (`history/<id>/<slot>`).
pub fn session_of_key(key: &str) -> Option<&str> {
    let rest = key.strip_prefix("history/")?;
    let (id, slot) = rest.rsplit_once('/')?;
    (!id.is_empty() && slot.len() == 2 && slot.bytes().all(|b| b.is_ascii_digit())).then_some(id)
}

/// The host's timestamp of a turn: the first message's `timestamp` (ms, a number; an ISO
/// string is read too) that is a wall-clock time no later than a day after `now_ms`.
pub fn host_timestamp(messages: &[Value], now_ms: u64) -> Option<u64> {
    messages.iter().find_map(|m| {
        let t = Message::of(m).timestamp()?;
        let ms = t.as_u64().or_else(|| t.as_f64().filter(|f| f.is_finite() && *f >= 0.0).map(|f| f as u64)).or_else(|| t.as_str().and_then(when::parse_iso).map(|s| s.start))?;
        (HOST_TIMESTAMP_MIN_MS..=now_ms.saturating_add(crate::text::time::DAY_MS)).contains(&ms).then_some(ms)
    })
}

fn cut(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// The index entry of an envelope: its user and assistant text parts (already without the
/// engine's injected recall), bounded, and the turn's time.
pub fn turn_entry(env: &TurnEnvelope, host_messages: &[Value], now_ms: u64) -> TurnEntry {
    let mut messages: Vec<IndexedMessage> = Vec::new();
    let mut left = TURN_TEXT_MAX_CHARS;
    for p in &env.parts {
        let Part::Text { text, role } = p else { continue };
        if !matches!(role, Role::User | Role::Assistant) || left == 0 {
            continue;
        }
        let t = text.trim();
        if t.is_empty() {
            continue;
        }
        let t = cut(t, MESSAGE_TEXT_MAX_CHARS.min(left));
        left -= t.chars().count();
        match messages.last_mut() {
            // consecutive parts of one role are one message
            Some(last) if last.role == *role => {
                last.text.push('\n');
                last.text.push_str(t);
            }
            _ => messages.push(IndexedMessage { role: *role, text: t.to_string() }),
        }
    }
    TurnEntry { turn_id: env.turn_id.clone(), sequence: env.sequence, timestamp_ms: host_timestamp(host_messages, now_ms).unwrap_or(now_ms), messages }
}

/// The turns of a session as OpenViking holds them (archived messages, then the live ones,
/// oldest first), for a state dir that lacks its index (a second machine, a reinstall): the
/// messages of one turn share the `turn_id` the engine sent; messages without one (written
/// by an earlier release) start a turn at each user message. Sequences number the turns
/// from `first_sequence` in order; the time is the message's `created_at` (the host's time
/// the engine sent), else `fallback_ms`. Text as [`turn_entry`] keeps it.
pub fn turns_from_messages(messages: &[Value], first_sequence: u64, fallback_ms: u64) -> Vec<TurnEntry> {
    let mut out: Vec<TurnEntry> = Vec::new();
    let mut current: Option<String> = None;
    let mut left = 0;
    for (i, m) in messages.iter().enumerate() {
        let view = StoredMessage::of(m);
        let role = match view.role() {
            Some("user") => Role::User,
            Some("assistant") => Role::Assistant,
            _ => continue,
        };
        let id = match view.turn_id() {
            Some(t) => t.to_string(),
            None if role == Role::User || current.is_none() => view.id().map_or_else(|| format!("message-{i}"), str::to_string),
            None => current.clone().unwrap_or_default(),
        };
        if current.as_deref() != Some(id.as_str()) || out.is_empty() {
            let at = view.created_at().and_then(when::iso_ms).unwrap_or(fallback_ms);
            out.push(TurnEntry { turn_id: id.clone(), sequence: first_sequence + out.len() as u64, timestamp_ms: at, messages: Vec::new() });
            current = Some(id);
            left = TURN_TEXT_MAX_CHARS;
        }
        let Some(turn) = out.last_mut() else { continue };
        for p in view.parts() {
            let StoredPart::Text { text } = p else { continue };
            if left == 0 {
                continue;
            }
            let t = text.unwrap_or("").trim();
            if t.is_empty() {
                continue;
            }
            let t = cut(t, MESSAGE_TEXT_MAX_CHARS.min(left));
            left -= t.chars().count();
            match turn.messages.last_mut() {
                Some(last) if last.role == role => {
                    last.text.push('\n');
                    last.text.push_str(t);
                }
                _ => turn.messages.push(IndexedMessage { role, text: t.to_string() }),
            }
        }
    }
    out
}

/// Adds `entry` to the chunk document (`existing`: what its slot holds now, if anything):
/// a slot holding an older chunk of the ring is started afresh; a turn already there (same
/// sequence or turn id, e.g. a replayed write) is replaced, not added twice.
pub fn add_to_chunk(existing: Option<IndexChunk>, agent_id: &str, ov_session_id: &str, session_id: &str, entry: TurnEntry) -> IndexChunk {
    let chunk = chunk_of(entry.sequence);
    let mut doc = match existing {
        Some(d) if d.chunk == chunk && d.agent_id == agent_id && d.ov_session_id == ov_session_id && d.version == INDEX_VERSION => d,
        _ => IndexChunk { version: INDEX_VERSION, agent_id: agent_id.into(), ov_session_id: ov_session_id.into(), session_id: session_id.into(), chunk, turns: Vec::new() },
    };
    doc.turns.retain(|t| t.sequence != entry.sequence && t.turn_id != entry.turn_id);
    doc.turns.push(entry);
    crate::order::sort_by_key(&mut doc.turns, |t| t.sequence);
    doc
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;
    use crate::lifecycle::turn::{build_envelope, TurnMeta};
    use serde_json::json;

    const NOW: u64 = 1_795_185_000_000;

    fn env(messages: &[Value], seq: u64) -> TurnEnvelope {
        build_envelope(messages, TurnMeta { turn_id: format!("t{seq}"), session_id: "main--s".into(), sequence: seq, now_ms: NOW, used_context_uris: vec![], compact_checkpoint_id: None }).unwrap()
    }

    #[test]
    fn an_entry_has_user_and_assistant_text_and_the_hosts_time() {
        let msgs = vec![
            json!({"role": "user", "content": "Where is the vault?", "timestamp": NOW - 5_000}),
            json!({"role": "assistant", "content": [{"type": "toolCall", "id": "c", "name": "exec", "arguments": {}}]}),
            json!({"role": "toolResult", "toolCallId": "c", "toolName": "exec", "content": [{"type": "text", "text": "SECRET TOOL OUTPUT"}]}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "In the cellar."}]}),
        ];
        let e = turn_entry(&env(&msgs, 3), &msgs, NOW);
        assert_eq!(e.timestamp_ms, NOW - 5_000);
        assert_eq!(e.turn_id, "t3");
        assert_eq!(e.messages.iter().map(|m| (m.role, m.text.as_str())).collect::<Vec<_>>(), [(Role::User, "Where is the vault?"), (Role::Assistant, "In the cellar.")]);
        // a counter, not a time: the engine's clock
        let msgs = vec![json!({"role": "user", "content": "hi", "timestamp": 7})];
        assert_eq!(turn_entry(&env(&msgs, 1), &msgs, NOW).timestamp_ms, NOW);
        let msgs = vec![json!({"role": "user", "content": "hi", "timestamp": "2026-11-19T10:00:00Z"})];
        assert_eq!(crate::text::time::iso8601(turn_entry(&env(&msgs, 1), &msgs, NOW).timestamp_ms), "2026-11-19T10:00:00.000Z");
    }

    #[test]
    fn text_is_bounded_per_message_and_per_turn() {
        let long = "é".repeat(MESSAGE_TEXT_MAX_CHARS * 2);
        let msgs: Vec<Value> = (0..6).flat_map(|_| [json!({"role": "user", "content": long.clone()}), json!({"role": "assistant", "content": long.clone()})]).collect();
        let e = turn_entry(&env(&msgs, 1), &msgs, NOW);
        let total: usize = e.messages.iter().map(|m| m.text.chars().count()).sum();
        assert!(total <= TURN_TEXT_MAX_CHARS + e.messages.len(), "{total}");
        assert!(e.messages.iter().all(|m| m.text.chars().count() <= MESSAGE_TEXT_MAX_CHARS));
    }

    #[test]
    fn turns_are_read_back_from_openvikings_messages() {
        let at = "2026-11-20T14:30:00.000Z";
        let msgs = vec![
            json!({"id": "m1", "role": "user", "turn_id": "k-1", "created_at": at, "message_kind": "user_query", "parts": [{"type": "text", "text": "Where is the vault?"}]}),
            json!({"id": "m2", "role": "assistant", "turn_id": "k-1", "created_at": at, "parts": [{"type": "tool", "tool_id": "c", "tool_output": "SECRET"}]}),
            json!({"id": "m3", "role": "assistant", "turn_id": "k-1", "created_at": at, "parts": [{"type": "text", "text": "In the cellar."}]}),
            json!({"id": "m4", "role": "user", "turn_id": "k-2", "created_at": "2026-11-21T09:00:00+00:00", "parts": [{"type": "text", "text": "Thanks"}]}),
            // an earlier release's messages: no turn ids, a user message opens a turn
            json!({"id": "m5", "role": "user", "parts": [{"type": "text", "text": "old question"}]}),
            json!({"id": "m6", "role": "assistant", "parts": [{"type": "text", "text": "old answer"}]}),
        ];
        let turns = turns_from_messages(&msgs, 10, NOW);
        let ids: Vec<_> = turns.iter().map(|t| (t.turn_id.as_str(), t.sequence)).collect();
        assert_eq!(ids, [("k-1", 10), ("k-2", 11), ("m5", 12)]);
        assert_eq!(crate::text::time::iso8601(turns[0].timestamp_ms), at);
        assert_eq!(crate::text::time::iso8601(turns[1].timestamp_ms), "2026-11-21T09:00:00.000Z");
        assert_eq!(turns[2].timestamp_ms, NOW, "no created_at: the fallback");
        let text: Vec<_> = turns[0].messages.iter().map(|m| (m.role, m.text.as_str())).collect();
        assert_eq!(text, [(Role::User, "Where is the vault?"), (Role::Assistant, "In the cellar.")], "tool output is not indexed");
        assert_eq!(turns[2].messages.len(), 2);
    }

    #[test]
    fn chunks_are_a_ring_and_replays_replace() {
        let entry = |seq: u64| TurnEntry { turn_id: format!("t{seq}"), sequence: seq, timestamp_ms: NOW, messages: vec![] };
        let d = add_to_chunk(None, "main", "main--s", "s", entry(1));
        let d = add_to_chunk(Some(d), "main", "main--s", "s", entry(2));
        let d = add_to_chunk(Some(d), "main", "main--s", "s", entry(1));
        assert_eq!(d.turns.iter().map(|t| t.sequence).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(chunk_key("main--s", 0), chunk_key("main--s", CHUNK_SLOTS));
        let wrapped = add_to_chunk(Some(d), "main", "main--s", "s", entry(CHUNK_TURNS * CHUNK_SLOTS + 1));
        assert_eq!(wrapped.turns.len(), 1, "the slot's older chunk is dropped");
        assert_eq!(session_of_key(&chunk_key("a--b", 3)), Some("a--b"));
        assert_eq!(session_of_key("history/x"), None);
    }
}
