//! The write path's durability invariant — acknowledged means durably stored — at each
//! crash point, over the in-memory OpenViking (`support::FakeHost`): a process that dies
//! after the outbox append but before its record is saved, mid-send, after a lost answer;
//! a disk that refuses the append; a session that vanished on the server; a bounded record;
//! a write that landed unacknowledged (checked before it is sent again, by this process or the
//! next), a send still on its way when its process died, a clock that jumped meanwhile.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(all(target_arch = "wasm32", feature = "browser-tests"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use openviking_context_engine::engine::{Engine, WriteStatus};
use openviking_context_engine::host::HostErrorKind;
use serde_json::{json, Value};
use support::{block_on, engine, turn, turn_write, user_texts, FakeHost};

const OV: &str = "main--s1";

fn write(e: &Engine<FakeHost>, session: &str, key: Option<&str>, messages: Vec<Value>) -> openviking_context_engine::engine::WriteOutcome {
    block_on(e.write_turn(turn_write(session, key, messages))).unwrap()
}

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

/// The user texts OpenViking holds for the session, in order.
fn stored_texts(host: &FakeHost) -> Vec<String> {
    host.all_messages(OV).iter().filter(|m| m["role"] == "user").map(|m| m["parts"][0]["text"].as_str().unwrap().to_string()).collect()
}

#[test]
fn a_write_that_landed_unacknowledged_is_not_written_twice() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    write(&e, "s1", Some("a0"), turn(0, "first turn"));
    // OpenViking stores turn 1, but the answer is lost (client timeout)
    host.world().lose_next_answer = Some(HostErrorKind::Timeout);
    let out = write(&e, "s1", Some("a1"), turn(1, "second turn, answer lost"));
    assert_eq!(out.status, WriteStatus::Committed);
    assert!(out.queued, "unacknowledged: it went to the outbox");
    assert_eq!(out.outbox_len, 0, "the replay found it stored and dropped it");
    assert_eq!(stored_texts(&host), ["first turn", "second turn, answer lost"]);
    assert!(host.world().warnings.iter().any(|w| w.contains("unacknowledged")));
    write(&e, "s1", Some("a2"), turn(2, "third turn"));
    assert_eq!(stored_texts(&host), ["first turn", "second turn, answer lost", "third turn"]);
}

#[test]
fn an_unacknowledged_write_is_checked_by_the_next_process_too() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    write(&e, "s1", Some("a0"), turn(0, "first turn"));
    host.world().lose_next_answer = Some(HostErrorKind::ServerError);
    // and the server does not answer the immediate replay's check: the turn waits
    host.fail("live_messages", HostErrorKind::Unreachable);
    let out = write(&e, "s1", Some("a1"), turn(1, "second turn, answer lost"));
    assert_eq!(out.outbox_len, 1);
    assert_eq!(stored_texts(&host), ["first turn", "second turn, answer lost"], "not sent again while unanswered");
    let next = engine(&host, json!({}));
    let out = write(&next, "s1", Some("a2"), turn(2, "third turn"));
    assert_eq!(out.outbox_len, 0);
    assert_eq!(stored_texts(&host), ["first turn", "second turn, answer lost", "third turn"]);
}

#[test]
fn a_write_that_did_not_land_is_sent_again_exactly_once() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    write(&e, "s1", Some("a0"), turn(0, "first turn"));
    host.fail("add_messages", HostErrorKind::Timeout); // nothing stored
    let out = write(&e, "s1", Some("a1"), turn(1, "second turn, timed out"));
    assert!(out.queued);
    // it may still land (a slow server): not sent again until the request timeout and a
    // second have passed since it went out
    assert_eq!(out.outbox_len, 1, "waits for the send that may still land");
    let report = block_on(e.flush(OV)).unwrap();
    assert!(report.reason.as_deref().unwrap_or("").contains("may still land"), "{report:?}");
    host.world().now += 16_000;
    assert_eq!(block_on(e.flush(OV)).unwrap().written, 1);
    assert_eq!(stored_texts(&host), ["first turn", "second turn, timed out"]);
}

#[test]
fn a_refused_key_while_checking_a_write_is_said_as_such_not_as_silence() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    write(&e, "s1", Some("a0"), turn(0, "first turn"));
    host.fail("add_messages", HostErrorKind::Timeout);
    write(&e, "s1", Some("a1"), turn(1, "second turn, timed out"));
    host.world().now += 16_000;
    host.fail("session_meta", HostErrorKind::Denied); // the check of the unacknowledged write
    let report = block_on(e.flush(OV)).unwrap();
    let why = report.reason.unwrap_or_default();
    assert!(why.contains("the API key was refused") && !why.contains("no answer"), "{why}");
    host.fail("session_meta", HostErrorKind::Timeout);
    let why = block_on(e.flush(OV)).unwrap().reason.unwrap_or_default();
    assert!(why.contains("no answer"), "{why}");
}

