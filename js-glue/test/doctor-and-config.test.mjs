// `openclaw openviking doctor` and what the plugin says about its config (plugin/commands.js,
// over the fixture in support/commands-fixture.mjs): every check with its fix, remote and
// local; a config the engine refuses keeps the plugin and its commands loaded; no secret of
// the config printed; an unusable state dir; "not in use" said once per cause.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { registerCommands } from "../plugin/commands.js";
import plugin from "../index.js";
import {
  KEY,
  HOST_CONFIG,
  freePort,
  outputs,
  fakeRuntime,
  FakeCommand,
  fakeApi,
  surfaces,
  said,
  turn,
  seededRuntime,
} from "./support/commands-fixture.mjs";

let rt;
before(async () => {
  rt = await seededRuntime();
});

test("doctor (remote): config without the key, host version, slot, endpoints one by one — ok, and fail with a fix", async () => {
  const { cli } = surfaces(rt);
  const good = await cli("doctor", { json: true });
  assert.equal(good.exitCode, undefined, good.out);
  const d = good.json;
  assert.equal(d.ok, true);
  assert.equal(d.host.version, "2026.9.6");
  assert.equal(d.config.apiKeySet, true);
  assert.ok(!("apiKey" in d.config.resolved), "the resolved config is shown without the key");
  assert.equal(d.config.resolved.mode, "remote");
  assert.deepEqual(d.checks.map((c) => [c.id, c.status]), [
    ["config", "ok"], ["slot", "ok"], ["hooks", "ok"], ["host", "ok"], ["health", "ok"], ["auth", "ok"], ["find", "ok"], ["state", "ok"], ["local", "skip"],
  ]);
  assert.ok(rt.server.finds.at(-1).targetUri, "the find went to the engine's user scope");
  const human = (await cli("doctor")).out;
  assert.match(human, /^OpenViking doctor: all checks passed/);
  assert.match(human, /host\s+OpenClaw 2026\.9\.6/);
  assert.match(human, /API key\s+set \(not shown\)/);
  assert.match(human, /\[ok {2}\] context-engine slot: plugins\.slots\.contextEngine is "openviking"/);
  assert.match(human, /\[ok {2}\] OpenViking GET \/api\/v1\/system\/status \(with the API key\): the key is accepted: user alice/);
  assert.match(human, /Config \(resolved by the engine\)\n {2}mode = "remote"/);
  assert.doesNotMatch(human, /apiKey =/);

  // engine not selected, server down
  rt.server.down = true;
  try {
    const bad = surfaces(rt, { hostConfig: { plugins: { slots: { contextEngine: "legacy" }, entries: {} } } });
    const r = await bad.cli("doctor", { json: true });
    assert.equal(r.exitCode, 1);
    const by = Object.fromEntries(r.json.checks.map((c) => [c.id, c]));
    assert.equal(by.slot.status, "fail");
    assert.match(by.slot.fix, /plugins\.slots\.contextEngine to "openviking"/);
    assert.equal(by.hooks.status, "warn");
    assert.equal(by.health.status, "fail");
    assert.match(by.health.fix, /check baseUrl/);
    assert.equal(by.auth.status, "fail");
    assert.equal(by.find.status, "skip");
    // the engine's verdict on the host is the slot's: never "[ok] host uses the engine" beside it
    assert.equal(by.host.status, "fail");
    assert.match(by.host.detail, /^no — the context-engine slot is "legacy"/);
    const text = (await bad.cli("doctor")).out;
    assert.match(text, /^OpenViking doctor: 4 checks failed, 1 warning/);
    assert.doesNotMatch(text, /\[ok {2}\] host uses the engine/);
    assert.match(text, /\[FAIL\] context-engine slot: plugins\.slots\.contextEngine is "legacy"\n {9}fix: set plugins\.slots\.contextEngine/);
    assert.match(text, /\[FAIL\] OpenViking GET \/health: .*unreachable.*\n {9}fix: /);
  } finally {
    rt.server.down = false;
  }
});

