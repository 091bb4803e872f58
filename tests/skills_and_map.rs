//! Skill memory and the map of folders over the in-memory OpenViking (`support::FakeHost`):
//! the skills found for a turn listed in the recall pair (own scopes only, within the recall
//! budget), `memory_expand` reading a skill, the map in the system prompt addition (this
//! agent's folders only, no bookkeeping), its cache and its refresh after a memory write, and
//! the tokens each part costs in the split and the trace.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;
#[cfg(all(target_arch = "wasm32", feature = "browser-tests"))]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

mod support;

use openviking_context_engine::engine::{AssembleCall, Assembled, Engine};
use openviking_context_engine::error::ErrorCode;
use openviking_context_engine::context::map::{MAP_HEADER, MAP_STALE_MS};
use openviking_context_engine::recall::skills::SKILLS_HEADER;
use serde_json::{json, Value};
use openviking_context_engine::engine::{MAP_COMMIT_REFRESH_MS, MAP_COMMIT_WINDOW_MS};
use support::{block_on, engine, plant_experience, turn, turn_write, FakeHost};

const MEM: &str = "viking://user/alice/memories";

fn skills_answer() -> Value {
    json!({"skills": [
        {"name": "release-notes", "uri": "viking://user/alice/skills/release-notes/.abstract.md", "root_uri": "viking://user/alice/skills/release-notes", "description": "Draft release notes from the git log between two tags", "score": 0.8},
        {"name": "deploy-staging", "uri": "viking://agent/skills/deploy-staging/SKILL.md", "root_uri": "viking://agent/skills/deploy-staging", "description": "Deploy to staging with kubectl", "score": 0.6},
        {"name": "bobs", "root_uri": "viking://user/bob/skills/bobs", "description": "Bob's own skill", "score": 0.99},
        {"name": "other-agents", "root_uri": "viking://agent/other/skills/x", "description": "Another agent's", "score": 0.98},
    ]})
}

fn host() -> FakeHost {
    let host = FakeHost::new();
    {
        let mut w = host.world();
        w.skills = Some(skills_answer());
        w.memories.insert(MEM.into(), vec![json!({"uri": format!("{MEM}/events/v23.md"), "level": 2, "score": 0.9, "abstract": "The release notes of 2.3 listed the billing fixes"})]);
        for (uri, text) in [
            (format!("{MEM}/events/v23.md"), "The release notes of 2.3 listed the billing fixes"),
            (format!("{MEM}/preferences/tea.md"), "Green tea"),
            (format!("{MEM}/preferences/editor.md"), "Dark theme"),
            (format!("{MEM}/profile.md"), "Alice, release manager"),
            ("viking://user/alice/resources/docs/guide.md".to_string(), "Billing guide"),
            ("viking://user/alice/resources/openviking-context-engine/other/s1/cp.json".to_string(), "{}"),
            ("viking://agent/main/memories/cases/deploy.md".to_string(), "Deploy case"),
            ("viking://agent/other/memories/secret-folder/x.md".to_string(), "Another agent's"),
            ("viking://user/alice/skills/release-notes/SKILL.md".to_string(), "---\nname: release-notes\n---\nRun git log between the tags."),
            ("viking://user/bob/skills/bobs/SKILL.md".to_string(), "Bob's text"),
        ] {
            w.texts.insert(uri, text.to_string());
        }
    }
    host
}

fn assemble(e: &Engine<FakeHost>, session: &str, prompt: &str, budget: u64) -> Assembled {
    block_on(e.assemble(AssembleCall {
        session_id: session.into(),
        prompt: Some(prompt.into()),
        messages: vec![json!({"role": "user", "content": prompt, "timestamp": 1})],
        token_budget: Some(budget),
        explain: true,
    }))
    .unwrap()
}

fn pair_text(out: &Assembled) -> String {
    out.result
        .composition
        .messages
        .iter()
        .find(|m| m["role"] == "toolResult" && m["toolName"] == "memory_recall_auto")
        .and_then(|m| m["content"][0]["text"].as_str())
        .unwrap_or_default()
        .to_string()
}

