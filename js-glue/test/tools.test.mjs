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

test("memory_store while OpenViking is down answers queued, and the change is on disk (0600) before the answer", async () => {
  const { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join } = await import("node:path");
  const { createStateStore } = await import("../state-store.js");
  const { createEngineHost } = await import("../engine-host.js");
  const dir = mkdtempSync(join(tmpdir(), "ove-tools-queued-"));
  try {
    const refused = async () => {
      throw Object.assign(new Error("ECONNREFUSED"), { kind: "unreachable" });
    };
    const host = createEngineHost({ store: createStateStore(dir), request: refused, logger: { warn() {} } });
    const engine = new wasm.ContextEngine({ mode: "remote", baseUrl: "http://127.0.0.1:9", apiKey: "uk-queued-key", agentId: "main" }, {}, host);
    const runtime = { wasm, agent: () => ({ agentId: "main", engine }) };
    const factories = new Map();
    registerTools({ registerTool: (factory, { name }) => factories.set(name, factory) }, runtime);
    const out = await factories.get("memory_store")({ sessionKey: "agent:main:cli" }).execute("c1", { text: "The release train leaves on Thursdays" });
    assert.notEqual(out.isError, true, JSON.stringify(out));
    assert.equal(out.details.status, "queued");
    assert.match(out.details.note, /OpenViking cannot be reached right now/);
    const file = readdirSync(join(dir, "outbox")).find((f) => f.startsWith("memory-ops"));
    assert.ok(file, readdirSync(join(dir, "outbox")).join(", "));
    assert.equal(statSync(join(dir, "outbox", file)).mode & 0o777, 0o600);
    const text = readFileSync(join(dir, "outbox", file), "utf8");
    assert.ok(text.includes("The release train leaves on Thursdays") && !text.includes("uk-queued-key"), text);
    const forgot = await factories.get("memory_forget")({ sessionKey: "agent:main:cli" }).execute("c2", { query: "release train" });
    assert.equal(forgot.details.status, "queued", JSON.stringify(forgot));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
