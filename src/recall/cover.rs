//! Choosing memories that cover the question rather than repeat one aspect of it, and that
//! put the newest version of a changed fact first (step 5b of the pipeline, after the rerank).
//!
//! Given the reranked candidates, best first:
//!
//! 1. **time fit** — when the query names a calendar span ("in March 2024", "2023年底"), a
//!    memory whose own date ([`first_dated`]) falls in it gains [`TIME_FIT`], one dated
//!    outside it loses [`TIME_MISS`]; an undated memory is left as it is;
//! 2. **coverage** (a greedy maximal-marginal-relevance pick) — the next memory is the one
//!    with the best `rank − DIVERSITY · similarity to the ones already picked + NEW_WORDS ·
//!    share of the query's words it adds`; similarity is the share of the smaller memory's
//!    content words found in the other's. Three restatements of one aspect no longer crowd
//!    out the fact that answers another;
//! 3. **the newest first** — two memories about the same thing (similarity ≥
//!    [`SAME_THING`], or [`SAME_THING_NOW`] and two shared words when the present is asked
//!    and the one subject word the newer may lack is not a name the query gives,
//!    and the newer holds every query word about the subject the older holds)
//!    of which one is newer — written later (`written_ms`, from the memory folder's
//!    listing), or, where that does not tell (unknown, or the same second), naming a later date: the newer goes before the older;
//!    when the query asks for the present or the last decision ("now", "currently", "still",
//!    "these days", "recently", "decided", "现在", "目前", "最近", "最后") and not about the past
//!    or a change ("before", "originally", "when", "switched", "之前", "原来"), the older is
//!    cut as `superseded`.
//!
//! Every constant here was chosen on the tuning sets (the generator's personas and the
//! `tune` conversation set of `tests/bench/quality`), never on the held-out set.

use crate::recall::explain::CutReason;
use crate::recall::rank::{is_cue_token, QueryProfile};
use crate::recall::{content_words, ContentWords};
use crate::text::dates::first_dated;

/// How much of each memory's text (UTF-16 units) the cover step reads.
pub const TEXT_READ: usize = 2000;
/// Weight of the similarity to the memories already picked.
pub const DIVERSITY: f64 = 0.15;
/// Weight of the share of the query's words a memory adds to those already covered.
pub const NEW_WORDS: f64 = 0.05;
/// Similarity from which two dated memories are about the same thing.
pub const SAME_THING: f64 = 0.5;
/// When the query asks for the present: two memories sharing at least two content words and
/// this share of the smaller one's are about the same thing ("drives a red Fiat Panda" and
/// "replaced her Fiat Panda with a Toyota Yaris").
pub const SAME_THING_NOW: f64 = 0.2;
/// A dated memory inside the query's calendar span.
pub const TIME_FIT: f64 = 0.08;
/// A dated memory outside it.
pub const TIME_MISS: f64 = 0.08;

/// One reranked candidate, as the cover step sees it.
pub struct Entry<'a> {
    pub summary: &'a str,
    /// The rerank's total.
    pub rank: f64,
    /// Which query words (bits, `recall::query_words_in`) its summary holds.
    pub words: u128,
    /// When it was written (`SearchItem::written_ms`).
    pub written: Option<u64>,
}

/// What the cover step decided: the order to take the candidates in (indices into the
/// entries), and the ones it cut, with why.
#[derive(Debug, Default, PartialEq)]
pub struct Covered {
    pub order: Vec<usize>,
    pub cut: Vec<(usize, CutReason, Option<usize>)>,
}

struct Facts {
    words: ContentWords,
    date: Option<(u64, u64)>,
}

/// The share of the smaller set's content words found in the other (0 when either is
/// empty), and how many words the two share besides numbers (a CJK pair counts ½).
fn overlap(a: &ContentWords, b: &ContentWords) -> (f64, f64) {
    let smaller = a.words.len().min(b.words.len());
    if smaller == 0 {
        return (0.0, 0.0);
    }
    let common: Vec<&String> = a.words.iter().filter(|w| b.words.binary_search(w).is_ok()).collect();
    let weight = common.iter().filter(|w| !w.bytes().all(|c| c.is_ascii_digit())).map(|w| if w.is_ascii() { 1.0 } else { 0.5 }).sum();
    (common.len() as f64 / smaller as f64, weight)
}

/// The most candidates the cover step orders (the best by rank; the rest follow in rank
/// order): its work grows with the square of their number.
pub const COVER_MAX: usize = 48;

