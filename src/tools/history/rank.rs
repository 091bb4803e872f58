//! The rules of a history search over index chunks: which turns match, their scores,
//! the excerpt of each hit, the order and the limit.
//!
//! - Only chunks of the asking agent count (`agentId` and `session_map::owns_session` on
//!   the OpenViking session id): another agent's turns are never read.
//! - A turn is in the window when `since ≤ timestamp < until`.
//! - Text queries are split into terms ([`terms_of`]: words without the function words,
//!   CJK text as character bigrams; at most [`TERMS_MAX`]); a message contains a word term
//!   where a word starts: the word itself, its stem with an inflection ending ([`stem_of`]:
//!   `owner` finds owns and owned, `lives` live, `connections` connection), or — terms of 4
//!   letters or more — the start of a longer word (`vault` finds `vaults`; `he` is not found
//!   in `the`); a bigram anywhere. With `match: "any"` (the default) a turn matches when its
//!   messages (of the role asked for) hold one term, with `"all"` every term. Relevance is
//!   BM25 over the turns in the window (k1 = 1.2, b = 0.75), plus [`PHRASE_BONUS`] when the
//!   whole query occurs as written.
//! - Expansion (`match: "any"`, relevance order): the sentence of the best hit that holds
//!   the most of the query (by idf) names what the query leads to — "the person who owns
//!   analytics" → "Marco owns the analytics service" → `marco`. Its first
//!   [`FEEDBACK_TERMS`] terms the query lacks are searched too, at [`FEEDBACK_WEIGHT`] of a
//!   query term's weight, so a turn holding only them ("Marco lives in Nairobi") is a hit,
//!   ranked after the turns that hold the query itself unless it holds some of that too.
//! - A `pattern` (see `regex`) matches a message when it matches anywhere in it; relevance
//!   is `ln(1 + matches)` (matches counted up to [`PATTERN_MATCHES_COUNTED`]). Every
//!   pattern run is charged against [`STEPS_MAX`]; when it runs out, the search stops and
//!   says so (`truncated`).
//! - At most [`SCAN_TURNS_MAX`] turns are looked at, newest first.
//! - Order: `relevance` — score, then newer first; `recency` — newer first (timestamp,
//!   then sequence), then score.
//! - The excerpt is the best message's text around its first match, whitespace collapsed,
//!   at most [`EXCERPT_MAX_CHARS`] characters (whole characters, `…` where it was cut).

use super::regex::Regex;
use super::IndexChunk;
use crate::lifecycle::turn::Role;
use serde::Serialize;

pub const TERMS_MAX: usize = 32;
pub const PHRASE_BONUS: f64 = 1.0;
/// How much the expansion terms weigh against the query's own.
pub const FEEDBACK_WEIGHT: f64 = 0.5;
/// Expansion terms at most.
pub const FEEDBACK_TERMS: usize = 3;
pub const PATTERN_MATCHES_COUNTED: usize = 50;
/// Pattern steps per search (one step: one thread on one character).
pub const STEPS_MAX: u64 = 20_000_000;
pub const SCAN_TURNS_MAX: usize = 10_000;
pub const EXCERPT_MAX_CHARS: usize = 280;
/// Hits a search returns by default, and at most.
pub const LIMIT_DEFAULT: usize = 10;
pub const LIMIT_MAX: usize = 50;

