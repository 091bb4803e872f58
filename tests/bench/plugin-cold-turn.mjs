#!/usr/bin/env node
// The plugin's own cost in a cold turn (one process per turn, as `openclaw agent --local` runs),
// without OpenClaw around it: each turn is a fresh Node process that imports the shipped entry
// (js-glue/index.js), registers it with a minimal plugin API and drives its context engine
// through one turn's calls (bootstrap, assemble with the turns before and the prompt,
// commitTurn with the turn, dispose) against a real OpenViking 0.5.2 (the test harness) with
// the real state store; the turns share one state dir and one session, as a user's CLI turns do.
//
// The entry is imported and registered three times, as OpenClaw does (module load and register
// are the sums). Per turn: each step's wall time less the waits for OpenViking's answers (fetch), and the
// process's CPU time from the import to the end of dispose. The first turn of the session
// (it creates the session) is not counted; medians over the rest.
//
//   node tests/bench/plugin-cold-turn.mjs [--turns 9] [--plugin DIR]... [--cpu-prof DIR]
//
// --plugin twice or more: the copies take turns (each its own state dir and session), and each
// later one's own time is compared with the first's, turn by turn. --cpu-prof: each child
// writes a V8 profile there (`node --cpu-prof`, 100 µs). OV_COLD_NODE_FLAGS="…": Node/V8 flags
// for every child, e.g. `--no-wasm-lazy-compilation` (each wasm function compiled at load, not on
// its first call) or `--liftoff-only` (no optimising tier), to see what first-run code costs.
// OV_COLD_PROFILE_STEP=assemble (or another step) [OV_COLD_PROFILE_DIR=dir]: each child profiles
// that step alone (V8's sampling profiler in process, 50 µs) into <dir>/<step>-<pid>.cpuprofile.
// (`openclaw-overhead.mjs` measures the same inside real OpenClaw turns, with their noise.)
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
};

if (process.argv.includes("--child")) await child(JSON.parse(arg("child")));
else await parent();

/** One turn in this (fresh) process; prints one JSON line. */
async function child({ plugin, stateDir, baseUrl, apiKey, sessionId, turn, history }) {
  // OpenClaw has loaded fetch's implementation (undici) before the plugin's first request
  // (`openclaw-overhead.mjs` checks it in every turn): so does this process
  await (await fetch("data:text/plain,warm")).text();
  const t0 = performance.now();
  const waits = []; // [start, end] of every request to OpenViking
  const realFetch = globalThis.fetch;
  globalThis.fetch = async function (...a) {
    const s = performance.now();
    try {
      return await realFetch.apply(this, a);
    } finally {
      waits.push([s, performance.now()]);
    }
  };
  /** ms of [s, e) spent with a request out (the union: requests in parallel count once) */
  const waited = (s, e) => {
    let sum = 0, end = -Infinity;
    for (const [a, b] of waits.map(([a, b]) => [Math.max(a, s), Math.min(b, e)]).filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0])) {
      if (a > end) sum += b - a;
      else if (b > end) sum += b - end;
      end = Math.max(end, b);
    }
    return sum;
  };
  const steps = {};
  // OV_COLD_PROFILE_STEP=<step> OV_COLD_PROFILE_DIR=<dir>: that step alone profiled in process
  const profStep = process.env.OV_COLD_PROFILE_STEP;
  const inspector = profStep ? new (await import("node:inspector/promises")).Session() : null;
  if (inspector) {
    inspector.connect();
    await inspector.post("Profiler.enable");
    await inspector.post("Profiler.setSamplingInterval", { interval: 50 });
  }
  const step = async (name, fn) => {
    if (name === profStep) await inspector.post("Profiler.start");
    const s = performance.now();
    const out = await fn();
    const e = performance.now();
    if (name === profStep) {
      const { profile } = await inspector.post("Profiler.stop");
      fs.writeFileSync(path.join(process.env.OV_COLD_PROFILE_DIR ?? os.tmpdir(), `${name}-${process.pid}.cpuprofile`), JSON.stringify(profile));
    }
    steps[name] = (steps[name] ?? 0) + e - s - waited(s, e);
    return out;
  };
  // OpenClaw evaluates the entry and registers it up to three times per process (each a fresh
  // module instance); so does this process
  let factory = null;
  for (let n = 1; n <= 3; n++) {
    const { default: entry } = await step("module load", () => import(`${pathToFileURL(path.join(plugin, "index.js")).href}?registration=${n}`));
    await step("register", () =>
      entry.register({
        pluginConfig: { mode: "remote", baseUrl, apiKey, stateDir },
        logger: { info() {}, warn() {}, error() {}, debug() {} },
        registerContextEngine(id, f) {
          factory = f;
        },
        registerTool() {},
        on() {},
        registerHook() {},
      }),
    );
  }
  const engine = factory();
  const sessionKey = `agent:main:${sessionId}`;
  const prompt = `Which database did we choose for billing? (turn ${turn})`;
  const userMsg = { role: "user", content: prompt, timestamp: Date.now() };
  if (turn > 1) await step("bootstrap", () => engine.bootstrap({ sessionId, sessionKey }));
  await step("assemble", () => engine.assemble({ sessionId, sessionKey, prompt, messages: history, tokenBudget: 100_000 }));
  const answer = { role: "assistant", content: [{ type: "text", text: `Postgres 16 (turn ${turn}); an index on (customer_id, created_at) helps the invoice report.` }], timestamp: Date.now() };
  const out = await step("commitTurn", () => engine.commitTurn({ sessionId, sessionKey, messages: [userMsg, answer], advancementKey: `${sessionId}:${turn}`, tokenBudget: 100_000 }));
  await step("dispose", () => engine.dispose());
  const cpu = process.cpuUsage();
  console.log(JSON.stringify({ status: out.status, steps, ownMs: performance.now() - t0 - waited(t0, performance.now()), cpuMs: (cpu.user + cpu.system) / 1000, messages: [userMsg, answer] }));
  process.exit(0);
}

