//! History search by meaning: the archived turns as files OpenViking embeds, and the fusion
//! of their vector order with the word order ([`super::rank`]).
//!
//! - **What is embedded.** When a commit's task completes, each turn of its archive becomes
//!   one text file ([`doc_text`]: its user and assistant text, at most [`DOC_MAX_CHARS`])
//!   at [`doc_uri`] — `…/resources/openviking-context-engine/<agent>/turns/<ov session>/`
//!   `<name>.md`, the name a hash of the turn id ([`doc_name`]) — written in one request per
//!   commit with `processing_mode: "vectors_only"`: one embedding per archived turn, no model
//!   call, off every turn's path. Live turns are not embedded: they are in the model's context
//!   already, and the word index finds them.
//! - **The search.** A `query` search (relevance order) sends one find over this agent's
//!   folder ([`agent_dir`], or the session's with `scope: "session"`) for [`POOL`] files;
//!   only uris under that folder count, and each is mapped back to a turn of this agent's
//!   word index by its name — a file the index does not hold is ignored, so the window, the
//!   role and the agent filters apply as they do to words.
//! - **Fusion** (reciprocal rank fusion): a turn's score is `1 / (K + word rank) + WEIGHT /
//!   (K + vector rank)`, ranks from 1, a term missing when the turn is not in that list. With
//!   `match: "any"` a turn the vectors found and no word did is a hit too (its excerpt is the
//!   start of its first message of the role asked); with `"all"` only turns holding every
//!   word are hits, ordered by the fused score.

use super::TurnEntry;
use crate::lifecycle::turn::Role;
use serde_json::Value;

/// Characters of a turn embedded (the user's text first, then the assistant's).
pub const DOC_MAX_CHARS: usize = 2_000;
/// Files asked of the vector search per history search.
pub const POOL: usize = 30;
/// The rank constant of the fusion.
pub const K: f64 = 60.0;
/// The vector order's weight against the word order's (1).
pub const WEIGHT: f64 = 1.0;

/// This agent's embedded turns: one folder per OpenViking session below it.
pub fn agent_dir(user_id: &str, agent_id: &str) -> String {
    format!("{}/turns", crate::lifecycle::checkpoint::engine_dir(user_id, agent_id))
}

/// One session's embedded turns.
pub fn session_dir(user_id: &str, agent_id: &str, ov_session_id: &str) -> String {
    format!("{}/{ov_session_id}", agent_dir(user_id, agent_id))
}

/// The file name of a turn: `t-` and 16 hex digits of the SHA-256 of its id (a turn id may
/// hold any character; a uri segment may not).
pub fn doc_name(turn_id: &str) -> String {
    let hash = crate::text::sha256::sha256_hex(turn_id.as_bytes());
    format!("t-{}.md", &hash[..16])
}

pub fn doc_uri(user_id: &str, agent_id: &str, ov_session_id: &str, turn_id: &str) -> String {
    format!("{}/{}", session_dir(user_id, agent_id, ov_session_id), doc_name(turn_id))
}

/// The embedded text of a turn: its user messages, then its assistant messages, each line
/// prefixed with the role, at most [`DOC_MAX_CHARS`] characters; `None` when it has no text.
pub fn doc_text(turn: &TurnEntry) -> Option<String> {
    let mut out = String::new();
    for role in [Role::User, Role::Assistant] {
        for m in turn.messages.iter().filter(|m| m.role == role && !m.text.trim().is_empty()) {
            let label = if role == Role::User { "user" } else { "assistant" };
            out.push_str(label);
            out.push_str(": ");
            out.push_str(m.text.trim());
            out.push('\n');
        }
    }
    let text: String = out.trim_end().chars().take(DOC_MAX_CHARS).collect();
    (!text.trim().is_empty()).then_some(text)
}

