// The orchestrator: worker threads pull case ids from a shared pool until the call target is
// reached. A watchdog restarts a worker whose event loop stopped (a call that spins or
// blocks: counted as unsettled, blamed on the case that last ran); a worker whose instance
// was poisoned exits and is replaced by a fresh one (a fresh wasm instance).
import { Worker } from "node:worker_threads";
import { SLOT, VIEW_LEN, POOL } from "./slots.mjs";
import { CODES } from "./checks.mjs";

const WORKER = new URL("./worker.mjs", import.meta.url);
const COUNTERS = ["calls", "traps", "codeless", "unsettled", "invariant", "ok", "probes", "cases", "unhandled", "escaped", "hangs", "runaways", "misuse", "known"];

/**
 * @param {{seed:number, calls?:number, cases?:number[], workers?:number, only?:string[], verbose?:boolean,
 *          settleMs?:number, maxInFlight?:number, hangMs?:number, log?:(s:string)=>void}} o
 */
export async function runFuzz(o) {
  const t0 = Date.now();
  const log = o.log ?? ((s) => process.stderr.write(s + "\n"));
  const nWorkers = o.cases ? Math.min(o.workers ?? 1, o.cases.length) : o.workers ?? 2;
  const hangMs = o.hangMs ?? 5000;
  const pool = new Int32Array(new SharedArrayBuffer(16));
  const views = [];
  const failures = new Map(); // sig → record
  let restarts = 0;
  let recycles = 0;
  let surface = [];
  let timedOut = false;
  let live = 0;
  let finish;
  const finished = new Promise((r) => (finish = r));
  const deadline = o.maxSeconds ? t0 + o.maxSeconds * 1000 : Infinity;
  const outOfTime = () => Date.now() > deadline;
  const workRemains = () => !outOfTime() && (o.cases ? Atomics.load(pool, POOL.NEXT) < o.cases.length : Atomics.load(pool, POOL.CALLS) < (o.calls ?? 1e5));

  function spawn() {
    const view = new Int32Array(new SharedArrayBuffer(VIEW_LEN * 4));
    view.fill(-1, SLOT.INFLIGHT);
    Atomics.store(view, SLOT.SYNC_CASE, -1);
    Atomics.store(view, SLOT.LAST_CASE, -1);
    views.push(view);
    const w = new Worker(WORKER, {
      workerData: {
        seed: o.seed, view: view.buffer, pool: pool.buffer, targetCalls: o.calls ?? 1e5, cases: o.cases ?? null, only: o.only ?? null, skip: o.skip ?? null,
        verbose: !!o.verbose, first: views.length === 1, settleMs: o.settleMs ?? null, maxInFlight: o.maxInFlight ?? 384, probeEvery: o.probeEvery ?? 1000, recycleAfter: o.recycleAfter ?? 25000,
      },
      resourceLimits: { maxOldGenerationSizeMb: 3072 },
      stdout: false,
    });
    live++;
    const st = { w, view, last: -1, lastChange: Date.now(), lastHostCalls: 0, ended: false, done: false };
    w.on("message", (m) => {
      if (m.type === "failure") {
        if (!failures.has(m.sig)) failures.set(m.sig, { ...m, count: 1 });
        else failures.get(m.sig).count++;
      } else if (m.type === "counts") {
        for (const [k, n] of Object.entries(m.deltas)) if (failures.has(k)) failures.get(k).count += n;
      } else if (m.type === "done") st.done = true;
      else if (m.type === "draining") {
        st.recycled = true;
        if (workRemains()) {
          recycles++;
          spawn();
        }
      }
      else if (m.type === "surface") surface = m.unknown;
    });
    w.on("error", (e) => {
      const sig = `harness | worker | ${String(e?.message ?? e).slice(0, 120)}`;
      if (!failures.has(sig)) failures.set(sig, { sig, kind: "harness", label: "worker", detail: String(e?.stack ?? e), count: 1, caseId: Atomics.load(view, SLOT.SYNC_CASE) });
      else failures.get(sig).count++;
    });
    w.on("exit", () => {
      st.ended = true;
      live--;
      if (st.recycled) {
        if (live === 0) finish();
      } else if (workRemains() && restarts < (o.maxRestarts ?? 100000)) {
        restarts++;
        spawn();
      } else if (live === 0) finish();
    });
    workers.push(st);
  }

  const workers = [];
  for (let i = 0; i < nWorkers; i++) spawn();

  // the watchdog: a worker whose heartbeat stopped is blocked (a synchronous loop, a
  // microtask storm): blame the case that last ran, count it unsettled, start a fresh worker
  const dog = setInterval(() => {
    const now = Date.now();
    if (outOfTime() && !timedOut) {
      timedOut = true;
      log(`# fuzz: out of time (${o.maxSeconds} s); stopping`);
      Atomics.store(pool, POOL.CALLS, 2 ** 30); // workers take no new case
      if (o.cases) Atomics.store(pool, POOL.NEXT, 2 ** 30);
    }
    for (const st of workers) {
      if (st.ended) continue;
      const hb = Atomics.load(st.view, SLOT.HEARTBEAT);
      if (hb !== st.last) {
        st.last = hb;
        st.lastChange = now;
        st.lastHostCalls = Atomics.load(st.view, SLOT.HOST_CALLS);
        continue;
      }
      if (now - st.lastChange < hangMs) continue;
      const syncCase = Atomics.load(st.view, SLOT.SYNC_CASE);
      const lastCase = Atomics.load(st.view, SLOT.LAST_CASE);
      const spinning = Atomics.load(st.view, SLOT.HOST_CALLS) - st.lastHostCalls;
      const inflight = [...st.view.subarray(SLOT.INFLIGHT)].filter((x) => x >= 0);
      const culprit = syncCase >= 0 ? syncCase : lastCase;
      Atomics.add(st.view, SLOT.unsettled, 1);
      Atomics.add(st.view, SLOT.hangs, 1);
      const sig = `unsettled | worker blocked | ${syncCase >= 0 ? "inside a synchronous call" : spinning > 0 ? "host callbacks still being called (a loop)" : "no host calls (a loop inside the wasm or a microtask storm)"}`;
      const detail = `the worker's event loop stopped for ${hangMs} ms; the case that last ran: ${culprit}; host calls meanwhile: ${spinning}; async cases in flight: ${inflight.length}`;
      if (!failures.has(sig)) failures.set(sig, { sig, kind: "unsettled", label: "worker blocked", detail, caseId: culprit, count: 1 });
      else failures.get(sig).count++;
      log(`# fuzz: worker blocked (case ${culprit}); restarting it`);
      st.ended = true; // the exit handler restarts it
      st.w.terminate();
    }
  }, 250);
  dog.unref();

  const progress = setInterval(() => {
    const s = sum(views);
    log(`# fuzz progress: calls=${s.calls} cases=${s.cases} failures=${s.traps + s.codeless + s.unsettled + s.invariant} ${((Date.now() - t0) / 1000).toFixed(0)}s`);
  }, o.progressMs ?? 10000);
  progress.unref();

  await finished;
  clearInterval(dog);
  clearInterval(progress);
  const s = sum(views);
  s.seconds = (Date.now() - t0) / 1000;
  s.restarts = restarts;
  s.recycles = recycles;
  s.timedOut = timedOut;
  const list = [...failures.values()].sort((a, b) => kindOrder(a.kind) - kindOrder(b.kind) || b.count - a.count);
  const settledCalls = s.traps + s.codeless - s.escaped + s.unsettled - s.hangs + s.invariant + s.ok + (s.misuse ?? 0) + (s.known ?? 0) + Object.values(s.codes).reduce((a, b) => a + b, 0);
  s.lost = Math.max(0, s.calls - settledCalls);
  return { seed: o.seed, counters: s, failures: list, surface, summary: summaryLine(o.seed, s), table: table(list, o.seed) };
}

