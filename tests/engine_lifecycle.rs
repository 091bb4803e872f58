//! The lifecycle orchestrator over an in-memory OpenViking (`support::FakeHost`) with a
//! fake clock: lossless writes, idempotency across restarts, triggers, commits followed to
//! checkpoints, outages and the outbox, turns during a commit, process-per-turn hosts.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(all(target_arch = "wasm32", feature = "browser-tests"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use openviking_context_engine::engine::{Engine, WriteStatus};
use openviking_context_engine::host::HostErrorKind;
use serde_json::{json, Value};
use support::{block_on, engine, turn, turn_write, FakeHost};

fn write(e: &Engine<FakeHost>, session: &str, key: Option<&str>, messages: Vec<Value>) -> openviking_context_engine::engine::WriteOutcome {
    block_on(e.write_turn(turn_write(session, key, messages))).unwrap()
}

const OV: &str = "main--s1";

#[test]
fn a_conversation_with_tool_calls_lands_completely() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    for i in 0..2 {
        let out = write(&e, "s1", Some(&format!("k{i}")), turn(i, "What pool size does the staging database use?"));
        assert_eq!(out.status, WriteStatus::Committed);
        assert!(!out.queued);
    }
    let msgs = host.all_messages(OV);
    assert_eq!(msgs.len(), 4, "user + assistant per turn");
    let tool_parts: Vec<&Value> = msgs.iter().flat_map(|m| m["parts"].as_array().unwrap()).filter(|p| p["type"] == "tool").collect();
    assert_eq!(tool_parts.len(), 2);
    assert_eq!(tool_parts[0]["tool_output"], "config/db.yml: pool: 10");
    let texts = msgs.iter().flat_map(|m| m["parts"].as_array().unwrap()).filter(|p| p["type"] == "text").count();
    assert_eq!(texts, 6);
    let policy = &host.world().sessions[OV].policy;
    assert_eq!(policy["working_memory"]["enabled"], true);
    assert!(policy.get("self").is_none());
}

#[test]
fn auto_capture_off_disables_extraction_but_still_records() {
    let host = FakeHost::new();
    let e = engine(&host, json!({"autoCapture": false}));
    write(&e, "s1", None, turn(0, "We decided to keep the pool at 10"));
    let w = host.world();
    assert_eq!(w.sessions[OV].policy["self"]["enabled"], false);
    assert_eq!(w.sessions[OV].policy["peer"]["enabled"], false);
    assert_eq!(w.sessions[OV].live.len(), 2);
}

#[test]
fn a_retried_advancement_key_writes_nothing_twice_even_after_a_restart() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    assert_eq!(write(&e, "s1", Some("adv-1"), turn(0, "Remember the pool is 10")).status, WriteStatus::Committed);
    assert_eq!(write(&e, "s1", Some("adv-1"), turn(0, "Remember the pool is 10")).status, WriteStatus::Duplicate);
    let restarted = engine(&host, json!({}));
    assert_eq!(write(&restarted, "s1", Some("adv-1"), turn(0, "Remember the pool is 10")).status, WriteStatus::Duplicate);
    assert_eq!(host.all_messages(OV).len(), 2);
}

#[test]
fn the_turn_trigger_fires_at_its_threshold_and_small_talk_never_counts() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    let hi = vec![json!({"role": "user", "content": "hi"}), json!({"role": "assistant", "content": [{"type": "text", "text": "Hello!"}]})];
    for _ in 0..5 {
        let out = write(&e, "s1", None, hi.clone());
        assert!(!out.counted);
        assert!(!out.commit_due);
    }
    assert!(!write(&e, "s1", None, turn(1, "What does the staging pool use?")).commit_due);
    assert!(!write(&e, "s1", None, turn(2, "And what about production?")).commit_due);
    let third = write(&e, "s1", None, turn(3, "Let's go with 20 for production."));
    assert!(third.commit_due);
    assert_eq!(third.trigger.unwrap().reason(), "3 turns since the last commit ≥ 3");
}

