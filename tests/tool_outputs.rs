//! Oversized tool outputs through the engine (`tool_output`, `engine::kept_outputs`) over the
//! in-memory OpenViking: a past turn's big output is assembled as a stand-in and the context
//! stays under budget; the turn stored in OpenViking is the host's, byte for byte;
//! `memory_read_output` reads the exact lines back, for this agent only.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(all(target_arch = "wasm32", feature = "browser-tests"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use openviking_context_engine::engine::AssembleCall;
use openviking_context_engine::message::text_of;
use serde_json::{json, Value};
use support::{block_on, engine, turn_write, FakeHost};

/// ~100k tokens of log, with one line in the middle that matters.
fn big_log() -> String {
    let mut lines: Vec<String> = (1..=12_000).map(|i| format!("{i:05} INFO pool worker {} served /api/orders/{} in {} ms", i % 13, i * 7, i % 97)).collect();
    lines[6_000] = "06001 ERROR the vault combination is 31-7-44 (rotated by ops)".to_string();
    lines.join("\n")
}

fn big_turn(output: &str) -> Vec<Value> {
    vec![
        json!({"role": "user", "content": "Read the application log for me.", "timestamp": 1}),
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": "call_read", "name": "read", "arguments": {"path": "/var/log/app.log"}}], "stopReason": "toolUse"}),
        json!({"role": "toolResult", "toolCallId": "call_read", "toolName": "read", "content": [{"type": "text", "text": output}], "isError": false}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "The log is long; it mostly shows served requests."}], "stopReason": "stop"}),
    ]
}

fn next_call(history: Vec<Value>, budget: u64) -> AssembleCall {
    let mut messages = history;
    messages.push(json!({"role": "user", "content": "What did the error line say?", "timestamp": 2}));
    AssembleCall { session_id: "s1".into(), prompt: Some("What did the error line say?".into()), messages, token_budget: Some(budget), explain: false }
}

