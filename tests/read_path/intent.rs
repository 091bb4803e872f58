//! The read path's recall that reads the question (`recall::intent`): what is not searched, a
//! narrowed folder and its fallback, a named window sent as `since`, one find over both scopes.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::*;

fn dated(uri: &str, text: &str, score: f64, created_at: &str) -> Value {
    let mut m = memory(uri, text, score);
    m["created_at"] = json!(created_at);
    m
}

#[test]
fn acknowledgements_and_general_knowledge_are_not_searched() {
    let host = host_with_memories();
    let e = engine(&host, json!({}));
    for (prompt, reason) in [("ok thanks!", "acknowledgement"), ("好的，谢谢", "acknowledgement"), ("Who wrote Pride and Prejudice?", "general_knowledge")] {
        let out = assemble(&e, "s1", prompt);
        assert_eq!(out.recall_status.state, "not_needed", "{prompt}");
        assert_eq!(out.recall_status.intent.as_ref().map(|i| i.reason.as_str()), Some(reason));
        assert!(!out.result.composition.recall_included);
    }
    assert_eq!(host.world().finds.len(), 0, "two finds saved per such turn");
    // the same question about the user's own things is searched
    assemble(&e, "s1", "Who wrote our deploy runbook?");
    assert_eq!(host.world().finds.len(), 2);
}

#[test]
fn a_question_about_one_memory_type_searches_that_folder_and_falls_back_when_it_is_empty() {
    let host = host_with_memories();
    let e = engine(&host, json!({}));
    let out = assemble(&e, "s1", "What kind of editor theme do I like?");
    let finds = host.world().finds.clone();
    assert_eq!(finds.len(), 2);
    assert!(finds.iter().any(|f| f.0 == format!("{USER}/preferences")), "{finds:?}");
    assert!(finds.iter().any(|f| f.0 == AGENT), "the agent scope is searched whole");
    assert_eq!(recalled_uris(&out)[0], format!("{USER}/preferences/theme.md"));
    let intent = out.recall_status.intent.clone().unwrap();
    assert_eq!((intent.narrowed_to.as_deref(), intent.fell_back), (Some("preferences"), false));
    assert!(out.recall_status.line.contains("(intent: preferences only)"), "{}", out.recall_status.line);

    // an event question: the events folder holds nothing, so the whole scope is searched again
    let out = assemble(&e, "s1", "When did we move the theme to dark?");
    let finds = host.world().finds.clone();
    assert_eq!(finds.len(), 5, "{finds:?}");
    assert_eq!(finds[2..].iter().filter(|f| f.0.starts_with(USER)).map(|f| f.0.as_str()).collect::<Vec<_>>(), [format!("{USER}/events").as_str(), USER]);
    assert!(out.recall_status.intent.as_ref().unwrap().fell_back);
    assert!(recalled_uris(&out).contains(&format!("{USER}/preferences/theme.md")), "the fallback still finds it");
    assert!(out.recall_status.line.contains("nothing there, so the whole scope was searched"), "{}", out.recall_status.line);
}

#[test]
fn a_named_window_is_sent_as_since_and_keeps_what_was_said_in_it() {
    let host = FakeHost::new();
    // Wednesday 2026-05-13 12:00 UTC
    host.world().now = 1_778_673_600_000;
    host.world().memories.insert(
        USER.into(),
        vec![
            dated(&format!("{USER}/events/standup.md"), "Standup moved to 10:00 on Tuesday", 0.6, "2026-05-12T09:00:00.000Z"),
            dated(&format!("{USER}/events/offsite.md"), "The offsite was planned for April", 0.9, "2026-04-02T09:00:00.000Z"),
        ],
    );
    let e = engine(&host, json!({}));
    let out = assemble(&e, "s1", "What did we change yesterday?");
    let w = host.world();
    let user_find = w.finds.iter().position(|f| f.0.starts_with(USER)).unwrap();
    assert_eq!(w.find_filters[user_find].as_deref(), Some("2026-05-12T00:00:00.000Z"));
    let agent_find = w.finds.iter().position(|f| f.0 == AGENT).unwrap();
    assert_eq!(w.find_filters[agent_find], None, "the agent scope has no window");
    drop(w);
    assert_eq!(recalled_uris(&out), [format!("{USER}/events/standup.md")], "the April memory is outside the window");
    let intent = out.recall_status.intent.unwrap();
    assert_eq!((intent.window.as_deref(), intent.since.as_deref(), intent.fell_back), (Some("yesterday"), Some("2026-05-12T00:00:00.000Z"), false));
}

