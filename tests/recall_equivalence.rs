//! The optimised recall pipeline (`recall::recall` / `recall_with`) against a straightforward
//! reference — the pipeline as it was before the recall-speed work: every
//! candidate ranked with its own lowercased haystack, dedupe keys built with `format!`, an
//! explain record per candidate from the start, the pair built and estimated whole. On random
//! candidate sets and settings both must give the same outcome, field for field, and without
//! explain records the same memories, pair and tokens.
#![cfg(not(target_arch = "wasm32"))]

use openviking_context_engine::message::estimate_message_tokens;
use openviking_context_engine::message::synthetic::{recall_pair, RecalledMemory};
use openviking_context_engine::recall::candidate::{Scope, SearchItem};
use openviking_context_engine::recall::explain::{CutReason, Decision, ExplainRecord};
use openviking_context_engine::recall::rank::{one_typo_apart, TYPO_RUNS, profile_query, query_tokens, token_matches, QueryProfile, RankParts};
use openviking_context_engine::recall::cover::{cover, Entry};
use openviking_context_engine::recall::{query_words_in, recall, recall_with, relevance_words, RecallOutcome, RecallSettings, engine_pool, legacy_pool};
use openviking_context_engine::text::{collapse_whitespace, is_cjk, truncate_with_ellipsis};
use proptest::prelude::*;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};

mod reference {
    use super::*;

    fn token_weight(t: &str) -> f64 {
        let mut chars = t.chars();
        match (chars.next(), chars.next(), chars.next()) {
            (Some(a), Some(b), None) if is_cjk(a) && is_cjk(b) => 0.5,
            _ => 1.0,
        }
    }

    fn in_category(item: &SearchItem, name: &str, dir: &str) -> bool {
        item.category.as_deref().is_some_and(|c| c.eq_ignore_ascii_case(name)) || item.uri.contains(dir)
    }

    pub fn rank(item: &SearchItem, q: &QueryProfile) -> RankParts {
        let score = item.score;
        let level_boost = if item.level == Some(2) { 0.12 } else { 0.0 };
        let temporal_boost = if q.wants_temporal && in_category(item, "events", "/events/") { 0.10 } else { 0.0 };
        let preference_boost = if q.wants_preference && in_category(item, "preferences", "/preferences/") { 0.08 } else { 0.0 };
        let (lexical_boost, matched_tokens) = if q.tokens.is_empty() {
            (0.0, 0)
        } else {
            let hay = item.haystack();
            let matched: Vec<&String> = q.tokens.iter().filter(|t| openviking_context_engine::recall::rank::token_matches(&hay, t)).collect();
            let matched_weight: f64 = matched.iter().map(|t| token_weight(t)).sum();
            let total_weight: f64 = q.tokens.iter().map(|t| token_weight(t)).sum();
            ((matched_weight / total_weight.min(4.0) * 0.2).min(0.2), matched.len())
        };
        let total = score + level_boost + temporal_boost + preference_boost + lexical_boost;
        RankParts { score, level_boost, temporal_boost, preference_boost, lexical_boost, matched_tokens, total }
    }

    struct Candidate {
        item: SearchItem,
        scope: Scope,
        rank: RankParts,
    }

    fn normalised_abstract(s: &str) -> String {
        collapse_whitespace(s).to_lowercase()
    }

    fn first_dedupe_key(item: &SearchItem) -> String {
        let category = item.category.as_deref().unwrap_or("unknown").to_lowercase();
        if item.summary().is_empty() || category == "events" || category == "cases" {
            format!("uri:{}", item.uri)
        } else {
            format!("abstract:{category}:{}", normalised_abstract(item.summary()))
        }
    }

    fn second_dedupe_key(item: &SearchItem) -> String {
        if item.summary().is_empty() {
            format!("uri:{}", item.uri)
        } else {
            normalised_abstract(item.summary())
        }
    }

    fn content_for(item: &SearchItem, s: &RecallSettings, contents: &BTreeMap<String, String>) -> String {
        let full = contents.get(&item.uri).map(|t| t.trim()).filter(|t| !t.is_empty());
        let text = if s.prefer_abstract && !item.abstract_text.is_empty() {
            item.abstract_text.as_str()
        } else if let Some(t) = full {
            t
        } else if !item.summary().is_empty() {
            item.summary()
        } else {
            item.uri.as_str()
        };
        truncate_with_ellipsis(text, s.max_content_chars)
    }

