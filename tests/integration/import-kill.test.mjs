// The import of an agent's past (`openclaw openviking import --apply`) against a real
// OpenViking 0.5.2: a transcript of 120 turns (tool calls among them, every tenth with a
// 30 kB output) is imported by a process SIGKILLed in the middle of a slice, then by a second
// process to the end: OpenViking holds every turn exactly once, in the transcript's order,
// each message with its turn id. A clean import of the same transcript into another session
// measures throughput and where the time goes: `# import:` turns/s, and the share of the wall
// time spent waiting for OpenViking's answers (the rest is the engine and the state dir).
// A session that gets live turns from another process while it is imported stores every
// turn once, in order. A transcript with a 50 MB tool output, a message of an unknown shape and a truncated last
// line imports each turn once; the output is kept as far as OpenViking takes a text (4 MiB:
// head and tail, with a note of the cut, its length and SHA-256).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startHarness } from "../../js-glue/test/openviking/helpers.mjs";
import { createClient } from "../inspect/client.js";
import { storedMessages } from "../inspect/stored.js";

const RUN = fileURLToPath(new URL("./import-run.mjs", import.meta.url));
const TURNS = 120;
const CONFIG = { compactTurnThreshold: 40, compactTokensAddedThreshold: 10000000, compactMaxIntervalMinutes: 10080 };
const cleanup = [];
after(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

/** OpenClaw's transcript events of `n` turns, chained by parentId (2026.9.x shape). */
function transcript(sessionId, n) {
  const lines = [JSON.stringify({ type: "session", version: 4, id: sessionId, timestamp: "2026-11-01T09:00:00.000Z" })];
  let parent = null;
  const t0 = Date.parse("2026-11-01T09:00:00.000Z");
  const push = (id, message) => {
    lines.push(JSON.stringify({ type: "message", id, parentId: parent, timestamp: new Date(message.timestamp).toISOString(), message }));
    parent = id;
  };
  for (let i = 1; i <= n; i++) {
    const at = t0 + i * 60_000;
    push(`u${i}`, { role: "user", content: `question ${i}: what does config ${i} say?`, timestamp: at });
    if (i % 3 === 0) {
      push(`c${i}`, { role: "assistant", content: [{ type: "toolCall", id: `call_${i}`, name: "exec", arguments: { command: `cat config/${i}.yml` } }], stopReason: "toolUse", timestamp: at + 1 });
      const out = i % 10 === 0 ? `pool: ${i}\n${"x".repeat(30_000)}` : `pool: ${i}`;
      push(`r${i}`, { role: "toolResult", toolCallId: `call_${i}`, toolName: "exec", content: [{ type: "text", text: out }], isError: false, timestamp: at + 2 });
    }
    push(`a${i}`, { role: "assistant", content: [{ type: "text", text: `config ${i} sets the pool to ${i}.` }], stopReason: "stop", timestamp: at + 3 });
  }
  return lines.join("\n");
}

/** Runs import-run.mjs; with `killAfter` lines printed, SIGKILLs it (mid-slice: the next
 *  slice is under way). Resolves with its JSON lines. */
function run(args, { killAfter = Infinity } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RUN, JSON.stringify(args)], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    const docs = () => out.split("\n").filter(Boolean).map((l) => JSON.parse(l));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`import-run.mjs hung: ${out.slice(-500)} ${err.slice(-500)}`));
    }, 240_000);
    child.stdout.on("data", (d) => {
      out += d;
      if (docs().length >= killAfter) setTimeout(() => child.kill("SIGKILL"), 150); // inside the next slice
    });
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (code && !signal) return reject(new Error(`import-run.mjs exited ${code}: ${err.slice(-2000)}`));
      resolve({ docs: docs(), signal });
    });
  });
}

/** The turn ids OpenViking holds for a session, in order, one entry per turn. */
async function storedTurns(client, ov) {
  const ids = [];
  for (const m of await storedMessages(client, ov)) if (ids.at(-1) !== m.turn_id) ids.push(m.turn_id);
  return ids;
}

