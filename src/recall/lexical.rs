//! Lexical candidates: the memories that hold the question's words, found by OpenViking's
//! grep over the user scope (`POST /api/v1/search/grep`: no embedding), ranked here by BM25
//! over the lines it matched, and fused with the vector candidates of the same turn.
//!
//! Why: a vector search finds what its embedding model reads well. A question whose words the
//! model does not know (another language, a rare name, a misspelling it splits oddly) may leave
//! the memory that answers it out of the vector candidates altogether, while the memory holds
//! the question's words. The grep brings those back as candidates; the pipeline still decides
//! what reaches the model.
//!
//! - **Words** ([`terms`]): the query's relevance words (the rerank's tokenizer: function words
//!   out, CJK character pairs), without the words that only say what kind of answer is
//!   wanted ("now", "before", "最近"), at most [`MAX_TERMS`]. Every word is letters and digits
//!   only, so the grep pattern ([`pattern`]) is a plain alternation: nothing to escape.
//! - **Rank** ([`hits`]): the matched lines of each file (with [`CONTEXT_LINES`] around them)
//!   make its text; BM25 (`text::bm25`, the history search's: k1 1.2, b 0.75, not tuned) over
//!   the files the grep answered, a word counted where a word starts. Folder abstracts and overviews
//!   (`.abstract.md`, `.overview.md`) are not memories and are left out.
//! - **Fusion** ([`fuse`]): the vector candidates keep their scores; the lexical hit at rank
//!   `r` is placed at the score of the vector candidate at rank `r` (a memory found by both
//!   keeps the better of the two), so it enters the pool where its rank says, inside the
//!   score window when its rank is near the top, and the rerank weighs it with the rest. Only
//!   the first [`FUSED`] hits are placed. With no vector candidate at all nothing is placed
//!   (an empty store, a scope that failed).

use crate::recall::rank::{is_cue_token, matches_at};
use crate::text::bm25::bm25;
use serde_json::{json, Value};

/// The most words in one grep pattern (a long query of several turns names many).
pub const MAX_TERMS: usize = 24;
/// The most matched lines one grep answers (`node_limit`): a store of a few thousand
/// memories, most of them matching some common word, still answers whole.
pub const GREP_NODE_LIMIT: usize = 2000;
/// Lines read around each matched line, so a memory of several lines reads whole.
pub const CONTEXT_LINES: usize = 2;
/// The lexical hits placed among the vector candidates. Chosen on the tuning sets of the
/// quality benchmark (see `tests/bench/quality/RESULTS.md`).
pub const FUSED: usize = 6;

