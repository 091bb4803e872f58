//! `memory_expand` (design §6.2): from a compact summary, an archive or an extracted memory
//! back to the raw turns behind it. The host resolves the link (checkpoint → archive) and
//! reads the archive's messages; this ranks the archive's turns against the query and cuts
//! excerpts, at most `memoryExpandMaxResults`.
//!
//! Links followed: memory → the checkpoint that extracted it (`memory_diff.json`) → its
//! archive; summary/archive URI → that archive; each archive turn → its engine turn id and
//! sequence through the checkpoint's `source_turn_range` and `turn_ids`.

use crate::message::{StoredMessage, StoredPart};
use crate::lifecycle::checkpoint::CompactCheckpoint;
use crate::recall::rank::query_tokens;
use crate::text::truncate_with_ellipsis;
use serde::Serialize;
use serde_json::Value;

/// What a URI given to `memory_expand` points at.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum ExpandTarget {
    /// `viking://user/<uid>/sessions/<sid>/history/archive_NNN[/…]`
    Archive { session_id: String, archive_id: String },
    /// `viking://user/<uid>/sessions/<sid>` (the session itself: its latest archive)
    Session { session_id: String },
    /// Anything under `…/memories/`
    Memory { uri: String },
}

/// Classifies a URI; `None` when it is none of the three.
pub fn classify(uri: &str) -> Option<ExpandTarget> {
    let u = uri.trim().trim_end_matches('/');
    if !u.starts_with("viking://") {
        return None;
    }
    if u.contains("/memories/") || u.ends_with("/memories") {
        return Some(ExpandTarget::Memory { uri: u.to_string() });
    }
    let after = u.split("/sessions/").nth(1)?;
    let mut parts = after.split('/');
    let session_id = parts.next()?.to_string();
    if session_id.is_empty() {
        return None;
    }
    match (parts.next(), parts.next()) {
        (Some("history"), Some(archive)) if archive.starts_with("archive_") => {
            Some(ExpandTarget::Archive { session_id, archive_id: archive.to_string() })
        }
        (None, _) => Some(ExpandTarget::Session { session_id }),
        _ => None,
    }
}

/// One raw turn, as an excerpt.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Excerpt {
    pub turn_id: Option<String>,
    pub sequence: Option<u64>,
    /// `[user] …` / `[assistant] …` / `[tool exec] …` lines, cut to a readable length.
    pub text: String,
    pub score: f64,
    /// Message ids in the archive, for reading further.
    pub message_ids: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Expansion {
    pub archive_uri: String,
    pub checkpoint_id: Option<String>,
    pub turn_range: Option<(u64, u64)>,
    #[cfg_attr(feature = "typescript", ts(inline))]
    pub excerpts: Vec<Excerpt>,
    pub total_turns: usize,
    /// URIs the model can read further (archive messages, overview, checkpoint).
    pub readable: Vec<String>,
}

const EXCERPT_UNITS: usize = 700;

fn part_text(p: StoredPart) -> Option<String> {
    match p {
        StoredPart::Text { text } => text.map(str::to_string),
        StoredPart::Tool(t) => {
            let name = t.name.unwrap_or("tool");
            let input = t.input.map(|v| v.to_string()).unwrap_or_default();
            let output = t.output.unwrap_or("");
            Some(format!("[tool {name}] {input} → {output}"))
        }
        StoredPart::Context { .. } | StoredPart::Other(_) => None,
    }
}

/// Groups archive messages (`{id, role, parts}`) into turns starting at user messages.
fn turns_of(messages: &[Value]) -> Vec<(Vec<String>, String)> {
    let mut turns: Vec<(Vec<String>, String)> = Vec::new();
    for m in messages {
        let m = StoredMessage::of(m);
        let role = m.role().unwrap_or("");
        if role == "user" || turns.is_empty() {
            turns.push((Vec::new(), String::new()));
        }
        let Some((ids, text)) = turns.last_mut() else { continue };
        if let Some(id) = m.id() {
            ids.push(id.to_string());
        }
        for p in m.parts() {
            if let Some(t) = part_text(p) {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&format!("[{role}] {t}"));
            }
        }
    }
    turns
}