    /// The query tokens the lowercased summary holds (a word of ≥ 6 letters also by its stem).
    fn query_words(query: &str, summary: &str) -> Vec<String> {
        let lower = summary.to_lowercase();
        let all: Vec<String> = query_tokens(query, f64::INFINITY).into_iter().take(128).collect();
        all.iter()
            .filter(|t| {
                token_matches(&lower, t)
                    || (t.len() >= 6 && t.chars().all(|c| c.is_ascii_alphabetic()) && token_matches(&lower, &t[..std::cmp::max(5, t.len() - 3)]))
                    || lower.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).take(TYPO_RUNS).any(|w| one_typo_apart(t.as_bytes(), w.as_bytes()))
            })
            .cloned()
            .collect()
    }

    fn near_duplicate(a: &str, b: &str, overlap: f64) -> bool {
        let words = |s: &str| -> BTreeSet<String> { query_tokens(s, f64::INFINITY).into_iter().collect() };
        let numbers = |s: &str| -> BTreeSet<String> {
            let mut out = BTreeSet::new();
            let mut run = String::new();
            for c in s.chars().chain(std::iter::once(' ')) {
                if c.is_ascii_digit() {
                    run.push(c);
                } else if !run.is_empty() {
                    out.insert(std::mem::take(&mut run));
                }
            }
            out
        };
        let (wa, wb) = (words(a), words(b));
        let names = |s: &str, w: &BTreeSet<String>| -> BTreeSet<String> {
            s.split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|x| x.len() >= 2 && x.starts_with(|c: char| c.is_ascii_uppercase()))
                .map(|x| x.to_ascii_lowercase())
                .filter(|x| w.contains(x))
                .collect()
        };
        let differ = names(a, &wa).iter().any(|n| !wb.contains(n)) && names(b, &wb).iter().any(|n| !wa.contains(n));
        let smaller = wa.len().min(wb.len());
        smaller > 0 && numbers(a) == numbers(b) && !differ && wa.intersection(&wb).count() as f64 >= overlap * smaller as f64 - 1e-9
    }

    fn pair_tokens(pair: &[Value; 2]) -> usize {
        pair.iter().map(estimate_message_tokens).sum()
    }

    pub fn recall(
        query: &str,
        user: Vec<SearchItem>,
        agent: Vec<SearchItem>,
        contents: &BTreeMap<String, String>,
        s: &RecallSettings,
        now_ms: u64,
    ) -> RecallOutcome {
        let profile = profile_query(query);
        let candidates: Vec<Candidate> = user
            .into_iter()
            .map(|i| (i, Scope::User))
            .chain(agent.into_iter().map(|i| (i, Scope::Agent)))
            .map(|(item, scope)| {
                let rank = rank(&item, &profile);
                Candidate { item, scope, rank }
            })
            .collect();
        let mut records: Vec<ExplainRecord> = candidates
            .iter()
            .enumerate()
            .map(|(i, c)| ExplainRecord {
                uri: c.item.uri.clone(),
                scope: c.scope,
                input_index: i,
                level: c.item.level,
                category: c.item.category.clone(),
                rank: c.rank,
                decision: Decision::Kept,
                reason: None,
                duplicate_of: None,
                detail: c.item.malformed.clone(),
                position: None,
                tokens: None,
            })
            .collect();
        let cut = |r: &mut ExplainRecord, reason: CutReason, of: Option<&str>| {
            r.decision = Decision::Cut;
            r.reason = Some(reason);
            r.duplicate_of = of.map(str::to_string);
        };
        let mut first_by_uri: HashMap<&str, usize> = HashMap::new();
        let mut pool: Vec<usize> = Vec::new();
        for (i, c) in candidates.iter().enumerate() {
            if c.item.malformed.is_some() {
                cut(&mut records[i], CutReason::Malformed, None);
            } else if let Some(&first) = first_by_uri.get(c.item.uri.as_str()) {
                cut(&mut records[i], CutReason::Duplicate, Some(&candidates[first].item.uri));
            } else {
                first_by_uri.insert(&c.item.uri, i);
                if c.item.level != Some(2) {
                    cut(&mut records[i], CutReason::NotLevel2, None);
                } else if c.item.score < s.score_threshold {
                    cut(&mut records[i], CutReason::BelowThreshold, None);
                } else {
                    pool.push(i);
                }
            }
        }
        if s.require_query_word && !query_tokens(query, f64::INFINITY).is_empty() {
            for i in std::mem::take(&mut pool) {
                let it = &candidates[i].item;
                let exempt = it.category.as_deref() == Some("profile") || it.summary().is_empty();
                if !exempt && query_words(query, it.summary()).is_empty() {
                    cut(&mut records[i], CutReason::NoQueryWord, None);
                } else {
                    pool.push(i);
                }
            }
        }
        if s.score_window < 1.0 {
            let is_profile = |i: usize| candidates[i].item.category.as_deref() == Some("profile");
            let best = pool.iter().filter(|&&i| !is_profile(i)).map(|&i| candidates[i].item.score).fold(f64::NEG_INFINITY, f64::max);
            for i in std::mem::take(&mut pool) {
                if !is_profile(i) && candidates[i].item.score < best - s.score_window - 1e-9 {
                    cut(&mut records[i], CutReason::FarBelowBest, None);
                } else {
                    pool.push(i);
                }
            }
        }
        pool.sort_by(|&a, &b| candidates[b].item.score.total_cmp(&candidates[a].item.score).then(a.cmp(&b)));
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut ranked: Vec<usize> = Vec::new();
        for i in pool {
            let key = first_dedupe_key(&candidates[i].item);
            if let Some(&first) = seen.get(&key) {
                cut(&mut records[i], CutReason::Duplicate, Some(&candidates[first].item.uri));
            } else if ranked.len() >= s.pool_size {
                cut(&mut records[i], CutReason::OverLimit, None);
            } else if let Some(&j) = ranked.iter().find(|&&j| {
                s.near_duplicate_overlap > 0.0
                    && query_words(query, candidates[j].item.summary()) == query_words(query, candidates[i].item.summary())
                    && near_duplicate(candidates[i].item.summary(), candidates[j].item.summary(), s.near_duplicate_overlap)
            }) {
                cut(&mut records[i], CutReason::Duplicate, Some(&candidates[j].item.uri));
            } else {
                seen.insert(key, i);
                ranked.push(i);
            }
        }
        ranked.sort_by(|&a, &b| {
            candidates[b]
                .rank
                .total
                .total_cmp(&candidates[a].rank.total)
                .then(candidates[b].item.score.total_cmp(&candidates[a].item.score))
                .then(a.cmp(&b))
        });
        // step 5b is one function (recall::cover), called here as the pipeline calls it
        if s.cover && ranked.len() > 1 {
            let words = relevance_words(query);
            let lowered: Vec<String> = ranked.iter().map(|&i| candidates[i].item.summary().to_lowercase()).collect();
            let entries: Vec<Entry> = ranked
                .iter()
                .zip(&lowered)
                .map(|(&i, lower)| Entry { summary: candidates[i].item.summary(), rank: candidates[i].rank.total, words: query_words_in(&words, lower), written: candidates[i].item.written_ms })
                .collect();
            let covered = cover(&entries, &profile);
            for (k, reason, of) in covered.cut {
                let of = of.map(|j| candidates[ranked[j]].item.uri.clone());
                cut(&mut records[ranked[k]], reason, of.as_deref());
            }
            ranked = covered.order.iter().map(|&k| ranked[k]).collect();
        }
        let mut seen2: HashMap<String, usize> = HashMap::new();
        let mut picked = Vec::new();
        for i in ranked {
            let key = second_dedupe_key(&candidates[i].item);
            if let Some(&first) = seen2.get(&key) {
                cut(&mut records[i], CutReason::Duplicate, Some(&candidates[first].item.uri));
            } else if picked.len() >= s.limit {
                cut(&mut records[i], CutReason::OverLimit, None);
            } else {
                seen2.insert(key, i);
                picked.push(i);
            }
        }
        let needs: Vec<String> = picked
            .iter()
            .map(|&i| &candidates[i].item)
            .filter(|it| !(s.prefer_abstract && !it.abstract_text.is_empty()))
            .map(|it| it.uri.clone())
            .filter(|u| !contents.contains_key(u))
            .collect();

        // each memory is tried on the whole pair, the ones kept so far and itself
        let mut kept: Vec<(usize, RecalledMemory)> = Vec::new();
        let mut used = pair_tokens(&recall_pair(query, &[], now_ms)) - estimate_message_tokens(&recall_pair(query, &[], now_ms)[1])
            + estimate_message_tokens(&serde_json::json!({"role": "toolResult", "content": [{"type": "text", "text": ""}]}));
        for &i in &picked {
            let item = &candidates[i].item;
            let memory = RecalledMemory {
                uri: item.uri.clone(),
                category: item.category.clone().unwrap_or_else(|| "memory".into()),
                content: content_for(item, s, contents),
                score: (item.score * 100.0).round() / 100.0,
            };
            let mut trial: Vec<RecalledMemory> = kept.iter().map(|(_, m)| m.clone()).collect();
            trial.push(memory.clone());
            let t = pair_tokens(&recall_pair(query, &trial, now_ms));
            records[i].tokens = Some(t.saturating_sub(used));
            if t <= s.token_budget {
                used = t;
                kept.push((i, memory));
            } else {
                records[i].decision = Decision::Cut;
                records[i].reason = Some(CutReason::OverBudget);
            }
        }
        let pair = (!kept.is_empty()).then(|| recall_pair(query, &kept.iter().map(|(_, m)| m.clone()).collect::<Vec<_>>(), now_ms));
        for (pos, (i, _)) in kept.iter().enumerate() {
            records[*i].position = Some(pos + 1);
        }
        let tokens = pair.as_ref().map_or(0, pair_tokens);
        records.sort_by(|a, b| match (a.position, b.position) {
            (Some(x), Some(y)) => x.cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => b.rank.total.total_cmp(&a.rank.total).then(a.input_index.cmp(&b.input_index)),
        });
        RecallOutcome {
            query: query.to_string(),
            query_profile: profile,
            memories: kept.into_iter().map(|(_, m)| m).collect(),
            messages: pair.map(Vec::from).unwrap_or_default(),
            tokens,
            budget: s.token_budget,
            explain: records,
            needs_content: needs,
            experiences: Vec::new(),
            experience_tokens: 0,
            experience_lines: Vec::new(),
        }
    }
}

