#!/usr/bin/env node
// Engine time per write: ContextEngine.writeTurn through the wasm boundary with a host whose
// callbacks answer at once from memory (no network, no disk), so what is timed is the
// engine — envelope, capture decision, OpenViking parts, state updates, trigger evaluation,
// marshalling, the OpenViking protocol (requests built, answers read) — not I/O. 600 realistic turns (a question, a tool call and its result, an
// answer); the first 100 are warm-up. Prints median and p99.
import { loadEngine } from "../../js-glue/wasm.js";
import { benchTurn, memoryHost } from "./memory-host.mjs";

const { ContextEngine } = await loadEngine();
const host = memoryHost();
const engine = new ContextEngine({ agentId: "bench", compactTurnThreshold: 100000, compactTokensAddedThreshold: 10000000 }, {}, host);

const turn = benchTurn;

const times = [];
for (let i = 0; i < 600; i++) {
  const t0 = performance.now();
  await engine.writeTurn({ sessionId: "bench", advancementKey: `k${i}`, messages: turn(i), tokenBudget: 100000 });
  if (i >= 100) times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
const q = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
console.log(`writeTurn engine time over ${times.length} turns: median ${q(0.5).toFixed(3)} ms, p99 ${q(0.99).toFixed(3)} ms, max ${times.at(-1).toFixed(3)} ms`);
