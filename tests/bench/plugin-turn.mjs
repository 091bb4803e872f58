#!/usr/bin/env node
// The plugin's own cost per warm turn, in one long-lived process (what a gateway turn costs the
// plugin), without OpenClaw around it: the shipped entry (js-glue/index.js) registered with a
// minimal plugin API, its context engine driven through the calls a gateway turn makes
// (bootstrap, assemble with the turns before and the prompt, commitTurn with the turn,
// dispose; as OpenClaw 2026.9.6 calls them) against a real OpenViking 0.5.2 (the test harness,
// loopback embedding and LLM) with the real state store in a temp dir.
//
// Per turn it counts the process's CPU time (process.cpuUsage: the main thread and libuv's
// threads, which run the file system calls), the wall time minus the waits for OpenViking's
// answers, and every call the plugin made through fs.promises (by name) and fetch. Turns run
// in rounds of `--turns` on fresh sessions; the first round warms the code up and is not
// counted. Medians over the counted turns.
//
//   node tests/bench/plugin-turn.mjs [--turns 20] [--rounds 3] [--plugin DIR]... [--profile] [--tool-loops N]
//
// --plugin: another copy of js-glue (one with a wasm build that keeps its name section, say:
// see recall-legacy.mjs's header for the build); given twice or more, the copies run turn about
// in one process, each on its own sessions and state dir, and each later one's CPU is compared
// with the first's turn by turn (an A/B in one run). --profile: V8's sampling profiler over the
// counted turns (in process, node:inspector, 100 µs); prints where the time went by kind of
// frame and the top frames by self time.
//
// (`openclaw-overhead.mjs --gateway` measures the same inside a real gateway, with its noise.)
import { promises as fsp } from "node:fs";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Session } from "node:inspector/promises";
import { startHarness } from "../../js-glue/test/openviking/helpers.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const TURNS = Number(arg("turns", 20));
const ROUNDS = Number(arg("rounds", 3));
// --tool-loops N: N more assembles per turn with the same input, as OpenClaw makes before each
// tool-loop model call (reported apart: their CPU and calls each)
const LOOPS = Number(arg("tool-loops", 0));
const PLUGINS = process.argv.flatMap((a, i) => (a === "--plugin" ? [path.resolve(process.argv[i + 1])] : []));
if (!PLUGINS.length) PLUGINS.push(path.join(ROOT, "js-glue"));
const PROFILE = process.argv.includes("--profile");
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// what the plugin asks of Node, counted from here on (patched before the plugin loads)
const ops = new Map();
const count = (k) => ops.set(k, (ops.get(k) ?? 0) + 1);
for (const name of ["open", "readFile", "writeFile", "mkdir", "stat", "lstat", "chmod", "rename", "rm", "unlink", "readdir"]) {
  const real = fsp[name];
  fsp[name] = function (...a) {
    count(`fs.${name}`);
    if (process.env.BENCH_VERBOSE === "2") console.log("fs", name, String(a[0]).slice(-60));
    return real.apply(this, a);
  };
}
{
  const h = await fsp.open("/dev/null");
  const proto = Object.getPrototypeOf(h);
  await h.close();
  for (const name of ["stat", "chmod", "read", "write", "writeFile", "readFile", "sync", "truncate", "close"]) {
    const real = proto[name];
    proto[name] = function (...a) {
      count(`handle.${name}`);
      return real.apply(this, a);
    };
  }
}
let waiting = 0; // ms spent awaiting OpenViking's answer headers (requests do not overlap here)
const realFetch = globalThis.fetch;
globalThis.fetch = async function (...a) {
  count("fetch");
  // BENCH_FETCH_PATHS=1: requests counted by method and path too
  if (process.env.BENCH_FETCH_PATHS) count(`fetch ${a[1]?.method ?? "GET"} ${new URL(String(a[0]?.url ?? a[0])).pathname}`);
  const s = performance.now();
  try {
    return await realFetch.apply(this, a);
  } finally {
    waiting += performance.now() - s;
  }
};