#[test]
fn a_big_output_is_a_stand_in_the_context_fits_and_the_stored_turn_is_the_hosts() {
    let host = FakeHost::new();
    let e = engine(&host, json!({ "largeToolResultTokens": 20000 }));
    let log = big_log();
    let full = openviking_context_engine::text::tokens::estimate_tokens(&log);
    assert!(full > 90_000, "the fixture is ~100k tokens: {full}");
    // the turn is written as the host sent it
    block_on(e.write_turn(turn_write("s1", Some("k1"), big_turn(&log)))).unwrap();
    let stored = host.all_messages("main--s1");
    let tool_results = host.world().tool_results.values().cloned().collect::<Vec<_>>();
    assert!(stored.iter().any(|m| m.to_string().contains("tool-results/tr_call_read_")) && tool_results == [log.clone()], "the full output is in OpenViking (its tool-results store, as 0.5.2 keeps an output this big)");

    let out = block_on(e.assemble(next_call(big_turn(&log), 50_000))).unwrap();
    let c = &out.result.composition;
    assert!(c.estimated_tokens <= 50_000, "under budget: {}", c.estimated_tokens);
    let result = c.messages.iter().find(|m| m["role"] == "toolResult").expect("the result message stays (pairing)");
    assert_eq!(result["toolCallId"], "call_read");
    let stand_in = text_of(result);
    assert!(stand_in.len() < 3_000 && stand_in.contains("reference out-"), "{stand_in}");
    assert_eq!(out.result.stand_ins.len(), 1);
    let s = &out.result.stand_ins[0];
    assert!(s.stand_in_tokens <= 400 && s.tokens == full && s.lines == 12_000);
    assert_eq!(c.trimmed.raw_turns, 0, "the user's words stay: nothing trimmed");

    // read back: the exact line from the middle, and a page of lines
    let reference = s.reference.clone();
    let hit = block_on(e.run_tool("memory_read_output", &json!({ "reference": reference, "query": "vault combination" }))).unwrap();
    assert_eq!(hit["matchCount"], 1);
    assert!(hit["matches"].as_array().unwrap().iter().any(|m| m["line"] == 6001 && m["text"] == "06001 ERROR the vault combination is 31-7-44 (rotated by ops)"));
    // by a pattern: the one line with a number shaped like a combination
    let hit = block_on(e.run_tool("memory_read_output", &json!({ "reference": reference, "pattern": r"\d+-\d+-\d+" }))).unwrap();
    assert_eq!((hit["matchCount"].as_u64(), hit["truncated"].as_bool()), (Some(1), Some(false)), "{hit}");
    assert!(hit["matches"].as_array().unwrap().iter().any(|m| m["line"] == 6001));
    let none = block_on(e.run_tool("memory_read_output", &json!({ "reference": reference, "pattern": "VAULT", "caseSensitive": true }))).unwrap();
    assert_eq!(none["matchCount"], 0, "case-sensitive: the line says \"vault\"");
    let any = block_on(e.run_tool("memory_read_output", &json!({ "reference": reference, "pattern": "VAULT" }))).unwrap();
    assert_eq!(any["matchCount"], 1, "case-insensitive by default");
    let folded = block_on(e.run_tool("memory_read_output", &json!({ "reference": reference, "pattern": "^\\d+ error the vault" }))).unwrap();
    assert_eq!(folded["matchCount"], 1, "{folded}");
    let page = block_on(e.run_tool("memory_read_output", &json!({ "reference": reference, "fromLine": 5999, "toLine": 6001 }))).unwrap();
    let want: Vec<&str> = log.lines().skip(5998).take(3).collect();
    assert_eq!(page["text"], want.join("\n"));
    assert_eq!((page["fromLine"].as_u64(), page["toLine"].as_u64(), page["totalLines"].as_u64()), (Some(5999), Some(6001), Some(12_000)));
    // the same output in a later process: kept, not written again
    let saves = host.world().state.keys().filter(|k| k.starts_with("output/")).count();
    let e2 = engine(&host, json!({ "largeToolResultTokens": 20000 }));
    block_on(e2.assemble(next_call(big_turn(&log), 50_000))).unwrap();
    assert_eq!(host.world().state.keys().filter(|k| k.starts_with("output/")).count(), saves);
    assert_eq!(block_on(e2.run_tool("memory_read_output", &json!({ "reference": reference, "fromLine": 1, "toLine": 1 }))).unwrap()["text"], log.lines().next().unwrap());
}

#[test]
fn a_state_dir_that_never_saw_the_output_reads_it_from_openviking_live_or_archived() {
    let host = FakeHost::new();
    let cfg = json!({ "largeToolResultTokens": 20000 });
    let e = engine(&host, cfg.clone());
    let log = big_log();
    block_on(e.write_turn(turn_write("s1", Some("k1"), big_turn(&log)))).unwrap();
    let reference = block_on(e.assemble(next_call(big_turn(&log), 50_000))).unwrap().result.stand_ins[0].reference.clone();
    let read = |e: &openviking_context_engine::engine::Engine<FakeHost>| block_on(e.run_tool("memory_read_output", &json!({ "reference": reference, "query": "vault combination" })));
    let line = |v: Value| v["matches"].as_array().unwrap().iter().find(|m| m["line"] == 6001).map(|m| m["text"].clone());
    let first = line(read(&e).unwrap());

    // another machine (or a lost state dir): the turn is live in OpenViking, its output in
    // the session's tool-results store (the stored part holds a preview)
    assert!(!Value::Array(host.all_messages("main--s1")).to_string().contains("06001 ERROR"));
    host.world().state.clear();
    let fresh = engine(&host, cfg.clone());
    assert_eq!(line(read(&fresh).unwrap()), first, "found through the live tool part");
    assert!(host.world().state.contains_key(&format!("output/main/{reference}")), "and kept again as a cache");

    // after a commit: found through the archived part
    assert!(block_on(e.compact("s1", None)).unwrap().compacted);
    host.world().state.clear();
    let calls = host.world().calls.len();
    assert_eq!(line(read(&engine(&host, cfg.clone())).unwrap()), first, "read from tool-results");
    assert!(host.world().calls[calls..].iter().any(|c| c == "tool_result"));
    // a stored text that does not hash to the archived part's sha256 is not taken
    host.world().state.clear();
    for v in host.world().tool_results.values_mut() {
        v.push_str("\ntampered");
    }
    let err = read(&engine(&host, cfg.clone())).unwrap_err();
    assert_eq!(err.field.as_deref(), Some("reference"));
    // never another agent's: the other agent does not even look in main's sessions
    host.world().state.clear();
    let calls = host.world().calls.len();
    let err = read(&engine(&host, json!({ "agentId": "ops", "largeToolResultTokens": 20000 }))).unwrap_err();
    assert_eq!(err.field.as_deref(), Some("reference"));
    assert!(!host.world().calls[calls..].iter().any(|c| c == "live_messages" || c == "archive"), "{:?}", &host.world().calls[calls..]);
}

