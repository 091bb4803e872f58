// The wasm package under fuzz, as a test (node --test): ≥ 100 000 calls over every export and
// method, with hostile arguments and hostile host callbacks (see README.md). FUZZ_SEED,
// FUZZ_CALLS and FUZZ_SKIP (target names, comma-separated) override the defaults; every
// failure prints how to replay it (node tests/fuzz/fuzz.mjs --seed … --case … --verbose).
import { test } from "node:test";
import assert from "node:assert/strict";
import { runFuzz, failed } from "./lib/run.mjs";
import { parseSeed } from "./lib/prng.mjs";

const seed = parseSeed(process.env.FUZZ_SEED ?? "20261201");
const calls = Number(process.env.FUZZ_CALLS ?? 100_000);
const skip = process.env.FUZZ_SKIP ? process.env.FUZZ_SKIP.split(",") : null;

test(`fuzz: ${calls} calls, seed ${seed}`, { timeout: 150_000 }, async (t) => {
  const r = await runFuzz({ seed, calls, skip, workers: 2, maxSeconds: 100, progressMs: 1e9, log: (s) => t.diagnostic(s.replace(/^#+ ?/, "")) });
  if (r.surface.length) t.diagnostic(`fuzz: exports/methods not in the target table, fuzzed generically: ${r.surface.join(", ")}`);
  if (failed(r.counters)) for (const line of r.table.split("\n")) t.diagnostic(line.replace(/^#+ ?/, "  "));
  // reported engine bugs (lib/known.mjs) do not fail the run, but are shown
  for (const f of r.failures.filter((f) => f.kind === "known")) t.diagnostic(`known engine bug ×${f.count} in ${f.label} [case ${f.caseId}]: ${f.detail.slice(0, 300)}`);
  t.diagnostic(r.summary.replace(/^# /, ""));
  assert.ok(r.counters.calls >= calls, `only ${r.counters.calls} calls ran${r.counters.timedOut ? " (out of time)" : ""}`);
  assert.equal(failed(r.counters), false, r.summary);
});
