// The memory tools as the plugin registers them (plugin/tools.js) over real ContextEngines on
// the in-memory host: every tool the engine defines is registered; memory_search_history
// gets the conversation it runs in from OpenClaw's tool context (`sessionId`) for
// `scope: "session"`, and each agent's search sees that agent's turns only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadEngine } from "../wasm.js";
import { agentFromSessionKey } from "../plugin/runtime.js";
import { registerTools } from "../plugin/tools.js";
import { memoryHost } from "./support/memory-host.mjs";

const wasm = await loadEngine();

function setup() {
  const host = memoryHost();
  const raw = { mode: "remote", baseUrl: "http://127.0.0.1:1933", apiKey: "k", timeoutMs: 1000, compactTurnThreshold: 1000 };
  const agents = new Map();
  const runtime = {
    wasm,
    agent(sessionKey) {
      const agentId = agentFromSessionKey(sessionKey) ?? "main";
      if (!agents.has(agentId)) agents.set(agentId, { agentId, engine: new wasm.ContextEngine({ ...raw, agentId }, {}, host) });
      return agents.get(agentId);
    },
  };
  const factories = new Map();
  registerTools({ registerTool: (factory, { name }) => factories.set(name, factory) }, runtime);
  return { runtime, factories };
}

const said = (text, at) => [
  { role: "user", content: text, timestamp: at },
  { role: "assistant", content: [{ type: "text", text: "Noted." }], stopReason: "stop", timestamp: at + 1 },
];

test("memory_search_history is registered and scope session is the tool context's session", async () => {
  const { runtime, factories } = setup();
  assert.deepEqual([...factories.keys()], wasm.toolDefinitions().map((d) => d.name));
  assert.ok(factories.has("memory_search_history"));
  const now = Date.now();
  const main = runtime.agent("agent:main:cli").engine;
  await main.writeTurn({ sessionId: "s-a", sessionKey: "agent:main:cli", advancementKey: "a1", messages: said("the vault code is 31-7-44", now - 3_600_000) });
  await main.writeTurn({ sessionId: "s-b", sessionKey: "agent:main:cli", advancementKey: "b1", messages: said("the vault is in the cellar", now - 60_000) });
  await runtime.agent("agent:other:cli").engine.writeTurn({ sessionId: "s-c", sessionKey: "agent:other:cli", advancementKey: "c1", messages: said("the other vault", now) });

  const tool = factories.get("memory_search_history")({ sessionKey: "agent:main:cli", sessionId: "s-b" });
  const mine = (await tool.execute("call1", { query: "vault", scope: "session" })).details;
  assert.deepEqual(mine.hits.map((h) => h.turnId), ["b1"], JSON.stringify(mine));
  const all = (await tool.execute("call2", { query: "vault", sort: "recency" })).details;
  assert.deepEqual(all.hits.map((h) => h.turnId), ["b1", "a1"], "main's own turns, newest first; never the other agent's");
  const bad = await tool.execute("call3", { query: "vault", since: "someday" });
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /^since: /);
  const noContext = factories.get("memory_search_history")({ sessionKey: "agent:main:cli" });
  const refused = await noContext.execute("call4", { query: "vault", scope: "session" });
  assert.match(refused.content[0].text, /^scope: /);
});