#[derive(Debug, Clone)]
pub enum Matcher {
    Terms { terms: Vec<String>, phrase: String, all: bool },
    Pattern(Regex),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RoleFilter {
    Any,
    User,
    Assistant,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Sort {
    Relevance,
    Recency,
}

#[derive(Debug, Clone)]
pub struct Query {
    pub matcher: Matcher,
    /// Inclusive start, ms.
    pub since: Option<u64>,
    /// Exclusive end, ms.
    pub until: Option<u64>,
    pub role: RoleFilter,
    pub sort: Sort,
    pub limit: usize,
    /// Only this OpenViking session (the caller's current one), when set.
    pub ov_session_id: Option<String>,
    /// What the vector search found among this agent's archived turns, best first
    /// (`by_meaning`), fused with the words' scores for a `query` search by relevance.
    /// Empty: words only.
    pub by_meaning: Vec<super::by_meaning::MeaningHit>,
}

/// The terms of a text query, as recall reads a query (`recall::rank::query_tokens`): words
/// of two letters or more that are not function words ("what", "did", "the"), and Chinese,
/// Japanese and Korean text as character bigrams (it has no spaces: a question is one run),
/// lower-cased, deduplicated, at most [`TERMS_MAX`].
pub fn terms_of(query: &str) -> Vec<String> {
    crate::recall::rank::query_tokens(query, TERMS_MAX as f64)
}

/// The words of a query that are left out as too common to search for (for the answer that
/// says why nothing matched).
pub fn common_words_of(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in query.split(|c: char| !c.is_ascii_alphanumeric()) {
        let w = w.to_ascii_lowercase();
        if w.len() >= 2 && crate::recall::rank::is_stopword(&w) && !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// The whole query as the phrase bonus looks for it: words lower-cased, single spaces.
pub fn phrase_of(query: &str) -> String {
    fold(&query.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// Lower case, one character for one (so positions carry over).
fn fold(s: &str) -> String {
    s.chars().map(fold_char).collect()
}

fn fold_char(c: char) -> char {
    let mut l = c.to_lowercase();
    match (l.next(), l.next()) {
        (Some(x), None) => x,
        _ => c,
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hit {
    pub ov_session_id: String,
    pub session_id: String,
    pub turn_id: String,
    pub sequence: u64,
    pub timestamp_ms: u64,
    pub timestamp: String,
    /// The role of the message the excerpt is from.
    pub role: Role,
    pub score: f64,
    pub excerpt: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub hits: Vec<Hit>,
    /// Turns that matched (before the limit).
    pub matched: usize,
    /// Turns looked at (in the window, of the role asked for).
    pub scanned: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<String>,
}

/// A match in a message: where (bytes) and how much it counts.
struct MessageMatch {
    at: usize,
    len: usize,
    /// Occurrences per term (terms), or matches (pattern).
    counts: Vec<usize>,
}

/// Byte offset of the `k`-th character of `s` (or `s.len()`).
fn byte_of_char(s: &str, k: usize) -> usize {
    s.char_indices().nth(k).map_or(s.len(), |(i, _)| i)
}

/// Word endings a term's stem may carry where it occurs (`own` finds owns, owned, owner;
/// `live` lives, lived; `city` cities).
const ENDINGS: &[&str] = &["", "s", "es", "e", "d", "ed", "ing", "er", "ers", "y", "ies"];

/// The stem a word term is looked for by: the term less one inflection ending (`-ing`, `-ers`,
/// `-er`, `-ies`, `-es`, `-ed`, `-s`, a final `-y`), keeping three letters or more; other terms
/// (digits, other alphabets, CJK) as they are.
pub fn stem_of(t: &str) -> &str {
    if !t.bytes().all(|b| b.is_ascii_lowercase()) {
        return t;
    }
    for end in ["ing", "ers", "ies", "er", "es", "ed", "s", "y"] {
        if let Some(stem) = t.strip_suffix(end) {
            if stem.len() >= 3 && !(end == "s" && stem.ends_with('s')) {
                return stem;
            }
        }
    }
    t
}

/// Whether the folded text holds term `t` (stem `stem`) at byte `at`, where `stem` was found:
/// a word term only where a word starts, as the word itself, the stem with an inflection
/// ending, or (terms of four letters or more) the start of a longer word (`vault` finds
/// `vaults`); any other term anywhere.
fn word_at(folded: &str, at: usize, t: &str, stem: &str) -> bool {
    if !t.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return true;
    }
    let h = folded.as_bytes();
    if at > 0 && h[at - 1].is_ascii_alphanumeric() {
        return false;
    }
    let rest_end = h[at..].iter().position(|b| !b.is_ascii_alphanumeric()).map_or(h.len(), |p| at + p);
    let word = &folded[at..rest_end];
    word == t || (t.len() >= 4 && word.starts_with(t)) || word.strip_prefix(stem).is_some_and(|rest| ENDINGS.contains(&rest))
}

/// Whether `text` holds the term `t` as a text query matches it (case folded; see the
/// module notes).
pub fn holds_term(text: &str, t: &str) -> bool {
    let folded = fold(text);
    let stem = stem_of(t);
    folded.match_indices(stem).any(|(at, _)| word_at(&folded, at, t, stem))
}

/// Where sentences end in the folded text (byte offsets): `.`, `!`, `?` before a space or
/// the end, `;`, a line break, and the CJK full stops.
fn sentence_ends(folded: &str) -> Vec<usize> {
    let b = folded.as_bytes();
    folded
        .char_indices()
        .filter(|(i, c)| match c {
            '.' | '!' | '?' => b.get(i + 1).is_none_or(|n| n.is_ascii_whitespace()),
            ';' | '\n' | '。' | '！' | '？' | '；' => true,
            _ => false,
        })
        .map(|(i, _)| i)
        .collect()
}

fn term_match(text: &str, terms: &[String]) -> Option<MessageMatch> {
    let folded = fold(text);
    let mut counts = vec![0; terms.len()];
    let mut first: Option<(usize, usize)> = None; // folded byte, folded len
    for (i, t) in terms.iter().enumerate() {
        let stem = stem_of(t);
        let mut from = 0;
        while let Some(p) = folded[from..].find(stem) {
            let at = from + p;
            from = at + stem.len().max(1);
            if !word_at(&folded, at, t, stem) {
                continue;
            }
            counts[i] += 1;
            if first.map_or(true, |(f, _)| at < f) {
                first = Some((at, stem.len()));
            }
            if counts[i] >= PATTERN_MATCHES_COUNTED {
                break;
            }
        }
    }
    let (fb, fl) = first?;
    // folded and original have the same characters one for one
    let start_char = folded[..fb].chars().count();
    let len_chars = folded[fb..fb + fl].chars().count();
    let at = byte_of_char(text, start_char);
    let end = byte_of_char(text, start_char + len_chars);
    Some(MessageMatch { at, len: end - at, counts })
}

/// The excerpt of `text` around `at..at+len`: whitespace collapsed, at most
/// `EXCERPT_MAX_CHARS` characters including the `…` marks.
pub fn excerpt(text: &str, at: usize, len: usize) -> String {
    let at = at.min(text.len());
    let before: Vec<char> = text[..at].chars().collect();
    let budget = EXCERPT_MAX_CHARS - 2;
    // a third of the room before the match, less when the match itself needs it
    let match_chars = text[at..].chars().take(budget).scan(0, |b, c| {
        *b += c.len_utf8();
        (*b <= len).then_some(())
    }).count();
    let lead = (budget / 3).min(budget.saturating_sub(match_chars)).min(before.len());
    let start_char = before.len() - lead;
    let start = byte_of_char(text, start_char);
    let window: String = text[start..].chars().take(budget).collect();
    let cut_end = text[start..].chars().count() > budget;
    let body = crate::text::collapse_whitespace(&window);
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    out.push_str(body.trim());
    if cut_end {
        out.push('…');
    }
    out
}

use crate::text::bm25::{bm25, idf as idf_of};

struct Candidate<'a> {
    chunk: &'a IndexChunk,
    turn: usize,
    /// (message index, its match)
    best: Option<(usize, MessageMatch)>,
    counts: Vec<usize>,
    len: usize,
    phrase: bool,
}

struct Scan<'a> {
    cands: Vec<Candidate<'a>>,
    scanned: usize,
    /// Characters of the scanned turns (of the role asked for).
    chars: usize,
    truncated: Option<String>,
}

impl Scan<'_> {
    /// BM25's idf of the first `k` terms over the scanned turns.
    fn idf(&self, k: usize, n: usize) -> Vec<f64> {
        (0..k).map(|i| idf_of(self.cands.iter().filter(|c| c.counts.get(i).is_some_and(|x| *x > 0)).count(), n)).collect()
    }
}

fn newer_cand(a: &Candidate, b: &Candidate) -> std::cmp::Ordering {
    let (x, y) = (&a.chunk.turns[a.turn], &b.chunk.turns[b.turn]);
    x.timestamp_ms.cmp(&y.timestamp_ms).then(x.sequence.cmp(&y.sequence))
}

/// The turns (newest first) matched against `terms` (or the query's pattern): the candidates.
fn scan_turns<'a>(turns: &[(&'a IndexChunk, usize)], q: &Query, terms: &[String], steps: &mut u64) -> Scan<'a> {
    let mut cands: Vec<Candidate> = Vec::new();
    let (mut scanned, mut chars) = (0, 0);
    let mut truncated = None;
    for &(chunk, ti) in turns {
        let turn = &chunk.turns[ti];
        let msgs: Vec<(usize, &super::IndexedMessage)> = turn
            .messages
            .iter()
            .enumerate()
            .filter(|(_, m)| match q.role {
                RoleFilter::Any => matches!(m.role, Role::User | Role::Assistant),
                RoleFilter::User => m.role == Role::User,
                RoleFilter::Assistant => m.role == Role::Assistant,
            })
            .collect();
        if msgs.is_empty() {
            continue;
        }
        scanned += 1;
        let n_terms = match &q.matcher {
            Matcher::Terms { .. } => terms.len(),
            Matcher::Pattern(_) => 1,
        };
        let mut cand = Candidate { chunk, turn: ti, best: None, counts: vec![0; n_terms], len: 0, phrase: false };
        let mut out_of_steps = false;
        for (mi, m) in msgs {
            cand.len += m.text.chars().count();
            let found = match &q.matcher {
                Matcher::Terms { phrase, .. } => {
                    if phrase.contains(' ') && phrase_of(&m.text).contains(phrase.as_str()) {
                        cand.phrase = true;
                    }
                    term_match(&m.text, terms)
                }
                Matcher::Pattern(re) => match re.find_all(&m.text, PATTERN_MATCHES_COUNTED, steps) {
                    Ok(spans) => spans.first().map(|s| MessageMatch { at: s.start, len: s.end - s.start, counts: vec![spans.len()] }),
                    Err(_) => {
                        out_of_steps = true;
                        None
                    }
                },
            };
            if let Some(f) = found {
                let hits: usize = f.counts.iter().filter(|c| **c > 0).count();
                let better = cand.best.as_ref().map_or(true, |(_, b)| hits > b.counts.iter().filter(|c| **c > 0).count());
                for (c, x) in cand.counts.iter_mut().zip(&f.counts) {
                    *c += x;
                }
                if better {
                    cand.best = Some((mi, f));
                }
            }
            if out_of_steps {
                break;
            }
        }
        if out_of_steps {
            truncated = Some(format!("the pattern used up its {STEPS_MAX} steps; the older turns in the window were not searched — narrow since/until or simplify the pattern"));
            break;
        }
        let keep = match &q.matcher {
            Matcher::Terms { all: true, .. } => cand.counts.iter().all(|c| *c > 0),
            _ => cand.counts.iter().any(|c| *c > 0),
        };
        chars += cand.len;
        if keep && cand.best.is_some() {
            cands.push(cand);
        }
    }
    Scan { cands, scanned, chars, truncated }
}

