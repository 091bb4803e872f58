//! Tool memory, storage part: every tool call and result of a turn reaches
//! OpenViking as a `tool` part with its status, `duration_ms` from the host's message times,
//! and `skill_uri` when the call belongs to a skill; the envelope's `used_skills` is filled.
//! Recall part: the experiences OpenViking's agent evolution extracts from those trajectories
//! reach a turn that uses the same tools or asks for the same task — this agent's only.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(all(target_arch = "wasm32", feature = "browser-tests"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use openviking_context_engine::engine::{AssembleCall, Engine};
use openviking_context_engine::recall::experience::ExperienceCut;
use support::{block_on, engine, plant_experience, FakeHost};
use openviking_context_engine::lifecycle::turn::{build_envelope, skill_of_call, to_openviking_messages, Status, TurnMeta, USED_SKILL_TEXT_MAX};
use serde_json::{json, Value};

fn meta() -> TurnMeta {
    TurnMeta { turn_id: "t-9".into(), session_id: "s".into(), sequence: 9, now_ms: 1_000_000, used_context_uris: vec![], compact_checkpoint_id: None }
}

/// A turn in OpenClaw 2026.9.6's shapes: the model reads a skill's SKILL.md, runs a command
/// the skill describes (which fails once and is retried), then answers.
fn skill_turn() -> Vec<Value> {
    vec![
        json!({"role": "user", "content": "Draft the release notes for 2.4", "timestamp": 1_000}),
        json!({"role": "assistant", "timestamp": 2_000, "stopReason": "toolUse", "content": [
            {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "/home/u/.openclaw/skills/release_notes/SKILL.md"}}]}),
        json!({"role": "toolResult", "toolCallId": "c1", "toolName": "read", "timestamp": 2_040, "isError": false, "content": [{"type": "text", "text": "# Release notes\nRun git log…"}]}),
        json!({"role": "assistant", "timestamp": 3_000, "stopReason": "toolUse", "content": [
            {"type": "toolCall", "id": "c2", "name": "exec", "arguments": {"command": "git log v2.3..v2.4"}}]}),
        json!({"role": "toolResult", "toolCallId": "c2", "toolName": "exec", "timestamp": 4_250, "isError": true, "content": [{"type": "text", "text": "fatal: bad revision"}]}),
        json!({"role": "assistant", "timestamp": 5_000, "stopReason": "toolUse", "content": [
            {"type": "toolCall", "id": "c3", "name": "exec", "arguments": {"command": "git log v2.3...HEAD"}}]}),
        json!({"role": "toolResult", "toolCallId": "c3", "toolName": "exec", "timestamp": 5_900, "isError": false, "content": [{"type": "text", "text": "a1 fix\nb2 feat"}]}),
        json!({"role": "assistant", "timestamp": 6_000, "stopReason": "stop", "content": [{"type": "text", "text": "Release 2.4: one fix, one feature."}]}),
    ]
}

fn tool_parts(messages: &[Value]) -> Vec<Value> {
    messages.iter().flat_map(|m| m["parts"].as_array().cloned().unwrap_or_default()).filter(|p| p["type"] == "tool").collect()
}

#[test]
fn every_call_is_stored_with_its_status_duration_and_skill() {
    let env = build_envelope(&skill_turn(), meta()).unwrap();
    let tools = tool_parts(&to_openviking_messages(&env));
    assert_eq!(tools.len(), 3);
    let got: Vec<(&str, &str, Option<u64>, Option<&str>)> =
        tools.iter().map(|p| (p["tool_id"].as_str().unwrap(), p["tool_status"].as_str().unwrap(), p["duration_ms"].as_u64(), p["skill_uri"].as_str())).collect();
    let skill = "viking://~/skills/release_notes";
    assert_eq!(got, [("c1", "completed", Some(40), Some(skill)), ("c2", "error", Some(1_250), Some(skill)), ("c3", "completed", Some(900), Some(skill))]);
    assert_eq!(tools[1]["tool_output"], "fatal: bad revision");
    // the envelope's own records agree
    assert_eq!(env.tool_calls.iter().map(|c| c.status).collect::<Vec<_>>(), [Some(Status::Success), Some(Status::Error), Some(Status::Success)]);
    assert_eq!(env.tool_results.iter().map(|r| r.duration_ms).collect::<Vec<_>>(), [Some(40), Some(1_250), Some(900)]);
}

