//! The state dir is a queue and a cache; OpenViking holds the agent's past. Over the
//! in-memory OpenViking (`support::FakeHost`): two processes on one state dir (handles with
//! their own lock identity) never number two turns alike nor store one twice; a turn queued
//! by an append that answered too late is recognised when the host retries it; and a state
//! dir that is deleted (or a second machine's, empty) answers the history search and
//! `memory_expand` from what OpenViking holds, as the first did.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(all(target_arch = "wasm32", feature = "browser-tests"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use openviking_context_engine::engine::{Engine, WriteStatus};
use serde_json::{json, Value};
use support::{block_on, engine, turn, turn_write, user_texts, FakeHost};

const OV: &str = "main--s1";

fn write(e: &Engine<FakeHost>, key: &str, i: usize, text: &str) -> openviking_context_engine::engine::WriteOutcome {
    block_on(e.write_turn(turn_write("s1", Some(key), turn(i, text)))).unwrap()
}

fn run(e: &Engine<FakeHost>, tool: &str, params: Value) -> Value {
    block_on(e.run_tool(tool, &params)).unwrap_or_else(|err| panic!("{tool} {params}: {err}"))
}

/// (turn id, archived, session) of each hit.
fn hits(v: &Value) -> Vec<(String, bool, String)> {
    let mut out: Vec<_> = v["hits"].as_array().unwrap().iter().map(|h| (h["turnId"].as_str().unwrap().to_string(), h["archived"].as_bool().unwrap(), h["ovSessionId"].as_str().unwrap().to_string())).collect();
    out.sort();
    out
}

#[test]
fn every_message_carries_the_turns_id_time_and_kind() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    let mut msgs = turn(0, "Where is the pool configured?");
    let at = host.world().now - 3_600_000; // an hour before the engine's clock
    msgs[0]["timestamp"] = json!(at);
    block_on(e.write_turn(turn_write("s1", Some("k-0"), msgs))).unwrap();
    let stored = host.all_messages(OV);
    assert!(stored.iter().all(|m| m["turn_id"] == "k-0" && m["created_at"] == stored[0]["created_at"]), "{stored:?}");
    assert_eq!(stored[0]["created_at"], openviking_context_engine::text::time::iso8601(at), "the host's time of the turn");
    let kinds: Vec<&str> = stored.iter().map(|m| m["message_kind"].as_str().unwrap()).collect();
    assert_eq!(kinds[0], "user_query");
    assert!(kinds[1..].iter().all(|k| *k == "assistant_step" || *k == "tool_transport"), "{kinds:?}");
}

#[test]
fn two_processes_on_one_state_dir_number_and_store_every_turn_once() {
    let host = FakeHost::new();
    let other = host.second_process();
    let (a, b) = (engine(&host, json!({})), engine(&other, json!({})));
    let mut sequences = Vec::new();
    for i in 0..8 {
        let e = if i % 2 == 0 { &a } else { &b };
        sequences.push(write(e, &format!("k{i}"), i, &format!("turn {i} of two writers")).sequence.unwrap());
    }
    assert_eq!(sequences, (0..8).collect::<Vec<u64>>(), "each process's cached record is behind the other's: numbering comes from the shared counter");
    // the other process retries a turn the first one acknowledged and already sent: its
    // cached record does not know the key, but the replay finds the turn id in OpenViking
    write(&b, "k6", 6, "turn 6 of two writers");
    assert_eq!(user_texts(&host, OV), (0..8).map(|i| format!("turn {i} of two writers")).collect::<Vec<_>>());
}

