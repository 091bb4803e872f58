// Crash-kill durability: ≥ 300 turns of one OpenViking session (remote mode, no commit),
// written by a sequence of writer processes (crash-writer.mjs, 1–3 turns each) that share
// one state dir, through the fault proxy in front of a real OpenViking. The driver
// SIGKILLs writers inside their writes — at random delays after a turn starts, right as a
// turn's request goes out, while the proxy holds a request (timeout) or has just dropped
// the answer of a stored one (lost), in the middle of an outbox replay or a flush — injects
// every proxy fault, and kills and restarts OpenViking itself. Like OpenClaw, the next
// writer first retries every turn that was not acknowledged (same advancementKey), then
// goes on with new ones; an acknowledged turn is never retried. At the end (proxy passing,
// a last writer flushing) every turn must be in OpenViking's live messages exactly once, in
// order, and the outbox empty.
//
// Env: CRASH_TURNS (300), CRASH_KILLS (24: writers killed inside a write, at least),
// CRASH_RESTARTS (3), CRASH_SEED (random; printed — each writer's plan of proxy mode, turn
// count, kill kind and delay follows from the seed and the writer's number; where exactly a
// kill lands still depends on timing), CRASH_TIMEOUT_S (max(270, 1.2 × turns)),
// CRASH_VERBOSE=1 (every writer's plan and output on stderr).
// The default run takes ~2.5–3 min here; the longer one (~10 min):
//   CRASH_TURNS=1000 CRASH_KILLS=60 CRASH_RESTARTS=6 node --test tests/integration/crash-kill.test.mjs
// Kills of OpenViking happen between writers (a server killed in the middle of a batch
// append is OpenViking's durability, not the engine's); the writers after it run against
// the dead server until it is restarted.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { REPO, startHarness } from "../../js-glue/test/openviking/helpers.mjs";
import { startFaultProxy } from "./fault-proxy.mjs";
import { makeEngine } from "./engine-host.mjs";
import { createStateStore } from "../../js-glue/state-store.js";
import { crashText, prng } from "./crash-writer.mjs";

const WRITER = fileURLToPath(new URL("./crash-writer.mjs", import.meta.url));
const int = (v, d) => (v === undefined || v === "" ? d : Math.max(0, Math.floor(Number(v))));
const TURNS = int(process.env.CRASH_TURNS, 300);
const KILLS = int(process.env.CRASH_KILLS, 24);
const RESTARTS = int(process.env.CRASH_RESTARTS, 3);
const SEED = int(process.env.CRASH_SEED, (Date.now() ^ (process.pid << 16)) >>> 0) >>> 0;
const TIMEOUT_S = int(process.env.CRASH_TIMEOUT_S, Math.max(270, Math.ceil(TURNS * 1.2)));
const SESSION = "crash";
const OV_ID = `main--${SESSION}`;
const TIMEOUT_MS = 1000; // per OpenViking call (the config's lower bound)
const WATCHDOG_MS = 60000; // a writer still running after this is a hang
const VERBOSE = process.env.CRASH_VERBOSE === "1"; // every writer's plan and output on stderr
const CONFIG = { compactTurnThreshold: 10000, compactTokensAddedThreshold: 10000000, compactMaxIntervalMinutes: 10080 };

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const run = promisify(execFile);
const harness = (cmd, dir) => run(process.env.PYTHON || "python3", [join(REPO, "tests/openviking/harness.py"), cmd, "--workdir", dir], { timeout: 120000 });

const cleanup = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

