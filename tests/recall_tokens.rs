//! The recall tokenizer and word matcher against straightforward references: `query_tokens`
//! against the tokenizer as it was before the single-pass tokenizer (lowercase the whole text character by
//! character, allocate every token, look each up in the list), `WordRuns::matches` and
//! `query_words_in` against `token_matches`' substring search, and the profile built from
//! the unlimited tokens against the profile read with the limit. Random text mixes ASCII
//! words and function words, capitals, digits, CJK (particles and kana included), and the
//! characters whose lowercase is special (İ, the Kelvin sign, Σ, ß).
#![cfg(not(target_arch = "wasm32"))]

use openviking_context_engine::recall::rank::{is_stopword, one_typo_apart, TYPO_RUNS, profile_query, profile_query_from, query_tokens, token_matches, WordRuns};
use openviking_context_engine::recall::query_words::QueryWordIndex;
use openviking_context_engine::recall::{query_words_in, relevance_words};
use openviking_context_engine::text::is_cjk;
use proptest::prelude::*;

/// The earlier tokenizer, kept as the definition.
fn reference_tokens(query: &str, max_weight: f64) -> Vec<String> {
    const CJK_STOP_CHARS: &str = "的了吗呢吧啊呀是在和与及或我你您他她它们这那哪么什怎谁个也都就还又把被给对从到之其有没不很请吧嗎嘛呢哦の は が を に で と も へ や か ね よ な だ です ます した この その あの 이 가 은 는 을 를 에 의 도 로 와 과 요";
    let stop = |c: char| CJK_STOP_CHARS.contains(c);
    let weight_of = |t: &str| {
        let mut chars = t.chars();
        match (chars.next(), chars.next(), chars.next()) {
            (Some(a), Some(b), None) if is_cjk(a) && is_cjk(b) => 0.5,
            _ => 1.0,
        }
    };
    let mut tokens: Vec<String> = Vec::new();
    let mut weight = 0.0;
    let mut push = |t: String, tokens: &mut Vec<String>| -> bool {
        if tokens.contains(&t) {
            return true;
        }
        let w = weight_of(&t);
        if weight + w > max_weight {
            return false;
        }
        weight += w;
        tokens.push(t);
        true
    };
    let mut ascii = String::new();
    let mut run: Vec<char> = Vec::new();
    let mut open = true;
    for c in query.chars().flat_map(char::to_lowercase).chain(std::iter::once(' ')) {
        if !open {
            break;
        }
        if c.is_alphanumeric() && !is_cjk(c) {
            ascii.push(c);
        } else if ascii.chars().count() >= 2 && !is_stopword(&ascii) {
            open = push(std::mem::take(&mut ascii), &mut tokens);
        } else {
            ascii.clear();
        }
        if is_cjk(c) {
            run.push(c);
            let n = run.len();
            if n >= 2 && !stop(run[n - 2]) && !stop(run[n - 1]) {
                open = open && push(run[n - 2..].iter().collect(), &mut tokens);
            }
        } else if !run.is_empty() {
            if run.len() == 1 && !stop(run[0]) && !matches!(run[0], '\u{3040}'..='\u{30FF}') {
                open = open && push(run[0].to_string(), &mut tokens);
            }
            run.clear();
        }
    }
    tokens
}

