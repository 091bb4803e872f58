#!/usr/bin/env node
// Benchmark of one turn's automatic recall through the wasm package from Node, including
// marshalling, on the workloads `cargo bench --bench recall` wrote to tests/artifacts/bench/
// (10 / 50 / 200 / 1000 / 5000 candidates per scope — 20 … 10000 in all — plus 40 raw turns, one JSON-shaped
// object). Reports medians of 7 batches, the share of the JS-side marshalling, the .wasm
// size (raw and gzip) and the cold instantiate time in fresh Node processes.
//
//   cargo bench --bench recall && node tests/bench/recall-wasm.mjs
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { execFileSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const artifacts = resolve(root, "tests", "artifacts", "bench");
const { loadPackage, findPkg: pkgDir } = await import(resolve(root, "tests", "support", "packages.mjs"));
const findPkg = () => pkgDir("page"); // the tuning page's package: the pure Engine
const { Engine } = await loadPackage("page");

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function perCall(fn) {
  const t0 = performance.now();
  fn();
  const one = Math.max(performance.now() - t0, 0.001);
  const batch = Math.min(100000, Math.max(1, Math.round(50 / one)));
  const runs = [];
  for (let r = 0; r < 7; r++) {
    const t = performance.now();
    for (let i = 0; i < batch; i++) fn();
    runs.push(((performance.now() - t) / batch) * 1000); // µs
  }
  return median(runs);
}

const engine = new Engine({}, {});
const rows = [];
console.log("wasm autoRecall from Node (median of 7 batches, µs per call)");
console.log(" cands     total  JSON.stringify in  JSON.parse out  engine+serde (rest)");
for (const n of [20, 100, 400, 2000, 10000]) {
  const file = resolve(artifacts, `workload-${n}.json`);
  if (!existsSync(file)) {
    console.error(`${file} missing: run \`cargo bench --bench recall\` first`);
    process.exit(2);
  }
  const req = JSON.parse(readFileSync(file, "utf8"));
  for (let i = 0; i < 20; i++) engine.autoRecall(req); // warm up
  const total = perCall(() => engine.autoRecall(req));
  const stringifyIn = perCall(() => JSON.stringify(req));
  const outText = JSON.stringify(engine.autoRecall(req));
  const parseOut = perCall(() => JSON.parse(outText));
  const rest = total - stringifyIn - parseOut;
  rows.push({ candidates: n, totalUs: total, stringifyInUs: stringifyIn, parseOutUs: parseOut, engineUs: rest });
  console.log(`${String(n).padStart(6)} ${total.toFixed(1).padStart(9)} ${stringifyIn.toFixed(1).padStart(18)} ${parseOut.toFixed(1).padStart(15)} ${rest.toFixed(1).padStart(20)}`);
}

const wasmPath = resolve(findPkg(), "openviking_context_engine_bg.wasm");
const bytes = readFileSync(wasmPath);
const gz = gzipSync(bytes, { level: 9 }).length;
console.log(`\n.wasm size: ${(bytes.length / 1024).toFixed(1)} KB raw, ${(gz / 1024).toFixed(1)} KB gzip`);

// Cold instantiate: a fresh Node process each time, timing initSync from the bytes.
const probe = `
  const { readFileSync } = await import("node:fs");
  const bytes = readFileSync(${JSON.stringify(wasmPath)});
  const mod = await import(${JSON.stringify(resolve(findPkg(), "openviking_context_engine.js"))});
  const t = performance.now();
  mod.initSync({ module: bytes });
  new mod.Engine({}, {});
  console.log(performance.now() - t);`;
const colds = [];
for (let i = 0; i < 9; i++) {
  colds.push(Number(execFileSync(process.execPath, ["--input-type=module", "-e", probe]).toString().trim()));
}
const cold = median(colds);
console.log(`cold instantiate (initSync + first Engine, fresh process, median of 9): ${cold.toFixed(2)} ms`);
writeFileSync(resolve(artifacts, "wasm.json"), JSON.stringify({ rows, wasmBytes: bytes.length, wasmGzipBytes: gz, coldInstantiateMs: cold }, null, 2));
