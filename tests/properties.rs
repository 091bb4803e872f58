//! Property tests for the invariants the engine promises: the recall budget is never
//! exceeded, dedupe and injection are idempotent, truncation never breaks a character, every
//! tool call keeps its result, and no input — however malformed — panics.
#![cfg(not(target_arch = "wasm32"))]

use openviking_context_engine::recall::auto::{auto_recall, RecallRequest};
use openviking_context_engine::config::{parse_config, Config, Env};
use openviking_context_engine::message::estimate_message_tokens;
use openviking_context_engine::message::synthetic::{inject_recall, recall_pair, RecalledMemory};
use openviking_context_engine::message::{role, tool_call_ids};
use openviking_context_engine::recall::candidate::SearchItem;
use openviking_context_engine::recall::{content_words, near_duplicate, query_words_in, recall, relevance_words, RecallSettings, engine_pool, legacy_pool};
use openviking_context_engine::text::{collapse_whitespace, truncate_with_ellipsis, utf16_len};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashSet};

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("database ".to_string()),
            Just("慢查询".to_string()),
            Just("😀".to_string()),
            Just("fn main() { }\n".to_string()),
            Just("偏好深色主题".to_string()),
            Just("Dark theme, please. ".to_string()),
            "[a-zA-Z ]{1,12}",
            "\\PC{1,6}",
        ],
        0..40,
    )
    .prop_map(|v| v.concat())
}

fn item() -> impl Strategy<Value = SearchItem> {
    (0u8..40, prop::option::of(0i64..3), -0.5f64..1.5, text(), prop::option::of(prop_oneof![
        Just("preferences".to_string()), Just("events".to_string()), Just("entities".to_string()), Just("cases".to_string())
    ]))
        .prop_map(|(n, level, score, abstract_text, category)| SearchItem {
            uri: format!("viking://user/u/memories/x/{n}.md"),
            level,
            score: score.clamp(0.0, 1.0),
            abstract_text,
            overview: String::new(),
            category,
            malformed: None,
            written_ms: (n % 2 == 0).then(|| u64::from(n) * 60_000),
        })
}

fn settings() -> impl Strategy<Value = RecallSettings> {
    (1usize..12, 0.0f64..0.6, 50usize..800, any::<bool>(), 100usize..3000, prop_oneof![Just(1.0), 0.0f64..0.5], any::<bool>(), prop_oneof![Just(0.0), 0.3f64..1.0])
        .prop_map(|(limit, t, chars, pa, budget, window, words, overlap)| RecallSettings {
            limit,
            score_threshold: t,
            score_window: window,
            require_query_word: words,
            near_duplicate_overlap: overlap,
            max_content_chars: chars,
            prefer_abstract: pa,
            token_budget: budget,
            cover: window < 0.25,
            pool_size: if window < 0.25 { engine_pool(limit) } else { legacy_pool(limit) },
        })
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1e9f64..1e9).prop_map(|f| json!(f)),
        "\\PC{0,12}".prop_map(Value::String),
        prop_oneof![Just("user"), Just("assistant"), Just("toolResult"), Just("prompt"), Just("messages"),
                    Just("search"), Just("memories"), Just("uri"), Just("level"), Just("content")]
            .prop_map(|s| Value::String(s.to_string())),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![Just("role"), Just("content"), Just("prompt"), Just("messages"), Just("search"),
                            Just("user"), Just("agent"), Just("memories"), Just("uri"), Just("level"), Just("score"),
                            Just("abstract"), Just("contents"), Just("nowMs"), Just("recallLimit"), Just("type"),
                            Just("text"), Just("id"), Just("name"), Just("toolCallId")]
                    .prop_map(str::to_string),
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A conversation in which every tool call has its result.
fn conversation() -> impl Strategy<Value = Vec<Value>> {
    prop::collection::vec((0u8..3, "[a-z ]{0,20}"), 0..12).prop_map(|turns| {
        let mut out = Vec::new();
        for (i, (kind, t)) in turns.into_iter().enumerate() {
            match kind {
                0 => out.push(json!({"role": "user", "content": t})),
                1 => out.push(json!({"role": "assistant", "content": [{"type": "text", "text": t}]})),
                _ => {
                    let id = format!("call_{i}");
                    out.push(json!({"role": "assistant", "content": [{"type": "toolCall", "id": id, "name": "exec", "arguments": {}}]}));
                    out.push(json!({"role": "toolResult", "toolCallId": id, "toolName": "exec", "content": [], "isError": false}));
                }
            }
        }
        out
    })
}

