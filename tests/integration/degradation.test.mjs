// OpenViking unreachable (remote mode, nothing listening): every lifecycle method still
// answers — assemble applies the budget without recall, turns go to the outbox, compact says
// why it could not compact, the tools answer with a clear error — and one warning per outage.
// OpenViking hung (it accepts connections and never answers): one timeout, then the engine
// stops asking for a pause, in this process and the next (`src/openviking/pause.rs`).
import { test, after } from "node:test";
import http from "node:http";
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

test("OpenViking hung: one timeout, then turns do not wait for it, in this process and the next", { timeout: 120000 }, async () => {
  const held = [];
  const server = http.createServer((req, res) => held.push({ url: req.url, res }));
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const hungDir = mkdtempSync(join(tmpdir(), "ove-hung-"));
  const { default: plugin } = await import("../../js-glue/index.js");
  const warnings = [];
  const start = () => {
    let factory;
    plugin.register({
      pluginConfig: { mode: "remote", baseUrl: `http://127.0.0.1:${server.address().port}`, apiKey: "k", stateDir: hungDir, timeoutMs: 1500 },
      logger: { warn: (m) => warnings.push(m), info() {} },
      registerContextEngine: (_id, f) => (factory = f),
      registerTool() {},
      registerService() {},
      on() {},
    });
    return factory();
  };
  const sessionKey = "agent:main:main";
  const history = [{ role: "user", content: "we deploy blue-green", timestamp: 1764000300000 }, { role: "assistant", content: [{ type: "text", text: "noted" }], timestamp: 1764000300001 }];
  const turn = async (engine, i) => {
    const t0 = performance.now();
    const a = await engine.assemble({ sessionId: "hung", sessionKey, messages: history, prompt: "what did we decide about canaries? run the deploy", tokenBudget: 2000 });
    const t1 = performance.now();
    const out = await engine.commitTurn({ sessionId: "hung", sessionKey, advancementKey: `h-${i}`, messages: [{ role: "user", content: `hung turn ${i}`, timestamp: 1764000400000 + i }, { role: "assistant", content: [{ type: "text", text: "ok" }] }] });
    assert.deepEqual(out, { status: "committed" }, "the turn itself never fails");
    assert.ok(!a.messages.some((m) => m.toolName === "memory_recall_auto"));
    return { assemble: t1 - t0, commit: performance.now() - t1 };
  };
  try {
    const first = start();
    const t = [];
    for (let i = 0; i < 3; i++) t.push(await turn(first, i));
    // the first assemble waits for its side-by-side requests' one timeout, not a chain of them
    assert.ok(t[0].assemble >= 1400 && t[0].assemble < 2600, `first assemble ${t[0].assemble} ms: one timeout`);
    for (const [i, x] of t.entries()) {
      if (i > 0) assert.ok(x.assemble < 500, `assemble of turn ${i}: ${x.assemble} ms (paused: not waiting)`);
      assert.ok(x.commit < 500, `commitTurn of turn ${i}: ${x.commit} ms (paused: straight to the outbox)`);
    }
    const d0 = performance.now();
    await first.dispose();
    assert.ok(performance.now() - d0 < 500, "dispose does not wait for a paused server");
    // the next process on this state dir pauses from its first request
    const next = start();
    const n = await turn(next, 3);
    assert.ok(n.assemble < 500 && n.commit < 500, `the next process: assemble ${n.assemble} ms, commitTurn ${n.commit} ms`);
    await next.dispose();
    const sent = held.length;
    assert.ok(sent > 0 && sent <= 8, `requests the hung server got: ${sent} (one batch, then none)`);
    const { createStateStore } = await import("../../js-glue/state-store.js");
    assert.equal((await createStateStore(hungDir).outboxRead("outbox/main--hung")).length, 4, "all four turns are kept in the outbox");
    assert.ok(warnings.some((w) => /not sent: OpenViking did not answer lately/.test(w)), warnings.join(" | "));
    assert.ok(!warnings.join(" ").includes("apiKey") && !/\bk\b"/.test(warnings.join(" ")));
  } finally {
    for (const h of held) h.res.destroy();
    server.close();
    rmSync(hungDir, { recursive: true, force: true });
  }
});
