// Structure-aware inputs: realistic OpenClaw AgentMessages, OpenViking find results, plugin
// configs and every request the package takes — built from the bundled samples and vectors —
// and a mutator that changes one field at a time to something hostile.
import { readFileSync } from "node:fs";
import { text, cleanText, sentence, hostile, word, deep } from "./values.mjs";

const root = new URL("../../../", import.meta.url);
const readJson = (p) => JSON.parse(readFileSync(new URL(p, root), "utf8"));
export const SAMPLES = ["www-demo/samples/en.json", "www-demo/samples/zh.json"].map(readJson);
/** autoRecall vectors whose input is valid (the others expect an error). */
export const VECTORS = readJson("tests/vectors/recall.json").filter((c) => c.call === "autoRecall" && !c.expect?.error);
export const CONFIG_VECTORS = readJson("tests/vectors/config.json");

const MODELS = [["openai-completions", "openai", "gpt-5"], ["anthropic-messages", "anthropic", "claude-sonnet-4"]];
const TOOLS = ["exec", "read", "memory_recall", "memory_store", "web_search", "memory_recall_auto"];

export function toolId(rng) {
  return rng.weighted([[6, () => `call_${rng.u32().toString(36)}`], [1, () => `toolu_${rng.u32().toString(16)}`],
    [0.3, () => `ovrecall${rng.u32().toString(16)}${rng.u32().toString(16)}`], [1, () => text(rng, { huge: 0 })]])();
}

export function userMessage(rng, t = text(rng), ts = 1795165923000 + rng.int(1e8)) {
  const m = { role: "user", content: rng.chance(0.5) ? t : [{ type: "text", text: t }] };
  if (rng.chance(0.8)) m.timestamp = ts;
  if (rng.chance(0.05)) m.content = [{ type: "text", text: t }, { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }];
  return m;
}

function assistantMeta(rng, m, stop) {
  const [api, provider, model] = rng.pick(MODELS);
  Object.assign(m, { api, provider, model, stopReason: stop, timestamp: 1795165926405 + rng.int(1e8) });
  if (rng.chance(0.7)) m.usage = { input: rng.int(9000), output: rng.int(900), cacheRead: 0, cacheWrite: 0, totalTokens: rng.int(10000) };
  return m;
}

export function assistantText(rng) {
  const content = [{ type: "text", text: text(rng) }];
  if (rng.chance(0.15)) content.unshift({ type: "thinking", thinking: sentence(rng) });
  return assistantMeta(rng, { role: "assistant", content }, "stop");
}

/** An assistant message with tool calls and their results (balanced). */
export function toolExchange(rng) {
  const n = rng.range(1, 3);
  const calls = [];
  for (let i = 0; i < n; i++) {
    calls.push({ type: "toolCall", id: toolId(rng) + i, name: rng.pick(TOOLS), arguments: rng.chance(0.9) ? { command: text(rng, { huge: 0 }) } : {} });
  }
  const content = rng.chance(0.6) ? [{ type: "text", text: sentence(rng) }, ...calls] : calls;
  const out = [assistantMeta(rng, { role: "assistant", content }, "toolUse")];
  for (const c of calls) {
    out.push({ role: "toolResult", toolCallId: c.id, toolName: c.name, content: [{ type: "text", text: text(rng) }], isError: rng.chance(0.1), timestamp: 1795166030000 + rng.int(1e8) });
  }
  return out;
}

export function turn(rng, t) {
  const out = [userMessage(rng, t)];
  const k = rng.weighted([[5, 0], [3, 1], [1, 2]]);
  for (let i = 0; i < k; i++) out.push(...toolExchange(rng));
  if (rng.chance(0.9)) out.push(assistantText(rng));
  return out;
}

export function conversation(rng, turns = rng.weighted([[3, 0], [8, rng.range(1, 3)], [2, rng.range(4, 10)], [0.12, rng.range(20, 45)]])) {
  if (rng.chance(0.03)) {
    const s = rng.pick(SAMPLES);
    return JSON.parse(JSON.stringify(s.messages.slice(0, rng.range(0, s.messages.length))));
  }
  const out = [];
  for (let i = 0; i < turns; i++) out.push(...turn(rng));
  return out;
}

