// Builds a ContextEngine wired to a real OpenViking the way the plugin does: the fetch
// transport, the file-backed state store + outbox, the host callbacks. Shared by the
// integration tests and by one-turn.mjs (a separate process per turn). `client` is the
// tests' own OpenViking client (tests/inspect), for looking at what the engine stored.
// `storeOptions` go to createStateStore (bad-disk.test.mjs: a slow disk through `fsImpl`);
// `now` replaces the host's clock (the intent's time windows are computed from it); `fetch`
// replaces the transport's (to watch the requests the engine sends).
import { createClient } from "../inspect/client.js";
import { createStateStore } from "../../js-glue/state-store.js";
import { createEngineHost, createTransport } from "../../js-glue/engine-host.js";
import { loadEngine } from "../support/packages.mjs"; // the test build: setUserId

export async function makeEngine({ baseUrl, apiKey, userId, agentId = "main", stateDir, config = {}, timeoutMs = 5000, storeOptions = {}, now, fetch }) {
  const { ContextEngine } = await loadEngine();
  const client = createClient({ baseUrl, apiKey, agentId, timeoutMs });
  const warnings = [];
  const store = createStateStore(stateDir, { warn: (m) => warnings.push(m), ...storeOptions });
  const host = createEngineHost({ store, logger: { warn: (m) => warnings.push(m) }, ...(now ? { now } : {}), ...(fetch ? { request: createTransport({ fetch }) } : {}) });
  const engine = new ContextEngine({ mode: "remote", baseUrl, apiKey, agentId, timeoutMs, ...config }, {}, host);
  engine.setUserId(userId);
  return { engine, client, store, warnings };
}

/** A realistic turn: a question, a tool call and its result, an answer. */
export function toolTurn(i, question, answer) {
  return [
    { role: "user", content: question, timestamp: 1764000000000 + i },
    {
      role: "assistant",
      content: [
        { type: "text", text: "Let me look that up." },
        { type: "toolCall", id: `call_${i}`, name: "exec", arguments: { command: `grep -rn pool config/ # ${i}` } },
      ],
      stopReason: "toolUse",
      timestamp: 1764000000001 + i,
    },
    { role: "toolResult", toolCallId: `call_${i}`, toolName: "exec", content: [{ type: "text", text: `config/db.yml:3: pool: ${10 + i}` }], isError: false, timestamp: 1764000000002 + i },
    { role: "assistant", content: [{ type: "text", text: answer }], stopReason: "stop", timestamp: 1764000000003 + i },
  ];
}
