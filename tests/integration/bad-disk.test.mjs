// A bad disk under the state dir, against a real OpenViking 0.5.2: the state dir is a real
// 256 KB tmpfs (mounted here: run as root, as CI does; not root is a failure, not a skip).
// One engine per scenario, in this process (a gateway), writing one session in order; like
// OpenClaw, a rejected turn is retried with the same key before any later one.
//   (a) ENOSPC: a filler file fills the disk mid-write — right after the outbox's write lock
//       was taken, after an append, after a turn was sent, after a drop (OpenViking up, or
//       refused by the fault proxy so that the outbox holds a backlog), and with 0–2 pages
//       left (appends torn mid-record). Turns are written while it is full, then it is freed.
//   (b) read-only: `mount -o remount,ro` at the same points, turns written, then remount rw.
//   (c) appends slower than timeoutMs (1000): a few turns' appends take 1.5–2.6 s — inside the
//       store (a slow disk) and outside it (a host whose outboxAppendText itself is slow); the
//       engine rejects HOST_TIMEOUT, the append lands later anyway, the turn is retried at
//       once and after the delay.
// After each: a fresh engine (a restart) flushes. Asserted: every acknowledged turn was
// durable when acknowledged (in the outbox or in OpenViking), is stored exactly once, in
// order, with its key as turn_id; every turn is acknowledged in the end; the outbox is empty
// and the last flush says queued 0, no reason; in (c) every turn after a slow one is
// acknowledged and sent at once. One summary line per scenario:
// acknowledged / stored / doubled / wedged. No env knobs. Runs ~50 s here (2 cores).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, promises as fsp, rmdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { startHarness } from "../../js-glue/test/openviking/helpers.mjs";
import { startFaultProxy } from "./fault-proxy.mjs";
import { makeEngine } from "./engine-host.mjs";
import { createClient } from "../inspect/client.js";
import { storedMessages } from "../inspect/stored.js";
import { createStateStore } from "../../js-glue/state-store.js";

const sh = promisify(execFile);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const CONFIG = { compactTurnThreshold: 10000, compactTokensAddedThreshold: 10000000, compactMaxIntervalMinutes: 10080 };
const PAD = " the migration's step runs after the backup is verified and the replicas caught up;".repeat(18);
const turnText = (name, i) => `bad-disk ${name} turn ${i} (k-${i}):${PAD}`;
const DRAIN_MS = 20000; // a turn still rejected this long after the disk is good again: wedged
const cleanup = [];
let h, client;
before(async () => {
  h = await startHarness();
  client = createClient({ baseUrl: h.env.baseUrl, apiKey: h.env.userKey, agentId: "main" });
});
after(async () => {
  for (const fn of cleanup.reverse()) await fn().catch((e) => console.log(`# cleanup: ${e.message}`));
  await h?.stop();
});

// one-shot hooks at points inside a write: the store's (locked, appended, dropped) and the
// transport's (sent: a POST of messages answered); the engines' fetch is this one
let hook = null;
const fire = async (point, fn = hook?.point === point && hook.fn) => fn && ((hook = null), await fn());
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init = {}) => {
  const res = await realFetch(input, init);
  if (init.method === "POST" && String(input.url ?? input).includes("/messages")) await fire("sent");
  return res;
};

async function mountTmpfs(name) {
  assert.equal(process.getuid?.(), 0, "bad-disk.test.mjs mounts a tmpfs: it must run as root (CI does); not skipped");
  const dir = mkdtempSync(join(tmpdir(), `ove-bad-${name}-`));
  await sh("mount", ["-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", dir]);
  cleanup.push(async () => (await sh("umount", ["-l", dir]), rmdirSync(dir)));
  return dir;
}

