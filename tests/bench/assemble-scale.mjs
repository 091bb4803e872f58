#!/usr/bin/env node
// assemble() through wasm (marshalling included) at 100 / 800 / 5,000 turns with a token
// budget that forces trimming (8,000 tokens), no OpenViking: the composition's growth with
// history. Median of 7 runs per size, after one warm-up.
//
//   node tests/bench/assemble-scale.mjs
import { loadEngine } from "../../js-glue/wasm.js";

const { Engine } = await loadEngine();
const engine = new Engine({}, {});
const SIZES = [100, 800, 5000];
const RUNS = 7;

function session(n) {
  const messages = [];
  for (let i = 0; i < n; i++) {
    messages.push({ role: "user", content: `Turn ${i}: what about the staging pool and the deploy canary?`, timestamp: 1764000000000 + i });
    if (i % 3 === 0) {
      messages.push({ role: "assistant", content: [{ type: "toolCall", id: `c${i}`, name: "exec", arguments: { command: `grep -rn pool config/ # ${i}` } }], timestamp: 1764000000000 + i });
      messages.push({ role: "toolResult", toolCallId: `c${i}`, toolName: "exec", content: [{ type: "text", text: `config/db.yml:3: pool: ${10 + (i % 5)}` }], isError: false, timestamp: 1764000000000 + i });
    }
    messages.push({ role: "assistant", content: [{ type: "text", text: `Answer ${i}: ${"a detailed explanation with steps. ".repeat(6)}` }], timestamp: 1764000000000 + i });
  }
  return messages;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log("| turns | messages | median ms | kept raw turns | trimmed |");
console.log("|---|---|---|---|---|");
for (const n of SIZES) {
  const messages = session(n);
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