#[test]
fn a_holder_that_died_does_not_wedge_the_outbox_and_a_sent_undropped_turn_is_not_resent() {
    let host = FakeHost::new();
    let dying = host.second_process();
    let a = engine(&host, json!({}));
    let b = engine(&dying, json!({}));
    write(&a, "k0", 0, "first turn");
    // b sends turn 1 and dies before dropping it, holding the replay lease and the write lock
    dying.world().crash_at_drop = Some(0);
    assert!(block_on(b.write_turn(turn_write("s1", Some("k1"), turn(1, "second turn, sent by a process that died")))).is_err() || !host.world().outbox[&format!("outbox/{OV}")].is_empty());
    block_on(openviking_context_engine::host::Storage::try_lock(&dying, &format!("outbox/{OV}"), 60_000)).unwrap();
    block_on(openviking_context_engine::host::Storage::try_lock(&dying, &format!("replay/{OV}"), 600_000)).unwrap();
    dying.die();
    let out = write(&a, "k2", 2, "third turn");
    assert_eq!((out.status, out.outbox_len), (WriteStatus::Committed, 0), "the dead holder's locks were taken over");
    assert_eq!(user_texts(&host, OV), ["first turn", "second turn, sent by a process that died", "third turn"], "found by its turn id, not sent again");
}

#[test]
fn a_late_append_is_recognised_when_the_host_retries_and_never_wedges_the_head() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    write(&e, "k0", 0, "first turn");
    // an append that timed out landed after the engine gave up: the entry is in the outbox
    let okey = format!("outbox/{OV}");
    let late = json!({"sequence": 1, "turnId": "k1", "advancementKey": "k1", "contentKey": null, "tokens": 10, "counts": true, "queuedAtMs": 0,
                      "messages": [{"role": "user", "parts": [{"type": "text", "text": "second turn, appended late"}], "turn_id": "k1"}]});
    host.world().outbox.insert(okey.clone(), vec![late]);
    let next = engine(&host, json!({}));
    let retry = block_on(next.write_turn(turn_write("s1", Some("k1"), turn(1, "second turn, appended late")))).unwrap();
    assert_eq!(retry.status, WriteStatus::Duplicate, "queued already: durable");
    let third = write(&next, "k2", 2, "third turn");
    assert_eq!((third.sequence, third.outbox_len), (Some(2), 0), "the late entry went first, nothing wedged");
    assert_eq!(user_texts(&host, OV), ["first turn", "second turn, appended late", "third turn"]);
}

#[test]
fn a_deleted_state_dir_or_a_second_machine_answers_from_openviking_as_the_first_did() {
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    for i in 0..3 {
        write(&e, &format!("k{i}"), i, &format!("turn {i}: the vault moved to the cellar"));
    }
    assert!(block_on(e.compact("s1", None)).unwrap().compacted);
    for i in 3..5 {
        write(&e, &format!("k{i}"), i, &format!("turn {i}: the vault moved to the cellar"));
    }
    // another agent of the same user: never part of main's answers
    let other = engine(&host, json!({"agentId": "other"}));
    block_on(other.write_turn(turn_write("s9", Some("o0"), turn(0, "the vault of the other agent")))).unwrap();
    let extracted = "viking://user/alice/memories/events/main--s1-1.md";
    let first_search = run(&e, "memory_search_history", json!({"query": "vault cellar", "limit": 50}));
    let first_expand = run(&e, "memory_expand", json!({"summaryOrMemoryUri": extracted, "query": "vault"}));
    assert_eq!(hits(&first_search).len(), 5);
    assert_eq!(hits(&first_search).iter().filter(|h| h.1).count(), 3, "three archived");

    // the state dir is gone (or this is another machine): only OpenViking knows the past
    host.world().state.clear();
    host.world().outbox.clear();
    let fresh = engine(&host, json!({}));
    // the turn's assemble touches the session first: adopted, held in memory, not saved yet
    block_on(fresh.load_record(OV, "s1")).unwrap();
    let expand = run(&fresh, "memory_expand", json!({"summaryOrMemoryUri": extracted, "query": "vault"}));
    assert_eq!(expand["archiveUri"], first_expand["archiveUri"], "{expand}");
    let search = run(&fresh, "memory_search_history", json!({"query": "vault cellar", "limit": 50}));
    assert_eq!(hits(&search), hits(&first_search), "the same turns, ids and archive flags");
    assert_eq!(expand["excerpts"], first_expand["excerpts"]);
    // the operator's commands list the adopted sessions: this agent's, never the other's
    let other_fresh = engine(&host, json!({}));
    host.world().state.retain(|k, _| !k.starts_with("session/"));
    block_on(other_fresh.adopt_agent_sessions());
    let listed: Vec<String> = host.world().state.keys().filter(|k| k.starts_with("session/")).cloned().collect();
    assert_eq!(listed, [format!("session/{OV}")]);
    // numbering goes on where the first left off
    assert_eq!(write(&fresh, "k5", 5, "turn 5").sequence, Some(5));
    assert_eq!(user_texts(&host, OV).len(), 6);
}

