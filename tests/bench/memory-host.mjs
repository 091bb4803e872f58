// A ContextEngine host whose callbacks answer at once from memory (no network, no disk): the
// OpenViking side answers as an empty server that accepts every write, the state dir is two
// Maps. For benchmarks that time or measure the engine itself (write-path.mjs,
// write-memory.mjs).
import { httpFromOps } from "../../js-glue/test/support/ops-over-http.mjs";

export function memoryHost() {
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
    loadStateText: async (k) => state.get(k) ?? null,
    saveStateText: async (k, text) => void state.set(k, text),
    outboxAppendText: async (k, text) => void outbox.set(k, [...(outbox.get(k) ?? []), text]),
    outboxReadText: async (k) => outbox.get(k) ?? [],
    outboxDrop: async (k, ids) => void outbox.set(k, (outbox.get(k) ?? []).filter((t) => !ids.includes(JSON.parse(t).turnId))),
    sleep: async () => {},
    nowMs: () => Date.now(),
    warn: () => {},
  };
  host.request = httpFromOps(host);
  return host;
}

/** One realistic turn: a question, a tool call and its result, an answer. */
export function benchTurn(i) {
  return [
    { role: "user", content: `Turn ${i}: can you check why the nightly migration job failed on staging and what the pool size is?`, timestamp: 1764000000000 + i * 10 },
    { role: "assistant", content: [{ type: "text", text: "Let me look at the job log." }, { type: "toolCall", id: `call_${i}`, name: "exec", arguments: { command: "kubectl logs job/migrate --tail=50" } }], stopReason: "toolUse" },
    { role: "toolResult", toolCallId: `call_${i}`, toolName: "exec", content: [{ type: "text", text: "Error: timeout acquiring connection from pool (max 10)\n".repeat(8) }], isError: false },
    { role: "assistant", content: [{ type: "text", text: "The job timed out waiting for a pooled connection: the pool max is 10 and the backfill worker holds most of them." }], stopReason: "stop" },
  ];
}
