// memory_store / memory_forget while a real OpenViking 0.5.2 is down: each process that ran
// the tools is SIGKILLed right after they answered "queued" (before any replay could send
// them); OpenViking is restarted; the next process's turn — the replay that sends queued
// turns — applies them in order: the forgotten memory is gone, the stored one is there once.
// Replaying an already applied store again (an entry a crash left behind) writes the same
// file: still one memory.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startHarness, harnessCommand } from "../../js-glue/test/openviking/helpers.mjs";
import { createClient } from "../inspect/client.js";
import { createStateStore } from "../../js-glue/state-store.js";

const TOOL = fileURLToPath(new URL("./memory-tool.mjs", import.meta.url));
const QUEUE = "memory-ops/main";
const cleanup = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

/** Runs memory-tool.mjs; resolves with its JSON lines once `lines` were printed (`hold`:
 *  then SIGKILLs it) or it exited. */
function runTool(args, { lines = Infinity } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TOOL, JSON.stringify(args)], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    const docs = () => out.split("\n").filter(Boolean).map((l) => JSON.parse(l));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`memory-tool.mjs hung: ${out} ${err}`));
    }, 60000);
    child.stdout.on("data", (d) => {
      out += d;
      if (docs().length >= lines) {
        child.kill("SIGKILL"); // right after the answers: nothing after them runs
      }
    });
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (code && !signal) return reject(new Error(`memory-tool.mjs exited ${code}: ${err}`));
      resolve({ docs: docs(), signal });
    });
  });
}

test("memory changes made while OpenViking is down survive a kill and a restart, in order, once", { timeout: 300000 }, async () => {
  const h = await startHarness();
  cleanup.push(() => h.stop());
  const stateDir = mkdtempSync(join(tmpdir(), "ove-memq-"));
  cleanup.push(() => rmSync(stateDir, { recursive: true, force: true }));
  const base = { baseUrl: h.env.baseUrl, apiKey: h.env.userKey, userId: h.env.userId, stateDir, timeoutMs: 3000 };
  const client = createClient({ baseUrl: h.env.baseUrl, apiKey: h.env.userKey, agentId: "main" });
  const store = createStateStore(stateDir);

  harnessCommand(h, "kill-server");
  // a process stores A and is killed right after the tool answered
  const first = await runTool({ ...base, ops: [{ tool: "memory_store", params: { text: "The backup window is 02:00 to 03:00 UTC", category: "events" } }], hold: true }, { lines: 1 });
  assert.equal(first.signal, "SIGKILL");
  const a = first.docs[0];
  assert.equal(a.status, "queued", JSON.stringify(a));
  assert.equal(a.stored, false);
  assert.match(a.note, /will be stored in OpenViking as soon as it is back/);
  assert.ok(a.uri.startsWith(`viking://user/${h.env.userId}/memories/events/the-backup-window-is-`), a.uri);
  // the next forgets A and stores B, and is killed too
  const second = await runTool(
    { ...base, ops: [{ tool: "memory_forget", params: { uri: a.uri } }, { tool: "memory_store", params: { text: "The backup window moved to 04:00 UTC", category: "events" } }], hold: true },
    { lines: 2 },
  );
  const [forgot, b] = second.docs;
  assert.equal(forgot.status, "queued", JSON.stringify(forgot));
  assert.equal(b.status, "queued", JSON.stringify(b));
  const queued = await store.outboxRead(QUEUE);
  assert.deepEqual(queued.map((e) => e.op), ["store", "forget", "store"], "durable before the answers, in order");

  harnessCommand(h, "restart-server");
  // the next process's turn replays them, before its own turn
  const third = await runTool({ ...base, turn: { sessionId: "memq", advancementKey: "t1", text: "what is the backup window?" } });
  const outcome = third.docs[0];
  assert.equal(outcome.status, "committed", JSON.stringify(outcome));
  assert.equal(outcome.queued, false, "the turn went in after the memory changes");
  assert.deepEqual(await store.outboxRead(QUEUE), [], "every queued change applied");
  await assert.rejects(client.stat(a.uri), (e) => e.status === 404 || /NOT_FOUND|not found/i.test(String(e.message)), "A was stored, then forgotten");
  assert.equal(await client.readContent(b.uri), "The backup window moved to 04:00 UTC");
  const files = async () => (await client.ls(`viking://user/${h.env.userId}/memories/events`)).map((f) => f.uri ?? f).filter((u) => String(u).includes("the-backup-window"));
  assert.deepEqual(await files(), [b.uri], "one memory");

  // a store a crash left in the queue after it landed: replayed again, still one memory
  const entry = queued[2];
  await store.outboxAppend(QUEUE, entry);
  const fourth = await runTool({ ...base, flush: "main--memq" });
  const report = fourth.docs.at(-1);
  assert.equal(report.memoryApplied, 1, JSON.stringify(report));
  assert.equal(report.memoryQueued, 0);
  assert.deepEqual(await files(), [b.uri], "replaying twice never doubles a memory");
});