#[test]
fn a_turn_this_process_sent_that_comes_back_into_the_outbox_is_not_sent_again() {
    // P sends; Q queues k1 while OpenViking is away and dies before its ledger is saved; P
    // replays k1 and drops it; R (OpenViking away again) retries k1 — neither the outbox nor
    // the ledger knows it — and appends it again; P's next replay must not send it twice
    let host = FakeHost::new();
    let (q_host, r_host) = (host.second_process(), host.second_process().second_process());
    let p = engine(&host, json!({}));
    write(&p, "k0", 0, "first turn");
    host.world().down = Some(openviking_context_engine::host::HostErrorKind::Unreachable);
    let q = engine(&q_host, json!({}));
    write(&q, "k1", 1, "second turn");
    host.world().state.remove(&format!("turns/{OV}")); // the ledger save was lost with Q
    host.world().down = None;
    assert_eq!(block_on(p.flush(OV)).unwrap().written, 1);
    host.world().down = Some(openviking_context_engine::host::HostErrorKind::Unreachable);
    let r = engine(&r_host, json!({}));
    block_on(r.write_turn(turn_write("s1", Some("k1"), turn(1, "second turn")))).unwrap();
    host.world().down = None;
    let report = block_on(p.flush(OV)).unwrap();
    assert_eq!((report.queued, report.reason), (0, None));
    assert_eq!(user_texts(&host, OV), ["first turn", "second turn"]);
}

#[test]
fn an_adopted_session_knows_its_turns_written_without_a_key_by_their_content() {
    // afterTurn hosts send no advancement key: the turn is named by its content key, and a
    // state dir rebuilt from OpenViking still recognises the same turn handed over again
    let host = FakeHost::new();
    let e = engine(&host, json!({}));
    let mut msgs = turn(0, "the pool size is ten");
    msgs[3]["timestamp"] = json!(1_763_999_000_000u64);
    block_on(e.write_turn(turn_write("s1", None, msgs.clone()))).unwrap();
    host.world().state.clear();
    let fresh = engine(&host, json!({}));
    let again = block_on(fresh.write_turn(turn_write("s1", None, msgs))).unwrap();
    assert!(again.already_stored, "{again:?}");
    assert_eq!(user_texts(&host, OV).len(), 1);
}

/// A turn and, when it says a commit is due, the commit the host then runs.
fn write_and_commit(e: &Engine<FakeHost>, key: &str, i: usize, text: &str) -> bool {
    let out = write(e, key, i, text);
    if out.commit_due {
        let reason = out.trigger.map(|t| t.reason()).unwrap_or_default();
        assert!(block_on(e.run_commit(OV, false, &reason, None)).unwrap().compacted);
    }
    out.commit_due
}