/// The candidates' scores: BM25 of the query's `k` terms (k1 = 1.2, b = 0.75, over the `n`
/// turns scanned), the phrase bonus, and [`FEEDBACK_WEIGHT`] × BM25 of the expansion terms
/// after them.
fn score(cands: &[Candidate], q: &Query, k: usize, n: usize, avg: f64) -> Vec<f64> {
    let width = cands.first().map_or(0, |c| c.counts.len());
    let df: Vec<usize> = (0..width).map(|i| cands.iter().filter(|c| c.counts[i] > 0).count()).collect();
    cands
        .iter()
        .map(|c| match &q.matcher {
            Matcher::Terms { .. } => {
                let k = k.min(width);
                bm25(&c.counts[..k], &df[..k], n, c.len, avg) + if c.phrase { PHRASE_BONUS } else { 0.0 } + FEEDBACK_WEIGHT * bm25(&c.counts[k..], &df[k..], n, c.len, avg)
            }
            Matcher::Pattern(_) => (1.0 + c.counts[0] as f64).ln(),
        })
        .collect()
}

/// The expansion terms a hit suggests: the words (CJK bigrams) of its sentence that holds
/// the most of the query (by idf), not already in the query, at most [`FEEDBACK_TERMS`].
fn feedback_terms(top: &Candidate, terms: &[String], idf: &[f64]) -> Vec<String> {
    let Some((mi, _)) = &top.best else { return Vec::new() };
    let text = &top.chunk.turns[top.turn].messages[*mi].text;
    let folded = fold(text);
    let mut best: (f64, &str) = (0.0, "");
    let mut from = 0;
    for end in sentence_ends(&folded).into_iter().chain(std::iter::once(folded.len())) {
        let sentence = &folded[from..end];
        let weight: f64 = terms.iter().zip(idf).filter(|(t, _)| {
            let stem = stem_of(t);
            sentence.match_indices(stem).any(|(at, _)| word_at(sentence, at, t, stem))
        }).map(|(_, w)| w).sum();
        if weight > best.0 {
            best = (weight, sentence);
        }
        from = (end + 1).min(folded.len());
        while !folded.is_char_boundary(from) {
            from += 1;
        }
    }
    let stems: Vec<&str> = terms.iter().map(|t| stem_of(t)).collect();
    terms_of(best.1).into_iter().filter(|t| !stems.contains(&stem_of(t))).take(FEEDBACK_TERMS).collect()
}

