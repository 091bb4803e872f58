// Against a real OpenViking: the budget, tokens-added and interval triggers fire at their
// thresholds and not before (the turn trigger is in engine-openviking.test.mjs), and two
// agents sharing one user key stay apart — the server itself lets one list the other's
// sessions; the engine never touches them.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHarness } from "../../js-glue/test/openviking/helpers.mjs";
import { createClient } from "../inspect/client.js";
import { createStateStore } from "../../js-glue/state-store.js";
import { createEngineHost } from "../../js-glue/engine-host.js";
import { loadEngine } from "../support/packages.mjs"; // the test build: setUserId, record

let h;
let root;
before(async () => {
  h = await startHarness();
  root = mkdtempSync(join(tmpdir(), "ove-trig-"));
});
after(async () => {
  await h?.stop();
  rmSync(root, { recursive: true, force: true });
});

async function engineWith(agentId, config, clock) {
  const { ContextEngine } = await loadEngine();
  const client = createClient({ baseUrl: h.env.baseUrl, apiKey: h.env.userKey, agentId });
  const host = createEngineHost({ store: createStateStore(join(root, agentId)), logger: { warn() {} }, now: clock });
  const e = new ContextEngine({ mode: "remote", baseUrl: h.env.baseUrl, apiKey: h.env.userKey, agentId, ...config }, {}, host);
  e.setUserId(h.env.userId);
  return { e, client };
}

const turn = (text) => [{ role: "user", content: text }, { role: "assistant", content: [{ type: "text", text: `Noted: ${text}` }] }];

test("budget trigger: context tokens ≥ tokenBudget × compactCommitThreshold", async () => {
  const { e } = await engineWith("budget", { compactTurnThreshold: 100, compactCommitThreshold: 0.75 });
  const below = await e.writeTurn({ sessionId: "b", messages: turn("We decided on nightly backups"), tokenBudget: 1000, contextTokens: 749 });
  assert.equal(below.trigger, null);
  const at = await e.writeTurn({ sessionId: "b", messages: turn("We decided on weekly restores"), tokenBudget: 1000, contextTokens: 750 });
  assert.deepEqual(at.trigger, { kind: "budget", tokens: 750, threshold: 750 });
  assert.equal(at.commitDue, true);
});

test("tokens-added trigger: the engine's estimate of what was written since the last commit", async () => {
  const { e } = await engineWith("tokens", { compactTurnThreshold: 100, compactTokensAddedThreshold: 300 });
  const small = await e.writeTurn({ sessionId: "t", messages: turn("We decided to pin Node 22 in CI.") });
  assert.equal(small.trigger, null);
  const big = "We decided the retention policy: " + "keep daily snapshots for thirty days and monthly ones for a year. ".repeat(30);
  const out = await e.writeTurn({ sessionId: "t", messages: turn(big) });
  assert.equal(out.trigger?.kind, "tokens_added");
  assert.ok(out.trigger.tokens >= 300);
});

test("interval trigger: 30 minutes since the first turn with a counted turn, and not before", async () => {
  let now = Date.now();
  const { e } = await engineWith("interval", { compactTurnThreshold: 100, compactMaxIntervalMinutes: 30 }, () => now);
  assert.equal((await e.writeTurn({ sessionId: "i", messages: turn("We decided to move standup to 10:00") })).trigger, null);
  now += 29 * 60000;
  assert.equal((await e.writeTurn({ sessionId: "i", messages: turn("ok") })).trigger, null);
  now += 60000;
  const out = await e.writeTurn({ sessionId: "i", messages: turn("thanks") });
  assert.equal(out.trigger?.kind, "interval");
  assert.equal(out.trigger.minutes, 30);
});

test("two agents with one user key: the server shows both, the engine touches only its own", async () => {
  const a = await engineWith("alpha", {});
  const b = await engineWith("beta", {});
  await a.e.writeTurn({ sessionId: "shared-name", messages: turn("Alpha decided to use Rust for the parser") });
  await b.e.writeTurn({ sessionId: "shared-name", messages: turn("Beta decided to use Go for the crawler") });
  assert.notEqual(a.e.ovSessionId("shared-name"), b.e.ovSessionId("shared-name"));
  // the server itself does not isolate agents of one user: alpha's client lists beta's session
  const listed = await a.client.ls(`viking://user/${h.env.userId}/sessions`);
  const names = JSON.stringify(listed);
  assert.ok(names.includes("beta--shared-name"), "the server lets alpha see beta's session");
  // the engine refuses every operation on another agent's session
  for (const call of [
    () => a.e.runCommit({ ovSessionId: "beta--shared-name", forced: true }),
    () => a.e.flush("beta--shared-name"),
    () => a.e.followTask("beta--shared-name", 0),
    () => a.e.record("beta--shared-name"),
  ]) {
    await assert.rejects(call(), (err) => err.code === "INVALID_INPUT");
  }
  const betaMeta = await b.client.getSession("beta--shared-name");
  assert.equal(betaMeta.message_count, 2, "beta's session untouched");
});

test("look-alike agents main, main- and main--x on one server: none owns another's sessions", async () => {
  const agents = {};
  for (const id of ["main", "main-", "main--x"]) {
    agents[id] = await engineWith(id, {});
    await agents[id].e.writeTurn({ sessionId: "s", advancementKey: `${id}-1`, messages: turn(`${id} decided something private`) });
  }
  const ids = Object.fromEntries(Object.entries(agents).map(([id, a]) => [id, a.e.ovSessionId("s")]));
  assert.equal(new Set(Object.values(ids)).size, 3, `distinct session ids: ${JSON.stringify(ids)}`);
  for (const [id, a] of Object.entries(agents)) {
    for (const [other, ov] of Object.entries(ids)) {
      assert.equal(a.e.ownsSession(ov), id === other, `${id} owns ${ov}?`);
      if (id === other) continue;
      for (const call of [() => a.e.record(ov), () => a.e.flush(ov), () => a.e.runCommit({ ovSessionId: ov, forced: true }), () => a.e.followTask(ov, 0)]) {
        await assert.rejects(call(), (err) => err.code === "INVALID_INPUT", `${id} on ${ov}`);
      }
    }
    // and each one's session holds only its own turn
    const ctx = await a.client.sessionContext(ids[id], { tokenBudget: 100000 });
    const texts = (ctx.messages ?? []).filter((m) => m.role === "user").map((m) => m.parts.find((p) => p.type === "text")?.text);
    assert.deepEqual(texts, [`${id} decided something private`]);
  }
});