async function parent() {
  const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
  const { startHarness } = await import("../../js-glue/test/openviking/helpers.mjs");
  const TURNS = Number(arg("turns", 9));
  const plugins = process.argv.flatMap((a, i) => (a === "--plugin" ? [path.resolve(process.argv[i + 1])] : []));
  if (!plugins.length) plugins.push(path.join(ROOT, "js-glue"));
  const prof = arg("cpu-prof", null);
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const ov = await startHarness();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "ov-cold-turn-"));
  try {
    const runs = plugins.map(() => []);
    const histories = plugins.map(() => []);
    for (let turn = 1; turn <= TURNS; turn++) {
      const order = plugins.map((_, i) => i);
      if (turn % 2) order.reverse();
      for (const v of order) {
        const cfg = { plugin: plugins[v], stateDir: path.join(work, `state-${v}`), baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, sessionId: `cold-${v}-${process.pid}`, turn, history: histories[v] };
        const flags = [...(process.env.OV_COLD_NODE_FLAGS ?? "").split(" ").filter(Boolean), ...(prof ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(prof)}`, "--cpu-prof-interval=100", `--cpu-prof-name=turn-${v}-${turn}.cpuprofile`] : [])];
        const line = execFileSync(process.execPath, [...flags, fileURLToPath(import.meta.url), "--child", JSON.stringify(cfg)], { encoding: "utf8", timeout: 120_000 }).trim().split("\n").pop();
        const r = JSON.parse(line);
        if (r.status !== "committed") throw new Error(`turn ${turn}: commitTurn said ${r.status}`);
        histories[v].push(...r.messages);
        if (turn > 1) runs[v].push(r);
      }
    }
    console.log(`${runs[0].length} cold turns per variant (a fresh process each, after the session's first), real OpenViking 0.5.2, Node ${process.version}`);
    for (const [v, rs] of runs.entries()) {
      const steps = Object.keys(rs[0].steps);
      console.log(`${plugins.length > 1 ? `[${v}] ${plugins[v]}: ` : ""}the plugin's own time per cold turn (OpenViking's answers excluded): median ${median(rs.map((r) => r.ownMs)).toFixed(1)} ms (${steps.map((k) => `${k} ${median(rs.map((r) => r.steps[k])).toFixed(1)}`).join(", ")}); process CPU ${median(rs.map((r) => r.cpuMs)).toFixed(1)} ms`);
      if (v > 0) console.log(`  own time / [0]'s, paired per turn: median ${median(rs.map((r, i) => r.ownMs / runs[0][i].ownMs)).toFixed(3)}`);
    }
  } finally {
    await ov.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}
