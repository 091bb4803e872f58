#!/usr/bin/env node
// The plugin's per-turn overhead in real OpenClaw 2026.9.6 turns (`openclaw agent --local`,
// one process per turn), real OpenViking (remote mode) and the loopback fake model.
//
// Two measurements in one run:
//  - wall time per turn with the default legacy engine, with a pass-through external engine
//    (a minimal plugin in the same slot with the same info flags: what OpenClaw itself spends
//    on any external context engine) and with our plugin; turns interleaved (legacy,
//    passthrough, plugin, legacy, …) so machine drift hits all alike; medians and differences;
//  - where the plugin's own time goes: the plugin is loaded through a thin traced entry
//    (generated in a scratch dir; it re-exports js-glue/index.js unchanged and times each
//    module load, register() and every context-engine method call).
//
//   node tests/bench/openclaw-overhead.mjs [turnsPerMode=7]
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeModel } from "../e2e/fake-model.mjs";
import { writeConfig, runTurn, scratchDir } from "../e2e/openclaw.mjs";
import { startHarness } from "../../js-glue/test/openviking/helpers.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const PLUGIN = path.join(ROOT, "js-glue");
const TURNS = Number(process.argv[2] ?? 7);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const MESSAGES = ["We decided to use Postgres 16 for billing.", "What index helps slow invoice queries?", "I prefer short answers.",
  "Which database did we choose?", "Thanks, that is all.", "Remind me what we chose for billing.", "Any tip for the invoice report?"];

/**
 * A copy of the plugin's shipped files whose entry wraps the real one (renamed to
 * real-index.js): same manifest and id, plus timing lines. (A wrapper importing js-glue from
 * outside its own folder would be re-packaged by OpenClaw, which changes what is measured.)
 */
function tracedPlugin(dir, traceFile, ovBaseUrl) {
  const pkg = JSON.parse(fs.readFileSync(path.join(PLUGIN, "package.json"), "utf8"));
  for (const f of pkg.files) fs.cpSync(path.join(PLUGIN, f), path.join(dir, f), { recursive: true });
  fs.copyFileSync(path.join(PLUGIN, "package.json"), path.join(dir, "package.json"));
  fs.renameSync(path.join(dir, "index.js"), path.join(dir, "real-index.js"));
  // no top-level await (OpenClaw may require() the entry): t0 comes from a module evaluated first
  // t0.js also wraps fetch (evaluated before the real entry): every request to OpenViking is
  // an interval, and a method's own time is its wall time minus the union of the intervals
  // inside it (the wait for OpenViking's answer headers: network on loopback + server time)
  fs.writeFileSync(path.join(dir, "t0.js"), `export const t0 = performance.now();
export const waits = [];
const base = ${JSON.stringify(ovBaseUrl)};
const realFetch = globalThis.fetch;
globalThis.fetch = async function (input, init) {
  const url = typeof input === "string" ? input : input?.url ?? String(input);
  if (!url.startsWith(base)) return realFetch.call(this, input, init);
  const s = performance.now();
  try { return await realFetch.call(this, input, init); } finally { waits.push([s, performance.now()]); }
};
export function waited(s, e) {
  const iv = waits.filter(([a, b]) => b > s && a < e).map(([a, b]) => [Math.max(a, s), Math.min(b, e)]).sort((x, y) => x[0] - y[0]);
  let sum = 0, end = -Infinity;
  for (const [a, b] of iv) { if (a > end) { sum += b - a; end = b; } else if (b > end) { sum += b - end; end = b; } }
  return sum;
}
`);
  fs.writeFileSync(path.join(dir, "index.js"), `import { appendFileSync } from "node:fs";
import { t0, waited } from "./t0.js";
import real from "./real-index.js";
const line = (m) => appendFileSync(${JSON.stringify(traceFile)}, JSON.stringify({ pid: process.pid, ...m }) + "\\n");
line({ span: "module load", ms: performance.now() - t0 });
export default { ...real, register(api) {
  const t = performance.now();
  const wrapped = { ...api, registerContextEngine(id, factory) {
    return api.registerContextEngine(id, (...a) => {
      const engine = factory(...a);
      for (const k of Object.keys(engine)) {
        if (typeof engine[k] !== "function") continue;
        const f = engine[k].bind(engine);
        engine[k] = async (...args) => { const s = performance.now(); try { return await f(...args); } finally { const e = performance.now(); line({ span: k, ms: e - s, ovMs: waited(s, e) }); } };
      }
      return engine;
    });
  } };
  Object.setPrototypeOf(wrapped, Object.getPrototypeOf(api));
  real.register(wrapped);
  line({ span: "register", ms: performance.now() - t });
} };
`);
  return dir;
}