/// Orders `entries` (best rank first) to cover the query; see the module doc.
pub fn cover(entries: &[Entry], profile: &QueryProfile) -> Covered {
    let n = entries.len().min(COVER_MAX);
    let mut out = cover_first(&entries[..n], profile);
    out.order.extend(n..entries.len());
    out
}

fn cover_first(entries: &[Entry], profile: &QueryProfile) -> Covered {
    let n = entries.len();
    let facts: Vec<Facts> = entries
        .iter()
        .map(|e| {
            // a memory's opening says what it is about and when (an abstract is short; a
            // hostile one of megabytes must not cost the turn more than its first lines)
            let head = crate::text::prefix_utf16(e.summary, TEXT_READ);
            Facts { words: content_words(head), date: first_dated(head).map(|d| (d.start_ms, d.end_ms)) }
        })
        .collect();
    let base: Vec<f64> = entries
        .iter()
        .zip(&facts)
        .map(|(e, f)| {
            let fit = match (profile.window, f.date) {
                (Some((ws, we)), Some((ds, de))) if ds < we && ws < de => TIME_FIT,
                (Some(_), Some(_)) => -TIME_MISS,
                _ => 0.0,
            };
            e.rank + fit
        })
        .collect();
    // every pair's overlap, once (share of the smaller one's words, shared words' weight)
    let mut pairs = vec![(0.0, 0.0); n * n];
    for i in 0..n {
        for j in i + 1..n {
            let o = overlap(&facts[i].words, &facts[j].words);
            pairs[i * n + j] = o;
            pairs[j * n + i] = o;
        }
    }
    let pair = |i: usize, j: usize| pairs[i * n + j];
    let query_bits = entries.iter().fold(0u128, |m, e| m | e.words);
    let query_count = f64::from(query_bits.count_ones().max(1));
    let mut left: Vec<usize> = (0..n).collect();
    let mut order: Vec<usize> = Vec::with_capacity(n);
    let mut covered = 0u128;
    while !left.is_empty() {
        let value = |i: usize| {
            let redundancy = order.iter().map(|&j| pair(i, j).0).fold(0.0, f64::max);
            let adds = f64::from((entries[i].words & !covered).count_ones()) / query_count;
            base[i] - DIVERSITY * redundancy + NEW_WORDS * adds
        };
        let (at, _) = left.iter().enumerate().map(|(k, &i)| (k, value(i))).fold((0, f64::NEG_INFINITY), |best, x| if x.1 > best.1 { x } else { best });
        let i = left.remove(at);
        covered |= entries[i].words;
        order.push(i);
    }
    // the newest first among memories about the same thing; the older cut unless the past is asked
    // the query words about the subject (not "now", "decided", "最后": the kind of answer)
    let subject: u128 = profile.tokens.iter().enumerate().filter(|(_, t)| !is_cue_token(t)).fold(0, |m, (b, _)| m | (1u128 << b))
        | if profile.tokens.len() < 128 { !0u128 << profile.tokens.len() } else { 0 };
    // which of two memories is newer: the one written later (the order the store learned them
    // in), else, when either write time is unknown or both were written in the same second
    // (one commit's extraction), the one whose text names a later date
    // (write times are asked for, and used, only when the present is asked)
    let written = |i: usize| entries[i].written.filter(|_| profile.wants_recent);
    let when = |i: usize, j: usize| match (written(i), written(j)) {
        (Some(a), Some(b)) if a != b => Some((a, b)),
        _ => Some((facts[i].date?.0, facts[j].date?.0)),
    };
    // the query words that name someone or something: never the one word a newer version may lack
    let names: u128 = profile.tokens.iter().enumerate().filter(|(_, t)| profile.names.binary_search(t).is_ok()).fold(0, |m, (b, _)| m | (1u128 << b));
    let same_thing = |older: usize, newer: usize| match when(older, newer) {
        // the newer holds every telling query word the older does (two incidents of one kind
        // on different services are not one fact), and says mostly the same
        Some((so, sn)) => {
            // (when the present is asked, one such word may be missing: "drives a Fiat"
            // against "replaced her Fiat with a Toyota")
            let missing = entries[older].words & subject & !entries[newer].words;
            sn > so && (missing == 0 || (profile.wants_recent && missing.count_ones() == 1 && missing & names == 0)) && {
                let (sim, shared) = pair(older, newer);
                sim >= SAME_THING || (profile.wants_recent && shared >= 2.0 && sim >= SAME_THING_NOW)
            }
        }
        None => false,
    };
    let drop_older = profile.wants_recent && !profile.wants_history;
    let mut cut = Vec::new();
    let mut k = 0;
    while k < order.len() {
        let i = order[k];
        // the newest of the memories about the same thing as this one
        let newest = order.iter().enumerate().filter(|&(_, &j)| j != i && same_thing(i, j)).fold(None, |best: Option<(usize, &usize)>, x| match best {
            Some(b) if !same_thing(*b.1, *x.1) => Some(b),
            _ => Some(x),
        });
        match newest {
            Some((p, &j)) => {
                if p > k {
                    order.remove(p);
                    order.insert(k, j);
                    k += 1; // i is now at k
                }
                if drop_older {
                    order.remove(k);
                    cut.push((i, CutReason::Superseded, Some(j)));
                    continue;
                }
                k += 1;
            }
            None => k += 1,
        }
    }
    Covered { order, cut }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use crate::wasm_test as test;
    use super::*;
    use crate::recall::rank::profile_query;
    use crate::recall::{query_words_in, relevance_words};

    fn entries<'a>(query: &str, items: &[(&'a str, f64)]) -> Vec<Entry<'a>> {
        let words = relevance_words(query);
        items.iter().map(|(s, r)| Entry { summary: s, rank: *r, words: query_words_in(&words, &s.to_lowercase()), written: None }).collect()
    }

    #[test]
    fn restatements_of_one_aspect_give_way_to_the_other_aspect() {
        let q = "What do Jonas and Mira have in common?";
        assert_eq!(profile_query(q).names, ["jonas", "mira"]);
        let items = [
            ("Jonas loves hiking in the Alps every summer.", 0.80),
            ("Jonas goes hiking in the Alps most summers.", 0.79),
            ("Every summer Jonas hikes in the Alps.", 0.78),
            ("Mira started rock climbing and hiking in 2023.", 0.74),
        ];
        let out = cover(&entries(q, &items), &profile_query(q));
        assert_eq!(out.order[..2], [0, 3], "Mira's fact comes second: {:?}", out.order);
    }

    #[test]
    fn the_newest_version_comes_first_and_the_older_is_cut_when_the_present_is_asked() {
        let items = [("Priya worked as a nurse at St Mary's hospital in Leeds since March 2021.", 0.8), ("Priya works as a nurse at a hospital in York since June 2023.", 0.7)];
        let q = "Where does Priya work as a nurse now?";
        let out = cover(&entries(q, &items), &profile_query(q));
        assert_eq!(out.order, [1]);
        assert_eq!(out.cut, [(0, CutReason::Superseded, Some(1))]);
        let q = "Where did Priya work as a nurse before?";
        let out = cover(&entries(q, &items), &profile_query(q));
        assert_eq!(out.order, [1, 0], "both kept, the newest first");
        assert!(out.cut.is_empty());
    }

    #[test]
    fn the_one_written_later_is_the_newer_whatever_its_text_says() {
        let q = "Which team is Nadia on now?";
        let mut es = entries(q, &[("Nadia is on the payments team.", 0.8), ("Nadia moved to the search team.", 0.7)]);
        es[0].written = Some(2_000);
        es[1].written = Some(1_000);
        let out = cover(&es, &profile_query(q));
        assert_eq!(out.order, [0], "the payments team was written last");
        es[0].written = Some(500);
        let out = cover(&es, &profile_query(q));
        assert_eq!(out.order, [1]);
        assert_eq!(out.cut, [(0, CutReason::Superseded, Some(1))]);
    }

    #[test]
    fn another_person_s_fact_is_not_a_newer_version_of_this_one() {
        let q = "What do Owen's wife and Nadia's current boyfriend have in common professionally?";
        let mut es = entries(q, &[("Ruth, who is married to Owen, works as a nurse at the hospital.", 0.8), ("Nadia's boyfriend Ravi works as a nurse at the hospital.", 0.7)]);
        es[0].written = Some(1_000);
        es[1].written = Some(2_000);
        let out = cover(&es, &profile_query(q));
        assert!(out.cut.is_empty(), "{:?}", out.cut);
        assert_eq!(out.order.len(), 2);
    }

    #[test]
    fn a_memory_dated_in_the_named_span_gains_one_dated_outside_loses() {
        let q = "What did Sam bake in the second half of March 2024?";
        let items = [("Sam baked sourdough bread on 2 February 2024.", 0.80), ("Sam baked a lemon tart on 20 March 2024.", 0.70)];
        let out = cover(&entries(q, &items), &profile_query(q));
        assert_eq!(out.order[0], 1);
    }
}
