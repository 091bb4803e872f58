// Every export and method of the package, each a case: which arguments (valid, one field
// mutated, or hostile), the call(s), and the invariants of a successful result.
import { hostile, text } from "./values.mjs";
import * as S from "./shapes.mjs";
import { goodHost } from "./hosts.mjs";
import { Rng } from "./prng.mjs";
import { arg, arity, anyLone, isNonNegInt } from "./args.mjs";
import { checkQuery, checkAutoRecall, checkAssemble } from "./checks.mjs";
import { contextEngineCase } from "./context-engine-case.mjs";

/** Thrown to abandon a case whose setup found the instance poisoned (already reported). */
export const SKIP = Symbol("skip case");


// ---- per-worker state: engines by config (configs are fixed by the seed) ---------------------

export function engineFor(W, c) {
  const i = c.rng.int(W.engineConfigs.length);
  if (!W.engines[i]) {
    try {
      W.engines[i] = new W.pkg.Engine(W.engineConfigs[i], { HOME: "/home/ada" });
      W.engineCfg[i] = W.engines[i].config;
    } catch (e) {
      // a known-good constructor call failed: the instance is poisoned (counted as a trap)
      c.poisoned(`a known-good new Engine(config #${i}) threw: ${e?.message ?? e}`);
      throw SKIP;
    }
  }
  return { engine: W.engines[i], cfg: W.engineCfg[i], slot: i };
}

export function engineConfigs(seed) {
  const rng = new Rng(seed, 0x5eed);
  const out = [{}, { recallMaxContentChars: 50, recallTokenBudget: 100 }, { recallMaxContentChars: 53, recallLimit: 100, recallScoreThreshold: 0 },
    { recallTokenBudget: 150, recallPreferAbstract: false, recentRawTurnCount: 0 }, { autoRecall: false }];
  for (let i = 0; i < 4; i++) {
    const cfg = S.pluginConfig(rng);
    delete cfg.ingestReplyAssistFoo;
    delete cfg.baseUrl;
    delete cfg.stateDir;
    delete cfg.configPath;
    out.push(cfg);
  }
  return out;
}


// ---- sync targets ---------------------------------------------------------------------------

function engineMethod(name, build, check) {
  return (c, W) => {
    const { engine, cfg, slot } = engineFor(W, c);
    const a = arg(c, build(c.rng));
    const args = arity(c, [a.value]);
    const inputLone = anyLone(a.value);
    const out = c.sync(`Engine#${name}`, () => engine[name](...args), {
      args, how: a.how, expectOk: a.expectOk && args.length >= 1,
      check: check && ((r, fail) => check(r, fail, { cfg, input: a.value, inputLone, W })),
    });
    if (out.failed && c.serious) c.engineProbe(W, slot);
  };
}