#[test]
fn a_server_that_refuses_since_is_searched_without_it() {
    let host = host_with_memories();
    host.world().refuse_since = true;
    let e = engine(&host, json!({}));
    let out = assemble(&e, "s1", "Which editor theme did I pick last week?");
    assert_eq!(out.recall_status.state, "searched");
    assert!(out.recall_status.reason.is_none(), "not a failed scope: {:?}", out.recall_status.reason);
    assert!(out.recall_status.intent.as_ref().unwrap().fell_back);
    assert!(recalled_uris(&out).contains(&format!("{USER}/preferences/theme.md")));
}

#[test]
fn the_hook_fallback_reads_the_question_too() {
    let host = host_with_memories();
    let e = engine(&host, json!({}));
    let block = block_on(e.hook_fallback(None, Some("thanks, got it".into()), vec![])).unwrap();
    assert!(block.is_none());
    assert_eq!(host.world().finds.len(), 0);
}

#[test]
fn a_summary_that_cannot_be_trusted_is_not_used_the_turns_behind_it_stay_raw_and_it_is_said() {
    let host = host_with_memories();
    let e = engine(&host, json!({}));
    let texts: Vec<String> = (0..6).map(|i| format!("Turn {i}: the staging pool question, part {i}")).collect();
    let write = |i: usize| block_on(e.write_turn(turn_write("s1", Some(&format!("k{i}")), turn(i, &texts[i])))).unwrap();
    host.world().task_polls = 0;
    (0..3).for_each(|i| drop(write(i)));
    assert!(block_on(e.compact("s1", None)).unwrap().compacted, "the first compaction: a good summary");
    (3..6).for_each(|i| drop(write(i)));
    // OpenViking without a model for its summaries writes a placeholder
    host.world().archive_overview = Some("# Session Summary\n\n**Overview**: 3 turns, 12 messages".into());
    assert!(block_on(e.compact("s1", None)).unwrap().compacted);
    let warned: Vec<String> = host.world().warnings.iter().filter(|w| w.contains("is a placeholder")).cloned().collect();
    assert_eq!(warned.len(), 1, "said once in the log: {:?}", host.world().warnings);
    assert!(warned[0].contains("archive_002") && warned[0].contains("vlm"), "{}", warned[0]);

    // the host still holds all six turns: the placeholder's turns stay raw, the first summary
    // stands for the first three
    // (OpenClaw 2026.9 hands the current prompt apart from the transcript)
    let messages: Vec<Value> = (0..6).flat_map(|i| turn(i, &texts[i])).collect();
    let next = engine(&host, json!({"recentRawTurnCount": 1}));
    let out = block_on(next.assemble(AssembleCall { session_id: "s1".into(), prompt: Some("And production?".into()), messages, token_budget: Some(20_000), explain: false })).unwrap();
    let c = &out.result.composition;
    assert_eq!(c.compact_summaries.iter().map(|s| s.checkpoint_id.as_str()).collect::<Vec<_>>(), ["ckpt-main--s1-001"]);
    let shown = Value::Array(c.messages.clone()).to_string();
    for (i, t) in texts.iter().enumerate() {
        let raw = c.messages.iter().any(|m| m["role"] == "user" && m["content"] == t.as_str());
        assert_eq!(raw, i >= 3, "turn {i} raw: {}", i >= 3);
    }
    assert!(!shown.contains("**Overview**: 3 turns"), "the placeholder never reaches the model");
    // status and trace say it
    let st = block_on(next.status("main--s1")).unwrap();
    assert_eq!(st.distrusted_summaries, 1);
    assert_eq!(st.last_checkpoint.unwrap().summary_problem.as_deref(), Some(openviking_context_engine::context::summary_check::SummaryProblem::Placeholder.reason()));
    assert_eq!(block_on(next.trace("main--s1")).unwrap().split.distrusted_summaries, 1);
}

