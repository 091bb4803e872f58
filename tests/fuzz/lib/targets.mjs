// Every export and method of the package, each a case: which arguments (valid, one field
// mutated, or hostile), the call(s), and the invariants of a successful result.
import { hostile, text, cleanText, ctx, tagged, tagText } from "./values.mjs";
import * as S from "./shapes.mjs";
import { checkToolPairs, checkRecall, checkQuery, hasLone, toolPairProblems, checkMemories, engineView, sameJson, messageText } from "./checks.mjs";
import { goodHost, hostileHost, randomPlan, wholeHostileHost, describePlan, completeHosts, ENGINE_CALLBACKS, rustTrim, userScope, allowedScope, agentScope, HOME_SCOPE } from "./hosts.mjs";
import { Rng } from "./prng.mjs";

/** Thrown to abandon a case whose setup found the instance poisoned (already reported). */
export const SKIP = Symbol("skip case");

/** valid / mutated one field / hostile, with whether a success is required. */
function arg(c, valid, { hostileP = 0.12, mutateP = 0.33 } = {}) {
  const r = c.rng.float();
  if (r < hostileP) return { value: hostile(c.rng), expectOk: false, how: "hostile" };
  if (r < hostileP + mutateP) {
    const m = S.mutate(c.rng, valid);
    return { value: m.value, expectOk: false, how: m.how };
  }
  return { value: valid, expectOk: true, how: "valid" };
}

/** Sometimes no argument, sometimes extra ones. */
function arity(c, args) {
  const r = c.rng.float();
  if (r < 0.03) return [];
  if (r < 0.06) return [...args, hostile(c.rng), hostile(c.rng)];
  return args;
}

function anyLone(v, depth = 0) {
  if (typeof v === "string") return hasLone(v);
  if (depth > 8 || v === null || typeof v !== "object") return false;
  try {
    return Object.values(v).some((x) => anyLone(x, depth + 1));
  } catch {
    return true;
  }
}

function isNonNegInt(x) {
  return Number.isInteger(x) && x >= 0;
}

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

