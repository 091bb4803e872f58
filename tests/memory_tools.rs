//! The memory tools run by the engine (`Engine::run_tool`) over the in-memory OpenViking:
//! scopes and ownership, verified deletes, the checkpoint behind an extracted memory.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(all(target_arch = "wasm32", feature = "browser-tests"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use openviking_context_engine::engine::Engine;
use openviking_context_engine::ErrorCode;
use serde_json::{json, Value};
use support::{block_on, engine, turn, turn_write, FakeHost};

const MEM: &str = "viking://user/alice/memories";

fn run(e: &Engine<FakeHost>, tool: &str, params: Value) -> Value {
    block_on(e.run_tool(tool, &params)).unwrap_or_else(|err| panic!("{tool} {params}: {err}"))
}

fn refused(e: &Engine<FakeHost>, tool: &str, params: Value) -> (ErrorCode, Option<String>) {
    let err = block_on(e.run_tool(tool, &params)).expect_err("refused");
    (err.code, err.field)
}

fn with_memory(host: &FakeHost, uri: &str, text: &str) {
    host.world().texts.insert(uri.to_string(), text.to_string());
    host.world().memories.entry(MEM.into()).or_default().push(json!({"uri": uri, "level": 2, "score": 0.95, "abstract": text}));
}

#[test]
fn memory_store_writes_under_the_users_memories_and_the_next_recall_finds_it() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    run(&e, "memory_recall", json!({"query": "editor theme"}));
    let out = run(&e, "memory_store", json!({"text": "  I prefer a dark theme in every editor.  ", "category": "preferences"}));
    let uri = out["uri"].as_str().unwrap();
    assert!(uri.starts_with(&format!("{MEM}/preferences/i-prefer-a-dark-theme-in-every-editor-")) && uri.ends_with(".md"), "{uri}");
    assert_eq!(out["content"], "I prefer a dark theme in every editor.");
    assert_eq!(host.world().texts[uri], "I prefer a dark theme in every editor.");
    let finds = host.world().finds.len();
    run(&e, "memory_recall", json!({"query": "editor theme"}));
    assert_eq!(host.world().finds.len(), finds + 2, "the stored memory drops the reused search");
    assert_eq!(refused(&e, "memory_store", json!({"text": "x", "category": "secrets"})), (ErrorCode::InvalidInput, Some("category".into())));
}

#[test]
fn without_a_known_user_nothing_is_written() {
    let host = FakeHost::new();
    let config = openviking_context_engine::config::parse_config(&json!({"agentId": "main"}), &Default::default()).unwrap().config;
    let e = Engine::new(config, host.clone());
    assert_eq!(refused(&e, "memory_store", json!({"text": "remember this"})).0, ErrorCode::HostFailed);
    assert!(host.world().texts.is_empty());
}

#[test]
fn memory_forget_deletes_a_real_memory_and_says_what_it_found_otherwise() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    let uri = format!("{MEM}/preferences/tea.md");
    with_memory(&host, &uri, "Tea without sugar");
    assert_eq!(run(&e, "memory_forget", json!({"uri": uri})), json!({"deleted": [uri]}));
    assert!(!host.world().texts.contains_key(&uri));
    let again = run(&e, "memory_forget", json!({"uri": uri}));
    assert_eq!(again["notFound"], json!([uri]));
    assert_eq!(again["deleted"], json!([]));
    // a folder is not a memory
    with_memory(&host, &format!("{MEM}/preferences/keep.md"), "keep");
    assert_eq!(refused(&e, "memory_forget", json!({"uri": format!("{MEM}/preferences")})), (ErrorCode::InvalidInput, Some("uri".into())));
    assert!(host.world().texts.contains_key(&format!("{MEM}/preferences/keep.md")));
}

#[test]
fn a_server_that_keeps_what_it_says_it_deleted_is_caught() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    let uri = format!("{MEM}/preferences/x.md");
    with_memory(&host, &uri, "x");
    host.world().keep_on_delete = true;
    let out = run(&e, "memory_forget", json!({"uri": uri}));
    assert_eq!(out["deleted"], json!([]));
    assert_eq!(out["notDeleted"], json!([uri]));
}