/// The earlier query profile.
fn reference_profile(query: &str) -> (Vec<String>, bool, bool) {
    const PREFERENCE_WORDS: &[&str] =
        &["prefer", "prefers", "preferred", "preference", "preferences", "favorite", "favourite", "favorites", "favourites", "like", "likes"];
    const PREFERENCE_CJK: &[&str] = &["偏好", "喜欢", "爱好", "更倾向", "好み", "선호"];
    const TEMPORAL_WORDS: &[&str] =
        &["when", "date", "day", "days", "week", "month", "year", "yesterday", "today", "tomorrow", "last", "next"];
    const TEMPORAL_CJK: &[&str] = &[
        "什么时候", "何时", "哪天", "几月", "几年", "昨天", "今天", "明天", "上周", "下周", "上个月", "下个月", "去年", "明年",
        "いつ", "언제",
    ];
    let lower = query.to_lowercase();
    let words = || lower.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty());
    let has_word = |list: &[&str]| words().any(|w| list.contains(&w));
    let temporal = has_word(TEMPORAL_WORDS) || lower.contains("what time") || TEMPORAL_CJK.iter().any(|p| lower.contains(p));
    let preference = has_word(PREFERENCE_WORDS) || PREFERENCE_CJK.iter().any(|p| lower.contains(p));
    (reference_tokens(query, 8.0), temporal, preference)
}

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec![
            "postgres", "Postgres", "POOL", "pool", "pools", "staging", "the", "The", "about", "is", "on", "an", "a",
            "api", "apiary", "vault", "vaults", "restrictions", "restricted", "allergic", "allergy", "migration",
            "v2", "10", "2026-03-01", "x", "ab", "themselves", "yourselves", "café", "ünïcode", "straße",
        ]).prop_map(str::to_string),
        2 => prop::sample::select(vec![
            "数据库", "慢查询", "的", "了", "我", "茶", "猫", "偏好", "喜欢", "は", "の", "カタカナ", "ひらがな", "한국어", "선호", "你好吗",
        ]).prop_map(str::to_string),
        1 => prop::sample::select(vec!["what time", "What  time", "when", "Yesterday", "likes", "favourite", "昨天", "什么时候", "언제", "好み"]).prop_map(str::to_string),
        1 => prop::sample::select(vec!["İstanbul", "\u{212A}elvin", "ΣΑΣ", "ΌΣΟΣ", "ǅ", "ﬀ", "Ⅻ", "٣", "²"]).prop_map(str::to_string),
        2 => "[ .,!?/:\\-_\n\t'\"()]{1,3}",
        1 => "[a-zA-Z0-9]{1,9}",
        1 => any::<char>().prop_map(|c| c.to_string()),
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec((piece(), prop::sample::select(vec!["", " ", "  ", "-", "\n", "的", "/"])), 0..30)
        .prop_map(|parts| parts.into_iter().map(|(p, sep)| format!("{p}{sep}")).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn query_tokens_match_the_reference(q in text(), w in prop::sample::select(vec![0.0, 0.5, 1.0, 2.5, 4.0, 8.0, 16.0, f64::INFINITY])) {
        prop_assert_eq!(query_tokens(&q, w), reference_tokens(&q, w));
    }

    #[test]
    fn the_profile_matches_the_reference(q in text()) {
        let p = profile_query(&q);
        prop_assert_eq!((p.tokens, p.wants_temporal, p.wants_preference), reference_profile(&q));
    }

    #[test]
    fn the_profile_from_all_tokens_is_the_profile(q in text()) {
        prop_assert_eq!(profile_query_from(&q, &relevance_words(&q)), profile_query(&q));
        prop_assert_eq!(profile_query_from(&q, &query_tokens(&q, f64::INFINITY)), profile_query(&q));
    }

    #[test]
    fn word_runs_match_as_the_substring_search(hay in text(), extra in text(), cut in 0usize..12, len in 1usize..9) {
        let lower = hay.to_lowercase();
        let mut runs = WordRuns::default();
        runs.read(&lower);
        // tokens: the text's own tokens, slices of its words, and other text's tokens
        let mut tokens = query_tokens(&hay, f64::INFINITY);
        tokens.extend(query_tokens(&extra, f64::INFINITY));
        for t in query_tokens(&hay, f64::INFINITY) {
            let b: Vec<usize> = t.char_indices().map(|(i, _)| i).chain(std::iter::once(t.len())).collect();
            let from = b[cut.min(b.len() - 1)];
            let to = b[(cut + len).min(b.len() - 1)];
            if from < to {
                tokens.push(t[from..to].to_string());
            }
        }
        for t in &tokens {
            prop_assert_eq!(runs.matches(&lower, t), token_matches(&lower, t), "token {:?} in {:?}", t, lower);
        }
        // query_words_in against the rule it implements
        let words = relevance_words(&extra);
        let expected = words.iter().take(128).enumerate().filter(|(_, t)| {
            token_matches(&lower, t) || (t.len() >= 6 && t.bytes().all(|b| b.is_ascii_alphabetic()) && token_matches(&lower, &t[..(t.len() - 3).max(5)]))
                || lower.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).take(TYPO_RUNS).any(|w| one_typo_apart(t.as_bytes(), w.as_bytes()))
        }).fold(0u128, |m, (n, _)| m | (1u128 << n));
        prop_assert_eq!(query_words_in(&words, &lower), expected);
        // the index, for many texts: the same bits, also for the text's own words
        let mut index = QueryWordIndex::new(&words);
        prop_assert_eq!(index.found_in(&lower), expected);
        let own = relevance_words(&hay);
        let mut own_index = QueryWordIndex::new(&own);
        prop_assert_eq!(own_index.found_in(&lower), query_words_in(&own, &lower));
        prop_assert_eq!(own_index.found_in(&extra.to_lowercase()), query_words_in(&own, &extra.to_lowercase()));
    }
}

proptest! {
    #[test]
    fn utf16_prefixes_and_lengths_match_counting_every_character(s in text(), max in 0usize..120) {
        use openviking_context_engine::text::{prefix_utf16, utf16_len};
        prop_assert_eq!(utf16_len(&s), s.chars().map(char::len_utf16).sum::<usize>());
        let mut units = 0;
        let mut end = s.len();
        for (i, c) in s.char_indices() {
            if units + c.len_utf16() > max {
                end = i;
                break;
            }
            units += c.len_utf16();
        }
        prop_assert_eq!(prefix_utf16(&s, max), &s[..end]);
    }
}

#[test]
fn word_runs_edge_cases() {
    let mut runs = WordRuns::default();
    for (hay, t, want) in [
        ("the theme", "he", false),
        ("he", "he", true),
        ("vaults", "vault", true),
        ("apiary", "api", false),
        ("api", "api", true),
        ("x-api-y", "api", true),
        ("trevault", "vault", false),
        ("café-api", "api", true),
        ("éapi", "api", true),
        ("", "api", false),
        ("数据库慢查询", "查询", true),
    ] {
        runs.read(hay);
        assert_eq!(runs.matches(hay, t), want, "{t:?} in {hay:?}");
        assert_eq!(token_matches(hay, t), want, "{t:?} in {hay:?}");
    }
}