#[test]
fn a_send_still_on_its_way_when_its_process_dies_is_waited_for_by_the_next_not_sent_twice() {
    // two processes on one state dir; B loaded the session before A marked its send
    let host = FakeHost::new();
    let a = engine(&host, json!({}));
    write(&a, "s1", Some("a0"), turn(0, "first turn"));
    let b_host = host.second_process();
    let b = engine(&b_host, json!({}));
    write(&b, "s1", Some("b0"), turn(1, "second turn, from B"));
    // A's request goes out, its answer never comes (A leaves it marked: it may still land),
    // and A dies; OpenViking stores it 14 s after it went out
    host.world().land_late_ms = Some(14_000);
    let out = write(&a, "s1", Some("a1"), turn(2, "third turn, on its way"));
    let calls = host.world().calls.clone();
    let warnings = host.world().warnings.clone();
    assert_eq!(out.outbox_len, 1, "{calls:?} {warnings:?}");
    host.die();
    host.world().now += 13_500;
    let sleeps = host.world().sleeps;
    // B takes over the replay: it reads A's mark, waits for the request, finds it stored
    let report = block_on(b.flush(OV)).unwrap();
    assert_eq!((report.queued, report.reason.clone()), (0, None), "{report:?}");
    assert!(host.world().sleeps > sleeps, "waited for it");
    assert_eq!(stored_texts(&host), ["first turn", "second turn, from B", "third turn, on its way"], "stored once");
}

#[test]
fn a_send_that_never_lands_is_sent_again_once_its_wait_is_over() {
    let host = FakeHost::new();
    let e = engine(&host, json!({"timeoutMs": 1000}));
    write(&e, "s1", Some("a0"), turn(0, "first turn"));
    host.fail("add_messages", HostErrorKind::Timeout); // lost on the way
    let out = write(&e, "s1", Some("a1"), turn(1, "second turn, lost"));
    // within the turn: polled until a second past the request timeout, then sent again
    assert_eq!(out.outbox_len, 0, "{out:?}");
    assert_eq!(stored_texts(&host), ["first turn", "second turn, lost"]);
}

const DAY_MS: u64 = 86_400_000;

/// Turn 1's send gets no answer while the wall clock reads `during` (nor does the turn's
/// own check of it); then the clock reads `after`. The outbox holds turn 1, marked.
fn send_lost_while_the_clock_reads(host: &FakeHost, e: &Engine<FakeHost>, during: u64, after: u64) {
    write(e, "s1", Some("a0"), turn(0, "first turn"));
    host.world().now = during;
    host.fail("add_messages", HostErrorKind::Timeout); // lost on the way
    host.fail("live_messages", HostErrorKind::Unreachable);
    let out = write(e, "s1", Some("a1"), turn(1, "second turn, sent as the clock jumped"));
    assert_eq!(out.outbox_len, 1, "{out:?}");
    host.world().now = after;
}

#[test]
fn a_send_stamped_while_the_clock_was_a_day_ahead_does_not_wedge_the_outbox() {
    // no monotonic clock: the stamp is wall-clock time, from the future once the clock is back
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    let real = host.world().now;
    send_lost_while_the_clock_reads(&host, &e, real + DAY_MS, real + 1_000);
    let report = block_on(e.flush(OV)).unwrap();
    assert_eq!((report.written, report.queued, report.reason.clone()), (1, 0, None), "{report:?}");
    write(&e, "s1", Some("a2"), turn(2, "third turn"));
    assert_eq!(stored_texts(&host), ["first turn", "second turn, sent as the clock jumped", "third turn"]);
}

#[test]
fn the_next_process_does_not_wait_on_a_mark_stamped_in_the_future() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    let real = host.world().now;
    send_lost_while_the_clock_reads(&host, &e, real + 3 * 365 * DAY_MS, real);
    host.die();
    let next = engine(&host.second_process(), json!({}));
    let report = block_on(next.flush(OV)).unwrap();
    assert_eq!((report.written, report.queued, report.reason.clone()), (1, 0, None), "{report:?}");
    assert_eq!(stored_texts(&host), ["first turn", "second turn, sent as the clock jumped"]);
}

