// A second machine, and a lost state dir, in real turns: OpenClaw 2026.9.6 (`openclaw agent
// --local`, one process per turn) with js-glue in the context-engine slot, ONE real OpenViking
// 0.5.2 (remote mode) and the loopback fake model; agent `main`, one session ("ship").
//
// Home A (its own OpenClaw home and plugin state dir) is told three facts about "the
// lighthouse"; the third turn fires the engine's turn trigger (compactTurnThreshold 3), whose
// commit archives them and extracts memories; the next turn records the checkpoint
// (checkpoint-001.json under the user's resources, polled with tests/inspect). A fourth fact
// stays live. Then A's scripted model calls memory_search_history ("lighthouse", by recency)
// and memory_expand on a memory that compaction extracted; the tool results are read from
// what the model received. Home B — a second OpenClaw home with a fresh, empty state dir on
// the same OpenViking, same agent, same session id — makes the same two calls in its first
// turn: the same hits (turn ids, sequences, archived flags, expand references, excerpts; not
// the BM25 scores, B's index also holds A's probe turn) and, in a test of its own, the same
// expansion (archive, checkpoint, excerpts). B then writes a turn: stored once, after A's.
// Last, A's state dir is deleted (rm -rf) between two turns; A goes on: every turn is stored
// exactly once, in order (archives + live), and the search still finds the earlier turns.
// Then the agent moves to another account of the server: `openclaw openviking export --out`
// in home C, `openclaw openviking import --from … --apply` in home D (a key of the other
// account): D holds every turn once, in order, in the same archives, at its own time; a
// second import writes nothing; a search in D answers as on the source, and memory_expand
// reaches the restored archive's raw turns.
//
// Every message read back carries turn_id, created_at and message_kind. Prints
// `# second-machine: …` per scenario. OV_E2E_KEEP=1 keeps the scratch dirs.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeModel, lastQuestion, textOf, isInternalUser } from "./fake-model.mjs";
import { writeConfig, runTurn, runCli, scratchDir } from "./openclaw.mjs";
import { startHarness } from "../../js-glue/test/openviking/helpers.mjs";
import { createClient } from "../inspect/client.js";
import { storedMessages } from "../inspect/stored.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const TURN_MS = 150_000;
const SESSION = "ship";
const OV_ID = `main--${SESSION}`;
const SEARCH = { query: "lighthouse", sort: "recency" };
const FACTS = {
  M01: "M01 We decided the lighthouse keeper rotates every Friday.",
  M02: "M02 I prefer lighthouse reports as short bullet lists.",
  M03: "M03 Tip: the lighthouse lamp needs a spare bulb from the north cabinet.",
  M04: "M04 Note that the lighthouse fog horn was repaired on Monday.",
  M07: "M07 We decided the lighthouse gets a new radio next spring.",
  M08: "M08 Note that the lighthouse stairs were painted green.",
};
const acked = []; // markers of the turns OpenClaw acknowledged (exit 0), in order
let fm, ov, client, A, B, expandUri = null;

/** The messages after the request's last real question (this turn's tool rounds). */
function sinceQuestion(messages = []) {
  const i = messages.findLastIndex((m) => m.role === "user" && !isInternalUser(m));
  return messages.slice(i + 1);
}

// Facts are acknowledged with a fixed word; "PROBE" runs the search, then the expansion.
function script(req) {
  if (!lastQuestion(req).includes("PROBE")) return { text: "Noted." };
  const called = new Set(sinceQuestion(req.messages).flatMap((m) => (m.tool_calls ?? []).map((c) => c.function?.name)));
  if (!called.has("memory_search_history")) return { toolCalls: [{ name: "memory_search_history", arguments: SEARCH }] };
  if (!called.has("memory_expand")) return { toolCalls: [{ name: "memory_expand", arguments: { summaryOrMemoryUri: expandUri, query: "lighthouse" } }] };
  return { text: "Probe done." };
}

function home(name, compactTurnThreshold, apiKey = ov.env.userKey) {
  const dir = scratchDir(`oc-second-${name}-`);
  const h = { name, dir, stateDir: path.join(dir, "plugin-state") };
  h.configure = (threshold) => writeConfig({
    dir, modelUrl: `${fm.url}/v1`,
    plugin: {
      path: path.join(ROOT, "js-glue"), id: "openviking",
      config: {
        mode: "remote", baseUrl: ov.env.baseUrl, apiKey, timeoutMs: 15000, hookFallback: false, stateDir: h.stateDir,
        compactTurnThreshold: threshold, compactTokensAddedThreshold: 10_000_000, recentRawTurnCount: 1,
      },
    },
  });
  h.configure(compactTurnThreshold);
  return h;
}

