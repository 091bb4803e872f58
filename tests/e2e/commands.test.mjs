// The operator commands in REAL OpenClaw 2026.9.6: after one real `openclaw agent --local`
// turn (fake model, js-glue in the context-engine slot, a real OpenViking in remote mode),
// `openclaw openviking status|trace|flush|doctor --json` run through OpenClaw's own CLI
// (the plugin's api.registerCli), each in its own process as an operator would run them;
// `openclaw plugins inspect openviking --runtime --json` lists the CLI root and the chat
// command. The API key lives only in the scratch openclaw.json: never on argv, never printed.
// Run: node --test --test-concurrency=1 tests/e2e/commands.test.mjs (~1.5–3 min on 2 cores).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeModel } from "./fake-model.mjs";
import { writeConfig, runTurn, runCli, scratchDir, OPENCLAW_VERSION } from "./openclaw.mjs";
import { startHarness } from "../../js-glue/test/openviking/helpers.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const SESSION = "ops";
let fm, dir, ov;

before(async () => {
  ov = await startHarness();
  fm = await startFakeModel({});
  dir = scratchDir("oc-commands-");
  writeConfig({
    dir,
    modelUrl: `${fm.url}/v1`,
    plugin: {
      path: path.join(ROOT, "js-glue"),
      id: "openviking",
      config: { mode: "remote", baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, timeoutMs: 8000, hookFallback: false },
    },
  });
});

after(async () => {
  await fm?.close?.();
  await ov?.stop();
  if (dir && !process.env.OV_E2E_KEEP) fs.rmSync(dir, { recursive: true, force: true });
  else if (dir) console.log(`# kept ${dir}`);
});

/** `openclaw <args>`, with its wall time in the test's diagnostics. */
async function openclaw(t, args) {
  const r = await runCli({ dir, args, timeoutMs: 120_000 });
  t.diagnostic(`openclaw ${args.join(" ")}: exit=${r.code} wall=${r.ms}ms`);
  return r;
}

const ok = (r, what) => assert.equal(r.code, 0, `${what}: exit ${r.code}\nstdout:\n${r.stdout.slice(-2000)}\nstderr:\n${r.stderr.slice(-2000)}`);

function noKey(results) {
  for (const [what, r] of Object.entries(results)) {
    for (const secret of [ov.env.userKey, ov.env.rootKey].filter(Boolean)) {
      assert.ok(!r.stdout.includes(secret) && !r.stderr.includes(secret), `${what} printed an API key`);
    }
  }
}