#[test]
fn an_output_openviking_keeps_inline_is_found_in_the_live_part_on_another_machine() {
    let host = FakeHost::new();
    let cfg = json!({ "largeToolResultTokens": 500 });
    let e = engine(&host, cfg.clone());
    let log: String = (1..=400).map(|i| format!("{i:04} the pump {i} reads {} bar\n", i % 9)).collect();
    assert!(log.len() < support::TOOL_OUTPUT_THRESHOLD_CHARS, "below OpenViking's externalization threshold");
    block_on(e.write_turn(turn_write("s1", Some("k1"), big_turn(&log)))).unwrap();
    assert!(Value::Array(host.all_messages("main--s1")).to_string().contains("0200 the pump 200"), "kept inline");
    let reference = block_on(e.assemble(next_call(big_turn(&log), 50_000))).unwrap().result.stand_ins[0].reference.clone();
    host.world().state.clear();
    let r = block_on(engine(&host, cfg).run_tool("memory_read_output", &json!({ "reference": reference, "fromLine": 200, "toLine": 200 }))).unwrap();
    assert_eq!(r["text"], "0200 the pump 200 reads 2 bar");
    assert!(!host.world().calls.iter().any(|c| c == "tool_result"));
}

#[test]
fn another_agent_cannot_read_an_output_and_bad_input_names_the_field() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    let out = block_on(e.assemble(next_call(big_turn(&big_log()), 50_000))).unwrap();
    let reference = out.result.stand_ins[0].reference.clone();
    let other = engine(&host, json!({ "agentId": "ops" }));
    let err = block_on(other.run_tool("memory_read_output", &json!({ "reference": reference }))).unwrap_err();
    assert_eq!(err.field.as_deref(), Some("reference"));
    let err = block_on(e.run_tool("memory_read_output", &json!({ "reference": "out-0000000000000000" }))).unwrap_err();
    assert_eq!(err.field.as_deref(), Some("reference"), "an unknown reference");
    for (params, field) in [
        (json!({}), "reference"),
        (json!({ "reference": "../x" }), "reference"),
        (json!({ "reference": reference, "query": "x", "fromLine": 2 }), "query"),
        (json!({ "reference": reference, "fromLine": 0 }), "fromLine"),
        (json!({ "reference": reference, "fromLine": 9, "toLine": 3 }), "toLine"),
        (json!({ "reference": reference, "maxTokens": 5 }), "maxTokens"),
        (json!({ "reference": reference, "path": "/etc/passwd" }), "path"),
        (json!({ "reference": reference, "pattern": "(unclosed" }), "pattern"),
        (json!({ "reference": reference, "pattern": "x", "query": "x" }), "pattern"),
        (json!({ "reference": reference, "pattern": "x", "fromLine": 2 }), "query"),
        (json!({ "reference": reference, "pattern": "x", "caseSensitive": "yes" }), "caseSensitive"),
    ] {
        let err = block_on(e.run_tool("memory_read_output", &params)).unwrap_err();
        assert_eq!(err.field.as_deref(), Some(field), "{params}: {err}");
    }
}

