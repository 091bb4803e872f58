//! The read path's lexical candidates (`recall::lexical`): a grep for the question's words
//! beside the find, its hits fused with the vector candidates.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;

/// A store whose vector search misses one memory: the find answers the theme only, the
/// piano lessons are a file the grep reads.
fn host_with_a_missed_memory() -> FakeHost {
    let host = host_with_memories();
    host.world().texts.insert(format!("{USER}/events/piano.md"), "Piano lessons with Ms. Lin every Thursday".into());
    host
}

const PROMPT: &str = "Who gives my piano lessons?";

#[test]
fn a_memory_the_find_missed_that_holds_the_question_s_words_is_recalled() {
    let host = host_with_a_missed_memory();
    let e = engine(&host, json!({}));
    let out = assemble(&e, "s1", PROMPT);
    let greps = host.world().greps.clone();
    assert_eq!(greps.len(), 1, "one grep beside the find: {greps:?}");
    assert_eq!(greps[0].0, USER, "the user scope, never the agent's or another's");
    assert!(greps[0].1.split('|').any(|w| w == "piano"), "{:?}", greps[0].1);
    assert!(!greps[0].1.split('|').any(|w| w == "who" || w == "my"), "no function word: {:?}", greps[0].1);
    assert_eq!(recalled_uris(&out), [format!("{USER}/events/piano.md")]);
    let shown = Value::Array(out.result.composition.messages.clone()).to_string();
    assert!(shown.contains("Ms. Lin every Thursday"), "the matched text reaches the model");
}

#[test]
fn without_lexical_candidates_nothing_is_grepped_and_the_missed_memory_stays_missed() {
    let host = host_with_a_missed_memory();
    let e = engine(&host, json!({ "recallLexical": false }));
    let out = assemble(&e, "s1", PROMPT);
    assert!(host.world().greps.is_empty());
    assert!(!recalled_uris(&out).contains(&format!("{USER}/events/piano.md")));
}

#[test]
fn a_grep_that_fails_costs_its_candidates_only() {
    for kind in [HostErrorKind::Unreachable, HostErrorKind::Timeout, HostErrorKind::Rejected, HostErrorKind::BadResponse] {
        let host = host_with_a_missed_memory();
        let e = engine(&host, json!({}));
        host.fail("grep", kind);
        let out = assemble(&e, "s1", "Which editor theme do I prefer?");
        assert_eq!((out.recall_status.state.as_str(), out.recall_status.reason.is_none()), ("searched", true), "{kind:?}: {:?}", out.recall_status);
        assert!(host.world().warnings.is_empty(), "{kind:?}: {:?}", host.world().warnings);
        assert_eq!(recalled_uris(&out), [format!("{USER}/preferences/theme.md")], "{kind:?}");
    }
}

#[test]
fn a_question_within_a_named_window_sends_no_grep() {
    let host = host_with_a_missed_memory();
    let e = engine(&host, json!({}));
    assemble(&e, "s1", "What did I do about piano lessons last week?");
    assert!(!host.world().finds.is_empty());
    assert!(host.world().greps.is_empty(), "a grep has no since: {:?}", host.world().greps);
}
