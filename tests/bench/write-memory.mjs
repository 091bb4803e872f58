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
import { httpFromOps } from "../../js-glue/test/support/ops-over-http.mjs";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const TURNS = arg("turns", 30_000);
const SESSIONS = arg("sessions", 16_000);
const wasm = pkg.initSync({ module: readFileSync(new URL("../../js-glue/pkg/openviking_context_engine_bg.wasm", import.meta.url)) });
const kib = () => Math.round(wasm.memory.buffer.byteLength / 1024);

const state = new Map();
const outbox = new Map();
const host = {
  sessionMeta: async () => null,
  createSession: async () => ({}),
  addMessages: async () => ({}),
  commit: async () => ({ status: "skipped", reason: "bench" }),
  task: async () => ({ status: "completed", result: {} }),
  archive: async () => ({}),
  readJson: async () => ({}),
  writeJson: async () => ({}),
  liveMessages: async () => [],
  find: async () => ({ memories: [] }),
  readContent: async () => null,
  userId: async () => "bench",
  writeText: async () => ({}),
  stat: async () => null,
  deleteUri: async () => ({}),
  listStateKeys: async (prefix) => [...state.keys()].filter((k) => k.startsWith(prefix)),
  loadState: async (k) => state.get(k) ?? null,
  saveState: async (k, v) => void state.set(k, v),
  outboxAppend: async (k, e) => void outbox.set(k, [...(outbox.get(k) ?? []), e]),
  outboxRead: async (k) => outbox.get(k) ?? [],
  outboxDrop: async (k, ids) => void outbox.set(k, (outbox.get(k) ?? []).filter((e) => !ids.includes(e.turnId))),
  sleep: async () => {},
  nowMs: () => Date.now(),
  warn: () => {},
};
host.request = httpFromOps(host);
const engine = new pkg.ContextEngine({ agentId: "bench", compactTurnThreshold: 1_000_000, compactTokensAddedThreshold: 1e12 }, {}, host);

const turn = (i) => [
  { role: "user", content: `Turn ${i}: can you check why the nightly migration job failed on staging and what the pool size is?`, timestamp: 1764000000000 + i * 10 },
  { role: "assistant", content: [{ type: "text", text: "Let me look at the job log." }, { type: "toolCall", id: `call_${i}`, name: "exec", arguments: { command: "kubectl logs job/migrate --tail=50" } }], stopReason: "toolUse" },
  { role: "toolResult", toolCallId: `call_${i}`, toolName: "exec", content: [{ type: "text", text: "Error: timeout acquiring connection from pool (max 10)\n".repeat(8) }], isError: false },
  { role: "assistant", content: [{ type: "text", text: "The job timed out waiting for a pooled connection." }], stopReason: "stop" },
];

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