fn calls_have_results(msgs: &[Value]) -> bool {
    let calls: HashSet<&str> = msgs.iter().flat_map(tool_call_ids).collect();
    let results: HashSet<&str> = msgs
        .iter()
        .filter(|m| role(m) == Some("toolResult"))
        .filter_map(|m| m.get("toolCallId").and_then(Value::as_str))
        .collect();
    calls == results
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn recall_never_exceeds_its_budget(user in prop::collection::vec(item(), 0..30),
                                       agent in prop::collection::vec(item(), 0..10),
                                       s in settings(), q in text()) {
        let out = recall(&q, user, agent, &BTreeMap::new(), &s, 7);
        let measured: usize = out.messages.iter().map(estimate_message_tokens).sum();
        prop_assert!(out.tokens <= s.token_budget, "{} > {}", out.tokens, s.token_budget);
        prop_assert_eq!(measured, out.tokens);
        prop_assert!(out.memories.len() <= s.limit);
        prop_assert!(out.memories.is_empty() == out.messages.is_empty());
        for m in &out.memories {
            prop_assert!(utf16_len(&m.content) <= s.max_content_chars);
        }
        prop_assert!(calls_have_results(&out.messages));
    }

    /// The relevance rules hold for whatever is injected: each memory with an abstract holds a
    /// query word (when required and the query has words), the scores injected lie within the window, no two
    /// are near-duplicates that match the same query words, and the result has exactly one
    /// line per memory, each "- " + the text with its whitespace collapsed.
    #[test]
    fn what_is_injected_obeys_the_relevance_rules(user in prop::collection::vec(item(), 0..30), s in settings(), q in text()) {
        let s = RecallSettings { token_budget: 50_000, prefer_abstract: true, ..s };
        let out = recall(&q, user.clone(), vec![], &BTreeMap::new(), &s, 0);
        let words = relevance_words(&q);
        let first_by_uri = |uri: &str| user.iter().find(|i| i.uri == uri).cloned().unwrap();
        let picked: Vec<SearchItem> = out.memories.iter().map(|m| first_by_uri(&m.uri)).collect();
        if s.require_query_word && !words.is_empty() {
            // (a memory without an abstract cannot be judged: it stays)
            for it in picked.iter().filter(|it| !it.summary().is_empty()) {
                prop_assert!(query_words_in(&words, &it.summary().to_lowercase()) != 0, "{:?} shares no word with {:?}", it.summary(), q);
            }
        }
        if let (Some(hi), Some(lo)) = (picked.iter().map(|i| i.score).reduce(f64::max), picked.iter().map(|i| i.score).reduce(f64::min)) {
            prop_assert!(hi - lo <= s.score_window + 1e-9, "{hi} - {lo} > {}", s.score_window);
        }
        if s.near_duplicate_overlap > 0.0 {
            for (a, x) in picked.iter().enumerate() {
                for y in &picked[a + 1..] {
                    let same_words = query_words_in(&words, &x.summary().to_lowercase()) == query_words_in(&words, &y.summary().to_lowercase());
                    prop_assert!(!(same_words && near_duplicate(&content_words(x.summary()), &content_words(y.summary()), s.near_duplicate_overlap)),
                        "near-duplicates both injected: {:?} / {:?}", x.summary(), y.summary());
                }
            }
        }
        if let Some(result) = out.messages.get(1) {
            let text = result["content"][0]["text"].as_str().unwrap();
            let lines: Vec<&str> = text.split('\n').collect();
            prop_assert_eq!(lines.len(), out.memories.len());
            for (line, m) in lines.iter().zip(&out.memories) {
                prop_assert_eq!(line.to_string(), format!("- {}", collapse_whitespace(&m.content)));
            }
            prop_assert_eq!(&out.messages[0]["content"][0]["arguments"], &json!({}));
        }
    }

    #[test]
    fn dedupe_is_idempotent(user in prop::collection::vec(item(), 0..30), s in settings(), q in text()) {
        let s = RecallSettings { token_budget: 50_000, ..s };
        let first = recall(&q, user.clone(), vec![], &BTreeMap::new(), &s, 0);
        let kept: HashSet<String> = first.memories.iter().map(|m| m.uri.clone()).collect();
        let survivors: Vec<SearchItem> = user.into_iter().filter(|i| kept.contains(&i.uri)).collect();
        let mut seen = HashSet::new();
        let survivors: Vec<SearchItem> = survivors.into_iter().filter(|i| seen.insert(i.uri.clone())).collect();
        let second = recall(&q, survivors, vec![], &BTreeMap::new(), &s, 0);
        let again: HashSet<String> = second.memories.iter().map(|m| m.uri.clone()).collect();
        prop_assert_eq!(kept, again);
    }

    #[test]
    fn injection_is_idempotent_and_keeps_tool_pairs(msgs in conversation(), q in "[a-z ]{1,30}", separate in any::<bool>()) {
        let mem = vec![RecalledMemory { uri: "viking://user/u/memories/a.md".into(), category: "entities".into(), content: "x".into(), score: 0.5 }];
        let once = inject_recall(msgs.clone(), Some(recall_pair(&q, &mem, 1)), separate);
        let twice = inject_recall(once.clone(), Some(recall_pair(&q, &mem, 1)), separate);
        prop_assert_eq!(&once, &twice);
        prop_assert_eq!(once.len(), msgs.len() + 3, "the pair and the user message that opens it");
        prop_assert!(calls_have_results(&once));
        // the synthetic call always follows a user turn (Anthropic, Bedrock, Gemini)
        let at = once.iter().position(openviking_context_engine::message::synthetic::is_synthetic).unwrap();
        prop_assert_eq!(once[at]["role"].as_str(), Some("user"));
        let removed = inject_recall(once, None, separate);
        prop_assert_eq!(removed, msgs);
    }

    #[test]
    fn truncation_never_breaks_a_character(s in "\\PC{0,80}", n in 3usize..60) {
        let t = truncate_with_ellipsis(&s, n);
        prop_assert!(utf16_len(&t) <= n.max(utf16_len(&s).min(n)));
        if t != s {
            let kept = t.strip_suffix("...").unwrap();
            prop_assert!(s.starts_with(kept));
        }
    }

    #[test]
    fn config_parsing_never_panics(v in json_value()) {
        let _ = parse_config(&v, &Env::new());
    }

    #[test]
    fn auto_recall_never_panics(v in json_value()) {
        if let Ok(req) = RecallRequest::from_json(&v) {
            let _ = auto_recall(&Config::default(), req);
        }
    }
}

#[test]
fn every_bounded_key_defaults_inside_its_bounds_and_clamps_to_them() {
    use openviking_context_engine::config::{key_bounds, parse_config, KEYS};
    let bounds = key_bounds();
    assert_eq!(bounds.len(), 18);
    for b in &bounds {
        assert!(KEYS.contains(&b.key.as_str()), "{} is a config key", b.key);
        assert!(b.min <= b.default && b.default <= b.max, "{}: default within bounds", b.key);
        let env = Default::default();
        let over = parse_config(&serde_json::json!({ b.key.clone(): b.max * 2.0 + 1.0 }), &env).unwrap();
        let v = serde_json::to_value(&over.config).unwrap();
        let got = v.get(&b.key).and_then(|x| x.as_f64());
        if let Some(got) = got {
            assert_eq!(got, b.max, "{} above its maximum reads as the maximum", b.key);
        }
        assert!(over.warnings.iter().any(|w| w.contains(&b.key)), "{}: clamping is warned about", b.key);
    }
}