#[test]
fn the_skills_found_for_a_turn_are_listed_after_the_memories_own_scopes_only() {
    let h = host();
    let e = engine(&h, json!({}));
    let out = assemble(&e, "s1", "Write the release notes for 2.4, then deploy to staging", 20_000);
    let text = pair_text(&out);
    let lines: Vec<&str> = text.lines().collect();
    // the memories (the profile, then the event), then the section
    let at = lines.iter().position(|l| *l == SKILLS_HEADER).expect(&text);
    assert!(lines[..at].contains(&"- The release notes of 2.3 listed the billing fixes"), "{text}");
    assert_eq!(lines[at + 1], "- release-notes — Draft release notes from the git log between two tags (viking://user/alice/skills/release-notes)");
    assert_eq!(lines[at + 2], "- deploy-staging — Deploy to staging with kubectl (viking://agent/skills/deploy-staging)");
    assert_eq!(lines.len(), at + 3, "bob's and another agent's skills are never listed: {text}");
    let finds = h.world().skill_finds.clone();
    assert!(finds.len() == 1 && finds[0].0.contains("release notes for 2.4"), "{finds:?}");
    let combined = h.world().combined_finds.clone();
    assert!(combined.len() == 1 && combined[0].contains(&"viking://agent/skills".to_string()), "the skills came in the memories' one find: {combined:?}");
    // the cost is shown apart, and the parts add up
    let split = &out.result.split;
    assert!(split.skills > 0 && split.recall > 0);
    assert_eq!(out.result.skills.iter().map(|s| s.tokens as u64).sum::<u64>(), split.skills);
    assert_eq!(split.summary + split.raw + split.recall + split.recall_opening + split.skills + split.current + split.map, out.result.composition.estimated_tokens);
    // the pair's call and result are the outcome's tokens (within recallTokenBudget); the
    // message opening the pair is counted apart
    assert_eq!(split.recall + split.skills, out.result.recall.as_ref().unwrap().tokens as u64);
    assert!(split.recall_opening > 0);
    // a second assemble of the same turn reuses the skill search
    assemble(&e, "s1", "Write the release notes for 2.4, then deploy to staging", 20_000);
    assert_eq!(h.world().skill_finds.len(), 1);
    // a skill that shares no word with the turn is not listed (OpenViking ranks them all)
    let only = pair_text(&assemble(&e, "s3", "Write the release notes for 2.4", 20_000));
    assert!(only.contains("- release-notes — ") && !only.contains("deploy-staging"), "{only}");
}

#[test]
fn memories_then_experiences_then_skills_share_one_pair_and_one_budget() {
    let h = host();
    plant_experience(&h, "deploy_staging_release", "## Situation\n- The user asks to deploy the release to staging\n## Approach\n- Call exec then web_fetch", &["main--s1"]);
    let e = engine(&h, json!({}));
    let prompt = "Please deploy the release notes build to staging";
    let out = assemble(&e, "s2", prompt, 20_000);
    let text = pair_text(&out);
    let lines: Vec<&str> = text.lines().collect();
    let exp = lines.iter().position(|l| l.starts_with("- [experience] deploy_staging_release: ")).expect(&text);
    let head = lines.iter().position(|l| *l == SKILLS_HEADER).expect(&text);
    assert!(lines[..exp].contains(&"- The release notes of 2.3 listed the billing fixes"), "the memories first: {text}");
    assert!(exp < head && lines[head + 1..].iter().any(|l| l.starts_with("- deploy-staging — ")), "then the experience, then the skills: {text}");
    let r = out.result.recall.as_ref().unwrap();
    assert!(r.experience_tokens > 0 && r.tokens <= r.budget, "one budget for all three: {} of {}", r.tokens, r.budget);
    assert_eq!(out.result.skills.iter().map(|s| s.tokens as u64).sum::<u64>(), out.result.split.skills);
    // a budget that holds the memories and the experience but not a skill line keeps the
    // experience and lists no skill (the parts before never give way to the ones after)
    let tight = engine(&h, json!({"recallTokenBudget": r.tokens - out.result.split.skills as usize + 5}));
    let t2 = pair_text(&assemble(&tight, "s4", prompt, 20_000));
    assert!(t2.contains("- [experience] deploy_staging_release: ") && !t2.contains(SKILLS_HEADER), "{t2}");
}

