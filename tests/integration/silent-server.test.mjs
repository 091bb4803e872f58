// A server that accepts connections and never answers, met by a one-process-per-turn host:
// five turns, each its own process (tests/integration/cli-turn.mjs, the plugin as OpenClaw
// loads it) on one state dir, with a gap between them longer than the first pause (the
// model's answer, the next process starting). The first turn costs one timeout; each later
// one at most a second more than a turn against a server that is simply down (refused).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { freePort, hangingTcpServer } from "../../js-glue/test/openviking/helpers.mjs";

const TURN = fileURLToPath(new URL("./cli-turn.mjs", import.meta.url));
const TIMEOUT_MS = 3000;
const GAP_MS = 3500; // longer than the first pause (one timeout)
const run = promisify(execFile);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const cleanup = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

async function turn(baseUrl, stateDir, i) {
  const { stdout } = await run(process.execPath, [TURN, JSON.stringify({ baseUrl, stateDir, timeoutMs: TIMEOUT_MS, turn: i })], { timeout: 60000 });
  return JSON.parse(stdout);
}

test("a silent server costs a CLI sequence one timeout: turns 2–5 each ≤ 1 s over a down server's turn", { timeout: 180000 }, async () => {
  // a normal turn while OpenViking is down (refused at once): the baseline, median of 3
  const downDir = mkdtempSync(join(tmpdir(), "ove-silent-base-"));
  cleanup.push(() => rmSync(downDir, { recursive: true, force: true }));
  const down = `http://127.0.0.1:${await freePort()}`;
  const base = [];
  for (let i = 0; i < 3; i++) base.push((await turn(down, downDir, i)).ms);
  const normal = base.sort((a, b) => a - b)[1];

  const silent = await hangingTcpServer();
  cleanup.push(() => silent.close());
  const stateDir = mkdtempSync(join(tmpdir(), "ove-silent-"));
  cleanup.push(() => rmSync(stateDir, { recursive: true, force: true }));
  const url = `http://127.0.0.1:${silent.port}`;
  const turns = [];
  for (let i = 1; i <= 5; i++) {
    if (i > 1) await sleep(GAP_MS);
    turns.push(await turn(url, stateDir, i));
  }
  const costs = turns.map((t) => Math.round(t.ms));
  console.log(`# silent server, timeoutMs ${TIMEOUT_MS}, gap ${GAP_MS} ms: down-server turn ${Math.round(normal)} ms; turns ${costs.join(", ")} ms`);
  assert.ok(turns.every((t) => t.status !== null), "every turn acknowledged (queued in the outbox)");
  assert.ok(costs[0] >= TIMEOUT_MS, `the first turn waits one timeout: ${costs[0]} ms`);
  for (let i = 1; i < 5; i++) assert.ok(costs[i] <= normal + 1000, `turn ${i + 1}: ${costs[i]} ms, more than ${Math.round(normal)} + 1000 ms`);
  // the pause is kept per server, with a hash of the key and never the key
  const kept = readdirSync(join(stateDir, "state")).filter((f) => f.startsWith("openviking%2Fpaused"));
  assert.equal(kept.length, 1, kept.join(", "));
  const doc = readFileSync(join(stateDir, "state", kept[0]), "utf8");
  assert.ok(doc.includes(url) && !doc.includes("uk-cli-turn-key"), doc);
});
