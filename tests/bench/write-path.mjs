#!/usr/bin/env node
// Engine time per write: ContextEngine.writeTurn through the wasm boundary with a host whose
// callbacks answer at once from memory (no network, no disk), so what is timed is the
// engine — envelope, capture decision, OpenViking parts, state updates, trigger evaluation,
// marshalling, the OpenViking protocol (requests built, answers read) — not I/O. 600 realistic turns (a question, a tool call and its result, an
// answer); the first 100 are warm-up. Prints median and p99.
import { loadEngine } from "../../js-glue/wasm.js";
import { httpFromOps } from "../../js-glue/test/support/ops-over-http.mjs";

const { ContextEngine } = await loadEngine();
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
const engine = new ContextEngine({ agentId: "bench", compactTurnThreshold: 100000, compactTokensAddedThreshold: 10000000 }, {}, host);

const turn = (i) => [
  { role: "user", content: `Turn ${i}: can you check why the nightly migration job failed on staging and what the pool size is?`, timestamp: 1764000000000 + i * 10 },
  { role: "assistant", content: [{ type: "text", text: "Let me look at the job log." }, { type: "toolCall", id: `call_${i}`, name: "exec", arguments: { command: "kubectl logs job/migrate --tail=50" } }], stopReason: "toolUse" },
  { role: "toolResult", toolCallId: `call_${i}`, toolName: "exec", content: [{ type: "text", text: "Error: timeout acquiring connection from pool (max 10)\n".repeat(8) }], isError: false },
  { role: "assistant", content: [{ type: "text", text: "The job timed out waiting for a pooled connection: the pool max is 10 and the backfill worker holds most of them." }], stopReason: "stop" },
];

const times = [];
for (let i = 0; i < 600; i++) {
  const t0 = performance.now();
  await engine.writeTurn({ sessionId: "bench", advancementKey: `k${i}`, messages: turn(i), tokenBudget: 100000 });
  if (i >= 100) times.push(performance.now() - t0);
}
times.sort((a, b) => a - b);
const q = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
console.log(`writeTurn engine time over ${times.length} turns: median ${q(0.5).toFixed(3)} ms, p99 ${q(0.99).toFixed(3)} ms, max ${times.at(-1).toFixed(3)} ms`);
