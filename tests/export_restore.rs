//! Moving an agent to another OpenViking (`engine::export`, `engine::restore`): the export
//! holds every turn of the agent's sessions (archived and live, with ids, times and whole
//! tool outputs), its checkpoints and its user's and own memories — never another agent's
//! sessions, never a derived file; the restore writes each turn once, in order, archived at
//! the source's boundaries; a rerun writes nothing, a run cut short and run again ends the
//! same as one that was not.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(all(target_arch = "wasm32", feature = "browser-tests"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use openviking_context_engine::engine::{Engine, RestoreReport, RestoreRequest};
use openviking_context_engine::lifecycle::export_file::{end_line, index_export, ExportCounts};
use serde_json::{json, Value};
use support::{block_on, engine, turn, turn_write, user_texts, FakeHost, TOOL_OUTPUT_THRESHOLD_CHARS};

const S1: &str = "main--s1";

/// Agent main's past on one server: session s1 with six turns in two archives and two live
/// (turn 3's tool output large enough to be moved out of its message), another agent's
/// session, and memories of the user and of the agent (with OpenViking's derived files).
fn source() -> FakeHost {
    let host = FakeHost::new();
    host.world().task_polls = 0;
    let e = engine(&host, json!({"compactTurnThreshold": 100}));
    for i in 1..=6 {
        let mut m = turn(i, &format!("question {i} about the pool"));
        if i == 3 {
            m[2]["content"][0]["text"] = json!(format!("big output\n{}", "x".repeat(TOOL_OUTPUT_THRESHOLD_CHARS + 10)));
        }
        block_on(e.write_turn(turn_write("s1", Some(&format!("key-{i}")), m))).unwrap();
        if i == 2 || i == 4 {
            let until = host.world().now + 1000;
            let c = block_on(e.run_commit(S1, true, "test", Some(until))).unwrap();
            assert!(c.compacted);
        }
    }
    let other = engine(&host, json!({"agentId": "other"}));
    block_on(other.write_turn(turn_write("s9", Some("k9"), turn(9, "the other agent's secret plan")))).unwrap();
    let mut w = host.world();
    w.texts.insert("viking://user/alice/memories/preferences/theme.md".into(), "The user prefers a dark theme.".into());
    w.texts.insert("viking://user/alice/memories/preferences/.abstract.md".into(), "derived".into());
    w.texts.insert("viking://agent/main/memories/patterns/deploys.md".into(), "Deploys go out on Tuesdays.".into());
    w.texts.insert("viking://agent/other/memories/x.md".into(), "another agent's memory".into());
    drop(w);
    host
}

/// The whole export file of agent main on `host`.
fn export(host: &FakeHost) -> Vec<String> {
    let e = engine(host, json!({}));
    let start = block_on(e.export_start()).unwrap();
    let mut lines = vec![start.header];
    let mut counts = ExportCounts::default();
    for s in &start.sessions {
        let part = block_on(e.export_session(s)).unwrap();
        assert!(part.problems.is_empty(), "{:?}", part.problems);
        counts.sessions += 1;
        counts.turns += part.turns;
        lines.extend(part.lines);
    }
    let mem = block_on(e.export_memories()).unwrap();
    counts.memories = mem.memories;
    lines.extend(mem.lines);
    lines.push(end_line(counts));
    lines
}

fn restore(e: &Engine<FakeHost>, lines: &[String], apply: bool, limit: Option<u64>) -> (Vec<RestoreReport>, usize) {
    let ix = index_export(lines).unwrap();
    let mut reports = Vec::new();
    for s in &ix.sessions {
        let part: Vec<&String> = s.lines.iter().map(|i| &lines[*i]).collect();
        let req: RestoreRequest = openviking_context_engine::decode::request_from_value(json!({"lines": part, "apply": apply, "limit": limit, "commitWaitMs": 0})).unwrap();
        reports.push(block_on(e.restore_session(req)).unwrap());
    }
    let mem: Vec<&String> = ix.memory_lines.iter().map(|i| &lines[*i]).collect();
    let req: RestoreRequest = openviking_context_engine::decode::request_from_value(json!({"lines": mem, "apply": apply})).unwrap();
    let m = block_on(e.restore_memories(req)).unwrap();
    (reports, m.written)
}

/// Per archive (then live) the turn ids of a session, as OpenViking holds them.
fn shape(host: &FakeHost, ov: &str) -> Vec<Vec<String>> {
    let w = host.world();
    let s = &w.sessions[ov];
    let ids = |ms: &[Value]| {
        let mut v: Vec<String> = ms.iter().filter_map(|m| m["turn_id"].as_str().map(str::to_string)).collect();
        v.dedup();
        v
    };
    s.archives.iter().map(|a| ids(a)).chain(std::iter::once(ids(&s.live))).collect()
}

fn target() -> FakeHost {
    let t = FakeHost::new();
    t.world().task_polls = 0;
    t
}