#[test]
fn skills_off_or_the_search_failing_lists_none_and_the_memories_still_come() {
    let h = host();
    let e = engine(&h, json!({"skillRecall": false}));
    let out = assemble(&e, "s1", "Write the release notes for 2.4", 20_000);
    assert!(!pair_text(&out).contains(SKILLS_HEADER));
    assert!(h.world().skill_finds.is_empty());
    let h = host();
    h.fail("find_skills", openviking_context_engine::host::HostErrorKind::ServerError);
    let e = engine(&h, json!({}));
    // a window sends the memories as two finds, so the skills have their own find, which fails
    let out = assemble(&e, "s2", "Write the release notes for 2.4 like the ones from last week", 20_000);
    assert!(h.world().combined_finds.is_empty());
    assert!(pair_text(&out).contains("- The release notes of 2.3"));
    assert!(!pair_text(&out).contains(SKILLS_HEADER));
    assert!(h.world().warnings.iter().any(|w| w.contains("skill search failed")));
}

#[test]
fn memory_expand_reads_an_own_skill_and_refuses_anyone_elses() {
    let h = host();
    let e = engine(&h, json!({}));
    let out = block_on(e.run_tool("memory_expand", &json!({"summaryOrMemoryUri": "viking://user/alice/skills/release-notes"}))).unwrap();
    assert_eq!(out["uri"], "viking://user/alice/skills/release-notes/SKILL.md");
    assert!(out["text"].as_str().unwrap().contains("Run git log between the tags."));
    for bad in ["viking://user/bob/skills/bobs", "viking://agent/other/skills/x", "viking://user/alice/skills/../../bob/skills/bobs", "viking://user/alice/skills/a%2F..%2Fb"] {
        let err = block_on(e.run_tool("memory_expand", &json!({"summaryOrMemoryUri": bad}))).expect_err(bad);
        assert_eq!((err.code, err.field.as_deref()), (ErrorCode::InvalidInput, Some("summaryOrMemoryUri")), "{bad}");
    }
    assert!(!h.world().reads.iter().any(|r| r.contains("bob")), "nothing of bob's was read");
}

#[test]
fn the_map_lists_this_agents_folders_in_the_system_prompt_and_never_another_agents() {
    let h = host();
    let e = engine(&h, json!({}));
    let out = assemble(&e, "s1", "What do you know about billing?", 20_000);
    let addition = out.result.composition.system_prompt_addition.clone().unwrap();
    let map = out.result.map.clone().expect("a map");
    assert!(addition.contains(&map.text));
    assert!(map.text.starts_with(MAP_HEADER));
    assert!(map.text.contains("- your memories (viking://user/alice/memories): preferences/ (2), events/ (1), profile.md"), "{}", map.text);
    assert!(map.text.contains("- your resources (viking://user/alice/resources): docs/ (1)"), "{}", map.text);
    assert!(map.text.contains("- this agent's memories (viking://agent/main/memories): cases/ (1)"), "{}", map.text);
    for never in ["secret-folder", "other", "openviking-context-engine"] {
        assert!(!map.text.contains(never), "{never} in {}", map.text);
    }
    assert!(!h.world().trees.iter().any(|t| t == "viking://agent" || t.contains("/other/")), "{:?}", h.world().trees);
    // its tokens are counted against the budget
    assert_eq!(out.result.split.map, map.tokens as u64);
    assert!(out.result.composition.estimated_tokens >= map.tokens as u64);
}

