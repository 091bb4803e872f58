//! The recall pipeline's steps (the module doc of [`crate::recall`] lists them): merge,
//! dedupe, level, threshold, rerank, limit, content, budget.

use crate::config::Config;
use crate::text::{push_collapsed_lowercase, push_lowercase};
use super::{cover, experience, query_words, rank};
use super::candidate::{Scope, SearchItem};
use super::explain::CutReason;
use super::rank::{profile_query, profile_query_from, QueryProfile, RankParts, Ranker, WordRuns};
use std::collections::HashMap;

/// The recall settings of a [`Config`].
#[derive(Debug, Clone, PartialEq)]
pub struct RecallSettings {
    pub limit: usize,
    pub score_threshold: f64,
    /// Only candidates within this of the best score go on (≥ 1: no window).
    pub score_window: f64,
    /// A candidate whose abstract shares no query word is cut.
    pub require_query_word: bool,
    /// Near-duplicate overlap (0: off); see [`near_duplicate`].
    pub near_duplicate_overlap: f64,
    pub max_content_chars: usize,
    pub prefer_abstract: bool,
    pub token_budget: usize,
    /// Step 5b ([`cover`]): memories that cover the question's aspects, fitted to the time it
    /// names, the newest version of a fact first.
    pub cover: bool,
    /// Candidates asked of each scope and kept for the rerank: [`engine_pool`] with the
    /// engine's selection, [`legacy_pool`] with the legacy rules.
    pub pool_size: usize,
}

impl From<&Config> for RecallSettings {
    fn from(c: &Config) -> Self {
        RecallSettings {
            limit: c.recall_limit,
            score_threshold: c.recall_score_threshold,
            score_window: c.recall_score_window,
            require_query_word: c.recall_require_query_word,
            near_duplicate_overlap: c.recall_near_duplicate_overlap,
            max_content_chars: c.recall_max_content_chars,
            prefer_abstract: c.recall_prefer_abstract,
            token_budget: c.recall_token_budget,
            cover: true,
            pool_size: engine_pool(c.recall_limit),
        }
    }
}

impl RecallSettings {
    /// The legacy rules only: no score window, no query-word requirement, no near-duplicate
    /// cut (what the 2026-03 plugin did with these settings).
    pub fn legacy(limit: usize, score_threshold: f64, max_content_chars: usize, prefer_abstract: bool, token_budget: usize) -> Self {
        RecallSettings { limit, score_threshold, score_window: 1.0, require_query_word: false, near_duplicate_overlap: 0.0, max_content_chars, prefer_abstract, token_budget, cover: false, pool_size: legacy_pool(limit) }
    }
}

/// The engine's pool for `limit` memories: [`POOL_PER_MEMORY`] per memory wanted, at least
/// [`POOL_MIN`], at most [`POOL_MAX`].
pub fn engine_pool(limit: usize) -> usize {
    limit.saturating_mul(POOL_PER_MEMORY).clamp(POOL_MIN, POOL_MAX)
}

/// The legacy rules' pool: `max(limit·4, 20)`.
pub fn legacy_pool(limit: usize) -> usize {
    limit.saturating_mul(4).max(20)
}

/// Candidates asked of each scope per memory wanted (the engine's selection). Chosen on the
/// tuning sets of the quality benchmark: a pool of 48 at the default limit found evidence for
/// 2.1 and 5.1 points more questions than the legacy 24 (`tune`, the generator's personas)
/// at 3–6 more recall tokens; 72 added 0 and 1.1 more.
pub const POOL_PER_MEMORY: usize = 8;
/// The smallest pool (a small `recallLimit` still gets a pool to choose from): twice the legacy
/// rules' 20, as the per-memory factor is twice theirs. A bound, not tuned.
pub const POOL_MIN: usize = 40;
/// The largest pool (`recallLimit` 50 and more): what the legacy rules ask at `recallLimit`
/// 100, so no config asks OpenViking for more than before. A bound, not tuned.
pub const POOL_MAX: usize = 400;

pub(super) struct Candidate {
    pub(super) item: SearchItem,
    pub(super) scope: Scope,
    /// Computed for every candidate when explaining, else only for the rerank pool.
    pub(super) rank: RankParts,
}