/// Texts that exercise the fast paths' edges: case, whitespace runs of every kind, a capital
/// sigma (context-dependent lowercase), the Kelvin sign and dotted capital I (non-ASCII that
/// lowercases to ASCII), CJK, emoji, and many exact duplicates.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("Postgres pool ".to_string()),
            Just("postgres  POOL".to_string()),
            Just("\t\n dark theme \u{feff}".to_string()),
            Just("慢查询优化".to_string()),
            Just("数据库 ".to_string()),
            Just("ΟΔΟΣ Σ".to_string()),
            Just("\u{212A}elvin İstanbul ".to_string()),
            Just("staging".to_string()),
            Just("😀 ".to_string()),
            Just("\u{00A0}\u{2003}".to_string()),
            "[a-zA-Z ]{1,10}",
            "\\PC{1,4}",
        ],
        0..6,
    )
    .prop_map(|v| v.concat())
}

fn category() -> impl Strategy<Value = Option<String>> {
    prop::option::of(prop_oneof![
        Just("preferences".to_string()),
        Just("profile".to_string()),
        Just("Events".to_string()),
        Just("events".to_string()),
        Just("CASES".to_string()),
        Just("entities".to_string()),
        Just("a:b".to_string()),
        Just("a".to_string()),
        Just("ΣΑ".to_string()),
        Just("\u{212A}".to_string()),
    ])
}

