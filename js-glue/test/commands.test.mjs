// The operator commands (plugin/commands.js): `openclaw openviking <sub>` (api.registerCli)
// and `/openviking <sub>` (api.registerCommand), through a fake OpenClaw api that captures the
// registrations, over a runtime whose engines are real ContextEngines on an in-memory host
// (OpenViking + state dir, as in host-misbehaving.test.mjs). Human and JSON output of each
// subcommand; the API key never printed; another agent's sessions never listed.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadEngine } from "../../tests/support/packages.mjs"; // the test build (parseConfig is the page's)
import { agentFromSessionKey } from "../plugin/runtime.js";
import { registerCommands, machineOutput, parseChatArgs, hostDefaultAgent, chatCommandArgs } from "../plugin/commands.js";
import { fmtDuration, formatTrace } from "../plugin/commands-format.js";
import { createServer } from "node:net";
import plugin from "../index.js";
import { memoryHost } from "./support/memory-host.mjs";

const wasm = await loadEngine();
const { ContextEngine } = wasm;
const KEY = "sk-operator-SECRET-9f8e7d";
const HOST_CONFIG = {
  plugins: { slots: { contextEngine: "openviking" }, entries: { openviking: { enabled: true, hooks: { allowConversationAccess: true } } } },
};
/** A loopback port nothing listens on (free a moment ago). */
async function freePort() {
  const srv = createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

const outputs = []; // every text any command printed, for the key check at the end

/** The runtime's shape (plugin/runtime.js) with real engines over one in-memory host. */
function fakeRuntime({ mode = "remote", port, stateDir = "/tmp/ov-commands-test-state", keyLeaks = false, configPath = "/nowhere/ov.conf", localFacts, apiKey = KEY } = {}) {
  const host = memoryHost();
  const rawConfig = { mode, port, baseUrl: "http://127.0.0.1:1933", apiKey, compactTurnThreshold: 3, timeoutMs: 1000, stateDir, configPath };
  if (mode === "remote") delete rawConfig.port;
  if (apiKey === null) delete rawConfig.apiKey;
  const { config } = wasm.parseConfig(rawConfig, {});
  const agents = new Map();
  // the server as the probe sees it: down, or a careless proxy that echoes the key
  const server = {
    get down() {
      return host.down;
    },
    set down(v) {
      host.down = v;
    },
    finds: host.finds,
  };
  const userId = host.userId;
  host.userId = async () => {
    // the commands must still not print a key the server echoed
    if (keyLeaks) throw Object.assign(new Error(`bad key ${KEY}`), { code: "UNAUTHENTICATED", status: 401 });
    return userId();
  };
  function agent(sessionKey) {
    const agentId = agentFromSessionKey(sessionKey) ?? config.agentId;
    if (agents.has(agentId)) return agents.get(agentId);
    const engine = new ContextEngine({ ...rawConfig, agentId }, {}, host);
    const a = { agentId, engine, identity: () => engine.userId() };
    agents.set(agentId, a);
    return a;
  }
  return { wasm, config, rawConfig, stateDir, store: host, host, server, agents, agent, logger: { warn() {}, info() {} }, ensureServer: async () => true, localFacts };
}

/** Just enough of Commander for the registrar: command/description/option/action. */
class FakeCommand {
  constructor(name) {
    Object.assign(this, { name, subs: [], flags: [], fn: null, text: "" });
  }
  command(name) {
    const c = new FakeCommand(name);
    this.subs.push(c);
    return c;
  }
  description(text) {
    this.text = text;
    return this;
  }
  option(flags) {
    this.flags.push(flags);
    return this;
  }
  action(fn) {
    this.fn = fn;
    return this;
  }
}

/** A fake OpenClaw api that captures registrations. */
function fakeApi(extra = {}) {
  const api = { clis: [], commands: [], config: HOST_CONFIG, runtime: { version: "2026.9.6" }, ...extra };
  api.registerCli = (registrar, opts) => api.clis.push({ registrar, opts });
  api.registerCommand = (def) => api.commands.push(def);
  api.hooks = [];
  api.on = (name, handler, opts) => api.hooks.push({ name, handler, opts });
  return api;
}

/** Registers on a fake api; returns runners for both surfaces. */
function surfaces(runtime, { hostConfig = HOST_CONFIG } = {}) {
  const api = fakeApi();
  registerCommands(api, runtime, { pluginVersion: "0.1.0" });
  const program = new FakeCommand("openclaw");
  api.clis[0].registrar({ program, config: hostConfig, parentPath: [], logger: console });
  const root = program.subs.find((c) => c.name === "openviking");
  async function cli(sub, options = {}) {
    const cmd = root.subs.find((c) => c.name === sub);
    let out = "";
    const write = process.stdout.write;
    const code0 = process.exitCode; // the runner's own (1 once any test failed)
    process.exitCode = undefined;
    // the command writes strings; the test runner's own (serialized) reports pass through
    process.stdout.write = (chunk, ...rest) => (typeof chunk === "string" ? ((out += chunk), true) : write.call(process.stdout, chunk, ...rest));
    try {
      await cmd.fn(options, cmd);
    } finally {
      process.stdout.write = write;
    }
    const exitCode = process.exitCode;
    process.exitCode = code0;
    outputs.push(out);
    return { out, exitCode, json: options.json ? JSON.parse(out) : null };
  }
  async function chat(args, ctx = {}) {
    const r = await api.commands[0].handler({ args, commandBody: `/openviking ${args}`, channel: "test", isAuthorizedSender: true, config: hostConfig, ...ctx });
    outputs.push(r.text);
    return r.text;
  }
  return { api, root, cli, chat };
}

const said = (text) => [
  { role: "user", content: text, timestamp: Date.now() },
  { role: "assistant", content: [{ type: "text", text: `ok: ${text.slice(0, 20)}` }] },
];

/** One assembled + written turn of `sessionId` by the agent of `sessionKey`. */
async function turn(runtime, sessionKey, sessionId, text, key) {
  const a = runtime.agent(sessionKey);
  await a.engine.assemble({ sessionId, prompt: text, messages: [{ role: "user", content: text, timestamp: Date.now() }], tokenBudget: 20000 });
  return a.engine.writeTurn({ sessionId, sessionKey, advancementKey: key, messages: said(text) });
}

let rt;
before(async () => {
  rt = fakeRuntime();
  await turn(rt, "agent:main:a", "alpha", "Which editor theme do I prefer for long sessions?", "a1");
  await turn(rt, "agent:main:a", "alpha", "We decided to ship the billing service on Tuesdays.", "a2");
  await turn(rt, "agent:main:b", "beta", "What is the release train cadence again?", "b1");
  // another agent, on the same state dir and server, assembled last
  await new Promise((r) => setTimeout(r, 5));
  await turn(rt, "agent:other:g", "gamma", "Gamma-only secret plans for the other agent.", "g1");
});

test("both surfaces are registered: the CLI root with descriptors, the chat command, one tree per subcommand", () => {
  const { api, root } = surfaces(rt);
  assert.equal(api.clis.length, 1);
  const [d] = api.clis[0].opts.descriptors;
  assert.equal(d.name, "openviking");
  assert.equal(d.hasSubcommands, true);
  assert.equal(typeof d.machineOutput, "function");
  assert.equal(machineOutput({ argv: ["node", "openclaw", "openviking", "status", "--json"], stdoutIsTTY: false }), true);
  assert.equal(machineOutput({ argv: ["node", "openclaw", "openviking", "status"], stdoutIsTTY: true }), false);
  assert.deepEqual(root.subs.map((c) => c.name), ["status", "doctor", "flush", "trace", "import", "export", "setup"]);
  const imp = root.subs.find((c) => c.name === "import");
  for (const f of ["--apply", "--since <date>", "--until <date>", "--limit <n>", "--concurrency <n>", "--include-deleted", "--from <file>", "--agent <agentId>"]) assert.ok(imp.flags.includes(f), `import has ${f}`);
  const exp = root.subs.find((c) => c.name === "export");
  for (const f of ["--out <file>", "--force", "--agent <agentId>"]) assert.ok(exp.flags.includes(f), `export has ${f}`);
  for (const c of root.subs) {
    assert.ok(c.flags.includes("--json"), `${c.name} has --json`);
    assert.equal(c.flags.includes("--session <sessionId>"), !["doctor", "setup", "export"].includes(c.name));
  }
  assert.equal(api.commands.length, 1);
  assert.equal(api.commands[0].name, "openviking");
  assert.equal(api.commands[0].acceptsArgs, true);
  assert.equal(api.commands[0].requireAuth, true);
});

test("index.js registers the commands when the host offers them, and still loads without them", async () => {
  const stateDir = mkdtempSync(join(tmpdir(), "ov-cmd-index-"));
  try {
    const base = { pluginConfig: { mode: "remote", baseUrl: "http://127.0.0.1:1", apiKey: KEY, stateDir }, logger: { warn() {}, info() {} } };
    const seen = { engines: 0, tools: 0 };
    const core = { registerContextEngine: () => seen.engines++, registerTool: () => seen.tools++, on() {}, registerService() {} };
    const full = { ...fakeApi(), ...core, ...base, registrationMode: "full" };
    full.registerCli = (registrar, opts) => full.clis.push({ registrar, opts });
    full.registerCommand = (def) => full.commands.push(def);
    plugin.register(full);
    assert.equal(full.clis.length, 1);
    assert.equal(full.commands.length, 1);
    assert.equal(seen.engines, 1);

    // an older host: no registerCli / registerCommand — the plugin loads as before
    const old = { ...core, ...base };
    assert.doesNotThrow(() => plugin.register(old));
    assert.equal(seen.engines, 2);

    // OpenClaw's cli-metadata pass: the runtime is unavailable (reading it throws); only the CLI root is declared
    const meta = { clis: [], registrationMode: "cli-metadata", pluginConfig: base.pluginConfig, registerContextEngine: () => assert.fail("no engine in cli-metadata") };
    Object.defineProperty(meta, "runtime", { get() { throw new Error("runtime unavailable during cli-metadata"); } });
    meta.registerCli = (registrar, opts) => meta.clis.push({ registrar, opts });
    plugin.register(meta);
    assert.equal(meta.clis.length, 1);
    assert.equal(meta.clis[0].opts.descriptors[0].name, "openviking");
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
});

test("status: OpenViking, identity and every session of this agent (never another agent's) — human and --json", async () => {
  const { cli } = surfaces(rt);
  const human = await cli("status");
  assert.equal(human.exitCode, undefined, human.out);
  assert.match(human.out, /health\s+reachable, version 0\.5\.2/);
  assert.match(human.out, /identity\s+user alice, agent main/);
  assert.match(human.out, /main--alpha {2}\(session alpha\)/);
  assert.match(human.out, /main--beta {2}\(session beta\)/);
  assert.match(human.out, /turns stored\s+2 \(in OpenViking\)/);
  assert.match(human.out, /turns +2 of 3 turns since the first turn \(no commit yet\)/, "trigger progress, counted from the first turn before any commit");
  assert.match(human.out, /last commit\s+never/);
  assert.doesNotMatch(human.out, /since the last commit/, "not beside \"last commit never\"");
  assert.match(human.out, /next commit\s+nothing due; the interval trigger is due/);
  assert.match(human.out, /last assembled\s+\d{4}-\d\d-\d\d .* ago\) \(this process\)/);
  assert.doesNotMatch(human.out, /gamma|other--/);

  const { json } = await cli("status", { json: true });
  assert.equal(json.command, "status");
  assert.equal(json.openviking.reachable, true);
  assert.equal(json.openviking.version, "0.5.2");
  assert.deepEqual(json.identity, { userId: "alice", agentId: "main", error: null, denied: false });
  assert.equal(json.openviking.state, "ok");
  assert.deepEqual(json.sessions.map((s) => s.ovSessionId), ["main--alpha", "main--beta"]);
  const alpha = json.sessions[0];
  assert.equal(alpha.turnsStored, 2);
  assert.equal(alpha.outboxDepth, 0);
  assert.equal(alpha.known, true);
  assert.ok(alpha.triggers.some((t) => t.kind === "turns" && t.current === 2 && t.threshold === 3));
  assert.ok(Number.isFinite(alpha.lastAssembledAtMs));

  // one session; and the other agent's session id handed to this agent is not the other's session
  const one = await cli("status", { json: true, session: "beta" });
  assert.deepEqual(one.json.sessions.map((s) => s.ovSessionId), ["main--beta"]);
  const foreign = await cli("status", { json: true, session: "other--gamma" });
  assert.equal(foreign.json.sessions.length, 1);
  assert.notEqual(foreign.json.sessions[0].ovSessionId, "other--gamma");
  assert.equal(foreign.json.sessions[0].turnsStored, 0);
  assert.equal(foreign.json.sessions[0].known, false);
  const asOther = await cli("status", { json: true, agent: "other" });
  assert.deepEqual(asOther.json.sessions.map((s) => s.ovSessionId), ["other--gamma"], "--agent picks the agent");
});

test("status with OpenViking down: reported (exit 1), sessions still read from the state dir", async () => {
  rt.server.down = true;
  try {
    const { cli } = surfaces(rt);
    const r = await cli("status");
    assert.equal(r.exitCode, 1);
    assert.match(r.out, /health\s+NOT reachable: OpenViking unreachable/);
    assert.match(r.out, /main--alpha/);
  } finally {
    rt.server.down = false;
  }
});

test("trace: the last assembled turn — query, both scopes, each memory injected or cut with its reason, the token split", async () => {
  const { cli } = surfaces(rt);
  const { json } = await cli("trace", { json: true });
  assert.equal(json.ovSessionId, "main--beta", "this agent's latest (the other agent's newer turn is not picked)");
  assert.equal(json.sessionId, "beta");
  const t = json.trace;
  assert.match(t.query.query, /release train/);
  assert.ok(t.scopes.user && t.scopes.agent, "both scopes");
  assert.ok(t.recall.explain.some((e) => e.decision === "kept"));
  assert.ok(t.recall.explain.some((e) => e.decision === "cut" && e.reason === "duplicate"));
  assert.equal(t.split.recall, t.recall.tokens);

  const human = (await cli("trace", { session: "alpha" })).out;
  assert.match(human, /OpenViking trace of main--alpha {2}\(session alpha\)/);
  assert.match(human, /Query\n {2}.*billing service/);
  assert.match(human, /used · prompt: We decided to ship the billing service/);
  assert.match(human, /Scopes searched\n {2}user {3}\S+\n {2}agent {2}\S+/);
  // "We decided …" names an event: the engine's intent note says how the user scope was searched
  assert.match(human, /Memories: searched \(intent: events only\), 3 found: 2 injected, 1 cut \(duplicate 1\); \d+ of \d+ recall tokens/);
  assert.equal(json.trace.recallStatus.state, "searched");
  assert.match(human, /kept #1 .*total 1\.\d\d = score 0\.90 \+ level \+0\.12/);
  assert.match(human, /cut: duplicate .*\n.*\n {6}duplicate of /);
  assert.match(human, /Tokens\n {2}total\s+\d+ of 20000 \(host budget\)/);
  assert.match(human, /raw turns\s+\d+ recent turns? kept raw/);

  const none = await cli("trace", { json: true, session: "never-assembled" });
  assert.equal(none.json.trace, null);
  assert.match((await cli("trace", { session: "never-assembled" })).out, /no assembled turn known yet/);
});

test("trace on a state dir that did not assemble the turn: rebuilt from OpenViking — the last stored turn's question and the memories it was shown", async () => {
  const other = fakeRuntime();
  await turn(other, "agent:main:d", "delta", "Which editor theme do I prefer for long sessions?", "d1");
  const shown = (await other.agent("agent:main:d").engine.trace("main--delta")).recall.memories.map((m) => m.uri);
  other.host.forgetStateDir();
  other.agents.clear(); // the next process, or another machine
  const { cli } = surfaces(other);
  const { json } = await cli("trace", { json: true, session: "delta" });
  assert.deepEqual(json.trace.rebuilt, { turnId: "d1", archived: false, injectedUris: shown });
  const human = (await cli("trace", { session: "delta" })).out;
  assert.match(human, /OpenViking trace of main--delta .*— rebuilt from OpenViking/);
  assert.match(human, /the last stored turn \(d1\)/);
  assert.match(human, /Question\n {2}Which editor theme do I prefer for long sessions\?/);
  assert.match(human, new RegExp(`Memories shown with the turn: ${shown.length}\n {2}${shown[0].replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}`));
});

test("trace says when the engine's intent analysis found nothing to search for (an acknowledgement)", async () => {
  const r = fakeRuntime();
  await turn(r, "agent:main:k", "kappa", "Which editor theme do I prefer for long sessions?", "k1");
  await turn(r, "agent:main:k", "kappa", "ok thanks", "k2");
  const { cli } = surfaces(r);
  const { json } = await cli("trace", { json: true, session: "kappa" });
  assert.equal(json.trace.recallStatus.state, "not_needed");
  assert.match((await cli("trace", { session: "kappa" })).out, /Memories: not searched: the turn needs no recall \(an acknowledgement\)/);
});

test("flush: drains each session's outbox; reports written, still queued and why", async () => {
  const local = fakeRuntime();
  await turn(local, "agent:main:a", "delta", "A first turn while OpenViking answers.", "d1");
  local.host.down = true;
  const queued = await turn(local, "agent:main:a", "delta", "A second turn during the outage.", "d2");
  assert.equal(queued.queued, true);
  const { cli } = surfaces(local);

  const stuck = await cli("flush");
  assert.equal(stuck.exitCode, 1, "something is still queued");
  assert.match(stuck.out, /0 turns written, 1 turn still queued/);
  assert.match(stuck.out, /main--delta: 0 written, 1 still queued — .*ECONNREFUSED/);
  const stuckJson = await cli("flush", { json: true });
  assert.deepEqual(stuckJson.json.totals, { written: 0, queued: 1 });
  assert.equal(stuckJson.json.sessions[0].queued, 1);
  assert.match(stuckJson.json.sessions[0].reason, /ECONNREFUSED/);
  const delta = (await cli("status", { session: "delta" })).out;
  assert.match(delta, /outbox\s+1 turn waiting for OpenViking, oldest queued \d+ s ago/);
  assert.match(delta, /turns stored\s+\d+: \d+ in OpenViking, 1 in the outbox \(below\)/, "where each stored turn is");

  local.host.down = false;
  const done = await cli("flush", { json: true, session: "delta" });
  assert.equal(done.exitCode, undefined);
  assert.deepEqual(done.json.totals, { written: 1, queued: 0 });
  assert.deepEqual(done.json.sessions.map((s) => [s.ovSessionId, s.written, s.queued, s.reason]), [["main--delta", 1, 0, null]]);
  assert.match((await cli("flush")).out, /0 turns written, 0 turns still queued\n {2}main--delta: 0 written, 0 still queued/);
  assert.equal(local.host.sessions.get("main--delta").filter((m) => m.role === "user").length, 2, "both turns stored once");
});

test("memory changes queued during an outage: status counts them, flush applies them first and exits 1 while they wait", async () => {
  const local = fakeRuntime();
  await turn(local, "agent:main:a", "echo", "A first turn while OpenViking answers.", "e1");
  const written = [];
  local.host.writeText = async (uri, content) => void written.push([uri, content]);
  local.host.down = true;
  const out = await local.agent("agent:main:a").engine.runTool("memory_store", { text: "The on-call phone is in the drawer" });
  assert.equal(out.status, "queued", JSON.stringify(out));
  const { cli } = surfaces(local);
  assert.match((await cli("status")).out, /memory changes queued during an outage: 1 \(applied when OpenViking is back/);
  const stuck = await cli("flush", { json: true });
  assert.equal(stuck.exitCode, 1, "a memory change still waits");
  assert.deepEqual([stuck.json.memory.applied, stuck.json.memory.queued], [0, 1]);
  local.host.down = false;
  const done = await cli("flush");
  assert.equal(done.exitCode, undefined);
  assert.match(done.out, /memory changes \(queued during an outage\): 1 applied, 0 still queued/);
  assert.deepEqual(written, [[out.uri, "The on-call phone is in the drawer"]], "stored once, where the tool said");
  assert.doesNotMatch((await cli("status")).out, /memory changes queued/);
});

test("flush and doctor send now, whatever the pause of a server that stopped answering says", async () => {
  const local = fakeRuntime();
  await turn(local, "agent:main:a", "fox", "A first turn while OpenViking answers.", "f1");
  const answer = local.host.request;
  const sent = [];
  let silent = true;
  local.host.request = (req) => {
    sent.push(new URL(req.url).pathname);
    return silent ? Promise.reject(Object.assign(new Error("no answer within 1000 ms"), { kind: "timeout" })) : answer(req);
  };
  // a turn meets the silence (the engine pauses); the next turn sends nothing
  assert.equal((await turn(local, "agent:main:a", "fox", "A turn while it is silent.", "f2")).queued, true);
  const before = sent.length;
  assert.equal((await turn(local, "agent:main:a", "fox", "Another turn in the pause.", "f3")).queued, true);
  assert.equal(sent.length, before, "in the pause nothing is sent");
  const { cli } = surfaces(local);
  // doctor: its checks go out (the key's too, which the pause would have held back)
  const doc = await cli("doctor", { json: true });
  const asked = sent.slice(before);
  assert.deepEqual(asked, ["/health", "/api/v1/system/status"], "the find needs the user the key check names");
  assert.ok(!JSON.stringify(doc.json).includes("did not answer lately"), "no check reported as not sent");
  // flush: the server answers again; the pause would still hold, flush sends now
  silent = false;
  const flushed = await cli("flush", { json: true });
  assert.deepEqual(flushed.json.totals, { written: 2, queued: 0 }, JSON.stringify(flushed.json));
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
    writeFileSync(join(stateDir, `openviking-server.${port}.lock`), JSON.stringify({ pid: 2 ** 22 + 9, token: "t", createdAt: Date.now() - 1000, port }));
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
    writeFileSync(join(stateDir, `openviking-server.${port}.lock`), JSON.stringify({ pid: process.pid, token: "t", createdAt: Date.now() - 1000, port }));
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

test("the chat command: /openviking <sub> [json] for the current agent and session", async () => {
  const { chat } = surfaces(rt);
  const usage = await chat("");
  assert.match(usage, /\/openviking status \[--session <sessionId>\] \[json\]/);
  assert.match(await chat("frobnicate"), /unknown argument\(s\): frobnicate/);

  const text = await chat("status", { sessionKey: "agent:main:chat", sessionId: "alpha" });
  assert.match(text, /identity\s+user alice, agent main/);
  assert.match(text, /main--alpha/);
  assert.doesNotMatch(text, /gamma/);

  const fenced = await chat("status json", { sessionKey: "agent:main:chat" });
  assert.match(fenced, /^```json\n[\s\S]*\n```$/);
  const doc = JSON.parse(fenced.slice(8, -4));
  assert.deepEqual(doc.sessions.map((s) => s.ovSessionId), ["main--alpha", "main--beta"]);

  // trace defaults to the chat's own session, when it has an assembled turn
  const tr = JSON.parse((await chat("trace json", { sessionKey: "agent:main:chat", sessionId: "alpha" })).slice(8, -4));
  assert.equal(tr.ovSessionId, "main--alpha");
  assert.match(await chat("trace --session beta", { sessionKey: "agent:main:chat" }), /trace of main--beta/);

  // the other agent's chat sees only its own session
  const other = JSON.parse((await chat("status json", { sessionKey: "agent:other:chat" })).slice(8, -4));
  assert.deepEqual(other.sessions.map((s) => s.ovSessionId), ["other--gamma"]);
  assert.match(await chat("flush", { agentId: "other" }), /OpenViking flush \(agent other\): 0 turns written, 0 turns still queued\n {2}other--gamma/);
  const doctor = await chat("doctor", { sessionKey: "agent:main:chat" });
  assert.match(doctor, /OpenViking doctor: all checks passed/);
});

test("where the host sends `/openviking …` to the agent run (CLI --message, --local, openclaw chat), before_agent_reply answers it in place of the model; any other text is left to the model", async () => {
  const { api, chat } = surfaces(rt);
  const hooks = api.hooks.filter((h) => h.name === "before_agent_reply");
  assert.equal(hooks.length, 1);
  assert.deepEqual(hooks[0].opts, { eligibleTriggers: ["user"] });
  const reply = (cleanedBody, ctx = { sessionKey: "agent:main:chat", sessionId: "alpha", config: HOST_CONFIG }) => hooks[0].handler({ cleanedBody }, ctx);
  const claimed = await reply("/openviking status");
  assert.equal(claimed.handled, true);
  assert.match(claimed.reply.text, /identity\s+user alice, agent main/);
  const digitless = (t) => t.replace(/\d+/g, "#"); // latencies and ages move between two calls
  assert.equal(digitless(claimed.reply.text), digitless(await chat("status", { sessionKey: "agent:main:chat", sessionId: "alpha" })), "the same answer as the chat command");
  assert.match((await reply("  /openviking\n")).reply.text, /\/openviking status \[--session <sessionId>\] \[json\]/, "a bare /openviking answers its usage");
  for (const text of ["Tell me about /openviking status", "/openvikings status", "hello", "", undefined]) {
    assert.equal(await reply(text), undefined, `left to the model: ${JSON.stringify(text)}`);
  }
  assert.equal(chatCommandArgs("/openviking trace json"), "trace json");
  assert.equal(chatCommandArgs("/openviking"), "");
  assert.equal(chatCommandArgs("/openviking2"), null);
});

test("the API key is never printed, even when an error message carries it", async () => {
  const leaky = fakeRuntime({ keyLeaks: true });
  await turn(leaky, "agent:main:a", "alpha", "A turn so there is a session to show.", "k1");
  const { cli, chat } = surfaces(leaky);
  const texts = [];
  for (const sub of ["status", "doctor", "flush", "trace"]) {
    texts.push((await cli(sub)).out, (await cli(sub, { json: true })).out, await chat(`${sub} json`), await chat(sub));
  }
  const all = texts.join("\n");
  assert.match(all, /\[redacted\]/, "the leaked key was scrubbed");
  assert.match(all, /401 UNAUTHENTICATED/);
  assert.match(all, /API key\s+set \(not shown\)/);
  for (const out of [...outputs, ...texts]) assert.ok(!out.includes(KEY), `the key is in an output:\n${out.slice(0, 400)}`);
  assert.ok(!all.includes(KEY.slice(3)), "not even in part");
});

test("status and trace tell a refused key, a server still starting, a skipped recall and \"searched, found nothing\" apart", async () => {
  // the key refused (HTTP 401): status exits 1 and says so, with the fix; not "reachable, identity unknown"
  const refused = fakeRuntime();
  const deny = async () => {
    throw Object.assign(new Error("Invalid API Key"), { code: "UNAUTHENTICATED", status: 401 });
  };
  refused.host.userId = deny;
  refused.host.find = deny;
  await turn(refused, "agent:main:a", "kr", "Which editor theme do I prefer for long sessions?", "kr1");
  const r = surfaces(refused);
  const st = await r.cli("status");
  assert.equal(st.exitCode, 1, st.out);
  assert.match(st.out, /health\s+reachable, version 0\.5\.2/);
  assert.match(st.out, /identity\s+agent main\n\s+KEY REFUSED: OpenViking refused the API key \(OpenViking answered GET \/api\/v1\/system\/status with HTTP 401 UNAUTHENTICATED: Invalid API Key\)\n\s+fix: set apiKey under plugins\.entries\.openviking\.config \(or \$OPENVIKING_API_KEY\) to a user key of this server/);
  assert.doesNotMatch(st.out, /user unknown/);
  assert.equal((await r.cli("status", { json: true })).json.openviking.state, "key_refused");
  const tr = await r.cli("trace", { session: "kr" });
  assert.match(tr.out, /Scopes \(not searched: recall was skipped\)/);
  assert.match(tr.out, /Memories: recall SKIPPED — OpenViking refused the API key \(.*401 UNAUTHENTICATED.*\)\n {2}fix: set apiKey/);
  assert.doesNotMatch(tr.out, /0 injected, 0 cut/);

  // a local server still starting (the plugin saw a start under way): neither down nor fine
  const facts = { starting: true, failed: null, logPath: "/s/openviking-server.log" };
  const starting = fakeRuntime({ mode: "local", port: 19333, localFacts: () => facts });
  starting.host.down = true;
  starting.agent("agent:main:a").engine.noteLocalServer(facts);
  await turn(starting, "agent:main:a", "st", "Which editor theme do I prefer for long sessions?", "st1");
  const s2 = surfaces(starting);
  const st2 = await s2.cli("status");
  assert.equal(st2.exitCode, 1);
  assert.match(st2.out, /health\s+STARTING: the local OpenViking server on 127\.0\.0\.1:19333 is still starting \(nothing answers its \/health yet\)\n\s+fix: nothing to do: recall and the queued turns resume once it answers; if it never does, see \/s\/openviking-server\.log/);
  assert.match((await s2.cli("trace", { session: "st" })).out, /Memories: recall SKIPPED — the local OpenViking server on 127\.0\.0\.1:19333 is still starting/);
  const doc = Object.fromEntries((await s2.cli("doctor", { json: true })).json.checks.map((c) => [c.id, c]));
  assert.equal(doc.health.status, "warn", "starting is not a failure");

  // searched, found nothing
  const empty = fakeRuntime();
  empty.host.find = async () => ({ memories: [] });
  empty.host.readContent = async () => null; // no profile either
  await turn(empty, "agent:main:a", "nf", "Which editor theme do I prefer for long sessions?", "nf1");
  const nf = await surfaces(empty).cli("trace", { session: "nf" });
  assert.match(nf.out, /Scopes searched\n/);
  assert.match(nf.out, /Memories: searched, nothing found \(0 candidates\); 0 of 2000 recall tokens/);
  assert.equal((await surfaces(empty).cli("trace", { session: "nf", json: true })).json.trace.recallStatus.state, "searched");

  // recall skipped because nothing could be searched for
  await turn(empty, "agent:main:a", "nq", "ok", "nq1");
  assert.match((await surfaces(empty).cli("trace", { session: "nq" })).out, /Memories: nothing searched \(every user turn in the recall window was skipped\)/);
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

test("helpers: chat argument parsing, the host's default agent, durations", () => {
  assert.deepEqual(parseChatArgs("status --session abc json"), { sub: "status", json: true, session: "abc", help: false, unknown: [] });
  assert.deepEqual(parseChatArgs("trace session=s1"), { sub: "trace", json: false, session: "s1", help: false, unknown: [] });
  assert.equal(parseChatArgs("help").help, true);
  assert.equal(hostDefaultAgent({}), "main");
  assert.equal(hostDefaultAgent({ agents: { entries: { a: {}, b: { default: true } } } }), "b");
  assert.equal(hostDefaultAgent({ agents: { list: [{ id: "x" }, { id: "y" }] } }), "x");
  assert.equal(fmtDuration(3_000), "3 s");
  assert.equal(fmtDuration(303_000), "5 min 3 s");
  assert.equal(fmtDuration(7_500_000), "2 h 5 min");
  assert.equal(fmtDuration(3 * 86_400_000 + 4 * 3_600_000), "3 d 4 h");
});

test("trace text: the experiences the engine considered, kept with why and tokens, cut with the reason", () => {
  const trace = {
    atMs: 1000, query: { query: "deploy billing", parts: [] }, scopes: { user: "u", agent: "a" }, recallStatus: { state: "searched", found: 0, injected: 0, line: "searched" },
    recall: { explain: [], tokens: 80, experienceTokens: 58, experiences: [
      { uri: "viking://user/alice/memories/experiences/deploy.md", name: "deploy", score: 0.8, decision: "kept", reason: null, why: ["same_tools: exec", "same_task: deploy"], tokens: 58, position: 1 },
      { uri: "viking://user/alice/memories/experiences/bake.md", name: "bake", score: 0.7, decision: "cut", reason: "unrelated", why: [], tokens: null, position: null },
    ] },
    split: {}, estimatedTokens: 100,
  };
  const text = formatTrace({ agentId: "main", ovSessionId: "main--s", sessionId: "s", trace }, { now: 2000 });
  assert.match(text, /Experiences \(this agent's\): 1 injected, 58 tokens of the pair/);
  assert.match(text, /#1 kept deploy · same_tools: exec; same_task: deploy · 58 tokens/);
  assert.match(text, /cut \(unrelated\) bake/);
});