test("doctor: the engine's own verdict on the host version (too old fails, untested warns), each with the engine's fix", async () => {
  for (const [version, status, code] of [["2026.3.1", "fail", "host_too_old"], ["2026.12.1", "warn", "host_untested"]]) {
    const api = fakeApi({ runtime: { version } });
    registerCommands(api, rt, { pluginVersion: "0.1.0" });
    const text = (await api.commands[0].handler({ args: "doctor json", sessionKey: "agent:main:c", config: HOST_CONFIG })).text;
    outputs.push(text);
    const d = JSON.parse(text.slice(8, -4));
    const host = d.checks.find((c) => c.id === "host");
    assert.equal(d.host.version, version);
    assert.equal(host.status, status, JSON.stringify(host));
    assert.match(host.detail, new RegExp(`^${code}: OpenClaw ${version.replace(/\./g, "\\.")}`));
    assert.ok(host.fix, "with the engine's fix");
    assert.equal(d.ok, status !== "fail");
  }
});

test("doctor (local): the port, the config file, a stale pid file and a stale start lock, each with a fix", async () => {
  const stateDir = mkdtempSync(join(tmpdir(), "ov-cmd-local-"));
  try {
    const port = await freePort();
    writeFileSync(join(stateDir, "openviking-server.pid"), JSON.stringify({ pid: 2 ** 22 + 7, port, startedAt: "2026-11-30T10:00:00.000Z" }));
    writeFileSync(join(stateDir, `openviking-server.${port}.lock`), JSON.stringify({ pid: 2 ** 22 + 9, host: hostname(), owner: "t", expiresAtMs: Date.now() + 60_000, port }));
    const local = fakeRuntime({ mode: "local", port, stateDir });
    const { cli } = surfaces(local);
    const { json } = await cli("doctor", { json: true });
    const by = Object.fromEntries(json.checks.map((c) => [c.id, c]));
    assert.equal(by["local-port"].status, "fail");
    assert.match(by["local-port"].detail, /nothing answers/);
    assert.match(by["local-port"].fix, /openviking-server --config/);
    assert.equal(by["local-pid"].status, "warn");
    assert.match(by["local-pid"].detail, /no longer openviking-server: the pid file is stale/);
    // a lock left by a process that is gone blocks nothing: not a warning on a healthy install
    assert.equal(by["local-lock"].status, "ok");
    assert.match(by["local-lock"].detail, /a stale lock of a process that is gone is left; the next start breaks it/);
    // the local server's ov.conf: checked on disk, named by its key
    assert.equal(by["local-config"].status, "fail");
    assert.match(by["local-config"].detail, /^configPath \/nowhere\/ov\.conf does not exist: the plugin cannot start openviking-server/);
    assert.match(by["local-config"].fix, /set configPath/);
    const human = (await cli("doctor")).out;
    assert.match(human, new RegExp(`\\[FAIL\\] local server port 127\\.0\\.0\\.1:${port}: nothing answers`));
    assert.doesNotMatch(human, /\[warn\] local server start lock/);

    // the config file there, the lock held by a live process: ok, and a start under way
    writeFileSync(join(stateDir, "ov.conf"), "{}");
    writeFileSync(join(stateDir, `openviking-server.${port}.lock`), JSON.stringify({ pid: process.pid, host: hostname(), owner: "t", expiresAtMs: Date.now() + 60_000, port }));
    const there = fakeRuntime({ mode: "local", port, stateDir, configPath: join(stateDir, "ov.conf") });
    const again = Object.fromEntries((await surfaces(there).cli("doctor", { json: true })).json.checks.map((c) => [c.id, c]));
    assert.equal(again["local-config"].status, "ok");
    assert.equal(again["local-lock"].status, "warn");
    assert.match(again["local-lock"].detail, /a start is under way/);
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
});

test("doctor (local): configPath parses as one JSON object, the server binary is found (OPENVIKING_SERVER_BIN, else PATH), the key fits the server's ov.conf", async () => {
  const stateDir = mkdtempSync(join(tmpdir(), "ov-cmd-local-"));
  const saved = { bin: process.env.OPENVIKING_SERVER_BIN, path: process.env.PATH };
  const ROOT_KEY = "root-key-NEVER-SHOWN-1234";
  try {
    const port = await freePort();
    const conf = join(stateDir, "ov.conf");
    const doctor = async (opts) => {
      const { json, out } = await surfaces(fakeRuntime({ mode: "local", port, stateDir, configPath: conf, ...opts })).cli("doctor", { json: true });
      assert.ok(!out.includes(ROOT_KEY), "the root key is never shown");
      return Object.fromEntries(json.checks.map((c) => [c.id, c]));
    };
    // a file that is not JSON: named, with what the parser said
    writeFileSync(conf, "{ server: { port: 1933 } ");
    let by = await doctor();
    assert.equal(by["local-config"].status, "fail");
    assert.match(by["local-config"].detail, /^configPath .*ov\.conf is not valid JSON \(.+\): openviking-server cannot read it: the plugin cannot start openviking-server$/);
    assert.match(by["local-config"].fix, /make it one JSON object/);
    assert.equal(by["local-key"].status, "skip");
    writeFileSync(conf, "[1]");
    assert.match((await doctor())["local-config"].detail, /is not a JSON object/);

    // the binary: OPENVIKING_SERVER_BIN first (not executable: named), else PATH, else how to get it
    const fake = join(stateDir, "openviking-server");
    writeFileSync(fake, "#!/bin/sh\nexit 0\n", { mode: 0o644 });
    process.env.OPENVIKING_SERVER_BIN = fake;
    by = await doctor();
    assert.equal(by["local-bin"].status, "fail");
    assert.equal(by["local-bin"].detail, `OPENVIKING_SERVER_BIN is not an executable file: ${fake}`);
    assert.match(by["local-bin"].fix, /pip install openviking==0\.5\.2 .*OPENVIKING_SERVER_BIN=<venv>\/bin\/openviking-server .*PATH/);
    chmodSync(fake, 0o755);
    by = await doctor();
    assert.equal(by["local-bin"].status, "ok");
    assert.equal(by["local-bin"].detail, `${fake} (OPENVIKING_SERVER_BIN)`);
    delete process.env.OPENVIKING_SERVER_BIN;
    process.env.PATH = `/nonexistent-bin:${stateDir}`;
    assert.equal((await doctor())["local-bin"].detail, `${fake} (on PATH)`);
    process.env.PATH = "/nonexistent-bin";
    by = await doctor();
    assert.equal(by["local-bin"].status, "fail");
    assert.match(by["local-bin"].detail, /^openviking-server not found: set OPENVIKING_SERVER_BIN to its path, or put it on PATH/);

    // the key: dev mode wants none; a root key in ov.conf wants a user key, never the root key
    writeFileSync(conf, JSON.stringify({ storage: { workspace: "/srv/ov" } }));
    by = await doctor({ apiKey: null });
    assert.equal(by["local-config"].status, "ok");
    assert.match(by["local-config"].detail, /exists and parses \(storage\.workspace \/srv\/ov, no embedding \(the server's local default model, downloaded on first use\), no server\.root_api_key \(dev mode\)\)/);
    assert.equal(by["local-key"].status, "ok");
    assert.match(by["local-key"].detail, /dev mode .*no key needed$/);
    writeFileSync(conf, JSON.stringify({ server: { root_api_key: ROOT_KEY }, storage: { workspace: "/srv/ov" } }));
    by = await doctor({ apiKey: null });
    assert.equal(by["local-key"].status, "fail");
    assert.match(by["local-key"].detail, /server\.root_api_key, so the server wants a user key, and apiKey is not set/);
    assert.match(by["local-key"].fix, new RegExp(`POST http://127\\.0\\.0\\.1:${port}/api/v1/admin/accounts .*root_api_key .*result\\.user_key .*set apiKey`));
    by = await doctor({ apiKey: ROOT_KEY });
    assert.equal(by["local-key"].status, "fail");
    assert.match(by["local-key"].detail, /apiKey is the server's root key .*PERMISSION_DENIED/);
    by = await doctor();
    assert.equal(by["local-key"].status, "ok");
    assert.match(by["local-key"].detail, /^set \(a user key; the server checks it once it answers\)$/);
  } finally {
    if (saved.bin === undefined) delete process.env.OPENVIKING_SERVER_BIN;
    else process.env.OPENVIKING_SERVER_BIN = saved.bin;
    process.env.PATH = saved.path;
    rmSync(stateDir, { recursive: true, force: true });
  }
});

test("a config the engine refuses keeps the plugin and its commands loaded: the engine is off, doctor and status name each bad key, its value and the fix", async () => {
  const logs = { warn: [], error: [] };
  let factory = null;
  let tools = 0;
  const api = {
    ...fakeApi(),
    registrationMode: "full",
    pluginConfig: { mode: "remote", baseUrl: "127.0.0.1:19944", recalLimit: 3, recallLimit: 500, apiKey: "${OV_TEST_UNSET_KEY_VAR}" },
    logger: { warn: (m) => logs.warn.push(m), error: (m) => logs.error.push(m), info() {} },
    registerContextEngine: (_id, f) => (factory = f),
    registerTool: () => tools++,
    on() {},
    registerService() {},
  };
  assert.doesNotThrow(() => plugin.register(api), "the load never fails for a config");
  assert.equal(logs.error.length, 1, logs.error.join("\n"));
  assert.match(logs.error[0], /^\[openviking\] INVALID_CONFIG: the context engine is off until the plugin config is fixed/);
  assert.match(logs.error[0], /baseUrl "127\.0\.0\.1:19944" has no http:\/\/ or https:\/\/ in front: OpenViking cannot be reached at it — fix: set baseUrl to "http:\/\/127\.0\.0\.1:19944"/);
  assert.match(logs.error[0], /apiKey refers to \$\{OV_TEST_UNSET_KEY_VAR\}, which is not set/);
  assert.ok(logs.warn.some((w) => /recalLimit is not a key of this plugin \(did you mean recallLimit\?\); it is ignored — fix: rename it to recallLimit/.test(w)), logs.warn.join("\n"));
  assert.ok(logs.warn.some((w) => /recallLimit=500 is above the maximum 100; using 100 — fix: set recallLimit to a whole number from 1 to 100/.test(w)), logs.warn.join("\n"));
  assert.equal(tools, 0, "no tools without an engine");
  assert.throws(() => factory(), (e) => e.code === "INVALID_CONFIG" && e.field === "baseUrl" && /apiKey refers to/.test(e.message));

  const program = new FakeCommand("openclaw");
  api.clis[0].registrar({ program, config: HOST_CONFIG, parentPath: [], logger: console });
  const root = program.subs.find((c) => c.name === "openviking");
  const run = async (sub, options = {}) => {
    let out = "";
    const write = process.stdout.write;
    const code0 = process.exitCode;
    process.exitCode = undefined;
    process.stdout.write = (chunk, ...rest) => (typeof chunk === "string" ? ((out += chunk), true) : write.call(process.stdout, chunk, ...rest));
    try {
      await root.subs.find((c) => c.name === sub).fn(options);
    } finally {
      process.stdout.write = write;
    }
    const exitCode = process.exitCode;
    process.exitCode = code0;
    outputs.push(out);
    return { out, exitCode };
  };
  const doctor = await run("doctor");
  assert.equal(doctor.exitCode, 1);
  assert.match(doctor.out, /^OpenViking doctor: \d+ checks failed, 2 warnings/);
  assert.match(doctor.out, /\[FAIL\] config baseUrl: baseUrl "127\.0\.0\.1:19944" has no http:\/\/ or https:\/\/ in front: OpenViking cannot be reached at it\n {9}fix: set baseUrl to "http:\/\/127\.0\.0\.1:19944" \(the scheme, then the host and port\)/);
  assert.match(doctor.out, /\[FAIL\] config apiKey: apiKey refers to \$\{OV_TEST_UNSET_KEY_VAR\}, which is not set in this process's environment\n {9}fix: export OV_TEST_UNSET_KEY_VAR/);
  assert.match(doctor.out, /\[warn\] config recalLimit: recalLimit is not a key of this plugin \(did you mean recallLimit\?\); it is ignored\n {9}fix: rename it to recallLimit/);
  assert.match(doctor.out, /\[warn\] config recallLimit: recallLimit=500 is above the maximum 100; using 100\n {9}fix: set recallLimit to a whole number from 1 to 100 \(default 6\)/);
  assert.match(doctor.out, /\[FAIL\] host uses the engine \(the engine's verdict\): no — the engine refuses to start while the plugin config has errors/);
  assert.doesNotMatch(doctor.out, /\[ok {2}\] host uses the engine/);
  const djson = JSON.parse((await run("doctor", { json: true })).out);
  assert.deepEqual(djson.config.problems.map((p) => [p.key, p.severity, p.value]), [
    ["recalLimit", "warning", 3], ["baseUrl", "error", "127.0.0.1:19944"], ["apiKey", "error", null], ["recallLimit", "warning", 500],
  ]);
  for (const sub of ["status", "trace", "flush"]) {
    const r = await run(sub);
    assert.equal(r.exitCode, 1, sub);
    assert.match(r.out, new RegExp(`^OpenViking ${sub}: the plugin config has errors — the context engine is off until they are fixed\\n {2}\\[error\\] baseUrl "127\\.0\\.0\\.1:19944"`));
  }
});

test("no secret in the plugin config is printed: a key under a misspelled field or in headers, in baseUrl's user info, or repeated under another key — not in the log, nor in doctor or status, text or JSON", async () => {
  const SECRET = "sk-misplaced-4c1d9e7a2b";
  const dir = mkdtempSync(join(tmpdir(), "ov-cmd-secrets-"));
  const configs = {
    // warnings only: the engine runs (its baseUrl without the user info)
    running: {
      mode: "remote", baseUrl: `http://ov:${SECRET}@127.0.0.1:1`, timeoutMs: 1000, stateDir: join(dir, "running"),
      api_key: SECRET, apikey: SECRET, APIKey: SECRET, key: SECRET, headers: { "X-API-Key": SECRET, Authorization: `Bearer ${SECRET}` },
    },
    // errors: the engine is off, every command names them
    refused: { mode: "remote", baseUrl: `ov:${SECRET}@127.0.0.1:1`, apiKey: SECRET, targetUri: SECRET, token: SECRET, stateDir: join(dir, "refused") },
  };
  try {
    for (const [name, pluginConfig] of Object.entries(configs)) {
      const logs = [];
      const log = (m) => logs.push(String(m));
      const api = { ...fakeApi(), registrationMode: "full", pluginConfig, logger: { warn: log, error: log, info: log }, registerContextEngine() {}, registerTool() {}, on() {}, registerService() {} };
      plugin.register(api);
      const program = new FakeCommand("openclaw");
      api.clis[0].registrar({ program, config: HOST_CONFIG, parentPath: [], logger: console });
      const root = program.subs.find((c) => c.name === "openviking");
      const printed = [];
      for (const sub of ["doctor", "status"]) {
        for (const json of [false, true]) {
          let out = "";
          const write = process.stdout.write;
          const code0 = process.exitCode;
          process.stdout.write = (chunk, ...rest) => (typeof chunk === "string" ? ((out += chunk), true) : write.call(process.stdout, chunk, ...rest));
          try {
            await root.subs.find((c) => c.name === sub).fn({ json });
          } finally {
            process.stdout.write = write;
            process.exitCode = code0;
          }
          printed.push(out);
        }
        const handler = api.commands[0].handler;
        for (const args of [sub, `${sub} json`]) printed.push((await handler({ args, commandBody: `/openviking ${args}`, channel: "test", isAuthorizedSender: true, config: HOST_CONFIG })).text);
      }
      for (const text of [...logs, ...printed]) {
        assert.ok(!text.includes(SECRET) && !text.includes("4c1d9e7a2b"), `${name}: a secret is printed:\n${text.slice(0, 600)}`);
      }
      const doctor = JSON.parse(printed[1]);
      const values = Object.fromEntries(doctor.config.problems.map((p) => [p.key, p.value]));
      if (name === "running") {
        assert.ok(logs.some((l) => /api_key is not a key of this plugin \(did you mean apiKey\?\); it is ignored/.test(l)), logs.join("\n"));
        assert.deepEqual([values.api_key, values.apikey, values.APIKey, values.key, values.headers, values.baseUrl], ["***", "***", "***", "***", "***", "http://***@127.0.0.1:1"]);
        assert.equal(JSON.parse(printed[5]).openviking.baseUrl, "http://127.0.0.1:1", "status shows the baseUrl in use: no user info");
      } else {
        assert.ok(logs.some((l) => /INVALID_CONFIG: .*baseUrl "\*\*\*@127\.0\.0\.1:1" has no http:\/\/ or https:\/\/ in front/.test(l)), logs.join("\n"));
        assert.deepEqual([values.baseUrl, values.targetUri, values.token], ["***@127.0.0.1:1", "[redacted]", "***"]);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("an unusable state dir is an error naming stateDir, at load (never a turn acknowledged without its outbox)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ov-cmd-statefile-"));
  try {
    const file = join(dir, "not-a-folder");
    writeFileSync(file, "x");
    for (const stateDir of [file, join(file, "below")]) {
      const errors = [];
      let factory = null;
      plugin.register({ pluginConfig: { mode: "remote", baseUrl: "http://127.0.0.1:1", stateDir }, logger: { warn() {}, info() {}, error: (m) => errors.push(m) }, registerContextEngine: (_id, f) => (factory = f), registerTool() {}, on() {}, registerService() {} });
      assert.equal(errors.length, 1, errors.join("\n"));
      assert.match(errors[0], new RegExp(`stateDir "${stateDir.replace(/[/.]/g, "\\$&")}" cannot hold the plugin's outbox and state: a file is in the way \\(it is not a folder\\); no turn is stored until it can — fix: set stateDir to a folder this user can write`));
      assert.throws(() => factory(), (e) => e.code === "INVALID_CONFIG" && e.field === "stateDir");
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("\"not in use\" is said once per process and cause: two loads, another agent's engine, a turn run without the engine", async () => {
  const warned = [];
  const dirs = [mkdtempSync(join(tmpdir(), "ov-cmd-inert-a-")), mkdtempSync(join(tmpdir(), "ov-cmd-inert-b-"))];
  try {
    const hostConfig = { plugins: { slots: { contextEngine: "once-per-cause-test-engine" }, entries: {} } };
    const runtimes = [];
    for (const stateDir of dirs) {
      const api = { ...fakeApi({ config: hostConfig }), registrationMode: "full", pluginConfig: { mode: "remote", baseUrl: "http://127.0.0.1:1", stateDir, timeoutMs: 1000 }, logger: { warn: (m) => warned.push(m), info() {}, error: (m) => warned.push(m) }, registerContextEngine() {}, registerTool() {}, on() {}, registerService() {} };
      plugin.register(api);
      plugin.register(api); // OpenClaw registers a plugin more than once per process
      runtimes.push(api);
    }
    const inert = warned.filter((w) => w.includes("not in use"));
    assert.equal(inert.length, 1, inert.join("\n"));
    assert.match(inert[0], /the context-engine slot is "once-per-cause-test-engine".*fix: set plugins\.slots\.contextEngine to "openviking"/);
  } finally {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
});

test("doctor: what the engine saw in this process (a turn run without it) is the host verdict — never \"[ok] host uses the engine\" beside it", async () => {
  const seen = fakeRuntime();
  const a = seen.agent("agent:main:x");
  a.engine.noteHost({ slot: "openviking", hostVersion: "2026.9.6" });
  await a.engine.hookFallback({ sessionId: "never-assembled", prompt: "Which editor theme do I prefer?" });
  assert.equal(a.engine.inert().code, "not_called");
  const { json } = await surfaces(seen).cli("doctor", { json: true, agent: "main" });
  const host = json.checks.find((c) => c.id === "host");
  assert.equal(host.status, "warn");
  assert.match(host.detail, /^not_called: OpenClaw ran a turn without calling the engine's assemble\(\)/);
  assert.equal(json.checks.filter((c) => c.id === "inert").length, 0, "one check, not two that disagree");
});

test("no text a command printed in this file holds the API key", () => {
  assert.ok(outputs.length > 0);
  for (const out of outputs) assert.ok(!out.includes(KEY), `the key is in an output:\n${out.slice(0, 400)}`);
});
