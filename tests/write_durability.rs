//! The write path's durability invariant — acknowledged means durably stored — at each
//! crash point, over the in-memory OpenViking (`support::FakeHost`): a process that dies
//! after the outbox append but before its record is saved, mid-send, after a lost answer;
//! a disk that refuses the append; a session that vanished on the server; a bounded record.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(all(target_arch = "wasm32", feature = "browser-tests"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use openviking_context_engine::engine::WriteStatus;
use openviking_context_engine::host::HostErrorKind;
use serde_json::json;
use support::{block_on, engine, turn, turn_write, user_texts, FakeHost};

const OV: &str = "main--s1";

#[test]
fn a_crash_after_the_append_before_the_record_is_saved_keeps_the_turn_acknowledged() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    block_on(e.write_turn(turn_write("s1", Some("k0"), turn(0, "first turn")))).unwrap();
    // the state dir as it was before turn 1: the process dies right after the append
    let state_before = host.world().state.clone();
    host.world().down = Some(HostErrorKind::Unreachable);
    let out = block_on(e.write_turn(turn_write("s1", Some("k1"), turn(1, "second turn, process killed")))).unwrap();
    assert!(out.queued);
    host.world().state = state_before;
    host.world().down = None;

    // the host retries the unanswered turn with the same key in the next process
    let next = engine(&host, json!({}));
    let retry = block_on(next.write_turn(turn_write("s1", Some("k1"), turn(1, "second turn, process killed")))).unwrap();
    assert_eq!(retry.status, WriteStatus::Duplicate, "durably in the outbox: acknowledged");
    let third = block_on(next.write_turn(turn_write("s1", Some("k2"), turn(2, "third turn")))).unwrap();
    assert_eq!(third.sequence, Some(2), "the outbox entry's sequence is not handed out again");
    assert_eq!(third.outbox_len, 0);
    assert_eq!(user_texts(&host, OV), ["first turn", "second turn, process killed", "third turn"]);
    let rec = block_on(next.load_record(OV, "s1")).unwrap();
    assert_eq!(rec.state.turns_since_commit, 3, "the adopted entry still weighs in the triggers");
}

#[test]
fn a_turn_whose_process_died_before_its_ledger_was_saved_is_noted_when_another_process_sends_it() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    block_on(e.write_turn(turn_write("s1", Some("k0"), turn(0, "first turn")))).unwrap();
    let state_before = host.world().state.clone();
    host.world().down = Some(HostErrorKind::Unreachable);
    block_on(e.write_turn(turn_write("s1", Some("k1"), turn(1, "second turn, process killed")))).unwrap();
    host.world().state = state_before; // the ledger and the record never saw turn 1
    host.world().down = None;
    // another process sends the queued turn and drops it from the outbox
    let next = engine(&host, json!({}));
    assert_eq!(block_on(next.flush(OV)).unwrap().written, 1);
    let third = engine(&host, json!({}));
    let out = block_on(third.write_turn(turn_write("s1", Some("k2"), turn(2, "third turn")))).unwrap();
    assert_eq!(out.sequence, Some(2), "the sent turn's sequence is not handed out again");
    let retry = block_on(third.write_turn(turn_write("s1", Some("k1"), turn(1, "second turn, process killed")))).unwrap();
    assert_eq!(retry.status, WriteStatus::Duplicate, "the retry of the sent turn is known by its id");
    assert_eq!(user_texts(&host, OV), ["first turn", "second turn, process killed", "third turn"]);
    let turns = block_on(third.status(OV)).unwrap().triggers.iter().find(|t| t.kind == "turns").unwrap().current;
    assert_eq!(turns, 3, "each of the three weighs once in the trigger window");
}

