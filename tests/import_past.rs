//! Bringing an OpenClaw transcript from before the engine into OpenViking (`engine::import`):
//! a dry run says what it would write; `apply` writes each turn once, in order, to the
//! session's imported twin; a rerun, a run cut short and a run during an outage leave every
//! turn once; a turn the engine wrote live is never written again, whichever comes first.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(all(target_arch = "wasm32", feature = "browser-tests"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use openviking_context_engine::engine::{Engine, ImportReport, ImportRequest};
use openviking_context_engine::host::HostErrorKind;
use serde_json::{json, Value};
use support::{block_on, engine, turn, turn_write, user_texts, FakeHost};

const LIVE: &str = "main--s1";
const IMPORTED: &str = "main--s1-imported";

/// The transcript lines of `n` turns as OpenClaw writes them (each message an event chained
/// to the one before), every turn like `support::turn`.
fn transcript(n: usize) -> Vec<String> {
    let mut lines = vec![json!({"type": "session", "version": 4, "id": "s1", "timestamp": "2026-12-05T06:16:38.263Z"}).to_string()];
    let mut parent: Option<String> = None;
    for i in 1..=n {
        for (k, m) in turn(i, &format!("question {i} about the pool")).into_iter().enumerate() {
            let id = format!("ev-{i}-{k}");
            lines.push(json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-12-05T06:16:38.263Z", "message": m}).to_string());
            parent = Some(id);
        }
    }
    lines
}

fn import(e: &Engine<FakeHost>, lines: &[String], apply: bool, extra: Value) -> ImportReport {
    let mut raw = json!({"sessionId": "s1", "lines": lines, "apply": apply, "commitWaitMs": 0});
    for (k, v) in extra.as_object().unwrap() {
        raw[k] = v.clone();
    }
    let req: ImportRequest = openviking_context_engine::decode::request_from_value(raw).unwrap();
    block_on(e.import_session(req)).unwrap()
}

fn questions(host: &FakeHost, ov: &str) -> Vec<String> {
    user_texts(host, ov)
}

fn expected(range: std::ops::RangeInclusive<usize>) -> Vec<String> {
    range.map(|i| format!("question {i} about the pool")).collect()
}

#[test]
fn a_dry_run_writes_nothing_and_apply_writes_each_turn_once_in_order() {
    let host = FakeHost::new();
    let e = engine(&host, json!({"compactTurnThreshold": 100}));
    let lines = transcript(5);
    let dry = import(&e, &lines, false, json!({}));
    assert_eq!((dry.turns, dry.tool_calls, dry.already_stored, dry.written, dry.remaining), (5, 5, 0, 0, 5));
    assert!(dry.tokens > 0);
    assert_eq!(dry.ov_session_id, IMPORTED);
    assert!(host.world().sessions.is_empty(), "a dry run sends nothing");

    let done = import(&e, &lines, true, json!({}));
    assert_eq!((done.written, done.remaining, done.queued), (5, 0, 0));
    assert_eq!(questions(&host, IMPORTED), expected(1..=5));
    assert!(questions(&host, LIVE).is_empty(), "the live session is left alone");
    // each stored message carries the turn id made from its opening event and the host's time
    let first = &host.all_messages(IMPORTED)[0];
    assert_eq!(first["turn_id"], json!("main--s1:eev-1-0"));

    let again = import(&e, &lines, true, json!({}));
    assert_eq!((again.already_stored, again.written, again.remaining), (5, 0, 0));
    // a fresh process with an empty state dir finds them in OpenViking
    let fresh = FakeHost::new();
    fresh.world().sessions = std::mem::take(&mut host.world().sessions);
    let e2 = engine(&fresh, json!({}));
    let third = import(&e2, &lines, true, json!({}));
    assert_eq!((third.already_stored, third.written), (5, 0));
    assert_eq!(questions(&fresh, IMPORTED), expected(1..=5));
}

#[test]
fn a_limited_run_and_a_run_during_an_outage_go_on_where_they_stopped() {
    let host = FakeHost::new();
    let e = engine(&host, json!({"compactTurnThreshold": 100}));
    let lines = transcript(6);
    let part = import(&e, &lines, true, json!({"limit": 2}));
    assert_eq!((part.written, part.remaining), (2, 4));
    host.world().down = Some(HostErrorKind::Unreachable);
    // the lookup of what is there fails first: nothing is written blind, the error says why
    let req: ImportRequest = openviking_context_engine::decode::request_from_value(json!({"sessionId": "s1", "lines": lines, "apply": true})).unwrap();
    let err = block_on(e.import_session(req)).unwrap_err();
    assert!(err.message.contains("outage"), "{err}");
    host.world().down = None;
    // OpenViking goes down after the lookups: the run stops with the turn in the outbox
    host.fail("add_messages", HostErrorKind::Unreachable);
    let stopped = import(&e, &lines, true, json!({}));
    assert_eq!(stopped.written, 1);
    assert!(stopped.stopped.as_deref().unwrap_or("").contains("outbox"), "{stopped:?}");
    // run again later (a send that got no answer is checked before it is sent again)
    host.world().now += 120_000;
    let rest = import(&e, &lines, true, json!({}));
    assert_eq!(rest.written + rest.already_stored, 6);
    assert_eq!(questions(&host, IMPORTED), expected(1..=6));
}

#[test]
fn a_turn_the_engine_wrote_live_is_not_imported_and_a_live_write_after_an_import_is_not_doubled() {
    let host = FakeHost::new();
    let e = engine(&host, json!({"compactTurnThreshold": 100}));
    let lines = transcript(4);
    // turn 4 was written live (the engine was switched on for it)
    let live4 = turn(4, "question 4 about the pool");
    block_on(e.write_turn(turn_write("s1", Some("adv-4"), live4))).unwrap();
    let r = import(&e, &lines, true, json!({}));
    assert_eq!((r.already_stored, r.written), (1, 3));
    assert_eq!(questions(&host, IMPORTED), expected(1..=3));
    assert_eq!(questions(&host, LIVE), expected(4..=4));

    // the other order: a turn imported first, then its live write (another process) arrives
    let lines5 = transcript(5);
    let r = import(&e, &lines5, true, json!({}));
    assert_eq!(r.written, 1);
    let other = engine(&host.second_process(), json!({"compactTurnThreshold": 100}));
    let out = block_on(other.write_turn(turn_write("s1", Some("adv-5"), turn(5, "question 5 about the pool")))).unwrap();
    assert!(out.already_stored, "{out:?}");
    assert_eq!(questions(&host, LIVE), expected(4..=4));
    assert_eq!(questions(&host, IMPORTED), expected(1..=3).into_iter().chain(expected(5..=5)).collect::<Vec<_>>());
}

#[test]
fn imported_turns_commit_the_way_live_turns_would() {
    let host = FakeHost::new();
    let e = engine(&host, json!({"compactTurnThreshold": 3}));
    let r = import(&e, &transcript(7), true, json!({"commitWaitMs": 10_000}));
    assert_eq!(r.written, 7);
    assert!(r.commits >= 2, "{r:?}");
    let archives = host.world().sessions[IMPORTED].archives.len();
    assert_eq!(archives, r.commits);
    assert_eq!(questions(&host, IMPORTED), expected(1..=7));
}

#[test]
fn since_and_until_select_by_the_turns_own_time_and_bad_input_names_its_field() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    // support::turn stamps turn i at i ms
    let r = import(&e, &transcript(5), false, json!({"sinceMs": 2, "untilMs": 4}));
    assert_eq!(r.turns, 2);
    for (raw, field) in [
        (json!({"sessionId": "", "lines": []}), "sessionId"),
        (json!({"sessionId": "s", "lines": "x"}), "lines"),
        (json!({"sessionId": "s", "sinceMs": 5, "untilMs": 5}), "untilMs"),
        (json!({"sessionId": "s", "limit": -1}), "limit"),
    ] {
        let err = openviking_context_engine::decode::request_from_value::<ImportRequest>(raw.clone()).unwrap_err();
        assert_eq!(err.field.as_deref(), Some(field), "{raw}: {err}");
    }
}

