// transport.test.mjs — the plugin's `request` callback (engine-host.js: fetch, a deadline, no
// redirects) and the engine's protocol over it, against loopback servers that misbehave the
// way networks and proxies do: a closed port, a server that never answers, a body that stalls,
// 5xx pages, redirects to another origin, answers that echo the key. Every failure is
// classified by the engine, kept out of no turn, and carries no key.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { createEngineHost, createTransport } from "../../engine-host.js";
import { createStateStore } from "../../state-store.js";
import { loadEngine } from "../../wasm.js";
import { freePort, hangingTcpServer, httpServer } from "./helpers.mjs";

const { ContextEngine } = await loadEngine();
const KEY = "sk-SECRET-user-key-1234567890";
const closers = [];
after(async () => {
  for (const c of closers) await c();
});

async function fake(handler) {
  const srv = await httpServer(handler);
  closers.push(srv.close);
  return srv;
}

const json = (res, status, obj) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(obj));
};

function engineAt(baseUrl, timeoutMs = 1500) {
  const store = createStateStore(mkdtempSync(join(tmpdir(), "ov-transport-")), { warn() {} });
  const warnings = [];
  const host = createEngineHost({ store, request: createTransport(), logger: { warn: (m) => warnings.push(m) } });
  const engine = new ContextEngine({ mode: "remote", baseUrl, apiKey: KEY, agentId: "main", timeoutMs }, {}, host);
  return { engine, warnings };
}

const turn = (text) => [
  { role: "user", content: text, timestamp: 1764000000000 },
  { role: "assistant", content: [{ type: "text", text: "Noted." }], timestamp: 1764000000001 },
];

function assertNoKey(value) {
  const text = inspect(value, { depth: 8 });
  assert.ok(!text.includes(KEY) && !text.includes(encodeURIComponent(KEY)), `key leaked: ${text}`);
}

test("the transport: a closed port is unreachable, a silent server and a stalled body time out", async () => {
  const request = createTransport();
  const closed = await freePort();
  await assert.rejects(request({ method: "GET", url: `http://127.0.0.1:${closed}/api/v1/system/status`, headers: {}, timeoutMs: 2000 }), (err) => {
    assert.equal(err.kind, "unreachable");
    assert.match(err.message, /ECONNREFUSED/);
    return true;
  });
  const silent = await hangingTcpServer();
  closers.push(silent.close);
  let t0 = Date.now();
  await assert.rejects(request({ method: "GET", url: `http://127.0.0.1:${silent.port}/x`, headers: {}, timeoutMs: 300 }), (err) => err.kind === "timeout");
  assert.ok(Date.now() - t0 < 2000, `gave up after ${Date.now() - t0} ms`);
  const stalls = await fake((req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.write('{"status":"ok",'); // and never the rest
  });
  t0 = Date.now();
  await assert.rejects(request({ method: "GET", url: `${stalls.baseUrl}/x`, headers: {}, timeoutMs: 300 }), (err) => err.kind === "timeout");
  assert.ok(Date.now() - t0 < 2000);
});

test("the transport follows no redirect: the key never reaches another origin", async () => {
  const elsewhere = await fake((req, res) => json(res, 200, { status: "ok", result: {} }));
  const redirecting = await fake((req, res) => {
    res.writeHead(307, { location: `${elsewhere.baseUrl}${req.url}` });
    res.end();
  });
  const answer = await createTransport()({ method: "GET", url: `${redirecting.baseUrl}/api/v1/system/status`, headers: { "X-API-Key": KEY }, timeoutMs: 2000 });
  assert.equal(answer.status, 307);
  const { engine } = engineAt(redirecting.baseUrl);
  const probe = await engine.probe(1500);
  assert.match(probe.auth.error, /HTTP 307 and a body that is not a JSON object/);
  assert.equal(elsewhere.requests.length, 0, "nothing reached the other origin");
});

test("through the engine: outages and bad answers keep the turn; each says what happened, without the key", async () => {
  const closed = await freePort();
  const silent = await hangingTcpServer();
  closers.push(silent.close);
  const html502 = await fake((req, res) => {
    res.writeHead(502, { "content-type": "text/html" });
    res.end(`<html>Bad Gateway (upstream said ${KEY})</html>`);
  });
  const echo = await fake((req, res) => json(res, 401, { status: "error", error: { code: "UNAUTHENTICATED", message: `invalid key ${KEY}` } }));
  const cases = [
    [`http://127.0.0.1:${closed}`, /unreachable .*ECONNREFUSED/],
    // the first request waits out its timeout; the ones after it are not sent for a while
    [`http://127.0.0.1:${silent.port}`, /did not answer (.* within \d+ ms|lately; asked again in \d+ s)/],
    [html502.baseUrl, /HTTP 502: <html>Bad Gateway/],
    [echo.baseUrl, /HTTP 401 UNAUTHENTICATED: invalid key \[redacted\]/],
  ];
  for (const [baseUrl, expected] of cases) {
    const { engine, warnings } = engineAt(baseUrl, 500);
    const out = await engine.writeTurn({ sessionId: "s", advancementKey: "k1", messages: turn(`a turn for ${baseUrl}`) });
    assert.equal(out.status, "committed", baseUrl);
    assert.equal(out.queued, true, `${baseUrl}: kept in the outbox`);
    const report = await engine.flush("main--s");
    assert.equal(report.queued, 1);
    assert.match(`${report.reason} ${warnings.join(" ")}`, expected);
    assertNoKey([report, warnings, out]);
    const probe = await engine.probe(500);
    assertNoKey(probe);
    assert.equal(probe.auth.denied, baseUrl === echo.baseUrl, baseUrl);
  }
});

test("every request names the agent, carries the key (GET /health does not) and JSON bodies", async () => {
  const srv = await fake((req, res) => {
    if (req.url === "/health") return json(res, 200, { status: "ok", healthy: true, version: "0.5.2" });
    if (req.url.startsWith("/api/v1/system/status")) return json(res, 200, { status: "ok", result: { user: "alice" } });
    if (req.url.startsWith("/api/v1/sessions/main--s?")) return json(res, 404, { status: "error", error: { code: "NOT_FOUND", message: "no session" } });
    if (req.url === "/api/v1/sessions") return json(res, 200, { status: "ok", result: { session_id: "main--s" } });
    if (req.url.startsWith("/api/v1/sessions/main--s/context")) return json(res, 200, { status: "ok", result: { messages: [] } });
    if (req.url.endsWith("/messages/batch")) return json(res, 200, { status: "ok", result: { message_count: 2 } });
    if (req.url.startsWith("/api/v1/search/find")) return json(res, 200, { status: "ok", result: { memories: [] } });
    return json(res, 200, { status: "ok", result: null });
  });
  const { engine } = engineAt(srv.baseUrl);
  await engine.probe(1000);
  const out = await engine.writeTurn({ sessionId: "s", advancementKey: "k1", messages: turn("hello there, a first turn") });
  assert.equal(out.queued, false, JSON.stringify(out));
  for (const r of srv.requests) {
    assert.equal(r.headers["x-openviking-agent"], "main", r.url);
    assert.equal(r.headers["x-api-key"], r.url === "/health" ? undefined : KEY, r.url);
    if (r.body) assert.equal(r.headers["content-type"], "application/json", r.url);
  }
  const batch = srv.requests.find((r) => r.url.endsWith("/messages/batch"));
  assert.equal(batch.method, "POST");
  assert.deepEqual(JSON.parse(batch.body).messages.map((m) => m.role), ["user", "assistant"]);
});
