// Host callbacks for `ContextEngine` (the method list of js-glue/engine-host.js and
// `HostCallbacks` in pkg/*.d.ts): a well-behaved in-memory host (OpenViking stand-in, state
// store, outbox, virtual clock) and a hostile wrapper whose callbacks misbehave per a plan.
import { ctx, tagged, tagText, hostile, hostileError, deep, hugeText, marks } from "./values.mjs";

export const ASYNC_METHODS = ["sessionMeta", "createSession", "addMessages", "liveMessages", "commit", "task", "archive", "readJson",
  "writeJson", "loadState", "saveState", "outboxAppend", "outboxRead", "outboxDrop", "sleep"];
export const SYNC_METHODS = ["nowMs", "warn"];
export const METHODS = [...ASYNC_METHODS, ...SYNC_METHODS];

/** Shared with the orchestrator: which case last ran a host callback, and how many ran. */
export const hostSlots = { view: null, LAST_CASE: 3, CALLS: 4 };

const clone = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
const err = (message, props) => Object.assign(new Error(message), props);

/** A host that behaves: what the plugin's engine-host.js does, against in-memory state. */
export function goodHost(rng, { protocol } = {}) {
  const sessions = new Map();
  const state = new Map();
  const outbox = new Map();
  const files = new Map();
  const tasks = new Map();
  const warnings = [];
  const clock = { now: 1764000000000 + rng.int(1e9) };
  const violation = (what) => protocol?.(what);
  const str = (name, v) => typeof v !== "string" && violation(`${name}: a non-string id (${typeof v})`);
  const h = {
    clock, sessions, warnings, state, outbox,
    async sessionMeta(id) {
      str("sessionMeta", id);
      const s = sessions.get(id);
      return s ? { message_count: s.live.length, commit_count: s.archives.length, pending_tokens: s.live.length * 40 } : null;
    },
    async createSession(id, memoryPolicy) {
      str("createSession", id);
      if (sessions.has(id)) throw err("session exists", { code: "ALREADY_EXISTS", status: 409 });
      sessions.set(id, { live: [], archives: [], memoryPolicy: clone(memoryPolicy) });
      return { session_id: id };
    },
    async addMessages(id, messages) {
      str("addMessages", id);
      if (!Array.isArray(messages)) violation("addMessages: messages is not an array");
      const s = sessions.get(id);
      if (!s) throw err("no such session", { code: "NOT_FOUND", status: 404 });
      s.live.push(...clone(messages).map((m, i) => ({ id: `m${s.live.length + i}`, ...m })));
      return { message_count: s.live.length };
    },
    async liveMessages(id) {
      return clone(sessions.get(id)?.live ?? []);
    },
    async commit(id) {
      const s = sessions.get(id);
      if (!s) throw err("no such session", { code: "NOT_FOUND", status: 404 });
      if (!s.live.length) return { status: "skipped", task_id: null, reason: "no_messages" };
      s.archives.push(s.live.splice(0));
      const taskId = `t-${id}-${s.archives.length}`;
      tasks.set(taskId, { polls: rng.int(3) });
      return { status: "accepted", task_id: taskId, archive_uri: `viking://user/ada/sessions/${id}/history/archive_${String(s.archives.length).padStart(3, "0")}` };
    },
    async task(taskId) {
      const t = tasks.get(taskId);
      if (!t) throw err("no such task", { code: "NOT_FOUND", status: 404 });
      if (t.polls-- > 0) return { status: "running" };
      return { status: "completed", result: { memory_diff_uri: `viking://user/ada/sessions/x/diff.json` } };
    },
    async archive(id, archiveId) {
      return { archive_id: archiveId, abstract: "abstract", overview: "# Working Memory\n## Current State\nfine\n## Open Issues\nnone", messages: [] };
    },
    async readJson(uri) {
      if (files.has(uri)) return clone(files.get(uri));
      return { operations: { adds: [{ uri: "viking://user/ada/memories/events/e.md" }], updates: [], deletes: [] } };
    },
    async writeJson(uri, value) {
      files.set(uri, clone(value));
    },
    async loadState(key) {
      str("loadState", key);
      return state.has(key) ? clone(state.get(key)) : null;
    },
    async saveState(key, value) {
      str("saveState", key);
      state.set(key, clone(value));
    },
    async outboxAppend(key, entry) {
      if (!outbox.has(key)) outbox.set(key, []);
      outbox.get(key).push(clone(entry));
    },
    async outboxRead(key) {
      return clone(outbox.get(key) ?? []);
    },
    async outboxDrop(key, count) {
      if (!Number.isInteger(count) || count < 0) violation(`outboxDrop: count ${count}`);
      outbox.get(key)?.splice(0, count);
    },
    sleep(ms) {
      if (typeof ms !== "number" || !(ms >= 0)) violation(`sleep: ms ${ms}`);
      clock.now += Number.isFinite(ms) ? ms : 0;
      // virtual time, but a little real time too (up to 10 ms): an engine that polls while
      // another call is slow must not spin through thousands of sleeps
      return new Promise((resolve) => setTimeout(resolve, Math.max(1, Math.min(Number(ms) || 0, 10))));
    },
    nowMs() {
      return clock.now;
    },
    warn(message) {
      if (warnings.length < 50) warnings.push(String(message));
    },
  };
  return h;
}

