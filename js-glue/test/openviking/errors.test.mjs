// errors.test.mjs — client error mapping and call mechanics against loopback fakes (no real
// OpenViking needed): OV_UNREACHABLE / OV_TIMEOUT / OV_HTTP_5XX / OV_BAD_RESPONSE / OV_ABORTED,
// server codes passed through, the API key never leaking, no redirects, headers on every
// method, batch chunking and waitTask polling.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { inspect } from "node:util";
import { createClient, OpenVikingError } from "../../openviking/client.js";
import { freePort, hangingTcpServer, httpServer } from "./helpers.mjs";

const KEY = "sk-SECRET-user-key-1234567890";
const ROOT = "root-SECRET-key-0987654321";
const closers = [];
after(async () => {
  for (const c of closers) await c();
});

async function fake(handler) {
  const srv = await httpServer(handler);
  closers.push(srv.close);
  return srv;
}

function json(res, status, obj) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(obj));
}

async function failure(promise) {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  assert.fail("expected a rejection");
}

function assertNoKey(err) {
  for (const text of [err.message, err.stack, inspect(err, { depth: 5 }), JSON.stringify(err), String(err)]) {
    assert.ok(!text.includes(KEY) && !text.includes(ROOT), `key leaked: ${text}`);
    assert.ok(!text.includes(encodeURIComponent(KEY)), "encoded key leaked");
  }
}

test("a closed port is OV_UNREACHABLE (retryable, status 0)", async () => {
  const port = await freePort();
  const c = createClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: KEY, agentId: "a", timeoutMs: 5000 });
  const err = await failure(c.getSession("s1"));
  assert.ok(err instanceof OpenVikingError);
  assert.equal(err.code, "OV_UNREACHABLE");
  assert.equal(err.retryable, true);
  assert.equal(err.status, 0);
  assert.equal(err.endpoint, "GET /api/v1/sessions/s1");
  assert.match(err.message, /ECONNREFUSED/);
  assertNoKey(err);
});

test("a server that accepts and never answers is OV_TIMEOUT within the per-call deadline", async () => {
  const srv = await hangingTcpServer();
  closers.push(srv.close);
  const c = createClient({ baseUrl: `http://127.0.0.1:${srv.port}`, apiKey: KEY, agentId: "a", timeoutMs: 5000 });
  const t0 = Date.now();
  const err = await failure(c.find({ query: "x", targetUri: "viking://user/u/memories", timeoutMs: 300 }));
  assert.equal(err.code, "OV_TIMEOUT");
  assert.equal(err.retryable, true);
  assert.equal(err.endpoint, "POST /api/v1/search/find");
  assert.ok(Date.now() - t0 < 3000, `took ${Date.now() - t0} ms`);
  assertNoKey(err);
});

test("a body that stalls after the headers also times out", async () => {
  const srv = await fake((req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.write('{"status":"ok","res');
  });
  const c = createClient({ baseUrl: srv.baseUrl, apiKey: KEY, agentId: "a", timeoutMs: 300 });
  const err = await failure(c.systemStatus());
  assert.equal(err.code, "OV_TIMEOUT");
});

test("HTTP 503 (plain text) and 500 (with envelope) are OV_HTTP_5XX, retryable", async () => {
  const srv = await fake((req, res) => {
    if (req.url.startsWith("/api/v1/tasks/")) return json(res, 500, { status: "error", error: { code: "INTERNAL", message: "boom" } });
    res.writeHead(503, { "content-type": "text/plain" });
    res.end("Service Unavailable");
  });
  const c = createClient({ baseUrl: srv.baseUrl, apiKey: KEY, agentId: "a", timeoutMs: 2000 });
  const e1 = await failure(c.health());
  assert.equal(e1.code, "OV_HTTP_5XX");
  assert.equal(e1.status, 503);
  assert.equal(e1.retryable, true);
  assert.equal(e1.endpoint, "GET /health");
  const e2 = await failure(c.getTask("t1"));
  assert.equal(e2.code, "OV_HTTP_5XX");
  assert.equal(e2.serverCode, "INTERNAL");
  assert.equal(e2.status, 500);
  assertNoKey(e1);
  assertNoKey(e2);
});