fn item() -> impl Strategy<Value = SearchItem> {
    (
        0u8..30,
        prop_oneof![Just("preferences"), Just("events"), Just("entities"), Just("x")],
        prop::option::weighted(0.9, prop_oneof![4 => Just(2i64), 1 => Just(1i64), 1 => Just(0i64)]),
        prop_oneof![0.0f64..1.0, Just(0.5), Just(0.15)],
        text(),
        text(),
        category(),
        prop::bool::weighted(0.03),
    )
        .prop_map(|(n, dir, level, score, abstract_text, overview, category, malformed)| {
            let abstract_text = openviking_context_engine::text::trim_space(&abstract_text).to_string();
            let overview = if abstract_text.is_empty() { openviking_context_engine::text::trim_space(&overview).to_string() } else { String::new() };
            SearchItem {
                uri: if malformed { String::new() } else { format!("viking://user/u/memories/{dir}/{n}.md") },
                level,
                score,
                abstract_text,
                overview,
                category,
                malformed: malformed.then(|| "item has no uri".to_string()),
                written_ms: (n % 3 != 0).then(|| n as u64 * 1000),
            }
        })
}

fn settings() -> impl Strategy<Value = RecallSettings> {
    (1usize..10, prop_oneof![Just(0.15), 0.0f64..1.0], 10usize..200, any::<bool>(), prop_oneof![Just(2000usize), 100usize..600])
        .prop_flat_map(|(limit, score_threshold, max_content_chars, prefer_abstract, token_budget)| {
            (prop_oneof![Just(1.0), Just(0.1), 0.0f64..0.5], any::<bool>(), prop_oneof![Just(0.0), Just(0.7), 0.0f64..1.0], any::<bool>()).prop_map(
                move |(score_window, require_query_word, near_duplicate_overlap, cover)| RecallSettings {
                    limit,
                    score_threshold,
                    score_window,
                    require_query_word,
                    near_duplicate_overlap,
                    max_content_chars,
                    prefer_abstract,
                    token_budget,
                    cover,
                    pool_size: if cover { engine_pool(limit) } else { legacy_pool(limit) },
                },
            )
        })
}

