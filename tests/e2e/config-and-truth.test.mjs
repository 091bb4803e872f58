// Config messages and true figures in REAL OpenClaw 2026.9.6 (`openclaw agent --local` turns and `openclaw openviking
// …` commands, each its own process): a plugin config mistake never costs the turn, the plugin
// or its doctor — the engine names each bad key, its value, the bound and the fix, in the
// turn's log and in `doctor`; a config value nothing can stand in for (baseUrl without a
// scheme, a file as stateDir, an unset ${VAR}, a port that is no port) turns the engine off
// with one INVALID_CONFIG line naming the key, and OpenClaw runs the turn on its built-in
// engine; `doctor` checks configPath on disk; and against a real OpenViking, a refused API key
// is a failed `status` (exit 1) and a skipped recall in the trace and the turn's log, each
// with its fix, where a good key is "reachable" and "searched"; `/openviking status` sent as a
// CLI message is answered by the plugin (no model call, no turn stored) — an ordinary, stored
// turn without hooks.allowConversationAccess; sent with chat.send to a gateway, the plugin's
// command answers it (no model call) even without that permission; local mode set up as the README says: doctor
// names a missing configPath, server binary and user key, `openclaw openviking setup` writes
// ov.conf, starts openviking-server and makes the key, a turn is stored, the memory the model
// stored in it is recalled in the next session, and every doctor check passes.
// Run: node --test --test-concurrency=1 tests/e2e/config-and-truth.test.mjs (~7–9 min).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeModel, defaultScript, endsWithToolResult, lastQuestion, textOf } from "./fake-model.mjs";
import { writeConfig, runTurn, runCli, scratchDir, gatewayConfig, startGateway } from "./openclaw.mjs";
import { randomBytes } from "node:crypto";
import { startHarness, harnessCommand, freePort, SERVER_BIN } from "../../js-glue/test/openviking/helpers.mjs";
import { inspectPort, stopLocalServer } from "../../js-glue/openviking/local-server.js";
import { createClient } from "../inspect/client.js";
import { storedMessages } from "../inspect/stored.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const PLUGIN = path.join(ROOT, "js-glue");
let fm;
const dirs = [];

/** "remember that …" makes the model call memory_store; everything else is the default echo. */
function script(req) {
  const remember = /^remember that (.+)$/i.exec(lastQuestion(req));
  if (remember && !endsWithToolResult(req.messages)) {
    return { toolCalls: [{ name: "memory_store", arguments: { text: `The user said: ${remember[1]}`, category: "preferences" } }] };
  }
  return defaultScript(req);
}

before(async () => {
  fm = await startFakeModel({ script });
});