test("non-JSON, non-envelope and code-less 4xx answers are OV_BAD_RESPONSE, not retryable", async () => {
  const srv = await fake((req, res) => {
    if (req.url.startsWith("/api/v1/system/status")) {
      res.writeHead(200, { "content-type": "text/html" });
      return res.end("<html>hello</html>");
    }
    if (req.url.startsWith("/api/v1/fs/ls")) return json(res, 200, { entries: [] });
    if (req.url.startsWith("/api/v1/tasks/")) return json(res, 200, [1, 2]);
    json(res, 404, { detail: "Not Found" });
  });
  const c = createClient({ baseUrl: srv.baseUrl, apiKey: KEY, agentId: "a", timeoutMs: 2000 });
  for (const [p, status] of [[c.systemStatus(), 200], [c.ls("viking://user/u/"), 200], [c.getTask("t"), 200], [c.getSession("s"), 404]]) {
    const err = await failure(p);
    assert.equal(err.code, "OV_BAD_RESPONSE");
    assert.equal(err.status, status);
    assert.equal(err.retryable, false);
  }
});

test("server error codes pass through with status; messages and details are scrubbed of keys", async () => {
  const srv = await fake((req, res) => {
    const echoed = `${req.headers["x-api-key"]} / ${encodeURIComponent(req.headers["x-api-key"])}`;
    json(res, 403, { status: "error", error: { code: "PERMISSION_DENIED", message: `key ${echoed} refused`, details: { key: echoed } } });
  });
  const c = createClient({ baseUrl: srv.baseUrl, apiKey: KEY, rootKey: ROOT, agentId: "a", timeoutMs: 2000 });
  const err = await failure(c.readContent("viking://user/u/resources/x.json", { offset: 1, limit: 2 }));
  assert.equal(err.code, "PERMISSION_DENIED");
  assert.equal(err.status, 403);
  assert.equal(err.retryable, false);
  assert.equal(err.endpoint, "GET /api/v1/content/read"); // no query string
  assert.match(err.message, /\[redacted\]/);
  assert.equal(err.details.key, "[redacted] / [redacted]");
  assertNoKey(err);
  const rootErr = await failure(c.createAccount({ accountId: "x", adminUserId: "y" }));
  assert.equal(srv.requests.at(-1).headers["x-api-key"], ROOT); // createAccount uses the root key
  assertNoKey(rootErr);
});

test("a caller AbortSignal cancels the call as OV_ABORTED (not retryable)", async () => {
  const srv = await hangingTcpServer();
  closers.push(srv.close);
  const c = createClient({ baseUrl: `http://127.0.0.1:${srv.port}`, apiKey: KEY, agentId: "a", timeoutMs: 5000 });
  const ctrl = new AbortController();
  setTimeout(() => ctrl.abort(), 100);
  const err = await failure(c.getSession("s", { signal: ctrl.signal }));
  assert.equal(err.code, "OV_ABORTED");
  assert.equal(err.retryable, false);
  const pre = await failure(c.health({ signal: AbortSignal.abort() }));
  assert.equal(pre.code, "OV_ABORTED");
});

test("redirects are not followed (the key never goes to another origin)", async () => {
  const other = await fake((req, res) => json(res, 200, { status: "ok", result: "stolen" }));
  const srv = await fake((req, res) => {
    res.writeHead(302, { location: `${other.baseUrl}/api/v1/system/status` });
    res.end();
  });
  const c = createClient({ baseUrl: srv.baseUrl, apiKey: KEY, agentId: "a", timeoutMs: 2000 });
  const err = await failure(c.systemStatus());
  assert.equal(err.code, "OV_BAD_RESPONSE");
  assert.equal(err.status, 302);
  assert.equal(other.requests.length, 0);
});

