//! Composition of the model's context: summaries in place of archived turns, recent raw
//! turns, the recall pair, one budget — unit cases and properties.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(all(target_arch = "wasm32", feature = "browser-tests"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

use openviking_context_engine::context::compose::{active_instructions, compose, ComposeInput, SummaryRef};
use openviking_context_engine::message::synthetic::SUMMARY_MARKER;
use openviking_context_engine::message::synthetic::{recall_pair, RecalledMemory};
use openviking_context_engine::message::{role, text_of};
use serde_json::{json, Value};

const WM: &str = "# Working Memory\n\n## Current State\n_desc_\nMigrating the orders table; index build pending.\n\n## Open Issues\n_desc_\n- Confirm the maintenance window with ops\n";

fn turn(i: usize, with_tool: bool) -> Vec<Value> {
    let mut t = vec![json!({"role": "user", "content": format!("question {i} about the deploy pipeline")})];
    if with_tool {
        t.push(json!({"role": "assistant", "content": [{"type": "toolCall", "id": format!("c{i}"), "name": "exec", "arguments": {"command": "ls"}}]}));
        t.push(json!({"role": "toolResult", "toolCallId": format!("c{i}"), "toolName": "exec", "content": [{"type": "text", "text": "ok"}], "isError": false}));
    }
    t.push(json!({"role": "assistant", "content": [{"type": "text", "text": format!("answer {i}: use blue-green with a canary")}]}));
    t
}

fn convo(n: usize) -> Vec<Value> {
    (0..n).flat_map(|i| turn(i, i % 2 == 0)).collect()
}

fn summary(start: u64, end: u64) -> SummaryRef {
    SummaryRef { checkpoint_id: format!("ckpt-{end}"), archive_uri: format!("viking://user/u/sessions/s/history/archive_{end}"), start_sequence: start, end_sequence: end, text: WM.into() }
}

fn pair() -> [Value; 2] {
    recall_pair("deploy", &[RecalledMemory { uri: "viking://user/u/memories/a.md".into(), category: "events".into(), content: "we chose blue-green".into(), score: 0.8 }], 1)
}

fn input(messages: Vec<Value>, budget: Option<u64>) -> ComposeInput {
    ComposeInput { messages, prompt: Some("what about the canary size?".into()), token_budget: budget, recall_pair: Some(pair()), summaries: vec![], next_sequence: 0, recent_raw_turn_count: 3, now_ms: 5 }
}

fn users(msgs: &[Value]) -> Vec<String> {
    msgs.iter().filter(|m| role(m) == Some("user") && !openviking_context_engine::message::synthetic::is_synthetic(m)).map(text_of).collect()
}

#[test]
fn archived_turns_become_the_summary_but_the_recent_ones_stay_raw() {
    let mut inp = input(convo(10), None);
    inp.next_sequence = 10;
    inp.summaries = vec![summary(0, 8)]; // turns 0..=8 archived
    let c = compose(inp);
    let u = users(&c.messages);
    assert!(u[0].starts_with(SUMMARY_MARKER));
    assert_eq!(&u[1..], &["question 7 about the deploy pipeline", "question 8 about the deploy pipeline", "question 9 about the deploy pipeline"]);
    assert_eq!(c.summarized_turns, 7);
    assert_eq!(c.recent_raw_turns, 3);
    let add = c.system_prompt_addition.unwrap();
    assert!(add.contains("Migrating the orders table") && add.contains("maintenance window"), "active instructions");
    // the recall pair sits at the end, right before the prompt the host appends
    assert_eq!(c.messages[c.messages.len() - 2]["role"], "assistant");
    assert_eq!(c.messages.last().unwrap()["role"], "toolResult");
}