let shared = null;
/** One OpenViking for the file's tests. */
async function harness() {
  if (!shared) {
    shared = await startHarness();
    const h = shared;
    cleanup.push(() => h.stop());
  }
  return shared;
}

test("an import killed in the middle of a slice and run again stores every turn once, in order; a clean import's throughput", { timeout: 600_000 }, async (t) => {
  const h = await harness();
  const dir = mkdtempSync(join(tmpdir(), "ove-import-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const base = { baseUrl: h.env.baseUrl, apiKey: h.env.userKey, userId: h.env.userId, stateDir: join(dir, "state"), config: CONFIG, timeoutMs: 15000, slice: 10 };
  const client = createClient({ baseUrl: h.env.baseUrl, apiKey: h.env.userKey, agentId: "main" });
  const file = join(dir, "past.jsonl");
  writeFileSync(file, transcript("past", TURNS));
  const expected = Array.from({ length: TURNS }, (_, i) => `main--past:eu${i + 1}`);

  const first = await run({ ...base, sessionId: "past", file }, { killAfter: 3 });
  assert.equal(first.signal, "SIGKILL");
  const written = first.docs.reduce((n, d) => n + d.written, 0);
  t.diagnostic(`killed after ${written} turns written (${first.docs.length} slices reported)`);
  assert.ok(written >= 30 && written < TURNS, `killed mid-way: ${written}`);
  const second = await run({ ...base, sessionId: "past", file });
  const last = second.docs.at(-1);
  assert.equal(last.remaining, 0, JSON.stringify(last));
  assert.equal(last.stopped, null);
  // a run after that writes nothing
  const third = await run({ ...base, sessionId: "past", file });
  assert.deepEqual([third.docs[0].written, third.docs[0].alreadyStored], [0, TURNS]);
  assert.deepEqual(await storedTurns(client, "main--past-imported"), expected, "every turn once, in order");

  // a clean import of the same 120 turns, twice: writing alone (commits started, their tasks
  // not waited for), and as the CLI runs it (each commit's task followed to its end)
  const measure = async (sessionId, extra) => {
    const r = await run({ ...base, sessionId, file, slice: TURNS, ...extra });
    const sum = (k) => r.docs.reduce((n, d) => n + d[k], 0);
    assert.equal(sum("written"), TURNS);
    assert.equal((await storedTurns(client, `main--${sessionId}-imported`)).length, TURNS);
    return { wall: sum("ms"), ov: sum("openvikingMs"), commits: sum("commits") };
  };
  const writing = await measure("clean", { commitWaitMs: 0 });
  const cli = await measure("clean2", {});
  // committed as the triggers fired (every 40 turns), each commit's task followed to its end
  const archives = new Set((await storedMessages(client, "main--clean2-imported")).map((m) => m.from).filter((f) => f !== "live"));
  assert.equal(archives.size, cli.commits, `one archive per commit: ${[...archives].join(", ")}`);
  assert.ok(cli.commits >= 3, `${cli.commits} commits`);
  const rate = (m) => ((TURNS * 1000) / m.wall).toFixed(1);
  const line = `# import: ${TURNS} turns — writing ${rate(writing)} turns/s (${(writing.wall / 1000).toFixed(1)} s, waiting for OpenViking's answers ${((100 * writing.ov) / writing.wall).toFixed(0)} % of it); ` +
    `with each of ${cli.commits} commits followed to its task's end ${rate(cli)} turns/s (${(cli.wall / 1000).toFixed(1)} s)`;
  console.log(line);
  t.diagnostic(line.slice(2));
});

test("a transcript with a 50 MB tool output, a message of an unknown shape and a truncated last line: each turn once, the output as much of it as OpenViking takes (head, tail, a note of the cut), the rest counted", { timeout: 600_000 }, async (t) => {
  const h = await harness();
  const dir = mkdtempSync(join(tmpdir(), "ove-import-big-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const base = { baseUrl: h.env.baseUrl, apiKey: h.env.userKey, userId: h.env.userId, stateDir: join(dir, "state"), config: CONFIG, timeoutMs: 60000, slice: 10 };
  const client = createClient({ baseUrl: h.env.baseUrl, apiKey: h.env.userKey, agentId: "main" });
  const t0 = Date.parse("2026-11-02T09:00:00.000Z");
  const big = `${"a 50 MB log line, repeated until the output is fifty megabytes long\n".repeat(Math.ceil(50_000_000 / 67))}THE LAST LINE`;
  const events = [
    { type: "session", version: 4, id: "big", timestamp: new Date(t0).toISOString() },
    { type: "message", id: "u1", parentId: null, message: { role: "user", content: "dump the log", timestamp: t0 } },
    { type: "message", id: "c1", parentId: "u1", message: { role: "assistant", content: [{ type: "toolCall", id: "call_big", name: "exec", arguments: { command: "cat huge.log" } }], stopReason: "toolUse", timestamp: t0 + 1 } },
    { type: "message", id: "r1", parentId: "c1", message: { role: "toolResult", toolCallId: "call_big", toolName: "exec", content: [{ type: "text", text: big }], isError: false, timestamp: t0 + 2 } },
    { type: "message", id: "a1", parentId: "r1", message: { role: "assistant", content: [{ type: "text", text: "The log ends with THE LAST LINE." }], stopReason: "stop", timestamp: t0 + 3 } },
    { type: "message", id: "x1", parentId: "a1", message: { role: "hologram", content: "a message of a kind no release writes" } },
    { type: "message", id: "u2", parentId: "x1", message: { role: "user", content: "thanks", timestamp: t0 + 60_000 } },
    { type: "message", id: "a2", parentId: "u2", message: { role: "assistant", content: [{ type: "text", text: "You're welcome." }], stopReason: "stop", timestamp: t0 + 60_001 } },
  ];
  const file = join(dir, "big.jsonl");
  writeFileSync(file, `${events.map((e) => JSON.stringify(e)).join("\n")}\n{"type":"message","id":"u3","parentId":"a2","message":{"role":"user","con`);
  const started = Date.now();
  const r = await run({ ...base, sessionId: "big", file });
  const doc = r.docs.at(-1);
  t.diagnostic(`50 MB import: ${Date.now() - started} ms; ${JSON.stringify(doc)}`);
  console.log(`# import 50 MB: ${Date.now() - started} ms for a turn with a 50 MB tool output (stored as 4,000,000 characters) and one more`);
  assert.deepEqual([doc.written, doc.remaining, doc.stopped], [2, 0, null]);
  assert.deepEqual(doc.skipped, { unreadable: 1, unknownMessages: 1, otherBranches: 0 });
  assert.deepEqual(await storedTurns(client, "main--big-imported"), ["main--big:eu1", "main--big:eu2"], "each turn once, in order");
  // OpenViking 0.5.2 refuses a text over 4 MiB (it would hold the session's turns back for
  // ever): the output is stored as 4,000,000 characters, head and tail, with a note of the cut
  const msgs = await storedMessages(client, "main--big-imported");
  const part = msgs.flatMap((m) => m.parts ?? []).find((p) => p.type === "tool" && p.tool_id === "call_big");
  assert.ok(part?.tool_output_ref, `the server moved the output out of the message: ${JSON.stringify(part).slice(0, 300)}`);
  const id = part.tool_output_ref.split("/").pop();
  const res = await fetch(`${h.env.baseUrl}/api/v1/sessions/main--big-imported/tool-results/${id}?offset=0&limit=-1&include_metadata=false`, { headers: { "X-API-Key": h.env.userKey } });
  const kept = (await res.json()).result?.content ?? "";
  assert.equal(kept.length, 4_000_000, "as much as OpenViking takes");
  assert.ok(kept.startsWith("a 50 MB log line") && kept.endsWith("THE LAST LINE"), "head and tail");
  assert.match(kept, new RegExp(`characters cut here by the context engine: .* the whole was ${big.length} characters, sha256 ${createHash("sha256").update(big).digest("hex")}`));
  const again = (await run({ ...base, sessionId: "big", file })).docs.at(-1);
  assert.deepEqual([again.written, again.alreadyStored], [0, 2], "a rerun writes nothing");
});

test("a session that keeps getting live turns (another process) while it is imported: every turn once, in order", { timeout: 600_000 }, async (t) => {
  const h = await harness();
  const dir = mkdtempSync(join(tmpdir(), "ove-import-live-"));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const N = 60;
  const base = { baseUrl: h.env.baseUrl, apiKey: h.env.userKey, userId: h.env.userId, stateDir: join(dir, "state"), config: CONFIG, timeoutMs: 15000 };
  const client = createClient({ baseUrl: h.env.baseUrl, apiKey: h.env.userKey, agentId: "main" });
  const file = join(dir, "live.jsonl");
  const text = transcript("live", N);
  writeFileSync(file, text);
  // the turns the live process writes: the transcript's last 25, message for message (OpenClaw
  // puts each live turn in its transcript and hands the same messages to commitTurn)
  const byTurn = new Map();
  let turnNo = 0;
  for (const line of text.split("\n").map((l) => JSON.parse(l)).filter((e) => e.type === "message")) {
    if (line.message.role === "user") turnNo += 1;
    if (!byTurn.has(turnNo)) byTurn.set(turnNo, []);
    byTurn.get(turnNo).push(line.message);
  }
  // they start once the import has stored 25 turns: the two writers meet over the same turns
  const live = [...byTurn.entries()].filter(([i]) => i > 25).map(([i, messages]) => ({ key: `live-${i}`, messages }));
  const importing = run({ ...base, sessionId: "live", file, slice: 5 });
  for (const end = Date.now() + 120_000; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
    const n = (await storedMessages(client, "main--live-imported").catch(() => [])).filter((m) => m.role === "user").length;
    if (n >= 25) break;
  }
  const writer = new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(new URL("./live-writer.mjs", import.meta.url)), JSON.stringify({ ...base, sessionId: "live", turns: live })], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("exit", (code) => (code ? reject(new Error(`live-writer exited ${code}: ${err.slice(-1500)}`)) : resolve(out.split("\n").filter(Boolean).map((l) => JSON.parse(l)))));
  });
  const [imported, written] = await Promise.all([importing, writer]);
  const last = imported.docs.at(-1);
  t.diagnostic(`import: ${imported.docs.map((d) => d.written).join("+")} written, last ${JSON.stringify(last).slice(0, 300)}; live: ${written.filter((w) => !w.alreadyStored).length} stored live, ${written.filter((w) => w.alreadyStored).length} found imported`);
  assert.equal(last.remaining, 0);
  assert.ok(written.every((w) => w.status === "committed"), "every live turn acknowledged");
  // each transcript turn once: in the imported session (by its event id) or the live one (by its text)
  const question = (m) => /^question (\d+):/.exec((m.parts ?? []).find((p) => p.type === "text")?.text ?? "")?.[1];
  const numbers = async (ov) => (await storedMessages(client, ov)).filter((m) => m.role === "user").map((m) => Number(question(m)));
  const [inImported, inLive] = [await numbers("main--live-imported"), await numbers("main--live")];
  t.diagnostic(`imported ${inImported.length} (…${inImported.slice(-5)}), live ${inLive.length} (${inLive.slice(0, 5)}…)`);
  const all = [...inImported, ...inLive].sort((a, b) => a - b);
  assert.deepEqual(all, Array.from({ length: N }, (_, i) => i + 1), "every turn once, none missing");
  const ascending = (xs) => xs.every((x, i) => i === 0 || xs[i - 1] < x);
  assert.ok(ascending(inImported) && ascending(inLive), "each session in order");
});
