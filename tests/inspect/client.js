// client.js — the tests' own OpenViking 0.5.x HTTP client: the harnesses plant data and look
// at what the engine stored with it. It is an inspector, independent of the engine's protocol
// code (src/openviking), so a bug there is not mirrored here. createClient() returns one
// method per endpoint (each one HTTP call, except addMessages' chunking and waitTask's
// polling), with X-API-Key / X-OpenViking-Agent on every call and errors as OpenVikingError.

import { CLIENT_CODES as C, OpenVikingError, makeRedactor } from "./errors.js";
import { createTransport } from "./http.js";

export { OpenVikingError, CLIENT_CODES } from "./errors.js";

const BATCH_MAX = 100;
const HEADER_SAFE = /^[\x21-\x7e]{1,4096}$/; // visible ASCII: no spaces, CR/LF or controls

function checkKey(name, value, required) {
  if (value === undefined || value === null || value === "") {
    if (required) throw new TypeError(`${name} is required`);
    return;
  }
  // never echo the value: it is a secret
  if (typeof value !== "string" || !HEADER_SAFE.test(value)) throw new TypeError(`${name} must be visible ASCII without spaces`);
}

/** One encoded path segment; "." and ".." would be collapsed by URL parsing, so refuse them. */
function seg(name, value) {
  if (typeof value !== "string" || value === "" || value === "." || value === "..") {
    throw new TypeError(`${name} must be a non-empty string (not "." or "..")`);
  }
  return encodeURIComponent(value);
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    function onAbort() {
      clearTimeout(t);
      reject(signal.reason);
    }
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * @param {{baseUrl: string, apiKey?: string, agentId: string, rootKey?: string, timeoutMs?: number,
 *          fetch?: typeof fetch}} options  rootKey: used by createAccount (else apiKey)
 */
export function createClient({ baseUrl, apiKey, agentId, rootKey, timeoutMs = 30000, fetch = globalThis.fetch } = {}) {
  let base;
  try {
    base = new URL(baseUrl);
  } catch {
    throw new TypeError("baseUrl must be an absolute http(s) URL");
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") throw new TypeError("baseUrl must be http(s)");
  if (base.username || base.password || base.search || base.hash) throw new TypeError("baseUrl must not carry credentials, a query or a fragment");
  checkKey("apiKey", apiKey, false);
  checkKey("rootKey", rootKey, false);
  if (typeof agentId !== "string" || !/^[A-Za-z0-9._:@-]{1,128}$/.test(agentId) || agentId === "." || agentId === "..") {
    throw new TypeError("agentId must be 1-128 characters of [A-Za-z0-9._:@-]");
  }
  if (typeof fetch !== "function") throw new TypeError("fetch must be a function");
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) throw new TypeError("timeoutMs must be a positive number");

  const redact = makeRedactor([apiKey, rootKey]);
  const baseHeaders = { "X-OpenViking-Agent": agentId };
  if (apiKey) baseHeaders["X-API-Key"] = apiKey;
  const request = createTransport({ baseUrl: base, fetchImpl: fetch, timeoutMs, baseHeaders, redact });
  const call = (opts) => ({ signal: opts?.signal, timeoutMs: opts?.timeoutMs });
  const S = (id) => `/api/v1/sessions/${seg("sessionId", id)}`;

  const client = {
    baseUrl: base.href.replace(/\/+$/, ""),
    agentId,

    /** GET /health — the bare health object (this endpoint has no envelope); sent without the key. */
    health: (opts) => request("GET", "/health", { ...call(opts), envelope: false, auth: false }),
    systemStatus: (opts) => request("GET", "/api/v1/system/status", call(opts)),

    createSession: ({ sessionId, memoryPolicy, ...opts } = {}) =>
      request("POST", "/api/v1/sessions", { ...call(opts), body: { session_id: sessionId, memory_policy: memoryPolicy } }),
    getSession: (id, { autoCreate, ...opts } = {}) =>
      request("GET", S(id), { ...call(opts), query: { auto_create: autoCreate === undefined ? undefined : Boolean(autoCreate) } }),
    deleteSession: (id, opts) => request("DELETE", S(id), call(opts)),

    /** message: {role, content} or {role, parts:[…]} */
    addMessage: (id, message, opts) => request("POST", `${S(id)}/messages`, { ...call(opts), body: message }),

    /** Batch endpoint in chunks of ≤100; resolves to the last chunk's result with `added` summed. */
    async addMessages(id, messages, opts) {
      if (!Array.isArray(messages)) throw new TypeError("messages must be an array");
      let added = 0;
      let last;
      for (let i = 0; i === 0 || i < messages.length; i += BATCH_MAX) {
        const chunk = messages.slice(i, i + BATCH_MAX);
        try {
          last = await request("POST", `${S(id)}/messages/batch`, { ...call(opts), body: { messages: chunk } });
        } catch (err) {
          if (err instanceof OpenVikingError) err.addedBefore = added; // messages already stored
          throw err;
        }
        added += Number.isFinite(last?.added) ? last.added : chunk.length;
      }
      return { ...last, added };
    },

    commit: (id, body = {}, opts) => request("POST", `${S(id)}/commit`, { ...call(opts), body }),
    getTask: (taskId, opts) => request("GET", `/api/v1/tasks/${seg("taskId", taskId)}`, call(opts)),

    /**
     * Poll a task until it is completed or failed and resolve to it (a failed task is returned,
     * not thrown). Retryable errors are retried until the deadline; then OV_TIMEOUT.
     */
    async waitTask(taskId, { timeoutMs: waitMs = 120000, intervalMs = 500, signal } = {}) {
      const endpoint = `GET /api/v1/tasks/${seg("taskId", taskId)}`;
      const deadline = Date.now() + waitMs;
      let lastStatus = "unknown";
      for (;;) {
        const remaining = deadline - Date.now();
        try {
          const task = await client.getTask(taskId, { signal, timeoutMs: Math.max(1, Math.min(timeoutMs, remaining)) });
          lastStatus = task?.status ?? "unknown";
          if (lastStatus === "completed" || lastStatus === "failed") return task;
        } catch (err) {
          if (!(err instanceof OpenVikingError) || !err.retryable || Date.now() >= deadline) throw err;
          lastStatus = err.code;
        }
        if (Date.now() + intervalMs >= deadline) {
          throw new OpenVikingError(redact(`task ${taskId} still ${lastStatus} after ${waitMs} ms`),
            { code: C.TIMEOUT, endpoint, details: { taskId, lastStatus } });
        }
        try {
          await sleep(intervalMs, signal);
        } catch {
          throw new OpenVikingError(`aborted by caller while waiting for task`, { code: C.ABORTED, endpoint });
        }
      }
    },

    sessionContext: (id, { tokenBudget, ...opts } = {}) =>
      request("GET", `${S(id)}/context`, { ...call(opts), query: { token_budget: tokenBudget } }),
    getArchive: (id, archiveId, opts) => request("GET", `${S(id)}/archives/${seg("archiveId", archiveId)}`, call(opts)),

    find: ({ query, targetUri, limit, scoreThreshold, ...opts } = {}) =>
      request("POST", "/api/v1/search/find", {
        ...call(opts),
        body: { query, target_uri: targetUri, limit, score_threshold: scoreThreshold },
      }),

    readContent: (uri, { offset, limit, ...opts } = {}) =>
      request("GET", "/api/v1/content/read", { ...call(opts), query: { uri, offset, limit } }),

    /** Read a JSON file; 0.5.2 returns the file text as a string, so it is parsed here. */
    async readJson(uri, opts) {
      const value = await client.readContent(uri, opts);
      if (typeof value !== "string") return value;
      try {
        return JSON.parse(value);
      } catch {
        throw new OpenVikingError(redact(`content of ${uri} is not valid JSON`),
          { code: C.BAD_RESPONSE, status: 200, endpoint: "GET /api/v1/content/read" });
      }
    },

    writeContent: ({ uri, content, mode, wait, ...opts } = {}) =>
      request("POST", "/api/v1/content/write", { ...call(opts), body: { uri, content, mode, wait } }),

    /** The directory entries [{name, uri, isDir, size, modTime, …}]. */
    ls: (uri, opts) => request("GET", "/api/v1/fs/ls", { ...call(opts), query: { uri, output: "original" } }),
    /** {name, uri, isDir, size, modTime, …} of one file or folder; NOT_FOUND when there is none. */
    stat: (uri, opts) => request("GET", "/api/v1/fs/stat", { ...call(opts), query: { uri } }),
    /** {uri, estimated_deleted_count}; a uri with nothing behind it answers ok with count 0. */
    deleteUri: (uri, { recursive = false, ...opts } = {}) =>
      request("DELETE", "/api/v1/fs", { ...call(opts), query: { uri, recursive, wait: true } }),

    /** A memory file as stored, its MEMORY_FIELDS comment included (content/read raw=true). */
    readRaw: (uri, opts) => request("GET", "/api/v1/content/read", { ...call(opts), query: { uri, raw: true } }),

    /** Admin API (an account admin's key): PATCH the account's runtime configuration, e.g.
     *  {agent_evolution: {enabled: true}}; answers {account_id, settings}. */
    patchAccountConfiguration: (accountId, settings, opts) =>
      request("PATCH", `/api/v1/admin/accounts/${seg("accountId", accountId)}/configuration`, { ...call(opts), body: { settings } }),

    /** Admin API: needs the root key (createClient's rootKey, else apiKey). Result has user_key. */
    createAccount: ({ accountId, adminUserId, ...opts } = {}) =>
      request("POST", "/api/v1/admin/accounts", {
        ...call(opts),
        headers: rootKey ? { "X-API-Key": rootKey } : {},
        body: { account_id: accountId, admin_user_id: adminUserId },
      }),
  };
  return Object.freeze(client);
}