#[test]
fn at_the_first_contact_the_log_says_once_what_is_missing_and_import_on_bootstrap_brings_it() {
    for import_on_bootstrap in [false, true] {
        let host = FakeHost::new();
        let e = engine(&host, json!({"compactTurnThreshold": 100, "importOnBootstrap": import_on_bootstrap}));
        // three finished turns, then the turn being run: its user message only
        let mut lines = transcript(3);
        lines.push(json!({"type": "message", "id": "ev-4-0", "parentId": "ev-3-3", "message": {"role": "user", "content": "question 4 about the pool", "timestamp": 4}}).to_string());
        assert!(block_on(e.past_check_due("s1")).unwrap());
        // OpenViking down at the first look: it is tried again at the next bootstrap
        host.world().down = Some(HostErrorKind::Unreachable);
        let req: ImportRequest = openviking_context_engine::decode::request_from_value(json!({"sessionId": "s1", "lines": lines, "firstContact": true})).unwrap();
        assert!(block_on(e.import_session(req)).is_err());
        host.world().down = None;
        assert!(block_on(e.past_check_due("s1")).unwrap(), "a look that failed is not a look");
        let r = import(&e, &lines, false, json!({"firstContact": true}));
        assert!(!block_on(e.past_check_due("s1")).unwrap(), "once per session");
        assert!(!block_on(engine(&host.second_process(), json!({})).past_check_due("s1")).unwrap(), "and once across processes");
        assert_eq!(r.turns, 3, "the turn being run is the live write's");
        let note = r.note.expect("a line for the log");
        if import_on_bootstrap {
            assert_eq!(r.written, 3);
            assert!(note.starts_with("imported 3 earlier turns of session s1"), "{note}");
            assert_eq!(questions(&host, IMPORTED), expected(1..=3));
        } else {
            assert_eq!(r.written, 0);
            assert!(note.contains("3 earlier turns") && note.contains("openclaw openviking import --session s1 --apply"), "{note}");
            assert!(questions(&host, IMPORTED).is_empty());
        }
    }
}