const ov = await startHarness();
const work = fs.mkdtempSync(path.join(os.tmpdir(), "ov-plugin-turn-"));
try {
  const quiet = process.env.BENCH_VERBOSE ? console : { info() {}, warn() {}, error() {}, debug() {} };
  // each variant: its own copy of the plugin (module instances, wasm instance, state dir)
  const engines = [];
  for (const [i, dir] of PLUGINS.entries()) {
    const { default: plugin } = await import(path.join(dir, "index.js"));
    let factory = null;
    plugin.register({
      pluginConfig: { mode: "remote", baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, stateDir: path.join(work, `state-${i}`) },
      logger: quiet,
      registerContextEngine(id, f) {
        factory = f;
      },
      registerTool() {},
      on() {},
      registerHook() {},
    });
    engines.push(factory());
  }
  const user = ["We decided to use Postgres 16 for billing.", "What index helps slow invoice queries?", "I prefer short answers.", "Which database did we choose?", "Any tip for the invoice report?"];
  const perTurn = PLUGINS.map(() => []);
  const inspector = PROFILE ? new Session() : null;
  for (let round = 0; round < ROUNDS; round++) {
    if (round === 1 && inspector) {
      inspector.connect();
      await inspector.post("Profiler.enable");
      await inspector.post("Profiler.setSamplingInterval", { interval: 100 });
      await inspector.post("Profiler.start");
    }
    const histories = PLUGINS.map(() => []);
    for (let t = 0; t < TURNS; t++) {
      // the variants take turns, in an order that alternates, so drift hits all alike
      const order = PLUGINS.map((_, i) => i);
      if (t % 2) order.reverse();
      for (const v of order) {
        const engine = engines[v], history = histories[v];
        const sessionId = `bench-${round}-${v}-${process.pid}`;
        const sessionKey = `agent:main:${sessionId}`;
        const prompt = `${user[t % user.length]} (turn ${t + 1})`;
        const userMsg = { role: "user", content: prompt, timestamp: Date.now() };
        ops.clear();
        if (process.env.BENCH_VERBOSE === "2") console.log("fs ---- turn", t + 1);
        const cpu0 = process.cpuUsage();
        const w0 = performance.now();
        await engine.bootstrap({ sessionId, sessionKey });
        await engine.assemble({ sessionId, sessionKey, prompt, messages: history, tokenBudget: 100_000 });
        // OpenClaw calls assemble again before every tool-loop model call, with the same input
        let loop = null;
        if (LOOPS > 0) {
          const ops0 = new Map(ops), c0 = process.cpuUsage();
          for (let k = 0; k < LOOPS; k++) await engine.assemble({ sessionId, sessionKey, prompt, messages: history, tokenBudget: 100_000 });
          const c = process.cpuUsage(c0);
          loop = { cpuMs: (c.user + c.system) / 1000 / LOOPS, ops: new Map([...ops].map(([k, n]) => [k, (n - (ops0.get(k) ?? 0)) / LOOPS])) };
        }
        const answer = { role: "assistant", content: [{ type: "text", text: `Noted: ${prompt}. Postgres 16 it is; an index on (customer_id, created_at) helps.` }], timestamp: Date.now() };
        history.push(userMsg, answer);
        const out = await engine.commitTurn({ sessionId, sessionKey, messages: [userMsg, answer], advancementKey: `${sessionId}:${t}`, tokenBudget: 100_000 });
        if (out.status !== "committed") throw new Error(`turn ${t + 1}: commitTurn said ${out.status}`);
        await engine.dispose();
        const cpu = process.cpuUsage(cpu0);
        if (round > 0) perTurn[v].push({ cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - w0, ops: new Map(ops), loop });
      }
    }
  }
  const profile = inspector ? (await inspector.post("Profiler.stop")).profile : null;
  console.log(`${perTurn[0].length} warm turns per variant (${ROUNDS - 1} rounds of ${TURNS} after a warm-up round), real OpenViking 0.5.2, Node ${process.version}`);
  for (const [v, turns] of perTurn.entries()) {
    console.log(`${PLUGINS.length > 1 ? `[${v}] ${PLUGINS[v]}: ` : ""}the plugin's CPU per warm turn (process, all threads): median ${median(turns.map((t) => t.cpuMs)).toFixed(2)} ms; wall per turn (OpenViking's answers included) ${median(turns.map((t) => t.wallMs)).toFixed(2)} ms`);
    const keys = [...new Set(turns.flatMap((t) => [...t.ops.keys()]))].sort();
    console.log(`  calls per warm turn (median): ${keys.map((k) => `${k} ${median(turns.map((t) => t.ops.get(k) ?? 0))}`).join(", ")}; file system calls in all ${median(turns.map((t) => [...t.ops].filter(([k]) => !k.startsWith("fetch")).reduce((a, [, n]) => a + n, 0)))}`);
    if (v > 0) console.log(`  CPU / [0]'s, paired per turn: median ${median(turns.map((t, i) => t.cpuMs / perTurn[0][i].cpuMs)).toFixed(3)}`);
    if (LOOPS > 0) {
      const lk = [...new Set(turns.flatMap((t) => [...t.loop.ops.keys()]))].sort();
      console.log(`  each tool-loop assemble (${LOOPS} per turn, the same input; inside the turn's figures above): CPU median ${median(turns.map((t) => t.loop.cpuMs)).toFixed(2)} ms; calls ${lk.map((k) => `${k} ${median(turns.map((t) => t.loop.ops.get(k) ?? 0))}`).join(", ") || "none"}`);
      if (v > 0) console.log(`  tool-loop assemble CPU / [0]'s, paired per turn: median ${median(turns.map((t, i) => t.loop.cpuMs / perTurn[0][i].loop.cpuMs)).toFixed(3)}`);
    }
  }
  if (profile) {
    const file = path.join(os.tmpdir(), `plugin-turn-${process.pid}.cpuprofile`);
    fs.writeFileSync(file, JSON.stringify(profile));
    console.log(`profile written to ${file}`);
    summarize(profile, perTurn[0].length * PLUGINS.length);
  }
} finally {
  if (process.env.BENCH_VERBOSE) console.log(fs.readdirSync(work, { recursive: true }));
  await ov.stop();
  fs.rmSync(work, { recursive: true, force: true });
}