test(`crash-kill: ${TURNS} turns, ≥ ${KILLS} writers SIGKILLed mid-write, ${RESTARTS} OpenViking restarts: none lost, none twice, in order`, { timeout: TIMEOUT_S * 1000 }, async () => {
  const t0 = performance.now();
  const rnd = prng(SEED);
  console.log(`# crash-kill seed=${SEED} (CRASH_SEED=${SEED} to replay the plan) turns=${TURNS} kills>=${KILLS} restarts=${RESTARTS}`);
  const h = await startHarness();
  cleanup.push(() => h.stop());
  const setupSeconds = (performance.now() - t0) / 1000;
  let restartSeconds = 0;
  const proxy = await startFaultProxy({ upstream: h.env.baseUrl });
  cleanup.push(() => proxy.close());
  const stateDir = mkdtempSync(join(tmpdir(), "ove-crash-"));
  cleanup.push(() => rmSync(stateDir, { recursive: true, force: true }));
  const store = createStateStore(stateDir);
  const live = new Set(); // running writers, killed on the way out if the test fails
  cleanup.push(() => {
    for (const c of live) c.kill("SIGKILL");
  });

  // proxy modes change from timers too: one change at a time, in order
  let modeChain = Promise.resolve();
  const setMode = (m) => (modeChain = modeChain.then(() => proxy.setMode(m)));

  const acked = new Set();
  let next = 0; // the first turn not acknowledged (acknowledged turns are always a prefix)
  let carried = 0; // turns handed to the last writer and not acknowledged by it
  const tally = { pauseWaits: 0, writers: 0, kills: 0, killsInside: 0, killsOutside: 0, hung: 0, failed: 0, exitedBadly: 0, duplicateAnswers: 0, retries: 0, restarts: 0 };
  const killKinds = {};
  const modes = {};
  const failures = [];

  /** Runs one writer to its end (or its death). plan: {turns, flush, mode, kill, serverDown} */
  async function runWriter(plan) {
    tally.writers++;
    if (VERBOSE) process.stderr.write(`writer ${tally.writers} next=${next} ${JSON.stringify(plan)}\n`);
    modes[plan.mode] = (modes[plan.mode] ?? 0) + 1;
    // a writer kept from OpenViking by the pause after a timeout (src/openviking/pause.rs)
    // sends nothing (no request to hold or lose, a write over at once): a writer to be killed,
    // and the last writer's flush, wait for the pause to end
    if (plan.kill || plan.flushRounds) {
      // (one document per server and key: the proxy's, the only one here)
      const kept = await Promise.all((await store.listStateKeys("openviking/paused/")).map((k) => store.loadState(k)));
      const until = Math.max(0, ...kept.map((p) => p?.untilMs ?? 0));
      if (until > Date.now()) {
        tally.pauseWaits++;
        await sleep(until - Date.now() + 50);
      }
    }
    await setMode(plan.mode);
    const args = { baseUrl: proxy.url, apiKey: h.env.userKey, userId: h.env.userId, stateDir, timeoutMs: TIMEOUT_MS, config: CONFIG, sessionId: SESSION, turns: plan.turns, flush: plan.flush, flushRounds: plan.flushRounds ?? 1 };
    const started = performance.now();
    const child = spawn(process.execPath, [WRITER], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, CRASH_WRITER_ARGS: JSON.stringify(args) } });
    live.add(child);
    const timers = [];
    const offs = [];
    const later = (ms, fn) => timers.push(setTimeout(fn, ms));
    let phase = "boot"; // boot | write | between | flush | end
    let killedIn = null;
    let killed = false;
    let done = false;
    let stderr = "";
    const acks = [];
    const kill = () => {
      if (killed || done || child.exitCode !== null || child.signalCode !== null) return;
      killed = true;
      killedIn = phase;
      child.kill("SIGKILL");
    };
    let messageSends = 0;
    const k = plan.kill;
    const onLine = (l) => {
      if (VERBOSE) process.stderr.write(`  [${tally.writers}] +${(performance.now() - started).toFixed(0)} ${l}\n`);
      const [word, a, b] = l.split(" ");
      if (word === "START") {
        phase = "write";
        if (k?.kind === "start" && a === `k-${plan.turns[k.nth]}`) later(k.ms, kill);
        if (plan.switchToPassMs !== undefined && a === `k-${plan.turns[0]}`) later(plan.switchToPassMs, () => setMode("pass"));
      } else if (word === "ACK") {
        phase = "between";
        const i = Number(a.slice(2));
        if (acked.has(i)) failures.push(`turn ${i} acknowledged twice`);
        if (i !== next) failures.push(`turn ${i} acknowledged while ${next} was the first unacknowledged one`);
        acked.add(i);
        acks.push(i);
        next = i + 1;
        if (b === "duplicate") tally.duplicateAnswers++;
      } else if (word === "FAIL") {
        phase = "between";
        tally.failed++;
        if (failures.length < 50) failures.push(`writer: ${l}`);
      } else if (word === "SEND") {
        if (b?.includes("/messages")) {
          messageSends++;
          if ((k?.kind === "send" || k?.kind === "replay") && messageSends === k.nth) {
            if (k.ms === 0) kill();
            else later(k.ms, kill);
          }
        }
      } else if (word === "FLUSH") {
        phase = "flush";
        if (k?.kind === "flush") later(k.ms, kill);
      } else if (word === "FLUSHED") {
        phase = "end";
      } else if (word === "DONE") {
        done = true;
        phase = "end";
      }
    };
    if (k?.kind === "hold") {
      // held: the turn's own write (or, with anyRequest, whatever is held first)
      // (the second held request of any kind when no turn write is held: a writer whose turn
      // went to the outbox first may hold only session reads)
      let holds = 0;
      offs.push(proxy.on("hold", (w) => {
        holds++;
        if (k.anyRequest || w.url.includes("/messages") || holds === 2) later(k.ms, kill);
      }));
    }
    if (k?.kind === "lost") {
      let losts = 0;
      offs.push(proxy.on("lost", (w) => {
        losts++;
        if (w.url.includes("/messages") || losts === 2) later(k.ms, kill);
      }));
    }
    if (plan.mode === "timeout" && k?.kind !== "hold") {
      // a held request either times out in the writer or is reset by the switch to pass
      let once = false;
      offs.push(proxy.on("hold", () => {
        if (once) return;
        once = true;
        later(plan.holdMs, () => setMode("pass"));
      }));
    }
    let buf = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d) => {
      buf += d;
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const l = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        onLine(l);
      }
    });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
    const watchdog = setTimeout(() => {
      tally.hung++;
      failures.push(`writer for ${plan.turns.join(",")} still running after ${WATCHDOG_MS} ms (phase ${phase}); killed`);
      killed = true;
      killedIn = "hung";
      child.kill("SIGKILL");
    }, WATCHDOG_MS);
    const { code, signal } = await new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal })));
    clearTimeout(watchdog);
    for (const t of timers) clearTimeout(t);
    for (const off of offs) off();
    live.delete(child);
    if (VERBOSE) process.stderr.write(`  [${tally.writers}] exit ${code ?? signal} after ${(performance.now() - started).toFixed(0)} ms${killed ? ` killed in ${killedIn}` : ""}${stderr ? `\n  stderr: ${stderr.trim().slice(-1500)}` : ""}\n`);
    if (signal === "SIGKILL" && killedIn !== "hung") {
      tally.kills++;
      const inside = killedIn === "write" || killedIn === "flush";
      if (inside) tally.killsInside++;
      else tally.killsOutside++;
      const key = `${k?.kind ?? "?"}${inside ? "" : "(outside)"}`;
      killKinds[key] = (killKinds[key] ?? 0) + 1;
    } else if (!killed && code !== 0) {
      tally.exitedBadly++;
      failures.push(`writer exited with ${code ?? signal}: ${stderr.slice(-600)}`);
    }
    // a request the dead writer left on its way to OpenViking lands before the next writer
    // starts (as it would with seconds between two OpenClaw runs)
    await Promise.race([proxy.idle(), sleep(20000)]);
    carried = plan.turns.length - acks.length;
    return { acks, killed, stderr };
  }

  /** The next writer's plan: the unacknowledged turns first, then new ones, 1–3 in all. */
  async function nextPlan({ serverDown = false } = {}) {
    // writer n's plan draws from its own stream: timing (what the outbox holds, which kill
    // landed) changes one plan, not every plan after it
    const rnd = prng((SEED + Math.imul(tally.writers + 1, 0x9e3779b1)) >>> 0);
    const want = Math.max(carried, rnd.between(1, 3));
    const turns = [];
    for (let i = next; i < Math.min(TURNS, next + want); i++) turns.push(i);
    tally.retries += Math.min(carried, turns.length);
    const outboxLen = (await store.outboxRead(`outbox/${OV_ID}`)).length;
    const killsLeft = KILLS - tally.killsInside;
    const turnsLeft = TURNS - next;
    // a kill at a random delay after a turn starts may land after the write ended (the faster
    // the write, the likelier): the last writers are made to kill inside one, right as a turn
    // starts (a held request would do too, but held requests in a row grow the pause a hung
    // server starts, up to minutes), with a few writers to spare
    const force = killsLeft > 0 && killsLeft * 4 >= turnsLeft;
    const p = killsLeft <= 0 ? 0.06 : Math.min(0.9, (killsLeft * 1.6) / Math.max(1, turnsLeft / 2));
    const flush = rnd.chance(0.25);
    let mode = serverDown ? "pass" : rnd.pick({ pass: 48, refuse: 8, timeout: 7, reset: 9, "5xx": 9, garbage: 8, lost: 9 });
    let kill = null;
    if (force || rnd.chance(p)) {
      const kinds = serverDown
        ? { start: 3, send: 3, flush: flush ? 1 : 0 }
        : { start: 3, send: mode === "pass" ? 3 : 1, hold: 2, lost: 2, replay: outboxLen > 0 && mode === "pass" ? 3 : 0, flush: flush ? 1 : 0 };
      const kind = force ? "start" : rnd.pick(kinds);
      if (kind === "hold") {
        mode = "timeout";
        kill = { kind, ms: rnd.between(0, 700), anyRequest: rnd.chance(0.25) };
      } else if (kind === "lost") {
        mode = "lost";
        kill = { kind, ms: rnd.between(0, 30) };
      } else if (kind === "start") {
        kill = { kind, nth: rnd.between(0, turns.length - 1), ms: force ? rnd.between(0, 20) : rnd.between(0, 400) };
      } else if (kind === "send") {
        kill = { kind, nth: rnd.between(1, Math.max(1, turns.length)), ms: rnd.chance(0.4) ? 0 : rnd.between(1, 15) };
      } else if (kind === "replay") {
        kill = { kind, nth: rnd.between(1, Math.min(4, outboxLen + 1)), ms: rnd.chance(0.4) ? 0 : rnd.between(1, 15) };
      } else {
        kill = { kind, ms: rnd.between(0, 60) };
      }
    }
    const plan = { turns, flush, mode, kill, serverDown };
    if (mode === "timeout") plan.holdMs = rnd.between(100, 1200);
    else if (mode !== "pass" && !kill && rnd.chance(0.4)) plan.switchToPassMs = rnd.between(0, 800);
    return plan;
  }

  // OpenViking restarts: spread over the run, a little jitter
  const restartAt = [];
  for (let r = 0; r < RESTARTS; r++) restartAt.push(Math.floor((TURNS * (r + 0.5 + (rnd.next() - 0.5) * 0.4)) / RESTARTS));

  while (next < TURNS) {
    if (restartAt.length && next >= restartAt[0]) {
      restartAt.shift();
      await setMode("pass");
      await harness("kill-server", h.dir);
      const down = rnd.between(1, 3);
      for (let w = 0; w < down && next < TURNS; w++) await runWriter(await nextPlan({ serverDown: true }));
      const r0 = performance.now();
      await harness("restart-server", h.dir);
      restartSeconds += (performance.now() - r0) / 1000;
      tally.restarts++;
      continue;
    }
    await runWriter(await nextPlan());
    if (performance.now() - t0 > (TIMEOUT_S - 30) * 1000) {
      failures.push(`stopped at turn ${next} of ${TURNS}: out of time`);
      break;
    }
  }

  // the end: everything passes, one last writer flushes until the outbox is empty
  await setMode("pass");
  const last = await runWriter({ turns: [], flush: true, flushRounds: 8, mode: "pass", kill: null });
  const outboxLeft = (await store.outboxRead(`outbox/${OV_ID}`)).length;

  const direct = (await makeEngine({ baseUrl: h.env.baseUrl, apiKey: h.env.userKey, userId: h.env.userId, stateDir: join(stateDir, "direct") })).client;
  const absent = (err) => {
    if (err?.code === "NOT_FOUND") return null;
    throw err;
  };
  const meta = (await direct.getSession(OV_ID, { autoCreate: false }).catch(absent)) ?? { message_count: 0 };
  const ctx = (await direct.sessionContext(OV_ID, { tokenBudget: 1_000_000_000 }).catch(absent)) ?? { messages: [] };
  const found = (ctx.messages ?? []).filter((m) => m.role === "user").map((m) => m.parts?.find((p) => p.type === "text")?.text);
  const written = next; // turns handed out and acknowledged
  const expected = Array.from({ length: written }, (_, i) => crashText(i));
  const seen = new Map();
  for (const t of found) seen.set(t, (seen.get(t) ?? 0) + 1);
  const lostTurns = expected.map((t, i) => (seen.has(t) ? -1 : i)).filter((i) => i >= 0);
  let duplicated = 0;
  for (const n of seen.values()) if (n > 1) duplicated += n - 1;
  const strangers = found.filter((t) => !expected.includes(t)).length;
  const deduped = found.filter((t, i) => found.indexOf(t) === i);
  const orderKept = deduped.filter((t) => expected.includes(t)).every((t, i, arr) => i === 0 || expected.indexOf(arr[i - 1]) < expected.indexOf(t));
  const seconds = ((performance.now() - t0) / 1000).toFixed(0);
  console.log(
    `# crash-kill turns=${TURNS} acked=${acked.size} found=${found.length} lost=${lostTurns.length} duplicated=${duplicated} kills=${tally.kills} restarts=${tally.restarts} faults=${JSON.stringify(proxy.stats)} seconds=${seconds}` +
      ` | seed=${SEED} killsInsideWrite=${tally.killsInside} killKinds=${JSON.stringify(killKinds)} writers=${tally.writers} pauseWaits=${tally.pauseWaits} writerModes=${JSON.stringify(modes)} retriedTurns=${tally.retries} duplicateAnswers=${tally.duplicateAnswers} writeFailures=${tally.failed} hung=${tally.hung} outboxLeft=${outboxLeft} liveMessages=${meta?.message_count} orderKept=${orderKept} strangers=${strangers} harnessStartSeconds=${setupSeconds.toFixed(0)} restartSeconds=${restartSeconds.toFixed(0)}`,
  );
  if (lostTurns.length) console.log(`# lost turns (first 40): ${lostTurns.slice(0, 40).map((i) => `k-${i}`).join(" ")}`);
  if (failures.length) console.log(`# driver notes:\n${failures.slice(0, 30).map((f) => `#   ${f}`).join("\n")}`);
  if (outboxLeft) console.log(`# last writer: ${last.stderr.slice(-800)}`);

  // the product first: nothing lost, nothing twice, in order, nothing left behind
  assert.equal(lostTurns.length, 0, `no acknowledged turn lost (lost ${lostTurns.length}: ${lostTurns.slice(0, 20).map((i) => `k-${i}`).join(" ")})`);
  assert.equal(duplicated, 0, "no turn stored twice");
  assert.equal(strangers, 0, "nothing but the turns");
  assert.deepEqual(found, expected, "every turn once, in order");
  assert.equal(meta.message_count, written * 2, "two live messages per turn");
  assert.equal(outboxLeft, 0, "the outbox drained");
  assert.equal(tally.hung, 0, "no writer hung");
  assert.equal(tally.exitedBadly, 0, "no writer crashed by itself");
  // then that the run was the run it claims to be
  assert.equal(written, TURNS, "every turn was handed out and acknowledged");
  assert.equal(acked.size, TURNS);
  assert.ok(tally.killsInside >= KILLS, `at least ${KILLS} writers killed inside a write (got ${tally.killsInside})`);
  assert.ok(tally.restarts >= RESTARTS, `${RESTARTS} OpenViking restarts`);
  for (const f of ["refuse", "timeout", "reset", "5xx", "garbage", "lost"]) assert.ok(proxy.stats[f] > 0, `the proxy injected '${f}'`);
  assert.deepEqual(failures.filter((f) => !f.startsWith("writer: FAIL")), [], "driver invariants");
});