/// Ranks the archive's turns by the query (all turns in order when there is none) and
/// returns at most `limit` excerpts.
pub fn expand(archive_uri: &str, messages: &[Value], checkpoint: Option<&CompactCheckpoint>, query: Option<&str>, limit: usize) -> Expansion {
    let turns = turns_of(messages);
    let tokens = query.map(|q| query_tokens(q, 16.0)).unwrap_or_default();
    let mut scored: Vec<(usize, f64)> = turns
        .iter()
        .enumerate()
        .map(|(i, (_, text))| {
            if tokens.is_empty() {
                return (i, 0.0);
            }
            let lower = text.to_lowercase();
            let hits = tokens.iter().filter(|t| lower.contains(t.as_str())).count();
            (i, hits as f64 / tokens.len() as f64)
        })
        .collect();
    if !tokens.is_empty() {
        scored.retain(|(_, s)| *s > 0.0);
        crate::order::sort_by(&mut scored, |a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    }
    scored.truncate(limit.max(1));
    let excerpts = scored
        .into_iter()
        .map(|(i, score)| {
            let (ids, text) = &turns[i];
            let sequence = checkpoint.map(|c| c.source_turn_range.start_sequence + i as u64);
            let turn_id = checkpoint.and_then(|c| c.turn_ids.get(i).cloned());
            Excerpt { turn_id, sequence, text: truncate_with_ellipsis(text, EXCERPT_UNITS), score: (score * 100.0).round() / 100.0, message_ids: ids.clone() }
        })
        .collect();
    let mut readable = vec![format!("{archive_uri}/messages.jsonl"), format!("{archive_uri}/.overview.md")];
    if let Some(c) = checkpoint {
        readable.extend(c.extracted_memory_uris.iter().cloned());
    }
    Expansion {
        archive_uri: archive_uri.to_string(),
        checkpoint_id: checkpoint.map(|c| c.checkpoint_id.clone()),
        turn_range: checkpoint.map(|c| (c.source_turn_range.start_sequence, c.source_turn_range.end_sequence)),
        excerpts,
        total_turns: turns.len(),
        readable,
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;
    use serde_json::json;

    #[test]
    fn classifies_uris() {
        assert_eq!(
            classify("viking://user/alice/sessions/main--s1/history/archive_002/.overview.md"),
            Some(ExpandTarget::Archive { session_id: "main--s1".into(), archive_id: "archive_002".into() })
        );
        assert_eq!(classify("viking://user/alice/sessions/main--s1"), Some(ExpandTarget::Session { session_id: "main--s1".into() }));
        assert!(matches!(classify("viking://user/alice/memories/events/x.md"), Some(ExpandTarget::Memory { .. })));
        assert_eq!(classify("https://example.com"), None);
        assert_eq!(classify("viking://user/alice/resources/x"), None);
    }

    #[test]
    fn ranks_turns_by_the_query_and_maps_them_to_sequences() {
        let msgs = vec![
            json!({"id": "m1", "role": "user", "parts": [{"type": "text", "text": "We decided the staging pool stays at 10"}]}),
            json!({"id": "m2", "role": "assistant", "parts": [{"type": "text", "text": "Noted."}]}),
            json!({"id": "m3", "role": "user", "parts": [{"type": "text", "text": "Tip: slow queries on invoices need an index"}]}),
            json!({"id": "m4", "role": "assistant", "parts": [{"type": "tool", "tool_name": "exec", "tool_input": {"cmd": "explain"}, "tool_output": "Seq Scan on invoices"}]}),
        ];
        let cp: CompactCheckpoint = serde_json::from_value(json!({
            "checkpoint_id": "c", "session_id": "s", "committed_at": "", "archive_index": 1,
            "source_turn_range": {"start_sequence": 4, "end_sequence": 5}, "extracted_memory_uris": ["viking://m"],
            "archive_uri": "a", "reason": "r", "turn_ids": ["t4", "t5"]
        }))
        .unwrap();
        let e = expand("viking://user/u/sessions/s/history/archive_001", &msgs, Some(&cp), Some("which slow query tip?"), 6);
        assert_eq!(e.total_turns, 2);
        assert_eq!(e.excerpts.len(), 1);
        assert_eq!(e.excerpts[0].sequence, Some(5));
        assert_eq!(e.excerpts[0].turn_id.as_deref(), Some("t5"));
        assert!(e.excerpts[0].text.contains("Seq Scan on invoices"));
        assert_eq!(e.excerpts[0].message_ids, vec!["m3", "m4"]);
        let all = expand("a", &msgs, None, None, 1);
        assert_eq!(all.excerpts.len(), 1, "limit holds");
    }
}
