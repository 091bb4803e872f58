#!/usr/bin/env node
// assemble() through wasm (marshalling included) at 100 / 800 / 5,000 turns with a token
// budget that forces trimming (8,000 tokens), no OpenViking: the composition's growth with
// history. Median of 7 runs per size, after one warm-up.
//
//   node tests/bench/assemble-scale.mjs
import { loadPackage } from "../support/packages.mjs";
import { assembleSession } from "./inputs.mjs";

const { Engine } = await loadPackage("page"); // the pure Engine: the tuning page's package
const engine = new Engine({}, {});
const SIZES = [100, 800, 5000];
const RUNS = 7;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log("| turns | messages | median ms | kept raw turns | trimmed |");
console.log("|---|---|---|---|---|");
for (const n of SIZES) {
  const messages = assembleSession(n);
  const request = { prompt: "how big is the staging pool?", messages, tokenBudget: 8000, nowMs: Date.now(), search: { user: { memories: [] } } };
  engine.assemble(request);
  const times = [];
  let out;
  for (let r = 0; r < RUNS; r++) {
    const t0 = performance.now();
    out = engine.assemble(request);
    times.push(performance.now() - t0);
  }
  console.log(`| ${n} | ${messages.length} | ${median(times).toFixed(1)} | ${out.recentRawTurns ?? "?"} | ${JSON.stringify(out.trimmed ?? {})} |`);
}
