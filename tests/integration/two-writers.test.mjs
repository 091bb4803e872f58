// Two writers on one session: 300 turns of one OpenViking session written through ONE
// state dir by two lanes of writer processes at once (like a gateway and a CLI turn), against
// a real OpenViking 0.5.2. Lane A writes turns 0, 2, 4, …, lane B 1, 3, 5, … (advancementKey
// k-<i>); each lane is a sequence of crash-writer.mjs processes (1–4 turns each) running
// concurrently with the other lane's. The driver SIGKILLs writers inside their writes (at a
// random delay after a turn starts, right as a turn's request goes out, inside an outbox
// append or drop, right after the outbox's write lock was taken). Like OpenClaw, a lane's
// next writer first retries that lane's unacknowledged turns with the same keys. Some retries
// run twice at once ("twins": both lanes' processes retrying the same keys together, to
// prove the dedupe). A last writer flushes. Then every acknowledged turn must be in
// OpenViking (live messages and archives, read with tests/inspect) exactly once, each lane's
// turns in the lane's order, every message's turn_id its turn's key, the outbox empty, and
// the trigger window in the shared turn ledger counting each stored turn once.
//
// Env: TWO_TURNS (300), TWO_KILLS (24: writers killed inside a write, at least), TWO_TWINS
// (3: twin retries, at least), TWO_SEED (random; printed — every writer's plan follows from
// the seed and the writer's number; where a kill lands still depends on timing),
// TWO_VERBOSE=1 (every writer's plan and output on stderr). On a failure, every writer's plan,
// output lines, kill and exit, and what OpenViking holds go to $TMPDIR/two-writers-<seed>.log.
// Runs ~40–70 s here (2 cores).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHarness } from "../../js-glue/test/openviking/helpers.mjs";
import { createClient } from "../inspect/client.js";
import { storedMessages } from "../inspect/stored.js";
import { createStateStore } from "../../js-glue/state-store.js";
import { crashText, prng, spawnWriter } from "./crash-writer.mjs";

const int = (v, d) => (v === undefined || v === "" ? d : Math.max(0, Math.floor(Number(v))));
const TURNS = int(process.env.TWO_TURNS, 300);
const KILLS = int(process.env.TWO_KILLS, 24);
const TWINS = int(process.env.TWO_TWINS, 3);
const SEED = int(process.env.TWO_SEED, (Date.now() ^ (process.pid << 16)) >>> 0) >>> 0;
const VERBOSE = process.env.TWO_VERBOSE === "1";
const SESSION = "two";
const OV_ID = `main--${SESSION}`;
const OKEY = `outbox/${OV_ID}`;
const WATCHDOG_MS = 60000; // a writer still running after this is a hang
const BUDGET_MS = 150000; // the lanes stop handing out turns after this
const CONFIG = { compactTurnThreshold: 10000, compactTokensAddedThreshold: 10000000, compactMaxIntervalMinutes: 10080 };

const cleanup = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

