// OpenViking unreachable (remote mode, nothing listening): every lifecycle method still
// answers — assemble applies the budget without recall, turns go to the outbox, compact says
// why it could not compact, the tools answer with a clear error — and one warning per outage.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../js-glue/test/openviking/helpers.mjs";

const stateDir = mkdtempSync(join(tmpdir(), "ove-down-"));
after(() => rmSync(stateDir, { recursive: true, force: true }));

test("OpenViking down: the turn proceeds within budget, nothing is lost, errors are clear", { timeout: 120000 }, async () => {
  const port = await freePort(); // nothing listens here
  const { default: plugin } = await import("../../js-glue/index.js");
  const warnings = [];
  let factory;
  const tools = {};
  plugin.register({
    pluginConfig: { mode: "remote", baseUrl: `http://127.0.0.1:${port}`, apiKey: "k", stateDir, timeoutMs: 1000 },
    logger: { warn: (m) => warnings.push(m), info() {} },
    registerContextEngine: (_id, f) => (factory = f),
    registerTool: (f, o) => (tools[o.name] = f),
    registerService() {},
    on() {},
  });
  const engine = factory();
  const sessionKey = "agent:main:main";
  const history = [];
  for (let i = 0; i < 30; i++) {
    history.push({ role: "user", content: `question ${i}: ${"details about the deploy pipeline ".repeat(20)}`, timestamp: 1764000100000 + i });
    history.push({ role: "assistant", content: [{ type: "text", text: `answer ${i}: ${"use blue-green with a canary ".repeat(20)}` }], timestamp: 1764000100000 + i });
  }
  for (let turn = 0; turn < 3; turn++) {
    const t0 = Date.now();
    const a = await engine.assemble({ sessionId: "down", sessionKey, messages: history, prompt: "what did we decide about canaries?", tokenBudget: 2000 });
    assert.ok(Date.now() - t0 < 5000, "assemble answers within the timeout");
    assert.ok(a.estimatedTokens <= 2000, `within budget: ${a.estimatedTokens}`);
    assert.ok(!a.messages.some((m) => m.toolName === "memory_recall_auto"), "no recall without OpenViking");
    const out = await engine.commitTurn({ sessionId: "down", sessionKey, advancementKey: `d-${turn}`, messages: [{ role: "user", content: `turn ${turn} during the outage`, timestamp: 1764000200000 + turn }, { role: "assistant", content: [{ type: "text", text: "ok" }] }] });
    assert.deepEqual(out, { status: "committed" }, "the turn itself never fails");
  }
  const c = await engine.compact({ sessionId: "down", sessionKey, force: true });
  assert.equal(c.compacted, false);
  assert.match(c.reason, /unreachable|outbox/i);
  const recall = await tools.memory_recall({ sessionKey }).execute("c1", { query: "canary size" });
  assert.equal(recall.isError, true);
  assert.match(recall.content[0].text, /unavailable/i);
  const expand = await tools.memory_expand({ sessionKey }).execute("c2", { summaryOrMemoryUri: "viking://user/u/memories/x.md" });
  assert.equal(expand.isError, true);
  assert.ok(warnings.filter((w) => /unavailable/i.test(w)).length <= 2, `one warning per outage, not per turn: ${warnings.join(" | ")}`);
  assert.ok(!warnings.join(" ").includes("k\""), "the API key is not in the warnings");
  const { createStateStore } = await import("../../js-glue/state-store.js");
  const outbox = await createStateStore(stateDir).outboxRead("outbox/main--down");
  assert.equal(outbox.length, 3, "all three turns are kept in the outbox");
  await engine.dispose();
});