export const TARGETS = [
  // [weight, name, async?, run]
  [1, "version", false, (c, W) => {
    const args = c.rng.chance(0.8) ? [] : [hostile(c.rng)];
    c.sync("version", () => W.pkg.version(...args), { args, expectOk: true, check: (r, fail) => typeof r !== "string" && fail("version is not a string") });
  }],
  [6, "estimateTokens", false, (c, W) => {
    const a = c.rng.chance(0.6) ? { value: text(c.rng, { huge: 0.5 }), expectOk: true, how: "text" } : { value: hostile(c.rng), expectOk: false, how: "hostile" };
    const args = arity(c, [a.value]);
    c.sync("estimateTokens", () => W.pkg.estimateTokens(...args), { args, how: a.how, expectOk: a.expectOk && args.length >= 1,
      check: (r, fail) => !isNonNegInt(r) && fail(`estimateTokens returned ${String(r)}`) });
  }],
  [5, "estimateMessageTokens", false, (c, W) => {
    const a = arg(c, S.conversation(c.rng));
    const args = arity(c, [a.value]);
    c.sync("estimateMessageTokens", () => W.pkg.estimateMessageTokens(...args), { args, how: a.how, expectOk: a.expectOk && args.length >= 1,
      check: (r, fail) => {
        if (!Array.isArray(r) || !r.every(isNonNegInt)) return fail("estimateMessageTokens: not an array of non-negative integers");
        if (Array.isArray(a.value) && r.length !== a.value.length) fail(`estimateMessageTokens: ${r.length} counts for ${a.value.length} messages`);
      } });
  }],
  [3, "redactSecrets", false, (c, W) => {
    // a secret (plain and URL-encoded) never survives, whatever surrounds it
    const secret = c.rng.pick(["uk-Secret+Key/42==", "sk-0123456789abcdef", "密钥-秘密-1234", "a b c d", "\uD800key\uDC00x", "x".repeat(c.rng.range(4, 300))]);
    const around = text(c.rng, { huge: 0.1 });
    const enc = (x) => {
      try {
        return encodeURIComponent(x);
      } catch {
        return encodeURIComponent(x.toWellFormed());
      }
    };
    const input = c.rng.pick([`${around}${secret}${around}`, `${around}${enc(secret)}`, `${secret}${secret}`, around]);
    const secrets = c.rng.pick([[secret], [undefined, secret, null], [secret, secret.slice(0, 2)], [5, secret], [], secret]);
    const valid = typeof input === "string";
    const args = c.rng.chance(0.9) ? [input, secrets] : [hostile(c.rng), hostile(c.rng)];
    c.sync("redactSecrets", () => W.pkg.redactSecrets(...args), { args, expectOk: valid && args[0] === input,
      check: (r, fail) => {
        if (typeof r !== "string") return fail(`redactSecrets returned ${typeof r}`);
        const listed = Array.isArray(secrets) ? secrets.includes(secret) : false;
        const s = secret.toWellFormed();
        if (listed && args[0] === input && (r.includes(s) || r.includes(enc(s)))) fail("redactSecrets: the secret is still there");
      } });
  }],
  [5, "parseConfig", false, (c, W) => {
    const fromVector = c.rng.chance(0.2);
    const base = fromVector ? JSON.parse(JSON.stringify(c.rng.pick(S.CONFIG_VECTORS).input ?? null)) : S.pluginConfig(c.rng, { timeoutMs: c.rng.chance(0.5) ? 1000 : undefined });
    const validEnv = { HOME: "/home/ada", FUZZ_URL: "http://127.0.0.1:1933" };
    const a = arg(c, base);
    const e = c.rng.chance(0.75) ? { value: validEnv, ok: true } : { value: S.env(c.rng), ok: false };
    const args = arity(c, [a.value, e.value]);
    const expectOk = a.expectOk && e.ok && !("ingestReplyAssistFoo" in (base ?? {})) && !fromVector && args.length >= 2;
    c.sync("parseConfig", () => W.pkg.parseConfig(...args), { args, how: a.how, expectOk,
      check: (r, fail) => checkParsed(r, fail, a.value) });
  }],
  [3, "new Engine", false, (c, W) => {
    const a = arg(c, S.pluginConfig(c.rng));
    const env = c.rng.chance(0.8) ? { HOME: "/home/ada", FUZZ_URL: "http://127.0.0.1:1933" } : S.env(c.rng);
    const args = arity(c, [a.value, env]);
    const expectOk = a.expectOk && args[1] === env && env?.FUZZ_URL === "http://127.0.0.1:1933" && !("ingestReplyAssistFoo" in a.value);
    let made = null;
    c.sync("new Engine", () => (made = new W.pkg.Engine(...args)), { args, how: a.how, expectOk });
    if (!made) return;
    c.sync("Engine#config", () => made.config, { args: [], expectOk: true, check: (r, fail) => checkParsed({ config: r, warnings: [] }, fail, a.value) });
    c.sync("Engine#warnings", () => made.warnings, { args: [], expectOk: true, check: (r, fail) => (!Array.isArray(r) || !r.every((w) => typeof w === "string")) && fail("warnings is not a string[]") });
    c.sync("Engine#configSnippet", () => made.configSnippet(), { args: [], expectOk: true, check: (r, fail) => r && "apiKey" in r && r.apiKey !== undefined && fail("configSnippet carries the apiKey") });
    if (c.rng.chance(0.5)) c.sync("Engine#free", () => made.free(), { args: [], expectOk: true });
  }],
  [2, "use after free()", false, (c, W) => {
    const cls = c.rng.chance(0.6) ? "Engine" : "ContextEngine";
    let made = null;
    c.sync(`new ${cls}`, () => (made = cls === "Engine" ? new W.pkg.Engine({}, {}) : new W.pkg.ContextEngine({ timeoutMs: 1000 }, {}, goodHost(c.rng))), { args: [], expectOk: true });
    if (!made) return;
    c.sync(`${cls}#free`, () => made.free(), { args: [], expectOk: true });
    const after = c.rng.pick(cls === "Engine" ? ["autoRecall", "assemble", "configSnippet", "free", "buildRecallQuery", "config"]
      : ["ovSessionId", "setUserId", "free", "writeTurn", "record", "assemble", "recall", "memoryScopes", "forgetSearch", "compact", "hookFallback", "afterTurn"]);
    const args = after === "config" || after === "memoryScopes" || after === "forgetSearch" ? [] : [after === "autoRecall" || after === "assemble" ? { prompt: "x", sessionId: "s1", messages: [] } : after === "recall" ? { query: "x" } : ["compact", "hookFallback", "afterTurn"].includes(after) ? { sessionId: "s1", messages: [] } : "s1"];
    c.sync(`${cls}#${after} after free()`, () => (after === "config" ? made.config : made[after](...args)), { args, how: "use after free", expectOk: false });
  }],
  [12, "Engine#autoRecall", false, engineMethod("autoRecall", S.recallRequest, checkAutoRecall)],
  [8, "Engine#assemble", false, engineMethod("assemble", S.assembleRequest, checkAssemble)],
  [4, "Engine#buildRecallQuery", false, engineMethod("buildRecallQuery", (r) => ({ prompt: text(r), messages: S.conversation(r) }), (q, fail) => checkQuery("buildRecallQuery", q, fail))],
  [4, "Engine#recallIntent", false, engineMethod("recallIntent", (r) => ({ prompt: text(r), messages: S.conversation(r), nowMs: r.int(4102444800000) }), (i, fail) => {
    if (i === null) return;
    if (typeof i?.needsRecall !== "boolean" || !Array.isArray(i.types)) return fail(`recallIntent: not an intent: ${JSON.stringify(i)?.slice(0, 200)}`);
    if (i.window && !(i.window.endMs > i.window.startMs)) fail(`recallIntent: empty window ${JSON.stringify(i.window)}`);
    if (!i.needsRecall && (i.types.length || i.window || i.narrowedTo)) fail("recallIntent: a turn needing no recall names types or a window");
  })],
  [4, "Engine#expand", false, engineMethod("expand", S.expandRequest, (r, fail, { cfg, input }) => {
    if (!Array.isArray(r?.excerpts)) return fail("expand: excerpts is not an array");
    const limit = Math.min(cfg.memoryExpandMaxResults, typeof input?.limit === "number" ? Math.max(1, input.limit) : Infinity);
    if (r.excerpts.length > limit) fail(`expand: ${r.excerpts.length} excerpts > limit ${limit}`);
  })],
  [3, "Engine#classifyExpandUri", false, (c, W) => {
    const { engine, slot } = engineFor(W, c);
    const a = c.rng.chance(0.6) ? { value: S.uriForExpand(c.rng), expectOk: true, how: "uri" } : { value: hostile(c.rng), expectOk: false, how: "hostile" };
    const args = arity(c, [a.value]);
    const out = c.sync("Engine#classifyExpandUri", () => engine.classifyExpandUri(...args), { args, how: a.how, expectOk: a.expectOk && args.length >= 1 });
    if (out.failed && c.serious) c.engineProbe(W, slot);
  }],
  [4, "Engine#triggerTimeline", false, engineMethod("triggerTimeline", (r) => ({ messages: S.conversation(r), tokenBudget: r.range(0, 300000) }), (r, fail) => !Array.isArray(r) && fail("triggerTimeline: not an array"))],
  [3, "Engine#fallbackBlock", false, (c, W) => {
    const { engine, slot } = engineFor(W, c);
    if (typeof engine.fallbackBlock !== "function") return;
    const mems = Array.from({ length: c.rng.weighted([[1, 0], [4, c.rng.range(1, 6)]]) }, () => ({ uri: S.findItem(c.rng).uri, category: c.rng.pick(["events", "preferences"]),
      content: c.rng.chance(0.3) ? c.rng.pick(["</relevant-memories>", "<relevant-memories>", "]]></x>", "```", "\u003c/relevant-memories>"]) + text(c.rng) : text(c.rng), score: c.rng.float() }));
    const a = arg(c, mems);
    const args = arity(c, [a.value]);
    const out = c.sync("Engine#fallbackBlock", () => engine.fallbackBlock(...args), { args, how: a.how, expectOk: a.expectOk && args.length >= 1,
      check: (b, fail) => {
        if (a.expectOk && mems.length === 0) return b !== null && fail("fallbackBlock of no memories is not null");
        if (b === null) return a.expectOk && fail("fallbackBlock of memories is null");
        if (typeof b !== "string") return fail(`fallbackBlock returned ${typeof b}`);
        const opens = b.split("<relevant-memories>").length - 1;
        const closes = b.split("</relevant-memories>").length - 1;
        if (opens !== 1 || closes !== 1 || !b.startsWith("<relevant-memories>") || !b.endsWith("</relevant-memories>")) fail(`fallbackBlock: a memory's text can open/close the block (${opens} opening, ${closes} closing tags)`);
      } });
    if (out.failed && c.serious) c.engineProbe(W, slot);
  }],
  [1, "initSync/default", false, (c, W) => {
    const args = [c.rng.pick([undefined, { module: hostile(c.rng) }, hostile(c.rng), { module: new Uint8Array([0, 97, 115, 109]) }])];
    c.sync("initSync", () => W.pkg.initSync(...args), { args, expectOk: false });
    c.sync("wasm.js loadEngineSync", () => W.loadEngineSync(), { args: [], expectOk: true, check: (r, fail) => r !== W.pluginPkg && fail("loadEngineSync returned another module") });
  }],
  [1, "default init", true, async (c, W) => {
    const args = [c.rng.pick([undefined, { module_or_path: hostile(c.rng) }, hostile(c.rng)])];
    await c.async("default init", () => W.pkg.default(...args), { args, expectOk: false, bound: 3000 });
  }],
  [2, "liveSearch", true, async (c, W) => {
    const k = c.rng.int(W.server.behaviours);
    // 2 s: a good server's answer must arrive even while the worker's other cases load the CPU
    const valid = { baseUrl: `${W.server.url}/b${k}`, query: text(c.rng, { huge: 0 }) || "q", timeoutMs: 2000 };
    if (c.rng.chance(0.5)) valid.limit = c.rng.range(1, 1000);
    if (c.rng.chance(0.3)) valid.agentId = c.rng.pick(["main", "a.b-c_9"]);
    if (c.rng.chance(0.3)) valid.apiKey = "fuzz-key-123";
    const a = arg(c, c.rng.chance(0.1) ? { ...valid, baseUrl: c.rng.pick(["http://127.0.0.1:1", "http://localhost:1", "http://[::1]:1"]) } : valid);
    const args = arity(c, [a.value]);
    // a request whose timeoutMs the mutation removed waits the 15 s default on a server that hangs
    let t = 2000;
    try {
      t = typeof a.value?.timeoutMs === "number" && a.value.timeoutMs >= 100 && a.value.timeoutMs <= 600000 ? a.value.timeoutMs : 15000;
    } catch {}
    const hangs = ["slow 1500 ms", "never answers", "partial then close", "hang up", "huge 3 MB"].includes(W.server.names[k]);
    const bound = 2 * Math.min(hangs ? t : 1000, 6000) + 3500; // the server hangs up idle sockets after 5 s
    const expectOk = a.expectOk && k === 0 && a.value.baseUrl === valid.baseUrl && valid.query.trim() !== "" && args.length >= 1;
    await c.async("liveSearch", () => W.pkg.liveSearch(...args), { args, how: `${a.how}; server behaviour ${W.server.names[k]}`, expectOk, bound,
      check: (r, fail) => (typeof r !== "object" || r === null || !("user" in r)) && fail("liveSearch: not a LiveSearchResult") });
  }],
  [30, "ContextEngine", true, (c, W) => contextEngineCase(c, W)],
];