fn query() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("What did we decide about the staging Postgres pool?".to_string()),
        Just("我喜欢什么样的数据库慢查询优化？".to_string()),
        Just("when is the dark theme meeting next week, and which do I prefer".to_string()),
        Just("ΟΔΟΣ kelvin istanbul".to_string()),
        "[a-zA-Z ]{1,40}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn the_optimised_pipeline_matches_the_reference(
        q in query(),
        user in prop::collection::vec(item(), 0..60),
        agent in prop::collection::vec(item(), 0..60),
        s in settings(),
        with_contents in any::<bool>(),
    ) {
        let mut contents = BTreeMap::new();
        if with_contents {
            for it in user.iter().chain(&agent).step_by(3) {
                contents.insert(it.uri.clone(), format!("  full text of {} \n", it.uri));
            }
        }
        let want = reference::recall(&q, user.clone(), agent.clone(), &contents, &s, 1_764_000_000_000);
        let got = recall(&q, user.clone(), agent.clone(), &contents, &s, 1_764_000_000_000);
        // field for field, and byte for byte as JSON (-0.0 and 0.0 differ there)
        prop_assert_eq!(serde_json::to_string(&got).unwrap(), serde_json::to_string(&want).unwrap());
        prop_assert_eq!(&got, &want);
        prop_assert_eq!(&got.needs_content, &want.needs_content);

        let lean = recall_with(&q, user, agent, &contents, &s, 1_764_000_000_000, false);
        prop_assert!(lean.explain.is_empty());
        prop_assert_eq!(&lean.memories, &want.memories);
        prop_assert_eq!(&lean.messages, &want.messages);
        prop_assert_eq!(lean.tokens, want.tokens);
        prop_assert_eq!(&lean.needs_content, &want.needs_content);
        prop_assert_eq!(&lean.query_profile, &want.query_profile);
    }
}

