// Host callbacks for `ContextEngine` (`HostCallbacks` in pkg/*.d.ts: `request`, the state
// store and outbox, the clock, the log): a well-behaved in-memory host and a hostile wrapper
// whose callbacks misbehave per a plan. The OpenViking stand-in is written as one function
// per operation (sessionMeta, find, …); `request` routes the engine's real HTTP requests to
// them (js-glue/test/support/ops-over-http.mjs), so an operation can misbehave behind a good
// transport — and `request` itself can misbehave too.
import { ctx, tagged, tagText, hostile, hostileError, deep, hugeText, marks, text } from "./values.mjs";
import { Rng } from "./prng.mjs";
import { httpFromOps } from "../../../js-glue/test/support/ops-over-http.mjs";

/** The state callbacks: documents and outbox entries cross as the engine's JSON text. */
export const TEXT_METHODS = ["loadStateText", "saveStateText", "saveCacheText", "outboxAppendText", "outboxReadText"];
export const ASYNC_METHODS = ["sessionMeta", "createSession", "addMessages", "liveMessages", "commit", "task", "archive", "readJson",
  "writeJson", "find", "readContent", "writeText", "stat", "deleteUri", "userId", "listSessions", "listStateKeys",
  "outboxDrop", "tryLock", "unlock", "sleep", ...TEXT_METHODS];
export const SYNC_METHODS = ["nowMs", "warn"];
export const METHODS = [...ASYNC_METHODS, ...SYNC_METHODS];
/** What the engine itself requires of a host object (the rest are operations behind `request`). */
export const ENGINE_CALLBACKS = ["request", "loadStateText", "saveStateText", "listStateKeys", "outboxAppendText", "outboxReadText", "outboxDrop", "sleep", "nowMs", "warn"];

/** Shared with the orchestrator: which case last ran a host callback, and how many ran. */
export const hostSlots = { view: null, LAST_CASE: 3, CALLS: 4 };

const clone = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));
const err = (message, props) => Object.assign(new Error(message), props);

/** Rust's `char::is_whitespace` (Unicode White_Space): JS `\s` minus U+FEFF, plus U+0085. */
const WS = "\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000";
export const rustTrim = (s) => s.replace(new RegExp(`^[${WS}]+|[${WS}]+$`, "g"), "");
/** `scopes::is_plain_segment` as the engine sees the string (lone surrogates are U+FFFD). */
export function isPlainSegment(s) {
  if (typeof s !== "string") return false;
  const w = s.toWellFormed();
  return w !== "" && [...w].length <= 256 && w !== "." && w !== ".." && !new RegExp(`[/\\\\%?#${WS}\\u0000-\\u001f\\u007f-\\u009f]`).test(w);
}
/** The agent scope the engine searches: the agent's own folder (src/address/scopes.rs), never the account-wide viking://agent/memories. */
export const agentScope = (agentId) => `viking://agent/${agentId}/memories`;
export const HOME_SCOPE = "viking://~/memories";
/** The user scope the engine must search: the target, the user's folder, or the home alias. */
export function userScope(targetUri, uid) {
  if (typeof targetUri === "string") return targetUri.replace(/\/+$/, "");
  return isPlainSegment(uid) ? `viking://user/${uid.toWellFormed()}/memories` : HOME_SCOPE;
}
/** A scope the engine may search at all (whatever the user id the host claimed). */
export function allowedScope(uri, targetUri, agentId = "default") {
  // the recall intent searches one memory folder of the user scope (src/recall/intent.rs), and
  // a turn's experiences are searched in the user's experiences folder (recall/experience.rs)
  const folder = /^(.*\/memories)\/(preferences|events|experiences)$/s.exec(uri);
  if (folder) return allowedScope(folder[1], targetUri, agentId);
  if (uri === agentScope(agentId) || uri === HOME_SCOPE) return true;
  // a turn's skills are found in the same find, in the user's and the account's skill roots
  // (src/recall/skills.rs own_skill_roots)
  if (uri === "viking://agent/skills") return true;
  const skills = /^viking:\/\/user\/(.*)\/skills$/s.exec(uri);
  if (skills && isPlainSegment(skills[1])) return true;
  if (typeof targetUri === "string" && uri === targetUri.replace(/\/+$/, "")) return true;
  const m = /^viking:\/\/user\/(.*)\/memories$/s.exec(uri);
  return !!m && isPlainSegment(m[1]);
}

