// memory-host.mjs — test support: the engine's host callbacks over an in-memory OpenViking
// (one function per operation, served through `request` by ops-over-http.mjs) and an
// in-memory state dir. Tests swap single operations to script or break them; `down` makes
// every exchange fail as a refused connection (the server is gone).
import { httpFromOps } from "./ops-over-http.mjs";

export function memoryHost() {
  const sessions = new Map();
  const state = new Map();
  const outbox = new Map();
  const warnings = [];
  const h = {
    warnings,
    sessions,
    down: false,
    /** the find calls, as {targetUri, query, limit} */
    finds: [],
    async health() {
      return { status: "ok", healthy: true, version: "0.5.2", auth_mode: "api_key" };
    },
    async listSessions() {
      return [...sessions.keys()];
    },
    async sessionMeta(id) {
      return sessions.has(id) ? { message_count: sessions.get(id).length } : null;
    },
    async createSession(id) {
      if (sessions.has(id)) throw Object.assign(new Error("exists"), { code: "ALREADY_EXISTS" });
      sessions.set(id, []);
    },
    async addMessages(id, messages) {
      sessions.get(id).push(...messages);
      return { message_count: sessions.get(id).length };
    },
    async liveMessages(id) {
      return sessions.get(id) ?? [];
    },
    async commit() {
      return { status: "accepted", task_id: "t1" }; // no archive_uri: a server that names none
    },
    async task() {
      return { status: "completed", result: {} };
    },
    async archive() {
      return { overview: "# summary" };
    },
    async readJson() {
      return {};
    },
    async writeJson() {},
    async find(targetUri, query, limit) {
      h.finds.push({ targetUri, query, limit });
      return { memories: [{ uri: `${targetUri}/preferences/theme.md`, level: 2, score: 0.9, abstract: `about ${query}`, category: "preferences" }] };
    },
    async readContent() {
      return "full text";
    },
    async userId() {
      return "alice";
    },
    async writeText() {},
    async stat(uri) {
      return { uri, isDir: false };
    },
    async deleteUri(uri) {
      return { uri, estimated_deleted_count: 1 };
    },
    async listStateKeys(prefix) {
      return [...state.keys()].filter((k) => k.startsWith(prefix));
    },
    // documents and entries cross as JSON text; kept here parsed, for a test to look at
    async loadStateText(k) {
      return state.has(k) ? JSON.stringify(state.get(k)) : null;
    },
    async saveStateText(k, text) {
      state.set(k, JSON.parse(text));
    },
    async outboxAppendText(k, text, turnId) {
      const q = outbox.get(k) ?? [];
      if (!q.some((x) => x.turnId === turnId)) outbox.set(k, [...q, JSON.parse(text)]);
    },
    async outboxReadText(k) {
      return (outbox.get(k) ?? []).map((e) => JSON.stringify(e));
    },
    // the state store's object API (state-store.js has both), for the plugin's commands
    // when this host stands in for the store as well
    async loadState(k) {
      return state.has(k) ? structuredClone(state.get(k)) : null;
    },
    async saveState(k, v) {
      state.set(k, structuredClone(v));
    },
    async outboxDrop(k, ids) {
      outbox.set(k, (outbox.get(k) ?? []).filter((e) => !ids.includes(e.turnId)));
    },
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    nowMs: () => Date.now(),
    warn: (m) => warnings.push(m),
  };
  /** The state dir is lost (or this is another machine on the same server): OpenViking stays. */
  h.forgetStateDir = () => {
    state.clear();
    outbox.clear();
  };
  const route = httpFromOps(h);
  h.request = (req) => {
    if (h.down) return Promise.reject(Object.assign(new Error("ECONNREFUSED"), { kind: "unreachable" }));
    return route(req);
  };
  return h;
}
