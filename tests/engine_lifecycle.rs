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
