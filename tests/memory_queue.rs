//! `memory_store` and `memory_forget` while OpenViking cannot be reached (`engine::memory_queue`):
//! queued durably before the tool answers, applied in order by the replay that sends queued
//! turns, never doubled by a second replay; a 4xx is an error, never queued.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(all(target_arch = "wasm32", feature = "browser-tests"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use openviking_context_engine::engine::{memory_queue_key, Engine};
use openviking_context_engine::host::HostErrorKind;
use openviking_context_engine::ErrorCode;
use serde_json::{json, Value};
use support::{block_on, engine, turn, turn_write, FakeHost};

const MEM: &str = "viking://user/alice/memories";

fn run(e: &Engine<FakeHost>, tool: &str, params: Value) -> Value {
    block_on(e.run_tool(tool, &params)).unwrap_or_else(|err| panic!("{tool} {params}: {err}"))
}

fn queue(host: &FakeHost) -> Vec<Value> {
    host.world().outbox.get(&memory_queue_key("main")).cloned().unwrap_or_default()
}

fn memory_files(host: &FakeHost) -> Vec<String> {
    let mut v: Vec<String> = host.world().texts.keys().filter(|k| k.starts_with(MEM)).cloned().collect();
    v.sort();
    v
}

#[test]
fn a_store_during_an_outage_is_queued_durably_and_stored_when_openviking_is_back() {
    for outage in [HostErrorKind::Unreachable, HostErrorKind::Timeout, HostErrorKind::ServerError] {
        let host = FakeHost::new();
        let e = engine(&host, json!({}));
        host.world().down = Some(outage);
        let out = run(&e, "memory_store", json!({"text": "The staging database is db-stage-7", "category": "entities"}));
        assert_eq!((out["status"].as_str(), out["stored"].as_bool()), (Some("queued"), Some(false)), "{outage:?}: {out}");
        let note = out["note"].as_str().unwrap();
        assert!(note.contains("will be stored in OpenViking as soon as it is back"), "{note}");
        let uri = out["uri"].as_str().unwrap().to_string();
        assert!(uri.starts_with(&format!("{MEM}/entities/the-staging-database-is-db-stage-7-")), "{uri}");
        assert!(memory_files(&host).is_empty());
        let q = queue(&host);
        assert_eq!((q.len(), q[0]["op"].as_str(), q[0]["uri"].as_str()), (1, Some("store"), Some(uri.as_str())), "in the queue before the answer");

        // still down: a turn's replay leaves it queued and says why
        block_on(e.write_turn(turn_write("s", Some("k1"), turn(1, "hello")))).unwrap();
        assert_eq!(queue(&host).len(), 1);
        // back: the replay that sends the queued turn stores it, at the uri the tool gave
        host.world().down = None;
        let r = block_on(e.flush("main--s")).unwrap();
        assert_eq!((r.memory_applied, r.memory_queued, r.written), (1, 0, 1), "{r:?}");
        assert_eq!(host.world().texts[&uri], "The staging database is db-stage-7");
        assert!(queue(&host).is_empty());
    }
}