function checkParsed(r, fail, input) {
  if (!r || typeof r !== "object" || !r.config) return fail("parseConfig: no config");
  for (const [k, [lo, hi]] of Object.entries(S.BOUNDS)) {
    const v = r.config[k];
    if (typeof v !== "number" || !(v >= lo && v <= hi)) fail(`parseConfig: ${k} = ${v} outside [${lo}, ${hi}]`);
  }
  if (!Array.isArray(r.warnings) || !r.warnings.every((w) => typeof w === "string")) fail("parseConfig: warnings is not a string[]");
  let key = null;
  try {
    key = input && typeof input === "object" && typeof input.apiKey === "string" && input.apiKey.length > 3 ? input.apiKey : null;
  } catch {} // a Proxy input
  if (key && r.warnings.some((w) => w.includes(key))) fail("parseConfig: a warning shows the apiKey");
}

// ---- methods this table does not know (new exports): fuzzed generically -----------------------

export const KNOWN = {
  exports: ["version", "estimateTokens", "estimateMessageTokens", "parseConfig", "liveSearch", "initSync", "default", "Engine", "ContextEngine"],
  Engine: ["constructor", "free", "config", "warnings", "configSnippet", "buildRecallQuery", "recallIntent", "assemble", "expand", "classifyExpandUri", "triggerTimeline", "autoRecall", "fallbackBlock"],
  ContextEngine: ["constructor", "free", "setUserId", "ovSessionId", "ownsSession", "writeTurn", "afterTurn", "runCommit", "followTask", "flush", "record",
    "assemble", "recall", "memoryScopes", "forgetSearch", "compact", "hookFallback"],
};

