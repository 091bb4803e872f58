// One fuzz worker: loads the test build (tests/support/packages.mjs: the plugin's and the
// page's exports and the test-only ones, on one instance) and the plugin's package as the
// plugin does (js-glue/wasm.js, whose loader is fuzzed too), takes case ids
// from the pool, runs them (async ones concurrently), counts every call's outcome in the
// shared counters and reports each new kind of failure with its input.
import { parentPort, workerData } from "node:worker_threads";
import { writeSync } from "node:fs";
import { setImmediate as tick } from "node:timers/promises";
import { loadEngineSync } from "../../../js-glue/wasm.js";
import { loadEngine } from "../../support/packages.mjs";
import { caseRng } from "./prng.mjs";
import { ctx, origin } from "./values.mjs";
import { classifyError, safeMessage, CODES } from "./checks.mjs";
import { describeArgs } from "./describe.mjs";
import { goodHost, hostSlots } from "./hosts.mjs";
import { TARGETS, pickTarget, engineConfigs, genericTargets, unknownSurface, SKIP } from "./targets.mjs";
import { startServer } from "./server.mjs";
import { SLOT, POOL } from "./slots.mjs";
import { knownError, STRICT } from "./known.mjs";

const { seed, view: viewBuf, pool: poolBuf, targetCalls, cases, only, skip, verbose, settleMs, maxInFlight, probeEvery, recycleAfter } = workerData;
const view = new Int32Array(viewBuf);
const pool = new Int32Array(poolBuf);
hostSlots.view = view;
hostSlots.LAST_CASE = SLOT.LAST_CASE;
hostSlots.CALLS = SLOT.HOST_CALLS;
const add = (slot, n = 1) => Atomics.add(view, slot, n);
// --verbose output, written synchronously (a worker that blocks is killed: buffered lines would be lost)
const say = (line) => writeSync(1, line + "\n");
setInterval(() => add(SLOT.HEARTBEAT), 50).unref();

const pkg = await loadEngine();
const GENERIC = genericTargets(pkg);
if (workerData.first) parentPort.postMessage({ type: "surface", unknown: unknownSurface(pkg).map((u) => (u.kind === "export" ? u.name : `${u.kind}#${u.name}`)) });
const W = {
  pkg,
  pluginPkg: loadEngineSync(),
  loadEngineSync,
  engines: [],
  engineCfg: [],
  engineConfigs: engineConfigs(seed),
  server: await startServer(),
  settle: (timeoutMs) => settleMs ?? 4 * timeoutMs + 1000,
};

// ---- failure records ------------------------------------------------------------------------