#[test]
fn the_export_holds_the_agents_past_whole_and_nothing_else() {
    let host = source();
    let lines = export(&host);
    let ix = index_export(&lines).unwrap();
    assert!(ix.complete && ix.problems.is_empty(), "{:?}", ix.problems);
    assert_eq!(ix.sessions.iter().map(|s| (s.session_id.as_str(), s.ov_session_id.as_str(), s.archives, s.turns)).collect::<Vec<_>>(), [("s1", S1, 2, 6)]);
    let text = lines.join("\n");
    assert!(!text.contains("secret plan") && !text.contains("another agent's memory"), "never another agent's");
    assert!(!text.contains("derived"), "OpenViking's derived files are not exported");
    assert!(text.contains(&"x".repeat(TOOL_OUTPUT_THRESHOLD_CHARS + 10)), "the moved-out tool output is exported whole");
    assert!(!text.contains("tool_output_ref"));
    assert_eq!(ix.memory_lines.len(), 2);
    assert_eq!(lines.iter().filter(|l| l.contains("\"kind\":\"checkpoint\"")).count(), 2, "both checkpoints");
}

#[test]
fn a_restore_into_another_server_stores_each_turn_once_in_the_same_archives_and_a_rerun_writes_nothing() {
    let src = source();
    let lines = export(&src);
    let dst = target();
    let e = engine(&dst, json!({"compactTurnThreshold": 100}));
    let (dry, _) = restore(&e, &lines, false, None);
    assert_eq!((dry[0].turns, dry[0].remaining, dry[0].written), (6, 6, 0));
    assert!(dst.world().sessions.is_empty(), "a dry run writes nothing");

    let (done, memories) = restore(&e, &lines, true, None);
    assert_eq!((done[0].written, done[0].remaining, done[0].commits, done[0].archived, done[0].queued), (6, 0, 2, 2, 0), "{:?}", done[0].stopped);
    assert_eq!(memories, 2);
    assert_eq!(shape(&dst, S1), shape(&src, S1), "the same turns in the same archives");
    assert_eq!(user_texts(&dst, S1), user_texts(&src, S1));
    // the stored messages are the source's: times and the large output (moved out again)
    let (a, b) = (src.all_messages(S1), dst.all_messages(S1));
    assert_eq!(a.iter().map(|m| m["created_at"].clone()).collect::<Vec<_>>(), b.iter().map(|m| m["created_at"].clone()).collect::<Vec<_>>());
    assert_eq!(a.iter().map(|m| m["parts"].clone()).collect::<Vec<_>>(), b.iter().map(|m| m["parts"].clone()).collect::<Vec<_>>());
    assert_eq!(dst.world().texts["viking://user/alice/memories/preferences/theme.md"], "The user prefers a dark theme.");
    assert_eq!(dst.world().texts["viking://agent/main/memories/patterns/deploys.md"], "Deploys go out on Tuesdays.");
    // a checkpoint for each archive, written by the restore's commits
    let ckpts = dst.world().files.keys().filter(|k| k.contains("/openviking-context-engine/main/main--s1/checkpoint-")).count();
    assert_eq!(ckpts, 2);

    let (again, memories) = restore(&e, &lines, true, None);
    assert_eq!((again[0].already_stored, again[0].written, again[0].commits), (6, 0, 0));
    assert_eq!(memories, 0);
    // a fresh process with an empty state dir on the same server: still nothing
    let fresh = FakeHost(dst.0.clone(), 7);
    fresh.world().state.clear();
    fresh.world().outbox.clear();
    let (third, _) = restore(&engine(&fresh, json!({})), &lines, true, None);
    assert_eq!((third[0].already_stored, third[0].written, third[0].commits), (6, 0, 0));
    assert_eq!(shape(&dst, S1), shape(&src, S1));
}

#[test]
fn a_restore_cut_short_and_run_again_ends_as_one_that_was_not() {
    let src = source();
    let lines = export(&src);
    for cut in 1..=5 {
        let dst = target();
        let (first, _) = restore(&engine(&dst, json!({})), &lines, true, Some(cut));
        assert_eq!(first[0].written, cut as usize);
        // the next run is another process (the first was killed): its own engine
        let (rest, _) = restore(&engine(&dst, json!({})), &lines, true, None);
        assert_eq!(rest[0].written, 6 - cut as usize, "cut after {cut}");
        assert_eq!(shape(&dst, S1), shape(&src, S1), "cut after {cut}");
    }
}

#[test]
fn a_memory_the_target_has_is_kept_and_an_outage_stops_the_restore_to_go_on_later() {
    let src = source();
    let lines = export(&src);
    let dst = target();
    dst.world().texts.insert("viking://user/alice/memories/preferences/theme.md".into(), "The user now prefers a light theme.".into());
    let e = engine(&dst, json!({}));
    dst.world().fail_op.insert("add_messages".into(), std::collections::VecDeque::from(vec![openviking_context_engine::host::HostErrorKind::Unreachable; 50]));
    let (down, memories) = restore(&e, &lines, true, None);
    assert!(down[0].stopped.as_deref().is_some_and(|s| s.contains("run the import again")), "{:?}", down[0]);
    assert_eq!(memories, 1, "the memory it lacked");
    assert_eq!(dst.world().texts["viking://user/alice/memories/preferences/theme.md"], "The user now prefers a light theme.", "never overwritten");
    dst.world().fail_op.clear();
    dst.world().now += 60_000; // run again a minute later
    let (back, _) = restore(&engine(&dst, json!({})), &lines, true, None);
    assert!(back[0].stopped.is_none(), "{:?}", back[0]);
    assert_eq!(shape(&dst, S1), shape(&src, S1));
}
