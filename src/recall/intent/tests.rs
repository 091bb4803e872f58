//! Tests of `intent`.

#[cfg(target_arch = "wasm32")]
use crate::wasm_test as test;
use super::*;

// Wednesday 2026-05-13 12:00 UTC
const NOW: u64 = 1_778_673_600_000;

fn day(y: i64, m: u32, d: u32) -> u64 {
    days_from_civil(y, m, d) as u64 * DAY_MS
}

#[test]
fn now_is_a_wednesday() {
    assert_eq!(ymd(NOW), (2026, 5, 13));
    assert_eq!(week_start(NOW), day(2026, 5, 11));
}

#[test]
fn acknowledgements_greetings_and_commands_need_no_recall() {
    for t in ["ok thanks", "Thanks a lot!", "great, that works", "got it 👍", "好的，谢谢", "收到了", "嗯嗯 好的", "/status", "  "] {
        assert!(!analyze(t, NOW).needs_recall, "{t}");
    }
    assert_eq!(analyze("hello!", NOW).reason, "greeting");
    assert_eq!(analyze("ok thanks", NOW).reason, "acknowledgement");
    assert_eq!(analyze("/new", NOW).reason, "command");
    for t in ["ok, what did we decide for the cache?", "thanks — which editor do I use?", "好的，那我们缓存用的什么？"] {
        assert!(analyze(t, NOW).needs_recall, "{t}");
    }
}

#[test]
fn a_broad_word_alone_does_not_narrow_the_search_to_one_folder() {
    for t in ["D3 And the last part of the billing ledger:", "What should I read before bed and after lunch?", "Which database did we pick since the migration?"] {
        let i = analyze(t, NOW);
        assert!(i.needs_recall && i.narrowed_to.as_deref() != Some("events"), "{t}: {:?}", i.narrowed_to);
    }
    assert_eq!(analyze("When did we switch the billing database?", NOW).narrowed_to.as_deref(), Some("events"));
}

#[test]
fn general_knowledge_without_a_personal_word_needs_no_recall() {
    for t in ["Who wrote Pride and Prejudice?", "Explain how a transistor amplifies a signal.", "What is the capital of Peru?", "Why is the ocean salty?", "《红楼梦》的作者是谁？", "长江有多长，珠穆朗玛峰有多高？"] {
        assert_eq!(analyze(t, NOW).reason, "general_knowledge", "{t}");
    }
    for t in ["Explain how our billing service retries payments.", "Why is the build failing since yesterday?", "Who owns the orders service?", "我们的首都办公室在哪？", "What does Priya work on?"] {
        assert!(analyze(t, NOW).needs_recall, "{t}");
    }
}

#[test]
fn questions_about_someone_are_searched() {
    for t in [
        "Why is the garden so important to Jonas?",
        "Why is the allotment special to Jonas's grandmother?",
        "What does Priya's brother do now?",
        "许佳宁现在是做什么的？",
        "高远和许佳宁的另一半分别是做什么的？",
        "Who wrote Mira's favourite novel?",
    ] {
        assert!(analyze(t, NOW).needs_recall, "{t}");
    }
    for t in ["Why is the sky blue?", "Who wrote Pride and Prejudice?", "What's the capital of Australia?", "Why do cats purr?"] {
        assert_eq!(analyze(t, NOW).reason, "general_knowledge", "{t}");
    }
}

#[test]
fn memory_types_from_cue_words() {
    assert_eq!(analyze("Which editor do I prefer?", NOW).types, vec![MemoryType::Preference, MemoryType::Entity]);
    let pref = analyze("我喜欢喝什么咖啡？", NOW);
    assert_eq!(pref.types, vec![MemoryType::Preference]);
    assert_eq!(pref.narrowed_to.as_deref(), Some("preferences"));
    let ev = analyze("When did we switch the cache to Redis?", NOW);
    assert_eq!(ev.types, vec![MemoryType::Event]);
    assert_eq!(ev.narrowed_to.as_deref(), Some("events"));
    assert!(analyze("When is my brother's birthday?", NOW).narrowed_to.is_none(), "a present-tense when asks for a fact");
    assert_eq!(analyze("When was the outage?", NOW).narrowed_to.as_deref(), Some("events"));
    assert_eq!(analyze("How did we fix the login bug?", NOW).types, vec![MemoryType::CasePattern]);
    assert_eq!(analyze("What are the steps to rotate the keys?", NOW).types, vec![MemoryType::Experience]);
    assert_eq!(analyze("这个报错之前是怎么解决的？", NOW).types, vec![MemoryType::Event, MemoryType::CasePattern]);
    assert!(analyze("Which database does billing use?", NOW).narrowed_to.is_none(), "an entity question searches everything");
    assert!(analyze("Tell me about Priya's database", NOW).types.is_empty());
}