#[test]
fn the_recall_pair_follows_a_user_turn_even_in_a_new_session() {
    use openviking_context_engine::message::synthetic::{is_synthetic, RECALL_OPENING};
    // a new session on OpenClaw 2026.9.x: no prior turns, the prompt sent apart — the pair
    // would be the first message, which Anthropic's and Bedrock's APIs refuse
    let mut inp = input(Vec::new(), None);
    inp.next_sequence = 0;
    let c = compose(inp);
    let roles: Vec<&str> = c.messages.iter().map(|m| role(m).unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "toolResult"]);
    assert_eq!(text_of(&c.messages[0]), RECALL_OPENING);
    assert!(c.messages.iter().all(is_synthetic), "all three are the engine's, stripped on the next assemble");
    // composed again from its own output: the opening goes with the pair, nothing stacks
    let mut again = input(c.messages.clone(), None);
    again.next_sequence = 0;
    assert_eq!(compose(again).messages, c.messages);
}

#[test]
fn turns_older_than_the_plugin_are_aligned_from_the_end() {
    // 12 turns in the transcript, the engine wrote the last 6 (sequences 0..=5), archived 0..=2
    let mut inp = input(convo(12), None);
    inp.next_sequence = 6;
    inp.summaries = vec![summary(0, 2)];
    inp.recent_raw_turn_count = 2;
    let c = compose(inp);
    let u = users(&c.messages);
    assert!(u[0].starts_with(SUMMARY_MARKER));
    // turns 0..=5 (pre-plugin) and 9..=11 stay raw; 6,7,8 (sequences 0..=2) are summarized
    assert_eq!(c.summarized_turns, 3);
    assert_eq!(u.len(), 1 + 9);
    assert!(!u.iter().any(|t| t.contains("question 6 ") || t.contains("question 8 ")));
}

#[test]
fn over_budget_memories_go_first_then_older_summaries_then_old_raw_turns() {
    let base = || {
        let mut i = input(convo(10), None);
        i.next_sequence = 10;
        i.summaries = vec![summary(0, 2), summary(3, 5)];
        i
    };
    let full = compose(base());
    let mut tight = base();
    tight.token_budget = Some(full.estimated_tokens - 1);
    let c = compose(tight);
    assert!(c.trimmed.recall && c.trimmed.older_summaries == 0 && c.trimmed.raw_turns == 0);
    let mut tighter = base();
    tighter.token_budget = Some(full.estimated_tokens / 2);
    let c = compose(tighter);
    assert!(c.trimmed.recall && c.trimmed.older_summaries == 1 && c.trimmed.raw_turns > 0);
    assert!(c.estimated_tokens <= full.estimated_tokens / 2);
    assert!(!c.over_budget);
}

#[test]
fn the_current_turn_is_never_trimmed() {
    let mut messages = convo(4);
    messages.extend(turn(99, true)); // older hosts: the current turn is in the messages
    let inp = ComposeInput { messages, prompt: None, token_budget: Some(30), recall_pair: Some(pair()), summaries: vec![], next_sequence: 4, recent_raw_turn_count: 8, now_ms: 5 };
    let c = compose(inp);
    assert_eq!(users(&c.messages), vec!["question 99 about the deploy pipeline"]);
    assert!(c.over_budget, "the current turn alone is over this budget, and it is kept");
}

#[test]
fn older_hosts_get_the_pair_right_before_the_current_user_turn() {
    let mut messages = convo(3);
    messages.push(json!({"role": "user", "content": "and the rollback?"}));
    let c = compose(ComposeInput { messages, prompt: None, token_budget: None, recall_pair: Some(pair()), summaries: vec![], next_sequence: 3, recent_raw_turn_count: 8, now_ms: 5 });
    let n = c.messages.len();
    assert_eq!(c.messages[n - 1]["content"], "and the rollback?");
    assert_eq!(c.messages[n - 2]["role"], "toolResult");
    assert_eq!(c.messages[n - 3]["role"], "assistant");
}

#[test]
fn composing_its_own_output_again_is_stable() {
    let mut inp = input(convo(10), None);
    inp.next_sequence = 10;
    inp.summaries = vec![summary(0, 8)];
    let once = compose(inp.clone());
    let mut again = inp;
    again.messages = once.messages.clone();
    let twice = compose(again);
    assert_eq!(once.messages, twice.messages);
}

#[test]
fn active_instructions_read_the_working_memory_sections() {
    assert!(active_instructions("# Working Memory\n## Current State\n_x_\n- None recorded.\n").is_none());
    let a = active_instructions(WM).unwrap();
    assert!(a.starts_with("Continuing after a compaction"));
}