function tokensOf(W) {
  return (messages) => {
    try {
      const t = W.pkg.estimateMessageTokens(messages);
      return t.reduce((a, b) => a + b, 0);
    } catch {
      return null;
    }
  };
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

const checkAutoRecall = (r, fail, { cfg, input, inputLone, W }) => {
  checkQuery("autoRecall", r.query, fail);
  checkRecall("autoRecall", r.recall, cfg, { inputLone, tokensOf: tokensOf(W) }, fail);
  checkToolPairs("autoRecall.messages", input?.messages, r.messages, fail);
  if (r.recall) checkToolPairs("autoRecall.recall.messages", [], r.recall.messages, fail);
};

const checkAssemble = (r, fail, { cfg, input, inputLone, W }) => {
  checkQuery("assemble", r.query, fail);
  checkRecall("assemble", r.recall, cfg, { inputLone, tokensOf: tokensOf(W) }, fail);
  checkToolPairs("assemble.messages", input?.messages, r.messages, fail);
  const budget = r.budget;
  if (typeof budget === "number") {
    if (r.estimatedTokens > budget && !r.overBudget) fail(`assemble: estimatedTokens ${r.estimatedTokens} > budget ${budget} and overBudget is false`);
    const t = tokensOf(W)(r.messages);
    const prompt = typeof input?.prompt === "string" ? W.pkg.estimateTokens(input.prompt) + 4 : 0;
    if (t !== null && t + prompt > budget && !r.overBudget) fail(`assemble: the output messages are ${t + prompt} tokens by estimateMessageTokens > budget ${budget} and overBudget is false`);
    if (r.overBudget && r.recallIncluded) fail("assemble: over budget with the recall pair still included (memories go first)");
  }
};

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
  [4, "Engine#replayTriggers", false, engineMethod("replayTriggers", (r) => ({ messages: S.conversation(r), tokenBudget: r.range(0, 300000) }), (r, fail) => !Array.isArray(r) && fail("replayTriggers: not an array"))],
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

// ---- ContextEngine --------------------------------------------------------------------------

const BLANKS = ["", " ", " \t\n ", "\u3000", "\u2028"];
const DEL = Symbol("delete");
const RECALL_QUERY_MAX = 4000;

/** A query for memory_recall: mostly text, sometimes at the 4000-character edge. */
function recallQuery(rng) {
  return rng.weighted([
    [14, () => text(rng)],
    [1, () => "a".repeat(RECALL_QUERY_MAX)],
    [1, () => "😀".repeat(RECALL_QUERY_MAX)], // 4000 characters, 8000 UTF-16 units
    [1, () => ` \n${"数".repeat(RECALL_QUERY_MAX)}\u3000 `], // 4000 once trimmed
    [1, () => "a".repeat(RECALL_QUERY_MAX + 1)],
    [1, () => "b".repeat(rng.range(RECALL_QUERY_MAX + 1, 20000))],
    [1, () => rng.pick(BLANKS)],
  ])();
}
/** Does memory_recall have to refuse this query (blank once trimmed, over 4000 characters)? */
function queryRefused(q) {
  if (typeof q !== "string") return true;
  const t = rustTrim(q.toWellFormed());
  if (t === "") return true;
  if (t.length <= RECALL_QUERY_MAX) return false;
  if (t.length > 2 * RECALL_QUERY_MAX) return true;
  return [...t].length > RECALL_QUERY_MAX;
}

/**
 * The valid input with exactly one fault the method must refuse with INVALID_INPUT naming
 * the field: `faults` are [key, values] (a value DEL removes the key) or functions
 * `(rng, v) => field | [replacement, field]`.
 */
function oneFault(rng, valid, faults) {
  const f = rng.pick(faults);
  let v = { ...valid };
  let field;
  let how;
  if (typeof f === "function") {
    const out = f(rng, v);
    if (Array.isArray(out)) [v, field] = out;
    else field = out;
    how = `one fault: ${field}`;
  } else {
    const [key, values, named] = f;
    const bad = rng.pick(values);
    if (bad === DEL) delete v[key];
    else v[key] = bad;
    field = named ?? key;
    how = `one fault: ${bad === DEL ? `no ${key}` : `${key} = ${typeof bad === "string" ? JSON.stringify(bad.slice(0, 20)) : String(bad)}`}`;
  }
  return { value: v, expectOk: false, expectError: { code: "INVALID_INPUT", field }, how };
}

/** valid / one known fault / mutated / hostile */
function callArg(c, valid, faults, { faultP = 0.15 } = {}) {
  if (faults && c.rng.chance(faultP)) return oneFault(c.rng, valid, faults);
  return arg(c, valid, { hostileP: 0.06, mutateP: 0.2 });
}

const NOT_OBJECT = (rng) => [rng.pick([5, "s1", [], true]), "(input)"];
const ASSEMBLE_FAULTS = [
  ["sessionId", [...BLANKS, DEL, 5, true, {}, ["s1"]]],
  (rng, v) => {
    const i = rng.int((v.messages?.length ?? 0) + 1);
    v.messages = [...(v.messages ?? []).slice(0, i), rng.pick([5, "hi", null, true, []]), ...(v.messages ?? []).slice(i)];
    return `messages[${i}]`;
  },
  ["messages", ["x", 5, {}, true]],
  ["prompt", [5, {}, [], true]],
  ["tokenBudget", [-1, 1.5, "100", true, 2 ** 53, 1e21, [100]]],
  ["explain", ["yes", 1, {}]],
  NOT_OBJECT,
];
const RECALL_FAULTS = [
  (rng, v) => {
    const k = rng.pick(["foo", "Limit", "score_threshold", "queries", "sessionId", "query "]);
    v[k] = rng.pick([1, "x", true, {}, []]);
    return k;
  },
  (rng, v) => {
    Object.defineProperty(v, "__proto__", { value: { limit: 3 }, enumerable: true, configurable: true, writable: true });
    return "__proto__";
  },
  ["query", [...BLANKS, DEL, 5, null, [], {}, true, "a".repeat(RECALL_QUERY_MAX + 1), ` ${"😀".repeat(RECALL_QUERY_MAX + 1)} `]],
  ["limit", [0, 21, -1, 1.5, "3", true, 2 ** 53, 1e21, [3], {}, 100]],
  ["scoreThreshold", [-0.01, 1.01, 2, -1, "0.5", true, [], {}, 1e300]],
  NOT_OBJECT,
];
const COMPACT_FAULTS = [["sessionId", [DEL, 5, true, {}, [], null]], ["currentTokenCount", [-1, 1.5, "10", true, 1e21, [1]]], NOT_OBJECT];
const HOOK_FAULTS = [["sessionId", [5, true, {}, []]], ["prompt", [5, {}, [], false]], ["messages", ["x", 5, {}, true]], NOT_OBJECT];
const TURN_FAULTS = [
  ["sessionId", [...BLANKS, DEL, 5, {}]],
  (rng, v) => {
    const i = rng.int((v.messages?.length ?? 0) + 1);
    v.messages = [...(v.messages ?? []).slice(0, i), rng.pick([5, "hi", true, []]), ...(v.messages ?? []).slice(i)];
    return `messages[${i}]`;
  },
  ["sessionKey", [5, {}, true]],
  ["tokenBudget", [-1, 1.5, "9"]],
  ["isHeartbeat", ["yes", 1]],
  (rng, v) => {
    v.usedContextUris = ["viking://user/ada/memories/events/e.md", rng.pick([5, null, {}, true])];
    return "usedContextUris[1]";
  },
];

/** The engine's view of afterTurn's lenient prePromptMessageCount (anything else reads as 0). */
function prePromptSeen(v, len) {
  let p;
  try {
    p = JSON.parse(JSON.stringify({ p: v.prePromptMessageCount })).p;
  } catch {
    return undefined; // unreadable: the whole request is
  }
  // a whole number of any size is a count (one beyond 2^64 saturates: src/decode lenient_count)
  if (!(Number.isInteger(p) && p >= 0)) return 0;
  return Math.min(p, len);
}
const isFinalAnswer = (m) => m?.role === "assistant" && !(Array.isArray(m.content) && m.content.some((p) => p?.type === "toolCall"));

function checkWriteOutcome(where, o, fail, { own, known }) {
  if (!o || !["committed", "duplicate"].includes(o.status)) return fail(`${where}: status ${o?.status}`);
  if (known && o.ovSessionId !== own) fail(`${where}: ovSessionId ${o.ovSessionId} is not ovSessionId(sessionId) ${own}`);
  if (!isNonNegInt(o.outboxLen)) fail(`${where}: outboxLen ${o.outboxLen}`);
}

function checkFallbackText(where, b, fail) {
  if (typeof b !== "string") return fail(`${where} returned ${typeof b}`);
  const opens = b.split("<relevant-memories>").length - 1;
  const closes = b.split("</relevant-memories>").length - 1;
  if (!b.startsWith("<relevant-memories>")) fail(`${where}: the block does not start with <relevant-memories>: ${JSON.stringify(b.slice(0, 60))}`);
  else if (opens !== 1 || closes !== 1 || !b.endsWith("</relevant-memories>")) fail(`${where}: a memory's text can open/close the block (${opens} opening, ${closes} closing tags)`);
}

async function contextEngineCase(c, W) {
  const rng = c.rng;
  const protocol = (what) => c.note(`host protocol: ${what}`);
  const good = goodHost(rng, { protocol });
  const mode = rng.weighted([[3, "good"], [6, "hostile"], [1, "whole"]]);
  let hostObj = good;
  let hostile_ = null;
  if (mode === "hostile") {
    const plan = randomPlan(rng);
    c.plan = plan;
    hostile_ = hostileHost(rng, good, { caseId: c.id, plan, onRunaway: (n) => c.runaway(n) });
    hostObj = hostile_.host;
    c.hostInfo = describePlan(plan);
  } else if (mode === "whole") {
    hostObj = wholeHostileHost(rng, good);
    c.hostInfo = `whole host: ${typeof hostObj}`;
  } else c.hostInfo = "good host";
  const goodHostMode = mode === "good";
  const plan = c.plan ?? {};
  // a host with every callback a function (whatever they do) must be accepted
  const hostComplete = mode === "good" || completeHosts.has(hostObj) || (mode === "hostile" && !Object.entries(plan).some(([m, p]) => p.what === "notAFunction" && ENGINE_CALLBACKS.includes(m)));
  // on a host whose callbacks all answer (whatever else it does), calls with valid input
  // degrade instead of failing: these codes are all they may reject with
  const degrade = (codes) => (goodHostMode ? undefined : codes);

  const base = S.pluginConfig(rng);
  delete base.ingestReplyAssistFoo;
  if (base.baseUrl === "${FUZZ_URL}") delete base.baseUrl;
  const ca = arg(c, base, { hostileP: 0.03, mutateP: 0.07 });
  const env = { HOME: "/home/ada" };
  // the unsettled bound follows the engine's timeoutMs: keep it at 1000 ms whatever the
  // mutation did (a deleted key would mean the 15 s default)
  let timeoutMs = 1000;
  try {
    timeoutMs = W.pkg.parseConfig(ca.value, env).config.timeoutMs;
    if (timeoutMs !== 1000 && ca.value && typeof ca.value === "object" && !Object.isFrozen(ca.value)) {
      ca.value.timeoutMs = 1000;
      timeoutMs = W.pkg.parseConfig(ca.value, env).config.timeoutMs;
    }
  } catch {}
  // an engine with a longer timeout (a config the override could not change) would be
  // entitled to longer waits: construct it, but run no async calls on it
  const asyncOk = timeoutMs === 1000;
  const bound = W.settle(timeoutMs);
  let ce = null;
  const cargs = [ca.value, env, hostObj];
  c.sync("new ContextEngine", () => (ce = new W.pkg.ContextEngine(...cargs)), { args: cargs, how: ca.how, expectOk: ca.expectOk && hostComplete });
  if (!ce || !asyncOk) return;
  let cfg = null;
  try {
    cfg = W.pkg.parseConfig(ca.value, env).config;
  } catch {}
  const agentId = cfg?.agentId ?? "default";
  if (cfg) good.targetUri = cfg.targetUri, good.agentId = agentId;

  let uidSet; // what setUserId set (undefined: the engine asks the host)
  if (rng.chance(0.6)) {
    const u = rng.chance(0.8) ? { value: rng.pick(["ada", "u-1"]), ok: true } : { value: hostile(rng), ok: false };
    const out = c.sync("ContextEngine#setUserId", () => ce.setUserId(u.value), { args: [u.value], expectOk: u.ok });
    if (out.ok && typeof u.value === "string") uidSet = u.value;
  }
  // the user scope every search must use, when the host's userId answers as the good one does
  const expectedUser = cfg && !plan.userId && !plan.request ? userScope(cfg.targetUri, uidSet !== undefined ? uidSet : good.uid) : null;
  const clockGood = !plan.nowMs;
  const sessions = [S.sessionId(rng), S.sessionId(rng)];
  const ovIds = sessions.map((s) => {
    let id = null;
    c.sync("ContextEngine#ovSessionId", () => (id = ce.ovSessionId(s)), { args: [s], expectOk: true,
      check: (r, fail) => (typeof r !== "string" || !r.includes("--")) && fail(`ovSessionId returned ${String(r)}`) });
    return id ?? `${agentId}--${s}`;
  });
  // by OpenViking session (both sessions may be the same one)
  const assembleStarted = new Set();
  const assembledAt = new Map(); // the host clock before the last successful assemble began
  const profileUri = `viking://user/${String(uidSet ?? good.uid).toWellFormed()}/memories/profile.md`;
  const invented = (uri) => goodHostMode && good.strictReads && !good.found.has(uri) && uri !== profileUri;

  const nOps = rng.weighted([[2, 1], [4, rng.range(2, 4)], [2, rng.range(5, 9)]]);
  let stop = false;
  let anyFailure = false;
  const op = async () => {
    const which = rng.weighted([[7, "writeTurn"], [3, "afterTurn"], [6, "assemble"], [3, "recall"], [2, "hookFallback"], [2, "compact"], [1, "memoryScopes"],
      [1, "forgetSearch"], [3, "runCommit"], [2, "followTask"], [2, "flush"], [2, "record"], [1, "ovSessionId"], [typeof ce.ownsSession === "function" ? 1 : 0, "ownsSession"]]);
    const si = rng.int(2);
    const own = ovIds[si];
    const foreign = rng.pick([`other--${sessions[si]}`, `x${own}`, `${agentId}--`, agentId, "", `${agentId}-${sessions[si]}`]);
    let r;
    switch (which) {
      case "writeTurn": {
        const a = callArg(c, S.turnWrite(rng, sessions[si]), TURN_FAULTS, { faultP: 0.06 });
        const args = arity(c, [a.value]);
        r = await c.async("ContextEngine#writeTurn", () => ce.writeTurn(...args), { args, how: a.how, expectOk: goodHostMode && a.expectOk && args.length >= 1, bound,
          expectError: args.length >= 1 ? a.expectError : undefined,
          check: (o, fail) => checkWriteOutcome("writeTurn", o, fail, { own, known: a.expectOk }) });
        break;
      }
      case "afterTurn": {
        // the whole transcript, the finished turn (or a tool-loop checkpoint) at its end
        const t = S.turnWrite(rng, sessions[si]);
        const prior = rng.chance(0.6) ? S.conversation(rng, rng.range(1, 4)) : [];
        const whole = [...prior, ...t.messages];
        const valid = { ...t, messages: whole };
        if (rng.chance(0.3)) valid.messages = whole.slice(0, rng.range(prior.length, whole.length)); // mid tool loop
        const n = valid.messages.length;
        if (rng.chance(0.9)) valid.prePromptMessageCount = rng.weighted([[5, prior.length], [2, rng.range(0, n)], [1, n], [0.5, n + rng.range(1, 5)], [1, hostile(rng)]]);
        // a hostile count the engine cannot read as JSON (a BigInt, a throwing toJSON) makes the request unreadable
        const pre = prePromptSeen(valid, n);
        const a = pre === undefined ? { value: valid, expectOk: false, how: "prePromptMessageCount unreadable as JSON" } : callArg(c, valid, TURN_FAULTS, { faultP: 0.06 });
        const args = arity(c, [a.value]);
        // a slice that ends in a final answer is written; an empty one or one ending in a user message is not
        const slice = pre === null || pre === undefined || !a.expectOk ? null : valid.messages.slice(pre);
        const mustWrite = slice !== null && slice.length > 0 && isFinalAnswer(slice[slice.length - 1]);
        const mustSkip = slice !== null && (slice.length === 0 || slice[slice.length - 1]?.role === "user");
        r = await c.async("ContextEngine#afterTurn", () => ce.afterTurn(...args), { args, how: `${a.how}; prePromptMessageCount seen as ${pre}`,
          expectOk: goodHostMode && a.expectOk && args.length >= 1, bound, expectError: args.length >= 1 ? a.expectError : undefined,
          check: (o, fail) => {
            if (o === null) return args.length >= 1 && mustWrite && fail(`afterTurn: a finished turn (the slice from ${pre} ends in a final answer) was not written (null)`);
            if (args.length >= 1 && mustSkip) fail(`afterTurn: a tool-loop checkpoint (slice from ${pre} of ${n}: ${slice.length ? "ends in a user message" : "empty"}) was written`);
            checkWriteOutcome("afterTurn", o, fail, { own, known: a.expectOk });
          } });
        break;
      }
      case "assemble": {
        const valid = { sessionId: sessions[si], messages: S.conversation(rng) };
        if (rng.chance(0.3)) valid.sessionKey = rng.pick(["agent:main:main", "agent:main:cli", text(rng, { huge: 0 })]);
        if (rng.chance(0.6)) valid.prompt = text(rng);
        if (rng.chance(0.8)) valid.tokenBudget = rng.weighted([[2, rng.range(0, 200)], [4, rng.range(200, 5000)], [3, rng.range(5000, 200000)], [1, 2 ** 53 - 1]]);
        if (rng.chance(0.2)) valid.explain = rng.chance(0.5);
        const a = callArg(c, valid, ASSEMBLE_FAULTS);
        const args = arity(c, [a.value]);
        const known = a.expectOk && args.length >= 1;
        const inputLone = anyLone(a.value);
        const startedAt = good.clock.now;
        assembleStarted.add(own);
        r = await c.async("ContextEngine#assemble", () => ce.assemble(...args), { args, how: a.how, expectOk: goodHostMode && known, bound,
          expectError: args.length >= 1 ? a.expectError : undefined, allowCodes: known ? degrade(["HOST_TIMEOUT"]) : undefined,
          check: (o, fail) => {
            checkAssemble(o, fail, { cfg, input: a.value, inputLone, W });
            if (!Array.isArray(o?.messages)) return fail("assemble: messages is not an array");
            if (o.recall && Array.isArray(o.recall.messages) && o.recall.messages.length) fail("assemble: recall.messages is not empty (the pair belongs in messages)");
            if (o.recallUnavailable !== null && typeof o.recallUnavailable !== "string") fail(`assemble: recallUnavailable is ${typeof o.recallUnavailable}`);
            if (goodHostMode && o.recallUnavailable) fail(`assemble: recall unavailable on a good host: ${o.recallUnavailable}`);
            if (typeof o.systemPromptAddition !== "string") fail(`assemble: systemPromptAddition is ${typeof o.systemPromptAddition}`);
            if (!known) return;
            if (valid.tokenBudget !== undefined && o.budget !== valid.tokenBudget) fail(`assemble: budget ${o.budget} is not the tokenBudget ${valid.tokenBudget}`);
            if (valid.tokenBudget === undefined && o.budget !== null) fail(`assemble: budget ${o.budget} without a tokenBudget`);
            if (valid.tokenBudget !== undefined && o.estimatedTokens > valid.tokenBudget && !o.overBudget) fail(`assemble: estimatedTokens ${o.estimatedTokens} > tokenBudget ${valid.tokenBudget} and overBudget is false`);
            // the host's last user message: the current turn without a prompt (never trimmed),
            // else the newest prior turn (present unless turns were trimmed or summarized)
            const lastUser = engineView(valid.messages.findLast((m) => m?.role === "user"));
            const isSummary = lastUser && /^\s*<conversation-summary/.test(messageText(lastUser));
            const mayDrop = valid.prompt !== undefined && (o.trimmed?.rawTurns > 0 || o.summarizedTurns > 0);
            if (lastUser && !isSummary && !mayDrop && !o.messages.some((m) => m?.role === "user" && sameJson(m, lastUser))) {
              fail(`assemble: the host's last user message is missing from messages (${valid.prompt === undefined ? "the current turn" : "no turn was trimmed or summarized"})`);
            }
            if (cfg && cfg.autoRecall === false && o.recall) fail("assemble: recall ran with autoRecall off");
            for (const m of o.recall?.memories ?? []) if (invented(m?.uri)) fail(`assemble: memory ${JSON.stringify(m?.uri).slice(0, 100)} was not returned by find`);
          } });
        if (r?.ok) assembledAt.set(own, Math.max(startedAt, assembledAt.get(own) ?? 0));
        break;
      }
      case "recall": {
        const valid = { query: recallQuery(rng) };
        if (rng.chance(0.5)) valid.limit = rng.range(1, 20);
        if (rng.chance(0.4)) valid.scoreThreshold = rng.pick([0, 1, 0.5, Math.round(rng.float() * 100) / 100]);
        const refused = queryRefused(valid.query);
        const a = refused ? { value: valid, expectOk: false, expectError: { code: "INVALID_INPUT", field: "query" }, how: "query blank or over 4000 characters" } : callArg(c, valid, RECALL_FAULTS, { faultP: 0.25 });
        const args = arity(c, [a.value]);
        const known = a.expectOk && args.length >= 1;
        const inputLone = anyLone(a.value);
        r = await c.async("ContextEngine#recall", () => ce.recall(...args), { args, how: a.how, expectOk: goodHostMode && known, bound,
          expectError: args.length >= 1 ? a.expectError : undefined, allowCodes: known ? degrade(["HOST_FAILED", "HOST_TIMEOUT"]) : undefined,
          check: (o, fail) => {
            if (!o || typeof o !== "object") return fail(`recall resolved to ${typeof o}`);
            const limit = known ? valid.limit ?? cfg?.recallLimit : Math.max(20, cfg?.recallLimit ?? 100);
            const threshold = known ? valid.scoreThreshold ?? cfg?.recallScoreThreshold : undefined;
            checkMemories("recall", o.memories, { max: cfg?.recallMaxContentChars, inputLone, limit, threshold }, fail);
            for (const m of Array.isArray(o.memories) ? o.memories : []) if (invented(m?.uri)) fail(`recall: memory ${JSON.stringify(m?.uri).slice(0, 100)} was not returned by find`);
          } });
        break;
      }
      case "hookFallback": {
        const valid = {};
        if (rng.chance(0.8)) valid.sessionId = sessions[si];
        if (rng.chance(0.7)) valid.prompt = text(rng);
        if (rng.chance(0.7)) valid.messages = S.conversation(rng);
        if (rng.chance(0.05)) valid.messages = [...(valid.messages ?? []), rng.pick([5, "x", null, true])]; // non-objects are skipped
        const a = callArg(c, valid, HOOK_FAULTS);
        const args = arity(c, [a.value]);
        const known = a.expectOk && args.length >= 1;
        // the engine assembled this session moments ago: recall must not reach the model twice
        const at = assembledAt.get(own);
        const recent = known && clockGood && valid.sessionId !== undefined && at !== undefined && good.clock.now - at < 60000;
        r = await c.async("ContextEngine#hookFallback", () => ce.hookFallback(...args), { args, how: a.how, expectOk: goodHostMode && known, bound,
          expectError: args.length >= 1 ? a.expectError : undefined, allowCodes: known ? degrade(["HOST_TIMEOUT"]) : undefined,
          check: (b, fail) => {
            if (b === null) return;
            // (the clock only goes forward: still recent now, so it was when the engine looked)
            if (recent && good.clock.now - at < 60000) fail("hookFallback: a block for a session assembled moments ago (recall would reach the model twice)");
            if (cfg && cfg.autoRecall === false) fail("hookFallback: a block with autoRecall off");
            checkFallbackText("hookFallback", b, fail);
          } });
        break;
      }
      case "compact": {
        const valid = { sessionId: sessions[si] };
        if (rng.chance(0.5)) valid.currentTokenCount = rng.range(0, 200000);
        const a = callArg(c, valid, COMPACT_FAULTS);
        const args = arity(c, [a.value]);
        const known = a.expectOk && args.length >= 1;
        const before = assembleStarted.has(own) ? undefined : valid.currentTokenCount ?? 0;
        r = await c.async("ContextEngine#compact", () => ce.compact(...args), { args, how: a.how, expectOk: goodHostMode && known, bound: bound + Math.min(4 * timeoutMs, 120000),
          expectError: args.length >= 1 ? a.expectError : undefined, allowCodes: known ? degrade(["HOST_FAILED", "HOST_TIMEOUT"]) : undefined,
          check: (o, fail) => {
            if (!o || typeof o.ok !== "boolean" || typeof o.compacted !== "boolean") return fail(`compact resolved to ${JSON.stringify(o)?.slice(0, 100)} (not {ok, compacted})`);
            if (!o.compacted) {
              if (o.result !== undefined) fail("compact: a result without compacting");
              if (typeof o.reason !== "string") fail(`compact: not compacted, reason ${typeof o.reason}`);
              return;
            }
            if (!o.ok) fail("compact: compacted but not ok");
            const res = o.result;
            if (!res || typeof res.summary !== "string" || !isNonNegInt(res.tokensBefore) || !isNonNegInt(res.tokensAfter)) return fail(`compact: result ${JSON.stringify(res)?.slice(0, 120)}`);
            if (res.tokensAfter !== W.pkg.estimateTokens(res.summary)) fail(`compact: tokensAfter ${res.tokensAfter} is not the summary's ${W.pkg.estimateTokens(res.summary)} tokens`);
            if (known && before !== undefined && res.tokensBefore !== before) fail(`compact: tokensBefore ${res.tokensBefore}, currentTokenCount was ${before} (no assemble)`);
            const d = res.details;
            if (!d || typeof d.taskPending !== "boolean" || (d.checkpoint !== null && typeof d.checkpoint !== "object")) fail(`compact: details ${JSON.stringify(d)?.slice(0, 120)}`);
            else if (known && d.checkpoint && d.checkpoint.sessionId !== own) fail(`compact: the checkpoint's session ${d.checkpoint.sessionId} is not ${own}`);
          } });
        break;
      }
      case "memoryScopes": {
        const args = arity(c, []);
        r = await c.async("ContextEngine#memoryScopes", () => ce.memoryScopes(...args), { args, expectOk: goodHostMode, bound, allowCodes: degrade(["HOST_TIMEOUT"]),
          check: (s, fail) => {
            if (!s || typeof s.user !== "string" || typeof s.agent !== "string") return fail(`memoryScopes resolved to ${JSON.stringify(s)?.slice(0, 100)}`);
            if (s.agent !== agentScope(agentId)) fail(`memoryScopes: agent scope ${s.agent}`);
            if (cfg && !allowedScope(s.user, cfg.targetUri)) fail(`memoryScopes: user scope ${JSON.stringify(s.user).slice(0, 100)} is not the target, the user's folder or ${HOME_SCOPE}`);
            else if (expectedUser !== null && !hostile_?.parked && s.user !== expectedUser) fail(`memoryScopes: user scope ${JSON.stringify(s.user).slice(0, 100)}, expected ${JSON.stringify(expectedUser).slice(0, 100)}`);
          } });
        break;
      }
      case "forgetSearch": {
        const args = arity(c, []);
        r = c.sync("ContextEngine#forgetSearch", () => ce.forgetSearch(...args), { args, expectOk: true, check: (v, fail) => v !== undefined && fail(`forgetSearch returned ${typeof v}`) });
        break;
      }
      case "runCommit": {
        const valid = { ovSessionId: own };
        if (rng.chance(0.5)) valid.forced = rng.chance(0.5);
        if (rng.chance(0.3)) valid.reason = rng.pick(["turns", "compact()", text(rng, { huge: 0 })]);
        if (rng.chance(0.6)) valid.waitMs = rng.range(0, 3000);
        const a = arg(c, rng.chance(0.1) ? { ...valid, ovSessionId: foreign } : valid, { hostileP: 0.08, mutateP: 0.25 });
        const args = arity(c, [a.value]);
        let wait = 0;
        try {
          wait = typeof a.value?.waitMs === "number" && a.value.waitMs >= 0 && a.value.waitMs <= 3000 ? a.value.waitMs : 0;
        } catch {}
        r = await c.async("ContextEngine#runCommit", () => ce.runCommit(...args), { args, how: a.how,
          expectOk: goodHostMode && a.expectOk && a.value?.ovSessionId === own && args.length >= 1, bound: bound + wait,
          check: (o, fail) => typeof o?.compacted !== "boolean" && fail("runCommit: compacted is not a boolean") });
        break;
      }
      case "followTask": {
        const idv = rng.chance(0.85) ? { v: own, ok: true } : rng.chance(0.5) ? { v: foreign, ok: false } : { v: hostile(rng), ok: false };
        const wv = rng.chance(0.8) ? { v: rng.range(0, 3000), ok: true } : { v: hostile(rng), ok: false };
        const args = arity(c, [idv.v, wv.v]);
        r = await c.async("ContextEngine#followTask", () => ce.followTask(...args), { args, expectOk: goodHostMode && idv.ok && wv.ok && args.length >= 2,
          bound: bound + (wv.ok ? wv.v : 0) });
        break;
      }
      case "flush":
      case "record": {
        const idv = rng.chance(0.85) ? { v: own, ok: true } : rng.chance(0.5) ? { v: foreign, ok: false } : { v: hostile(rng), ok: false };
        const args = arity(c, [idv.v]);
        r = await c.async(`ContextEngine#${which}`, () => ce[which](...args), { args, expectOk: goodHostMode && idv.ok && args.length >= 1, bound,
          check: which === "flush" ? (n, fail) => (!isNonNegInt(n?.written) || !isNonNegInt(n?.queued)) && fail(`flush resolved to ${JSON.stringify(n)} (FlushReport: written, queued)`)
            : (rec, fail) => (typeof rec?.ovSessionId !== "string") && fail("record: no ovSessionId") });
        break;
      }
      case "ownsSession": {
        const v = rng.weighted([[3, () => ({ v: own, owned: true })], [2, () => ({ v: foreign, owned: false })], [1, () => ({ v: text(rng) })], [1, () => ({ v: hostile(rng) })]])();
        r = c.sync("ContextEngine#ownsSession", () => ce.ownsSession(v.v), { args: [v.v], expectOk: typeof v.v === "string",
          check: (b, fail) => {
            if (typeof b !== "boolean") return fail(`ownsSession returned ${typeof b}`);
            if (v.owned !== undefined && b !== v.owned) fail(`ownsSession(${JSON.stringify(v.v)}) is ${b}`);
          } });
        break;
      }
      default: {
        const v = rng.chance(0.5) ? text(rng) : hostile(rng);
        r = c.sync("ContextEngine#ovSessionId", () => ce.ovSessionId(v), { args: [v], expectOk: typeof v === "string" });
      }
    }
    if (r?.failed) anyFailure = true;
    if (r?.unsettled) stop = true;
  };
  for (let i = 0; i < nOps && !stop; i++) {
    if (rng.chance(0.2) && i + 1 < nOps) {
      await Promise.all([op(), op()]); // a background commit overlapping the next turn
      i++;
    } else await op();
  }
  // a memory write drops the reused search: after forgetSearch the same query is searched again
  if (goodHostMode && !stop && !anyFailure && cfg && rng.chance(0.15)) {
    const q = { query: "which theme do I prefer for the editor" };
    await c.async("ContextEngine#recall (before forgetSearch)", () => ce.recall(q), { args: [q], expectOk: true, bound });
    c.sync("ContextEngine#forgetSearch", () => ce.forgetSearch(), { args: [], expectOk: true });
    const n0 = good.stats.find;
    await c.async("ContextEngine#recall (after forgetSearch)", () => ce.recall(q), { args: [q], expectOk: true, bound,
      check: (_, fail) => good.stats.find === n0 && fail("recall after forgetSearch answered from the dropped search (no find call)") });
  }
  // the known-good calls after a failure: the same engine, its host healed
  if (anyFailure && !stop && hostile_) {
    hostile_.heal();
    await c.async("known-good ContextEngine#record after a failure (host healed)", () => ce.record(ovIds[0]), { args: [ovIds[0]], expectOk: false, bound, probe: true });
    const req = { sessionId: sessions[0], messages: [{ role: "user", content: "which database did we pick?", timestamp: 1795165923000 }] };
    await c.async("known-good ContextEngine#assemble after a failure (host healed)", () => ce.assemble(req), { args: [req], expectOk: false, bound, probe: true,
      allowCodes: ["HOST_TIMEOUT"], check: (o, fail) => !o?.messages?.some((m) => m.content === req.messages[0].content) && fail("assemble after healing: the user message is missing") });
  }
  if (rng.chance(0.3)) c.sync("ContextEngine#free", () => ce.free(), { args: [], expectOk: true });
}

// ---- methods this table does not know (new exports): fuzzed generically -----------------------

export const KNOWN = {
  exports: ["version", "estimateTokens", "estimateMessageTokens", "parseConfig", "liveSearch", "initSync", "default", "Engine", "ContextEngine"],
  Engine: ["constructor", "free", "config", "warnings", "configSnippet", "buildRecallQuery", "recallIntent", "assemble", "expand", "classifyExpandUri", "replayTriggers", "autoRecall", "fallbackBlock"],
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
