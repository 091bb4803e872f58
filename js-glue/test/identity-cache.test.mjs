// The user id behind (server, API key, agent) is asked once and kept in the state dir for
// an hour (src/engine/identity.rs), so a one-process-per-turn CLI does not spend a round trip on it before
// every search. A new key or an expired entry asks again; the key is never written.
import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadEngine } from "../wasm.js";
import { getRuntime } from "../plugin/runtime.js";

const IDENTITY_TTL_MS = 60 * 60 * 1000; // the engine's IDENTITY_TTL_MS

const wasm = await loadEngine();
const REGISTRY = Symbol.for("openviking-context-engine.runtimes");
const quiet = { warn() {}, info() {} };

async function statusServer() {
  const seen = [];
  const server = http.createServer((req, res) => {
    seen.push({ url: req.url, key: req.headers["x-api-key"] });
    res.setHeader("content-type", "application/json");
    const user = { "key-A-secret": "alice", "key-B-secret": "bob" }[req.headers["x-api-key"]] ?? "carol";
    res.end(JSON.stringify({ status: "ok", result: { user: { user_id: user } } }));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { seen, url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

/** A fresh runtime, as a new process would build it (the registry is per process). */
function processRuntime(stateDir, baseUrl, apiKey) {
  delete globalThis[REGISTRY];
  return getRuntime({ api: {}, rawConfig: { mode: "remote", baseUrl, apiKey, stateDir }, logger: quiet, wasm });
}

test("asked once, then taken from the state dir by the next process; a new key asks again", async () => {
  const srv = await statusServer();
  const stateDir = mkdtempSync(join(tmpdir(), "ove-id-"));
  try {
    assert.equal(await processRuntime(stateDir, srv.url, "key-A-secret").agent("agent:main:s").identity(), "alice");
    assert.equal(srv.seen.length, 1);
    assert.equal(await processRuntime(stateDir, srv.url, "key-A-secret").agent("agent:main:s").identity(), "alice");
    assert.equal(srv.seen.length, 1, "the second process did not ask");
    assert.equal(await processRuntime(stateDir, srv.url, "key-B-secret").agent("agent:main:s").identity(), "bob");
    assert.equal(srv.seen.length, 2, "another key is another identity");
    const files = readdirSync(join(stateDir, "state")).map((f) => f + readFileSync(join(stateDir, "state", f), "utf8")).join("\n");
    assert.doesNotMatch(files, /secret/, "the API key is not written anywhere in the state dir");
  } finally {
    delete globalThis[REGISTRY];
    await srv.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
});

test("an entry older than the TTL (or from the future) is asked again", async () => {
  const srv = await statusServer();
  const stateDir = mkdtempSync(join(tmpdir(), "ove-id-"));
  try {
    await processRuntime(stateDir, srv.url, "k").agent("agent:main:s").identity();
    const dir = join(stateDir, "state");
    const [file] = readdirSync(dir).filter((f) => f.startsWith("identity"));
    for (const at of [Date.now() - IDENTITY_TTL_MS - 1, Date.now() + 60_000]) {
      writeFileSync(join(dir, file), JSON.stringify({ userId: "stale-user", at }));
      const before = srv.seen.length;
      assert.equal(await processRuntime(stateDir, srv.url, "k").agent("agent:main:s").identity(), "carol");
      assert.equal(srv.seen.length, before + 1);
    }
  } finally {
    delete globalThis[REGISTRY];
    await srv.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
});