#[test]
fn a_second_machine_continues_the_trigger_window_where_the_first_left_it() {
    let host = FakeHost::new();
    let cfg = json!({"compactTurnThreshold": 6, "compactTokensAddedThreshold": 1_000_000});
    let e = engine(&host, cfg.clone());
    let due: Vec<bool> = (0..10).map(|i| write_and_commit(&e, &format!("k{i}"), i, &format!("turn {i}: the boiler pressure"))).collect();
    assert_eq!(due.iter().position(|d| *d), Some(5), "the sixth turn fired the turn trigger");
    assert_eq!(host.world().sessions[OV].archives.len(), 1);
    let first = block_on(e.status(OV)).unwrap();
    let turns_of = |s: &openviking_context_engine::engine::SessionStatus| s.triggers.iter().find(|t| t.kind == "turns").unwrap().current;
    assert_eq!(turns_of(&first), 4);
    host.world().now += 7 * 60_000;

    // a second machine: same OpenViking, an empty state dir
    host.world().state.clear();
    host.world().outbox.clear();
    let fresh = engine(&host, cfg);
    let second = block_on(fresh.status(OV)).unwrap();
    assert_eq!(turns_of(&second), 4, "four live turns since the commit, read from OpenViking");
    let interval = |s: &openviking_context_engine::engine::SessionStatus| s.triggers.iter().find(|t| t.kind == "interval").unwrap().current;
    assert_eq!(interval(&second), interval(&block_on(e.status(OV)).unwrap()), "the last commit's time came from its checkpoint");
    assert_eq!(interval(&second), 7);
    // two more turns reach the threshold of 6, as they would have on the first machine
    assert!(!write_and_commit(&fresh, "k10", 10, "turn 10: the boiler pressure"));
    assert!(write_and_commit(&fresh, "k11", 11, "turn 11: the boiler pressure"), "the window went on: the sixth turn since the commit fires");
    let archived: Vec<String> = host.world().sessions[OV].archives[1].iter().filter(|m| m["role"] == "user").map(|m| m["turn_id"].as_str().unwrap().to_string()).collect();
    assert_eq!(archived, (6..12).map(|i| format!("k{i}")).collect::<Vec<_>>());
}

#[test]
fn two_writers_on_one_state_dir_count_every_turn_toward_the_triggers() {
    let host = FakeHost::new();
    let other = host.second_process();
    let cfg = json!({"compactTurnThreshold": 6, "compactTokensAddedThreshold": 1_000_000});
    let (a, b) = (engine(&host, cfg.clone()), engine(&other, cfg));
    let turns_of = |e: &Engine<FakeHost>| block_on(e.status(OV)).unwrap().triggers.iter().find(|t| t.kind == "turns").unwrap().current;
    // each writer's own record sees only its own turns; the window is the ledger's
    let due: Vec<bool> = (0..5).map(|i| write_and_commit(if i % 2 == 0 { &a } else { &b }, &format!("k{i}"), i, &format!("turn {i} of two writers"))).collect();
    assert_eq!(due, [false; 5]);
    assert_eq!((turns_of(&a), turns_of(&b)), (5, 5), "each counts both writers' turns (5, not 3 and 2)");
    assert!(write_and_commit(&b, "k5", 5, "turn 5 of two writers"), "the sixth turn of the two fires the turn trigger");
    let archived: Vec<String> = host.world().sessions[OV].archives[0].iter().filter(|m| m["role"] == "user").map(|m| m["turn_id"].as_str().unwrap().to_string()).collect();
    assert_eq!(archived, (0..6).map(|i| format!("k{i}")).collect::<Vec<_>>());
    let now = host.world().now;
    assert!(block_on(b.follow_task(OV, now + 10_000)).unwrap().is_some(), "the commit's task ends");
    host.world().now += 7 * 60_000; // past the spacing between automatic commits
    // the other writer learns of the commit at its next turn: the window starts after it
    assert!(!write_and_commit(&a, "k6", 6, "turn 6 of two writers"));
    assert_eq!((turns_of(&a), turns_of(&b)), (1, 1), "the turn since the commit, for both");
    let fired = (7..12).position(|i| write_and_commit(if i % 2 == 0 { &a } else { &b }, &format!("k{i}"), i, &format!("turn {i} of two writers")));
    assert_eq!(fired, Some(4), "the second window fires at its sixth turn too (turn 11), not at twice the threshold");
    assert_eq!(host.world().sessions[OV].archives.len(), 2);
    let second: Vec<String> = host.world().sessions[OV].archives[1].iter().filter(|m| m["role"] == "user").map(|m| m["turn_id"].as_str().unwrap().to_string()).collect();
    assert_eq!(second, (6..12).map(|i| format!("k{i}")).collect::<Vec<_>>());
}

