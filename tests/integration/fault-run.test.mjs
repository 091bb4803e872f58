// ≥ 100 turns through faults in remote mode: connection refused, timeouts, resets, 5xx,
// malformed answers, writes stored whose answer is lost (from a fault-injecting proxy in
// front of a real OpenViking) and the
// server itself killed and restarted twice. Every turn must land exactly once, in order,
// and the outbox must be seen holding turns during the outages.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { REPO, startHarness } from "../../js-glue/test/openviking/helpers.mjs";
import { startFaultProxy } from "./fault-proxy.mjs";
import { makeEngine } from "./engine-host.mjs";
import { createStateStore } from "../../js-glue/state-store.js";

const TURNS = 110;
const KILL_AT = [35, 75];
const RESTART_AT = [45, 85];
// "lost": OpenViking stores the turn but the answer never arrives — it must not be stored twice
const FAULTS = { 3: "refuse", 7: "timeout", 11: "5xx", 15: "garbage", 17: "reset", 19: "lost" };

const cleanup = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

const harnessCmd = (cmd, dir) =>
  execFileSync(process.env.PYTHON || "python3", [join(REPO, "tests/openviking/harness.py"), cmd, "--workdir", dir], { timeout: 120000 });

test(`${TURNS} turns through faults and two server restarts: written == found, in order, once`, { timeout: 600000 }, async () => {
  const h = await startHarness();
  cleanup.push(() => h.stop());
  const proxy = await startFaultProxy({ upstream: h.env.baseUrl });
  cleanup.push(() => proxy.close());
  const stateDir = mkdtempSync(join(tmpdir(), "ove-fault-"));
  cleanup.push(() => rmSync(stateDir, { recursive: true, force: true }));
  const { engine, warnings } = await makeEngine({
    baseUrl: proxy.url,
    apiKey: h.env.userKey,
    userId: h.env.userId,
    stateDir,
    timeoutMs: 1000,
    config: { compactTurnThreshold: 10000, compactTokensAddedThreshold: 10000000, compactMaxIntervalMinutes: 10080 },
  });

  let maxOutbox = 0;
  let queuedTurns = 0;
  const latencies = [];
  const expected = [];
  for (let i = 0; i < TURNS; i++) {
    if (KILL_AT.includes(i)) harnessCmd("kill-server", h.dir);
    if (RESTART_AT.includes(i)) harnessCmd("restart-server", h.dir);
    await proxy.setMode(i > 0 ? FAULTS[i % 20] ?? "pass" : "pass");
    const text = `fault-run turn ${i}: the deploy step ${i} uses blue-green`;
    expected.push(text);
    const t0 = performance.now();
    const out = await engine.writeTurn({
      sessionId: "faults",
      advancementKey: `f-${i}`,
      messages: [{ role: "user", content: text }, { role: "assistant", content: [{ type: "text", text: `Ack ${i}` }] }],
    });
    latencies.push(performance.now() - t0);
    assert.equal(out.status, "committed", `turn ${i} must never fail`);
    if (out.queued) queuedTurns++;
    maxOutbox = Math.max(maxOutbox, out.outboxLen);
  }
  await proxy.setMode("pass");
  const store = createStateStore(stateDir);
  // the server answers again; the engine asks it again once its pause after the last
  // timeout ends (src/openviking/pause.rs: a timeout, doubled per pause ending in another)
  let left = -1;
  const drainStart = performance.now();
  while (left !== 0 && performance.now() - drainStart < 150000) {
    await engine.flush("main--faults");
    left = (await store.outboxRead("outbox/main--faults")).length;
    if (left !== 0) await new Promise((r) => setTimeout(r, 500));
  }
  assert.equal(left, 0, "the outbox drained");
  console.log(`# drained ${Math.round((performance.now() - drainStart) / 1000)} s after the faults ended`);
  assert.ok(maxOutbox > 0 && queuedTurns > 0, "the outbox held turns during the faults");

  const direct = (await makeEngine({ baseUrl: h.env.baseUrl, apiKey: h.env.userKey, userId: h.env.userId, stateDir: join(stateDir, "direct") })).client;
  const meta = await direct.getSession("main--faults");
  const ctx = await direct.sessionContext("main--faults", { tokenBudget: 10000000 });
  const found = (ctx.messages ?? []).filter((m) => m.role === "user").map((m) => m.parts.find((p) => p.type === "text")?.text);
  assert.equal(meta.message_count, TURNS * 2);
  assert.deepEqual(found, expected, "every turn once, in order");
  const sorted = [...latencies].sort((a, b) => a - b);
  const pct = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))].toFixed(1);
  console.log(`# turns written ${TURNS}, found ${found.length}; queued ${queuedTurns}, max outbox ${maxOutbox}; faults ${JSON.stringify(proxy.stats)}; write latency incl. I/O median ${pct(0.5)} ms p99 ${pct(0.99)} ms; warnings ${warnings.length}`);
});
