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
//! - **Fusion** (a convex combination of normalised scores): a turn's score is
//!   `WORDS_WEIGHT × words / best words + (1 − WORDS_WEIGHT) × (vector − lowest) /
//!   max(highest − lowest, SPREAD_FLOOR)` over the turns each side found, a side counting 0
//!   where it did not find the turn. The floor keeps an embedder that cannot tell the turns
//!   apart (all scores within a few hundredths, e.g. an English model on Chinese text) from
//!   reordering what the words found. With `match: "any"` a turn the vectors found and no
//!   word did is a hit too (its excerpt is the start of its first message of the role
//!   asked); with `"all"` only turns holding every word are hits, ordered by the fused score.
//!   Both constants were chosen on the tuning conversations (`tests/bench/quality`).

use super::TurnEntry;
use crate::lifecycle::turn::Role;
use serde_json::Value;

/// Characters of a turn embedded (the user's text first, then the assistant's).
pub const DOC_MAX_CHARS: usize = 2_000;
/// Files asked of the vector search per history search.
pub const POOL: usize = 30;
/// The words' share of a fused score.
pub const WORDS_WEIGHT: f64 = 0.8;
/// The least spread of vector scores read as the full range.
pub const SPREAD_FLOOR: f64 = 0.3;

/// One turn the vector search found: its OpenViking session, file name and score.
#[derive(Debug, Clone, PartialEq)]
pub struct MeaningHit {
    pub session: String,
    pub name: String,
    pub score: f64,
}

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

/// The turns a find over `dir` (an agent's folder) answered, best first: files directly in
/// a session folder under `dir` (another folder's files and the folders' own abstracts never
/// count), each once, at most [`POOL`].
pub fn ranked(find_answer: &Value, dir: &str) -> Vec<MeaningHit> {
    let prefix = format!("{}/", dir.trim_end_matches('/'));
    let lists = ["resources", "memories"].into_iter().filter_map(|k| find_answer.get(k).and_then(Value::as_array));
    let mut items: Vec<(usize, MeaningHit)> = Vec::new();
    for item in lists.flatten().chain(find_answer.as_array().into_iter().flatten()) {
        let Some(uri) = item.get("uri").and_then(Value::as_str) else { continue };
        let Some(rest) = uri.strip_prefix(&prefix) else { continue };
        let Some((session, name)) = rest.split_once('/').filter(|(s, n)| !s.is_empty() && n.starts_with("t-") && n.ends_with(".md") && !n.contains('/')) else { continue };
        let score = item.get("score").and_then(Value::as_f64).filter(|s| s.is_finite()).unwrap_or(0.0);
        items.push((items.len(), MeaningHit { session: session.into(), name: name.into(), score }));
    }
    crate::order::sort_by(&mut items, |a, b| b.1.score.total_cmp(&a.1.score).then(a.0.cmp(&b.0)));
    let mut seen = std::collections::HashSet::new();
    items.into_iter().map(|(_, h)| h).filter(|h| seen.insert((h.session.clone(), h.name.clone()))).take(POOL).collect()
}

/// The vector side of each hit, normalised: `(score − lowest) / max(spread, SPREAD_FLOOR)`.
pub fn normalised(hits: &[MeaningHit]) -> Vec<f64> {
    let hi = hits.iter().map(|h| h.score).fold(f64::NEG_INFINITY, f64::max);
    let lo = hits.iter().map(|h| h.score).fold(f64::INFINITY, f64::min);
    hits.iter().map(|h| (h.score - lo) / (hi - lo).max(SPREAD_FLOOR)).collect()
}

/// The fused score of a turn from its words side (its score over the best words score) and
/// its normalised vector side; 0 for a side that did not find it.
pub fn fused(words: f64, vector: f64) -> f64 {
    WORDS_WEIGHT * words + (1.0 - WORDS_WEIGHT) * vector
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
            {"uri": format!("{dir}/main--b/t-0000000000000001.md"), "level": 2, "score": 0.3},
            {"level": 2, "score": 1.0}
        ]});
        let got: Vec<(String, String, f64)> = ranked(&answer, dir).into_iter().map(|h| (h.session, h.name, h.score)).collect();
        let row = |s: &str, n: &str, x: f64| (s.to_string(), n.to_string(), x);
        assert_eq!(got, [row("main--a", "t-0000000000000002.md", 0.9), row("main--a", "t-0000000000000001.md", 0.5), row("main--b", "t-0000000000000001.md", 0.4)]);
        assert!(ranked(&json!("nonsense"), dir).is_empty());
    }

    #[test]
    fn a_flat_vector_order_weighs_little() {
        let hit = |score: f64| MeaningHit { session: "s".into(), name: "n".into(), score };
        // a spread wider than the floor spans 0..1
        assert_eq!(normalised(&[hit(0.9), hit(0.5)]), [1.0, 0.0]);
        // a spread of 0.03 counts as 0.03 / SPREAD_FLOOR of the range
        let flat = normalised(&[hit(0.83), hit(0.80)]);
        assert!((flat[0] - 0.03 / SPREAD_FLOOR).abs() < 1e-9 && flat[1] == 0.0, "{flat:?}");
        assert!(normalised(&[]).is_empty());
        // the best words hit outranks a turn only the vectors found, however sure they are
        assert!(fused(1.0, 0.0) > fused(0.0, 1.0));
        assert!(fused(0.9, 1.0) > fused(1.0, 0.0));
    }
}