/// Runs `f` on the second machine: its own state dir (swapped in for the call), the same
/// OpenViking as the first.
fn on_machine_b<R>(host: &FakeHost, b: &mut (std::collections::HashMap<String, Value>, std::collections::HashMap<String, Vec<Value>>), f: impl FnOnce() -> R) -> R {
    let swap = |host: &FakeHost, b: &mut (std::collections::HashMap<String, Value>, std::collections::HashMap<String, Vec<Value>>)| {
        let mut w = host.world();
        std::mem::swap(&mut w.state, &mut b.0);
        std::mem::swap(&mut w.outbox, &mut b.1);
    };
    swap(host, b);
    let r = f();
    swap(host, b);
    r
}

#[test]
fn two_machines_writing_one_session_at_once_answer_status_and_history_search_the_same() {
    let host = FakeHost::new();
    let cfg = json!({"compactTurnThreshold": 1000, "compactTokensAddedThreshold": 1_000_000});
    let mut b_dir = Default::default();
    let a = engine(&host, cfg.clone());
    let b = on_machine_b(&host, &mut b_dir, || engine(&host, cfg.clone()));
    for i in 0..6 {
        write(&a, &format!("a{i}"), i, &format!("machine A turn {i}: the kiln runs at {} degrees", 900 + i));
        on_machine_b(&host, &mut b_dir, || write(&b, &format!("b{i}"), i, &format!("machine B turn {i}: the glaze is cobalt number {i}")));
    }
    assert_eq!(user_texts(&host, OV).len(), 12, "OpenViking holds both machines' turns");
    let stored = |s: &openviking_context_engine::engine::SessionStatus| (s.turns_stored, s.triggers.iter().find(|t| t.kind == "turns").unwrap().current);
    let sa = block_on(a.status(OV)).unwrap();
    let sb = on_machine_b(&host, &mut b_dir, || block_on(b.status(OV)).unwrap());
    assert_eq!((stored(&sa), stored(&sb)), ((12, 12), (12, 12)), "each machine counts what OpenViking holds");
    // each finds what only the other wrote
    let found_on_a = run(&a, "memory_search_history", json!({"query": "glaze cobalt", "limit": 50}));
    let found_on_b = on_machine_b(&host, &mut b_dir, || run(&b, "memory_search_history", json!({"query": "kiln degrees", "limit": 50})));
    let ids = |v: &Value, prefix: &str| hits(v).into_iter().map(|h| h.0).filter(|id| id.starts_with(prefix)).collect::<Vec<_>>();
    assert_eq!(ids(&found_on_a, "b"), (0..6).map(|i| format!("b{i}")).collect::<Vec<_>>(), "A finds every turn B wrote");
    assert_eq!(ids(&found_on_b, "a"), (0..6).map(|i| format!("a{i}")).collect::<Vec<_>>(), "B finds every turn A wrote");

    // machine B commits; A learns the commit, its checkpoint and the window after it
    let done = on_machine_b(&host, &mut b_dir, || block_on(b.compact("s1", None)).unwrap());
    assert!(done.compacted);
    write(&a, "a6", 6, "machine A turn 6: the kiln cooled overnight");
    let sa = block_on(a.status(OV)).unwrap();
    let sb = on_machine_b(&host, &mut b_dir, || block_on(b.status(OV)).unwrap());
    assert_eq!((stored(&sa), stored(&sb)), ((13, 1), (13, 1)), "the turn since B's commit, on both");
    assert_eq!((sa.checkpoints, sa.last_commit_reason.clone(), sa.last_commit_at_ms), (sb.checkpoints, sb.last_commit_reason.clone(), sb.last_commit_at_ms));
    assert_eq!(sa.checkpoints, 1);
    let archived_on_a = hits(&run(&a, "memory_search_history", json!({"query": "glaze cobalt", "limit": 50})));
    assert!(archived_on_a.iter().filter(|h| h.0.starts_with('b')).all(|h| h.1), "A sees B's turns as archived now: {archived_on_a:?}");
    // a second look learns nothing new and asks OpenViking once
    let calls = host.world().calls.len();
    block_on(a.status(OV)).unwrap();
    let asked: Vec<String> = host.world().calls[calls..].to_vec();
    assert!(!asked.iter().any(|c| c.starts_with("live_messages") || c.starts_with("archive")), "{asked:?}");
}