#[test]
fn a_crash_mid_send_is_checked_not_resent_and_the_retry_is_a_duplicate() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    block_on(e.write_turn(turn_write("s1", Some("k0"), turn(0, "first turn")))).unwrap();
    // the send lands, its answer is lost, and nothing answers the check: the process dies here
    host.world().lose_next_answer = Some(HostErrorKind::Timeout);
    host.fail("live_messages", HostErrorKind::Unreachable);
    let out = block_on(e.write_turn(turn_write("s1", Some("k1"), turn(1, "second turn, landed unanswered")))).unwrap();
    assert_eq!(out.outbox_len, 1);
    let next = engine(&host, json!({}));
    let retry = block_on(next.write_turn(turn_write("s1", Some("k1"), turn(1, "second turn, landed unanswered")))).unwrap();
    assert_eq!(retry.status, WriteStatus::Duplicate);
    let report = block_on(next.flush(OV)).unwrap();
    assert_eq!((report.written, report.queued, report.reason), (1, 0, None));
    assert_eq!(user_texts(&host, OV), ["first turn", "second turn, landed unanswered"]);
}

#[test]
fn a_turn_stored_nowhere_is_not_acknowledged_and_its_retry_writes_it() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    host.world().fail_append = true;
    let err = block_on(e.write_turn(turn_write("s1", Some("k0"), turn(0, "the disk is full")))).unwrap_err();
    assert_eq!(err.code.as_str(), "HOST_FAILED");
    assert!(host.all_messages_opt(OV).is_empty(), "not sent around the outbox");
    host.world().fail_append = false;
    let again = block_on(e.write_turn(turn_write("s1", Some("k0"), turn(0, "the disk is full")))).unwrap();
    assert_eq!(again.status, WriteStatus::Committed);
    // and in a new process as well: the failed attempt left no durable reservation
    let next = engine(&host, json!({}));
    assert_eq!(block_on(next.write_turn(turn_write("s1", Some("k0"), turn(0, "the disk is full")))).unwrap().status, WriteStatus::Duplicate);
    assert_eq!(user_texts(&host, OV), ["the disk is full"]);
}

#[test]
fn a_session_that_vanished_on_the_server_is_created_again() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    block_on(e.write_turn(turn_write("s1", Some("k0"), turn(0, "first turn")))).unwrap();
    host.world().sessions.clear(); // deleted on the server (or its data dir lost)
    let out = block_on(e.write_turn(turn_write("s1", Some("k1"), turn(1, "second turn")))).unwrap();
    assert_eq!(out.outbox_len, 0);
    assert_eq!(user_texts(&host, OV), ["second turn"]);
    assert!(host.world().warnings.iter().any(|w| w.contains("no longer exists")));
    // a new process notices at load time as well
    host.world().sessions.clear();
    let next = engine(&host, json!({}));
    block_on(next.write_turn(turn_write("s1", Some("k2"), turn(2, "third turn")))).unwrap();
    assert_eq!(user_texts(&host, OV), ["third turn"]);
}

#[test]
fn flush_reports_what_stayed_queued_and_why() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    host.world().down = Some(HostErrorKind::Unreachable);
    for i in 0..3 {
        block_on(e.write_turn(turn_write("s1", Some(&format!("k{i}")), turn(i, "during the outage")))).unwrap();
    }
    let report = block_on(e.flush(OV)).unwrap();
    assert_eq!((report.written, report.queued), (0, 3));
    assert!(report.reason.as_deref().unwrap_or("").contains("fake outage"), "{report:?}");
    host.world().down = None;
    let report = block_on(e.flush(OV)).unwrap();
    assert_eq!((report.written, report.queued, report.reason), (3, 0, None));
}

#[test]
fn the_session_record_stays_bounded_over_a_long_session() {
    let host = FakeHost::new();
    let e = engine(&host, json!({"compactTurnThreshold": 10000, "compactTokensAddedThreshold": 10000000, "compactMaxIntervalMinutes": 10080}));
    let mut sizes = Vec::new();
    for i in 0..1200 {
        block_on(e.write_turn(turn_write("s1", Some(&format!("key-{i:06}-{}", "x".repeat(40))), turn(i, "a turn")))).unwrap();
        if i == 599 || i == 1199 {
            sizes.push(serde_json::to_string(&host.world().state["session/main--s1"]).unwrap().len());
        }
    }
    // (only wider numbers: 4-digit timestamps in the kept content keys, counters)
    assert!(sizes[1] <= sizes[0] + 600, "no growth per turn once the caps are reached: {sizes:?}");
    assert!(sizes[1] < 64_000, "{sizes:?}");
}