#[test]
fn a_commit_archives_and_is_followed_to_a_checkpoint_citing_the_turn_range() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    for i in 0..3 {
        write(&e, "s1", None, turn(i, "We decided the pool stays at 10"));
    }
    let now = host.world().now;
    let out = block_on(e.run_commit(OV, false, "3 turns", Some(now + 60_000))).unwrap();
    assert!(out.compacted);
    let cp = out.checkpoint.expect("followed to completion");
    assert_eq!((cp.source_turn_range.start_sequence, cp.source_turn_range.end_sequence), (0, 2));
    assert_eq!(cp.archive_index, 1);
    assert_eq!(cp.extracted_memory_uris, vec!["viking://user/alice/memories/events/main--s1-1.md"]);
    assert!(cp.summary.as_deref().unwrap().contains("Working Memory"));
    assert_eq!(cp.reason, "3 turns");
    // no advancement key: each turn's id comes from its content key (its answer's timestamp
    // and its text), so every process and machine names it alike
    assert_eq!(cp.turn_ids.len(), 3);
    assert!(cp.turn_ids.iter().all(|t| t.starts_with("main--s1:c")), "{:?}", cp.turn_ids);
    assert_eq!(cp.turn_ids.iter().collect::<std::collections::HashSet<_>>().len(), 3, "distinct");
    let uri = "viking://user/alice/resources/openviking-context-engine/main/main--s1/checkpoint-001.json";
    assert_eq!(host.world().files[uri]["checkpointId"], "ckpt-main--s1-001");
    // the next window starts after the archived turns
    write(&e, "s1", None, turn(3, "Now about production"));
    let until = host.world().now + 60_000;
    let out2 = block_on(e.run_commit(OV, true, "compact()", Some(until))).unwrap();
    assert_eq!(out2.checkpoint.unwrap().source_turn_range.start_sequence, 3);
}

#[test]
fn compact_with_nothing_new_says_so_and_never_claims_a_compaction() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    let out = block_on(e.run_commit(OV, true, "compact()", Some(0))).unwrap();
    assert!(!out.compacted);
    assert!(out.reason.unwrap().contains("no new turns"));
}

#[test]
fn openviking_down_queues_turns_and_replays_them_in_order_without_duplicates() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    write(&e, "s1", Some("a0"), turn(0, "first turn before the outage"));
    host.world().down = Some(HostErrorKind::Unreachable);
    for i in 1..6 {
        let out = write(&e, "s1", Some(&format!("a{i}")), turn(i, &format!("turn {i} during the outage")));
        assert_eq!(out.status, WriteStatus::Committed, "the turn itself never fails");
        assert!(out.queued);
        assert_eq!(out.outbox_len, i);
    }
    assert_eq!(host.world().warnings.iter().filter(|w| w.contains("unavailable")).count(), 1, "one warning per outage");
    // a process restart while down: the outbox is durable
    host.world().down = None;
    let restarted = engine(&host, json!({}));
    let out = write(&restarted, "s1", Some("a6"), turn(6, "turn 6 after the outage"));
    assert_eq!(out.outbox_len, 0);
    let users: Vec<String> = host
        .all_messages(OV)
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| m["parts"][0]["text"].as_str().unwrap().to_string())
        .collect();
    let expected: Vec<String> = std::iter::once("first turn before the outage".to_string())
        .chain((1..6).map(|i| format!("turn {i} during the outage")))
        .chain(std::iter::once("turn 6 after the outage".to_string()))
        .collect();
    assert_eq!(users, expected);
}

#[test]
fn a_failed_commit_backs_off_and_leaves_the_raw_session_intact() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    for i in 0..3 {
        write(&e, "s1", None, turn(i, "We decided the pool stays at 10"));
    }
    host.world().fail_next.push_back(HostErrorKind::ServerError);
    let out = block_on(e.run_commit(OV, false, "3 turns", None)).unwrap();
    assert!(!out.compacted);
    assert_eq!(host.world().sessions[OV].live.len(), 6, "nothing archived");
    let blocked = block_on(e.run_commit(OV, false, "3 turns", None)).unwrap();
    assert!(blocked.reason.unwrap().contains("BackingOff"));
    let forced = block_on(e.run_commit(OV, true, "compact()", None)).unwrap();
    assert!(forced.compacted, "compact() ignores back-off");
}