/** The smallest external context engine: hands the host's messages back, stores nothing. */
function passthroughPlugin(dir) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "openclaw.plugin.json"), JSON.stringify({ id: "passthrough", kind: "context-engine", configSchema: { type: "object" } }));
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "passthrough", type: "module", openclaw: { extensions: ["./index.js"] } }));
  fs.writeFileSync(path.join(dir, "index.js"), `export default { id: "passthrough", name: "passthrough", kind: "context-engine", configSchema: { type: "object" },
  register(api) {
    api.registerContextEngine("passthrough", () => ({
      info: { id: "passthrough", name: "passthrough", ownsCompaction: false,
        transcriptSemantics: { currentTurnFence: "before-current-turn-entry-v1", turnAdvancementIdempotency: "atomic-idempotent-v1" } },
      async ingest() { return { ingested: false }; },
      async assemble(p) { return { messages: p.messages, estimatedTokens: 0 }; },
      async commitTurn() { return { status: "committed" }; },
      async compact() { return { ok: true, compacted: false, reason: "passthrough" }; },
    }));
  } };
`);
  return dir;
}

const ov = await startHarness();
const fm = await startFakeModel({});
try {
  const work = scratchDir("oc-bench-");
  const traceFile = path.join(work, "trace.jsonl");
  const MODES = ["legacy", "passthrough", "plugin"];
  const plugins = {
    legacy: null,
    passthrough: { path: passthroughPlugin(path.join(work, "passthrough-plugin")), id: "passthrough" },
    plugin: { path: tracedPlugin(path.join(work, "traced-plugin"), traceFile, ov.env.baseUrl), id: "openviking", config: { mode: "remote", baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey } },
  };
  const dirs = {};
  for (const mode of MODES) {
    dirs[mode] = path.join(work, mode);
    fs.mkdirSync(dirs[mode]);
    writeConfig({ dir: dirs[mode], modelUrl: `${fm.url}/v1`, plugin: plugins[mode] });
  }
  const times = { legacy: [], passthrough: [], plugin: [] };
  for (let i = 0; i < TURNS; i++) {
    for (const mode of MODES) {
      const r = await runTurn({ dir: dirs[mode], sessionId: `bench-${mode}`, message: MESSAGES[i % MESSAGES.length], timeoutMs: 150000 });
      if (r.code !== 0) throw new Error(`${mode} turn failed: ${r.stderr.slice(-500)}`);
      times[mode].push(r.ms);
    }
  }
  for (const mode of MODES) console.log(`${mode.padEnd(11)} per-turn wall ms: ${times[mode].join(", ")} → median ${median(times[mode])}`);
  const paired = (a, b) => median(times[a].map((x, i) => x - times[b][i]));
  for (const [a, b] of [["plugin", "legacy"], ["passthrough", "legacy"], ["plugin", "passthrough"]]) {
    console.log(`${a} − ${b}: median of the ${TURNS} paired differences ${paired(a, b)} ms; difference of medians ${median(times[a]) - median(times[b])} ms`);
  }

  // the plugin's own time, per turn (= per process)
  const spans = fs.readFileSync(traceFile, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const perTurn = new Map();
  for (const s of spans) {
    const t = perTurn.get(s.pid) ?? {};
    t[s.span] = (t[s.span] ?? 0) + s.ms;
    t[`${s.span} calls`] = (t[`${s.span} calls`] ?? 0) + 1;
    t.total = (t.total ?? 0) + (s.span === "register" ? 0 : s.ms); // register's time is inside module load's turn
    t.ov = (t.ov ?? 0) + (s.ovMs ?? 0);
    if (s.ovMs !== undefined) t[`${s.span} OpenViking`] = (t[`${s.span} OpenViking`] ?? 0) + s.ovMs;
    perTurn.set(s.pid, t);
  }
  const turns = [...perTurn.values()];
  const keys = [...new Set(spans.map((s) => s.span))];
  console.log(`plugin's own time per turn (median over ${turns.length} turns):`);
  for (const k of keys) console.log(`  ${k.padEnd(12)} ${median(turns.map((t) => t[k] ?? 0)).toFixed(1).padStart(7)} ms  (${median(turns.map((t) => t[`${k} calls`] ?? 0))} calls)`);
  console.log(`  ${"total".padEnd(12)} ${median(turns.map((t) => t.total)).toFixed(1).padStart(7)} ms`);
  console.log(`of which waiting for OpenViking's answers (per method, median):`);
  for (const k of keys) if (turns.some((t) => t[`${k} OpenViking`] !== undefined)) console.log(`  ${k.padEnd(12)} ${median(turns.map((t) => t[`${k} OpenViking`] ?? 0)).toFixed(1).padStart(7)} ms`);
  console.log(`the plugin's own time per turn, OpenViking's time excluded (median): ${median(turns.map((t) => t.total - t.ov)).toFixed(1)} ms (goal ≤ 30 ms)`);
  const own = (k) => median(turns.map((t) => (t[k] ?? 0) - (t[`${k} OpenViking`] ?? 0))).toFixed(1);
  console.log(`  by part: ${keys.map((k) => `${k} ${own(k)}`).join(", ")} ms`);
  fs.rmSync(work, { recursive: true, force: true });
} finally {
  await fm.close();
  await ov.stop();
}
