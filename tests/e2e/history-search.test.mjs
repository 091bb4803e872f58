// History search in real turns: OpenClaw 2026.9.6 (`openclaw agent --local`, one process per
// turn) with js-glue in the context-engine slot, a real OpenViking 0.5.2 (remote mode) and the
// loopback fake model.
//
// Three facts about "the vault" are told to agent `main` in three sessions on three different
// days in the past: each of those OpenClaw processes runs with its wall clock shifted back
// (tests/e2e/shift-clock.mjs, a test-only `--import` preload; OpenClaw stamps the messages
// with that day, the engine indexes the host's timestamps). A second agent `other` is told a
// vault fact on the same day as main's second one. Then, today, main's scripted model calls
// memory_search_history with since/until = that one day: only main's fact of that day comes
// back, with the turn id the engine recorded for it (read from the session record in the
// plugin's state dir), and its `expand` reference is accepted by memory_expand. The other
// agent's search returns only its own turn, and main's never returns the other's.
//
// Prints `# history-search: …` with the search latency (in the turn, and the engine alone
// against the same OpenViking and state dir). OV_E2E_KEEP=1 keeps the scratch dir.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startFakeModel, defaultScript, endsWithToolResult, lastQuestion, textOf } from "./fake-model.mjs";
import { writeConfig, runTurn, runCli, scratchDir, openclawAvailable } from "./openclaw.mjs";
import { startHarness } from "../../js-glue/test/openviking/helpers.mjs";
import { loadEngine } from "../../js-glue/wasm.js";
import { createStateStore } from "../../js-glue/state-store.js";
import { createEngineHost, createTransport } from "../../js-glue/engine-host.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "../..");
const PRELOAD = pathToFileURL(path.join(HERE, "shift-clock.mjs")).href;
const TURN_MS = 120_000;
const DAY = 86_400_000;

// [session, days ago, the fact] — the wall clock of each turn is shifted by `days ago`
const FACTS = [
  ["vault-mon", 3, "FACT: the vault code is 31-7-44."],
  ["vault-tue", 2, "FACT: the vault moved to the cellar behind the boiler."],
  ["vault-wed", 1, "FACT: the vault key hangs under the stairs."],
];
const OTHER = ["other-tue", 2, "FACT: the other vault holds the spare servers."];

let wasm, fm, ov, dir, stateDir;
const day = (daysAgo) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);

function script(req) {
  const q = lastQuestion(req);
  const read = /^READ (\S+)/.exec(q);
  if (read && !endsWithToolResult(req.messages ?? [])) return { toolCalls: [{ name: "read", arguments: { path: read[1] } }] };
  const m = /^SEARCH (\S+) ON (\S+)/.exec(q);
  if (m && !endsWithToolResult(req.messages ?? [])) {
    return { toolCalls: [{ name: "memory_search_history", arguments: { query: m[1], since: m[2], until: m[2] } }] };
  }
  return defaultScript(req);
}

