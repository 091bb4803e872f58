// Tool experience against a REAL OpenViking 0.5.2 with agent evolution
// switched on through its admin API, the loopback stand-in answering the trajectory and
// experience extraction (tests/openviking/standin.py): a turn that deploys with tools is
// committed, OpenViking extracts a case, a trajectory and an experience from it, and the next
// turn asking for the same task gets the experience in its recall pair — this agent's only.
// Its own server: agent evolution is an account switch and adds model calls to every commit.
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHarness } from "../../js-glue/test/openviking/helpers.mjs";
import { makeEngine } from "./engine-host.mjs";

let harness;
let stateRoot;
before(async () => {
  harness = await startHarness();
  stateRoot = mkdtempSync(join(tmpdir(), "ove-exp-"));
});
after(async () => {
  await harness?.stop();
  rmSync(stateRoot, { recursive: true, force: true });
});

const base = (agentId, dir) => ({ baseUrl: harness.env.baseUrl, apiKey: harness.env.userKey, userId: harness.env.userId, agentId, stateDir: join(stateRoot, dir), timeoutMs: 60000, config: { compactTurnThreshold: 50 } });
const TASK = "Please deploy the billing service to staging and check its health.";

/** A tool-using turn: exec fails (no kubeconfig), exec again succeeds, web_fetch checks health. */
function deployTurn(t) {
  const call = (id, name, args, at) => ({ role: "assistant", stopReason: "toolUse", timestamp: t + at, content: [{ type: "toolCall", id, name, arguments: args }] });
  const result = (id, name, text, isError, at) => ({ role: "toolResult", toolCallId: id, toolName: name, isError, timestamp: t + at, content: [{ type: "text", text }] });
  return [
    { role: "user", content: TASK, timestamp: t },
    call("d1", "exec", { command: "make deploy ENV=staging" }, 1000),
    result("d1", "exec", "error: missing kubeconfig", true, 2200),
    call("d2", "exec", { command: "KUBECONFIG=~/.kube/staging make deploy ENV=staging" }, 3000),
    result("d2", "exec", "deployed billing v2", false, 8300),
    call("d3", "web_fetch", { url: "http://staging.internal/health" }, 9000),
    result("d3", "web_fetch", "ok", false, 9080),
    { role: "assistant", stopReason: "stop", timestamp: t + 10000, content: [{ type: "text", text: "Deployed to staging; health is ok. The deploy needed KUBECONFIG set first." }] },
  ];
}

const pairText = (out) => out.messages.find((m) => m.role === "toolResult" && m.toolName === "memory_recall_auto")?.content?.[0]?.text ?? "";

