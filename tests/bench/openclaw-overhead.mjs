#!/usr/bin/env node
// The plugin's per-turn overhead in real OpenClaw 2026.9.6 turns (`openclaw agent --local`,
// one process per turn): the same 5 turns with the default legacy engine and with the plugin
// in the context-engine slot (real OpenViking, remote mode, loopback fake model). Reports the
// median wall time per turn of each and the difference. Run: node tests/bench/openclaw-overhead.mjs
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeModel } from "../e2e/fake-model.mjs";
import { writeConfig, runTurn, scratchDir } from "../e2e/openclaw.mjs";
import { startHarness } from "../../js-glue/test/openviking/helpers.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ov = await startHarness();
const fm = await startFakeModel({});
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  const messages = ["We decided to use Postgres 16 for billing.", "What index helps slow invoice queries?", "I prefer short answers.", "Which database did we choose?", "Thanks, that is all."];
  const results = {};
  for (const mode of ["legacy", "plugin"]) {
    const dir = scratchDir(`oc-bench-${mode}-`);
    writeConfig({
      dir,
      modelUrl: `${fm.url}/v1`,
      plugin: mode === "plugin" ? { path: path.join(ROOT, "js-glue"), id: "openviking", config: { mode: "remote", baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey } } : null,
    });
    const times = [];
    for (const m of messages) {
      const r = await runTurn({ dir, sessionId: `bench-${mode}`, message: m, timeoutMs: 150000 });
      if (r.code !== 0) throw new Error(`${mode} turn failed: ${r.stderr.slice(-500)}`);
      times.push(r.ms);
    }
    results[mode] = times;
    console.log(`${mode.padEnd(6)} per-turn wall ms: ${times.join(", ")} → median ${median(times)}`);
  }
  console.log(`plugin overhead per turn (median difference): ${median(results.plugin) - median(results.legacy)} ms`);
} finally {
  await fm.close();
  await ov.stop();
}
