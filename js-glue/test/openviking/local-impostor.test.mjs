// local-impostor.test.mjs — local mode never trusts "whatever answers /health": something on
// 127.0.0.1:<port> that is not OpenViking (a 200 to /health, even a copy of OpenViking's health
// document, or a perfect copy run by another user) is reported clearly, is not reused, no
// server is spawned over it, and it is never sent the API key or a turn — not by the probe,
// not by the plugin's transport, not by the plugin. A real OpenViking (harness) passes the
// same checks.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { ensureLocalServer, healthProblem, inspectPort, localServerGate, probeHealth } from "../../openviking/local-server.js";
import { createEngineHost, createTransport } from "../../engine-host.js";
import { createStateStore } from "../../state-store.js";
import { loadEngine } from "../../wasm.js";
import { freePort, httpServer, skipReason, startHarness } from "./helpers.mjs";

const KEY = "ov-test-secret-key-7f3a9c1e5b";
const TURN_TEXT = "my private turn: the vault combination is 31-7-44";
const OV_HEALTH = { status: "ok", healthy: true, version: "0.5.2", auth_mode: "api_key" }; // what 0.5.2 answers without a key
const OV_401 = { status: "error", result: null, error: { code: "UNAUTHENTICATED", message: "Missing API Key when resolving identity.", details: {} }, telemetry: null, profile: null };