before(async () => {
  ov = await startHarness();
  fm = await startFakeModel({ script });
  client = createClient({ baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, agentId: "main" });
  A = home("a", 3);
  B = home("b", 1000);
});
after(async () => {
  await fm?.close?.();
  await ov?.stop();
  for (const h of [A, B, C, D].filter(Boolean)) {
    if (process.env.OV_E2E_KEEP === "1") console.log(`# kept ${h.dir}`);
    else fs.rmSync(h.dir, { recursive: true, force: true });
  }
});

async function turn(t, h, marker, message) {
  const n0 = fm.requests.length;
  const r = await runTurn({ dir: h.dir, sessionId: SESSION, message, timeoutMs: TURN_MS });
  const reqs = fm.requests.slice(n0);
  t.diagnostic(`${h.name}: turn ${marker} exit=${r.code} wall=${r.ms}ms requests=${reqs.length}`);
  for (const line of `${r.stdout}\n${r.stderr}`.split("\n").filter((l) => l.includes("[openviking]"))) t.diagnostic(`  ${line.slice(0, 300)}`);
  assert.equal(r.code, 0, `turn ${marker} in ${h.name}: exit ${r.code}; stderr tail:\n${r.stderr.slice(-3000)}`);
  assert.doesNotMatch(`${r.stdout}\n${r.stderr}`, /context engine is not in use/);
  acked.push(marker);
  return { ...r, reqs };
}

/** A PROBE turn: the two tool results the model received, parsed. */
async function probe(t, h, marker) {
  const r = await turn(t, h, marker, `${marker} PROBE`);
  const msgs = sinceQuestion(r.reqs.at(-1)?.body.messages);
  const out = {};
  for (const call of msgs.flatMap((m) => m.tool_calls ?? [])) {
    const res = msgs.find((m) => m.role === "tool" && m.tool_call_id === call.id);
    const text = textOf(res?.content);
    try { out[call.function.name] = JSON.parse(text); } catch { assert.fail(`${call.function.name} in ${h.name} answered no JSON: ${text.slice(0, 500)}`); }
  }
  assert.ok(out.memory_search_history && out.memory_expand, `both tools ran in ${h.name}: ${Object.keys(out)}`);
  t.diagnostic(`${h.name} search → ${JSON.stringify(out.memory_search_history).slice(0, 600)}`);
  t.diagnostic(`${h.name} expand → ${JSON.stringify(out.memory_expand).slice(0, 600)}`);
  return { search: out.memory_search_history, expand: out.memory_expand };
}

/** OpenViking's copy of the session (archives, then live), grouped into turns by turn_id. */
async function stored() {
  const msgs = await storedMessages(client, OV_ID);
  const turns = [];
  for (const m of msgs) {
    for (const k of ["turn_id", "created_at", "message_kind"]) assert.ok(typeof m[k] === "string" && m[k], `stored message ${m.id} (${m.role}, ${m.from}) has ${k}: ${JSON.stringify(m).slice(0, 300)}`);
    const text = (m.parts ?? []).filter((p) => p.type === "text").map((p) => p.text).join(" ");
    if (turns.at(-1)?.turnId !== m.turn_id) turns.push({ turnId: m.turn_id, markers: [], from: m.from });
    if (m.role === "user") turns.at(-1).markers.push(...(text.match(/\bM\d\d\b/g) ?? []));
  }
  const ids = turns.map((x) => x.turnId);
  const doubled = ids.filter((id, i) => ids.indexOf(id) !== i).length;
  const markers = turns.flatMap((x) => x.markers);
  return { msgs, turns, doubled, markers, idOf: (mk) => turns.find((x) => x.markers.includes(mk))?.turnId };
}

/** Every acknowledged turn once, in order, each its own turn id. */
function assertOnceInOrder(s, label) {
  assert.deepEqual(s.markers, acked, `${label}: OpenViking holds every acknowledged turn once, in order`);
  assert.equal(s.doubled, 0, `${label}: no turn id in two places: ${JSON.stringify(s.turns.map((x) => [x.turnId, x.markers]))}`);
  assert.equal(s.turns.length, acked.length, `${label}: one turn id per turn`);
}