const UNRANKED: RankParts =
    RankParts { score: 0.0, level_boost: 0.0, temporal_boost: 0.0, preference_boost: 0.0, lexical_boost: 0.0, matched_tokens: 0, total: 0.0 };

/// What became of one candidate (an explain record without the copied strings).
#[derive(Clone, Copy, Default)]
pub(super) struct Fate {
    pub(super) reason: Option<CutReason>,
    /// For duplicates: the index of the candidate this one duplicates.
    pub(super) duplicate_of: Option<usize>,
    pub(super) tokens: Option<usize>,
    pub(super) position: Option<usize>,
}

/// Steps 1–5: which candidates go on, in rank order.
pub struct Selection {
    pub(super) query: String,
    pub(super) candidates: Vec<Candidate>,
    /// One per candidate when explaining, else empty.
    pub(super) fates: Vec<Fate>,
    /// Indices into `candidates`, best first.
    pub(super) picked: Vec<usize>,
    pub(super) profile: QueryProfile,
}

/// A small, fast hasher for the dedupe maps (the keys are ours, not an attacker's choice of
/// collisions that matters: the worst case is a slower turn, never a different result).
#[derive(Default)]
pub(crate) struct FxHasher(u64);

impl std::hash::Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }
    fn write_u8(&mut self, b: u8) {
        self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

pub(crate) type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<FxHasher>>;

pub(crate) fn fast_map<K, V>(capacity: usize) -> FastMap<K, V> {
    HashMap::with_capacity_and_hasher(capacity, Default::default())
}

/// First-stage dedupe key (legacy): category + abstract, except events/cases items and items
/// without an abstract, which are keyed by uri. The string is
/// `"abstract:" + lowercase(category) + ":" + lowercase(collapse_whitespace(summary))` or
/// `"uri:" + uri`, built into `key` (cleared first).
fn first_dedupe_key(item: &SearchItem, key: &mut String) {
    const PREFIX: &str = "abstract:";
    let category = item.category.as_deref().unwrap_or("unknown");
    let summary = item.summary();
    key.clear();
    key.push_str(PREFIX);
    push_lowercase(key, category);
    let lower = &key[PREFIX.len()..];
    if summary.is_empty() || lower == "events" || lower == "cases" {
        key.clear();
        key.push_str("uri:");
        key.push_str(&item.uri);
        return;
    }
    key.push(':');
    push_collapsed_lowercase(key, summary);
}

/// Second-stage dedupe key: the normalised summary, or `"uri:" + uri` without one.
fn second_dedupe_key(item: &SearchItem, key: &mut String) {
    key.clear();
    if item.summary().is_empty() {
        key.push_str("uri:");
        key.push_str(&item.uri);
    } else {
        push_collapsed_lowercase(key, item.summary());
    }
}

/// The user's stable profile (`profile.md`, category `profile`): always a candidate.
fn is_stable_profile(item: &SearchItem) -> bool {
    item.category.as_deref() == Some("profile")
}

/// The query words the relevance rules look for: every lexical token of the query (the
/// rerank's tokenizer — function words out, CJK character pairs), not only the first 8 the
/// rerank weighs (a query of several turns names its later topics too), up to 128.
pub fn relevance_words(query: &str) -> Vec<String> {
    let mut words = rank::query_tokens(query, f64::INFINITY);
    words.truncate(128);
    words
}

/// Which of the `words` ([`relevance_words`]) the lowercased text holds, as bits. A word of 6
/// or more letters also counts by its stem — its first `max(5, len − 3)` letters where a word
/// starts — so "allergic" finds "allergy" and "restrictions" finds "restricted"; a word of 5
/// or more letters also finds a word one typo from it ([`rank::one_typo_apart`]: a misspelled
/// name in the question still finds the memory).
pub fn query_words_in(words: &[String], lower: &str) -> u128 {
    query_words_with(words, lower, &mut WordRuns::default())
}

/// [`query_words_in`], reading the text's word runs into `runs` (a buffer reused across
/// texts). A word found whole is found by its stem too, so a word with a stem is looked for
/// by its stem alone.
fn query_words_with(words: &[String], lower: &str, runs: &mut WordRuns) -> u128 {
    runs.read(lower);
    let found = |t: &str| {
        let letters = t.len() >= 5 && t.bytes().all(|b| b.is_ascii_alphabetic());
        let whole = if t.len() >= 6 && letters { runs.begins_with(lower, &t[..(t.len() - 3).max(5)]) } else { runs.matches(lower, t) };
        whole || (letters && runs.iter(lower).take(rank::TYPO_RUNS).any(|r| rank::one_typo_apart(t.as_bytes(), r)))
    };
    words.iter().take(128).enumerate().filter(|(_, t)| found(t)).fold(0, |m, (n, _)| m | (1u128 << n))
}

/// What the near-duplicate cut compares: a memory's content words (its distinct words
/// without function words, and CJK character bigrams — the query tokenizer's rules, no
/// length cap) and its numbers (every run of ASCII digits), both sorted.
#[derive(Debug, Clone, PartialEq)]
pub struct ContentWords {
    pub words: Vec<String>,
    pub numbers: Vec<String>,
    /// The content words written with a capital (names of people, places, things), sorted.
    pub names: Vec<String>,
}

/// The words of `text` written with a capital (ASCII), lowercased, that are among `words`
/// (so not function words): the names it mentions.
pub fn capitalised_words(text: &str, words: &[String]) -> Vec<String> {
    let mut names: Vec<String> = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() >= 2 && w.as_bytes()[0].is_ascii_uppercase())
        .map(str::to_ascii_lowercase)
        .filter(|w| words.binary_search(w).is_ok())
        .collect();
    crate::order::sort(&mut names);
    names.dedup();
    names
}