after(async () => {
  await fm?.close?.();
  if (!process.env.OV_E2E_KEEP) for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** A scratch OpenClaw home whose plugin config is `config` (`extra` deep-merged into openclaw.json). */
function home(config, prefix = "oc-cfg-", extra = {}) {
  const dir = scratchDir(prefix);
  dirs.push(dir);
  writeConfig({ dir, modelUrl: `${fm.url}/v1`, plugin: { path: PLUGIN, id: "openviking", config }, extra });
  return dir;
}

async function openclaw(t, dir, args, env = {}) {
  const r = await runCli({ dir, args, timeoutMs: 120_000, env });
  t.diagnostic(`openclaw ${args.join(" ")}: exit=${r.code} wall=${r.ms}ms`);
  return r;
}

async function turn(t, dir, sessionId, message) {
  const r = await runTurn({ dir, sessionId, message, timeoutMs: 90_000 });
  t.diagnostic(`turn ${sessionId}: exit=${r.code} wall=${r.ms}ms`);
  return r;
}

const byId = (doc) => doc.checks.reduce((m, c) => ((m[`${c.id}:${c.title}`] = c), m), {});
const lines = (text, re) => text.split("\n").filter((l) => re.test(l));

test("soft mistakes (out of bounds, a typo, a wrong type): the turn runs on the engine, each key is named once with its fix, doctor lists them", { timeout: 420_000 }, async (t) => {
  const port = await freePort(); // nothing answers: recall is skipped, the turn queued
  const dir = home({ mode: "remote", baseUrl: `http://127.0.0.1:${port}`, recallLimit: 500, recalLimit: 3, timeoutMs: "ten", hookFallback: false });
  const r = await turn(t, dir, "soft", "Which editor theme do I prefer for long sessions?");
  assert.equal(r.code, 0, `the turn: exit ${r.code}\n${r.stderr.slice(-3000)}`);
  assert.doesNotMatch(r.stderr, /invalid config|failed during register|plugin load failed/i);
  for (const re of [
    /\[openviking\] config: recallLimit=500 is above the maximum 100; using 100 — fix: set recallLimit to a whole number from 1 to 100 \(default 6\)/,
    /\[openviking\] config: recalLimit is not a key of this plugin \(did you mean recallLimit\?\); it is ignored — fix: rename it to recallLimit/,
    /\[openviking\] config: timeoutMs="ten" is a string, not a whole number; using the default 15000 — fix: set timeoutMs to a whole number from 1000 to 600000/,
  ]) assert.equal(lines(r.stderr, re).length, 1, `once in the turn's log: ${re}\n${r.stderr.slice(-3000)}`);
  // the engine ran the turn: its recall was skipped (nothing answers), and it says why
  assert.match(r.stderr, /\[openviking\] recall skipped: OpenViking unreachable at http:\/\/127\.0\.0\.1:\d+ .* — fix: check baseUrl/);

  const doctor = await openclaw(t, dir, ["openviking", "doctor", "--json"]);
  const d = JSON.parse(doctor.stdout);
  assert.deepEqual(d.config.problems.map((p) => [p.key, p.severity, p.value]), [
    ["recalLimit", "warning", 3], ["timeoutMs", "warning", "ten"], ["recallLimit", "warning", 500],
  ]);
  assert.equal(d.config.resolved.recallLimit, 100, "the engine runs with the clamped value");
  const human = await openclaw(t, dir, ["openviking", "doctor"]);
  assert.match(human.stdout, /\[warn\] config recallLimit: recallLimit=500 is above the maximum 100; using 100\n {9}fix: set recallLimit to a whole number from 1 to 100 \(default 6\)/);
  for (const l of human.stdout.split("\n")) t.diagnostic(`| ${l}`);
});

test("hard mistakes (baseUrl without a scheme, a file as stateDir, an unset ${VAR}, no port): one INVALID_CONFIG line naming the key, the turn runs on OpenClaw's engine, no stall; doctor names each", { timeout: 600_000 }, async (t) => {
  const file = path.join(scratchDir("oc-cfg-file-"), "state-is-a-file");
  dirs.push(path.dirname(file));
  fs.writeFileSync(file, "not a folder");
  const cases = [
    [{ mode: "remote", baseUrl: "127.0.0.1:19944" }, "baseUrl", /baseUrl "127\.0\.0\.1:19944" has no http:\/\/ or https:\/\/ in front: OpenViking cannot be reached at it — fix: set baseUrl to "http:\/\/127\.0\.0\.1:19944"/],
    [{ mode: "remote", baseUrl: "http://127.0.0.1:9", stateDir: file }, "stateDir", /stateDir ".*state-is-a-file" cannot hold the plugin's outbox and state: a file is in the way \(it is not a folder\); no turn is stored until it can — fix: set stateDir to a folder this user can write/],
    [{ mode: "remote", baseUrl: "http://127.0.0.1:9", apiKey: "${OV_E2E_UNSET_KEY}" }, "apiKey", /apiKey refers to \$\{OV_E2E_UNSET_KEY\}, which is not set in this process's environment — fix: export OV_E2E_UNSET_KEY/],
    [{ port: 70000 }, "port", /port=70000 is not a TCP port \(a whole number from 1 to 65535\) — fix: set port to the port of the local openviking-server/],
  ];
  for (const [config, key, said] of cases) {
    const dir = home({ ...config, hookFallback: false });
    const r = await turn(t, dir, `hard-${key}`, "Which editor theme do I prefer for long sessions?");
    assert.equal(r.code, 0, `${key}: the turn runs (OpenClaw's built-in engine): exit ${r.code}\n${r.stderr.slice(-3000)}`);
    const ours = lines(r.stderr, /\[openviking\] INVALID_CONFIG/);
    assert.equal(ours.length, 1, `${key}: one line\n${r.stderr.slice(-3000)}`);
    assert.match(ours[0], said);
    assert.match(r.stderr, /Context engine "openviking" degraded to "legacy" for this logical turn: INVALID_CONFIG/, "OpenClaw says which engine ran the turn, and why");
    assert.doesNotMatch(r.stderr, /AggregateError|failed during register|plugin load failed/);
    assert.ok(r.ms < 60_000, `${key}: no stall (${r.ms} ms)`);

    const doctor = await openclaw(t, dir, ["openviking", "doctor"]);
    assert.equal(doctor.code, 1, doctor.stdout);
    assert.match(doctor.stdout, new RegExp(`\\[FAIL\\] config ${key}: `));
    assert.match(doctor.stdout, /\[FAIL\] host uses the engine \(the engine's verdict\): no — the engine refuses to start while the plugin config has errors/);
    if (key === "baseUrl") {
      // (status reads the same verdict as doctor: asked once)
      const status = await openclaw(t, dir, ["openviking", "status"]);
      assert.equal(status.code, 1);
      assert.match(status.stdout, /^OpenViking status: the plugin config has errors — the context engine is off until they are fixed\n {2}\[error\] /);
    }
    t.diagnostic(`${key}: ${ours[0]}`);
  }
});

test("local mode as the README sets it up: with the key's variable not set yet, doctor still checks configPath and the server binary; `setup` writes ov.conf, starts the server, makes a user key and writes it where OpenClaw reads it; a turn is stored, a memory the model stored in it is recalled in the next session's turn, and every check passes", { timeout: 420_000 }, async (t) => {
  const port = await freePort();
  const missing = home({ port, configPath: "/nonexistent/ov.conf" });
  const doctor = await openclaw(t, missing, ["openviking", "doctor", "--json"]);
  const cfg = doctor.json.checks.find((c) => c.id === "local-config");
  assert.equal(cfg.status, "fail");
  assert.equal(cfg.detail, "configPath /nonexistent/ov.conf does not exist: the plugin cannot start openviking-server");
  assert.match(cfg.fix, /set configPath to yours/);
  const lock = doctor.json.checks.find((c) => c.id === "local-lock");
  assert.equal(lock.status, "ok");

  // the harness gives the loopback embedding and LLM stand-in; its own server is stopped: the
  // plugin's setup writes an ov.conf of its own and starts a server on it
  const ov = await startHarness();
  let stateDir = null;
  try {
    harnessCommand(ov, "kill-server");
    const lport = await freePort();
    const bare = { PATH: "/usr/bin:/bin" }; // no openviking-server on it
    const withBin = { ...bare, OPENVIKING_SERVER_BIN: SERVER_BIN };
    const checks = async (dir, env) => {
      const r = await openclaw(t, dir, ["openviking", "doctor", "--json"], env);
      return Object.fromEntries(r.json.checks.map((c) => [c.id, c]));
    };
    // the README's plugin config: the key from a variable that is not set yet (the engine is off)
    // (configPath: the default, ~/.openviking/ov.conf under this scratch home)
    const dir = home({ apiKey: "${OPENVIKING_API_KEY}", port: lport, hookFallback: false }, "oc-local-");
    stateDir = path.join(dir, "state/plugins/openviking");
    let by = await checks(dir, bare);
    assert.equal(by.config.status, "fail", "the unset variable is named");
    assert.equal(by["local-config"].status, "fail", "and the local checks still run");
    assert.match(by["local-config"].detail, /does not exist/);
    assert.equal(by["local-bin"].status, "fail");
    assert.match(by["local-bin"].fix, /pip install openviking==0\.5\.2/);
    assert.match(by["local-key"]?.fix ?? by["local-key"]?.detail ?? "", /needs a readable configPath|setup/);

    const flags = ["--embedding-url", `${ov.env.standinUrl}/v1`, "--embedding-key", "standin", "--embedding-model", "standin-embed", "--embedding-dimension", String(ov.env.embeddingDim),
      "--vlm-url", `${ov.env.standinUrl}/v1`, "--vlm-key", "standin", "--vlm-model", "standin-chat"];
    const setup = await openclaw(t, dir, ["openviking", "setup", "--json", ...flags], withBin);
    for (const l of setup.stdout.split("\n").slice(0, 60)) t.diagnostic(`| ${l}`);
    assert.equal(setup.code, 0, `${setup.stdout.slice(0, 3000)}\n${setup.stderr.slice(-2000)}`);
    assert.deepEqual(setup.json.steps.map((s) => [s.id, s.status]), [["ov-conf", "done"], ["server-bin", "ok"], ["server", "ok"], ["key", "done"], ["env", "done"]]);
    assert.equal(setup.json.doctor.ok, true, "setup ends with doctor, every check passing");
    const envFile = path.join(dir, "state", ".env");
    assert.equal(setup.json.envFile, envFile);
    const key = /^OPENVIKING_API_KEY=(.+)$/m.exec(fs.readFileSync(envFile, "utf8"))?.[1];
    assert.ok(key && key.length > 10, "the key is in OpenClaw's .env");
    assert.equal(fs.statSync(envFile).mode & 0o777, 0o600);
    const conf = JSON.parse(fs.readFileSync(setup.json.configPath, "utf8"));
    assert.equal(fs.statSync(setup.json.configPath).mode & 0o777, 0o600);
    for (const out of [setup.stdout, setup.stderr]) {
      assert.ok(!out.includes(key), "the user key is never printed");
      assert.ok(!out.includes(conf.server.root_api_key), "nor the root key");
    }
    // a second run changes nothing it need not: the ov.conf kept, the key made anew
    const again = await openclaw(t, dir, ["openviking", "setup", "--json"], withBin);
    assert.equal(again.code, 0, again.stdout.slice(0, 2000));
    assert.equal(again.json.steps[0].status, "ok");
    assert.match(again.json.steps.find((s) => s.id === "key").detail, /made anew/);

    // OpenClaw reads the key from its .env: a turn is stored, and doctor passes
    const n0 = fm.requests.length;
    const r = await runTurn({ dir, sessionId: "loc", message: "remember that the billing service runs on Postgres 16", timeoutMs: 120_000, env: withBin });
    t.diagnostic(`local turn: exit=${r.code} wall=${r.ms}ms`);
    assert.equal(r.code, 0, r.stderr.slice(-3000));
    assert.doesNotMatch(r.stderr, /INVALID_CONFIG/);
    const flush = await openclaw(t, dir, ["openviking", "flush"], withBin);
    assert.equal(flush.code, 0, flush.stdout);
    const userKey = /^OPENVIKING_API_KEY=(.+)$/m.exec(fs.readFileSync(envFile, "utf8"))[1];
    const client = createClient({ baseUrl: `http://127.0.0.1:${lport}`, apiKey: userKey, agentId: "main" });
    const stored = await storedMessages(client, "main--loc");
    assert.ok(stored.some((m) => m.role === "user" && JSON.stringify(m).includes("Postgres 16")), "the turn is in OpenViking");
    const told = fm.requests.slice(n0).at(-1).body.messages.filter((m) => m.role === "tool").map((m) => textOf(m.content)).join("\n");
    assert.match(told, /"stored":true/, `the model's memory_store wrote the memory to the local server: ${told.slice(0, 400)}`);

    // the next session's turn: the memory is recalled into what the model sees
    const n1 = fm.requests.length;
    const next = await runTurn({ dir, sessionId: "loc-next", message: "Which database does the billing service use?", timeoutMs: 120_000, env: withBin });
    assert.equal(next.code, 0, next.stderr.slice(-3000));
    const msgs = fm.requests[n1].body.messages;
    const callId = msgs.flatMap((m) => m.tool_calls ?? []).find((c) => c.function?.name === "memory_recall_auto")?.id;
    const recalled = msgs.find((m) => m.role === "tool" && callId && m.tool_call_id === callId);
    assert.ok(recalled && /Postgres 16/.test(textOf(recalled.content)), `recalled in the next session: ${JSON.stringify(msgs).slice(0, 1500)}`);
    t.diagnostic(`recalled: ${textOf(recalled.content).slice(0, 200)}`);

    const all = await openclaw(t, dir, ["openviking", "doctor"], withBin);
    assert.equal(all.code, 0, all.stdout);
    assert.match(all.stdout, /^OpenViking doctor: all checks passed/);
    for (const l of all.stdout.split("\n")) t.diagnostic(`| ${l}`);

    // the README's local mode is that command
    const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
    const local = readme.slice(readme.indexOf("\n## Local mode"), readme.indexOf("\n## Configuration"));
    assert.match(local, /openclaw openviking setup/);
  } finally {
    if (stateDir) await stopLocalServer({ stateDir, graceMs: 5000 }).catch(() => {});
    await ov.stop();
  }
});

test("against a real OpenViking: a refused key fails status and skips recall (trace, turn log), each with its fix; a good key is reachable and searched", { timeout: 600_000 }, async (t) => {
  const ov = await startHarness();
  try {
    const wrong = home({ mode: "remote", baseUrl: ov.env.baseUrl, apiKey: "wrong-key-e2e-0123456789", hookFallback: false }, "oc-key-");
    const r = await turn(t, wrong, "kr", "We decided the billing service runs on Postgres 16.");
    assert.equal(r.code, 0, r.stderr.slice(-3000));
    const skipped = lines(r.stderr, /\[openviking\] recall skipped/);
    assert.equal(skipped.length, 1, r.stderr.slice(-3000));
    assert.match(skipped[0], /recall skipped: OpenViking refused the API key \(.*401 UNAUTHENTICATED.*\) — fix: set apiKey under plugins\.entries\.openviking\.config \(or \$OPENVIKING_API_KEY\) to a user key of this server/);

    const status = await openclaw(t, wrong, ["openviking", "status"]);
    assert.equal(status.code, 1, status.stdout);
    assert.match(status.stdout, /health\s+reachable, version 0\.5\./);
    assert.match(status.stdout, /KEY REFUSED: OpenViking refused the API key \(OpenViking answered GET \/api\/v1\/system\/status with HTTP 401 UNAUTHENTICATED/);
    assert.match(status.stdout, /fix: set apiKey under plugins\.entries\.openviking\.config/);
    assert.doesNotMatch(status.stdout, /user unknown/);
    const trace = await openclaw(t, wrong, ["openviking", "trace", "--session", "kr"]);
    assert.match(trace.stdout, /Memories: recall SKIPPED — OpenViking refused the API key/);
    assert.doesNotMatch(trace.stdout, /0 injected, 0 cut/);
    for (const l of [...status.stdout.split("\n"), ...trace.stdout.split("\n")]) t.diagnostic(`| ${l}`);
    for (const out of [r.stdout, r.stderr, status.stdout, status.stderr, trace.stdout]) assert.ok(!out.includes("wrong-key-e2e-0123456789"), "the key is never printed");

    const good = home({ mode: "remote", baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, hookFallback: false }, "oc-key-");
    const g = await turn(t, good, "ok", "We decided the billing service runs on Postgres 16.");
    assert.equal(g.code, 0);
    assert.doesNotMatch(g.stderr, /recall skipped/);
    const st = await openclaw(t, good, ["openviking", "status", "--json"]);
    assert.equal(st.code, 0, st.stdout);
    assert.equal(st.json.openviking.state, "ok");
    assert.equal(st.json.identity.userId, ov.env.userId);
    const tr = await openclaw(t, good, ["openviking", "trace", "--session", "ok", "--json"]);
    assert.equal(tr.json.trace.recallStatus.state, "searched");
    assert.match(tr.json.trace.recallStatus.line, /^searched user and agent memories: /);

    // `/openviking status` sent as a CLI message (the host gives it to the agent run, not to
    // its command dispatcher): the plugin's before_agent_reply answers it — no model call, no
    // turn stored in OpenViking
    const client = createClient({ baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, agentId: "main" });
    assert.equal((await openclaw(t, good, ["openviking", "flush"])).code, 0, "the turn before is in OpenViking");
    const storedBefore = (await storedMessages(client, "main--ok")).length;
    const calls = fm.requests.length;
    const cmd = await turn(t, good, "ok", "/openviking status");
    assert.equal(cmd.code, 0, cmd.stderr.slice(-3000));
    assert.equal(fm.requests.length, calls, "the model is not called");
    const answer = cmd.json.payloads.map((p) => p.text).join("\n");
    assert.match(answer, /^OpenViking status\n {2}server {5}http:\/\/127\.0\.0\.1:\d+ \(remote mode\)\n {2}health {5}reachable, version 0\.5\./);
    assert.match(answer, /main--ok/);
    const after = await storedMessages(client, "main--ok");
    assert.equal(after.length, storedBefore, "the command is not stored as a turn");
    assert.ok(!after.some((m) => JSON.stringify(m).includes("/openviking")));
    for (const l of answer.split("\n")) t.diagnostic(`/openviking status | ${l}`);

    // without hooks.allowConversationAccess OpenClaw never calls that hook: the text is an
    // ordinary message — the model answers it and the engine stores it like any turn
    const closed = home({ mode: "remote", baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, hookFallback: false }, "oc-key-",
      { plugins: { entries: { openviking: { hooks: { allowConversationAccess: false } } } } });
    const calls2 = fm.requests.length;
    const plain = await turn(t, closed, "closed", "/openviking status");
    assert.equal(plain.code, 0, plain.stderr.slice(-3000));
    assert.ok(fm.requests.length > calls2, "the model is called");
    assert.match(plain.json.payloads.map((p) => p.text).join("\n"), /FAKE-ANSWER: \/openviking status/);
    const stored = await storedMessages(client, "main--closed");
    assert.ok(stored.some((m) => m.role === "user" && JSON.stringify(m).includes("/openviking status")), "stored as the user's turn");
  } finally {
    await ov.stop();
  }
});

test("`/openviking status` in a chat through a gateway (chat.send, what the TUI, the Control UI and channels use): OpenClaw's command dispatcher hands it to the plugin's command — no model call, even without the hook permission", { timeout: 300_000 }, async (t) => {
  const port = await freePort();
  const dir = scratchDir("oc-gw-cmd-");
  dirs.push(dir);
  writeConfig({ dir, modelUrl: `${fm.url}/v1`, plugin: { path: PLUGIN, id: "openviking", config: { mode: "remote", baseUrl: `http://127.0.0.1:${await freePort()}`, hookFallback: false } },
    extra: { ...gatewayConfig({ dir, port }), plugins: { entries: { openviking: { hooks: { allowConversationAccess: false } } } } } });
  const env = { OPENCLAW_GATEWAY_TOKEN: randomBytes(24).toString("hex") };
  const gw = await startGateway({ dir, port, env });
  try {
    const calls = fm.requests.length;
    const key = "agent:main:main";
    const send = await openclaw(t, dir, ["gateway", "call", "chat.send", "--params", JSON.stringify({ sessionKey: key, message: "/openviking status", idempotencyKey: `cmd-${Date.now()}` }), "--json"], env);
    assert.equal(send.code, 0, send.stderr.slice(-2000));
    let text = "";
    for (let i = 0; i < 40 && !/OpenViking status/.test(text); i++) {
      await new Promise((r) => setTimeout(r, 1000));
      const h = await runCli({ dir, args: ["gateway", "call", "chat.history", "--params", JSON.stringify({ sessionKey: key, limit: 20 }), "--json"], env, timeoutMs: 60_000 });
      text = JSON.stringify(h.json?.messages ?? []);
    }
    assert.match(text, /OpenViking status\\n {2}server {5}http:\/\/127\.0\.0\.1:\d+ \(remote mode\)/, "the plugin's answer is in the chat");
    assert.equal(fm.requests.length, calls, "the model is not called");
  } finally {
    await gw.stop();
  }
});