// ---- misbehaviour --------------------------------------------------------------------

/** What an async callback does instead of answering: [weight, name]. */
const ASYNC_BAD = [[3, "throwSync"], [3, "reject"], [1, "rejectLate"], [2, "never"], [1, "slow"], [2, "thenableThrows"], [1, "thenableGetterThrows"],
  [2, "thenableBoth"], [1, "thenableRejectThenResolve"], [2, "thenableNever"], [1, "thenableNested"], [1, "thenableNotFunction"],
  [3, "wrongShape"], [2, "wrongShapeSync"], [1, "goodSync"], [1, "notAFunction"]];
const NOW_BAD = ["throw", "NaN", "negative", "-Infinity", "Infinity", "string", "numericString", "BigInt", "Symbol", "undefined", "null", "object",
  "valueOfThrows", "huge", "backwards", "promise", "notAFunction"];
const WARN_BAD = ["throw", "throwNonError", "notAFunction", "returnsThenable"];
const SLEEP_BAD = ["throwSync", "reject", "never", "immediate", "thenableThrows", "thenableNever", "wrongShapeSync", "notAFunction"];

/** A wrong answer for an async callback: right kind of container, wrong content, or worse. */
function wrongShape(rng, method) {
  return rng.weighted([
    [3, () => hostile(rng)],
    [1, () => rng.pick([5, "a string", [], [1, 2], {}, true])],
    [1, () => ({ message_count: rng.pick([-1, 1e300, NaN, "3", 2 ** 64]), commit_count: {}, pending_tokens: -5 })],
    [1, () => ({ status: rng.pick(["accepted", "skipped", "completed", "failed", "running", 5, null]), task_id: rng.pick([5, null, "", "t"]), archive_uri: rng.pick([7, "", "viking://x", "viking://user/u/sessions/s/history/archive_abc"]), result: rng.pick([5n, undefined, { memory_diff_uri: 5 }, { memory_diff_uri: "viking://user/ada/x" }]) })],
    [1, () => [{ sequence: rng.pick([-1, "0", 1e300]), turnId: 5, messages: rng.pick([5, [null], "m"]) }]],
    [1, () => ({ overview: rng.pick([5, "", hugeText(rng), "\uD800"]), messages: 7 })],
    [1, () => ({ state: 5, guard: "x", appliedKeys: {}, checkpoints: [] })],
    [1, () => ({ ovSessionId: 5, created: "yes", state: { turns_since_commit: -1 } })],
    [1, () => deep(rng)],
  ])();
}

function thenable(rng, kind, good) {
  switch (kind) {
    case "thenableThrows":
      return { then() { throw tagged(new Error(tagText("then() throws"))); } };
    case "thenableGetterThrows":
      return Object.defineProperty({}, "then", { get() { throw tagged(new Error(tagText("then getter throws"))); } });
    case "thenableBoth":
      return { then(resolve, reject) { resolve(good()); reject(tagged(new Error(tagText("and rejects")))); resolve(5); } };
    case "thenableRejectThenResolve":
      return { then(resolve, reject) { reject(tagText("rejects first")); resolve(good()); throw tagged(new Error(tagText("then throws after settling"))); } };
    case "thenableNever":
      return { then() {} };
    case "thenableNested":
      return { then(resolve) { resolve({ then(r2, j2) { j2(tagged(new Error(tagText("nested thenable rejects")))); } }); } };
    default:
      return { then: 5, status: "running" };
  }
}

function notAFunction(rng) {
  return rng.pick([undefined, null, 5, "sessionMeta", {}, [], Symbol("m"), 3n]);
}

/**
 * A host whose callbacks misbehave: `plan` maps a method to a misbehaviour and when it
 * strikes. `heal()` makes it behave from then on (for the known-good call after a failure).
 * Every callback first checks the runaway guard: an engine that keeps calling its host
 * (a loop on a broken clock or sleep) gets the clock fast-forwarded, then is parked.
 */