pub fn content_words(summary: &str) -> ContentWords {
    let mut words = rank::query_tokens(summary, f64::INFINITY);
    crate::order::sort(&mut words);
    let mut numbers: Vec<String> =
        summary.split(|c: char| !c.is_ascii_digit()).filter(|r| !r.is_empty()).map(str::to_string).collect();
    crate::order::sort(&mut numbers);
    numbers.dedup();
    let names = capitalised_words(summary, &words);
    ContentWords { words, numbers, names }
}

/// Each names something the other does not mention at all ("moved to Berlin" against "moved
/// to Munich"): two facts, however many words they share.
fn names_differ(a: &ContentWords, b: &ContentWords) -> bool {
    let missing = |x: &ContentWords, y: &ContentWords| x.names.iter().any(|n| y.words.binary_search(n).is_err());
    missing(a, b) && missing(b, a)
}

/// Near-duplicates: a name each has that the other lacks makes two facts
/// ([`names_differ`]); otherwise the same numbers (a date, a version, a size tells two facts apart: a
/// decision and the one that revised it share most words), and at least `overlap` of the
/// smaller set of content words found in the other. Empty word sets are never
/// near-duplicates.
pub fn near_duplicate(a: &ContentWords, b: &ContentWords, overlap: f64) -> bool {
    let smaller = a.words.len().min(b.words.len());
    if smaller == 0 || a.numbers != b.numbers || names_differ(a, b) {
        return false;
    }
    let shared = a.words.iter().filter(|w| b.words.binary_search(w).is_ok()).count();
    shared as f64 >= overlap * smaller as f64 - 1e-9
}

/// Steps 1–5 of the pipeline, with explain records.
pub fn select(query: &str, user: Vec<SearchItem>, agent: Vec<SearchItem>, s: &RecallSettings) -> Selection {
    select_with(query, user, agent, s, true)
}