#[test]
fn two_agents_with_the_same_call_and_output_each_read_their_own() {
    let host = FakeHost::new();
    let main = engine(&host, json!({}));
    let ops = engine(&host, json!({ "agentId": "ops" }));
    let log = big_log();
    block_on(main.write_turn(turn_write("s1", Some("k1"), big_turn(&log)))).unwrap();
    block_on(ops.write_turn(turn_write("s1", Some("k1"), big_turn(&log)))).unwrap();
    let a = block_on(main.assemble(next_call(big_turn(&log), 50_000))).unwrap().result.stand_ins[0].reference.clone();
    let b = block_on(ops.assemble(next_call(big_turn(&log), 50_000))).unwrap().result.stand_ins[0].reference.clone();
    assert_eq!(a, b, "the reference is the call id and the output's hash: the same for both");
    let reads = host.world().reads.len();
    for e in [&main, &ops] {
        let r = block_on(e.run_tool("memory_read_output", &json!({ "reference": a, "query": "vault combination" }))).unwrap();
        assert!(r.to_string().contains("31-7-44"), "{r}");
    }
    assert_eq!(host.world().reads.len(), reads, "both from their own kept copies");
    let keys: Vec<String> = host.world().state.keys().filter(|k| k.starts_with("output/")).cloned().collect();
    assert_eq!(keys.len(), 2, "{keys:?}");
    // a copy an earlier release kept without the agent in its key: another agent's does not
    // hide this agent's own output, which is found in its sessions in OpenViking
    let theirs = host.world().state.remove(&format!("output/main/{a}")).unwrap();
    host.world().state.remove(&format!("output/ops/{a}"));
    host.world().state.insert(format!("output/{a}"), theirs);
    let r = block_on(ops.run_tool("memory_read_output", &json!({ "reference": a, "query": "vault combination" }))).unwrap();
    assert!(r.to_string().contains("31-7-44"), "{r}");
    let r = block_on(main.run_tool("memory_read_output", &json!({ "reference": a, "query": "vault combination" }))).unwrap();
    assert!(r.to_string().contains("31-7-44"), "the earlier release's copy is still read by its agent: {r}");
}

#[test]
fn below_the_threshold_nothing_changes() {
    let host = FakeHost::new();
    let e = engine(&host, json!({ "largeToolResultTokens": 20000 }));
    let small = "config/db.yml: pool: 10";
    let out = block_on(e.assemble(next_call(big_turn(small), 50_000))).unwrap();
    assert!(out.result.stand_ins.is_empty());
    assert!(out.result.composition.messages.iter().any(|m| text_of(m) == small));
    assert!(host.world().state.keys().all(|k| !k.starts_with("output/")));
}

#[test]
fn an_output_over_what_openviking_takes_is_stored_as_head_and_tail_and_the_sessions_next_turn_is_not_held_back() {
    let host = FakeHost::new();
    let e = engine(&host, json!({"compactTurnThreshold": 100}));
    let huge = format!("HEAD LINE\n{}\nTAIL LINE", "z".repeat(5_000_000));
    let w = block_on(e.write_turn(turn_write("s1", Some("k1"), big_turn(&huge)))).unwrap();
    assert!(!w.queued, "sent, not refused");
    let next = block_on(e.write_turn(turn_write("s1", Some("k2"), vec![json!({"role": "user", "content": "and then?", "timestamp": 2})]))).unwrap();
    assert!(!next.queued, "the next turn is not held behind it");
    let world = host.world();
    let stored = world.tool_results.values().next().expect("the output, moved out of the message by the server");
    assert_eq!(stored.chars().count(), openviking_context_engine::lifecycle::text_limits::TEXT_MAX_CHARS);
    assert!(stored.starts_with("HEAD LINE") && stored.ends_with("TAIL LINE"));
    assert!(world.warnings.iter().any(|w| w.contains("tool output of read (call_read) has 5000020 characters, more than OpenViking takes; 4000000 of them are stored")), "{:?}", world.warnings);
    drop(world);
    // unfitted, the same text is refused (as OpenViking 0.5.2 refuses it)
    use openviking_context_engine::host::OpenViking;
    let refused = block_on(host.add_messages("main--s1", vec![json!({"role": "user", "parts": [{"type": "text", "text": huge}]})]));
    assert_eq!(refused.unwrap_err().kind, openviking_context_engine::host::HostErrorKind::Rejected);
}