export function hostileHost(rng, good, { caseId, onRunaway, plan }) {
  let calls = 0;
  let healed = false;
  let parked = false;
  let fastForwarded = false;
  const never = () => new Promise(() => {});
  const guard = () => {
    calls++;
    if (hostSlots.view) {
      Atomics.store(hostSlots.view, hostSlots.LAST_CASE, caseId);
      Atomics.add(hostSlots.view, hostSlots.CALLS, 1);
    }
    ctx.caseId = caseId;
    if (calls > 1500 && !fastForwarded) {
      fastForwarded = true;
      good.clock.now += 1e13; // whatever it was waiting for is over
    }
    if (calls > 5000 && !parked) {
      parked = true;
      onRunaway?.(calls);
    }
    return parked;
  };
  const strikes = (p) => {
    if (healed || !p) return false;
    p.n = (p.n ?? 0) + 1;
    switch (p.when) {
      case "always": return true;
      case "first": return p.n === 1;
      case "alternate": return p.n % 2 === 0;
      case "after": return p.n > p.after;
      default: return rng.chance(p.p);
    }
  };
  const host = {};
  for (const m of ASYNC_METHODS) {
    const p = plan[m];
    if (p?.what === "notAFunction") {
      host[m] = p.value;
      continue;
    }
    host[m] = function (...args) {
      if (guard()) return never();
      if (!strikes(p)) return good[m](...args);
      // a good answer the thenable may hand over — or drop (then its rejection must not be
      // reported as the engine's unhandled rejection)
      const answer = () => {
        const a = good[m](...args);
        a?.catch?.(() => {});
        return a;
      };
      switch (p.what) {
        case "throwSync": throw hostileError(rng);
        case "reject": return Promise.reject(hostileError(rng));
        case "rejectLate": return new Promise((_, reject) => setTimeout(() => reject(hostileError(rng)), rng.range(1100, 1600)));
        case "never": return never();
        case "slow": return new Promise((resolve) => setTimeout(() => resolve(answer()), rng.range(1100, 1600)));
        case "wrongShape": return Promise.resolve(wrongShape(rng, m));
        case "wrongShapeSync": return wrongShape(rng, m);
        case "goodSync": return m === "sleep" ? undefined : null;
        case "immediate": return Promise.resolve();
        default: return thenable(rng, p.what, answer);
      }
    };
  }
  const pNow = plan.nowMs;
  if (pNow?.what === "notAFunction") host.nowMs = pNow.value;
  else {
    let back = 0;
    host.nowMs = function () {
      if (guard()) return 9e15;
      if (!strikes(pNow)) return good.nowMs();
      switch (pNow.what) {
        case "throw": throw hostileError(rng);
        case "NaN": return NaN;
        case "negative": return -rng.range(1, 1e12);
        case "-Infinity": return -Infinity;
        case "Infinity": return Infinity;
        case "string": return "soon";
        case "numericString": return String(good.nowMs());
        case "BigInt": return BigInt(good.nowMs());
        case "Symbol": return Symbol("now");
        case "undefined": return undefined;
        case "null": return null;
        case "object": return {};
        case "valueOfThrows": return { valueOf() { throw tagged(new Error(tagText("valueOf throws"))); } };
        case "huge": return 1e300;
        case "backwards": return good.nowMs() - (back += 3600000);
        default: return Promise.resolve(good.nowMs());
      }
    };
  }
  const pWarn = plan.warn;
  if (pWarn?.what === "notAFunction") host.warn = pWarn.value;
  else {
    host.warn = function (message) {
      if (guard()) return undefined;
      if (!strikes(pWarn)) return good.warn(message);
      switch (pWarn.what) {
        case "throw": throw tagged(new Error(tagText("warn throws")));
        case "throwNonError": throw tagText("warn throws a string");
        default: return { then() { throw tagged(new Error(tagText("warn's return value is a hostile thenable"))); } };
      }
    };
  }
  return {
    host,
    heal() { healed = true; },
    get calls() { return calls; },
    get parked() { return parked; },
  };
}

/** A plan: 1–3 callbacks misbehave (sometimes many), each in one way, at some times. */
export function randomPlan(rng) {
  const plan = {};
  const n = rng.weighted([[5, 1], [3, 2], [2, 3], [1, 8]]);
  for (let i = 0; i < n; i++) {
    const m = rng.weighted([[12, () => rng.pick(ASYNC_METHODS)], [2, "nowMs"], [1, "warn"], [1, "sleep"]]);
    const m2 = typeof m === "function" ? m() : m;
    const what = m2 === "nowMs" ? rng.pick(NOW_BAD) : m2 === "warn" ? rng.pick(WARN_BAD) : m2 === "sleep" ? rng.pick(SLEEP_BAD) : rng.weighted(ASYNC_BAD);
    const when = rng.weighted([[4, "always"], [2, "first"], [1, "alternate"], [1, "after"], [2, "random"]]);
    plan[m2] = { what, when, after: rng.range(1, 6), p: rng.float(), value: what === "notAFunction" ? notAFunction(rng) : undefined };
  }
  return plan;
}

/** Whole hosts that still have every callback (a frozen copy, an object inheriting them). */
export const completeHosts = new WeakSet();

/** The host object itself is wrong (or oddly built but complete). */
export function wholeHostileHost(rng, good) {
  return rng.weighted([
    [1, () => undefined], [1, () => null], [1, () => 5], [1, () => "host"], [1, () => []], [1, () => ({})],
    [2, () => { const p = new Proxy({}, { get() { throw tagged(new Error(tagText("host proxy get"))); } }); marks.set(p, "Proxy(get throws)"); return p; }],
    [1, () => { const h = Object.freeze({ ...good }); completeHosts.add(h); return h; }],
    [1, () => { const h = Object.create(good); completeHosts.add(h); return h; }],
    [1, () => { const { nowMs, ...rest } = good; return rest; }],
  ])();
}

export function describePlan(plan) {
  return Object.entries(plan).map(([m, p]) => `${m}:${p.what}${p.what === "notAFunction" ? `(${typeof p.value})` : ""}@${p.when}`).join(",");
}