/** Fills the disk with `<dir>/filler` until ENOSPC, then gives `pages` 4 KB pages back. */
async function fill(dir, pages = 0) {
  const f = await fsp.open(join(dir, "filler"), "a");
  try {
    for (const chunk = Buffer.alloc(4096, 120); ; ) await f.write(chunk);
  } catch (err) {
    if (err.code !== "ENOSPC") throw err;
  }
  const { size } = await f.stat();
  await f.truncate(Math.max(0, size - pages * 4096));
  await f.close();
}
async function remount(dir, how) {
  for (let t = Date.now(); ; await sleep(3)) {
    try {
      return await sh("mount", ["-o", `remount,${how}`, dir]);
    } catch (err) {
      if (!/busy/i.test(err.stderr) || Date.now() - t > 5000) throw err; // a file open for writing
    }
  }
}

/** One engine writing session `name` on `dir`, in order; `attempt(n)` adds n new turns and
 *  writes the pending ones from the first, stopping at the first rejection. */
async function lane(name, dir, { baseUrl = h.env.baseUrl, storeOptions } = {}) {
  const mk = () => makeEngine({ baseUrl, apiKey: h.env.userKey, userId: h.env.userId, stateDir: dir, timeoutMs: 1000, config: CONFIG, storeOptions });
  const eng = await mk();
  const ovId = `main--${name}`;
  const okey = `outbox/${ovId}`;
  const reader = createStateStore(dir);
  // (the plugin's host appends through the text form: the entry's JSON text, its turn id beside it)
  const { tryLock, outboxAppendText, outboxDrop } = eng.store;
  Object.assign(eng.store, {
    tryLock: async (n, ttl) => ((await tryLock(n, ttl)) ? (n === okey && (await fire("locked")), true) : false),
    outboxAppendText: async (k, text, turnId) => ((await outboxAppendText(k, text, turnId)), await fire("appended")),
    outboxDrop: async (k, ids) => ((await outboxDrop(k, ids)), await fire("dropped")),
  });
  const L = { name, eng, ovId, okey, reader, next: 0, pending: [], acked: [], outs: [], rejected: {}, errors: {}, lastError: null, notDurable: [], wedged: 0 };
  L.write = (i) => eng.engine.writeTurn({ sessionId: name, advancementKey: `k-${i}`, messages: [{ role: "user", content: turnText(name, i) }, { role: "assistant", content: [{ type: "text", text: `Noted ${i}.` }] }] });
  L.ack = async (i, out) => {
    L.acked.push(i);
    L.outs.push(out);
    // acknowledged means durable: in the outbox, or (sent and dropped) in OpenViking
    const queued = (await reader.outboxRead(okey)).some((e) => e.turnId === `k-${i}`);
    if (!queued && !(await storedMessages(client, ovId).catch(() => [])).some((m) => m.turn_id === `k-${i}`)) L.notDurable.push(i);
  };
  L.attempt = async (n = 1) => {
    for (let k = 0; k < n; k++) L.pending.push(L.next++);
    while (L.pending.length) {
      const i = L.pending[0];
      try {
        await L.ack(i, await L.write(i));
        L.pending.shift();
      } catch (err) {
        L.lastError = err.code ?? err.message;
        L.rejected[L.lastError] = (L.rejected[L.lastError] ?? 0) + 1;
        const why = String(err.message).replace(/\/tmp\/\S+/g, "…").slice(0, 90);
        L.errors[why] = (L.errors[why] ?? 0) + 1;
        return false;
      }
    }
    return true;
  };
  L.drain = async (t = Date.now()) => {
    while (!(await L.attempt(0))) {
      if (Date.now() - t > DRAIN_MS) return !(L.wedged = L.pending.length);
      await sleep(250);
    }
    return true;
  };
  /** A restart: a fresh engine on the same state dir flushes what is left. */
  L.restartFlush = async () => (await mk()).engine.flush(ovId);
  return L;
}