/// The turns a find over `dir` (an agent's folder) answered, best first, as (OpenViking
/// session id, file name): files directly in a session folder under `dir` (another folder's
/// files and the folders' own abstracts never count), each once.
pub fn ranked_names(find_answer: &Value, dir: &str) -> Vec<(String, String)> {
    let prefix = format!("{}/", dir.trim_end_matches('/'));
    let lists = ["resources", "memories"].into_iter().filter_map(|k| find_answer.get(k).and_then(Value::as_array));
    let mut items: Vec<(f64, usize, (&str, &str))> = Vec::new();
    for item in lists.flatten().chain(find_answer.as_array().into_iter().flatten()) {
        let Some(uri) = item.get("uri").and_then(Value::as_str) else { continue };
        let Some(rest) = uri.strip_prefix(&prefix) else { continue };
        let Some((session, name)) = rest.split_once('/').filter(|(s, n)| !s.is_empty() && n.starts_with("t-") && n.ends_with(".md") && !n.contains('/')) else { continue };
        let score = item.get("score").and_then(Value::as_f64).filter(|s| s.is_finite()).unwrap_or(0.0);
        items.push((score, items.len(), (session, name)));
    }
    crate::order::sort_by(&mut items, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut seen = std::collections::HashSet::new();
    items.into_iter().filter(|(_, _, k)| seen.insert(*k)).map(|(_, _, (s, n))| (s.to_string(), n.to_string())).take(POOL).collect()
}

/// The fused score of a turn from its word rank and vector rank (1-based; `None`: absent).
pub fn fused(word_rank: Option<usize>, vector_rank: Option<usize>) -> f64 {
    word_rank.map_or(0.0, |r| 1.0 / (K + r as f64)) + vector_rank.map_or(0.0, |r| WEIGHT / (K + r as f64))
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;
    use crate::tools::history::IndexedMessage;
    use serde_json::json;

    #[test]
    fn names_are_safe_and_stable() {
        let a = doc_name("turn/1?x");
        assert_eq!(a, doc_name("turn/1?x"));
        assert_ne!(a, doc_name("turn/2"));
        assert!(a.starts_with("t-") && a.ends_with(".md") && a.len() == 21 && a[2..18].bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(doc_uri("u", "main", "main--s", "x"), format!("viking://user/u/resources/openviking-context-engine/main/turns/main--s/{}", doc_name("x")));
    }

    #[test]
    fn the_text_puts_the_user_first_and_is_bounded() {
        let turn = |msgs: Vec<(Role, String)>| TurnEntry { turn_id: "t".into(), sequence: 1, timestamp_ms: 0, messages: msgs.into_iter().map(|(role, text)| IndexedMessage { role, text }).collect() };
        let t = turn(vec![(Role::Assistant, "Sure.".into()), (Role::User, " I adopted a greyhound ".into())]);
        assert_eq!(doc_text(&t).unwrap(), "user: I adopted a greyhound\nassistant: Sure.");
        assert_eq!(doc_text(&turn(vec![(Role::User, "  ".into())])), None);
        let long = turn(vec![(Role::User, "é".repeat(5_000))]);
        assert_eq!(doc_text(&long).unwrap().chars().count(), DOC_MAX_CHARS);
    }

    #[test]
    fn only_files_under_the_folder_count_once_best_first() {
        let dir = "viking://user/u/resources/openviking-context-engine/main/turns";
        let answer = json!({"memories": [], "resources": [
            {"uri": format!("{dir}/main--a/t-0000000000000001.md"), "level": 2, "score": 0.5},
            {"uri": format!("{dir}/main--a/t-0000000000000002.md"), "level": 2, "score": 0.9},
            {"uri": format!("{dir}/main--a/.abstract.md"), "level": 0, "score": 0.99},
            {"uri": "viking://user/u/resources/openviking-context-engine/other/turns/other--a/t-0000000000000003.md", "level": 2, "score": 0.95},
            {"uri": format!("{dir}-x/main--a/t-0000000000000004.md"), "level": 2, "score": 0.97},
            {"uri": format!("{dir}/main--b/t-0000000000000001.md"), "level": 2, "score": 0.4},
            {"level": 2, "score": 1.0}
        ]});
        let pair = |s: &str, n: &str| (s.to_string(), n.to_string());
        assert_eq!(ranked_names(&answer, dir), [pair("main--a", "t-0000000000000002.md"), pair("main--a", "t-0000000000000001.md"), pair("main--b", "t-0000000000000001.md")]);
        assert!(ranked_names(&json!("nonsense"), dir).is_empty());
    }

    #[test]
    fn fusion_rewards_agreement() {
        assert!(fused(Some(1), Some(1)) > fused(Some(1), None));
        assert!(fused(Some(3), Some(2)) > fused(Some(1), None));
        assert_eq!(fused(None, None), 0.0);
        assert_eq!(fused(Some(1), None), fused(None, Some(1)) / WEIGHT);
    }
}