before(async () => {
  wasm = await loadEngine();
  ov = await startHarness();
  fm = await startFakeModel({ script });
  dir = scratchDir("oc-history-");
  stateDir = path.join(dir, "plugin-state");
  writeConfig({
    dir,
    modelUrl: `${fm.url}/v1`,
    plugin: {
      path: path.join(ROOT, "js-glue"),
      id: "openviking",
      config: {
        mode: "remote", baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, timeoutMs: 15000, hookFallback: false,
        stateDir,
        compactTokensAddedThreshold: 10_000_000, compactTurnThreshold: 1000,
      },
    },
    extra: { agents: { list: [{ id: "main", default: true }, { id: "other" }] } },
  });
});
after(async () => {
  await fm?.close?.();
  await ov?.stop();
  if (process.env.OV_E2E_KEEP === "1") console.log(`# kept ${dir}`);
  else if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function turn(t, { sessionId, message, daysAgo = 0, agent = null }) {
  const n0 = fm.requests.length;
  const env = daysAgo ? { NODE_OPTIONS: `--import ${PRELOAD}`, OV_E2E_CLOCK_OFFSET_MS: String(-daysAgo * DAY) } : {};
  const args = agent ? ["--agent", agent] : [];
  const r = await runTurn({ dir, sessionId, message, timeoutMs: TURN_MS, env, args });
  const reqs = fm.requests.slice(n0);
  t.diagnostic(`turn ${agent ?? "main"}/${sessionId} (${daysAgo} days ago) exit=${r.code} wall=${r.ms}ms requests=${reqs.length}`);
  for (const line of `${r.stdout}\n${r.stderr}`.split("\n").filter((l) => /\[openviking\]/.test(l))) t.diagnostic(`  ${line.slice(0, 300)}`);
  assert.equal(r.code, 0, `exit ${r.code}; stderr tail:\n${r.stderr.slice(-3000)}`);
  assert.doesNotMatch(`${r.stdout}\n${r.stderr}`, /context engine is not in use/);
  return { ...r, reqs };
}

/** The tool result the model received for the turn's memory_search_history call. */
function searchResult(r) {
  const call = r.reqs[0]?.reply?.toolCalls?.[0];
  assert.equal(call?.name, "memory_search_history", `the model called the search (reply: ${JSON.stringify(r.reqs[0]?.reply).slice(0, 200)})`);
  assert.ok(r.reqs.length >= 2, "the model got the result");
  const msg = r.reqs[1].body.messages.filter((m) => m.role === "tool").at(-1);
  const text = textOf(msg?.content);
  try {
    return { call, doc: JSON.parse(text), ms: r.reqs[1].at - r.reqs[0].at };
  } catch {
    assert.fail(`the tool result is the search's JSON: ${text.slice(0, 500)}`);
  }
}

/** The turn ids the engine recorded for a session (its session record in the state dir). */
async function recordedTurnIds(store, ovSessionId) {
  const rec = await store.loadState(`session/${ovSessionId}`);
  assert.ok(rec, `a session record for ${ovSessionId}`);
  return rec.state?.windowTurnIds ?? rec.state?.window_turn_ids ?? [];
}

test("a history search with since/until finds only that day's fact with its turn id, and never another agent's turns", { timeout: 900_000 }, async (t) => {
  for (const [sessionId, daysAgo, message] of FACTS) await turn(t, { sessionId, daysAgo, message });
  await turn(t, { sessionId: OTHER[0], daysAgo: OTHER[1], message: OTHER[2], agent: "other" });

  const store = createStateStore(stateDir);
  const indexKeys = await store.listStateKeys("history/");
  t.diagnostic(`index documents: ${indexKeys.join(", ")}`);
  assert.deepEqual(indexKeys.map((k) => k.split("/")[1]).sort(), ["main--vault-mon", "main--vault-tue", "main--vault-wed", "other--other-tue"]);
  // the host's timestamps of the past days, not today's
  for (const [sessionId, daysAgo] of [...FACTS, OTHER]) {
    const agent = sessionId.startsWith("other") ? "other" : "main";
    const chunk = await store.loadState(indexKeys.find((k) => k.includes(`/${agent}--${sessionId}/`)));
    assert.equal(new Date(chunk.turns[0].timestampMs).toISOString().slice(0, 10), day(daysAgo), `${sessionId} is stamped ${daysAgo} days ago`);
  }
  const tueIds = await recordedTurnIds(store, "main--vault-tue");
  assert.equal(tueIds.length, 1, `one turn recorded in main--vault-tue: ${JSON.stringify(tueIds)}`);

  // ── today: main searches that one day
  const target = day(2);
  const r = await turn(t, { sessionId: "search-main", message: `SEARCH vault ON ${target}` });
  const { call, doc, ms: inTurnMs } = searchResult(r);
  t.diagnostic(`call ${JSON.stringify(call.arguments)} → ${JSON.stringify(doc).slice(0, 700)}`);
  assert.equal(doc.hits.length, 1, `only that day's fact: ${JSON.stringify(doc.hits)}`);
  const hit = doc.hits[0];
  assert.equal(hit.sessionId, "vault-tue");
  assert.equal(hit.ovSessionId, "main--vault-tue");
  assert.equal(hit.turnId, tueIds[0], "the turn id the engine recorded");
  assert.equal(hit.timestamp.slice(0, 10), target);
  assert.match(hit.excerpt, /vault moved to the cellar/);
  assert.equal(hit.expand.summaryOrMemoryUri, `viking://user/${ov.env.userId}/sessions/main--vault-tue`);
  assert.equal(doc.sessions, 3, "main's three sessions with facts (the search session's own turn is not indexed before it ends)");

  // ── the engine alone, over the same OpenViking and state dir: latency, expand, isolation
  const host = createEngineHost({ store, request: createTransport(), logger: { warn: () => {} } });
  const engineOf = (agentId) => new wasm.ContextEngine({ mode: "remote", baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, agentId }, {}, host);
  const main = engineOf("main");
  const expanded = await main.runTool("memory_expand", hit.expand);
  t.diagnostic(`memory_expand ${JSON.stringify(hit.expand)} → ${JSON.stringify(expanded).slice(0, 400)}`);
  assert.equal(expanded.live, true);
  assert.ok(expanded.excerpts.some((e) => e.text.includes("vault moved to the cellar") && e.turnId === tueIds[0]), "memory_expand reads the turn behind the hit, with its turn id");

  const all = await main.runTool("memory_search_history", { query: "vault", limit: 50 });
  // main's own sessions: the three facts and today's search turn (its question says "vault")
  assert.deepEqual(all.hits.map((h) => h.sessionId).sort(), ["search-main", "vault-mon", "vault-tue", "vault-wed"], "main finds its own turns");
  assert.ok(!JSON.stringify(all).includes("spare servers"), "never the other agent's turn");
  const times = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    const again = await main.runTool("memory_search_history", { query: "vault", since: target, until: target });
    times.push(performance.now() - t0);
    assert.equal(again.hits[0]?.turnId, tueIds[0]);
  }
  times.sort((a, b) => a - b);
  const regexT0 = performance.now();
  const byPattern = await main.runTool("memory_search_history", { pattern: String.raw`\d+-\d-\d+` });
  const regexMs = performance.now() - regexT0;
  assert.deepEqual(byPattern.hits.map((h) => h.sessionId), ["vault-mon"]);
  const thisSession = await main.runTool("memory_search_history", { query: "vault", scope: "session" }, { sessionId: "vault-wed" });
  assert.deepEqual(thisSession.hits.map((h) => h.sessionId), ["vault-wed"], "scope session: the conversation the tool runs in");

  // ── the other agent, in a real turn: only its own turn
  const ro = await turn(t, { sessionId: "search-other", message: `SEARCH vault ON ${target}`, agent: "other" });
  const other = searchResult(ro).doc;
  assert.deepEqual(other.hits.map((h) => h.ovSessionId), ["other--other-tue"], JSON.stringify(other.hits));
  assert.match(other.hits[0].excerpt, /spare servers/);
  const otherAll = await engineOf("other").runTool("memory_search_history", { query: "vault", limit: 50 });
  assert.ok(otherAll.hits.every((h) => h.ovSessionId.startsWith("other--")), JSON.stringify(otherAll.hits));
  await assert.rejects(engineOf("other").runTool("memory_expand", hit.expand), /summaryOrMemoryUri/, "main's reference is refused to the other agent");

  // for comparison: OpenViking's own grep over the user's sessions (what the engine does not
  // use: no turn ids, no host times, and it answers for every agent's sessions alike)
  const g0 = performance.now();
  const grep = await fetch(`${ov.env.baseUrl}/api/v1/search/grep`, {
    method: "POST",
    headers: { "content-type": "application/json", "X-API-Key": ov.env.userKey, "X-OpenViking-Agent": "main" },
    body: JSON.stringify({ uri: `viking://user/${ov.env.userId}/sessions`, pattern: "vault", case_insensitive: true }),
  }).then((r) => r.json()).catch((e) => ({ status: "error", error: String(e) }));
  const grepMs = performance.now() - g0;
  const grepText = JSON.stringify(grep);
  const grepSessions = [...new Set((grep.result?.matches ?? []).map((m) => /\/sessions\/([^/]+)/.exec(m.uri ?? "")?.[1]).filter(Boolean))].sort();
  t.diagnostic(`OpenViking grep: status=${grep.status} ${grepMs.toFixed(1)}ms sessions=${grepSessions.join(",")} ${grepText.slice(0, 300)}`);

  const line = `# history-search: sessions=3+1(other) hits=${doc.hits.length} inTurn=${inTurnMs}ms ` +
    `engine=median ${times[3].toFixed(1)}ms (min ${times[0].toFixed(1)}, max ${times[6].toFixed(1)}) engineReported=${doc.elapsedMs}ms pattern=${regexMs.toFixed(1)}ms ovGrep=${grep.status}/${grepMs.toFixed(1)}ms/${grepSessions.length}sessions`;
  console.log(line);
  t.diagnostic(line.slice(2));
});

// ── An agent's past from before the engine: four turns under OpenClaw 2026.9.6's built-in
// engine (a tool call with an 80 kB output among them, kept in its SQLite store), then the
// plugin is selected and `openclaw openviking import` brings them in: a dry run says what it
// would write, --apply writes each turn once, a rerun writes nothing, and a real turn's
// history search finds turn 2's fact. The JSONL transcript of a 2026.7.35 turn goes through
// the same importer (its CLI is not this plugin's host here: the files are read as written).
test("sessions from before the engine are imported once, in order, and found by history search", { timeout: 900_000 }, async (t) => {
  const past = scratchDir("oc-import-");
  try {
    const modelUrl = `${fm.url}/v1`;
    const big = path.join(past, "big.txt");
    fs.writeFileSync(big, "a line of the big file that the read tool returns\n".repeat(1600));
    writeConfig({ dir: past, modelUrl }); // OpenClaw's own engine
    const said = ["We decided the boat is called Kestrel.", "FACT: the boat's mooring is pier 9.", `READ ${big}`, "what is the boat called?"];
    for (const message of said) {
      const r = await runTurn({ dir: past, sessionId: "before-engine", message, timeoutMs: TURN_MS });
      assert.equal(r.code, 0, `built-in turn exit ${r.code}: ${r.stderr.slice(-2000)}`);
    }
    assert.ok(fs.existsSync(path.join(past, "state/agents/main/agent/openclaw-agent.sqlite")), "2026.9.6 keeps the session in its SQLite store");

    const pluginState = path.join(past, "plugin-state");
    writeConfig({
      dir: past, modelUrl,
      plugin: { path: path.join(ROOT, "js-glue"), id: "openviking", config: { mode: "remote", baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, timeoutMs: 15000, hookFallback: false, stateDir: pluginState, compactTurnThreshold: 3 } },
    });
    const cli = async (args) => {
      const r = await runCli({ dir: past, args: ["openviking", "import", "--json", "--session", "before-engine", ...args], timeoutMs: 300_000 });
      t.diagnostic(`import ${args.join(" ")} exit=${r.code} ${r.ms}ms ${r.stdout.slice(0, 600)}`);
      assert.ok(r.json, `a JSON report: ${r.stdout.slice(0, 500)} ${r.stderr.slice(-1500)}`);
      const s = r.json.sessions.find((x) => x.sessionId === "before-engine");
      assert.ok(s, JSON.stringify(r.json).slice(0, 800));
      assert.equal(s.error, null, s.error);
      return { r, s };
    };
    // the session goes on with the engine: its first turn says once what OpenViking lacks
    const first = await runTurn({ dir: past, sessionId: "before-engine", message: "where is the boat moored?", timeoutMs: TURN_MS });
    assert.equal(first.code, 0, first.stderr.slice(-2000));
    const hint = `${first.stdout}\n${first.stderr}`.split("\n").find((l) => l.includes("earlier turns"));
    t.diagnostic(`first contact: ${hint}`);
    assert.match(hint ?? "", /session before-engine has 4 earlier turns that OpenViking does not: `openclaw openviking import --session before-engine --apply`/);
    const second = await runTurn({ dir: past, sessionId: "before-engine", message: "thanks", timeoutMs: TURN_MS });
    assert.ok(!`${second.stdout}\n${second.stderr}`.includes("earlier turns"), "said once");

    const dry = await cli([]);
    assert.equal(dry.r.code, 0);
    // six turns: the four from before, and the two the engine wrote live (recognised by their text)
    assert.deepEqual([dry.s.turns, dry.s.toolCalls, dry.s.alreadyStored, dry.s.written, dry.s.remaining], [6, 1, 2, 0, 4]);
    assert.equal(dry.s.ovSessionId, "main--before-engine-imported");

    const applied = await cli(["--apply"]);
    assert.equal(applied.r.code, 0, applied.r.stderr.slice(-1500));
    assert.deepEqual([applied.s.written, applied.s.remaining, applied.s.queued], [4, 0, 0]);
    assert.ok(applied.s.commits >= 1, "the imported turns were committed (summaries, memories)");
    const status = await runCli({ dir: past, args: ["openviking", "status", "--json"], timeoutMs: 120_000 });
    assert.equal(status.json?.import?.done, 4, `status shows the last import: ${status.stdout.slice(0, 400)}`);
    assert.ok(status.json.import.finishedAt && !status.json.import.running);
    const again = await cli(["--apply"]);
    assert.deepEqual([again.s.written, again.s.alreadyStored], [0, 6], "a rerun writes nothing");

    // what OpenViking holds: every turn once, in order (archived and live)
    const store = createStateStore(pluginState);
    const host = createEngineHost({ store, request: createTransport(), logger: { warn: () => {} } });
    const main = new wasm.ContextEngine({ mode: "remote", baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, agentId: "main", stateDir: pluginState }, {}, host);
    const found = await main.runTool("memory_search_history", { query: "boat", limit: 20 });
    const mine = found.hits.filter((h) => h.ovSessionId === "main--before-engine-imported");
    t.diagnostic(`history: ${JSON.stringify(mine).slice(0, 600)}`);
    assert.ok(mine.some((h) => /pier 9/.test(h.excerpt)), "turn 2's fact is searchable");
    const expanded = await main.runTool("memory_expand", mine.find((h) => /pier 9/.test(h.excerpt)).expand);
    assert.ok(JSON.stringify(expanded).includes("pier 9"), `memory_expand reaches the imported turn: ${JSON.stringify(expanded).slice(0, 400)}`);

    // a real turn with the engine: the model's history search finds it
    const r = await runTurn({ dir: past, sessionId: "after-import", message: `SEARCH mooring ON ${day(0)}`, timeoutMs: TURN_MS });
    assert.equal(r.code, 0, r.stderr.slice(-2000));
    const reply = fm.requests.filter((q) => q.body.messages.some((m) => m.role === "tool")).at(-1);
    assert.match(textOf(reply?.body.messages.filter((m) => m.role === "tool").at(-1)?.content), /pier 9/);

    // a memory OpenViking extracted from the imported turns (at the import's commit) is
    // recalled into a new session's turn
    const n1 = fm.requests.length;
    const rr = await runTurn({ dir: past, sessionId: "recall-after-import", message: "Which name did we decide for the boat?", timeoutMs: TURN_MS });
    assert.equal(rr.code, 0, rr.stderr.slice(-2000));
    const asked = fm.requests[n1].body.messages;
    const callId = asked.flatMap((m) => m.tool_calls ?? []).find((c) => c.function?.name === "memory_recall_auto")?.id;
    const recalled = textOf(asked.find((m) => m.role === "tool" && callId && m.tool_call_id === callId)?.content);
    t.diagnostic(`recalled after the import: ${recalled.slice(0, 300)}`);
    assert.match(recalled, /Kestrel/, "the extracted memory is recalled");

    // 2026.7.35: its JSONL transcript, imported by the same importer
    if (openclawAvailable("2026.7.35")) {
      const old = path.join(past, "old");
      writeConfig({ dir: old, modelUrl });
      const r735 = await runTurn({ dir: old, sessionId: "old-735", message: "FACT: the old boat was called Merlin.", timeoutMs: TURN_MS, version: "2026.7.35" });
      assert.equal(r735.code, 0, r735.stderr.slice(-1500));
      const { createImporter } = await import("../../js-glue/plugin/import.js");
      const run = createImporter({ store }, { pickAgent: () => ({ agentId: "main", engine: main }) });
      const doc = await run({ openclawStateDir: path.join(old, "state"), apply: true });
      t.diagnostic(`7.35 import: ${JSON.stringify(doc).slice(0, 500)}`);
      const s = doc.sessions.find((x) => x.sessionId === "old-735");
      assert.equal(s?.source, "jsonl");
      assert.deepEqual([s.turns, s.written], [1, 1]);
      const rerun = await run({ openclawStateDir: path.join(old, "state"), apply: true });
      assert.equal(rerun.sessions.find((x) => x.sessionId === "old-735").written, 0);
    }
    console.log(`# import: 4 turns in ${applied.r.ms} ms (CLI process included), rerun ${again.r.ms} ms`);
  } finally {
    if (process.env.OV_E2E_KEEP === "1") console.log(`# kept ${past}`);
    else fs.rmSync(past, { recursive: true, force: true });
  }
});