test("after one real turn, `openclaw openviking status|trace|flush|doctor --json` report it through the engine", { timeout: 420_000 }, async (t) => {
  const turn = await runTurn({ dir, sessionId: SESSION, message: "We decided the billing service runs on Postgres 16.", timeoutMs: 150_000 });
  t.diagnostic(`turn exit=${turn.code} wall=${turn.ms}ms`);
  ok(turn, "the turn");
  const ovSession = `main--${SESSION}`;

  // read-only commands side by side (separate processes, one state dir), then the flush
  const [status, trace, doctor, inspect] = await Promise.all([
    openclaw(t, ["openviking", "status", "--json"]),
    openclaw(t, ["openviking", "trace", "--json"]),
    openclaw(t, ["openviking", "doctor", "--json"]),
    openclaw(t, ["plugins", "inspect", "openviking", "--runtime", "--json"]),
  ]);
  const flush = await openclaw(t, ["openviking", "flush", "--json", "--session", SESSION]);

  for (const [what, r] of Object.entries({ status, trace, doctor, flush })) {
    assert.doesNotThrow(() => JSON.parse(r.stdout), `${what} --json: stdout is one JSON document (host diagnostics go to stderr)`);
  }
  ok(status, "status");
  const s = status.json;
  assert.ok(s, `status printed JSON on stdout:\n${status.stdout.slice(0, 500)}`);
  assert.equal(s.command, "status");
  assert.equal(s.openviking.reachable, true);
  assert.match(s.openviking.version, /^0\.5\./);
  assert.equal(s.identity.userId, ov.env.userId);
  assert.equal(s.identity.agentId, "main");
  const mine = s.sessions.find((x) => x.ovSessionId === ovSession);
  assert.ok(mine, `the turn's session is listed: ${JSON.stringify(s.sessions.map((x) => x.ovSessionId))}`);
  assert.equal(mine.sessionId, SESSION);
  assert.equal(mine.turnsStored, 1);
  assert.equal(mine.outboxDepth, 0);
  assert.ok(mine.triggers.some((x) => x.kind === "turns" && x.current === 1));
  assert.equal(mine.lastAssembledAtMs, null, "assembled in the turn's process, not in this one");

  ok(trace, "trace");
  const tr = trace.json;
  assert.equal(tr.ovSessionId, ovSession);
  assert.ok(tr.trace, "the turn's assemble left a trace");
  assert.match(tr.trace.query.query, /Postgres 16/);
  assert.ok(tr.trace.scopes.user.includes(ov.env.userId) && tr.trace.scopes.agent, "both scopes searched");
  assert.ok(tr.trace.estimatedTokens > 0);
  assert.ok(tr.trace.split && typeof tr.trace.split.recall === "number", "the token split");

  ok(doctor, "doctor");
  const d = doctor.json;
  assert.equal(d.ok, true, JSON.stringify(d.checks.filter((c) => c.status === "fail")));
  assert.equal(d.host.version, OPENCLAW_VERSION, "the host version from api.runtime.version");
  assert.equal(d.config.apiKeySet, true);
  assert.ok(!("apiKey" in d.config.resolved));
  const by = Object.fromEntries(d.checks.map((c) => [c.id, c.status]));
  assert.deepEqual([by.config, by.slot, by.health, by.auth, by.find, by.state, by.local], ["ok", "ok", "ok", "ok", "ok", "ok", "skip"]);

  ok(flush, "flush");
  assert.deepEqual(flush.json.totals, { written: 0, queued: 0 });
  assert.deepEqual(flush.json.sessions.map((x) => [x.ovSessionId, x.queued]), [[ovSession, 0]]);

  ok(inspect, "plugins inspect");
  const p = inspect.json?.plugin ?? inspect.json;
  assert.ok(p.cliCommands.includes("openviking"), `the CLI root is listed: ${JSON.stringify(p.cliCommands)}`);
  assert.ok(p.commands.includes("openviking"), `the chat command is listed: ${JSON.stringify(p.commands)}`);
  assert.ok(p.contextEngineIds.includes("openviking"));

  // what a person sees (printed for the record), and the key in none of it
  const [human, humanTrace, humanDoctor, humanFlush] = await Promise.all([
    openclaw(t, ["openviking", "status"]),
    openclaw(t, ["openviking", "trace", "--session", SESSION]),
    openclaw(t, ["openviking", "doctor"]),
    openclaw(t, ["openviking", "flush"]),
  ]);
  ok(human, "status (human)");
  ok(humanTrace, "trace (human)");
  ok(humanDoctor, "doctor (human)");
  ok(humanFlush, "flush (human)");
  assert.match(humanDoctor.stdout, /^OpenViking doctor: all checks passed/);
  assert.match(humanDoctor.stdout, /API key\s+set \(not shown\)/);
  assert.match(humanFlush.stdout, new RegExp(`${ovSession}: 0 written, 0 still queued`));
  assert.match(human.stdout, new RegExp(`identity\\s+user ${ov.env.userId}, agent main`));
  assert.match(human.stdout, new RegExp(`${ovSession} {2}\\(session ${SESSION}\\)`));
  assert.match(humanTrace.stdout, /Scopes searched\n {2}user/);
  for (const r of [human, humanTrace, humanDoctor, humanFlush]) for (const line of r.stdout.split("\n")) t.diagnostic(`| ${line}`);
  noKey({ status, trace, doctor, flush, inspect, human, humanTrace, humanDoctor, humanFlush, turn });
});