test(`two writers: ${TURNS} turns of one session by two lanes of writer processes at once, ≥ ${KILLS} SIGKILLed mid-write, ≥ ${TWINS} twin retries: each once, lane order kept, nothing wedged`, { timeout: 240000 }, async () => {
  const t0 = performance.now();
  console.log(`# two-writers seed=${SEED} (TWO_SEED=${SEED} to replay the plans) turns=${TURNS} kills>=${KILLS} twins>=${TWINS}`);
  const h = await startHarness();
  cleanup.push(() => h.stop());
  const stateDir = mkdtempSync(join(tmpdir(), "ove-two-"));
  cleanup.push(() => rmSync(stateDir, { recursive: true, force: true }));
  const store = createStateStore(stateDir);
  const live = new Set();
  cleanup.push(() => live.forEach((c) => c.kill("SIGKILL")));
  const base = { baseUrl: h.env.baseUrl, apiKey: h.env.userKey, userId: h.env.userId, stateDir, timeoutMs: 1000, config: CONFIG, sessionId: SESSION, announceStore: true };

  const lanes = ["A", "B"].map((name, l) => ({ name, turns: Array.from({ length: Math.ceil((TURNS - l) / 2) }, (_, j) => 2 * j + l), pos: 0, carried: 0, lastKilledInside: false, current: Promise.resolve() }));
  const acked = new Set();
  const tally = { writers: 0, kills: 0, killsInside: 0, twins: 0, hung: 0, failed: 0, duplicates: 0, exitedBadly: 0 };
  const killKinds = {};
  const failCodes = {};
  const notes = [];
  const log = []; // every writer's plan, output lines, kill and exit: written out on failure
  const logFile = join(tmpdir(), `two-writers-${SEED}.log`);
  let lastFlush = null;

  /** Runs one writer of `lane` on `turns` to its end or its death; kill: {kind, nth, ms} or null. */
  async function runWriter(lane, turns, kill, tag = "") {
    const no = ++tally.writers;
    let phase = "boot";
    let killed = null;
    let done = false;
    const counts = { SEND: 0, APPEND: 0, DROP: 0, LOCKED: 0 };
    const timers = [];
    const fire = (ms) => {
      const go = () => {
        if (killed || done || w.child.exitCode !== null) return;
        killed = phase;
        say(`KILL in ${phase}`);
        w.child.kill("SIGKILL");
      };
      if (ms === 0) go();
      else timers.push(setTimeout(go, ms));
    };
    const say = (l) => {
      const s = `[${no}${lane.name}${tag}] +${(performance.now() - t0).toFixed(0)} ${l}`;
      log.push(s);
      if (VERBOSE) process.stderr.write(`  ${s}\n`);
    };
    say(`PLAN ${turns.join(",")} kill=${JSON.stringify(kill)}`);
    const onLine = (l) => {
      say(l);
      const [word, a, b, c] = l.split(" ");
      if (word === "START") {
        phase = "write";
        if (kill?.kind === "start" && a === `k-${turns[kill.nth]}`) fire(kill.ms);
      } else if (word === "ACK" || word === "FAIL") {
        phase = "between";
        if (word === "FAIL") {
          tally.failed++;
          failCodes[b] = (failCodes[b] ?? 0) + 1;
          return;
        }
        const i = Number(a.slice(2));
        if (b === "duplicate") tally.duplicates++;
        if (acked.has(i)) return; // the twin acknowledged it first
        if (i !== lane.turns[lane.pos]) notes.push(`lane ${lane.name}: turn ${i} acknowledged while ${lane.turns[lane.pos]} was its first unacknowledged one`);
        acked.add(i);
        lane.pos = Math.max(lane.pos, lane.turns.indexOf(i) + 1);
      } else if (word === "FLUSH") phase = "flush";
      else if (word === "FLUSHED") {
        phase = "end";
        lastFlush = JSON.parse(l.slice(8));
      } else if (word === "DONE") done = true;
      else if (word === "SEND" && a === "POST" && b?.includes("/messages")) {
        if (kill?.kind === "send" && ++counts.SEND === kill.nth) fire(kill.ms);
      } else if (word === "HOST" && a in counts && (a !== "LOCKED" || (b === OKEY && c === "true"))) {
        counts[a]++;
        if (kill?.kind === a.toLowerCase() && counts[a] === kill.nth) fire(kill.ms);
      }
    };
    const w = spawnWriter({ ...base, turns, flush: turns.length === 0, flushRounds: 8 }, onLine);
    live.add(w.child);
    const watchdog = setTimeout(() => {
      tally.hung++;
      notes.push(`writer ${no} (${turns.join(",")}) still running after ${WATCHDOG_MS} ms in phase ${phase}; killed`);
      killed = "hung";
      w.child.kill("SIGKILL");
    }, WATCHDOG_MS);
    const { code, signal, stderr } = await w.exited;
    clearTimeout(watchdog);
    timers.forEach(clearTimeout);
    live.delete(w.child);
    const inside = killed === "write" || killed === "flush";
    if (signal === "SIGKILL" && killed !== "hung") {
      tally.kills++;
      if (inside) tally.killsInside++;
      const k = `${kill.kind}${inside ? "" : "(outside)"}`;
      killKinds[k] = (killKinds[k] ?? 0) + 1;
    } else if (!killed && code !== 0) {
      tally.exitedBadly++;
      notes.push(`writer ${no} exited with ${code ?? signal}: ${stderr.slice(-600)}`);
    }
    say(`EXIT ${code ?? signal}${stderr ? ` stderr: ${stderr.trim().slice(-600).replace(/\n/g, " | ")}` : ""}`);
    return { inside };
  }

  /** The lane's next writer: its unacknowledged turns first, then new ones, 1–4 in all; a kill maybe. */
  function plan(lane) {
    const rnd = prng((SEED + Math.imul(tally.writers + 1, 0x9e3779b1)) >>> 0);
    const turns = lane.turns.slice(lane.pos, lane.pos + Math.max(lane.carried, rnd.between(1, 4)));
    const killsLeft = KILLS - tally.killsInside;
    const turnsLeft = TURNS - acked.size;
    const p = killsLeft <= 0 ? 0.12 : Math.min(0.9, (killsLeft * 2) / Math.max(1, turnsLeft / 2.5));
    if (!turns.length || !rnd.chance(p)) return { turns, kill: null };
    const kind = rnd.pick({ start: 3, send: 3, append: 3, drop: 2, locked: 2 });
    const nth = kind === "start" ? rnd.between(0, turns.length - 1) : rnd.between(1, turns.length);
    const ms = kind === "start" ? rnd.between(0, 250) : rnd.chance(0.5) ? 0 : rnd.between(1, 4);
    return { turns, kill: { kind, nth, ms } };
  }

  let gate = null; // a twin step in progress: the other lane waits for it
  async function runLane(lane, other) {
    while (lane.pos < lane.turns.length && performance.now() - t0 < BUDGET_MS) {
      if (gate) await gate;
      const { turns, kill } = plan(lane);
      const twin = lane.lastKilledInside && tally.twins < TWINS && lane.carried > 0 && !gate;
      const before = lane.pos;
      if (twin) {
        // both lanes' processes retry the same keys at once (one of them maybe killed too)
        tally.twins++;
        gate = (async () => {
          await other.current;
          await Promise.all([runWriter(lane, turns, kill, "=1"), runWriter(lane, turns, null, "=2")]);
        })();
        lane.current = gate;
        await gate;
        gate = null;
        lane.lastKilledInside = false;
      } else {
        lane.current = runWriter(lane, turns, kill);
        lane.lastKilledInside = (await lane.current).inside;
      }
      lane.carried = turns.length - (lane.pos - before);
    }
  }
  await Promise.all([runLane(lanes[0], lanes[1]), runLane(lanes[1], lanes[0])]);

  // the end: one last writer flushes (up to 8 rounds) until the outbox is empty
  await runWriter({ name: "F", turns: [], pos: 0 }, [], null);
  const outboxLeft = (await store.outboxRead(OKEY)).length;
  const client = createClient({ baseUrl: h.env.baseUrl, apiKey: h.env.userKey, agentId: "main" });
  const stored = await storedMessages(client, OV_ID).catch((e) => (e.code === "NOT_FOUND" ? [] : Promise.reject(e)));

  const turnOf = (m) => {
    const text = m.parts?.find((p) => p.type === "text")?.text ?? "";
    const hit = m.role === "user" ? /\(k-(\d+)\)/.exec(text) : /^Noted (\d+)\./.exec(text);
    return hit ? Number(hit[1]) : null;
  };
  const users = stored.filter((m) => m.role === "user").map(turnOf);
  const seen = new Map();
  for (const i of users) seen.set(i, (seen.get(i) ?? 0) + 1);
  const doubled = [...seen.values()].reduce((s, n) => s + Math.max(0, n - 1), 0);
  const lost = [...acked].filter((i) => !seen.has(i)).sort((x, y) => x - y);
  const strangers = users.filter((i) => i === null || !acked.has(i));
  const badIds = stored.filter((m) => turnOf(m) === null || m.turn_id !== `k-${turnOf(m)}`);
  const outOfOrder = lanes.map((lane) => users.filter((i) => i !== null && i % 2 === lanes.indexOf(lane))).filter((seq) => seq.some((i, j) => j > 0 && i < seq[j - 1]));
  const wedged = outboxLeft + (lastFlush?.queued ?? 1) + (lastFlush?.reason ? 1 : 0);
  const seconds = ((performance.now() - t0) / 1000).toFixed(0);
  console.log(`# two-writers acknowledged=${acked.size} stored=${users.length} doubled=${doubled} wedged=${wedged} | lost=${lost.length} seed=${SEED} seconds=${seconds} writers=${tally.writers} kills=${tally.kills} killsInsideWrite=${tally.killsInside} killKinds=${JSON.stringify(killKinds)} twins=${tally.twins} duplicateAnswers=${tally.duplicates} writeFailures=${tally.failed} ${JSON.stringify(failCodes)} hung=${tally.hung} outboxLeft=${outboxLeft} lastFlush=${JSON.stringify(lastFlush)} messages=${stored.length} badTurnIds=${badIds.length} strangers=${strangers.length}`);
  if (lost.length) console.log(`# lost (first 40): ${lost.slice(0, 40).map((i) => `k-${i}`).join(" ")}`);
  if (doubled) console.log(`# doubled: ${[...seen].filter(([, n]) => n > 1).map(([i, n]) => `k-${i}×${n}`).join(" ")}`);
  if (outboxLeft) console.log(`# outbox left: ${JSON.stringify((await store.outboxRead(OKEY)).map((e) => [e.sequence, e.turnId]))}`);
  if (doubled || lost.length || wedged || notes.length) {
    writeFileSync(logFile, `${log.join("\n")}\n\n# stored\n${stored.map((m) => `${m.from} ${m.id} ${m.role} ${m.turn_id} ${m.created_at}`).join("\n")}\n`);
    console.log(`# the writers' log and what OpenViking holds: ${logFile}`);
  }
  if (notes.length) console.log(`# driver notes:\n${notes.slice(0, 30).map((n) => `#   ${n}`).join("\n")}`);

  // the product first: none lost, none twice, lane order kept, the right ids, nothing wedged
  assert.deepEqual(lost, [], "no acknowledged turn lost");
  assert.equal(doubled, 0, "no turn stored twice");
  assert.deepEqual(strangers, [], "nothing but acknowledged turns");
  assert.equal(badIds.length, 0, `every message's turn_id is its turn's key (first: ${JSON.stringify(badIds[0])?.slice(0, 300)})`);
  assert.equal(outOfOrder.length, 0, "each lane's turns in the lane's order");
  assert.equal(stored.length, users.length * 2, "two messages per turn");
  assert.equal(outboxLeft, 0, "the outbox drained");
  assert.equal(lastFlush?.queued, 0, "the last flush left nothing queued");
  assert.equal(lastFlush?.reason ?? null, null, "the last flush gave no reason");
  // the trigger window both lanes count (no commit ran): every stored turn once, whichever
  // writer wrote it and wherever one was killed
  const window = (await store.loadState(`turns/${OV_ID}`))?.window;
  const sequences = (window?.turns ?? []).map((t) => t.s);
  assert.equal(new Set(sequences).size, sequences.length, "no turn twice in the window");
  if ((window?.carried?.turns ?? 0) + sequences.length !== users.length) {
    const ids = new Set([...(window?.carried_ids ?? window?.carriedIds ?? []), ...(window?.turns ?? []).map((t) => t.id)]);
    console.log(`# window: carried ${JSON.stringify(window?.carried)} through ${window?.carriedThrough}; turns not in it: ${users.filter((i) => !ids.has(`k-${i}`)).join(" ")}; log ${logFile}`);
    writeFileSync(logFile, `${log.join("\n")}\n`);
  }
  assert.equal((window?.carried?.turns ?? 0) + sequences.length, users.length, "the shared trigger window counts every stored turn");
  assert.equal(tally.hung, 0, "no writer hung");
  assert.equal(tally.exitedBadly, 0, "no writer crashed by itself");
  assert.deepEqual(notes, [], "driver invariants");
  // then that the run was the run it claims to be
  assert.equal(acked.size, TURNS, "every turn handed out was acknowledged");
  assert.ok(tally.killsInside >= KILLS, `at least ${KILLS} writers killed inside a write (got ${tally.killsInside})`);
  assert.ok(tally.twins >= TWINS, `at least ${TWINS} twin retries (got ${tally.twins})`);
});