#[test]
fn a_clock_that_answers_nonsense_never_keeps_a_turn_queued() {
    // 1e300 from the host reads as u64::MAX; flushed while it still does, and after
    for back in [false, true] {
        let host = FakeHost::new();
        let e = engine(&host, json!({}));
        let real = host.world().now;
        send_lost_while_the_clock_reads(&host, &e, u64::MAX, if back { real } else { u64::MAX });
        let report = block_on(e.flush(OV)).unwrap();
        assert_eq!((report.written, report.queued, report.reason.clone()), (1, 0, None), "clock back: {back}: {report:?}");
        assert_eq!(stored_texts(&host), ["first turn", "second turn, sent as the clock jumped"]);
        let next = engine(&host.second_process(), json!({}));
        assert_eq!(block_on(next.flush(OV)).unwrap(), Default::default(), "nothing left for the next process");
    }
}

fn advance_monotonic(host: &FakeHost, ms: u64) {
    let mut w = host.world();
    w.mono = w.mono.map(|m| m + ms);
}

#[test]
fn with_a_monotonic_clock_the_wait_for_a_send_is_its_real_length_whatever_the_wall_clock_does() {
    let host = FakeHost::new();
    host.world().mono = Some(5_000);
    let e = engine(&host, json!({}));
    let real = host.world().now;
    // the wall clock jumps a day ahead as the send goes out, then back
    send_lost_while_the_clock_reads(&host, &e, real + DAY_MS, real - 60_000);
    let report = block_on(e.flush(OV)).unwrap();
    let why = report.reason.clone().unwrap_or_default();
    assert!(why.contains("may still land") && report.queued == 1, "a send of a moment ago is waited for: {report:?}");
    // a day ahead of the stamp on the wall clock, 5 s after it on the monotonic one: still waited for
    host.world().now = real + 2 * DAY_MS;
    advance_monotonic(&host, 5_000);
    let report = block_on(e.flush(OV)).unwrap();
    assert!(report.reason.as_deref().unwrap_or("").contains("may still land"), "{report:?}");
    // the request timeout and a second after it went out, by the monotonic clock: sent again
    advance_monotonic(&host, 11_000);
    let report = block_on(e.flush(OV)).unwrap();
    assert_eq!((report.written, report.queued), (1, 0), "{report:?}");
    assert_eq!(stored_texts(&host), ["first turn", "second turn, sent as the clock jumped"], "stored once");
}

#[test]
fn after_a_commit_the_count_is_unknown_and_a_queued_turn_is_simply_sent() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    for i in 0..3 {
        write(&e, "s1", Some(&format!("a{i}")), turn(i, &format!("turn {i} about the staging database pool size")));
    }
    let now = host.world().now;
    block_on(e.run_commit(OV, false, "3 turns", Some(now + 60_000))).unwrap();
    // the check of what OpenViking holds gets no answer, then the send times out
    host.fail("live_messages", HostErrorKind::Timeout);
    host.fail("add_messages", HostErrorKind::Timeout);
    let out = write(&e, "s1", Some("a3"), turn(3, "turn 3 after the commit"));
    assert_eq!(out.outbox_len, 1);
    assert_eq!(block_on(e.flush(OV)).unwrap().queued, 1, "the second timeout");
    host.world().now += 16_000; // past the wait for a send that may still land
    assert_eq!(block_on(e.flush(OV)).unwrap().written, 1);
    let texts = stored_texts(&host);
    assert_eq!(texts.iter().filter(|t| t.as_str() == "turn 3 after the commit").count(), 1);
}

#[test]
fn a_crash_between_a_replayed_write_and_its_drop_does_not_store_it_twice() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    write(&e, "s1", Some("a0"), turn(0, "first turn"));
    host.world().down = Some(HostErrorKind::Unreachable);
    write(&e, "s1", Some("a1"), turn(1, "second turn, attempted"));
    write(&e, "s1", Some("a2"), turn(2, "third turn, queued behind it"));
    host.world().down = None;
    host.world().crash_at_drop = Some(1); // the second replayed entry's drop never happens
    assert!(block_on(e.flush(OV)).is_err(), "the process 'dies' after the write, before the drop");
    assert_eq!(stored_texts(&host), ["first turn", "second turn, attempted", "third turn, queued behind it"]);
    let next = engine(&host, json!({}));
    let out = write(&next, "s1", Some("a3"), turn(3, "fourth turn"));
    assert_eq!(out.outbox_len, 0);
    assert_eq!(stored_texts(&host), ["first turn", "second turn, attempted", "third turn, queued behind it", "fourth turn"]);
}

