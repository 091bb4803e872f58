#!/usr/bin/env node
// The wasm package under fuzz, from the command line (`make bench` runs a million calls).
//
//   node tests/fuzz/fuzz.mjs [--calls N] [--seed S] [--workers W] [--only target,…] [--skip target,…]
//                            [--case K[,K…]] [--verbose] [--json FILE] [--settle-ms MS] [--max-seconds S]
//
// --case replays single cases of a seed (one worker, inputs and outcomes printed with
// --verbose). Exit code 1 when any trap, codeless error, unsettled promise, broken invariant
// or unhandled rejection was seen.
import { writeFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { runFuzz, failed } from "./lib/run.mjs";
import { parseSeed } from "./lib/prng.mjs";
import { TARGETS } from "./lib/targets.mjs";

const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i < 0 ? dflt : argv[i + 1];
};
if (argv.includes("--help")) {
  console.log(`usage: node tests/fuzz/fuzz.mjs [--calls N] [--seed S] [--workers W] [--only T,…] [--skip T,…] [--case K,…] [--verbose] [--json FILE] [--settle-ms MS] [--max-seconds S]\ntargets: ${TARGETS.map((t) => t[1]).join(", ")}`);
  process.exit(0);
}
const seed = parseSeed(opt("seed", process.env.FUZZ_SEED));
const cases = opt("case") ? opt("case").split(",").map(Number) : null;
const calls = Number(opt("calls", process.env.FUZZ_CALLS ?? 1_000_000));
const workers = Number(opt("workers", cases ? 1 : 2));
const only = opt("only") ? opt("only").split(",") : null;
const skipArg = opt("skip", process.env.FUZZ_SKIP);
const skip = skipArg ? skipArg.split(",") : null;
const settleMs = opt("settle-ms") ? Number(opt("settle-ms")) : undefined;
const maxSeconds = opt("max-seconds") ? Number(opt("max-seconds")) : undefined;
console.log(`# fuzz seed=${seed} target-calls=${cases ? "-" : calls} workers=${workers}${only ? ` only=${only}` : ""}${cases ? ` cases=${cases}` : ""}`);
const r = await runFuzz({ seed, calls, cases, workers, only, skip, verbose: argv.includes("--verbose"), settleMs, maxSeconds });
if (r.surface.length) console.log(`# fuzz: exports/methods not in the target table, fuzzed generically: ${r.surface.join(", ")}`);
console.log(r.table);
console.log(r.summary);
const json = opt("json");
if (json) {
  mkdirSync(dirname(json), { recursive: true });
  writeFileSync(json, JSON.stringify({ seed, counters: r.counters, failures: r.failures }, null, 2));
}
process.exit(failed(r.counters) ? 1 : 0);