/** Self time of the profile's samples, per counted turn: by kind of frame (the plugin's wasm, the
 *  plugin's JS, Node and V8 built-ins it called, garbage collection, the rest: the bench, idle)
 *  and the top frames. */
function summarize(profile, turns) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const plugin = (n) => PLUGINS.some((p) => n.callFrame.url.startsWith("file://" + p + "/") || n.callFrame.url.startsWith(p + "/"));
  const under = new Map();
  const passes = (id) => {
    if (!under.has(id)) under.set(id, plugin(byId.get(id)) || (parent.has(id) && passes(parent.get(id))));
    return under.get(id);
  };
  const kinds = new Map(), frames = new Map();
  const add = (m, k, v) => m.set(k, (m.get(k) ?? 0) + v);
  for (let i = 0; i < profile.samples.length; i++) {
    const n = byId.get(profile.samples[i]);
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
    const f = n.callFrame;
    const kind = f.functionName === "(idle)" ? "idle" : f.functionName === "(garbage collector)" ? "garbage collection" : f.functionName === "(program)" ? "V8 (program)"
      : !passes(n.id) ? "outside the plugin" : f.url.startsWith("wasm://") ? "wasm" : plugin(n) ? "plugin JS" : "called by the plugin (Node, V8)";
    add(kinds, kind, ms);
    if (kind !== "idle") add(frames, `${kind.padEnd(10).slice(0, 10)} ${f.functionName || "(anonymous)"} ${f.url.startsWith("wasm://") ? "" : (f.url.split("/").pop() || "") + ":" + (f.lineNumber + 1)}`, ms);
  }
  console.log(`profile (100 µs samples), ms per counted turn by kind: ${[...kinds].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${(v / turns).toFixed(2)}`).join(", ")}`);
  console.log(`top frames by self time, ms per turn:`);
  for (const [k, v] of [...frames].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`  ${(v / turns).toFixed(3).padStart(7)}  ${k}`);
}