export function findItem(rng, scope = "user") {
  const cat = rng.pick(["preferences", "entities", "events", "cases", "patterns", "profile", null]);
  const uri = rng.weighted([
    [8, () => `viking://${scope}/ada/memories/${cat ?? "events"}/${word(rng).replace(/\W/g, "_") || "m"}${rng.int(50)}.md`],
    [1, () => `viking://user/ada/memories/${cat}/.overview.md`],
    [1, () => text(rng, { huge: 0 })],
  ])();
  const it = { uri, level: rng.weighted([[8, 2], [1, 1], [1, 0]]), score: rng.weighted([[8, rng.float()], [1, 1], [1, 0]]), category: cat,
    context_type: "memory" };
  if (rng.chance(0.85)) it.abstract = text(rng);
  if (rng.chance(0.3)) it.overview = text(rng);
  if (rng.chance(0.2)) it.tags = [word(rng), word(rng)];
  return it;
}

export function findResult(rng, scope) {
  const items = Array.from({ length: rng.weighted([[2, 0], [8, rng.range(1, 5)], [2, rng.range(6, 20)], [0.12, rng.range(100, 220)]]) }, () => findItem(rng, scope));
  return rng.weighted([[5, () => ({ memories: items, resources: [], skills: [], total: items.length })], [3, () => items], [1, () => null], [1, () => ({})]])();
}

/** A RecallRequest, from a sample, a vector or generated. */
export function recallRequest(rng) {
  const src = rng.int(40);
  let req;
  if (src === 0) {
    const s = rng.pick(SAMPLES);
    req = JSON.parse(JSON.stringify({ prompt: s.prompt, messages: s.messages, search: s.search, contents: s.contents }));
  } else if (src === 1) {
    req = JSON.parse(JSON.stringify(rng.pick(VECTORS).input));
  } else {
    req = { messages: conversation(rng), search: { user: findResult(rng, "user"), agent: findResult(rng, "agent") } };
    if (rng.chance(0.85)) req.prompt = text(rng);
    if (rng.chance(0.4)) {
      req.contents = {};
      for (const it of [...asItems(req.search.user), ...asItems(req.search.agent)].slice(0, 6)) if (typeof it.uri === "string") req.contents[it.uri] = text(rng);
    }
    if (rng.chance(0.1)) req.query = text(rng);
    if (rng.chance(0.15)) req.profile = { uri: "viking://user/ada/memories/profile.md", text: text(rng) };
  }
  if (rng.chance(0.7)) req.nowMs = 1764000000000 + rng.int(1e9);
  return req;
}
const asItems = (r) => (Array.isArray(r) ? r : Array.isArray(r?.memories) ? r.memories : []);

export function summaries(rng) {
  const out = [];
  let seq = 0;
  for (let i = rng.weighted([[3, 0], [2, 1], [1, rng.range(2, 5)]]); i > 0; i--) {
    const start = seq;
    seq += rng.range(1, 10);
    out.push({ checkpointId: `cp_${i}`, archiveUri: `viking://user/ada/sessions/main--s1/history/archive_00${i}`, startSequence: start, endSequence: seq - 1,
      text: rng.chance(0.3) ? "# Working Memory\n## Current State\n" + text(rng) + "\n## Open Issues\n" + text(rng) : text(rng) });
  }
  return out;
}

export function assembleRequest(rng) {
  const req = recallRequest(rng);
  if (rng.chance(0.85)) req.tokenBudget = rng.weighted([[2, rng.range(0, 200)], [4, rng.range(200, 5000)], [3, rng.range(5000, 200000)], [1, 2 ** 53 - 1]]);
  if (rng.chance(0.5)) req.summaries = summaries(rng);
  if (rng.chance(0.6)) req.nextSequence = rng.range(0, 60);
  return req;
}

export function archiveMessages(rng) {
  return Array.from({ length: rng.range(0, 24) }, (_, i) => ({ id: `m${i}`, role: rng.pick(["user", "assistant", "user"]),
    parts: rng.chance(0.9) ? [{ type: "text", text: text(rng) }, ...(rng.chance(0.2) ? [{ type: "tool", tool_name: "exec", tool_id: "t1", tool_output: text(rng) }] : [])] : [] }));
}

export function checkpoint(rng) {
  return { checkpointId: "cp_main--s1_1", sessionId: "main--s1", committedAt: "2026-11-24T10:00:00.000Z", archiveIndex: rng.int(5),
    sourceTurnRange: { startSequence: 0, endSequence: rng.int(20) }, extractedMemoryUris: ["viking://user/ada/memories/events/e.md"],
    archiveUri: "viking://user/ada/sessions/main--s1/history/archive_001", taskId: "t1", reason: "turns", summary: text(rng), turnIds: ["main--s1:0"] };
}

