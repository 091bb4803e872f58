//! Which of the query's words ([`relevance_words`](super::relevance_words)) each candidate's
//! text holds, for many candidates: [`query_words_in`](super::query_words_in) with the words
//! looked up rather than searched for.
//!
//! A word of ASCII letters and digits is found where a run of them begins with it (with 4 or
//! more letters, or by its stem) or is it (shorter words) — `rank::token_matches`. So the
//! words go into a map by the bytes they must begin or be a run with, and each run of a text
//! looks up itself and its prefixes of 4 bytes up to the longest word: a few lookups per run
//! instead of comparing every word with every run. Other words (CJK pairs, words of other
//! alphabets) are searched for in the text as before. A word of 5 or more letters not found
//! so is compared with each run for one typo (`rank::one_typo_apart`).

use super::rank::{token_matches, WordRuns};
use super::{fast_map, FastMap};

/// The query's words, indexed (see the module doc).
pub struct QueryWordIndex<'w> {
    /// Per pattern: the words found when a run begins with it (4 or more bytes), and the
    /// words found only when a run is it.
    patterns: FastMap<&'w [u8], (u128, u128)>,
    /// The longest pattern, in bytes.
    longest: usize,
    /// Words searched for anywhere in the text, with their bits.
    others: Vec<(u128, &'w str)>,
    /// Words of 5 or more letters, which also find a word one typo from them.
    typo: Vec<(u128, &'w [u8])>,
    runs: WordRuns,
}

impl<'w> QueryWordIndex<'w> {
    /// Indexes the first 128 `words` (bit `n` for word `n`, as `query_words_in`).
    pub fn new(words: &'w [String]) -> Self {
        let mut patterns: FastMap<&'w [u8], (u128, u128)> = fast_map(words.len().min(128));
        let mut others = Vec::new();
        let mut typo = Vec::new();
        let mut longest = 0;
        for (n, t) in words.iter().take(128).enumerate() {
            let bit = 1u128 << n;
            let word = !t.is_empty() && t.bytes().all(|b| b.is_ascii_alphanumeric());
            if !word {
                others.push((bit, t.as_str()));
                continue;
            }
            // a long word of letters also counts by its stem (which it begins with)
            let (pattern, prefix) = if t.len() >= 6 && t.bytes().all(|b| b.is_ascii_alphabetic()) {
                (&t.as_bytes()[..(t.len() - 3).max(5)], true)
            } else {
                (t.as_bytes(), t.len() >= 4)
            };
            if t.len() >= 5 && t.bytes().all(|b| b.is_ascii_alphabetic()) {
                typo.push((bit, t.as_bytes()));
            }
            let entry = patterns.entry(pattern).or_default();
            if prefix {
                entry.0 |= bit;
            } else {
                entry.1 |= bit;
            }
            longest = longest.max(pattern.len());
        }
        QueryWordIndex { patterns, longest, others, typo, runs: WordRuns::default() }
    }

    /// `query_words_in(words, lower)`: the bits of the words the lowercased text holds.
    pub fn found_in(&mut self, lower: &str) -> u128 {
        let mut bits = 0u128;
        if !self.patterns.is_empty() {
            self.runs.read(lower);
            for run in self.runs.iter(lower) {
                if let Some((prefix, exact)) = self.patterns.get(run) {
                    bits |= prefix | exact;
                }
                for k in 4..run.len().min(self.longest + 1) {
                    if let Some((prefix, _)) = self.patterns.get(&run[..k]) {
                        bits |= prefix;
                    }
                }
            }
            for &(bit, t) in &self.typo {
                if bits & bit == 0 && self.runs.iter(lower).take(super::rank::TYPO_RUNS).any(|r| super::rank::one_typo_apart(t, r)) {
                    bits |= bit;
                }
            }
        }
        for &(bit, t) in &self.others {
            if bits & bit == 0 && token_matches(lower, t) {
                bits |= bit;
            }
        }
        bits
    }
}
