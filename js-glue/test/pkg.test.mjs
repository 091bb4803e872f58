// The built packages themselves. The crate ships two (cargo features): the plugin's
// (js-glue/pkg, loaded by js-glue/wasm.js) and the tuning page's (www-demo/pkg); each exports
// only what its user calls, and neither the test-only exports. The page's package (the pure
// Engine): it loads in Node, its TypeScript declarations have no `any` in exported
// signatures, errors are JS Errors with a stable code, and it survives garbage.
import { test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { join } from "node:path";
import { findPkg as pluginDir, loadEngine as loadPlugin } from "../wasm.js";
import { findPkg, loadPackage } from "../../tests/support/packages.mjs";

const pkg = findPkg("page");
const engine = await loadPackage("page");
const plugin = await loadPlugin();

/** A package's exports (wasm-bindgen's own left out) and each class's methods and getters. */
function surface(mod) {
  const own = new Set(["default", "initSync"]);
  const exports = Object.keys(mod).filter((k) => !own.has(k) && !k.startsWith("__")).sort();
  const classes = {};
  for (const k of exports.filter((k) => /^[A-Z]/.test(k))) {
    classes[k] = Object.getOwnPropertyNames(mod[k].prototype).filter((m) => m !== "constructor" && m !== "free" && !m.startsWith("__") && !/^\[/.test(m)).sort();
  }
  return { exports, classes };
}

const TEST_ONLY = ["setUserId", "recall", "memoryScopes", "forgetSearch", "record"];

test("the plugin's package: ContextEngine and the free functions the plugin calls, nothing of the page's or the tests'", () => {
  const s = surface(plugin);
  assert.deepEqual(s.exports, ["ContextEngine", "agentFromSessionKey", "checkConfig", "diagnoseHost", "estimateMessageTokens", "exportEndLine", "indexExport", "redactSecrets", "reportHost", "stateDirProblem", "toolDefinitions", "version"]);
  for (const m of TEST_ONLY) assert.ok(!s.classes.ContextEngine.includes(m), `ContextEngine.${m} is test-only`);
  for (const m of ["assemble", "writeTurn", "afterTurn", "runTool", "runCommit", "followTask", "flush", "drain", "status", "trace", "probe", "compact", "hookFallback", "userId"]) {
    assert.ok(s.classes.ContextEngine.includes(m), `ContextEngine.${m}`);
  }
  const dts = readFileSync(join(pluginDir(), "openviking_context_engine.d.ts"), "utf8");
  assert.ok(dts.includes("class ContextEngine") && !dts.includes("class Engine ") && !dts.includes("function liveSearch") && !dts.includes("setUserId("));
});

test("the page's package: the pure Engine, the config and token helpers, liveSearch; no ContextEngine", () => {
  const s = surface(engine);
  assert.deepEqual(s.exports, ["Engine", "configBounds", "estimateMessageTokens", "estimateTokens", "liveSearch", "parseConfig", "version"]);
  assert.ok(s.classes.Engine.includes("autoRecall") && s.classes.Engine.includes("triggerTimeline") && s.classes.Engine.includes("buildRecallQuery"));
  for (const m of ["recallIntent", "expand", "classifyExpandUri", "fallbackBlock"]) assert.ok(!s.classes.Engine.includes(m), `Engine.${m} is test-only`);
  assert.equal(engine.version(), plugin.version(), "one crate, one version");
});

test("the declarations have no `any` outside wasm-bindgen's InitOutput table", () => {
  for (const dir of [pkg, pluginDir()]) {
    const dts = readFileSync(join(dir, "openviking_context_engine.d.ts"), "utf8");
    const publicPart = dts.split(/export type InitInput|export interface InitOutput/)[0];
    const anys = publicPart.split("\n").filter((l) => /\bany\b/.test(l) && !l.trim().startsWith("*") && !l.trim().startsWith("//"));
    assert.deepEqual(anys, [], dir);
  }
  const dts = readFileSync(join(pkg, "openviking_context_engine.d.ts"), "utf8");
  for (const name of ["class Engine", "function parseConfig", "function estimateTokens", "type AutoRecall =", "type ExplainRecord ="]) {
    assert.ok(dts.includes(name), `missing ${name}`);
  }
});

test("each package's declarations declare every type its exports name", () => {
  const BUILTIN = new Set(["Promise", "Record", "Array", "Error", "Uint8Array", "Partial", "Readonly", "ArrayBuffer", "Response", "WebAssembly", "URL", "Request", "RequestInfo", "BufferSource"]);
  for (const dir of [pkg, pluginDir()]) {
    const dts = readFileSync(join(dir, "openviking_context_engine.d.ts"), "utf8").split(/export type InitInput/)[0];
    const declared = new Set([...dts.matchAll(/\b(?:interface|type|class|enum)\s+([A-Z]\w*)/g)].map((m) => m[1]));
    // the types in the exports' signatures (free functions, constructors, methods, getters)
    const signatures = [...dts.matchAll(/^\s*(?:export function |constructor|(?:get |set )?[a-z]\w*\().*$/gm)].map((m) => m[0]);
    assert.ok(signatures.length > 5, dir);
    const named = new Set(signatures.flatMap((l) => [...l.replace(/"[^"]*"/g, "").matchAll(/\b([A-Z]\w*)\b/g)].map((m) => m[1])));
    const missing = [...named].filter((n) => !declared.has(n) && !BUILTIN.has(n));
    assert.deepEqual(missing, [], `${dir}: named but not declared`);
  }
});

test("errors are Error instances with code and field", () => {
  assert.throws(() => new engine.Engine({ agentId: "a/b" }), (e) => e instanceof Error && e.code === "INVALID_CONFIG" && e.field === "agentId");
  const e = new engine.Engine({}, {});
  assert.throws(() => e.autoRecall({ search: { agent: 3 } }), (err) => err.code === "INVALID_INPUT" && err.field === "search.agent");
});

test("garbage never crashes the instance", () => {
  const e = new engine.Engine({}, {});
  const garbage = [undefined, null, 0, -1, NaN, "x", [], [[]], { messages: [null] }, { prompt: 5 }, { search: [] },
    { search: { user: [1, "a", null, { uri: 5 }] }, prompt: "database tips please" }, { nowMs: 1e300 }, { contents: [] },
    { messages: [{ role: "user", content: { nested: true } }], prompt: "" }, 10n];
  for (const g of garbage) {
    try {
      e.autoRecall(g);
    } catch (err) {
      assert.ok(err instanceof Error, `non-Error thrown for ${String(g)}`);
      assert.ok(["INVALID_INPUT", "INVALID_CONFIG"].includes(err.code), `code ${err.code}`);
    }
  }
  // still alive and correct afterwards
  assert.ok(engine.estimateTokens("数据库慢查询优化") >= 5);
  const ok = e.autoRecall({ prompt: "which theme do I like?", search: { user: [{ uri: "viking://user/u/memories/preferences/t.md", level: 2, score: 0.9, abstract: "dark theme" }] } });
  assert.deepEqual(ok.messages.map((m) => m.role), ["user", "assistant", "toolResult"], "the pair, opened by a user message");
});

test("autoRecall builds explain records only when asked; the answer is otherwise the same", () => {
  const e = new engine.Engine({}, {});
  const user = [
    { uri: "viking://user/u/memories/preferences/t.md", level: 2, score: 0.9, abstract: "dark theme" },
    { uri: "viking://user/u/memories/preferences/t.md", level: 2, score: 0.8, abstract: "dark theme" },
    { uri: "viking://user/u/memories/events/low.md", level: 2, score: 0.01, abstract: "unrelated" },
  ];
  const req = { prompt: "which theme do I like?", search: { user }, nowMs: 1795165923000 };
  const lean = e.autoRecall(req);
  const full = e.autoRecall({ ...req, explain: true });
  assert.deepEqual(lean.recall.explain ?? [], [], "no explain records unless asked");
  assert.equal(full.recall.explain.length, 3, "one per candidate when asked");
  assert.ok(full.recall.explain.some((r) => r.decision === "cut"));
  assert.deepEqual(lean.recall.memories, full.recall.memories);
  assert.deepEqual(lean.messages, full.messages);
  assert.throws(() => e.autoRecall({ ...req, explain: "yes" }), (err) => err.code === "INVALID_INPUT" && err.field === "explain");
  e.free();
});

test("recall reads only the newest user turns and answers what autoRecall does, without the messages", () => {
  const e = new engine.Engine({}, {});
  const user = [
    { uri: "viking://user/u/memories/preferences/t.md", level: 2, score: 0.9, abstract: "dark theme, font size 14" },
    { uri: "viking://user/u/memories/events/db.md", level: 2, score: 0.7, abstract: "orders moved to Postgres 16" },
  ];
  const history = [];
  for (let i = 0; i < 60; i++) {
    history.push({ role: "user", content: `turn ${i}: what about the editor theme and the orders database?` });
    history.push({ role: "assistant", content: [{ type: "text", text: `answer ${i}` }] });
  }
  const req = { prompt: "which theme do I like?", messages: history, search: { user }, nowMs: 1795165923000 };
  const full = e.autoRecall(req);
  const lean = e.recall(req);
  assert.deepEqual(Object.keys(lean).sort(), ["query", "recall"]);
  assert.deepEqual(lean.query, full.query);
  assert.deepEqual(lean.recall, full.recall);
  assert.equal(lean.recall.messages.length, 2, "the pair is in the outcome");
  assert.deepEqual(e.recall({ ...req, explain: true }).recall.explain, e.autoRecall({ ...req, explain: true }).recall.explain);
  // the older messages are never read: a message that throws on any read is no error there
  const hostile = new Proxy({}, { get() { throw new Error("private text"); }, ownKeys() { throw new Error("private text"); } });
  const older = [hostile, ...history];
  assert.deepEqual(e.recall({ ...req, messages: older }).recall, full.recall);
  // …but one the query needs is an INVALID_INPUT naming it, never an exception through the wasm
  const newest = [...history, hostile];
  assert.throws(() => e.recall({ ...req, messages: newest }), (err) => err.code === "INVALID_INPUT" && err.field === `messages[${history.length}]` && !/private/.test(err.message));
  assert.throws(() => e.recall({ ...req, messages: "no" }), (err) => err.code === "INVALID_INPUT" && err.field === "messages");
  // a list claiming 2^32 - 1 messages, none of them a user's, is refused, not walked
  const endless = new Proxy([], { get: (t, k) => (k === "length" ? 2 ** 32 - 1 : typeof k === "string" && /^\d+$/.test(k) ? { role: "assistant", content: "x" } : Reflect.get(t, k)) });
  assert.throws(() => e.recall({ ...req, messages: endless }), (err) => err.code === "INVALID_INPUT" && err.field === "messages");
  assert.ok(e.recall(req).recall, "the instance still works");
  e.free();
});

test("config snippet round-trips through the parser", () => {
  const e = new engine.Engine({ recallLimit: 9, recallScoreThreshold: 0.3, apiKey: "secret" }, {});
  const snippet = e.configSnippet();
  assert.equal(snippet.apiKey, undefined, "the snippet never carries the API key");
  const again = engine.parseConfig(JSON.parse(JSON.stringify(snippet)), {});
  assert.equal(again.config.recallLimit, 9);
  assert.equal(again.config.recallScoreThreshold, 0.3);
  assert.deepEqual(again.warnings, []);
});

test("searchLimit is the engine's pool size per scope (what the plugin and the live page ask for)", () => {
  assert.equal(new engine.Engine({}, {}).searchLimit, 48);
  assert.equal(new engine.Engine({ recallLimit: 2 }, {}).searchLimit, 40);
  assert.equal(new engine.Engine({ recallLimit: 10 }, {}).searchLimit, 80);
  assert.equal(new engine.Engine({ recallLimit: 100 }, {}).searchLimit, 400);
});

test("every evaluation of the plugin's loader in a process shares one initialised package (OpenClaw evaluates the entry up to three times)", async () => {
  // OpenClaw's loader makes fresh module instances of the same files; copies of the loader and
  // of the package's glue, beside the originals (so the wasm path is the same), stand for them
  const dir = fileURLToPath(new URL("..", import.meta.url));
  const tag = `instance-${process.pid}`;
  const glue = join(dir, "pkg", `${tag}.js`);
  const loader = join(dir, `${tag}.js`);
  const instances = [];
  const Instance = WebAssembly.Instance;
  WebAssembly.Instance = function (...a) { instances.push(a); return new Instance(...a); };
  try {
    copyFileSync(join(dir, "pkg", "openviking_context_engine.js"), glue);
    writeFileSync(loader, readFileSync(join(dir, "wasm.js"), "utf8").replace("./pkg/openviking_context_engine.js", `./pkg/${tag}.js`));
    const fresh = await import(pathToFileURL(loader).href);
    const pkgCopy = await import(pathToFileURL(glue).href);
    assert.equal(fresh.loadEngineSync(), plugin, "the first evaluation's package");
    assert.equal(instances.length, 0, "no second compile and instantiate");
    assert.throws(() => pkgCopy.version(), "the fresh glue was never initialised");
    assert.equal(typeof fresh.loadEngineSync().version(), "string");
  } finally {
    WebAssembly.Instance = Instance;
    rmSync(glue, { force: true });
    rmSync(loader, { force: true });
  }
});