#[test]
fn nothing_outside_the_callers_own_scopes_can_be_deleted() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    for uri in [
        "viking://user/bob/memories/preferences/x.md".to_string(),
        "viking://agent/memories/cases/shared.md".to_string(), // shared by the user's agents in 0.5.x
        "viking://agent/other/memories/x.md".to_string(),
        MEM.to_string(),
        format!("{MEM}/../../bob/memories/x.md"),
        format!("{MEM}/preferences/\u{ff0e}\u{ff0e}/x.md"),
    ] {
        host.world().texts.insert(uri.clone(), "x".into());
        assert_eq!(refused(&e, "memory_forget", json!({"uri": uri})), (ErrorCode::InvalidInput, Some("uri".into())), "{uri}");
        assert!(host.world().texts.contains_key(&uri), "{uri} untouched");
    }
    assert!(run(&e, "memory_forget", json!({"uri": "viking://agent/main/memories/cases/mine.md"}))["notFound"].is_array(), "the agent's own folder is its own");
    assert_eq!(
        refused(&e, "memory_forget", json!({"query": "x", "targetUri": "viking://user/bob/memories"})),
        (ErrorCode::InvalidInput, Some("targetUri".into()))
    );
}

#[test]
fn by_query_only_a_single_clear_match_is_deleted() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    let lunch = format!("{MEM}/events/lunch.md");
    with_memory(&host, &lunch, "Lunch at noon");
    assert_eq!(run(&e, "memory_forget", json!({"query": "when is lunch"})), json!({"deleted": [lunch]}));

    let a = format!("{MEM}/preferences/a.md");
    let b = format!("{MEM}/preferences/b.md");
    with_memory(&host, &a, "Dark theme");
    with_memory(&host, &b, "Dark theme in the terminal");
    host.world().memories.entry(MEM.into()).or_default().push(json!({"uri": "viking://user/bob/memories/x.md", "level": 2, "score": 0.99}));
    let out = run(&e, "memory_forget", json!({"query": "dark theme"}));
    assert_eq!(out["deleted"], json!([]));
    let listed: Vec<&str> = out["candidates"].as_array().unwrap().iter().map(|c| c["uri"].as_str().unwrap()).collect();
    assert_eq!(listed, [a.as_str(), b.as_str()], "another user's memory is never a candidate");
    assert!(host.world().texts.contains_key(&a) && host.world().texts.contains_key(&b));
}

#[test]
fn memory_expand_goes_from_an_extracted_memory_or_a_session_to_its_turns() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    for i in 0..2 {
        block_on(e.write_turn(turn_write("s1", Some(&format!("k{i}")), turn(i, "What pool size does the staging database use?")))).unwrap();
    }
    let compacted = block_on(e.compact("s1", None)).unwrap();
    assert!(compacted.compacted);
    let extracted = "viking://user/alice/memories/events/main--s1-1.md";
    let out = run(&e, "memory_expand", json!({"summaryOrMemoryUri": extracted, "query": "pool size"}));
    assert_eq!(out["sessionUri"], "viking://user/alice/sessions/main--s1");
    assert!(out["archiveUri"].as_str().unwrap().ends_with("/history/archive_001"), "{out}");
    assert!(!out["excerpts"].as_array().unwrap().is_empty());

    let by_session = run(&e, "memory_expand", json!({"summaryOrMemoryUri": "viking://user/alice/sessions/main--s1"}));
    assert_eq!(by_session["archiveUri"], out["archiveUri"]);
    let stored = run(&e, "memory_expand", json!({"summaryOrMemoryUri": format!("{MEM}/preferences/typed-by-hand.md")}));
    assert!(stored["note"].as_str().unwrap().contains("not extracted"));
    let fresh = run(&e, "memory_expand", json!({"summaryOrMemoryUri": "viking://user/alice/sessions/main--never"}));
    assert!(fresh["note"].as_str().unwrap().contains("no archive yet"));
}

#[test]
fn memory_expand_never_opens_another_agents_session() {
    let host = FakeHost::new();
    let other = engine(&host, json!({"agentId": "main-"}));
    for i in 0..2 {
        block_on(other.write_turn(turn_write("s1", Some(&format!("k{i}")), turn(i, "a secret of the other agent")))).unwrap();
    }
    block_on(other.compact("s1", None)).unwrap();
    let ov_other = openviking_context_engine::address::session_map::ov_session_id("main-", "s1");
    let e = engine(&host, json!({}));
    for uri in [format!("viking://user/alice/sessions/{ov_other}"), format!("viking://user/alice/sessions/{ov_other}/history/archive_001")] {
        assert_eq!(refused(&e, "memory_expand", json!({"summaryOrMemoryUri": uri})), (ErrorCode::InvalidInput, Some("summaryOrMemoryUri".into())), "{uri}");
    }
    assert_eq!(refused(&e, "memory_expand", json!({"summaryOrMemoryUri": "https://example.com"})).1.as_deref(), Some("summaryOrMemoryUri"));
    assert_eq!(refused(&e, "no_such_tool", json!({})).1.as_deref(), Some("name"));
}