#[test]
fn a_refusal_is_an_error_and_nothing_is_queued() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    host.fail("write_text", HostErrorKind::Rejected);
    let err = block_on(e.run_tool("memory_store", &json!({"text": "remember this"}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::HostFailed);
    assert!(queue(&host).is_empty());
    host.fail("stat", HostErrorKind::Denied);
    let err = block_on(e.run_tool("memory_forget", &json!({"uri": format!("{MEM}/events/x.md")}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::HostFailed);
    assert!(queue(&host).is_empty());
    // bad input names the field, outage or not
    host.world().down = Some(HostErrorKind::Unreachable);
    let err = block_on(e.run_tool("memory_store", &json!({"text": "x", "category": "secrets"}))).unwrap_err();
    assert_eq!(err.field.as_deref(), Some("category"));
    assert!(queue(&host).is_empty());
}

#[test]
fn a_forget_never_runs_before_the_store_it_follows() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    host.world().down = Some(HostErrorKind::Timeout);
    let stored = run(&e, "memory_store", json!({"text": "Lunch is at noon", "category": "events"}));
    let uri = stored["uri"].as_str().unwrap().to_string();
    let forgot = run(&e, "memory_forget", json!({"uri": uri}));
    assert_eq!(forgot["status"], "queued", "{forgot}");
    assert!(forgot["note"].as_str().unwrap().contains("after any memory change asked before it"));
    // the server comes back between the two: a new change still joins the queue behind them
    host.world().down = None;
    host.world().fail_next.extend([HostErrorKind::Unreachable]);
    let later = run(&e, "memory_store", json!({"text": "Dinner is at eight", "category": "events"}));
    assert_eq!(later["status"], "queued", "{later}");
    assert!(later["note"].as_str().unwrap().contains("keeps its place after them"), "{later}");
    let ops: Vec<String> = queue(&host).iter().map(|v| v["op"].as_str().unwrap().to_string()).collect();
    assert_eq!(ops, ["store", "forget", "store"]);
    let r = block_on(e.flush("main--s")).unwrap();
    assert_eq!((r.memory_applied, r.memory_queued), (3, 0), "{r:?}");
    let files = memory_files(&host);
    assert_eq!(files.len(), 1, "the first stored then forgotten, the second stored: {files:?}");
    assert!(files[0].contains("dinner-is-at-eight"));
    let calls: Vec<String> = host.world().calls.iter().filter(|c| ["write_text", "delete_uri"].contains(&c.as_str())).cloned().collect();
    assert_eq!(calls[calls.len() - 3..], ["write_text", "delete_uri", "write_text"], "store, forget, store, in order: {calls:?}");
    assert!(!calls[..calls.len() - 3].contains(&"delete_uri".to_string()), "the forget was never tried before the store landed: {calls:?}");
}

#[test]
fn replaying_twice_never_doubles_a_memory() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    host.world().down = Some(HostErrorKind::Unreachable);
    let out = run(&e, "memory_store", json!({"text": "Prefers tabs over spaces", "category": "preferences"}));
    host.world().down = None;
    // the process dies after the write landed, before the entry was dropped
    host.world().crash_at_drop = Some(0);
    let r = block_on(e.flush("main--s")).unwrap();
    assert_eq!(r.memory_queued, 1, "{r:?}");
    assert_eq!(memory_files(&host), [out["uri"].as_str().unwrap()]);
    // the next process replays it again: the same uri, one memory
    let next = engine(&host.second_process(), json!({}));
    host.die();
    let r = block_on(next.flush("main--s")).unwrap();
    assert_eq!((r.memory_applied, r.memory_queued), (1, 0), "{r:?}");
    assert_eq!(memory_files(&host), [out["uri"].as_str().unwrap()]);
    assert!(queue(&host).is_empty());
}

#[test]
fn a_forget_by_query_waits_too_and_deletes_only_a_single_clear_match() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    let uri = format!("{MEM}/preferences/theme.md");
    host.world().texts.insert(uri.clone(), "Prefers the solarized theme".into());
    host.world().memories.entry(MEM.into()).or_default().push(json!({"uri": uri, "level": 2, "score": 0.95, "abstract": "Prefers the solarized theme"}));
    host.world().down = Some(HostErrorKind::ServerError);
    let out = run(&e, "memory_forget", json!({"query": "solarized theme"}));
    assert_eq!(out["status"], "queued");
    assert!(host.world().texts.contains_key(&uri));
    host.world().down = None;
    let r = block_on(e.flush("main--s")).unwrap();
    assert_eq!(r.memory_applied, 1);
    assert!(!host.world().texts.contains_key(&uri), "deleted once OpenViking was back");
}

#[test]
fn when_the_queue_cannot_be_written_the_tool_says_so() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    host.world().down = Some(HostErrorKind::Unreachable);
    host.world().fail_append = true;
    let err = block_on(e.run_tool("memory_store", &json!({"text": "remember this"}))).unwrap_err();
    assert_eq!(err.code, ErrorCode::HostFailed);
    assert!(err.message.contains("could not be queued"), "{}", err.message);
}

#[test]
fn an_unknown_user_during_an_outage_is_queued_and_resolved_on_replay() {
    let host = FakeHost::new();
    let config = openviking_context_engine::config::parse_config(&json!({"agentId": "main"}), &Default::default()).unwrap().config;
    let e = Engine::new(config, host.clone());
    host.world().down = Some(HostErrorKind::Unreachable);
    let out = run(&e, "memory_store", json!({"text": "Standup is at nine"}));
    assert_eq!((out["status"].as_str(), out["uri"].is_null()), (Some("queued"), true), "{out}");
    host.world().down = None;
    host.world().user = Some("alice".into());
    let r = block_on(e.flush("main--s")).unwrap();
    assert_eq!(r.memory_applied, 1, "{r:?}");
    assert_eq!(memory_files(&host).len(), 1);
}

#[test]
fn a_queued_change_refused_when_applied_is_dropped_with_a_warning_never_retried_forever() {
    let host = FakeHost::new();
    let config = openviking_context_engine::config::parse_config(&json!({"agentId": "main"}), &Default::default()).unwrap().config;
    let e = Engine::new(config, host.clone());
    // the user is not known yet, so the scope cannot be checked before queueing
    host.world().down = Some(HostErrorKind::Unreachable);
    let out = run(&e, "memory_forget", json!({"uri": "viking://user/bob/memories/events/x.md"}));
    assert_eq!(out["status"], "queued");
    host.world().down = None;
    host.world().user = Some("alice".into());
    let r = block_on(e.flush("main--s")).unwrap();
    assert_eq!((r.memory_applied, r.memory_queued), (1, 0), "{r:?}");
    assert!(queue(&host).is_empty());
    let warnings = host.world().warnings.join(" | ");
    assert!(warnings.contains("a queued memory_forget was refused and dropped") && warnings.contains("own memory scopes"), "{warnings}");
    assert!(!host.world().calls.contains(&"delete_uri".to_string()), "bob's memory was never touched");
}
