// ops-over-http.mjs — test support: the engine's `request` callback (one HTTP exchange) served
// by an in-memory OpenViking written as one function per operation (sessionMeta, addMessages,
// find, …). The engine's protocol code (src/openviking) builds the real URLs and bodies and
// reads real envelopes; this only routes them, so tests can script each operation — and make
// it misbehave: a synchronous throw stays synchronous, a promise that never settles never
// settles, a rejection becomes the HTTP answer OpenViking would give for it.

const ok = (result) => ({ status: 200, body: JSON.stringify({ status: "ok", result: result ?? null }) });
const refusal = (status, code, message) => ({ status, body: JSON.stringify({ status: "error", error: { code, message } }) });

/** An op's rejection as an answer (or as a transport failure, rethrown). */
function answerFor(err) {
  const code = typeof err?.code === "string" ? err.code : "";
  const kind = typeof err?.kind === "string" ? err.kind : "";
  const message = typeof err?.message === "string" ? err.message : "op failed";
  if (kind === "unreachable" || kind === "timeout" || code === "OV_UNREACHABLE" || code === "OV_TIMEOUT" || code === "ECONNREFUSED") {
    throw Object.assign(new Error(message), { kind: kind || (code === "OV_TIMEOUT" ? "timeout" : "unreachable") });
  }
  if (code === "NOT_FOUND" || kind === "not_found") return refusal(404, "NOT_FOUND", message);
  if (["ALREADY_EXISTS", "CONFLICT"].includes(code) || kind === "conflict") return refusal(409, code || "CONFLICT", message);
  if (code === "OV_HTTP_5XX" || kind === "server_error" || (err?.status ?? 0) >= 500) return refusal(500, "INTERNAL", message);
  if (code === "OV_BAD_RESPONSE" || kind === "bad_response") return { status: 200, body: "not json" };
  if (code || kind === "rejected") {
    const status = Number.isInteger(err?.status) && err.status >= 400 && err.status < 500 ? err.status : 400;
    return refusal(status, code || "INVALID_ARGUMENT", message);
  }
  throw err; // anything else (a string, undefined, a plain Error): the exchange itself failed
}

/** Calls `op(...args)` synchronously (a sync throw propagates), then shapes its outcome. */
function run(op, args, shape = ok) {
  const returned = op(...args);
  return Promise.resolve(returned).then(shape, answerFor);
}

/**
 * A find over a list of folders, as OpenViking 0.5.x answers it: each folder's `find` (called
 * synchronously in turn, so a sync throw propagates), the memories merged best score first,
 * `limit` in all. An answer that is not `{memories: [...]}` is passed on as it is.
 */
function findIn(ops, targets, query, limit) {
  const answers = targets.map((t) => ops.find(t, query, limit));
  return Promise.all(answers).then((all) => {
    const odd = all.find((a) => !Array.isArray(a?.memories));
    if (odd !== undefined) return odd;
    const memories = all.flatMap((a) => a.memories).sort((x, y) => (Number(y?.score) || 0) - (Number(x?.score) || 0));
    return { memories: memories.slice(0, limit), resources: [], skills: [], total: Math.min(memories.length, limit) };
  });
}

/**
 * @param {object} ops  operations as the engine once called them: sessionMeta(id) → meta|null,
 *   createSession(id, policy), addMessages(id, messages), liveMessages(id) → messages[],
 *   commit(id, body), task(taskId), archive(id, archiveId), readJson(uri), writeJson(uri, value),
 *   find(targetUri, query, limit), readContent(uri) → text|null, writeText(uri, content, mode,
 *   wait), stat(uri) → object|null, deleteUri(uri), userId() → id|null; health() and listSessions() → ids optional
 * @returns {(req: {method: string, url: string, body?: string}) => Promise<{status: number, body: string}>}
 */
export function httpFromOps(ops) {
  const nullIsMissing = (v) => (v === null || v === undefined ? refusal(404, "NOT_FOUND", "not found") : ok(v));
  return function request({ method, url, body }) {
    const u = new URL(url);
    const path = u.pathname.replace(/^.*?(?=\/api\/v1\/|\/health$)/, "");
    const q = (k) => u.searchParams.get(k);
    const b = body === undefined ? {} : JSON.parse(body);
    const seg = path.split("/").map(decodeURIComponent); // ["", "api", "v1", ...]
    const route = `${method} ${path.replace(/\/sessions\/[^/]+/, "/sessions/:id").replace(/\/archives\/[^/]+/, "/archives/:a").replace(/\/tasks\/[^/]+/, "/tasks/:t")}`;
    switch (route) {
      case "GET /health": {
        const health = ops.health ? ops.health.bind(ops) : () => ({ status: "ok", healthy: true, version: "0.5.2" });
        return run(health, [], (v) => ({ status: 200, body: JSON.stringify(v) }));
      }
      case "GET /api/v1/system/status":
        return run(ops.userId.bind(ops), [], (id) => ok({ initialized: true, user: id ?? null }));
      case "GET /api/v1/sessions/:id":
        return run(ops.sessionMeta.bind(ops), [seg[4]], nullIsMissing);
      case "POST /api/v1/sessions":
        return run(ops.createSession.bind(ops), [b.session_id, b.memory_policy]);
      case "POST /api/v1/sessions/:id/messages/batch":
        return run(ops.addMessages.bind(ops), [seg[4], b.messages]);
      case "GET /api/v1/sessions/:id/context":
        return run(ops.liveMessages.bind(ops), [seg[4]], (messages) => ok(Array.isArray(messages) ? { messages } : messages));
      case "POST /api/v1/sessions/:id/commit":
        return run(ops.commit.bind(ops), [seg[4], b]);
      case "GET /api/v1/tasks/:t":
        return run(ops.task.bind(ops), [seg[4]]);
      case "GET /api/v1/sessions/:id/archives/:a":
        return run(ops.archive.bind(ops), [seg[4], seg[6]]);
      case "GET /api/v1/content/read": {
        const uri = q("uri");
        if (uri.endsWith(".json") && ops.readJson) return run(ops.readJson.bind(ops), [uri], (v) => (v === null || v === undefined ? nullIsMissing(v) : ok(JSON.stringify(v))));
        return run(ops.readContent.bind(ops), [uri], nullIsMissing);
      }
      case "POST /api/v1/content/write":
        if (b.uri.endsWith(".json") && b.mode === "replace" && ops.writeJson) return run(ops.writeJson.bind(ops), [b.uri, JSON.parse(b.content)]);
        return run(ops.writeText.bind(ops), [b.uri, b.content, b.mode, b.wait]);
      case "POST /api/v1/search/find":
        if (Array.isArray(b.target_uri)) return run(findIn, [ops, b.target_uri, b.query, b.limit]);
        return run(ops.find.bind(ops), [b.target_uri, b.query, b.limit]);
      case "GET /api/v1/fs/stat":
        return run(ops.stat.bind(ops), [q("uri")], nullIsMissing);
      case "DELETE /api/v1/fs":
        return run(ops.deleteUri.bind(ops), [q("uri")]);
      case "GET /api/v1/sessions":
        if (!ops.listSessions) return Promise.resolve(ok([]));
        return run(ops.listSessions.bind(ops), [], (ids) => ok(Array.isArray(ids) ? ids.map((id) => ({ session_id: id })) : ids));
      default:
        return Promise.resolve(refusal(404, "NOT_FOUND", `no route ${route}`));
    }
  };
}
