// The operator commands (plugin/commands.js): `openclaw openviking <sub>` (api.registerCli)
// and `/openviking <sub>` (api.registerCommand), through a fake OpenClaw api that captures the
// registrations, over a runtime whose engines are real ContextEngines on an in-memory host
// (support/commands-fixture.mjs). Registration, status, trace, flush and the chat command,
// human and JSON; the API key never printed; another agent's sessions never listed. Doctor
// and the config's messages: doctor-and-config.test.mjs.
import { test, before } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { machineOutput, parseChatArgs, hostDefaultAgent, chatCommandArgs } from "../plugin/commands.js";
import { fmtDuration, formatTrace } from "../plugin/commands-format.js";
import plugin from "../index.js";
import {
  KEY,
  HOST_CONFIG,
  outputs,
  fakeRuntime,
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