#[test]
fn the_map_is_kept_refreshed_after_a_memory_write_and_when_stale() {
    let h = host();
    let e = engine(&h, json!({}));
    assemble(&e, "s1", "What do you know about billing?", 20_000);
    let trees = h.world().trees.len();
    assert_eq!(trees, 3);
    // kept: the next turns list nothing (a second process on the same state dir neither)
    assemble(&e, "s1", "And about tea?", 20_000);
    let e2 = engine(&h.second_process(), json!({}));
    assemble(&e2, "s2", "And about tea?", 20_000);
    assert_eq!(h.world().trees.len(), trees);
    // a memory written: listed again at the next turn, with the new folder
    block_on(e.run_tool("memory_store", &json!({"text": "Uses the staging cluster named blue", "category": "entities"}))).unwrap();
    let out = assemble(&e, "s1", "Which cluster?", 20_000);
    assert_eq!(h.world().trees.len(), trees + 3);
    assert!(out.result.map.unwrap().text.contains("entities/ (1)"));
    // stale after MAP_STALE_MS
    h.world().now += MAP_STALE_MS + 1;
    assemble(&e, "s1", "Which cluster again?", 20_000);
    assert_eq!(h.world().trees.len(), trees + 6);
    // OpenViking down: the kept map is used
    h.world().now += MAP_STALE_MS + 1;
    h.fail("tree", openviking_context_engine::host::HostErrorKind::Unreachable);
    h.fail("tree", openviking_context_engine::host::HostErrorKind::Unreachable);
    h.fail("tree", openviking_context_engine::host::HostErrorKind::Unreachable);
    let out = assemble(&e, "s1", "Which cluster once more?", 20_000);
    assert!(out.result.map.is_some_and(|m| m.text.contains("entities/ (1)")));
}

#[test]
fn the_map_is_left_out_when_off_or_too_big_for_a_small_budget() {
    let h = host();
    let e = engine(&h, json!({"memoryMap": false}));
    let out = assemble(&e, "s1", "What do you know about billing?", 20_000);
    assert!(out.result.map.is_none() && h.world().trees.is_empty());
    assert!(!out.result.composition.system_prompt_addition.unwrap_or_default().contains(MAP_HEADER));
    let e = engine(&host(), json!({}));
    let out = assemble(&e, "s1", "What do you know about billing?", 400);
    assert!(out.result.map.is_none(), "a map above 1/8 of a 400-token budget is left out");
    assert_eq!(out.result.split.map, 0);
}

#[test]
fn a_commit_in_any_session_refreshes_the_map_while_its_memories_come_in() {
    let h = host();
    let e = engine(&h, json!({}));
    assemble(&e, "s1", "What do you know about billing?", 20_000);
    let n = || h.world().trees.len();
    let built = n();
    block_on(e.write_turn(turn_write("a", Some("k1"), turn(0, "We decided on Postgres for billing")))).unwrap();
    assert!(block_on(e.run_commit("main--a", true, "test", None)).unwrap().compacted);
    // the commit's task is not followed (no turn of session a comes): another session's turn
    // lists the folders again, then at most every MAP_COMMIT_REFRESH_MS within the window
    assemble(&e, "s2", "And about tea?", 20_000);
    assert_eq!(n(), built + 3);
    h.world().now += 10_000;
    assemble(&e, "s2", "And about coffee?", 20_000);
    assert_eq!(n(), built + 3);
    h.world().now += MAP_COMMIT_REFRESH_MS;
    assemble(&e, "s2", "And about milk?", 20_000);
    assert_eq!(n(), built + 6);
    // after the window: the ordinary cache again (the map is younger than MAP_STALE_MS)
    h.world().now += MAP_COMMIT_WINDOW_MS;
    assemble(&e, "s2", "And about sugar?", 20_000);
    assert_eq!(n(), built + 6, "kept once the window is over");
    h.world().now += MAP_STALE_MS;
    assemble(&e, "s2", "And about salt?", 20_000);
    assert_eq!(n(), built + 9);
}

