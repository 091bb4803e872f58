// The ContextEngine case: a session's life through the plugin's class (bootstrap, assemble,
// writeTurn, compact, the hook fallback, tools) with faults in its inputs and its host.
import { hostile, text } from "./values.mjs";
import * as S from "./shapes.mjs";
import { checkMemories, engineView, sameJson, messageText, checkAssemble } from "./checks.mjs";
import { goodHost, hostileHost, randomPlan, wholeHostileHost, describePlan, completeHosts, ENGINE_CALLBACKS, rustTrim, userScope, allowedScope, agentScope, HOME_SCOPE } from "./hosts.mjs";
import { arg, arity, anyLone, isNonNegInt } from "./args.mjs";

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

export async function contextEngineCase(c, W) {
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
  // and no request can time out: a request that outlives timeoutMs pauses the server, and the
  // user id asked after it is not known (the engine then searches the home alias, the key's own
  // user on the server)
  const mayTimeOut = Object.entries(plan).some(([m, p]) => m !== "sleep" && m !== "nowMs" && ["never", "slow", "rejectLate", "thenableNever"].includes(p?.what));
  const expectedUser = cfg && !plan.userId && !plan.request && !mayTimeOut ? userScope(cfg.targetUri, uidSet !== undefined ? uidSet : good.uid) : null;
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