#[cfg(not(target_arch = "wasm32"))]
mod properties {
    use super::*;
    use openviking_context_engine::message::tool_call_ids;
    use proptest::prelude::*;
    use std::collections::HashSet;

    fn calls_have_results(msgs: &[Value]) -> bool {
        let calls: HashSet<&str> = msgs.iter().flat_map(tool_call_ids).collect();
        let results: HashSet<&str> = msgs.iter().filter(|m| role(m) == Some("toolResult")).filter_map(|m| m["toolCallId"].as_str()).collect();
        calls == results
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        #[test]
        fn budget_pairs_and_current_turn_hold(n in 0usize..25, budget in 20u64..3000, recent in 0usize..10,
                                              archived in 0u64..30, with_summary in any::<bool>(), separate in any::<bool>()) {
            let mut messages = convo(n);
            let prompt = if separate { Some("what about the canary size?".to_string()) } else {
                messages.extend(turn(777, true));
                None
            };
            let summaries = if with_summary && archived > 0 { vec![summary(0, archived - 1)] } else { vec![] };
            let c = compose(ComposeInput { messages, prompt, token_budget: Some(budget), recall_pair: Some(pair()), summaries, next_sequence: n as u64, recent_raw_turn_count: recent, now_ms: 5 });
            prop_assert!(calls_have_results(&c.messages));
            if !separate {
                let u = users(&c.messages);
                prop_assert_eq!(u.last().map(String::as_str), Some("question 777 about the deploy pipeline"));
            }
            if !c.over_budget {
                prop_assert!(c.estimated_tokens <= budget);
            } else {
                // only the current turn (and prompt) is left
                prop_assert!(!c.recall_included && c.recent_raw_turns == 0 && c.summarized_turns == 0);
            }
            // raw turns keep their order
            let nums: Vec<usize> = users(&c.messages).iter().filter_map(|t| t.strip_prefix("question ")?.split(' ').next()?.parse().ok()).collect();
            prop_assert!(nums.windows(2).all(|w| w[0] < w[1]));
        }
    }
}

#[test]
fn the_token_split_adds_up_and_names_each_part() {
    use openviking_context_engine::context::token_split::token_split;
    use openviking_context_engine::message::estimate_message_tokens;
    let mut inp = input(convo(10), None);
    inp.next_sequence = 10;
    inp.summaries = vec![summary(0, 8)];
    let c = compose(inp);
    let s = token_split(&c);
    assert_eq!(s.summary + s.raw + s.recall + s.recall_opening + s.current, c.estimated_tokens);
    assert_eq!(s.summary, estimate_message_tokens(&c.messages[0]) as u64);
    let opening = openviking_context_engine::message::synthetic::recall_opening(0);
    let pair_tokens: u64 = pair().iter().map(|m| estimate_message_tokens(m) as u64).sum();
    assert_eq!(s.recall, pair_tokens, "the pair's call and result");
    assert_eq!(s.recall_opening, estimate_message_tokens(&opening) as u64, "the user message that opens it, apart");
    assert!(s.raw > 0 && s.current > 0, "{s:?}");
    // without a summary or a pair, everything is raw or current
    let mut bare = input(convo(4), None);
    bare.recall_pair = None;
    let c = compose(bare);
    let s = token_split(&c);
    assert_eq!((s.summary, s.recall), (0, 0));
    assert_eq!(s.raw + s.current, c.estimated_tokens);
}

#[test]
fn with_the_prompt_sent_apart_and_no_pair_the_last_raw_turn_stays_raw() {
    use openviking_context_engine::context::token_split::token_split;
    use openviking_context_engine::text::tokens::{estimate_tokens, MESSAGE_OVERHEAD_TOKENS};
    let mut inp = input(convo(4), None);
    inp.recall_pair = None;
    let prompt_tokens = (estimate_tokens("what about the canary size?") + MESSAGE_OVERHEAD_TOKENS) as u64;
    let c = compose(inp);
    let s = token_split(&c);
    assert_eq!(s.current, prompt_tokens, "only the prompt is the current turn: {s:?}");
    assert_eq!(s.raw + s.current, c.estimated_tokens);
}
