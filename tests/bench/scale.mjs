#!/usr/bin/env node
// Scale figures: per-call time through the wasm package, marshalling
// included, as the input grows —
//
//   recall    `Engine.autoRecall` at 10 / 50 / 200 / 1,000 / 5,000 find hits PER SCOPE (two
//             scopes; tests/bench/inputs.mjs recallTurns, the inputs of recall-legacy.mjs; the
//             timed loop cycles through its eight turns), default config;
//   assemble  `Engine.assemble` (the pure composition: no OpenViking, no host) at 100 / 400 /
//             800 / 2,500 / 5,000 turns (inputs.mjs assembleSession, the transcript of
//             assemble-scale.mjs), no memories, with a token budget that forces trimming at
//             every size (default 4,000: the 100-turn transcript alone estimates ~7,200);
//   tokens    `estimateMessageTokens` on the same transcripts.
//
// Every point: a warm-up (≥ 3 calls and ≥ 150 ms), then --runs rounds (default 11); each round
// times one batch of ≈ --batch-ms (default 40 ms, ≥ 1 call) and records the time per call;
// the figure is the median over the rounds. With several packages (--pkg given more than
// once) the packages run in ONE process, interleaved: every round times every point on every
// package back to back, the order of the packages alternating from round to round, with the
// same batch size for all of them; a ratio is the median of the per-round ratios (paired) —
// the ratio of the medians is in the JSON too. The script also checks that all packages give
// identical outputs on every point, reports each .wasm's raw and gzip (-9) size, and times
// cold start in fresh Node processes (--cold N per package, interleaved; default 11; 0 skips).
//
//   node tests/bench/scale.mjs                          # www-demo/pkg (the page's package: the pure Engine)
//   node tests/bench/scale.mjs --pkg /tmp/pkg-o3 --pkg /tmp/pkg-z --out tests/artifacts/bench/scale-o3-vs-z
//   node tests/bench/scale.mjs --pkg o3=/tmp/pkg-o3 ...  # label=dir; default label: the dir's name
//
// Options: --runs N, --batch-ms MS, --budget TOKENS, --cold N, --recall 10,50,... --turns 100,...,
// --out PREFIX (writes PREFIX.json and PREFIX.svg; default tests/artifacts/bench/scale),
// --png CHROMIUM (also PREFIX.png, a screenshot of the SVG by that headless Chromium binary).
// tests/bench/build-variants.sh builds the opt-level 3 and "z" packages into /tmp.
import { readFileSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { basename, dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { recallTurns, assembleSession } from "./inputs.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { pkgs: pkgArgs, opts } = parseArgs(process.argv.slice(2));
const RUNS = Number(opts.runs ?? 11);
const BATCH_MS = Number(opts["batch-ms"] ?? 40);
const BUDGET = Number(opts.budget ?? 4000);
const COLD = Number(opts.cold ?? 11);
const RECALL_SIZES = list(opts.recall ?? "10,50,200,1000,5000");
const TURN_SIZES = list(opts.turns ?? "100,400,800,2500,5000");
const OUT = resolve(opts.out ?? resolve(root, "tests", "artifacts", "bench", "scale"));
const NOW_MS = 1764003600000;
const JS = "openviking_context_engine.js";
const WASM = "openviking_context_engine_bg.wasm";
if (RUNS < 5) die("--runs must be at least 5");

// ---------------------------------------------------------------------------------------------
// The packages
// ---------------------------------------------------------------------------------------------
const variants = [];
if (!pkgArgs.length) {
  const { loadPackage, findPkg } = await import(pathToFileURL(resolve(root, "tests", "support", "packages.mjs")).href);
  variants.push(describe("www-demo/pkg", findPkg("page"), await loadPackage("page")));
} else {
  for (const a of pkgArgs) {
    const eq = a.indexOf("=");
    const dir = resolve(eq > 0 ? a.slice(eq + 1) : a);
    const label = eq > 0 ? a.slice(0, eq) : basename(dir);
    if (!existsSync(resolve(dir, JS)) || !existsSync(resolve(dir, WASM))) die(`${dir} has no ${JS} + ${WASM}`);
    if (variants.some((v) => v.dir === dir || v.label === label)) die(`--pkg ${a} given twice`);
    const mod = await import(pathToFileURL(resolve(dir, JS)).href);
    mod.initSync({ module: readFileSync(resolve(dir, WASM)) });
    variants.push(describe(label, dir, mod));
  }
}
function describe(label, dir, mod) {
  const bytes = readFileSync(resolve(dir, WASM));
  return {
    label,
    dir: resolve(dir),
    mod,
    engine: new mod.Engine({}, {}),
    wasmBytes: bytes.length,
    gzipBytes: gzipSync(bytes, { level: 9 }).length,
    sha256: createHash("sha256").update(bytes).digest("hex"),
    source: existsSync(resolve(dir, "SOURCE")) ? readFileSync(resolve(dir, "SOURCE"), "utf8").trim() : null, // build-variants.sh
  };
}

// ---------------------------------------------------------------------------------------------
// The points: each a function (variant, i) => result, cycling through its inputs
// ---------------------------------------------------------------------------------------------
const points = [];
for (const n of RECALL_SIZES) {
  const turns = recallTurns(n);
  points.push({ series: "recall", n, unit: "candidates per scope", inputs: turns.length, call: (v, i) => v.engine.autoRecall(turns[i % turns.length].request) });
  points.push({ series: "lean", n, unit: "candidates per scope", inputs: turns.length, call: (v, i) => v.engine.recall(turns[i % turns.length].request) });
}
const transcripts = new Map(TURN_SIZES.map((n) => [n, assembleSession(n)]));
for (const n of TURN_SIZES) {
  const messages = transcripts.get(n);
  const request = { prompt: "how big is the staging pool?", messages, tokenBudget: BUDGET, nowMs: NOW_MS, search: { user: { memories: [] } } };
  points.push({ series: "assemble", n, unit: "turns", messages: messages.length, call: (v) => v.engine.assemble(request) });
}
for (const n of TURN_SIZES) {
  const messages = transcripts.get(n);
  points.push({ series: "tokens", n, unit: "turns", messages: messages.length, call: (v) => v.mod.estimateMessageTokens(messages) });
}

const load0 = loadavg();
console.log(`scale: ${variants.map((v) => `${v.label} = ${v.dir}`).join(", ")}`);
console.log(`node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? "?"}), load ${fmtLoad(load0)}`);
console.log(`median of ${RUNS} rounds per point, batches of ≈ ${BATCH_MS} ms${variants.length > 1 ? ", packages interleaved (order alternating per round), ratios paired per round" : ""}; assemble budget ${BUDGET} tokens\n`);

// Same outputs on every package; what assemble kept / trimmed.
const identical = {};
for (const p of points) {
  const outs = variants.map((v) => JSON.stringify(p.call(v, 0)));
  identical[`${p.series}@${p.n}`] = outs.every((o) => o === outs[0]);
  if (p.series === "assemble") {
    const out = p.call(variants[0], 0);
    p.kept = out.recentRawTurns;
    p.trimmedRawTurns = out.trimmed?.rawTurns;
    p.estimatedTokens = out.estimatedTokens;
    p.overBudget = out.overBudget;
  }
  if (p.series === "tokens") p.totalTokens = p.call(variants[0], 0).reduce((a, b) => a + b, 0);
}
const allIdentical = Object.values(identical).every(Boolean);
if (variants.length > 1) console.log(`outputs identical on all packages: ${allIdentical ? "yes, every point" : "NO: " + Object.keys(identical).filter((k) => !identical[k]).join(", ")}`);

// Warm-up and batch size (from the first package; the same count for all of them).
for (const p of points) {
  p.batch = 1;
  for (const v of variants) {
    const t0 = performance.now();
    let calls = 0;
    while (calls < 3 || performance.now() - t0 < 150) p.call(v, calls++);
    const one = (performance.now() - t0) / calls;
    if (v === variants[0]) p.batch = Math.max(1, Math.round(BATCH_MS / one));
  }
  p.runs = Object.fromEntries(variants.map((v) => [v.label, []]));
}

// The rounds.
let next = 0;
for (let r = 0; r < RUNS; r++) {
  const order = r % 2 ? [...variants].reverse() : variants;
  for (const p of points) {
    for (const v of order) {
      const t = performance.now();
      for (let i = 0; i < p.batch; i++) p.call(v, next++);
      p.runs[v.label].push(((performance.now() - t) / p.batch) * 1000); // µs per call
    }
  }
  process.stderr.write(`round ${r + 1}/${RUNS}\r`);
}
process.stderr.write("\n");
const load1 = loadavg();

for (const p of points) {
  p.medianUs = Object.fromEntries(variants.map((v) => [v.label, median(p.runs[v.label])]));
  if (variants.length > 1) {
    const [a] = variants;
    p.ratio = {};
    for (const b of variants.slice(1)) {
      const paired = p.runs[a.label].map((x, i) => p.runs[b.label][i] / x);
      p.ratio[`${b.label}/${a.label}`] = { paired: median(paired), pairedMin: Math.min(...paired), pairedMax: Math.max(...paired), ofMedians: p.medianUs[b.label] / p.medianUs[a.label] };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Table
// ---------------------------------------------------------------------------------------------
const lines = [];
const what = (p) => (p.series === "recall" || p.series === "lean" ? `${p.n} (${2 * p.n})` : `${p.n} (${p.messages} msgs)`);
const note = (p) => (p.series === "assemble" ? `kept ${p.kept}, trimmed ${p.trimmedRawTurns} raw turns, ${p.estimatedTokens} tokens${p.overBudget ? ", OVER budget" : ""}` : p.series === "tokens" ? `${p.totalTokens} tokens` : "");
if (variants.length === 1) {
  const [v] = variants;
  lines.push("| call | size | median µs per call | µs per unit | calls per batch | notes |", "|---|---:|---:|---:|---:|---|");
  for (const p of points) lines.push(`| ${p.series} | ${what(p)} | ${fmt(p.medianUs[v.label])} | ${fmt(p.medianUs[v.label] / p.n)} | ${p.batch} | ${note(p)} |`);
} else {
  const [a, ...rest] = variants;
  lines.push(`| call | size | ${variants.map((v) => `${v.label} µs`).join(" | ")} | ${rest.map((b) => `${b.label}/${a.label} (paired median, min–max)`).join(" | ")} |`);
  lines.push(`|---|---:|${variants.map(() => "---:").join("|")}|${rest.map(() => "---:").join("|")}|`);
  for (const p of points) {
    const rs = rest.map((b) => {
      const q = p.ratio[`${b.label}/${a.label}`];
      return `${q.paired.toFixed(2)} (${q.pairedMin.toFixed(2)}–${q.pairedMax.toFixed(2)})`;
    });
    lines.push(`| ${p.series} | ${what(p)} | ${variants.map((v) => fmt(p.medianUs[v.label])).join(" | ")} | ${rs.join(" | ")} |`);
  }
}
lines.push("");
lines.push("size: recall = candidates per scope (total); assemble, tokens = turns (messages).");
for (const v of variants) lines.push(`${v.label}: .wasm ${kb(v.wasmBytes)} raw, ${kb(v.gzipBytes)} gzip -9 (sha256 ${v.sha256.slice(0, 12)}${v.source ? `; ${v.source.replace(/\n/g, ", ")}` : ""})`);
console.log(lines.join("\n"));

// ---------------------------------------------------------------------------------------------
// Cold start: fresh Node processes, packages interleaved
// ---------------------------------------------------------------------------------------------
const cold = {};
if (COLD > 0) {
  const probe = (dir) => `
    const t0 = performance.now();
    const { readFileSync } = await import("node:fs");
    const bytes = readFileSync(${JSON.stringify(resolve(dir, WASM))});
    const mod = await import(${JSON.stringify(pathToFileURL(resolve(dir, JS)).href)});
    const t1 = performance.now();
    mod.initSync({ module: bytes });
    const t2 = performance.now();
    new mod.Engine({}, {});
    const t3 = performance.now();
    console.log(JSON.stringify({ readImportMs: t1 - t0, initSyncMs: t2 - t1, engineMs: t3 - t2 }));`;
  for (const v of variants) cold[v.label] = [];
  for (let i = 0; i < COLD; i++) {
    for (const v of i % 2 ? [...variants].reverse() : variants) {
      cold[v.label].push(JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", probe(v.dir)]).toString().trim()));
    }
  }
  console.log(`\ncold start, fresh Node process each, median of ${COLD} per package${variants.length > 1 ? " (interleaved)" : ""}:`);
  console.log("| package | initSync + first Engine ms | initSync ms | read .wasm + import glue + initSync + Engine ms |");
  console.log("|---|---:|---:|---:|");
  for (const v of variants) {
    const xs = cold[v.label];
    v.cold = {
      initSyncEngineMs: median(xs.map((x) => x.initSyncMs + x.engineMs)),
      initSyncMs: median(xs.map((x) => x.initSyncMs)),
      totalMs: median(xs.map((x) => x.readImportMs + x.initSyncMs + x.engineMs)),
      samples: xs,
    };
    console.log(`| ${v.label} | ${v.cold.initSyncEngineMs.toFixed(2)} | ${v.cold.initSyncMs.toFixed(2)} | ${v.cold.totalMs.toFixed(2)} |`);
  }
  const [a, ...rest] = variants;
  for (const b of rest) {
    // process i of b ran right before or after process i of a
    const ie = (x) => x.initSyncMs + x.engineMs;
    const tot = (x) => x.readImportMs + x.initSyncMs + x.engineMs;
    b.cold.pairedRatio = {
      initSyncEngine: median(cold[b.label].map((x, i) => ie(x) / ie(cold[a.label][i]))),
      total: median(cold[b.label].map((x, i) => tot(x) / tot(cold[a.label][i]))),
    };
    console.log(`${b.label}/${a.label} (median of per-pair ratios): initSync + Engine ${b.cold.pairedRatio.initSyncEngine.toFixed(2)}, whole ${b.cold.pairedRatio.total.toFixed(2)}`);
  }
}
console.log(`\nload average at the start ${fmtLoad(load0)}, after the rounds ${fmtLoad(load1)} (1, 5, 15 min; ${cpus().length} CPUs)`);

// ---------------------------------------------------------------------------------------------
// JSON + SVG
// ---------------------------------------------------------------------------------------------
mkdirSync(dirname(OUT), { recursive: true });
const date = new Date().toISOString();
const result = {
  date,
  node: process.version,
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model ?? null,
  loadavg: { start: load0, afterRounds: load1 },
  settings: { runs: RUNS, batchMs: BATCH_MS, assembleBudget: BUDGET, coldProcesses: COLD, interleaved: variants.length > 1 },
  variants: variants.map(({ label, dir, wasmBytes, gzipBytes, sha256, source, cold: c }) => ({ label, dir, wasmBytes, gzipBytes, sha256, source, cold: c ?? null })),
  outputsIdentical: variants.length > 1 ? identical : null,
  points: points.map(({ call, ...p }) => p),
};
writeFileSync(`${OUT}.json`, JSON.stringify(result, null, 2));
writeFileSync(`${OUT}.svg`, plot(points, variants, `median of ${RUNS} rounds · ${variants.map((v) => v.label).join(" vs ")} · node ${process.version} · ${cpus().length} CPUs · ${date.slice(0, 10)}`));
console.log(`wrote ${OUT}.json and ${OUT}.svg`);
if (opts.png) {
  // --png CHROMIUM (e.g. --png chromium): a PNG of the SVG through a headless browser
  execFileSync(opts.png, ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", `--screenshot=${OUT}.png`, "--window-size=860,540", pathToFileURL(`${OUT}.svg`).href], { stdio: "ignore" });
  console.log(`wrote ${OUT}.png`);
}

/** A log-log line plot: one line per series (and package), a slope-1 guide through each series' largest point. */
function plot(points, variants, subtitle) {
  const W = 860, H = 540, L = 78, R = 250, T = 56, B = 64;
  const pw = W - L - R, ph = H - T - B;
  const xs = points.map((p) => p.n);
  const ys = points.flatMap((p) => variants.map((v) => p.medianUs[v.label]));
  const x0 = Math.floor(Math.log10(Math.min(...xs))), x1 = Math.ceil(Math.log10(Math.max(...xs)));
  const y0 = Math.floor(Math.log10(Math.min(...ys))), y1 = Math.ceil(Math.log10(Math.max(...ys)));
  const X = (n) => L + ((Math.log10(n) - x0) / (x1 - x0 || 1)) * pw;
  const Y = (us) => T + ph - ((Math.log10(us) - y0) / (y1 - y0 || 1)) * ph;
  const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const timeLabel = (e) => (e < 3 ? `${10 ** e} µs` : e < 6 ? `${10 ** (e - 3)} ms` : `${10 ** (e - 6)} s`);
  const colors = { recall: "#1f77b4", lean: "#9467bd", assemble: "#d62728", tokens: "#2ca02c" };
  const dashes = ["", "7 4", "2 3", "10 3 2 3"];
  const names = { recall: "Engine.autoRecall (x: candidates per scope)", lean: "Engine.recall, the lean per-turn call (x: candidates per scope)", assemble: `Engine.assemble (x: turns; budget ${BUDGET} tokens)`, tokens: "estimateMessageTokens (x: turns)" };
  const o = [];
  o.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="12">`);
  o.push(`<rect width="${W}" height="${H}" fill="#fff"/>`);
  o.push(`<defs><clipPath id="plot"><rect x="${L}" y="${T}" width="${pw}" height="${ph}"/></clipPath></defs>`);
  o.push(`<text x="${L}" y="22" font-size="15" font-weight="bold">Per-call time through wasm vs input size (log-log)</text>`);
  o.push(`<text x="${L}" y="40" fill="#555">${esc(subtitle)}</text>`);
  // grid and ticks
  for (let e = x0; e <= x1; e++) {
    for (let m = 1; m < 10; m++) {
      const n = m * 10 ** e;
      if (e === x1 && m > 1) break;
      const x = X(n).toFixed(1);
      o.push(`<line x1="${x}" y1="${T}" x2="${x}" y2="${T + ph}" stroke="${m === 1 ? "#ccc" : "#eee"}"/>`);
      o.push(`<line x1="${x}" y1="${T + ph}" x2="${x}" y2="${T + ph + (m === 1 ? 6 : 3)}" stroke="#333"/>`);
      if (m === 1) o.push(`<text x="${x}" y="${T + ph + 20}" text-anchor="middle">${10 ** e}</text>`);
    }
  }
  for (let e = y0; e <= y1; e++) {
    for (let m = 1; m < 10; m++) {
      if (e === y1 && m > 1) break;
      const y = Y(m * 10 ** e).toFixed(1);
      o.push(`<line x1="${L}" y1="${y}" x2="${L + pw}" y2="${y}" stroke="${m === 1 ? "#ccc" : "#eee"}"/>`);
      o.push(`<line x1="${L - (m === 1 ? 6 : 3)}" y1="${y}" x2="${L}" y2="${y}" stroke="#333"/>`);
      if (m === 1) o.push(`<text x="${L - 9}" y="${Number(y) + 4}" text-anchor="end">${timeLabel(e)}</text>`);
    }
  }
  o.push(`<rect x="${L}" y="${T}" width="${pw}" height="${ph}" fill="none" stroke="#333"/>`);
  o.push(`<text x="${L + pw / 2}" y="${H - 20}" text-anchor="middle">n: candidates per scope (recall) · turns (assemble, tokens)</text>`);
  o.push(`<text transform="translate(20 ${T + ph / 2}) rotate(-90)" text-anchor="middle">median time per call</text>`);
  // slope-1 guides, then the series
  const series = [...new Set(points.map((p) => p.series))];
  o.push(`<g clip-path="url(#plot)">`);
  for (const s of series) {
    const ps = points.filter((p) => p.series === s).sort((a, b) => a.n - b.n);
    const pn = ps[ps.length - 1], top = pn.medianUs[variants[0].label];
    const nStart = 10 ** x0;
    o.push(`<line x1="${X(nStart).toFixed(1)}" y1="${Y((top * nStart) / pn.n).toFixed(1)}" x2="${X(pn.n).toFixed(1)}" y2="${Y(top).toFixed(1)}" stroke="${colors[s] ?? "#000"}" stroke-opacity="0.55" stroke-width="1.2" stroke-dasharray="2 4"/>`);
  }
  variants.forEach((v, vi) => {
    for (const s of series) {
      const ps = points.filter((p) => p.series === s).sort((a, b) => a.n - b.n);
      const d = ps.map((p, i) => `${i ? "L" : "M"}${X(p.n).toFixed(1)},${Y(p.medianUs[v.label]).toFixed(1)}`).join(" ");
      o.push(`<path d="${d}" fill="none" stroke="${colors[s] ?? "#000"}" stroke-width="2" stroke-dasharray="${dashes[vi % dashes.length]}"/>`);
      for (const p of ps) o.push(`<circle cx="${X(p.n).toFixed(1)}" cy="${Y(p.medianUs[v.label]).toFixed(1)}" r="3.2" fill="${vi ? "#fff" : colors[s] ?? "#000"}" stroke="${colors[s] ?? "#000"}" stroke-width="1.5"><title>${esc(`${s} ${v.label} n=${p.n}: ${fmt(p.medianUs[v.label])} µs`)}</title></circle>`);
    }
  });
  o.push(`</g>`);
  // legend
  let ly = T + 6;
  const lx = L + pw + 16;
  o.push(`<text x="${lx}" y="${ly + 6}" font-weight="bold">series</text>`);
  ly += 20;
  for (const s of series) {
    o.push(`<line x1="${lx}" y1="${ly}" x2="${lx + 26}" y2="${ly}" stroke="${colors[s] ?? "#000"}" stroke-width="3"/>`);
    const words = names[s] ?? s;
    const cut = words.indexOf(" (");
    o.push(`<text x="${lx + 32}" y="${ly + 4}">${esc(cut > 0 ? words.slice(0, cut) : words)}</text>`);
    if (cut > 0) o.push(`<text x="${lx + 32}" y="${ly + 18}" fill="#555">${esc(words.slice(cut + 1))}</text>`);
    ly += 36;
  }
  if (variants.length > 1) {
    o.push(`<text x="${lx}" y="${ly + 4}" font-weight="bold">package</text>`);
    ly += 20;
    variants.forEach((v, vi) => {
      o.push(`<line x1="${lx}" y1="${ly}" x2="${lx + 26}" y2="${ly}" stroke="#333" stroke-width="2" stroke-dasharray="${dashes[vi % dashes.length]}"/>`);
      o.push(`<circle cx="${lx + 13}" cy="${ly}" r="3.2" fill="${vi ? "#fff" : "#333"}" stroke="#333" stroke-width="1.5"/>`);
      o.push(`<text x="${lx + 32}" y="${ly + 4}">${esc(v.label)}</text>`);
      ly += 20;
    });
    ly += 6;
  }
  o.push(`<line x1="${lx}" y1="${ly}" x2="${lx + 26}" y2="${ly}" stroke="#333" stroke-width="1.2" stroke-dasharray="2 4"/>`);
  o.push(`<text x="${lx + 32}" y="${ly + 4}">slope 1 (linear growth),</text>`);
  o.push(`<text x="${lx + 32}" y="${ly + 18}" fill="#555">through each series' largest</text>`);
  o.push(`<text x="${lx + 32}" y="${ly + 32}" fill="#555">point (${esc(variants[0].label)})</text>`);
  o.push(`</svg>`);
  return o.join("\n") + "\n";
}

// ---------------------------------------------------------------------------------------------
function parseArgs(argv) {
  const pkgs = [];
  const opts = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--")) die(`unexpected argument ${a}`);
    let [k, v] = a.slice(2).split(/=(.*)/s, 2);
    if (v === undefined) v = argv[++i];
    if (v === undefined) die(`--${k} needs a value`);
    if (k === "pkg") pkgs.push(v);
    else opts[k] = v;
  }
  return { pkgs, opts };
}
function list(s) {
  return String(s).split(",").map(Number).filter((n) => n > 0);
}
function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
function fmt(x) {
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toFixed(3);
}
function kb(b) {
  return `${(b / 1024).toFixed(1)} KB`;
}
function fmtLoad(l) {
  return l.map((x) => x.toFixed(2)).join(" ");
}
function die(msg) {
  console.error(`scale: ${msg}`);
  process.exit(2);
}