const seen = new Map(); // signature → count not yet reported
let flushTimer = null;
function normalize(s) {
  return String(s)
    .replace(/ — during .*$/s, "")
    .replace(/\[fz#-?\d+\]/g, "")
    .replace(/"(?:[^"\\]|\\.){0,400}"/g, '"…"')
    .replace(/\b\d+(\.\d+)?(e[+-]?\d+)?\b/g, "#")
    .replace(/\s+/g, " ")
    .slice(0, 160);
}
function record(kind, c, label, detail, args, how) {
  if (poisoned && label !== "instance poisoned") detail = `${detail} (recorded after the instance was found poisoned)`;
  const sig = `${kind} | ${label} | ${normalize(detail)}`;
  if (!seen.has(sig)) {
    seen.set(sig, 0);
    parentPort.postMessage({
      type: "failure", sig, kind, label, detail: String(detail).slice(0, 600), caseId: c?.id ?? -1, target: c?.target ?? "?",
      how: how ?? null, host: c?.hostInfo ?? null, args: args ? describeArgs(args) : null,
    });
  } else seen.set(sig, seen.get(sig) + 1);
  if (verbose) say(`  ✗ [case ${c?.id}] ${kind} ${label}: ${String(detail).slice(0, 300)}`);
  flushTimer ??= setTimeout(flushCounts, 250);
}
function flushCounts() {
  flushTimer = null;
  const deltas = {};
  for (const [k, n] of seen) if (n) { deltas[k] = n; seen.set(k, 0); }
  if (Object.keys(deltas).length) parentPort.postMessage({ type: "counts", deltas });
}

// ---- probes: is the instance still sound? ---------------------------------------------------

const PROBE_TEXT = "The quick brown fox — 数据库慢查询优化 😀";
const PROBE_REQ = { prompt: "which theme do I like?", search: { user: [{ uri: "viking://user/u/memories/preferences/t.md", level: 2, score: 0.9, abstract: "dark theme" }] }, nowMs: 1764000000000 };
const baseline = {
  tokens: pkg.estimateTokens(PROBE_TEXT),
  recall: JSON.stringify(new pkg.Engine({}, {}).autoRecall(PROBE_REQ)),
};
const PROBE_TURN = { sessionId: "probe", messages: [{ role: "user", content: "We decided on Postgres 16", timestamp: 1 }, { role: "assistant", content: [{ type: "text", text: "Noted." }] }] };

let probing = null;
let poisoned = false;
let lastAsyncProbe = -Infinity;
function probe(reason) {
  if (probing || poisoned) return probing;
  probing = (async () => {
    add(SLOT.probes);
    let what = null;
    try {
      if (pkg.estimateTokens(PROBE_TEXT) !== baseline.tokens) what = "estimateTokens gives another answer";
      const e = new pkg.Engine({}, {});
      if (JSON.stringify(e.autoRecall(PROBE_REQ)) !== baseline.recall) what = "autoRecall gives another answer";
      e.free();
    } catch (err) {
      what = `a known-good sync call threw: ${safeMessage(err)}`;
    }
    // the async checks at most every 200 ms (a run of failing sync calls would otherwise wait on them)
    const asyncDue = performance.now() - lastAsyncProbe > 200;
    if (!what && asyncDue) {
      lastAsyncProbe = performance.now();
      // the executor: a future that fails at its first poll must settle at once (microtasks)
      const p = pkg.liveSearch({ probe: true }).then(() => "resolved", () => "rejected");
      const r = await Promise.race([p, new Promise((res) => setTimeout(() => res("timeout"), 500))]);
      if (r === "timeout") what = "the wasm async executor is stuck: a liveSearch({}) that fails at its first poll did not settle in 500 ms";
    }
    if (!what && asyncDue) {
      try {
        const ce = new pkg.ContextEngine({ agentId: "probe", timeoutMs: 1000 }, {}, goodHost(caseRng(seed, -7)));
        const out = await Promise.race([ce.writeTurn(PROBE_TURN), new Promise((r) => setTimeout(() => r("timeout"), 3000))]);
        if (out === "timeout") what = "a known-good ContextEngine#writeTurn did not settle in 3 s";
        else if (out?.status !== "committed") what = `a known-good ContextEngine#writeTurn resolved to ${JSON.stringify(out)}`;
        else ce.free();
      } catch (err) {
        what = `a known-good ContextEngine#writeTurn failed: ${safeMessage(err)}`;
      }
    }
    if (what) {
      poisoned = true;
      add(SLOT.traps);
      // one signature per kind of damage (the stale message inside varies)
      record("trap", { id: reasonCase(reason), target: reason, hostInfo: null }, "instance poisoned", what.replace(/\(.*\)/, "(…)"), null, `${what} — after ${reason}`);
      flushCounts();
      parentPort.postMessage({ type: "poisoned", reason, what });
      // a fresh worker (a fresh wasm instance) takes over now; the calls in flight here still
      // run to their bounds (a call that never settles is counted), then this worker exits
      parentPort.postMessage({ type: "draining" });
    }
  })().finally(() => {
    probing = null;
  });
  return probing;
}

function reasonCase(reason) {
  const m = /case (-?\d+)/.exec(reason);
  return m ? Number(m[1]) : -1;
}

// ---- a case ---------------------------------------------------------------------------------

const running = new Map(); // case id → CaseRun (async cases in flight)


/**
 * A timeout that counts only the time this worker's event loop was free to run timers. With
 * hundreds of cases in flight, the loop can stall for a second or more (collecting the
 * garbage of huge hostile inputs); the engine's own deadline timer is late by as much, so a
 * wall-clock bound would blame the engine for the harness's load. Each tick credits at most
 * 1.5 ticks, however late it ran.
 * @param {number} ms
 */
function patientTimer(ms) {
  const TICK = 250;
  let credited = 0;
  let last = performance.now();
  let handle;
  let fire;
  const fired = new Promise((r) => (fire = r));
  const tick = () => {
    const now = performance.now();
    credited += Math.min(now - last, TICK * 1.5);
    last = now;
    if (credited >= ms) fire();
    else handle = setTimeout(tick, Math.min(TICK, ms - credited));
  };
  handle = setTimeout(tick, Math.min(TICK, ms));
  return { fired, cancel: () => clearTimeout(handle) };
}

class CaseRun {
  constructor(id) {
    this.id = id;
    this.rng = caseRng(seed, id);
    // lone surrogates in the texts of this case (valid JS strings: they must be accepted)
    this.lone = this.rng.chance(0.2);
    this.rng.lone = this.lone;
    this.rng.huge = this.rng.chance(0.004) ? 1 : 0;
    this.rng.deep = this.rng.chance(0.03) ? 1 : 0;
    this.hostInfo = null;
    this.target = null;
    this.label = null;
  }
  fail(kind, label, detail, args, how) {
    this.failed = true;
    if (kind !== "invariant") this.serious = true;
    record(kind, this, label, detail, args, how);
  }
  note(detail) {
    add(SLOT.invariant);
    this.fail("invariant", "host protocol", detail, null, null);
  }
  poisoned(what) {
    add(SLOT.traps);
    this.fail("trap", "instance poisoned", what.replace(/\(.*\)/, "(…)"), null, what);
  }
  runaway(n) {
    add(SLOT.runaways);
    record("runaway", this, this.label ?? this.target, `the engine made ${n} host calls in one case (a loop on a broken clock/sleep/answer); host parked`, null, null);
  }
  /** A thrown/rejected value: counted, and a failure unless it is a coded engine error. */
  caught(label, e, { args, how, expectOk, expectError, allowCodes }) {
    // calling a method of a freed object is a programming error in the caller, answered by
    // wasm-bindgen's own glue before the engine runs ("null pointer passed to rust"): counted
    // apart as misuse (documented), not as a code-less engine error
    if (how === "use after free" && /null pointer passed to rust|attempted to take ownership/i.test(String(e?.message ?? ""))) {
      add(SLOT.misuse);
      return { failed: false };
    }
    const cl = classifyError(e);
    if (cl.kind === "trap") {
      add(SLOT.traps);
      this.fail("trap", label, cl.message, args, how);
      return { failed: true, trap: true };
    }
    if (cl.kind === "codeless") {
      add(SLOT.codeless);
      this.fail("codeless", label, `${cl.what}: ${cl.message}`, args, how);
      return { failed: true };
    }
    // an engine bug already reported (lib/known.mjs): counted apart, not failing the run
    const known = knownError(label, cl);
    if (known) {
      add(SLOT.known);
      record("known", this, label, `known engine bug ${known.id}: ${cl.code} (field ${cl.field}): ${cl.message}`, args, how);
      return { failed: false, known: true };
    }
    // a retry of a turn whose first attempt is still on its way into the outbox is refused
    // (retryable) by design: "duplicate" before the turn is durable could lose it
    const retryOfInFlight = cl.code === "HOST_TIMEOUT" && /still being stored/.test(cl.message ?? "");
    // an input with one known fault: refused with INVALID_INPUT naming that field
    if (expectError && (cl.code !== expectError.code || (expectError.field !== undefined && cl.field !== expectError.field))) {
      add(SLOT.invariant);
      this.fail("invariant", label, `wrong error for an input with one fault (${expectError.code} on field ${JSON.stringify(expectError.field)} expected): ${cl.code} (field ${JSON.stringify(cl.field)}): ${cl.message}`, args, how);
      return { failed: true };
    }
    // a valid input on a misbehaving host: only these codes are acceptable (the call degrades otherwise)
    if (allowCodes && !allowCodes.includes(cl.code) && !retryOfInFlight) {
      add(SLOT.invariant);
      this.fail("invariant", label, `valid input failed with ${cl.code} (field ${cl.field}) on a misbehaving host; only ${allowCodes.join("/")} may happen: ${cl.message}`, args, how);
      return { failed: true };
    }
    if (expectOk && !retryOfInFlight) {
      add(SLOT.invariant);
      this.fail("invariant", label, `valid input rejected: ${cl.code} (field ${cl.field}): ${cl.message}`, args, how);
      return { failed: true };
    }
    add(SLOT.codes + CODES.indexOf(cl.code));
    if (verbose) say(`  · [case ${this.id}] ${label} → ${cl.code} ${cl.field ?? ""}: ${cl.message.slice(0, 200)}`);
    return { failed: false, coded: cl.code };
  }
  checked(label, value, { args, how, check, expectError }) {
    const problems = [];
    const knowns = []; // [bug id, what] of problems a reported engine bug explains
    if (expectError) problems.push(`an input with one fault was accepted (${expectError.code} on field ${JSON.stringify(expectError.field)} expected)`);
    if (check) {
      try {
        check(value, (m) => problems.push(m), (id, m) => (STRICT ? problems.push(`${m} (known engine bug ${id})`) : knowns.push([id, m])));
      } catch (e) {
        problems.push(`(checker threw on this result: ${safeMessage(e)})`);
      }
    }
    if (!problems.length && knowns.length) {
      add(SLOT.known);
      record("known", this, label, `known engine bug ${knowns[0][0]}: ${knowns[0][1]}`, args, how);
      return { failed: false, known: true, value };
    }
    if (problems.length) {
      add(SLOT.invariant);
      this.fail("invariant", label, problems[0], args, how);
      return { failed: true, value };
    }
    add(SLOT.ok);
    if (verbose) say(`  ✓ [case ${this.id}] ${label}`);
    return { failed: false, ok: true, value };
  }
  count() {
    add(SLOT.calls);
    Atomics.add(pool, POOL.CALLS, 1);
  }
  sync(label, fn, opts) {
    this.count();
    this.label = label;
    ctx.caseId = this.id;
    if (verbose) say(`  → [case ${this.id}] ${label}(${describeArgs(opts.args ?? [])})${opts.how ? `  /* ${opts.how} */` : ""}`);
    let value;
    const t0 = performance.now();
    try {
      value = fn();
    } catch (e) {
      return this.caught(label, e, opts);
    } finally {
      const ms = performance.now() - t0;
      if (ms > 2000) record("slow", this, label, `a synchronous call took ${Math.round(ms)} ms (blocks the host's event loop)`, opts.args, opts.how);
    }
    return this.checked(label, value, opts);
  }
  async async(label, fn, opts) {
    if (opts.recount !== false) this.count();
    this.label = label;
    ctx.caseId = this.id;
    if (verbose) say(`  → [case ${this.id}] ${label}(${describeArgs(opts.args ?? [])})${opts.how ? `  /* ${opts.how} */` : ""}  ${this.hostInfo ?? ""}`);
    let p;
    try {
      p = fn();
    } catch (e) {
      return this.caught(label, e, opts);
    }
    if (!p || typeof p.then !== "function") {
      add(SLOT.invariant);
      this.fail("invariant", label, `returned ${typeof p}, not a Promise`, opts.args, opts.how);
      return { failed: true };
    }
    const t0 = performance.now();
    const TIMEOUT = Symbol("timeout");
    const timer = patientTimer(opts.bound ?? 5000);
    const settled = await Promise.race([p.then((v) => ({ v }), (e) => ({ e })), timer.fired.then(() => TIMEOUT)]);
    timer.cancel();
    ctx.caseId = this.id;
    if (settled === TIMEOUT) {
      add(SLOT.unsettled);
      this.fail("unsettled", label, `did not settle within ${opts.bound} ms`, opts.args, opts.how);
      return { failed: true, unsettled: true };
    }
    const ms = Math.round(performance.now() - t0);
    if (ms > Atomics.load(view, SLOT.maxSettleMs) && !opts.probe) {
      Atomics.store(view, SLOT.maxSettleMs, ms);
      if (process.env.FUZZ_DEBUG) console.error(`slowest settle so far: ${ms} ms, case ${this.id} ${label} bound ${opts.bound}`);
    }
    if ("e" in settled) return this.caught(label, settled.e, opts);
    return this.checked(label, settled.v, opts);
  }
  /** After a failed Engine call: the same engine object must still answer a known-good call. */
  engineProbe(W, slot) {
    const engine = W.engines[slot];
    if (!engine) return;
    add(SLOT.probes);
    try {
      const out = engine.autoRecall(PROBE_REQ);
      if (!Array.isArray(out?.messages)) throw new Error("no messages");
    } catch (e) {
      add(SLOT.traps);
      this.fail("trap", `known-good Engine#autoRecall after a failed ${this.label}`, `the Engine object is unusable: ${safeMessage(e)}`, null, null);
      W.engines[slot] = null; // a fresh one for later cases
    }
    probe(`case ${this.id} (${this.label})`);
  }
}

// ---- escapes --------------------------------------------------------------------------------

/** The case an escaped value came from: its tag, else (a best guess) the case that ran last. */
function tagOf(e) {
  if (e !== null && (typeof e === "object" || typeof e === "function") && origin.has(e)) return origin.get(e);
  const m = /\[fz#(-?\d+)\]/.exec(safeMessage(e));
  return m ? Number(m[1]) : ctx.caseId;
}
process.on("uncaughtException", (e) => {
  add(SLOT.escaped);
  add(SLOT.codeless);
  const id = tagOf(e);
  const c = running.get(id) ?? { id, hostInfo: null, target: "?", label: "?" };
  record("codeless", c, "(escaped: uncaught exception)", `${safeMessage(e)} — during ${c.label ?? "?"} (best guess)`, null, c.hostInfo);
  probe(`uncaught exception from case ${id}`);
});
process.on("unhandledRejection", (e) => {
  add(SLOT.unhandled);
  const id = tagOf(e);
  const c = running.get(id) ?? { id, hostInfo: null, target: "?", label: "?" };
  record("unhandled", c, "(unhandled rejection)", `${safeMessage(e)} — during ${c.label ?? "?"} (best guess)`, null, c.hostInfo);
});

// ---- the loop -------------------------------------------------------------------------------

function nextCase() {
  if (cases) {
    const i = Atomics.add(pool, POOL.NEXT, 1);
    return i < cases.length ? cases[i] : null;
  }
  if (Atomics.load(pool, POOL.CALLS) >= targetCalls) return null;
  return Atomics.add(pool, POOL.NEXT, 1);
}

const slots = new Int32Array(view.buffer, SLOT.INFLIGHT * 4, SLOT.INFLIGHT_N).fill(-1);
const freeSlots = [];
for (let i = Math.min(maxInFlight, SLOT.INFLIGHT_N) - 1; i >= 0; i--) freeSlots.push(i);
let wake = null;

let lastYield = performance.now();
const waited = { slots: 0, probes: 0, drain: 0, backlog: 0 };
// How long one turn of the event loop took at the last yield: the work of every async case
// in flight. Above MAX_LAG_MS no new async case starts until the backlog is worked off, so
// a CPU-heavy mix cannot pile up until calls miss their time bounds for want of CPU.
const MAX_LAG_MS = 60;
let lagMs = 0;
async function yieldTurn() {
  const t = performance.now();
  await tick();
  lagMs = performance.now() - t;
  lastYield = performance.now();
}
const perTarget = {};
let done = 0;
let recycled = false;
for (;;) {
  if (poisoned) break;
  // a fresh worker every so many cases: futures that never settled keep their memory
  if (recycleAfter && done >= recycleAfter) {
    recycled = true;
    parentPort.postMessage({ type: "draining" }); // the replacement starts now, not after the drain
    break;
  }
  const id = nextCase();
  if (id === null) break;
  const c = new CaseRun(id);
  const [, name, isAsync, run] = pickTarget(c.rng, only, GENERIC, skip);
  c.target = name;
  if (verbose) say(`case ${id}: ${name}`);
  if (isAsync) {
    const tb = performance.now();
    while (lagMs > MAX_LAG_MS && running.size) await yieldTurn();
    waited.backlog += performance.now() - tb;
    const tw = performance.now();
    while (!freeSlots.length) await new Promise((r) => (wake = r));
    waited.slots += performance.now() - tw;
    const slot = freeSlots.pop();
    Atomics.store(slots, slot, id);
    running.set(id, c);
    Promise.resolve()
      .then(() => run(c, W))
      .catch((e) => e !== SKIP && record("harness", c, name, `harness error: ${e?.stack ?? e}`, null, null))
      .finally(() => {
        running.delete(id);
        Atomics.store(slots, slot, -1);
        freeSlots.push(slot);
        add(SLOT.cases);
        if (c.serious) probe(`case ${id} (${c.label})`);
        wake?.();
        wake = null;
      });
  } else {
    Atomics.store(view, SLOT.SYNC_CASE, id);
    const tc = performance.now();
    try {
      run(c, W);
    } catch (e) {
      if (e !== SKIP) record("harness", c, name, `harness error: ${e?.stack ?? e}`, null, null);
    }
    Atomics.store(view, SLOT.SYNC_CASE, -1);
    const tt = (perTarget[name] ??= [0, 0]);
    tt[0]++;
    tt[1] += performance.now() - tc;
    add(SLOT.cases);
    const tp = performance.now();
    if (c.serious) await probe(`case ${id} (${c.label})`);
    waited.probes += performance.now() - tp;
  }
  if (++done % probeEvery === 0) await probe(`periodic check after ${done} cases`);
  if (performance.now() - lastYield > 8) await yieldTurn();
}
const td = performance.now();
while (running.size) await new Promise((r) => setTimeout(r, 20));
waited.drain = performance.now() - td;
if (process.env.FUZZ_DEBUG) console.error("sync ms per target", Object.entries(perTarget).map(([k, [n, t]]) => `${k}: ${n} cases ${Math.round(t)} ms (${(t / n).toFixed(2)}/case)`).join("; "));
if (process.env.FUZZ_DEBUG) console.error("waited ms", JSON.stringify(waited, (k, v) => (typeof v === "number" ? Math.round(v) : v)));
if (probing) await probing;
flushCounts();
W.server.close();
parentPort.postMessage({ type: "done", poisoned, recycled });
// never-settled promises and late timers of hostile hosts must not keep the worker alive
setTimeout(() => process.exit(0), 50);