/// Crowded pools: many candidates, few distinct abstracts, a full pool long before the end —
/// the case where the lean path stops early.
#[test]
fn crowded_pools_match_the_reference() {
    let topics = ["Postgres pool sizing", "postgres  POOL sizing", "dark theme", "慢查询优化", "ΟΔΟΣ", "", "on-call Monday"];
    for n in [10usize, 50, 200, 1000] {
        let mk = |prefix: &str, seed: usize| -> Vec<SearchItem> {
            (0..n)
                .map(|i| {
                    let k = (i * 7 + seed) % 97;
                    SearchItem {
                        uri: format!("viking://{prefix}/memories/{}/item-{}.md", ["preferences", "events", "entities"][k % 3], k % 61),
                        level: Some(if i % 9 == 0 { 1 } else { 2 }),
                        score: (k as f64) / 97.0,
                        abstract_text: format!("{} {}", topics[k % topics.len()], k % 5),
                        overview: String::new(),
                        category: Some(["preferences", "events", "entities", "Cases"][k % 4].to_string()),
                        malformed: None,
                        written_ms: Some(k as u64 * 1000),
                    }
                })
                .collect()
        };
        let c = BTreeMap::new();
        for s in [RecallSettings::legacy(6, 0.15, 500, true, 2000), RecallSettings { score_window: 0.3, require_query_word: true, near_duplicate_overlap: 0.7, ..RecallSettings::legacy(6, 0.15, 500, true, 2000) }] {
        for q in ["what about the staging postgres pool?", "我的慢查询", "when is on-call"] {
            let want = reference::recall(q, mk("user/a", 1), mk("agent/b", 5), &c, &s, 7);
            let got = recall(q, mk("user/a", 1), mk("agent/b", 5), &c, &s, 7);
            assert_eq!(serde_json::to_string(&got).unwrap(), serde_json::to_string(&want).unwrap(), "n = {n}, q = {q}");
            let lean = recall_with(q, mk("user/a", 1), mk("agent/b", 5), &c, &s, 7, false);
            assert_eq!((&lean.memories, &lean.messages, lean.tokens), (&want.memories, &want.messages, want.tokens), "n = {n}");
        }
        }
    }
}

fn json_item() -> impl Strategy<Value = Value> {
    use serde_json::json;
    let s = || prop_oneof![Just(json!(null)), Just(json!(3)), Just(json!("")), Just(json!("  padded \u{feff}")), Just(json!("plain")), "\\PC{0,6}".prop_map(Value::from)];
    (s(), s(), s(), s(), prop_oneof![Just(json!(2)), Just(json!(1.0)), Just(json!(2.5)), Just(json!("2")), Just(json!(null))],
        prop_oneof![Just(json!(0.5)), Just(json!(7)), Just(json!("x")), Just(json!(-1))], any::<bool>(), any::<u8>())
        .prop_map(|(uri, abs, ov, cat, level, score, tags, n)| {
            if n % 17 == 0 {
                return json!([n]);
            }
            let uri = if n % 3 == 0 { json!(format!(" viking://user/u/memories/preferences/{n}.md ")) } else { uri };
            let mut o = json!({"uri": uri, "abstract": abs, "overview": ov, "category": cat, "level": level, "score": score});
            if tags {
                o["tags"] = json!(["x", "memory_type=events"]);
            }
            o
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn taking_a_search_result_reads_what_reading_it_does(items in prop::collection::vec(json_item(), 0..8), shape in 0u8..6) {
        use openviking_context_engine::recall::candidate::read_search_result;
        use openviking_context_engine::recall::wire::take_scope;
        use serde_json::json;
        let v = match shape {
            0 => Value::Array(items),
            1 => json!({"memories": items, "total": 1}),
            2 => json!({"memories": null}),
            3 => json!({"memories": "nope"}),
            4 => json!({"memories": items}).to_string().into(),
            _ => json!("nope"),
        };
        // a string is the text of OpenViking's answer: read as the value it holds
        let parsed = match &v {
            Value::String(t) => serde_json::from_str::<Value>(t).ok(),
            v => Some(v.clone()),
        };
        let took = take_scope("search.user", v).map_err(|e| format!("{e:?}"));
        match parsed {
            Some(p) => prop_assert_eq!(took, read_search_result("search.user", Some(&p)).map_err(|e| format!("{e:?}"))),
            None => prop_assert!(took.unwrap_err().contains("is not valid JSON")),
        }
    }
}