/** What OpenViking holds of L's session against what was acknowledged; the summary line; the asserts. */
async function verify(L, scenario, extra = {}) {
  const last = await L.restartFlush().catch((e) => ({ error: String(e.message ?? e) }));
  const left = (await L.reader.outboxRead(L.okey)).map((e) => e.turnId);
  const stored = await storedMessages(client, L.ovId);
  const turnOf = (m) => Number(/\(k-(\d+)\)|^Noted (\d+)\./.exec(m.parts?.find((p) => p.type === "text")?.text ?? "")?.slice(1).find(Boolean) ?? NaN);
  const users = stored.filter((m) => m.role === "user").map(turnOf);
  const doubled = users.length - new Set(users).size;
  const lost = L.acked.filter((i) => !users.includes(i) && !left.includes(`k-${i}`)); // neither sent nor queued
  const badIds = stored.filter((m) => m.turn_id !== `k-${turnOf(m)}`).length;
  const wedged = L.wedged + left.length + (last.queued ?? 1) + (last.reason ? 1 : 0);
  console.log(`# bad-disk ${scenario} acknowledged=${L.acked.length} stored=${users.length} doubled=${doubled} wedged=${wedged} | lost=${lost.length} notDurable=${L.notDurable.length} rejected=${JSON.stringify(L.rejected)} stillRejected=${L.pending.length} lastFlush=${JSON.stringify(last)} outboxLeft=${JSON.stringify(left)} ${Object.entries(extra).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(" ")}`);
  console.log(`# ${scenario} rejections: ${JSON.stringify(L.errors)}`);
  if (doubled || lost.length || wedged) console.log(`# stored turn ids, in order: ${users.join(" ")}\n# warnings: ${L.eng.warnings.slice(-12).join(" || ")}`);
  assert.deepEqual(L.notDurable, [], "every turn was durable when acknowledged");
  assert.deepEqual(lost, [], "no acknowledged turn lost");
  assert.equal(doubled, 0, "no turn stored twice");
  assert.deepEqual(L.pending, [], `every turn acknowledged in the end: none still rejected ${DRAIN_MS} ms after the disk was good again`);
  assert.deepEqual(left, [], "the outbox drained: no acknowledged turn left unsent");
  assert.deepEqual([last.queued, last.reason ?? null], [0, null], "the last flush: queued 0, no reason");
  assert.deepEqual(users, L.acked, "every acknowledged turn once, in order, and nothing else");
  assert.equal(badIds, 0, "every message's turn_id is its turn's key");
  assert.equal(stored.length, users.length * 2, "two messages per turn");
}

/** (a) and (b): the disk goes bad at each point inside a write, turns are written while it
 *  is, it is made good again, the rejected turns are retried, more are written. */
async function badDisk(name, rounds, breakDisk, fixDisk) {
  const dir = await mountTmpfs(name);
  const proxy = await startFaultProxy({ upstream: h.env.baseUrl });
  cleanup.push(() => proxy.close());
  const L = await lane(name, dir, { baseUrl: proxy.url });
  const fired = [];
  for (const r of rounds) {
    await proxy.setMode(r.mode); // refuse: the turns queue up, a backlog for the next turn's replay
    await L.attempt(2);
    await proxy.setMode("pass");
    let hit = false;
    hook = { point: r.point, fn: () => ((hit = true), breakDisk(dir, r)) };
    await L.attempt(1); // the disk goes bad inside this turn's write (or its replay of the backlog)
    hook = null;
    if (hit) fired.push(r.point);
    for (let k = 0; k < 3; k++) await breakDisk(dir, r).then(() => L.attempt(k < 2 ? 1 : 0)); // while it is bad
    await L.eng.engine.flush(L.ovId).catch(() => {});
    await fixDisk(dir);
    await proxy.setMode("pass");
    if (!(await L.drain())) break; // wedged: the asserts say so
    await L.attempt(1);
  }
  await verify(L, name, { hooksFired: fired });
  // each round's fault struck where it was meant to (a hook on a callback the host no longer
  // calls would leave the round testing nothing)
  assert.deepEqual(fired, rounds.map((r) => r.point), "every round's hook fired");
}