test("createClient validates its options without echoing the key", () => {
  const bad = "sk-with\nnewline-SECRET";
  try {
    createClient({ baseUrl: "http://127.0.0.1:1", apiKey: bad, agentId: "a" });
    assert.fail("should throw");
  } catch (err) {
    assert.ok(err instanceof TypeError);
    assert.ok(!err.message.includes("SECRET") && !err.stack.includes("SECRET"));
  }
  assert.throws(() => createClient({ baseUrl: "ftp://x", agentId: "a" }), TypeError);
  assert.throws(() => createClient({ baseUrl: "http://u:p@127.0.0.1:1", agentId: "a" }), TypeError);
  assert.throws(() => createClient({ baseUrl: "http://127.0.0.1:1", agentId: "a/b" }), TypeError);
  assert.throws(() => createClient({ baseUrl: "http://127.0.0.1:1" }), TypeError);
  const c = createClient({ baseUrl: "http://127.0.0.1:1", apiKey: KEY, agentId: "a" });
  assert.throws(() => c.getSession(".."), TypeError);
  assert.throws(() => c.getArchive("s", "."), TypeError);
});

/** A fetch that records requests and answers from a script. */
function recorder(answer = () => ({ status: "ok", result: { ok: true } })) {
  const calls = [];
  const fetchImpl = async (url, init) => {
    const u = new URL(url);
    calls.push({ method: init.method, path: u.pathname, query: Object.fromEntries(u.searchParams), headers: init.headers, body: init.body ? JSON.parse(init.body) : undefined });
    const reply = answer(calls.at(-1), calls.length);
    return new Response(typeof reply === "string" ? reply : JSON.stringify(reply), { status: reply?.httpStatus ?? 200 });
  };
  return { calls, fetchImpl };
}

test("every method sends X-API-Key (but GET /health, which needs none) and X-OpenViking-Agent; clients share no state", async () => {
  const r = recorder((call) => (call.path.endsWith("/health") ? { status: "ok", healthy: true }
    : call.path.includes("/tasks/") ? { status: "ok", result: { status: "completed" } }
      : call.path.endsWith("/api/v1/content/read") ? { status: "ok", result: '{"a":1}' } : { status: "ok", result: {} }));
  const a = createClient({ baseUrl: "http://127.0.0.1:9/ov", apiKey: KEY, agentId: "agent-a", fetch: r.fetchImpl });
  const b = createClient({ baseUrl: "http://127.0.0.1:9/ov", apiKey: "other-key-123", agentId: "agent-b", fetch: r.fetchImpl });
  const u = "viking://user/u/resources/x.json";
  const all = (c) => [c.health(), c.systemStatus(), c.createSession({ sessionId: "s" }), c.getSession("s", { autoCreate: true }),
    c.addMessage("s", { role: "user", content: "hi" }), c.addMessages("s", [{ role: "user", content: "x" }]), c.commit("s"),
    c.getTask("t"), c.waitTask("t"), c.sessionContext("s", { tokenBudget: 10 }), c.getArchive("s", "archive_001"),
    c.find({ query: "q", targetUri: "viking://user/u/memories", limit: 3, scoreThreshold: 0.1 }), c.readContent(u),
    c.readJson(u), c.writeContent({ uri: u, content: "{}", mode: "create", wait: true }), c.ls("viking://user/u/"),
    c.deleteUri(u), c.deleteSession("s"), c.createAccount({ accountId: "x", adminUserId: "y" }), c.stat(u)];
  const results = await Promise.all([...all(a), ...all(b)]);
  assert.deepEqual(results[13], { a: 1 }); // readJson parsed the string
  assert.equal(r.calls.length, 40);
  for (const call of r.calls) {
    assert.ok(call.path.startsWith("/ov/"), call.path);
    const agent = call.headers["X-OpenViking-Agent"];
    assert.ok(agent === "agent-a" || agent === "agent-b");
    assert.equal(call.headers["X-API-Key"], call.path === "/ov/health" ? undefined : agent === "agent-a" ? KEY : "other-key-123", call.path);
  }
  const find = r.calls.find((c) => c.path.endsWith("/search/find"));
  assert.deepEqual(find.body, { query: "q", target_uri: "viking://user/u/memories", limit: 3, score_threshold: 0.1 });
  const del = r.calls.find((c) => c.method === "DELETE" && c.path === "/ov/api/v1/fs");
  assert.deepEqual(del.query, { uri: u, recursive: "false", wait: "true" });
  assert.deepEqual(r.calls.find((c) => c.path === "/ov/api/v1/fs/stat").query, { uri: u });
  assert.deepEqual(r.calls.find((c) => c.path.endsWith("/context")).query, { token_budget: "10" });
  assert.deepEqual(r.calls.find((c) => c.path === "/ov/api/v1/sessions/s" && c.method === "GET").query, { auto_create: "true" });
});