/// The model's own `memory_recall` is a search it asked for: the automatic recall's relevance
/// cuts (a query word required, the score window) do not apply to it, while `assemble` with
/// the same question injects only the memory about it.
#[test]
fn memory_recall_lists_what_the_automatic_cuts_drop() {
    let host = FakeHost::new();
    host.world().memories.insert(
        USER.into(),
        vec![
            json!({"uri": format!("{USER}/preferences/theme.md"), "level": 2, "score": 0.9, "abstract": "Prefers a dark editor theme"}),
            json!({"uri": format!("{USER}/entities/cat.md"), "level": 2, "score": 0.85, "abstract": "Has a cat named Pixel"}),
            json!({"uri": format!("{USER}/entities/desk.md"), "level": 2, "score": 0.6, "abstract": "The editor desk faces north"}),
        ],
    );
    let e = engine(&host, json!({}));
    let listed = block_on(e.run_tool("memory_recall", &json!({"query": "editor theme"}))).unwrap();
    assert_eq!(listed["memories"].as_array().unwrap().len(), 3, "all three listed: {listed}");
    let out = assemble(&e, "s1", "editor theme");
    // the desk's note holds "editor": the grep ranks it second, which lifts it to the
    // second-best score (`recall::lexical`); without lexical candidates it stays 0.3 below
    assert_eq!(recalled_uris(&out), [format!("{USER}/preferences/theme.md"), format!("{USER}/entities/desk.md")], "cat: no query word");
    let e = engine(&host, json!({ "recallLexical": false }));
    let out = assemble(&e, "s2", "editor theme");
    assert_eq!(recalled_uris(&out), [format!("{USER}/preferences/theme.md")], "cat: no query word; desk: 0.3 below the best");
}

#[test]
fn both_scopes_go_in_one_find_unless_the_server_or_the_window_needs_two() {
    let prompt = "Which editor theme do I prefer?";
    // a server without the list form: two finds from then on, the answer the same
    let host = host_with_memories();
    host.world().refuse_list_target = true;
    let e = engine(&host, json!({}));
    let first = assemble(&e, "s1", prompt);
    assert!(recalled_uris(&first).contains(&format!("{USER}/preferences/theme.md")));
    assert_eq!(host.world().combined_finds.len(), 1);
    assert_eq!(host.world().finds.len(), 2, "refused: each scope on its own");
    e.forget_search();
    assemble(&e, "s1", prompt);
    assert_eq!(host.world().combined_finds.len(), 1, "not asked again in this process");
    assert_eq!(host.world().finds.len(), 4);

    // an answer that cannot be split: each scope's own find says which failed
    let host = host_with_memories();
    host.world().odd_find.insert(AGENT.into(), json!({"memories": 5}));
    let e = engine(&host, json!({}));
    let out = assemble(&e, "s1", prompt);
    assert_eq!(host.world().combined_finds.len(), 1);
    assert!(recalled_uris(&out).contains(&format!("{USER}/preferences/theme.md")), "the user scope still recalled");
    assert!(out.recall_unavailable.is_none(), "one scope failed, not recall");

    // a window (`since`) narrows the user scope only: two finds, the agent's unfiltered
    let host = host_with_memories();
    let e = engine(&host, json!({}));
    assemble(&e, "s1", "What did I change yesterday about my editor theme?");
    let w = host.world();
    assert!(w.combined_finds.is_empty(), "{:?}", w.combined_finds);
    assert!(w.find_filters.iter().any(Option::is_some) && w.find_filters.iter().any(Option::is_none));
}
#[test]
fn skills_get_their_own_find_only_when_the_memories_go_as_two() {
    let host = host_with_memories();
    let e = engine(&host, json!({}));
    // a window narrows the user scope with `since`: two finds, and the skills' own
    assemble(&e, "s1", "Which editor theme did I pick last week?");
    let w = host.world();
    assert!(w.combined_finds.is_empty(), "{:?}", w.combined_finds);
    assert_eq!(w.calls.iter().filter(|c| *c == "find_skills").count(), 1, "{:?}", w.calls);
    drop(w);
    // no window: one find for the memories and the skills
    assemble(&e, "s2", "Which editor theme do I prefer?");
    let w = host.world();
    assert_eq!(w.combined_finds.len(), 1);
    assert_eq!(w.calls.iter().filter(|c| *c == "find_skills").count(), 1, "no second skills find");
}

#[test]
fn with_skill_recall_off_the_find_holds_only_the_memory_scopes() {
    let host = host_with_memories();
    let e = engine(&host, json!({ "skillRecall": false }));
    assemble(&e, "s1", "Which editor theme do I prefer?");
    assert_eq!(host.world().combined_finds, [vec![USER.to_string(), AGENT.to_string()]]);
    assert!(host.world().finds.iter().all(|f| f.2 == 96));
}

#[test]
fn write_times_are_asked_for_only_when_the_present_is_asked() {
    let host = host_with_memories();
    let e = engine(&host, json!({}));
    assemble(&e, "s1", "Which editor theme do I prefer?");
    assert!(host.world().listed.is_empty(), "{:?}", host.world().listed);
    assemble(&e, "s2", "Which editor theme do I prefer now?");
    assert!(!host.world().listed.is_empty(), "the found memories' folders are listed");
}