/// The tuning page's pure `assemble` with the skills answer and the roots' `fs/tree` answers
/// the engine read composes exactly what the engine composed: the same skills (own scopes
/// only, scored), the same map (this agent's roots only), the same split and messages.
#[test]
fn the_pure_assemble_with_skills_and_trees_composes_what_the_engine_composes() {
    use openviking_context_engine::context::assemble::assemble_turn;
    use openviking_context_engine::host::{Clock, OpenViking};
    let h = host();
    h.world().memories.clear(); // the pure request below gets no memory search
    h.world().texts.remove(&format!("{MEM}/profile.md"));
    let e = engine(&h, json!({"memoryMapTokenBudget": 300}));
    let prompt = "Write the release notes for 2.4, then deploy to staging";
    let out = assemble(&e, "s1", prompt, 20_000);
    assert!(!out.result.skills.is_empty() && out.result.map.is_some(), "the engine listed both");
    let mut trees = serde_json::Map::new();
    for uri in ["viking://user/alice/memories", "viking://user/alice/resources", "viking://agent/main/memories", "viking://agent/other/memories"] {
        trees.insert(uri.into(), block_on(h.tree(uri, 6, 1000)).unwrap().unwrap_or(Value::Null));
    }
    let skills = skills_answer()["skills"].clone();
    let config = openviking_context_engine::config::parse_config(&json!({"agentId": "main", "compactTurnThreshold": 3, "compactTokensAddedThreshold": 100000, "memoryMapTokenBudget": 300}), &openviking_context_engine::config::Env::new()).unwrap().config;
    let request = json!({
        "prompt": prompt,
        "messages": [{"role": "user", "content": prompt, "timestamp": 1}],
        "nowMs": h.now_ms(),
        "tokenBudget": 20_000,
        "userId": "alice",
        "skills": skills,
        "map": trees,
    });
    let pure = assemble_turn(&config, request.clone()).unwrap();
    assert_eq!(pure.skills, out.result.skills);
    assert_eq!(pure.map, out.result.map);
    assert!(!pure.map.as_ref().unwrap().text.contains("other"), "another agent's tree handed in is not read");
    assert_eq!(pure.split, out.result.split);
    assert_eq!(pure.composition.messages, out.result.composition.messages);
    // the engine puts its guidance line before the same addition
    let pure_addition = pure.composition.system_prompt_addition.clone().unwrap();
    assert!(out.result.composition.system_prompt_addition.as_deref().unwrap().ends_with(&format!("\n{pure_addition}")), "{pure_addition}");
    assert_eq!(pure.composition.estimated_tokens, out.result.composition.estimated_tokens);
    // a smaller map budget lists fewer entries; skillLimit 1 lists one skill
    let small = openviking_context_engine::config::parse_config(&json!({"agentId": "main", "memoryMapTokenBudget": 60, "skillLimit": 1}), &openviking_context_engine::config::Env::new()).unwrap().config;
    let cut = assemble_turn(&small, request.clone()).unwrap();
    assert_eq!(cut.skills.len(), 1);
    assert!(cut.map.as_ref().unwrap().tokens <= 60 && cut.split.map < pure.split.map, "{:?}", cut.map);
    // bad input names the field
    let mut bad = request.clone();
    bad["skills"] = json!([{"name": "x"}]);
    assert!(assemble_turn(&config, bad).unwrap_err().to_string().contains("skills[0].uri"));
    let mut bad = request;
    bad["map"] = json!({"viking://user/alice/memories": [{"isDir": true}]});
    assert!(assemble_turn(&config, bad).unwrap_err().to_string().contains("map.viking://user/alice/memories[0].uri"));
}

#[test]
fn an_outage_is_one_line_per_turn_not_one_per_search_that_failed() {
    let h = host();
    let e = engine(&h, json!({}));
    h.world().down = Some(openviking_context_engine::host::HostErrorKind::Unreachable);
    // a window: the memories and the skills go as separate finds, all of them failing
    assemble(&e, "s3", "Write the release notes for 2.4 like the ones from last week", 20_000);
    let w = h.world().warnings.clone();
    assert!(h.world().calls.iter().any(|c| c == "find_skills"), "the skills' own find was tried");
    assert_eq!(w.iter().filter(|l| l.contains("recall skipped")).count(), 1, "{w:?}");
    assert!(!w.iter().any(|l| l.contains("skill search failed")), "the same outage, said once: {w:?}");
}