describe("experiences from agent evolution, real OpenViking", { timeout: 300000 }, () => {
  test("agent evolution off: a request for work searches an empty folder and gets no experience, no error", async () => {
    const { engine } = await makeEngine(base("main", "off"));
    const out = await engine.assemble({ sessionId: "off", prompt: TASK, messages: [{ role: "user", content: TASK, timestamp: 1 }], tokenBudget: 20000, explain: true });
    assert.ok(!pairText(out).includes("[experience]"));
    assert.deepEqual(out.recall?.experiences ?? [], []);
  });

  test("switched on, a committed tool trajectory becomes an experience the next similar turn gets; another agent never sees it", async () => {
    const { engine, client } = await makeEngine(base("main", "main"));
    const on = await client.patchAccountConfiguration(harness.env.accountId, { agent_evolution: { enabled: true } });
    assert.equal(on.settings.agent_evolution.enabled, true);

    const t = 1764100000000;
    assert.equal((await engine.writeTurn({ sessionId: "dep1", advancementKey: "dep1-0", messages: deployTurn(t) })).status, "committed");
    const out = await engine.runCommit({ ovSessionId: "main--dep1", reason: "test", waitMs: 120000 });
    assert.ok(out.compacted, JSON.stringify(out));

    // what OpenViking extracted: the experience in the user's space, derived from a trajectory
    // of this agent's session
    const root = `viking://user/${harness.env.userId}/memories/experiences`;
    const uri = `${root}/deploy_billing_service.md`;
    let raw;
    for (let i = 0; i < 60 && !raw; i++) {
      raw = await client.readRaw(uri).catch(() => undefined);
      if (!raw) await new Promise((r) => setTimeout(r, 1000));
    }
    assert.ok(raw, "the experience was written");
    assert.match(raw, /## Approach\n- Call exec then web_fetch in this order/);
    assert.match(raw, /"link_type": "derived_from"/);
    const traj = raw.match(/"to_uri": "([^"]*\/memories\/trajectories\/[^"]*)"/)[1];
    assert.match(await client.readRaw(traj), /"source_archive_uri": "viking:\/\/user\/[^/]+\/sessions\/main--dep1\/history\/archive_001"/);

    // the same task again, in a new session: the experience is in the recall pair
    const ask = (e, session) => e.assemble({ sessionId: session, prompt: TASK, messages: [{ role: "user", content: TASK, timestamp: t + 60000 }], tokenBudget: 20000, explain: true });
    const again = await ask(engine, "dep2");
    const text = pairText(again);
    assert.match(text, /^- \[experience\] deploy_billing_service: ## Situation - The user asks to deploy billing service staging check health ## Approach - Call exec then web_fetch in this order/m);
    assert.ok(!text.includes("MEMORY_FIELDS"));
    // the case and the trajectory OpenViking keeps beside it in the user's space are no memories
    assert.ok(!/Task Signature|- Domain: tool use/.test(text), text);
    assert.ok(again.recall.explain.some((r) => r.reason === "agent_evolution" && /\/memories\/(cases|trajectories)\//.test(r.uri)), JSON.stringify(again.recall.explain.map((r) => [r.uri, r.reason])));
    const rec = again.recall.experiences.find((r) => r.name === "deploy_billing_service");
    assert.equal(rec.decision, "kept");
    assert.ok(rec.why.some((w) => w.startsWith("same_task: deploy")), JSON.stringify(rec));
    assert.ok(again.recall.experienceTokens > 0 && again.recall.tokens <= again.recall.budget);

    // a tool loop of the same task (no request words): the tools are the match
    const loop = [
      { role: "user", content: "Ship billing to staging", timestamp: t + 70000 },
      { role: "assistant", stopReason: "toolUse", timestamp: t + 71000, content: [{ type: "toolCall", id: "x1", name: "exec", arguments: { command: "make deploy" } }] },
      { role: "toolResult", toolCallId: "x1", toolName: "exec", isError: true, timestamp: t + 72000, content: [{ type: "text", text: "error: missing kubeconfig" }] },
    ];
    const looped = await engine.assemble({ sessionId: "dep3", messages: loop, tokenBudget: 20000, explain: true });
    assert.match(pairText(looped), /\[experience\] deploy_billing_service:/);
    assert.ok(looped.recall.experiences[0].why.includes("same_tools: exec"), JSON.stringify(looped.recall.experiences));

    // another agent of the same user: the folder is shared on the server, the experience is not its
    const ops = await makeEngine(base("ops", "ops"));
    const theirs = await ask(ops.engine, "dep1");
    assert.ok(!pairText(theirs).includes("[experience]"), pairText(theirs));
    assert.deepEqual(theirs.recall?.experiences ?? [], [], "not even in its trace");

    // the other agent does the same task: OpenViking updates the same experience, now derived
    // from both agents' trajectories — a lineage that mixes agents is no one's
    assert.equal((await ops.engine.writeTurn({ sessionId: "dep1", advancementKey: "ops-dep1-0", messages: deployTurn(t + 100000) })).status, "committed");
    assert.ok((await ops.engine.runCommit({ ovSessionId: "ops--dep1", reason: "test", waitMs: 120000 })).compacted);
    let mixed;
    for (let i = 0; i < 60 && !mixed; i++) {
      const r = await client.readRaw(uri);
      if ((r.match(/"link_type": "derived_from"/g) ?? []).length >= 2) mixed = r;
      else await new Promise((res) => setTimeout(res, 1000));
    }
    assert.ok(mixed, "the experience now derives from both agents' trajectories");
    for (const [who, e] of [["main", (await makeEngine(base("main", "main-2"))).engine], ["ops", (await makeEngine(base("ops", "ops-2"))).engine]]) {
      const out = await ask(e, "dep9");
      assert.ok(!pairText(out).includes("[experience]"), `${who} gets no mixed experience: ${pairText(out)}`);
    }
  });
});