/// Steps 1–5. Without `explain` only what decides the injected memories is computed: no
/// rank for candidates that never reach the rerank, no dedupe keys past a full pool, no
/// records.
pub fn select_with(query: &str, user: Vec<SearchItem>, agent: Vec<SearchItem>, s: &RecallSettings, explain: bool) -> Selection {
    // the query's words, read once: the relevance rules look for all of them, the rerank for
    // the first 8 words' worth
    let query_words = if s.require_query_word || s.near_duplicate_overlap > 0.0 || s.cover { relevance_words(query) } else { Vec::new() };
    let profile = if query_words.is_empty() { profile_query(query) } else { profile_query_from(query, &query_words) };
    let mut ranker = Ranker::new(&profile);
    let mut candidates: Vec<Candidate> = Vec::with_capacity(user.len() + agent.len());
    candidates.extend(user.into_iter().map(|item| Candidate { item, scope: Scope::User, rank: UNRANKED }));
    candidates.extend(agent.into_iter().map(|item| Candidate { item, scope: Scope::Agent, rank: UNRANKED }));
    if explain {
        for c in candidates.iter_mut() {
            c.rank = ranker.rank(&c.item);
        }
    }
    let mut fates: Vec<Fate> = if explain { vec![Fate::default(); candidates.len()] } else { Vec::new() };
    let mut cut = |i: usize, reason: CutReason, of: Option<usize>| {
        if let Some(f) = fates.get_mut(i) {
            f.reason = Some(reason);
            f.duplicate_of = of;
        }
    };

    // 1–3: malformed, duplicate uri, level, threshold
    let mut first_by_uri: FastMap<&str, usize> = fast_map(candidates.len());
    let mut pool: Vec<usize> = Vec::with_capacity(candidates.len());
    for (i, c) in candidates.iter().enumerate() {
        if c.item.malformed.is_some() {
            cut(i, CutReason::Malformed, None);
        } else if let Some(&first) = first_by_uri.get(c.item.uri.as_str()) {
            cut(i, CutReason::Duplicate, Some(first));
        } else {
            first_by_uri.insert(&c.item.uri, i);
            if c.item.level != Some(2) {
                cut(i, CutReason::NotLevel2, None);
            } else if experience::is_agent_evolution_record(&c.item.uri) {
                cut(i, CutReason::AgentEvolution, None);
            } else if c.item.score < s.score_threshold {
                cut(i, CutReason::BelowThreshold, None);
            } else {
                pool.push(i);
            }
        }
    }
    drop(first_by_uri);

    // 3b: which query words each candidate's abstract holds (a bit per query token); without
    // one, the candidate is cut (`recallRequireQueryWord`; a query without words cuts nothing,
    // and neither the stable profile nor a memory without an abstract can be judged: they stay)
    let judge_words = s.require_query_word && !query_words.is_empty();
    let mut words: FastMap<usize, u128> = fast_map(if judge_words || s.near_duplicate_overlap > 0.0 { pool.len() } else { 0 });
    if judge_words || s.near_duplicate_overlap > 0.0 {
        let mut lower = String::new();
        let mut index = query_words::QueryWordIndex::new(&query_words);
        for &i in &pool {
            lower.clear();
            push_lowercase(&mut lower, candidates[i].item.summary());
            words.insert(i, index.found_in(&lower));
        }
    }
    if judge_words {
        pool.retain(|&i| {
            let item = &candidates[i].item;
            let keep = is_stable_profile(item) || item.summary().is_empty() || words.get(&i).is_some_and(|&w| w != 0);
            if !keep {
                cut(i, CutReason::NoQueryWord, None);
            }
            keep
        });
    }
    // 3c: the score window below the best memory left (the stable profile, always a
    // candidate at score 1, neither sets it nor is cut by it)
    if s.score_window < 1.0 {
        let best = pool.iter().map(|&i| &candidates[i].item).filter(|it| !is_stable_profile(it)).map(|it| it.score).fold(f64::NEG_INFINITY, f64::max);
        pool.retain(|&i| {
            let item = &candidates[i].item;
            let keep = is_stable_profile(item) || item.score >= best - s.score_window - 1e-9;
            if !keep {
                cut(i, CutReason::FarBelowBest, None);
            }
            keep
        });
    }

    // 4: sort by score, first dedupe, near-duplicates, pool limit (ties broken by position)
    crate::order::sort_indices(&mut pool, &|a, b| candidates[b].item.score.total_cmp(&candidates[a].item.score).then(a.cmp(&b)));
    let pool_size = s.pool_size;
    let mut seen: FastMap<String, usize> = fast_map(pool.len().min(pool_size));
    let mut ranked: Vec<usize> = Vec::with_capacity(pool.len().min(pool_size));
    // the content words of each candidate kept so far (for the near-duplicate cut)
    let mut kept_words: Vec<(usize, ContentWords)> = Vec::new();
    // one buffer for every key; a key is copied only when it is kept
    let mut key = String::new();
    for i in pool {
        if !explain && ranked.len() >= pool_size {
            break; // the rest is cut, as a duplicate or over the limit: only explaining tells which
        }
        first_dedupe_key(&candidates[i].item, &mut key);
        if let Some(&first) = seen.get(key.as_str()) {
            cut(i, CutReason::Duplicate, Some(first));
        } else if ranked.len() >= pool_size {
            cut(i, CutReason::OverLimit, None);
        } else {
            if s.near_duplicate_overlap > 0.0 {
                let mine = content_words(candidates[i].item.summary());
                let of = kept_words
                    .iter()
                    .find(|(j, theirs)| words.get(j) == words.get(&i) && near_duplicate(&mine, theirs, s.near_duplicate_overlap))
                    .map(|(j, _)| *j);
                if let Some(j) = of {
                    cut(i, CutReason::Duplicate, Some(j));
                    continue;
                }
                kept_words.push((i, mine));
            }
            seen.insert(key.clone(), i);
            ranked.push(i);
        }
    }
    drop(seen);

    // 5: rerank, second dedupe, limit
    if !explain {
        for &i in &ranked {
            candidates[i].rank = ranker.rank(&candidates[i].item);
        }
    }
    crate::order::sort_indices(&mut ranked, &|a, b| {
        candidates[b]
            .rank
            .total
            .total_cmp(&candidates[a].rank.total)
            .then(candidates[b].item.score.total_cmp(&candidates[a].item.score))
            .then(a.cmp(&b))
    });
    // 5b: cover the question's aspects, fit the time it names, the newest first
    if s.cover && ranked.len() > 1 {
        let mut index = query_words::QueryWordIndex::new(&query_words);
        let mut lower = String::new();
        let entries: Vec<cover::Entry> = ranked
            .iter()
            .map(|&i| {
                let item = &candidates[i].item;
                let bits = words.get(&i).copied().unwrap_or_else(|| {
                    lower.clear();
                    push_lowercase(&mut lower, item.summary());
                    index.found_in(&lower)
                });
                cover::Entry { summary: item.summary(), rank: candidates[i].rank.total, words: bits, written: item.written_ms }
            })
            .collect();
        let covered = cover::cover(&entries, &profile);
        for (k, reason, of) in covered.cut {
            cut(ranked[k], reason, of.map(|j| ranked[j]));
        }
        ranked = covered.order.iter().map(|&k| ranked[k]).collect();
    }
    let mut seen2: FastMap<String, usize> = fast_map(ranked.len());
    let mut picked = Vec::with_capacity(s.limit);
    for i in ranked {
        if !explain && picked.len() >= s.limit {
            break;
        }
        second_dedupe_key(&candidates[i].item, &mut key);
        if let Some(&first) = seen2.get(key.as_str()) {
            cut(i, CutReason::Duplicate, Some(first));
        } else if picked.len() >= s.limit {
            cut(i, CutReason::OverLimit, None);
        } else {
            seen2.insert(key.clone(), i);
            picked.push(i);
        }
    }
    Selection { query: query.to_string(), candidates, fates, picked, profile }
}

impl Selection {
    /// URIs whose full text the host should read (`GET content/read`) before [`finish`]:
    /// picked items whose abstract will not be used.
    pub fn needs_content(&self, s: &RecallSettings) -> Vec<String> {
        self.picked
            .iter()
            .map(|&i| &self.candidates[i].item)
            .filter(|it| !(s.prefer_abstract && !it.abstract_text.is_empty()))
            .map(|it| it.uri.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;

    #[test]
    fn facts_that_differ_in_a_name_or_a_number_are_never_near_duplicates() {
        let near = |a: &str, b: &str| near_duplicate(&content_words(a), &content_words(b), 0.7);
        assert!(near("Jonas moved to Berlin with his dog", "Jonas and his dog moved to Berlin"), "a restatement");
        assert!(!near("Jonas moved to Berlin with his dog", "Jonas moved to Munich with his dog"), "another city");
        assert!(!near("Mira lived in Spain for 3 years", "Mira lived in Spain for 5 years"), "another duration");
        assert!(near("Ana, Priya's sister, lives in Porto", "Priya's sister Ana lives in Porto"), "the same names in another order");
    }
}