const ROUNDS = [
  { point: "locked", mode: "pass" },
  { point: "appended", mode: "refuse" },
  { point: "sent", mode: "refuse" },
  { point: "dropped", mode: "refuse" },
  { point: "locked", mode: "refuse", pages: 1 }, // pages: left free (an append may tear)
  { point: "appended", mode: "pass", pages: 2 },
];

test("bad disk (a): ENOSPC mid-write — rejected or durable, retried, none lost or doubled, in order", { timeout: 120000 }, async () => {
  await badDisk("enospc", ROUNDS, (dir, r) => fill(dir, r.pages ?? 0), (dir) => fsp.rm(join(dir, "filler"), { force: true }));
});

test("bad disk (b): remounted read-only mid-write, then rw — none lost or doubled, in order", { timeout: 120000 }, async () => {
  await badDisk("readonly", ROUNDS.slice(0, 4), (dir) => remount(dir, "ro"), (dir) => remount(dir, "rw"));
});

test("bad disk (c): appends slower than timeoutMs — HOST_TIMEOUT, lands later, retried: each once, later turns sent, in order", { timeout: 120000 }, async () => {
  // turn → where its append is slow and how long it takes: "disk" inside the store (its open
  // of the outbox, on the store's chain), "host" before it (the outboxAppendText callback itself)
  const SLOW = new Map([[2, ["disk", 1500]], [5, ["disk", 2600]], [8, ["host", 1500]], [9, ["host", 2600]]]);
  const dir = await mountTmpfs("slow");
  const slow = { disk: 0, host: 0 }; // the next append's delay, taken once
  const takeDelay = (where, ms = slow[where]) => ((slow[where] = 0), sleep(ms));
  const fsImpl = { ...fsp, open: async (file, flags, mode) => (flags === "a+" && (await takeDelay("disk")), fsp.open(file, flags, mode)) };
  const L = await lane("slow", dir, { storeOptions: { fsImpl } });
  const inStore = L.eng.store.outboxAppendText;
  L.eng.store.outboxAppendText = async (k, text, turnId) => (await takeDelay("host"), inStore(k, text, turnId));
  const [timeouts, landedLate, lateChecks, notSent] = [[], [], [], []];
  for (let i = 0; i < 14; i++) {
    const [where, delay = 0] = SLOW.get(i) ?? [];
    if (where) slow[where] = delay;
    L.pending.push(L.next++);
    for (let tries = 0; L.pending.length && tries < 8; tries++) {
      if (await L.attempt(0)) break;
      if (tries > 0) await sleep(delay + 200); // retried at once, then after the delay
      else {
        timeouts.push(`k-${i}:${L.lastError}`);
        // the append lands anyway: in the outbox (or sent, by a retry) once the delay is over
        const there = async () => (await L.reader.outboxRead(L.okey)).some((e) => e.turnId === `k-${i}`) || (await storedMessages(client, L.ovId)).some((m) => m.turn_id === `k-${i}`);
        lateChecks.push(sleep(delay + 300).then(async () => (await there()) && landedLate.push(i)));
      }
    }
    // a turn after a slow one: acknowledged and sent at once (nothing wedged at the head)
    const out = L.outs.at(-1);
    if (!where && i > 2 && L.acked.at(-1) === i && (out.queued || out.outboxLen)) notSent.push(`k-${i}:${JSON.stringify({ queued: out.queued, outboxLen: out.outboxLen })}`);
  }
  await Promise.all(lateChecks);
  console.log(`# slow appends: first attempts rejected: ${timeouts.join(" ")}; landed late: ${landedLate.map((i) => `k-${i}`).join(" ")}`);
  await verify(L, "slow", { timeouts: timeouts.length, landedLate: landedLate.length, notSent });
  assert.deepEqual(notSent, [], "every turn after a slow one acknowledged and sent at once");
  assert.ok(timeouts.length >= SLOW.size && timeouts.every((t) => t.includes("HOST_TIMEOUT")), `each slow append rejected HOST_TIMEOUT first (${timeouts.join(" ")})`);
  assert.ok(landedLate.length >= SLOW.size, "each slow append landed later anyway");
});