#[test]
fn used_skills_says_what_the_turn_used_and_whether_it_worked() {
    let env = build_envelope(&skill_turn(), meta()).unwrap();
    assert_eq!(env.used_skills.len(), 1);
    let s = &env.used_skills[0];
    assert_eq!(s.uri, "viking://~/skills/release_notes");
    assert_eq!(s.input.as_deref(), Some("Draft the release notes for 2.4"));
    assert_eq!(s.output.as_deref(), Some("Release 2.4: one fix, one feature."));
    assert_eq!(s.success, Some(false), "one of its calls failed");
    let long = "x".repeat(USED_SKILL_TEXT_MAX + 50);
    let mut turn = skill_turn();
    turn[0]["content"] = json!(long);
    turn.truncate(3);
    let env = build_envelope(&turn, meta()).unwrap();
    assert_eq!(env.used_skills[0].input.as_ref().map(|t| t.chars().count()), Some(USED_SKILL_TEXT_MAX));
    assert_eq!((env.used_skills[0].success, env.used_skills[0].output.as_deref()), (Some(true), None));
    // a call still waiting for its result: success unknown
    turn.truncate(2);
    assert_eq!(build_envelope(&turn, meta()).unwrap().used_skills[0].success, None);
}

#[test]
fn a_turn_without_a_skill_or_times_stores_neither() {
    let turn = vec![
        json!({"role": "user", "content": "list files"}),
        json!({"role": "assistant", "content": [{"type": "toolCall", "id": "c1", "name": "exec", "arguments": {"command": "ls"}}]}),
        json!({"role": "toolResult", "toolCallId": "c1", "toolName": "exec", "isError": false, "content": [{"type": "text", "text": "a.txt"}]}),
        json!({"role": "assistant", "timestamp": 9_000, "content": [{"type": "toolCall", "id": "c2", "name": "read", "arguments": {"path": "notes/README.md"}}]}),
        // a result stamped before its call (clock skew between processes) has no duration
        json!({"role": "toolResult", "toolCallId": "c2", "toolName": "read", "timestamp": 8_000, "isError": false, "content": [{"type": "text", "text": "hi"}]}),
    ];
    let env = build_envelope(&turn, meta()).unwrap();
    assert!(env.used_skills.is_empty());
    for p in tool_parts(&to_openviking_messages(&env)) {
        assert!(p.get("duration_ms").is_none() && p.get("skill_uri").is_none(), "{p}");
        assert_eq!(p["tool_status"], "completed");
    }
    // and the envelope written before this release still reads (no new field is required)
    let old = json!({"type": "tool_call", "tool_name": "exec", "arguments": {}, "id": "c"});
    assert!(serde_json::from_value::<openviking_context_engine::lifecycle::turn::Part>(old).is_ok());
}

#[test]
fn which_calls_name_a_skill() {
    assert_eq!(skill_of_call("read", &json!({"path": "skills/github/SKILL.md"})).as_deref(), Some("github"));
    assert_eq!(skill_of_call("read", &json!({"file_path": "C:\\skills\\pdf\\SKILL.md"})).as_deref(), Some("pdf"));
    assert_eq!(skill_of_call("exec", &json!({"command": "x", "commandName": "release", "skillName": "release_notes"})).as_deref(), Some("release_notes"));
    assert_eq!(skill_of_call("read", &json!({"path": "skills/github/README.md"})), None);
    assert_eq!(skill_of_call("write", &json!({"path": "skills/github/SKILL.md"})), None, "writing a skill is not using it");
    assert_eq!(skill_of_call("read", &json!({"path": "SKILL.md"})), None, "no folder, no name");
    assert_eq!(skill_of_call("read", &json!({"path": "skills/../SKILL.md"})), None, "not a plain segment");
    assert_eq!(skill_of_call("read", &json!({"path": "a/my skill/SKILL.md"})), None);
    assert_eq!(skill_of_call("read", &json!({"path": 5})), None);
}

// ---- experiences (recall part) ----

const EXPERIENCES: &str = "viking://user/alice/memories/experiences";
const DEPLOY_TEXT: &str = "## Situation\n- The user asks to deploy billing service staging\n## Approach\n- Call exec then web_fetch in this order\n## Reflect\n- NEVER retry exec unchanged after it fails";

fn deploy_call(messages: Vec<Value>) -> AssembleCall {
    AssembleCall { session_id: "s2".into(), prompt: None, messages, token_budget: Some(20_000), explain: true }
}

fn result_text(out: &openviking_context_engine::engine::Assembled) -> String {
    let m = out.result.composition.messages.iter().find(|m| m["role"] == "toolResult" && m["toolName"] == "memory_recall_auto");
    m.map(|m| m["content"][0]["text"].as_str().unwrap().to_string()).unwrap_or_default()
}

fn assemble_deploy(e: &Engine<FakeHost>) -> openviking_context_engine::engine::Assembled {
    block_on(e.assemble(deploy_call(vec![json!({"role": "user", "content": "Please deploy the billing service to staging", "timestamp": 1})]))).unwrap()
}

