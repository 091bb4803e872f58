#!/usr/bin/env node
// The wasm memory of one ContextEngine over many writes: `ContextEngine.writeTurn` through the
// wasm boundary with a host that answers at once from memory (as write-path.mjs), sampling the
// wasm linear memory (`memory.buffer.byteLength`: it grows in 64 KiB pages and never shrinks)
// after 100, 1,000, 3,000, 10,000 and 30,000 turns in one session, then over 16,000 sessions of
// 5 turns each (a gateway that lives for months). Memory that levels off is the allocator's
// high-water mark; memory that keeps growing with turns or sessions is held by the engine.
//   node tests/bench/write-memory.mjs [--turns 30000] [--sessions 16000]
import { readFileSync } from "node:fs";
import * as pkg from "../../js-glue/pkg/openviking_context_engine.js";
import { benchTurn, memoryHost } from "./memory-host.mjs";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const TURNS = arg("turns", 30_000);
const SESSIONS = arg("sessions", 16_000);
const wasm = pkg.initSync({ module: readFileSync(new URL("../../js-glue/pkg/openviking_context_engine_bg.wasm", import.meta.url)) });
const kib = () => Math.round(wasm.memory.buffer.byteLength / 1024);

const host = memoryHost();
const engine = new pkg.ContextEngine({ agentId: "bench", compactTurnThreshold: 1_000_000, compactTokensAddedThreshold: 1e12 }, {}, host);

const turn = benchTurn;

const rows = [["turns in one session", "wasm memory KiB"]];
const start = kib();
rows.push([0, start]);
const marks = new Set([100, 1_000, 3_000, 10_000, 30_000, TURNS]);
for (let i = 1; i <= TURNS; i++) {
  await engine.writeTurn({ sessionId: "one", advancementKey: `k${i}`, messages: turn(i), tokenBudget: 100000 });
  if (marks.has(i)) rows.push([i, kib()]);
}
const sessionRows = [["sessions of 5 turns", "wasm memory KiB"]];
const smarks = new Set([10, 100, 500, 1_000, 2_000, 4_000, 8_000, 12_000, 16_000, 24_000, 32_000, 40_000, SESSIONS]);
for (let s = 1; s <= SESSIONS; s++) {
  for (let i = 0; i < 5; i++) await engine.writeTurn({ sessionId: `s${s}`, advancementKey: `s${s}-k${i}`, messages: turn(i), tokenBudget: 100000 });
  if (smarks.has(s)) sessionRows.push([s, kib()]);
}
for (const r of [...rows, [], ...sessionRows]) console.log(r.join("\t"));
