#!/usr/bin/env node
// Writes the legacy comparison's recall turns (tests/bench/inputs.mjs, recallTurns: the inputs
// `recall-legacy.mjs` times) to tests/artifacts/bench/legacy-turns-N.json (N per scope, an
// array of the 8 turns' requests), so the native bench (`cargo bench --bench recall`) and a
// profiler (callgrind) run the same work as the lean `Engine.recall` call does inside the
// module (the bench keeps only the newest user messages, as the call reads them).
//
//   node tests/bench/recall-workloads.mjs [--sizes 10,50]
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { recallTurns } from "./inputs.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const out = resolve(root, "tests", "artifacts", "bench");
const at = process.argv.indexOf("--sizes");
const sizes = (at > 0 ? process.argv[at + 1] : "10,50,200").split(",").map(Number);
mkdirSync(out, { recursive: true });
for (const n of sizes) {
  const turns = recallTurns(n).map(({ request }) => request);
  const file = resolve(out, `legacy-turns-${n}.json`);
  writeFileSync(file, JSON.stringify(turns));
  console.log(`${file}: ${turns.length} turns, ${n} per scope`);
}