test("addMessages sends chunks of at most 100 and reports progress on failure", async () => {
  const r = recorder((call) => ({ status: "ok", result: { added: call.body.messages.length, message_count: 1 } }));
  const c = createClient({ baseUrl: "http://127.0.0.1:9", apiKey: KEY, agentId: "a", fetch: r.fetchImpl });
  const msgs = Array.from({ length: 250 }, (_, i) => ({ role: "user", content: `m${i}` }));
  const res = await c.addMessages("s", msgs);
  assert.equal(res.added, 250);
  assert.deepEqual(r.calls.map((x) => x.body.messages.length), [100, 100, 50]);
  assert.equal(r.calls[2].body.messages[0].content, "m200");

  const r2 = recorder((call, n) => (n === 2 ? { httpStatus: 503, status: "error", error: { code: "X" } } : { status: "ok", result: { added: 100 } }));
  const c2 = createClient({ baseUrl: "http://127.0.0.1:9", apiKey: KEY, agentId: "a", fetch: r2.fetchImpl });
  const err = await failure(c2.addMessages("s", msgs));
  assert.equal(err.code, "OV_HTTP_5XX");
  assert.equal(err.addedBefore, 100);
});

test("waitTask polls through pending/running and transient errors, and times out as OV_TIMEOUT", async () => {
  const seq = [{ status: "ok", result: { status: "pending" } }, { httpStatus: 503, status: "error", error: { code: "BUSY" } },
    { status: "ok", result: { status: "running" } }, { status: "ok", result: { status: "completed", result: { archive_uri: "a" } } }];
  const r = recorder((call, n) => seq[Math.min(n, seq.length) - 1]);
  const c = createClient({ baseUrl: "http://127.0.0.1:9", apiKey: KEY, agentId: "a", fetch: r.fetchImpl });
  const task = await c.waitTask("t1", { intervalMs: 10, timeoutMs: 5000 });
  assert.equal(task.status, "completed");
  assert.equal(r.calls.length, 4);

  const r2 = recorder(() => ({ status: "ok", result: { status: "running" } }));
  const c2 = createClient({ baseUrl: "http://127.0.0.1:9", apiKey: KEY, agentId: "a", fetch: r2.fetchImpl });
  const err = await failure(c2.waitTask("t2", { intervalMs: 20, timeoutMs: 200 }));
  assert.equal(err.code, "OV_TIMEOUT");
  assert.equal(err.details.lastStatus, "running");
  const ctrl = new AbortController();
  setTimeout(() => ctrl.abort(), 50);
  const aborted = await failure(c2.waitTask("t3", { intervalMs: 20, timeoutMs: 5000, signal: ctrl.signal }));
  assert.equal(aborted.code, "OV_ABORTED");

  const r3 = recorder(() => ({ httpStatus: 404, status: "error", error: { code: "NOT_FOUND", message: "Task not found" } }));
  const c3 = createClient({ baseUrl: "http://127.0.0.1:9", apiKey: KEY, agentId: "a", fetch: r3.fetchImpl });
  assert.equal((await failure(c3.waitTask("gone", { intervalMs: 10 }))).code, "NOT_FOUND");
  assert.equal(r3.calls.length, 1);
});