#[test]
fn a_request_for_the_same_task_gets_this_agents_experience_after_the_memories() {
    let host = FakeHost::new();
    plant_experience(&host, "deploy_billing_service", DEPLOY_TEXT, &["main--s1"]);
    let e = engine(&host, json!({}));
    let out = assemble_deploy(&e);
    let text = result_text(&out);
    assert!(text.starts_with("- [experience] deploy_billing_service: ## Situation - The user asks to deploy"), "{text}");
    assert!(!text.contains("MEMORY_FIELDS"), "the stored fields are not the model's: {text}");
    let r = out.result.recall.as_ref().unwrap();
    assert_eq!(r.experiences.len(), 1);
    assert!(r.experiences[0].why.iter().any(|w| w.starts_with("same_task: deploy")), "{:?}", r.experiences[0].why);
    assert!(r.experience_tokens > 0 && r.experience_tokens <= r.tokens && r.tokens <= r.budget);
    assert!(out.recall_status.line.ends_with("; 1 experience of this agent's"), "{}", out.recall_status.line);
    // the experiences folder was searched with the turn's query, the lineage read raw
    assert!(host.world().finds.iter().any(|(t, q, _)| t == EXPERIENCES && q.contains("deploy the billing service")));
    assert!(host.world().reads.iter().any(|r| r == "raw:viking://user/alice/memories/trajectories/deploy_billing_service_0.md"));
}

#[test]
fn another_agents_experience_and_a_mixed_one_never_reach_the_model() {
    let host = FakeHost::new();
    plant_experience(&host, "deploy_billing_service", DEPLOY_TEXT, &["ops--s1"]);
    plant_experience(&host, "deploy_billing_api", DEPLOY_TEXT, &["main--s1", "ops--s9"]);
    let e = engine(&host, json!({}));
    let out = assemble_deploy(&e);
    assert!(!result_text(&out).contains("[experience]"), "{}", result_text(&out));
    assert!(out.result.recall.as_ref().map_or(true, |r| r.experiences.is_empty()), "not even traced");
    // the other agent sees its own
    let ops = engine(&host, json!({"agentId": "ops"}));
    let text = result_text(&assemble_deploy(&ops));
    assert!(text.contains("[experience] deploy_billing_service:") && !text.contains("deploy_billing_api"), "{text}");
}

#[test]
fn tools_in_the_turn_search_experiences_and_name_why_and_evolution_off_is_no_error() {
    let host = FakeHost::new();
    plant_experience(&host, "deploy_billing_service", DEPLOY_TEXT, &["main--s1"]);
    plant_experience(&host, "bake_bread", "## Situation\n- bake sourdough\n## Approach\n- Call oven", &["main--s3"]);
    let e = engine(&host, json!({}));
    let loop_messages = vec![
        json!({"role": "user", "content": "Ship it to staging", "timestamp": 1}),
        json!({"role": "assistant", "timestamp": 2, "content": [{"type": "toolCall", "id": "c1", "name": "exec", "arguments": {"command": "make deploy"}}]}),
        json!({"role": "toolResult", "toolCallId": "c1", "toolName": "exec", "timestamp": 3, "isError": true, "content": [{"type": "text", "text": "error: missing kubeconfig"}]}),
    ];
    let out = block_on(e.assemble(deploy_call(loop_messages.clone()))).unwrap();
    let r = out.result.recall.as_ref().unwrap();
    let kept = r.experiences.iter().find(|x| x.name == "deploy_billing_service").unwrap();
    assert_eq!(kept.why, vec!["same_tools: exec".to_string(), "same_task: staging".to_string()]);
    assert_eq!(kept.position, Some(1));
    assert_eq!(r.experiences.iter().find(|x| x.name == "bake_bread").unwrap().reason, Some(ExperienceCut::Unrelated));
    assert!(host.world().finds.iter().any(|(t, q, _)| t == EXPERIENCES && q.ends_with("\nexec")));
    // no folder (agent evolution off), or the find failing: memories as before, no error
    let off = FakeHost::new();
    let e = engine(&off, json!({}));
    let out = block_on(e.assemble(deploy_call(loop_messages))).unwrap();
    assert!(!result_text(&out).contains("[experience]"));
    off.fail("find", openviking_context_engine::host::HostErrorKind::Unreachable);
    assert!(block_on(e.assemble(deploy_call(vec![json!({"role": "user", "content": "Please deploy billing again", "timestamp": 9})]))).is_ok());
}

#[test]
fn a_turn_without_tools_or_a_task_does_not_search_experiences() {
    let host = FakeHost::new();
    plant_experience(&host, "deploy_billing_service", DEPLOY_TEXT, &["main--s1"]);
    let e = engine(&host, json!({}));
    let _ = block_on(e.assemble(deploy_call(vec![json!({"role": "user", "content": "Which editor theme do I prefer?", "timestamp": 1})]))).unwrap();
    assert!(!host.world().finds.iter().any(|(t, _, _)| t == EXPERIENCES));
}