/// The words a grep looks for (see the module doc); empty when the query has none.
pub fn terms(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in crate::recall::pipeline::relevance_words(query) {
        if out.len() >= MAX_TERMS {
            break;
        }
        if !is_cue_token(&t) && t.chars().all(char::is_alphanumeric) && !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// The grep pattern for `terms` (an alternation of plain words, matched case-insensitively),
/// `None` when there is no word.
pub fn pattern(terms: &[String]) -> Option<String> {
    (!terms.is_empty()).then(|| terms.join("|"))
}

/// The grep request's body for the folder `uri` (`POST /api/v1/search/grep`).
pub fn grep_body(uri: &str, pattern: &str) -> Value {
    json!({
        "uri": uri,
        "pattern": pattern,
        "case_insensitive": true,
        "node_limit": GREP_NODE_LIMIT,
        "before_context": CONTEXT_LINES,
        "after_context": CONTEXT_LINES,
    })
}

/// One memory the grep found, with the text it matched in and its BM25 score.
#[derive(Debug, Clone, PartialEq)]
pub struct LexicalHit {
    pub uri: String,
    pub text: String,
    pub score: f64,
}

/// A file the grep may answer that is not a memory: a folder's abstract or overview.
fn is_memory_file(uri: &str) -> bool {
    let name = uri.rsplit('/').next().unwrap_or("");
    !name.is_empty() && !name.starts_with('.')
}

/// How often `term` occurs in the lowercased `text` where a word starts (a CJK pair anywhere).
fn count(text: &str, term: &str) -> usize {
    let mut n = 0;
    let mut from = 0;
    while let Some(at) = text[from..].find(term) {
        let i = from + at;
        if matches_at(text, i, term) {
            n += 1;
        }
        from = i + term.len();
    }
    n
}

/// The grep answer's files ranked for `terms` (best first, ties by uri); an answer of another
/// shape gives none.
pub fn hits(answer: &Value, terms: &[String]) -> Vec<LexicalHit> {
    let Some(matches) = answer.get("matches").and_then(Value::as_array) else { return Vec::new() };
    // every line read, by file and number: the matched ones and those around them (a line
    // twice when two matches are near: kept once below)
    let mut lines: Vec<(&str, u64, &str)> = Vec::new();
    for m in matches {
        let Some(uri) = m.get("uri").and_then(Value::as_str).filter(|u| is_memory_file(u)) else { continue };
        let around = ["before_context", "after_context"].into_iter().filter_map(|side| m.get(side)?.as_array()).flatten();
        for l in std::iter::once(m).chain(around) {
            if let (Some(n), Some(c)) = (l.get("line").and_then(Value::as_u64), l.get("content").and_then(Value::as_str)) {
                lines.push((uri, n, c));
            }
        }
    }
    crate::order::sort_by(&mut lines, |a, b| a.0.cmp(b.0).then(a.1.cmp(&b.1)));
    lines.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
    let mut docs: Vec<(&str, String, String)> = Vec::new();
    for (uri, _, line) in lines {
        // a stored memory's field comment is not its text
        let line = line.trim();
        if !matches!(docs.last(), Some(d) if d.0 == uri) {
            docs.push((uri, String::new(), String::new()));
        }
        if line.is_empty() || line.starts_with("<!--") {
            continue;
        }
        let doc = docs.last_mut().expect("pushed above");
        if !doc.1.is_empty() {
            doc.1.push('\n');
        }
        doc.1.push_str(line);
    }
    for doc in docs.iter_mut() {
        crate::text::push_lowercase(&mut doc.2, &doc.1);
    }
    if docs.is_empty() {
        return Vec::new();
    }
    let n = docs.len();
    let lens: Vec<usize> = docs.iter().map(|d| d.2.chars().count()).collect();
    let avg_len = lens.iter().sum::<usize>() as f64 / n as f64;
    let tf: Vec<Vec<usize>> = docs.iter().map(|d| terms.iter().map(|t| count(&d.2, t)).collect()).collect();
    let df: Vec<usize> = (0..terms.len()).map(|k| tf.iter().filter(|row| row[k] > 0).count()).collect();
    let mut out: Vec<LexicalHit> = docs
        .into_iter()
        .zip(tf)
        .zip(lens)
        .filter_map(|(((uri, text, _), row), len)| {
            let score = bm25(&row, &df, n, len, avg_len);
            (score > 0.0).then(|| LexicalHit { uri: uri.to_string(), text, score })
        })
        .collect();
    crate::order::sort_by(&mut out, |a, b| b.score.total_cmp(&a.score).then_with(|| a.uri.cmp(&b.uri)));
    out
}

/// The find answer `answer` (`{memories: [...]}` or the bare list) with the first `take` of
/// `hits` placed among its memories (see the module doc): a memory it holds gets the better
/// of its score and the score at its lexical rank, another is added as a memory (level 2,
/// the matched text as its abstract). Unchanged when it holds no memory to take scores from.
pub fn fuse(answer: &mut Value, hits: &[LexicalHit], take: usize) {
    fuse_with(answer, hits, take, LIFT)
}

/// Whether a memory both searches found gets the better of its two ranks' scores ([`fuse`]);
/// without, only the memories the vector search missed are placed. Chosen on the tuning sets.
pub const LIFT: bool = true;

/// [`fuse`], lifting a memory both found only if `lift` (the benchmark's knob, [`LIFT`]).
pub fn fuse_with(answer: &mut Value, hits: &[LexicalHit], take: usize, lift: bool) {
    let list = match answer {
        Value::Object(o) => match o.get_mut("memories") {
            Some(Value::Array(a)) => a,
            _ => return,
        },
        Value::Array(a) => a,
        _ => return,
    };
    let score_of = |m: &Value| m.get("score").and_then(Value::as_f64).filter(|s| s.is_finite());
    let is_memory = |m: &Value| m.get("level").and_then(Value::as_f64) == Some(2.0);
    let mut ladder: Vec<f64> = list.iter().filter(|m| is_memory(m)).filter_map(score_of).collect();
    crate::order::sort_by(&mut ladder, |a, b| b.total_cmp(a));
    let Some(&lowest) = ladder.last() else { return };
    let found = list.len();
    for (r, hit) in hits.iter().take(take).enumerate() {
        let placed = ladder.get(r).copied().unwrap_or(lowest);
        // the first of the find's items with this uri (a few dozen: a scan)
        match list[..found].iter().position(|m| m.get("uri").and_then(Value::as_str) == Some(hit.uri.as_str())) {
            Some(i) => {
                if let Value::Object(m) = &mut list[i] {
                    let own = m.get("score").and_then(Value::as_f64).unwrap_or(0.0);
                    if lift && placed > own {
                        m.insert("score".into(), json!(placed));
                    }
                    m.insert("lexical_rank".into(), json!(r + 1));
                }
            }
            None => list.push(json!({ "uri": hit.uri, "level": 2, "score": placed, "abstract": hit.text, "lexical_rank": r + 1 })),
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    fn line(uri: &str, n: u64, content: &str) -> Value {
        json!({ "uri": uri, "line": n, "content": content })
    }

    #[test]
    fn terms_leave_out_function_words_cues_and_repeats() {
        assert_eq!(terms("What did Nadia decide about the Lisbon trip now? Lisbon!"), vec!["nadia", "lisbon", "trip"]);
        // CJK pairs, the cue pair 最近 left out
        let t = terms("我最近在学钢琴");
        assert!(t.contains(&"钢琴".to_string()), "{t:?}");
        assert!(!t.contains(&"最近".to_string()), "{t:?}");
        assert_eq!(pattern(&terms("the of and")), None);
        assert!(terms(&"word ".repeat(5).chars().chain("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega extra more".chars()).collect::<String>()).len() <= MAX_TERMS);
    }

    #[test]
    fn every_term_is_letters_and_digits_so_the_pattern_needs_no_escaping() {
        for q in ["a.b*c (d) [e] {f} g|h ^i$ j+k? \\l", "C++ and .NET?", "价格(元)|折扣*"] {
            for t in terms(q) {
                assert!(t.chars().all(char::is_alphanumeric), "{q:?} gave {t:?}");
            }
        }
    }

    #[test]
    fn hits_rank_the_file_holding_the_rarer_words_first_and_skip_folder_files() {
        let terms = vec!["lisbon".to_string(), "trip".to_string()];
        let answer = json!({ "matches": [
            line("viking://user/u/memories/events/a.md", 1, "A trip to the coast"),
            line("viking://user/u/memories/events/b.md", 1, "The Lisbon trip is booked for May"),
            line("viking://user/u/memories/events/c.md", 3, "Another trip, by train"),
            line("viking://user/u/memories/events/.overview.md", 1, "Lisbon trip Lisbon trip"),
        ]});
        let h = hits(&answer, &terms);
        assert_eq!(h.len(), 3);
        assert_eq!(h[0].uri, "viking://user/u/memories/events/b.md");
        assert!(h[0].score > h[1].score);
        assert!(h.iter().all(|x| !x.uri.contains(".overview")));
    }

    #[test]
    fn hits_read_a_memory_whole_from_its_context_lines_without_its_field_comment() {
        let answer = json!({ "matches": [{
            "uri": "viking://user/u/memories/entities/n.md", "line": 2, "content": "Nadia works at the harbour office",
            "before_context": [{ "line": 1, "content": "<!-- MEMORY_FIELDS {\"x\":1} -->" }],
            "after_context": [{ "line": 3, "content": "since 2023" }]
        }]});
        let h = hits(&answer, &["nadia".to_string()]);
        assert_eq!(h[0].text, "Nadia works at the harbour office\nsince 2023");
    }

    #[test]
    fn a_word_counts_where_a_word_starts() {
        assert_eq!(count("the other theme, then the end", "the"), 2);
        assert_eq!(count("travels travel", "travel"), 2);
        assert_eq!(count("钢琴课和钢琴", "钢琴"), 2);
        assert!(hits(&json!({ "matches": [line("viking://x/a.md", 1, "breathe")] }), &["the".to_string()]).is_empty());
    }

    #[test]
    fn hits_of_an_answer_of_another_shape_are_none() {
        for a in [json!(null), json!([]), json!({ "matches": "x" }), json!({ "matches": [1, {"uri": 2}] })] {
            assert!(hits(&a, &["x".to_string()]).is_empty(), "{a}");
        }
    }

    #[test]
    fn fuse_places_each_hit_at_the_vector_score_of_its_rank() {
        let mut answer = json!({ "memories": [
            { "uri": "v1", "level": 2, "score": 0.9 },
            { "uri": "v2", "level": 2, "score": 0.8 },
            { "uri": "dir", "level": 1, "score": 0.95 },
            { "uri": "v3", "level": 2, "score": 0.5 },
        ]});
        let hit = |uri: &str| LexicalHit { uri: uri.into(), text: format!("text of {uri}"), score: 1.0 };
        fuse(&mut answer, &[hit("new"), hit("v3"), hit("v1"), hit("late"), hit("cut")], 4);
        let m = answer["memories"].as_array().unwrap();
        assert_eq!(m.len(), 6);
        // new: rank 1 → the best memory's score (a folder's is not on the ladder)
        assert_eq!(m[4]["uri"], "new");
        assert_eq!(m[4]["score"], 0.9);
        assert_eq!(m[4]["level"], 2);
        assert_eq!(m[4]["abstract"], "text of new");
        // v3: rank 2 lifts it to 0.8; v1 keeps its better own score
        assert_eq!(m[3]["score"], 0.8);
        assert_eq!(m[0]["score"], 0.9);
        assert_eq!(m[0]["lexical_rank"], 3);
        // late: rank 4, past the ladder's end → the lowest memory score
        assert_eq!(m[5]["uri"], "late");
        assert_eq!(m[5]["score"], 0.5);
        assert!(m.iter().all(|x| x["uri"] != "cut"));
    }

    #[test]
    fn fuse_places_nothing_without_a_vector_memory() {
        let hit = LexicalHit { uri: "a".into(), text: "t".into(), score: 1.0 };
        for mut a in [json!({ "memories": [] }), json!({ "memories": [{ "uri": "d", "level": 1, "score": 0.7 }] }), json!(null), json!({})] {
            let before = a.clone();
            fuse(&mut a, std::slice::from_ref(&hit), 6);
            assert_eq!(a, before);
        }
        let mut bare = json!([{ "uri": "v", "level": 2, "score": 0.6 }]);
        fuse(&mut bare, &[hit], 6);
        assert_eq!(bare.as_array().unwrap().len(), 2);
    }
}