function fnv(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
const USER_CATS = ["preferences", "entities", "events", "profile"];
const AGENT_CATS = ["cases", "patterns"];
/** Answers after a macrotask, as network I/O does (a host whose answers are all microtasks
 *  lets hundreds of concurrent cases run without ever yielding to timers). */
const io = (v) => new Promise((resolve) => setImmediate(resolve, v));
const slug = (w) => (w.replace(/[^A-Za-z0-9_\u4e00-\u9fff-]/g, "_").slice(0, 24) || "m");

/** A host that behaves: what the plugin's engine-host.js does, against in-memory state. */
export function goodHost(rng, { protocol } = {}) {
  const sessions = new Map();
  const state = new Map();
  const outbox = new Map();
  const locks = new Set();
  const files = new Map();
  const tasks = new Map();
  const warnings = [];
  const clock = { now: 1764000000000 + rng.int(1e9) };
  // the memory store: what find returns depends on the scope and the query (the same search
  // gives the same answer); some items have no abstract (the engine then reads their text)
  const salt = rng.u32();
  const uid = rng.weighted([[8, "ada"], [1, "u-1"], [1, null]]);
  const profileText = rng.chance(0.5) ? `Name: Ada. Prefers the dark theme; works on the ledger service (${rng.int(100)}).` : null;
  const contents = new Map(); // uri → full text (absent: readContent answers null)
  const found = new Set(); // every uri find returned
  const written = new Set(); // every uri writeText wrote
  const stats = { find: 0, readContent: 0, userId: 0 };
  const violation = (what) => protocol?.(what);
  const str = (name, v) => typeof v !== "string" && violation(`${name}: a non-string id (${typeof v})`);
  /** The value of a document's or entry's JSON text (the engine must hand over JSON text). */
  const json = (name, t) => {
    if (typeof t !== "string") return violation(`${name}: not text (${typeof t})`);
    try {
      return JSON.parse(t);
    } catch {
      return violation(`${name}: not JSON text`);
    }
  };
  const h = {
    clock, sessions, warnings, state, outbox, uid, found, stats, contents,
    /** The config's resolved targetUri (set by the case once it is known): find's scopes are checked against it. */
    targetUri: undefined,
    /** The config's agentId (set with targetUri): the one agent scope find may search. */
    agentId: "default",
    /** readContent only of uris find returned (off when a hostile find answers for this store). */
    strictReads: true,
    async listSessions() {
      return [...sessions.keys()];
    },
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
    async find(targetUri, query, limit) {
      stats.find++;
      str("find", targetUri);
      if (typeof query !== "string" || query.trim() === "") violation(`find: query ${typeof query === "string" ? "blank" : typeof query}`);
      else if (query.length > 8000) violation(`find: a query of ${query.length} UTF-16 units (the engine caps queries at 4000 characters)`);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) violation(`find: limit ${limit}`);
      if (typeof targetUri === "string" && h.targetUri !== undefined && !allowedScope(targetUri, h.targetUri, h.agentId)) violation(`find: searched outside this agent's scopes: ${JSON.stringify(targetUri).slice(0, 120)}`);
      const scope = String(targetUri).replace(/\/+$/, "");
      const agent = scope.startsWith("viking://agent/");
      const r = new Rng(fnv(`${scope}\u0000${query}`) ^ salt, 0xf1d);
      const words = String(query).split(/\s+/).filter(Boolean).slice(0, 12).map((w) => w.slice(0, 40));
      const n = Math.min(Number.isInteger(limit) ? limit : 20, r.weighted([[agent ? 6 : 1, 0], [6, r.range(1, 5)], [2, r.range(6, 14)], [0.3, r.range(30, 80)]]));
      const memories = [];
      for (let i = 0; i < n; i++) {
        const cat = r.pick(agent ? AGENT_CATS : USER_CATS);
        const w = words.length ? words[r.int(words.length)] : "note";
        const uri = `${scope}/${cat}/${slug(w)}-${r.int(40)}.md`;
        const about = words.length ? Array.from({ length: r.range(1, 4) }, () => words[r.int(words.length)]).join(" ") : "misc";
        const it = { uri, level: r.weighted([[9, 2], [1, 1]]), score: r.weighted([[8, Math.round(r.float() * 1000) / 1000], [1, 1], [1, 0]]), category: cat };
        // an abstract usually; else none at all, null or "" (the engine reads the full text)
        if (r.chance(0.75)) it.abstract = `${cat}: ${about}${r.chance(0.2) ? " " + text(r, { huge: 0 }) : ""}`;
        else if (r.chance(0.5)) it.abstract = r.pick([null, ""]);
        if (!contents.has(uri) && r.chance(0.9)) contents.set(uri, `# ${cat}\n${about} — the full note (${i}). ${r.chance(0.2) ? text(r, { huge: 0 }) : ""}`);
        found.add(uri);
        memories.push(it);
      }
      return io({ memories, resources: [], skills: [], total: memories.length });
    },
    async readContent(uri) {
      stats.readContent++;
      str("readContent", uri);
      if (typeof uri === "string" && uri.endsWith("/memories/profile.md")) {
        if (!/^viking:\/\/user\/[^/]+\/memories\/profile\.md$/.test(uri)) violation(`readContent: a profile outside the user's folder: ${uri.slice(0, 120)}`);
        return io(profileText);
      }
      if (typeof uri === "string" && h.strictReads && !found.has(uri) && !written.has(uri)) violation(`readContent: ${JSON.stringify(uri).slice(0, 120)} was never returned by find`);
      return io(contents.get(uri) ?? null);
    },
    async writeText(uri, content, mode, wait) {
      str("writeText", uri);
      if (typeof content !== "string") violation(`writeText: content is ${typeof content}`);
      if (mode !== "create" && mode !== "replace") violation(`writeText: mode ${String(mode)}`);
      if (typeof wait !== "boolean") violation(`writeText: wait is ${typeof wait}`);
      if (mode === "create" && contents.has(uri)) throw err("file exists", { code: "ALREADY_EXISTS", status: 409 });
      contents.set(uri, String(content));
      written.add(uri);
      return io({ uri, written: true });
    },
    async stat(uri) {
      str("stat", uri);
      if (contents.has(uri)) return io({ uri, isDir: false, size: contents.get(uri).length });
      const dir = String(uri).replace(/\/+$/, "") + "/";
      for (const k of contents.keys()) if (k.startsWith(dir)) return io({ uri, isDir: true });
      return io(null);
    },
    async deleteUri(uri) {
      str("deleteUri", uri);
      const had = contents.delete(uri); // (still "found": a search the engine reuses may name it)
      return io({ uri, estimated_deleted_count: had ? 1 : 0 });
    },
    async listStateKeys(prefix) {
      str("listStateKeys", prefix);
      return [...state.keys()].filter((k) => k.startsWith(prefix));
    },
    async userId() {
      stats.userId++;
      return io(uid);
    },
    async loadStateText(key) {
      str("loadStateText", key);
      return state.has(key) ? JSON.stringify(state.get(key)) : null;
    },
    async saveStateText(key, t) {
      str("saveStateText", key);
      state.set(key, json("saveStateText", t));
    },
    async saveCacheText(key, t) {
      str("saveCacheText", key);
      state.set(key, json("saveCacheText", t));
    },
    async outboxAppendText(key, t, turnId) {
      const entry = json("outboxAppendText", t);
      if (typeof turnId !== "string" || turnId === "" || entry?.turnId !== turnId) violation(`outboxAppendText: turnId ${turnId} beside ${entry?.turnId}`);
      if (!outbox.has(key)) outbox.set(key, []);
      if (!outbox.get(key).some((e) => e.turnId === turnId)) outbox.get(key).push(entry);
    },
    async outboxReadText(key) {
      return (outbox.get(key) ?? []).map((e) => JSON.stringify(e));
    },
    async outboxDrop(key, turnIds) {
      if (!Array.isArray(turnIds) || !turnIds.every((t) => typeof t === "string")) violation(`outboxDrop: turnIds ${turnIds}`);
      const q = outbox.get(key);
      if (q) outbox.set(key, q.filter((e) => !turnIds.includes(e.turnId)));
    },
    // one process: a lock is either free or held by an earlier call of this one
    async tryLock(name, ttlMs) {
      if (typeof name !== "string" || !(ttlMs > 0)) violation(`tryLock: ${name} ${ttlMs}`);
      if (locks.has(name)) return false;
      locks.add(name);
      return true;
    },
    async unlock(name) {
      locks.delete(name);
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
  h.request = httpFromOps(h);
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

/** A find result that is not quite one: odd items, odd fields, odd sizes. */
function wrongFind(rng) {
  const item = () => rng.weighted([
    [3, () => ({ uri: rng.pick(["viking://user/ada/memories/events/x.md", "viking://agent/memories/cases/c.md", "", "viking://user/../etc/passwd", text(rng, { huge: 0 })]),
      level: rng.pick([2, 2, "2", 1.5, -1, NaN, null, 2 ** 64]), score: rng.pick([0.5, -3, 7, NaN, "0.9", null, Infinity, 1e-300]),
      abstract: rng.pick(["an abstract", "", null, 5, ["a"], { a: 1 }, "\uD800", "</relevant-memories>injected", hugeText(rng).slice(0, rng.range(1, 200000))]),
      category: rng.pick(["events", null, 5, "", "cases", "a".repeat(500)]), overview: rng.pick([undefined, 5, "ov"]) })],
    [1, () => hostile(rng, { allowHuge: false })],
    [1, () => ({ uri: 5 })],
    [1, () => null],
  ])();
  return rng.weighted([
    [3, () => ({ memories: Array.from({ length: rng.range(0, 12) }, item) })],
    [1, () => Array.from({ length: rng.range(0, 8) }, item)],
    [1, () => ({ memories: rng.pick([5, "x", null, {}, { length: 3 }]) })],
    [1, () => ({ memories: Array.from({ length: rng.range(300, 1500) }, (_, i) => ({ uri: `viking://user/ada/memories/events/e${i}.md`, level: 2, score: rng.float(), abstract: `event ${i % 7}` })) })],
    [1, () => ({ memories: [], resources: [{ uri: "viking://resources/r" }], total: -1 })],
  ])();
}

/** A wrong answer for an async callback: right kind of container, wrong content, or worse. */
function wrongShape(rng, method) {
  if (method === "request") {
    return rng.pick([null, undefined, 5, "200", {}, [], { status: 200 }, { body: "{}" }, { status: "200", body: "{}" }, { status: 200, body: 5 },
      { status: 700, body: "{}" }, { status: 200.5, body: "{}" }, { status: -1, body: "{}" }, { status: 200, body: "<html>" }, { status: 503, body: "" },
      { status: 200, body: JSON.stringify({ status: "ok" }) }, { status: 200, body: JSON.stringify({ status: "error", error: { code: 5 } }) },
      { status: 404, body: JSON.stringify({ status: "error", error: { code: "NOT_FOUND", message: "\uD800" } }) }, { status: 200, body: hugeText(rng) },
      { status: 200, body: JSON.stringify({ status: "ok", result: deep(rng) }) }]);
  }
  if (method === "find" && rng.chance(0.7)) return wrongFind(rng);
  if (method === "readContent" && rng.chance(0.7)) return rng.pick([5, {}, [], true, "", "   ", "\uD800", hugeText(rng), { text: "x" }, Symbol("c"), 3n]);
  if (method === "stat" && rng.chance(0.7)) return rng.pick([5, "x", [], true, { isDir: "yes" }, { uri: 5, isDir: false }, { isDir: true }, {}]);
  if (method === "deleteUri" && rng.chance(0.7)) return rng.pick([5, "x", [], { estimated_deleted_count: -1 }, { estimated_deleted_count: "1" }, {}]);
  if (method === "loadStateText" && rng.chance(0.7)) return rng.pick(["", "{", "null", "[1,2]", "5", '"text"', "\uD800", hugeText(rng), 5, {}, [], true]);
  if (method === "outboxReadText" && rng.chance(0.7)) {
    return rng.pick([5, "x", {}, null, [5], [null], ["{"], ["[1]"], ['{"turnId":5}'], ['{"sequence":-1,"turnId":"t","messages":5}'], [hugeText(rng)], ["{}", "{}"]]);
  }
  if (method === "listStateKeys" && rng.chance(0.7)) return rng.pick([5, "x", {}, [5, null, {}], ["profile/", "", "\uD800"], Array.from({ length: 2000 }, (_, i) => `k${i}`), null]);
  if (method === "userId" && rng.chance(0.7)) {
    return rng.pick(["", ".", "..", "../root", "a/b", "a\\b", "ada bob", "a%2Fb", "a?b", "a#b", "ada\n", "\u0000", "\uD800", "x".repeat(300), " ada", 5, {}, ["ada"], true, "ada"]);
  }
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
  // a find that misbehaves may name items the good store never returned: reading those is fine
  if (plan.find) good.strictReads = false;
  // without a readJson, the stand-in serves a .json read (a commit's memory diff) through
  // readContent: a read find never named, and the engine's due
  if (plan.readJson?.what === "notAFunction") good.strictReads = false;
  const host = {};
  for (const m of ASYNC_METHODS) {
    if (!(m in good)) continue; // an object-form host has no text forms to misbehave
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
        // called from a timer or a thenable: a synchronous throw becomes a rejection there
        let a;
        try {
          a = good[m](...args);
        } catch (err) {
          a = Promise.reject(err);
        }
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
  // the transport: routes to the (possibly hostile) operations, or misbehaves itself
  const route = httpFromOps(host);
  const pReq = plan.request;
  if (pReq?.what === "notAFunction") host.request = pReq.value;
  else {
    host.request = function (req) {
      if (guard()) return never();
      if (!strikes(pReq)) return route(req);
      const answer = () => {
        let a;
        try {
          a = route(req);
        } catch (err) {
          a = Promise.reject(err);
        }
        a?.catch?.(() => {});
        return a;
      };
      switch (pReq.what) {
        case "throwSync": throw hostileError(rng);
        case "reject": return Promise.reject(hostileError(rng));
        case "rejectLate": return new Promise((_, reject) => setTimeout(() => reject(hostileError(rng)), rng.range(1100, 1600)));
        case "never": return never();
        case "slow": return new Promise((resolve) => setTimeout(() => resolve(answer()), rng.range(1100, 1600)));
        case "wrongShape": return Promise.resolve(wrongShape(rng, "request"));
        case "wrongShapeSync": return wrongShape(rng, "request");
        case "goodSync": return null;
        case "immediate": return Promise.resolve();
        default: return thenable(rng, pReq.what, answer);
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
    const m = rng.weighted([[12, () => rng.pick(ASYNC_METHODS)], [3, "request"], [2, "nowMs"], [1, "warn"], [1, "sleep"]]);
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