export function expandRequest(rng) {
  const req = { archiveUri: uriForExpand(rng), messages: archiveMessages(rng) };
  if (rng.chance(0.4)) req.checkpoint = checkpoint(rng);
  if (rng.chance(0.7)) req.query = text(rng);
  if (rng.chance(0.5)) req.limit = rng.range(1, 120);
  return req;
}

export function uriForExpand(rng) {
  return rng.weighted([
    [3, () => `viking://user/ada/sessions/main--s${rng.int(5)}/history/archive_00${rng.int(9)}`],
    [1, () => `viking://user/ada/sessions/main--s1`],
    [1, () => `viking://user/ada/memories/events/e${rng.int(9)}.md`],
    [1, () => `viking://user/ada/sessions//history/archive_001`],
    [1, () => "viking://" + text(rng, { huge: 0 })],
    [1, () => text(rng)],
  ])();
}

export const CONFIG_KEYS = {
  mode: (r) => r.pick(["local", "remote"]), configPath: (r) => r.pick(["~/ov.conf", "/tmp/ov.conf", "${HOME}/x"]), port: (r) => r.range(1, 65535),
  baseUrl: (r) => r.pick(["http://127.0.0.1:1933", "https://ov.example.test/", "http://[::1]:8080/"]), apiKey: (r) => r.pick(["", "k-123", "sk-" + "a".repeat(40)]),
  agentId: (r) => r.pick(["main", "default", "a.b-c_9"]), timeoutMs: () => 1000, autoRecall: (r) => r.chance(0.8), autoCapture: (r) => r.chance(0.5),
  recallLimit: (r) => r.range(1, 100), recallScoreThreshold: (r) => r.float(), recallMaxContentChars: (r) => r.pick([50, 51, 52, 60, 100, 500, 10000]),
  recallPreferAbstract: (r) => r.chance(0.5), recallTokenBudget: (r) => r.pick([100, 150, 300, 2000, 50000]), targetUri: (r) => r.pick(["viking://user/memories", "viking://user/ada/memories"]),
  captureMode: (r) => r.pick(["semantic", "keyword"]), captureMaxLength: (r) => r.range(200, 200000), recentRawTurnCount: (r) => r.range(0, 200),
  assembleRecallWindow: (r) => r.range(1, 50), compactCommitThreshold: (r) => 0.1 + r.float() * 0.9, memoryExpandMaxResults: (r) => r.range(1, 100),
  compactTokensAddedThreshold: (r) => r.range(100, 100000), compactTurnThreshold: (r) => r.range(1, 30), compactMaxIntervalMinutes: (r) => r.range(1, 10080),
  hookFallback: (r) => r.chance(0.5), stateDir: (r) => r.pick(["/tmp/state", "~/state"]),
};
/** Documented bounds (README table): a parsed config must be inside them. */
export const BOUNDS = { port: [1, 65535], timeoutMs: [1000, 600000], recallLimit: [1, 100], recallScoreThreshold: [0, 1], recallMaxContentChars: [50, 10000],
  recallTokenBudget: [100, 50000], captureMaxLength: [200, 200000], recentRawTurnCount: [0, 200], assembleRecallWindow: [1, 50], compactCommitThreshold: [0.1, 1],
  memoryExpandMaxResults: [1, 100], compactTokensAddedThreshold: [100, 10000000], compactTurnThreshold: [1, 10000], compactMaxIntervalMinutes: [1, 10080] };

/** A valid plugin config: numbers may be out of bounds (clamped), of the wrong type or a
 *  fraction (the default, with a warning), and a key may be misspelled (ignored, with a
 *  warning) — none of those is an error. `port` is never clamped: out of range it is an error. */