#[test]
fn windows_with_explicit_months_and_years() {
    let w = |t: &str| time_window(t, NOW).map(|w| (w.start_ms, w.end_ms));
    assert_eq!(w("What did Priya do in the second half of March 2024?"), Some((day(2024, 3, 16), day(2024, 4, 1))));
    assert_eq!(w("what happened in the last week of June 2024"), Some((day(2024, 6, 24), day(2024, 7, 1))));
    assert_eq!(w("Where did we go in late 2022?"), Some((day(2022, 9, 1), day(2023, 1, 1))));
    assert_eq!(w("2024年3月下旬我去了哪里？"), Some((day(2024, 3, 21), day(2024, 4, 1))));
    assert_eq!(w("2022年秋天他搬家了吗"), Some((day(2022, 9, 1), day(2022, 12, 1))));
    assert_eq!(w("what did I cook on March 3?"), Some((day(2026, 3, 3), day(2026, 3, 4))), "this year's March: it has begun");
    assert_eq!(w("what did I do in September?"), Some((day(2025, 9, 1), day(2025, 10, 1))), "the latest September that has begun");
    assert_eq!(w("what are my plans for 2027?"), None, "a year still to come is no window to search since");
    let i = analyze("Which city did Jonas move to in the first half of 2023?", NOW);
    assert_eq!(i.window.as_ref().map(|w| w.since()), Some("2023-01-01T00:00:00.000Z".to_string()));
}

#[test]
fn windows_from_english_phrases() {
    let w = |t: &str| time_window(t, NOW).map(|w| (w.start_ms, w.end_ms));
    assert_eq!(w("what did I do yesterday?"), Some((day(2026, 5, 12), day(2026, 5, 13))));
    assert_eq!(w("what happened today"), Some((day(2026, 5, 13), day(2026, 5, 14))));
    assert_eq!(w("the day before yesterday"), Some((day(2026, 5, 11), day(2026, 5, 12))));
    assert_eq!(w("what did we decide last week?"), Some((day(2026, 5, 4), day(2026, 5, 11))));
    assert_eq!(w("this week"), Some((day(2026, 5, 11), day(2026, 5, 18))));
    assert_eq!(w("last month"), Some((day(2026, 4, 1), day(2026, 5, 1))));
    assert_eq!(w("last year"), Some((day(2025, 1, 1), day(2026, 1, 1))));
    assert_eq!(w("three days ago"), Some((day(2026, 5, 10), day(2026, 5, 11))));
    assert_eq!(w("3 days ago"), Some((day(2026, 5, 10), day(2026, 5, 11))));
    assert_eq!(w("in the past 2 weeks"), Some((NOW - 14 * DAY_MS, NOW)));
    assert_eq!(w("the last 10 days"), Some((NOW - 10 * DAY_MS, NOW)));
    assert_eq!(w("what did we ship in March?"), Some((day(2026, 3, 1), day(2026, 4, 1))));
    assert_eq!(w("in December"), Some((day(2025, 12, 1), day(2026, 1, 1))), "a month after now is last year's");
    assert_eq!(w("in March 2024"), Some((day(2024, 3, 1), day(2024, 4, 1))));
    assert_eq!(w("What did we decide for the cache?"), None);
    assert_eq!(w("May I ask what you think?"), None, "a month name alone is not a window");
    assert_eq!(w("is it the last one?"), None);
}

#[test]
fn windows_from_chinese_phrases() {
    let w = |t: &str| time_window(t, NOW).map(|w| (w.start_ms, w.end_ms));
    assert_eq!(w("我昨天干了什么？"), Some((day(2026, 5, 12), day(2026, 5, 13))));
    assert_eq!(w("前天的会议"), Some((day(2026, 5, 11), day(2026, 5, 12))));
    assert_eq!(w("上周我们定了什么？"), Some((day(2026, 5, 4), day(2026, 5, 11))));
    assert_eq!(w("这周"), Some((day(2026, 5, 11), day(2026, 5, 18))));
    assert_eq!(w("上个月的账单"), Some((day(2026, 4, 1), day(2026, 5, 1))));
    assert_eq!(w("去年"), Some((day(2025, 1, 1), day(2026, 1, 1))));
    assert_eq!(w("三天前"), Some((day(2026, 5, 10), day(2026, 5, 11))));
    assert_eq!(w("12天前"), Some((day(2026, 5, 1), day(2026, 5, 2))));
    assert_eq!(w("我们是在三月换的数据库吗？"), Some((day(2026, 3, 1), day(2026, 4, 1))));
    assert_eq!(w("小雨的生日是几月？"), None);
}

#[test]
fn a_window_makes_the_turn_about_events_and_never_general() {
    let i = analyze("Why is the deploy slow since last week?", NOW);
    assert!(i.needs_recall);
    assert!(i.types.contains(&MemoryType::Event));
    assert_eq!(i.window.as_ref().map(|w| w.phrase.as_str()), Some("last week"));
    assert_eq!(i.window.unwrap().since(), "2026-05-04T00:00:00.000Z");
}

#[test]
fn odd_input_never_panics() {
    for t in ["𝔘", "in", "last", "ago", "3", "天前", "十天前", "one two ago", "in may 99999", "9999999999 days ago", "\u{0}"] {
        let _ = analyze(t, NOW);
        let _ = analyze(t, 0);
    }
}