/** Exports and methods of the package that KNOWN does not list. */
export function unknownSurface(pkg) {
  const out = [];
  for (const [k, v] of Object.entries(pkg)) {
    if (typeof v !== "function" || KNOWN.exports.includes(k) || k.startsWith("__")) continue;
    out.push({ kind: "export", name: k });
  }
  for (const cls of ["Engine", "ContextEngine"]) {
    if (typeof pkg[cls] !== "function") continue;
    for (const k of Object.getOwnPropertyNames(pkg[cls].prototype)) {
      if (KNOWN[cls].includes(k) || k.startsWith("__")) continue;
      out.push({ kind: cls, name: k });
    }
  }
  return out;
}

function genericArg(rng) {
  return rng.weighted([[3, () => text(rng)], [3, () => hostile(rng)], [2, () => S.recallRequest(rng)], [1, () => S.conversation(rng)], [1, () => S.turnWrite(rng)], [1, () => rng.range(0, 5000)]])();
}

export function genericTargets(pkg) {
  return unknownSurface(pkg).map((u) => [2, `${u.kind === "export" ? "" : u.kind + "#"}${u.name} (generic)`, true, async (c, W) => {
    const args = Array.from({ length: c.rng.range(0, 3) }, () => genericArg(c.rng));
    let self = W.pkg;
    if (u.kind === "Engine") self = engineFor(W, c).engine;
    if (u.kind === "ContextEngine") {
      // a good host with every callback: a refusal here means HostCallbacks gained one goodHost lacks
      const made = c.sync("new ContextEngine (for a generic method)", () => (self = new W.pkg.ContextEngine({ timeoutMs: 1000 }, {}, goodHost(c.rng))), { args: [], expectOk: true });
      if (!made.ok) return;
    }
    const d = Object.getOwnPropertyDescriptor(u.kind === "export" ? W.pkg : W.pkg[u.kind].prototype, u.name);
    const call = () => (d?.get ? d.get.call(self) : self[u.name](...args));
    let result;
    const first = c.sync(`${u.kind === "export" ? "" : u.kind + "#"}${u.name}`, () => (result = call()), { args, how: "generic", expectOk: false });
    if (first.ok && result && typeof result.then === "function") {
      await c.async(`${u.kind === "export" ? "" : u.kind + "#"}${u.name} (its promise)`, () => result, { args, how: "generic", expectOk: false, bound: W.settle(1000), recount: false });
    }
  }]);
}

export function pickTarget(rng, only, extra = [], skip = null) {
  const all = [...TARGETS, ...extra].filter((t) => !skip || !skip.includes(t[1]));
  const table = only ? all.filter((t) => only.includes(t[1])) : all;
  return rng.weighted(table.map((t) => [t[0], t]));
}