#[test]
fn a_checkpoint_written_in_the_designs_snake_case_still_reads() {
    use openviking_context_engine::lifecycle::checkpoint::CompactCheckpoint;
    let old = json!({"checkpoint_id": "ckpt-main--s1-001", "session_id": "main--s1", "committed_at": "2026-11-24T10:00:00.000Z",
        "archive_index": 1, "source_turn_range": {"start_sequence": 0, "end_sequence": 2}, "extracted_memory_uris": [],
        "archive_uri": "viking://user/alice/sessions/main--s1/history/archive_001", "task_id": "t1", "reason": "3 turns", "turn_ids": ["main--s1:0"]});
    let cp: CompactCheckpoint = serde_json::from_value(old).unwrap();
    assert_eq!((cp.archive_index, cp.source_turn_range.end_sequence, cp.turn_ids.len()), (1, 2, 1));
    let now = serde_json::to_value(&cp).unwrap();
    assert_eq!(now["checkpointId"], "ckpt-main--s1-001");
    assert_eq!(now["sourceTurnRange"], json!({"startSequence": 0, "endSequence": 2}));
    assert!(now.get("checkpoint_id").is_none(), "written in one casing");
}

#[test]
fn after_an_outage_the_first_turn_that_reaches_openviking_lets_the_due_commit_start() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    host.world().down = Some(HostErrorKind::Unreachable);
    let mut due = None;
    for i in 0..3 {
        let out = write(&e, "s1", Some(&format!("k{i}")), turn(i, "We decided the pool stays at 10"));
        due = out.trigger.map(|t| t.reason()).or(due);
    }
    let reason = due.expect("the turn trigger fired while OpenViking was down");
    let failed = block_on(e.run_commit(OV, false, &reason, None)).unwrap();
    assert!(!failed.compacted, "nothing to commit against while OpenViking is down");
    // OpenViking is back a few seconds later, well inside the 30 s back-off
    host.world().down = None;
    host.world().now += 5_000;
    let out = write(&e, "s1", Some("k3"), turn(3, "And production stays at 20"));
    assert!(out.commit_due, "the back-off of an outage ended when the turn reached OpenViking");
    let done = block_on(e.run_commit(OV, false, &out.trigger.unwrap().reason(), None)).unwrap();
    assert!(done.compacted, "{done:?}");
    assert_eq!(host.world().sessions[OV].archives[0].iter().filter(|m| m["role"] == "user").count(), 4);
}

#[test]
fn a_lock_wait_under_a_clock_that_answers_nonsense_lasts_its_pauses_not_its_tries() {
    // another live process holds the outbox's write lock for ever while the host's clock
    // reads no plausible time: the wait ends once its pauses add up to the timeout, in tens
    // of tries, not at the tries' bound (thousands of host calls)
    let host = FakeHost::new();
    let e = engine(&host, json!({ "timeoutMs": 1000 }));
    {
        let mut w = host.world();
        w.locks.insert(format!("outbox/{OV}"), (999, u64::MAX));
        w.now = u64::MAX / 2; // no plausible time (the lock's expiry is later still)
        w.sleeps = 0;
    }
    // (the write lock not taken, the turn is refused with a retryable error: the host keeps it)
    let out = block_on(e.write_turn(turn_write("s1", Some("a0"), turn(0, "first turn"))));
    assert!(out.is_err(), "{out:?}");
    let sleeps = host.world().sleeps;
    assert!(sleeps > 0 && sleeps < 40, "{sleeps} pauses");
}

#[test]
fn the_record_cache_is_bounded_and_a_dropped_session_goes_on_where_it_was() {
    use openviking_context_engine::engine::RECORDS_CACHED;
    let host = FakeHost::new();
    let e = std::rc::Rc::new(engine(&host, json!({"compactTurnThreshold": 1000})));
    let n = RECORDS_CACHED + 44;
    for i in 0..n {
        let _op = e.operation();
        assert_eq!(write(&e, &format!("s{i}"), Some(&format!("k{i}")), turn(i, "A fact of this session")).status, WriteStatus::Committed);
    }
    // the last operation ended: the least recently used idle records were dropped
    assert!(e.cached_records() <= RECORDS_CACHED, "{}", e.cached_records());
    // while an operation runs nothing is dropped
    let running = e.operation();
    for i in n..n + RECORDS_CACHED {
        write(&e, &format!("s{i}"), Some(&format!("k{i}")), turn(i, "Another fact"));
    }
    assert!(e.cached_records() > RECORDS_CACHED);
    drop(running);
    assert!(e.cached_records() <= RECORDS_CACHED * 3 / 4 + 1, "{}", e.cached_records());
    // s0 was dropped first: its retried turn is still known, and its next turn follows on
    assert_eq!(write(&e, "s0", Some("k0"), turn(0, "A fact of this session")).status, WriteStatus::Duplicate);
    let next = write(&e, "s0", Some("k0b"), turn(1, "The next fact"));
    assert_eq!((next.status, next.sequence), (WriteStatus::Committed, Some(1)));
    assert_eq!(host.all_messages("main--s0").len(), 4, "every turn stored once");
}