const dir = mkdtempSync(join(tmpdir(), "ov-impostor-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const json = (res, status, body) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

/** Impostors, from naive to a copy of OpenViking's health answer. */
const IMPOSTORS = {
  "200 {status:ok} to everything": (req, res) => json(res, 200, { status: "ok" }),
  "200 text OK to everything": (req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("OK");
  },
  "200 {healthy:true}": (req, res) => json(res, 200, { healthy: true }),
  "OpenViking's exact /health, anything else 200 {}": (req, res) => (req.url === "/health" ? json(res, 200, OV_HEALTH) : json(res, 200, {})),
};

/** A stand-in openviking-server that only records that it was started. */
function markerBin() {
  const d = mkdtempSync(join(dir, "bin-"));
  const p = join(d, "openviking-server");
  writeFileSync(p, `#!/bin/sh\necho started >> "${d}/spawned"\nexit 1\n`);
  chmodSync(p, 0o755);
  return { bin: p, spawned: () => existsSync(join(d, "spawned")) };
}

/** What the engine sends through the plugin's transport: a keyed call (a body: a turn). */
function keyed(request, origin, path, body) {
  const headers = { Accept: "application/json", "X-OpenViking-Agent": "main", "X-API-Key": KEY };
  if (body) headers["Content-Type"] = "application/json";
  return request({ method: body ? "POST" : "GET", url: origin + path, headers, body: body && JSON.stringify(body), timeoutMs: 5000 });
}

const refusedUnsent = (err) => {
  assert.equal(err.kind, "unreachable", "the engine keeps the turn in the outbox");
  assert.match(err.message, /not sent to http:\/\/127\.0\.0\.1:\d+: not OpenViking/);
  assert.ok(!inspect(err, { depth: 5 }).includes(KEY));
  return true;
};

function assertNothingSecretSent(fake) {
  for (const r of fake.requests) {
    assert.equal(r.headers["x-api-key"], undefined, `${r.method} ${r.url} carried the API key`);
    assert.ok(!JSON.stringify(r).includes(KEY), `${r.method} ${r.url} carried the API key`);
    assert.ok(!r.body.includes("vault combination"), `${r.method} ${r.url} carried a turn`);
    assert.ok(["/health", "/api/v1/system/status"].includes(r.url), `only keyless probes reach it, got ${r.method} ${r.url}`);
  }
}

for (const [name, handler] of Object.entries(IMPOSTORS)) {
  test(`impostor (${name}): clear warning, not reused, nothing spawned, no key or turn sent`, async () => {
    const fake = await httpServer(handler);
    try {
      const stateDir = join(dir, `s-${fake.port}`);
      const { bin, spawned } = markerBin();
      const warnings = [];
      assert.equal(await probeHealth(fake.port), false);
      const v = await inspectPort(fake.port);
      assert.equal(v.state, "impostor", JSON.stringify(v));
      await assert.rejects(
        ensureLocalServer({ port: fake.port, configPath: "/x/ov.conf", stateDir, serverBin: bin, startTimeoutMs: 5000, log: { info() {}, warn: (m) => warnings.push(m) } }),
        (err) => {
          assert.match(err.message, new RegExp(`not OpenViking answers on 127\\.0\\.0\\.1:${fake.port}`));
          assert.match(err.message, /not used and is sent no API key/);
          return true;
        },
      );
      assert.equal(warnings.length, 1, warnings.join("\n"));
      assert.match(warnings[0], /not OpenViking/);
      assert.equal(spawned(), false, "no server is started over the impostor");
      // the plugin's transport for that origin refuses before sending anything
      const request = createTransport();
      const origin = `http://127.0.0.1:${fake.port}`;
      const before = fake.requests.length;
      await assert.rejects(keyed(request, origin, "/api/v1/system/status"), refusedUnsent);
      await assert.rejects(keyed(request, origin, "/api/v1/sessions/main--s1/messages/batch", { messages: [{ role: "user", content: TURN_TEXT }] }), refusedUnsent);
      assert.ok(fake.requests.length - before <= 2, "at most one more keyless look at the port");
      assertNothingSecretSent(fake);
    } finally {
      await fake.close();
    }
  });
}

test("a transport marked localServer checks the port even before ensureLocalServer ran", async () => {
  const fake = await httpServer(IMPOSTORS["200 {status:ok} to everything"]);
  try {
    const request = createTransport({ localServer: true });
    await assert.rejects(keyed(request, fake.baseUrl, "/api/v1/search/find", { query: TURN_TEXT, target_uri: "viking://user/u/memories" }), refusedUnsent);
    assertNothingSecretSent(fake);
    assert.equal(fake.requests.filter((r) => r.url === "/health").length, 1);
  } finally {
    await fake.close();
  }
});

test("a remote-mode engine is not gated; its GET /health carries no API key", async () => {
  const fake = await httpServer((req, res) => json(res, 200, req.url === "/health" ? OV_HEALTH : { status: "ok", result: { initialized: true, user: "u" } }));
  try {
    const { ContextEngine } = await loadEngine();
    const store = createStateStore(join(dir, `remote-${fake.port}`), { warn() {} });
    const engine = new ContextEngine({ mode: "remote", baseUrl: fake.baseUrl, apiKey: KEY, agentId: "main" }, {}, createEngineHost({ store, request: createTransport() }));
    assert.equal(await localServerGate(fake.baseUrl), null);
    const probe = await engine.probe(2000);
    assert.equal(probe.health.reachable, true);
    assert.equal(probe.auth.userId, "u");
    assert.equal(fake.requests[0].url, "/health");
    assert.equal(fake.requests[0].headers["x-api-key"], undefined, "GET /health needs no key and gets none");
    assert.equal(fake.requests[1].headers["x-api-key"], KEY, "remote mode: the configured server gets the key");
  } finally {
    await fake.close();
  }
});

test("health answers judged by shape: OpenViking 0.5.2's passes, look-alikes do not", () => {
  const ct = "application/json";
  assert.equal(healthProblem(200, ct, OV_HEALTH), null);
  assert.equal(healthProblem(200, ct, { ...OV_HEALTH, account_id: "acme", user_id: "alice", role: "admin" }), null);
  assert.equal(healthProblem(200, "application/json; charset=utf-8", OV_HEALTH), null);
  for (const [status, type, body] of [
    [200, ct, { status: "ok" }],
    [200, ct, { healthy: true }],
    [200, ct, { ...OV_HEALTH, healthy: false }],
    [200, ct, { ...OV_HEALTH, version: 5 }],
    [200, ct, { ...OV_HEALTH, auth_mode: 7 }],
    [200, ct, [OV_HEALTH]],
    [200, "text/html", OV_HEALTH],
    [503, ct, OV_HEALTH],
  ]) {
    assert.notEqual(healthProblem(status, type, body), null, JSON.stringify([status, type, body]));
  }
});

test("a perfect copy of OpenViking's answers, run by another user, is an impostor (listener uid)", { skip: process.getuid?.() !== 0 ? "needs root to run a listener as another user" : !existsSync("/proc/net/tcp") && "Linux only" }, async () => {
  const port = await freePort();
  const src = `
    const http = require("node:http");
    const OV_HEALTH = ${JSON.stringify(OV_HEALTH)}, OV_401 = ${JSON.stringify(OV_401)};
    const keys = [];
    http.createServer((req, res) => {
      if (req.headers["x-api-key"]) process.stdout.write("KEY " + req.headers["x-api-key"] + "\\n");
      res.writeHead(req.url === "/health" ? 200 : 401, { "content-type": "application/json" });
      res.end(JSON.stringify(req.url === "/health" ? OV_HEALTH : OV_401));
    }).listen(${port}, "127.0.0.1", () => process.stdout.write("LISTENING\\n"));`;
  const child = spawn(process.execPath, ["-e", src], { uid: 65534, gid: 65534, cwd: "/", stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  try {
    for (let i = 0; i < 100 && !out.includes("LISTENING"); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(out.includes("LISTENING"), "the other user's server is up");
    const v = await inspectPort(port);
    assert.equal(v.state, "impostor");
    assert.match(v.reason, /belongs to uid 65534, not to this user/);
    const stateDir = join(dir, "s-uid");
    const { bin, spawned } = markerBin();
    await assert.rejects(ensureLocalServer({ port, configPath: "/x", stateDir, serverBin: bin, startTimeoutMs: 3000 }), /uid 65534/);
    assert.equal(spawned(), false);
    await assert.rejects(keyed(createTransport(), `http://127.0.0.1:${port}`, "/api/v1/system/status"), refusedUnsent);
    await new Promise((r) => setTimeout(r, 100));
    assert.ok(!out.includes("KEY"), "the other user's server never saw the key");
  } finally {
    child.kill("SIGKILL");
  }
});

describe("the plugin in local mode with an impostor on its port", () => {
  let fake, stateDir, engine, warnings;
  before(async () => {
    fake = await httpServer(IMPOSTORS["OpenViking's exact /health, anything else 200 {}"]);
    stateDir = join(dir, "plugin-state");
    warnings = [];
    const { default: plugin } = await import("../../index.js");
    let factory;
    plugin.register({
      pluginConfig: { mode: "local", port: fake.port, apiKey: KEY, configPath: join(dir, "ov.conf"), stateDir },
      logger: { warn: (m) => warnings.push(m), info() {}, error: (m) => warnings.push(m) },
      registerContextEngine: (id, f) => (factory = f),
      registerTool() {},
      registerService() {},
    });
    engine = factory({});
  });
  after(async () => {
    await engine?.dispose?.();
    await fake?.close();
  });

  test("bootstrap and commitTurn: the turn waits in the outbox (0600), the impostor gets no key and no turn", async () => {
    const sessionKey = "agent:main:main";
    await engine.bootstrap({ sessionId: "s1", sessionKey });
    const turn = [
      { role: "user", content: TURN_TEXT, timestamp: 1764000001000 },
      { role: "assistant", content: [{ type: "text", text: "Noted." }], stopReason: "stop", api: "openai-completions", provider: "fake", model: "m", timestamp: 1764000002000 },
    ];
    await engine.commitTurn({ sessionId: "s1", sessionKey, advancementKey: "adv-1", messages: turn, terminal: true });
    await engine.assemble({ sessionId: "s1", sessionKey, messages: turn, prompt: "what is the vault combination?", tokenBudget: 50000 });
    await new Promise((r) => setTimeout(r, 200));
    assertNothingSecretSent(fake);
    assert.ok(warnings.some((w) => /not OpenViking answers on 127\.0\.0\.1/.test(w)), warnings.join("\n"));
    for (const w of warnings) assert.ok(!w.includes(KEY), `key in a warning: ${w}`);
    const outbox = join(stateDir, "outbox");
    const files = readdirSync(outbox);
    assert.ok(files.length >= 1, "the turn is kept locally");
    assert.ok(files.some((f) => readFileSync(join(outbox, f), "utf8").includes("vault combination")));
    for (const f of files) assert.equal((statSync(join(outbox, f)).mode & 0o777).toString(8), "600");
    for (const f of readdirSync(stateDir, { recursive: true })) {
      const p = join(stateDir, f);
      if (statSync(p).isFile()) assert.ok(!readFileSync(p, "utf8").includes(KEY), `the key is in ${p}`);
    }
  });
});

test("the plugin's first call being assemble: the impostor still gets no key", async () => {
  const fake2 = await httpServer(IMPOSTORS["OpenViking's exact /health, anything else 200 {}"]);
  try {
    const { default: plugin } = await import("../../index.js");
    let factory;
    const warnings = [];
    plugin.register({
      pluginConfig: { mode: "local", port: fake2.port, apiKey: KEY, configPath: join(dir, "ov.conf"), stateDir: join(dir, "plugin-state-2") },
      logger: { warn: (m) => warnings.push(m), info() {}, error: (m) => warnings.push(m) },
      registerContextEngine: (id, f) => (factory = f),
      registerTool() {},
      registerService() {},
    });
    const engine2 = factory({});
    await engine2.assemble({ sessionId: "s1", sessionKey: "agent:main:first", messages: [], prompt: "what is the vault combination?", tokenBudget: 50000 });
    assertNothingSecretSent(fake2);
    await engine2.dispose?.();
  } finally {
    await fake2.close();
  }
});

describe("a real OpenViking passes the same checks", { skip: skipReason, timeout: 180000 }, () => {
  let harness;
  before(async () => {
    harness = await startHarness();
  });
  after(async () => {
    await harness?.stop();
  });

  test("inspectPort says openviking; ensureLocalServer reuses it; the gated transport works", async () => {
    const port = Number(new URL(harness.env.baseUrl).port);
    const v = await inspectPort(port);
    assert.equal(v.state, "openviking", JSON.stringify(v));
    assert.equal(v.health.version, "0.5.2");
    const stateDir = join(dir, "real-state");
    mkdirSync(stateDir, { recursive: true });
    const r = await ensureLocalServer({ port, configPath: "/x/ov.conf", stateDir, serverBin: markerBin().bin });
    assert.deepEqual(r, { started: false, pid: null, baseUrl: harness.env.baseUrl });
    assert.deepEqual(await localServerGate(harness.env.baseUrl), { ok: true });
    const request = createTransport({ localServer: true });
    const headers = { "X-API-Key": harness.env.userKey, "X-OpenViking-Agent": "main" };
    const answer = await request({ method: "GET", url: `${harness.env.baseUrl}/api/v1/system/status`, headers, timeoutMs: 5000 });
    assert.equal(answer.status, 200);
    assert.equal(JSON.parse(answer.body).result.user, harness.env.userId);
  });
});