#[test]
fn a_pending_task_is_finished_by_the_next_process() {
    let host = FakeHost::new();
    host.world().task_polls = 5;
    let first = engine(&host, json!({}));
    for i in 0..3 {
        write(&first, "s1", None, turn(i, "We decided the pool stays at 10"));
    }
    let out = block_on(first.run_commit(OV, false, "3 turns", None)).unwrap();
    assert!(out.compacted && out.task_pending);
    drop(first);
    let second = engine(&host, json!({}));
    let until = host.world().now + 60_000;
    let cp = block_on(second.follow_task(OV, until)).unwrap().expect("completed");
    assert_eq!(cp.source_turn_range.end_sequence, 2);
    assert!(block_on(second.follow_task(OV, 0)).unwrap().is_none(), "nothing pending any more");
}

#[test]
fn two_followers_of_one_task_write_its_checkpoint_once_and_both_get_it() {
    let host = FakeHost::new();
    host.world().task_polls = 3;
    let e = engine(&host, json!({}));
    for i in 0..3 {
        write(&e, "s1", None, turn(i, "We decided the pool stays at 10"));
    }
    let out = block_on(e.run_commit(OV, false, "3 turns", None)).unwrap();
    assert!(out.compacted && out.task_pending);
    let writes_before = host.world().calls.iter().filter(|c| *c == "write_json").count();
    let until = host.world().now + 60_000;
    // bootstrap's follow and compact()'s, side by side
    let (a, b) = block_on(openviking_context_engine::host::join::join2(e.follow_task(OV, until), e.follow_task(OV, until)));
    let (a, b) = (a.unwrap().expect("the first follower's checkpoint"), b.unwrap().expect("the second gets the same"));
    assert_eq!(a.checkpoint_id, b.checkpoint_id);
    let writes = host.world().calls.iter().filter(|c| *c == "write_json").count() - writes_before;
    assert_eq!(writes, 1, "the checkpoint is written once (a second write is what hit OpenViking's 'resource is busy')");
}

#[test]
fn turns_arriving_while_archiving_are_held_then_written_to_the_same_session() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    write(&e, "s1", None, turn(0, "We decided the pool stays at 10"));
    // simulate a commit call in flight from another process: the guard says archiving
    {
        let mut rec = block_on(e.load_record(OV, "s1")).unwrap();
        let now = host.world().now;
        rec.guard.on_commit_requested(now, false);
        block_on(e.save_record(&rec)).unwrap();
    }
    let held = write(&e, "s1", None, turn(1, "A turn during the commit call"));
    assert!(held.queued);
    assert_eq!(host.world().sessions[OV].live.len(), 2, "not written while archiving");
    {
        let mut rec = block_on(e.load_record(OV, "s1")).unwrap();
        rec.guard.on_commit_skipped();
        block_on(e.save_record(&rec)).unwrap();
    }
    assert_eq!(block_on(e.flush(OV)).unwrap().written, 1);
    assert_eq!(host.world().sessions[OV].live.len(), 4);
}

#[test]
fn a_new_session_id_for_the_same_key_points_at_the_old_session() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    assert_eq!(write(&e, "s1", None, turn(0, "first transcript")).previous_ov_session_id, None);
    let out = write(&e, "s2", None, turn(1, "after /new"));
    assert_eq!(out.previous_ov_session_id.as_deref(), Some(OV));
    assert_eq!(out.ov_session_id, "main--s2");
    assert_eq!(write(&e, "s2", None, turn(2, "again")).previous_ov_session_id, None);
}

#[test]
fn two_processes_one_per_turn_behave_like_one_long_lived_engine() {
    let long = FakeHost::new();
    let gateway = engine(&long, json!({}));
    let per_turn = FakeHost::new();
    let mut dues = (Vec::new(), Vec::new());
    for i in 0..7 {
        let text = if i % 3 == 0 { "ok".to_string() } else { format!("We decided step {i} uses the blue-green deploy") };
        let msgs = vec![json!({"role": "user", "content": text}), json!({"role": "assistant", "content": [{"type": "text", "text": "Noted."}]})];
        dues.0.push(write(&gateway, "s1", Some(&format!("k{i}")), msgs.clone()).commit_due);
        let process = engine(&per_turn, json!({}));
        dues.1.push(write(&process, "s1", Some(&format!("k{i}")), msgs).commit_due);
    }
    assert_eq!(dues.0, dues.1);
    assert!(dues.0.iter().any(|d| *d));
    assert_eq!(long.all_messages(OV), per_turn.all_messages(OV));
}