export function pluginConfig(rng, { timeoutMs = 1000 } = {}) {
  const c = {};
  for (const [k, f] of Object.entries(CONFIG_KEYS)) if (rng.chance(0.25)) c[k] = f(rng);
  if (rng.chance(0.2)) {
    const k = rng.pick(Object.keys(BOUNDS).filter((x) => x !== "port"));
    const [lo, hi] = BOUNDS[k];
    c[k] = rng.pick([lo - 1, hi + 1, -1e9, 1e12, lo, hi]);
  }
  if (rng.chance(0.05)) c[rng.pick(["recallLimit", "timeoutMs", "autoRecall", "captureMode"])] = rng.pick(["ten", 2.5, [], {}]);
  if (rng.chance(0.05)) c[rng.pick(["recalLimit", "recallLimits", "enabled", "zzz"])] = rng.int(9);
  if (rng.chance(0.05)) c.ingestReplyAssistFoo = hostile(rng, { allowHuge: false });
  if (timeoutMs !== undefined) c.timeoutMs = timeoutMs;
  if (rng.chance(0.1)) c.baseUrl = "${FUZZ_URL}";
  return c;
}

export function env(rng) {
  return rng.weighted([[4, () => ({ HOME: "/home/ada", FUZZ_URL: "http://127.0.0.1:1933" })], [1, () => ({})], [1, () => undefined],
    [1, () => ({ HOME: text(rng), OPENVIKING_API_KEY: "k", OPENVIKING_BASE_URL: text(rng), FUZZ_URL: text(rng) })], [1, () => process.env]])();
}

export function turnWrite(rng, sessionId = "s1") {
  const req = { sessionId, messages: rng.chance(0.95) ? turn(rng) : [] };
  if (rng.chance(0.5)) req.sessionKey = rng.pick(["agent:main:main", "agent:main:cli", text(rng, { huge: 0 })]);
  if (rng.chance(0.7)) req.advancementKey = `adv-${rng.int(6)}`;
  if (rng.chance(0.6)) req.tokenBudget = rng.range(0, 200000);
  if (rng.chance(0.5)) req.contextTokens = rng.range(0, 200000);
  if (rng.chance(0.3)) req.usedContextUris = [findItem(rng).uri];
  if (rng.chance(0.1)) req.isHeartbeat = rng.chance(0.5);
  return req;
}

export function sessionId(rng) {
  return rng.weighted([[8, () => rng.pick(["s1", "s2"])], [1, () => "x" + text(rng, { huge: 0 })], [1, () => "s/" + "é".repeat(rng.range(1, 200))]])();
}

// ---- mutation -------------------------------------------------------------------------

function paths(v, depth = 0, prefix = [], out = []) {
  if (depth > 6 || v === null || typeof v !== "object" || out.length > 400) return out;
  for (const k of Object.keys(v)) {
    const p = [...prefix, k];
    out.push(p);
    paths(v[k], depth + 1, p, out);
  }
  return out;
}

function cloneJson(v) {
  return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
}

/**
 * One field changed: replaced by a hostile value, deleted, given a `__proto__`/`constructor`
 * key, or its parent made a throwing Proxy. Returns `{value, how}` (`how` names the path).
 */
export function mutate(rng, base) {
  let v;
  try {
    v = cloneJson(base);
  } catch {
    return { value: hostile(rng), how: "(whole value)" }; // the base already holds something JSON cannot copy
  }
  if (v === null || typeof v !== "object") return { value: hostile(rng), how: "(whole value)" };
  const ps = paths(v);
  if (!ps.length || rng.chance(0.08)) return { value: hostile(rng), how: "(whole value)" };
  const p = rng.pick(ps);
  let parent = v;
  for (const k of p.slice(0, -1)) parent = parent[k];
  const key = p[p.length - 1];
  const where = p.join(".");
  const op = rng.weighted([[10, "replace"], [2, "delete"], [1, "proto"], [1, "constructor"], [1, "deep"], [1, "text"]]);
  switch (op) {
    case "replace":
      parent[key] = hostile(rng);
      return { value: v, how: `${where} = hostile` };
    case "delete":
      delete parent[key];
      return { value: v, how: `delete ${where}` };
    case "proto":
      Object.defineProperty(parent, "__proto__", { value: { role: "user", polluted: true, length: -1 }, enumerable: true, configurable: true, writable: true });
      return { value: v, how: `${p.slice(0, -1).join(".")}.__proto__ (own key)` };
    case "constructor":
      parent.constructor = { prototype: { polluted: true } };
      return { value: v, how: `${p.slice(0, -1).join(".")}.constructor` };
    case "deep":
      parent[key] = rng.deep !== 0 ? deep(rng) : [[[{ a: [[[]]] }]]];
      return { value: v, how: `${where} = deep` };
    default:
      parent[key] = text(rng, { huge: 0.3 });
      return { value: v, how: `${where} = text` };
  }
}

export { cleanText };