const hitsOf = (doc) => doc.hits.map(({ score, ...h }) => h);
const noElapsed = ({ elapsedMs, ...d }) => d;
async function waitFor(fn, ms = 90_000) {
  for (const end = Date.now() + ms; ;) {
    const v = await fn().catch(() => null);
    if (v || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

let C; // a third home that never runs a turn: only the operator's commands
let lastSearchA; // A's search after its state dir was lost: the source's last answer
let D; // a fourth, on another account of the server: the agent moved there by export and import --from
let answerA, firstHits;
test("home A: facts, a trigger compaction with its checkpoint in OpenViking, a search and a memory expansion", { timeout: 900_000 }, async (t) => {
  for (const mk of ["M01", "M02", "M03"]) await turn(t, A, mk, FACTS[mk]);
  // the third turn's trigger committed; wait for the task (archive summary + memory diff)
  assert.ok(await waitFor(async () => (await client.getSession(OV_ID)).commit_count >= 1), "the trigger committed the session");
  const archiveDir = `viking://user/${ov.env.userId}/sessions/${OV_ID}/history/archive_001`;
  const done = await waitFor(async () => (await client.ls(archiveDir)).some((e) => /memory_diff/.test(e.name)));
  t.diagnostic(`archive_001: ${JSON.stringify((await client.ls(archiveDir).catch(() => [])).map((e) => e.name))}`);
  assert.ok(done, "the commit task finished (memory diff written)");
  A.configure(1000); // no second compaction: the turns after it stay live
  await turn(t, A, "M04", FACTS.M04); // its bootstrap records the finished task's checkpoint
  const cpUri = `viking://user/${ov.env.userId}/resources/openviking-context-engine/main/${OV_ID}/checkpoint-001.json`;
  const cp = await waitFor(() => client.readJson(cpUri), 60_000);
  assert.ok(cp, `the checkpoint is in OpenViking at ${cpUri}`);
  t.diagnostic(`checkpoint: ${JSON.stringify(cp).slice(0, 800)}`);
  let s = await stored();
  assert.deepEqual(cp.turnIds, ["M01", "M02", "M03"].map(s.idOf), "the checkpoint names the archived turns by their stored turn ids");
  assert.ok(cp.extractedMemoryUris?.length >= 1, "the compaction extracted memories");
  expandUri = cp.extractedMemoryUris[0];

  answerA = await probe(t, A, "M05");
  const { search, expand } = answerA;
  s = await stored();
  assertOnceInOrder(s, "A");
  firstHits = hitsOf(search);
  assert.deepEqual(search.hits.map((h) => h.turnId), ["M04", "M03", "M02", "M01"].map(s.idOf), "the four facts, newest first, with their stored turn ids");
  assert.deepEqual(search.hits.map((h) => h.archived), [false, true, true, true], "the compacted three are archived, the fourth is live");
  assert.deepEqual(search.hits.map((h) => h.sequence), [3, 2, 1, 0]);
  assert.match(search.hits[3].expand.summaryOrMemoryUri, /\/sessions\/main--ship\/history\/archive_001$/);
  assert.match(search.hits[0].expand.summaryOrMemoryUri, /\/sessions\/main--ship$/);
  assert.match(expand.archiveUri, /\/sessions\/main--ship\/history\/archive_001$/);
  assert.equal(expand.checkpointId, `ckpt-${OV_ID}-001`);
  assert.ok(expand.excerpts.length >= 1 && expand.excerpts.every((e) => cp.turnIds.includes(e.turnId)), "excerpts of the archived turns, with their turn ids");
  assert.ok(expand.excerpts.some((e) => /lighthouse/.test(e.text)), "… holding the raw text");
  console.log(`# second-machine A: acked=${acked.length} stored=${s.turns.length} doubled=${s.doubled} hits=${search.hits.length} excerpts=${expand.excerpts.length}`);
});

let answerB;
test("home B (fresh state dir, same OpenViking, agent and session): the same search answer, and its new turn stored once after A's", { timeout: 600_000 }, async (t) => {
  assert.ok(answerA, "scenario A ran");
  assert.ok(!fs.existsSync(B.stateDir) || fs.readdirSync(B.stateDir).length === 0, "B starts with an empty state dir");
  answerB = await probe(t, B, "M06");
  await turn(t, B, "M07", FACTS.M07); // before any assertion: the next scenario counts on it
  const [a, b] = [answerA.search, answerB.search];
  t.diagnostic(`hits A: ${JSON.stringify(a.hits.map((h) => [h.turnId, h.sequence, h.archived, h.score]))}`);
  t.diagnostic(`hits B: ${JSON.stringify(b.hits.map((h) => [h.turnId, h.sequence, h.archived, h.score]))}`);
  assert.deepEqual(b.hits.map((h) => [h.turnId, h.archived]), a.hits.map((h) => [h.turnId, h.archived]), "the same hit turn ids and archived flags");
  // scores differ: BM25 runs over the turns in the window, and B's index holds A's probe turn too
  assert.deepEqual(hitsOf(b), hitsOf(a), "the same hits (sequence, time, excerpt, expand reference)");
  assert.equal(b.matched, a.matched);

  const s = await stored();
  assertOnceInOrder(s, "after B");
  const last = s.turns.at(-1);
  assert.deepEqual(last.markers, ["M07"], "B's new turn is the last one");
  assert.ok(last.turnId && s.turns.slice(0, -1).every((x) => x.turnId !== last.turnId), "with a turn id of its own");
  console.log(`# second-machine B: acked=${acked.length} stored=${s.turns.length} doubled=${s.doubled} hits A/B=${a.hits.length}/${b.hits.length} ` +
    `turnIds equal=${JSON.stringify(a.hits.map((h) => h.turnId)) === JSON.stringify(b.hits.map((h) => h.turnId))} excerpts A/B=${answerA.expand.excerpts.length}/${answerB.expand.excerpts.length}`);
});

test("home B: memory_expand of a memory A's compaction extracted gives A's answer (archive, checkpoint, excerpts)", { timeout: 60_000 }, () => {
  assert.ok(answerB, "scenario B ran");
  assert.deepEqual(noElapsed(answerB.expand), noElapsed(answerA.expand), "memory_expand in B, its first turn on the session, answers as in A");
});

test("home C (fresh state dir, no turn of its own): status and trace as B's, read from OpenViking", { timeout: 300_000 }, async (t) => {
  assert.ok(answerB, "scenario B ran");
  C = home("c", 1000);
  const cli = async (h, args) => {
    const r = await runCli({ dir: h.dir, args, timeoutMs: 120_000 });
    t.diagnostic(`${h.name}: openclaw ${args.join(" ")}: exit=${r.code} wall=${r.ms}ms`);
    assert.equal(r.code, 0, `${h.name} ${args.join(" ")}: ${r.stdout.slice(-1000)}\n${r.stderr.slice(-1000)}`);
    return r.json;
  };
  const [statusB, traceB] = [await cli(B, ["openviking", "status", "--json", "--session", SESSION]), await cli(B, ["openviking", "trace", "--json", "--session", SESSION])];
  const [statusC, traceC] = [await cli(C, ["openviking", "status", "--json", "--session", SESSION]), await cli(C, ["openviking", "trace", "--json", "--session", SESSION])];
  const brief = (doc) => {
    const s = doc.sessions.find((x) => x.ovSessionId === OV_ID);
    return { turnsStored: s.turnsStored, outboxDepth: s.outboxDepth, checkpoints: s.checkpoints, lastCheckpoint: s.lastCheckpoint?.checkpointId, turnsSinceCommit: s.triggers.find((x) => x.kind === "turns").current };
  };
  t.diagnostic(`status B ${JSON.stringify(brief(statusB))} C ${JSON.stringify(brief(statusC))}`);
  assert.deepEqual(brief(statusC), brief(statusB), "C's status of the session is B's");
  assert.equal(brief(statusC).lastCheckpoint, `ckpt-${OV_ID}-001`);
  const shownB = traceB.trace.recall?.memories.map((m) => m.uri) ?? [];
  t.diagnostic(`trace B: ${shownB.length} shown; C: ${JSON.stringify(traceC.trace.rebuilt)}`);
  assert.equal(traceB.trace.rebuilt, null, "B assembled the turn itself");
  const s = await stored();
  assert.equal(traceC.trace.rebuilt.turnId, s.turns.at(-1).turnId, "C's trace is of the last stored turn (B's M07)");
  assert.deepEqual(traceC.trace.rebuilt.injectedUris, shownB, "… with the memories B showed the model");
  assert.match(traceC.trace.query.query, /M07/);
  console.log(`# second-machine C: status equal, trace rebuilt (turn ${traceC.trace.rebuilt.turnId}, ${shownB.length} memories shown, as B's)`);
});

test("A's state dir deleted mid-conversation: every turn stored once in order, and the search still finds the earlier turns", { timeout: 600_000 }, async (t) => {
  assert.ok(firstHits, "scenario A ran");
  assert.ok(fs.existsSync(A.stateDir), "A had a state dir");
  fs.rmSync(A.stateDir, { recursive: true, force: true });
  await turn(t, A, "M08", FACTS.M08);
  assert.ok(fs.existsSync(path.join(A.stateDir, "state")), "the engine started a new state dir");
  let s = await stored();
  assertOnceInOrder(s, "after the state dir was deleted");
  const answer = await probe(t, A, "M09");
  lastSearchA = answer.search;
  s = await stored();
  assertOnceInOrder(s, "after the probe");
  const hits = answer.search.hits;
  const facts = acked.filter((mk) => FACTS[mk]).reverse(); // newest first
  const seq = (mk) => s.turns.findIndex((x) => x.markers.includes(mk));
  assert.deepEqual(hits.map((h) => h.turnId), facts.map(s.idOf), `every fact turn (${facts}), A's and B's, with its stored turn id`);
  assert.deepEqual(hits.map((h) => h.sequence), facts.map(seq), "sequences in OpenViking's order");
  assert.deepEqual(hits.map((h) => h.archived), facts.map((mk) => seq(mk) <= 2), "the compacted three archived, the rest live");
  const firstIds = firstHits.map((h) => h.turnId);
  assert.deepEqual(hitsOf(answer.search).filter((h) => firstIds.includes(h.turnId)), firstHits, "the earlier turns' hits as before the loss");
  assert.deepEqual(noElapsed(answer.expand), noElapsed(answerA.expand), "memory_expand as before the loss");
  console.log(`# second-machine rm: acked=${acked.length} stored=${s.turns.length} doubled=${s.doubled} hits=${hits.length} (${hits.map((h) => `${s.turns.find((x) => x.turnId === h.turnId)?.markers[0]}${h.archived ? "/archived" : ""}`).join(",")})`);
});

test("home D on another account: `export --out` in C and `import --from --apply` in D move the agent: every turn once in order, in the same archives, and the same search answer", { timeout: 600_000 }, async (t) => {
  assert.ok(C, "scenario C ran");
  const made = await (await fetch(`${ov.env.baseUrl}/api/v1/admin/accounts`, {
    method: "POST", headers: { "X-API-Key": ov.env.rootKey, "Content-Type": "application/json" }, body: JSON.stringify({ account_id: "moved", admin_user_id: "mover" }),
  })).json();
  const key = made.result?.user_key;
  assert.ok(key, JSON.stringify(made));
  D = home("d", 1000, key);
  const cli = async (h, args) => {
    const r = await runCli({ dir: h.dir, args, timeoutMs: 300_000 });
    t.diagnostic(`${h.name}: openclaw ${args.join(" ")}: exit=${r.code} wall=${r.ms}ms`);
    for (const l of r.stdout.split("\n").slice(0, 12)) t.diagnostic(`| ${l}`);
    assert.equal(r.code, 0, `${h.name} ${args.join(" ")}: ${r.stdout.slice(-1500)}\n${r.stderr.slice(-1500)}`);
    return r;
  };
  const file = path.join(C.dir, "main.jsonl.gz");
  const exp = await cli(C, ["openviking", "export", "--out", file]);
  assert.match(exp.stdout, /^OpenViking export \(agent main\): 1 session, \d+ turns, \d+ memor(y|ies) → /);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600, "the file holds what the user said: only its owner reads it");
  const imp = await cli(D, ["openviking", "import", "--from", file, "--apply"]);
  assert.match(imp.stdout, /^OpenViking restore from .* \(agent main\): \d+ turns written, 0 already there, 0 left; [1-9]\d* commits?/);
  const again = await cli(D, ["openviking", "import", "--from", file, "--apply", "--json"]);
  assert.equal(again.json.totals.written, 0, "a second restore writes nothing");

  // D's copy: the source's turns, ids and archive boundaries (archives, then live)
  const mine = createClient({ baseUrl: ov.env.baseUrl, apiKey: key, agentId: "main" });
  const [src, dst] = [await storedMessages(client, OV_ID), await storedMessages(mine, OV_ID)];
  const shape = (msgs) => msgs.filter((m) => m.role === "user").map((m) => [m.turn_id, m.from, m.created_at]);
  assert.deepEqual(shape(dst), shape(src), "every turn once, in order, in the same archive, at its own time");
  // a turn in D: the search finds what A's last search found on the source (turn ids, archived flags)
  expandUri = `viking://user/mover/sessions/${OV_ID}/history/archive_001`;
  const answerD = await probe(t, D, "M10");
  const ids = (hits) => hits.map((h) => [h.turnId, h.archived]);
  assert.deepEqual(ids(answerD.search.hits), ids(lastSearchA.hits), "the same hits on the other account");
  assert.match(JSON.stringify(answerD.expand.excerpts), /lighthouse keeper rotates/, "memory_expand reaches the restored archive's raw turns");
  console.log(`# second-machine D: moved ${src.length} messages by export/import --from; hits D=${answerD.search.hits.length}`);
});