#[test]
fn a_host_calling_both_commit_turn_and_after_turn_gets_the_turn_written_once() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    let msgs = vec![
        json!({"role": "user", "content": "We decided on blue-green deploys", "timestamp": 1764000000123u64}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "Noted."}]}),
    ];
    let committed = write(&e, "s1", Some("adv-9"), msgs.clone());
    assert!(!committed.already_stored);
    let after = write(&e, "s1", None, msgs.clone());
    assert_eq!(after.status, WriteStatus::Committed);
    assert!(after.already_stored);
    // and the other order
    let msgs2 = vec![json!({"role": "user", "content": "Second decision", "timestamp": 1764000000999u64})];
    assert!(!write(&e, "s1", None, msgs2.clone()).already_stored);
    let c2 = write(&e, "s1", Some("adv-10"), msgs2);
    assert!(c2.already_stored);
    assert_eq!(write(&e, "s1", Some("adv-10"), vec![]).status, WriteStatus::Duplicate);
    assert_eq!(host.all_messages(OV).len(), 3);
}

#[test]
fn turns_written_while_a_commit_is_requested_stay_counted_for_the_next_window() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    for i in 0..3 {
        write(&e, "s1", Some(&format!("w{i}")), turn(i, "We decided the pool stays at 10"));
    }
    // the commit is requested (window snapshotted), then a turn arrives before it is accepted
    block_on(e.load_record(OV, "s1")).unwrap();
    let now = host.world().now;
    block_on(e.update(OV, |rec| {
        rec.guard.on_commit_requested(now, false);
        openviking_context_engine::lifecycle::triggers::snapshot_window(&mut rec.state);
    }))
    .unwrap();
    let held = write(&e, "s1", Some("w3"), turn(3, "We decided to add a read replica"));
    assert!(held.queued);
    let (start, end, ids) = block_on(e.update(OV, |rec| openviking_context_engine::lifecycle::triggers::record_commit(&mut rec.state, now))).unwrap();
    assert_eq!((start, end), (0, 2));
    assert_eq!(ids, vec!["w0", "w1", "w2"]);
    let rec = block_on(e.load_record(OV, "s1")).unwrap();
    assert_eq!(rec.state.counted_turns_since_commit, 1, "the held turn counts for the next window");
    assert_eq!(rec.state.window_turn_ids, vec!["w3"]);
    assert_eq!(rec.state.window_start_sequence, 3);
}

fn user_texts(host: &FakeHost) -> Vec<String> {
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
    assert_eq!(user_texts(&host), ["first turn", "second turn, answer lost"]);
    assert!(host.world().warnings.iter().any(|w| w.contains("unacknowledged")));
    write(&e, "s1", Some("a2"), turn(2, "third turn"));
    assert_eq!(user_texts(&host), ["first turn", "second turn, answer lost", "third turn"]);
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
    assert_eq!(user_texts(&host), ["first turn", "second turn, answer lost"], "not sent again while unanswered");
    let next = engine(&host, json!({}));
    let out = write(&next, "s1", Some("a2"), turn(2, "third turn"));
    assert_eq!(out.outbox_len, 0);
    assert_eq!(user_texts(&host), ["first turn", "second turn, answer lost", "third turn"]);
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
    assert_eq!(user_texts(&host), ["first turn", "second turn, timed out"]);
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
    assert_eq!(user_texts(&host), ["first turn", "second turn, from B", "third turn, on its way"], "stored once");
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
    assert_eq!(user_texts(&host), ["first turn", "second turn, lost"]);
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
    assert_eq!(user_texts(&host), ["first turn", "second turn, sent as the clock jumped", "third turn"]);
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
    assert_eq!(user_texts(&host), ["first turn", "second turn, sent as the clock jumped"]);
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
        assert_eq!(user_texts(&host), ["first turn", "second turn, sent as the clock jumped"]);
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
    assert_eq!(user_texts(&host), ["first turn", "second turn, sent as the clock jumped"], "stored once");
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
    let texts = user_texts(&host);
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
    assert_eq!(user_texts(&host), ["first turn", "second turn, attempted", "third turn, queued behind it"]);
    let next = engine(&host, json!({}));
    let out = write(&next, "s1", Some("a3"), turn(3, "fourth turn"));
    assert_eq!(out.outbox_len, 0);
    assert_eq!(user_texts(&host), ["first turn", "second turn, attempted", "third turn, queued behind it", "fourth turn"]);
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