/// Runs `q` over the chunks, for `agent_id` only.
pub fn search(agent_id: &str, chunks: &[IndexChunk], q: &Query) -> Outcome {
    let mut turns: Vec<(&IndexChunk, usize)> = chunks
        .iter()
        .filter(|c| c.agent_id == agent_id && crate::address::session_map::owns_session(agent_id, &c.ov_session_id))
        .filter(|c| q.ov_session_id.as_ref().map_or(true, |s| *s == c.ov_session_id))
        .flat_map(|c| (0..c.turns.len()).map(move |i| (c, i)))
        .filter(|(c, i)| {
            let t = c.turns[*i].timestamp_ms;
            q.since.map_or(true, |s| t >= s) && q.until.map_or(true, |u| t < u)
        })
        .collect();
    crate::order::sort_by(&mut turns, |a, b| {
        let (x, y) = (&a.0.turns[a.1], &b.0.turns[b.1]);
        y.timestamp_ms.cmp(&x.timestamp_ms).then(y.sequence.cmp(&x.sequence)).then(a.0.ov_session_id.cmp(&b.0.ov_session_id))
    });
    // the same turn in two documents (a stale slot) counts once
    let mut seen = std::collections::HashSet::new();
    turns.retain(|(c, i)| seen.insert((c.ov_session_id.clone(), c.turns[*i].turn_id.clone())));
    let mut truncated = None;
    if turns.len() > SCAN_TURNS_MAX {
        truncated = Some(format!("only the newest {SCAN_TURNS_MAX} turns in the window were searched; narrow since/until"));
        turns.truncate(SCAN_TURNS_MAX);
    }
    let mut steps = STEPS_MAX;
    let terms: Vec<String> = match &q.matcher {
        Matcher::Terms { terms, .. } => terms.clone(),
        Matcher::Pattern(_) => Vec::new(),
    };
    let mut scan = scan_turns(&turns, q, &terms, &mut steps);
    if scan.truncated.is_some() {
        truncated = scan.truncated.take();
    }
    let n = scan.scanned.max(1);
    let avg_all = (scan.chars as f64 / n as f64).max(1.0);
    let mut scored = score(&scan.cands, q, terms.len(), n, avg_all);
    // expansion: the words of the best hit's best sentence that the query lacks (a name it
    // leads to), searched too, weighing less ([`FEEDBACK_WEIGHT`])
    if let (Matcher::Terms { all: false, .. }, Sort::Relevance) = (&q.matcher, q.sort) {
        let top = scored.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1).then(newer_cand(&scan.cands[b.0], &scan.cands[a.0]))).map(|(i, _)| i);
        if let Some(top) = top {
            let fb = feedback_terms(&scan.cands[top], &terms, &scan.idf(terms.len(), n));
            if !fb.is_empty() {
                let all: Vec<String> = terms.iter().chain(&fb).cloned().collect();
                let mut steps2 = STEPS_MAX;
                let wide = scan_turns(&turns, q, &all, &mut steps2);
                scored = score(&wide.cands, q, terms.len(), n, avg_all);
                scan = wide;
            }
        }
    }
    let mut hits: Vec<Hit> = scan
        .cands
        .into_iter()
        .zip(scored)
        .filter_map(|(c, score)| {
            let (mi, m) = c.best?;
            let turn = &c.chunk.turns[c.turn];
            let msg = &turn.messages[mi];
            Some(Hit {
                ov_session_id: c.chunk.ov_session_id.clone(),
                session_id: c.chunk.session_id.clone(),
                turn_id: turn.turn_id.clone(),
                sequence: turn.sequence,
                timestamp_ms: turn.timestamp_ms,
                timestamp: crate::text::time::iso8601(turn.timestamp_ms),
                role: msg.role,
                score: (score * 1000.0).round() / 1000.0,
                excerpt: excerpt(&msg.text, m.at, m.len),
            })
        })
        .collect();
    let scanned = scan.scanned;
    let newer = |a: &Hit, b: &Hit| b.timestamp_ms.cmp(&a.timestamp_ms).then(b.sequence.cmp(&a.sequence));
    if let (Matcher::Terms { all, .. }, Sort::Relevance, false) = (&q.matcher, q.sort, q.by_meaning.is_empty()) {
        fuse(&mut hits, &turns, q, !*all);
    }
    match q.sort {
        Sort::Relevance => crate::order::sort_by(&mut hits, |a, b| b.score.total_cmp(&a.score).then(newer(a, b))),
        Sort::Recency => crate::order::sort_by(&mut hits, |a, b| newer(a, b).then(b.score.total_cmp(&a.score))),
    }
    let matched = hits.len();
    hits.truncate(q.limit.clamp(1, LIMIT_MAX));
    Outcome { hits, matched, scanned, truncated }
}