function kindOrder(k) {
  return ["trap", "codeless", "unsettled", "invariant", "unhandled", "harness", "known", "runaway", "slow"].indexOf(k);
}

function sum(views) {
  const s = Object.fromEntries(COUNTERS.map((k) => [k, 0]));
  s.codes = Object.fromEntries(CODES.map((c) => [c, 0]));
  s.maxSettleMs = 0;
  for (const v of views) {
    for (const k of COUNTERS) s[k] += Atomics.load(v, SLOT[k]);
    CODES.forEach((c, i) => (s.codes[c] += Atomics.load(v, SLOT.codes + i)));
    s.maxSettleMs = Math.max(s.maxSettleMs, Atomics.load(v, SLOT.maxSettleMs));
  }
  return s;
}

export function summaryLine(seed, s) {
  const codes = Object.entries(s.codes).filter(([, n]) => n).map(([c, n]) => `${c}:${n}`).join(",");
  return `# fuzz calls=${s.calls} traps=${s.traps} codeless=${s.codeless} unsettled=${s.unsettled} invariant=${s.invariant} ok=${s.ok} errors-by-code={${codes}}` +
    ` unhandled=${s.unhandled} escaped=${s.escaped} hangs=${s.hangs} misuse=${s.misuse ?? 0} known=${s.known ?? 0} seed=${seed} cases=${s.cases} probes=${s.probes} restarts=${s.restarts ?? 0} recycles=${s.recycles ?? 0} lost=${s.lost ?? 0} max-settle-ms=${s.maxSettleMs} time=${s.seconds?.toFixed(1)}s`;
}

export function failed(s) {
  return s.traps + s.codeless + s.unsettled + s.invariant + s.unhandled > 0;
}

function table(list, seed) {
  if (!list.length) return "# fuzz: no failures";
  const out = [`# fuzz: ${list.length} distinct failures (replay one: node tests/fuzz/fuzz.mjs --seed ${seed} --case <case> --verbose)`];
  for (const f of list) {
    out.push(`## ${f.kind} ×${f.count}  ${f.label}  [case ${f.caseId}${f.target && f.target !== "?" ? `, ${f.target}` : ""}]`);
    out.push(`   ${f.detail.replace(/\n/g, "\n   ").slice(0, 500)}`);
    if (f.how && f.how !== "valid") out.push(`   input: ${f.how}`);
    if (f.args) out.push(`   args: ${f.args.slice(0, 400)}`);
    if (f.host && f.host !== "good host") out.push(`   host: ${f.host}`);
  }
  return out.join("\n");
}