/// Fuses the words' scores of `hits` with the vector scores of `q.by_meaning`
/// (`by_meaning::fused`); with `add`, turns in the window that only the vectors found become
/// hits (excerpt: the start of their first message of the role asked).
fn fuse(hits: &mut Vec<Hit>, turns: &[(&IndexChunk, usize)], q: &Query, add: bool) {
    use super::by_meaning::{doc_name, fused, normalised};
    let vector: std::collections::HashMap<(&str, &str), f64> = q.by_meaning.iter().zip(normalised(&q.by_meaning)).map(|(h, v)| ((h.session.as_str(), h.name.as_str()), v)).collect();
    let vector_of = |session: &str, turn_id: &str| vector.get(&(session, doc_name(turn_id).as_str())).copied();
    let best = hits.iter().map(|h| h.score).fold(0.0_f64, f64::max);
    for h in hits.iter_mut() {
        let words = if best > 0.0 { h.score / best } else { 0.0 };
        h.score = fused(words, vector_of(&h.ov_session_id, &h.turn_id).unwrap_or(0.0));
    }
    if add {
        let have: std::collections::HashSet<(String, String)> = hits.iter().map(|h| (h.ov_session_id.clone(), h.turn_id.clone())).collect();
        for &(chunk, ti) in turns {
            let turn = &chunk.turns[ti];
            // the pool's lowest says nothing for a turn
            let Some(v) = vector_of(&chunk.ov_session_id, &turn.turn_id).filter(|v| *v > 0.0) else { continue };
            if have.contains(&(chunk.ov_session_id.clone(), turn.turn_id.clone())) {
                continue;
            }
            let wanted = |r: Role| match q.role {
                RoleFilter::Any => matches!(r, Role::User | Role::Assistant),
                RoleFilter::User => r == Role::User,
                RoleFilter::Assistant => r == Role::Assistant,
            };
            let Some(msg) = turn.messages.iter().find(|m| wanted(m.role)) else { continue };
            hits.push(Hit {
                ov_session_id: chunk.ov_session_id.clone(),
                session_id: chunk.session_id.clone(),
                turn_id: turn.turn_id.clone(),
                sequence: turn.sequence,
                timestamp_ms: turn.timestamp_ms,
                timestamp: crate::text::time::iso8601(turn.timestamp_ms),
                role: msg.role,
                score: fused(0.0, v),
                excerpt: excerpt(&msg.text, 0, 0),
            });
        }
    }
    for h in hits.iter_mut() {
        h.score = (h.score * 1000.0).round() / 1000.0;
    }
}

#[cfg(test)]
mod tests;
