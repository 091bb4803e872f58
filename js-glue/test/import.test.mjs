// `openclaw openviking import` without a server: OpenClaw's JSONL store listed and read as
// written (live, deleted and trajectory files told apart), the flags checked with the flag
// named, progress drawn on a terminal and as lines elsewhere, and the report formatted from
// the numbers the engine gave. The real stores of OpenClaw 2026.9.6 and 2026.7.35 and a real
// OpenViking are in tests/e2e/history-search.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listSessions, readLines } from "../plugin/openclaw-sessions.js";
import { createImporter, createProgress, parseCount, parseTime } from "../plugin/import.js";
import { formatImport } from "../plugin/commands-format.js";

function jsonlStore() {
  const state = mkdtempSync(join(tmpdir(), "ov-import-"));
  const dir = join(state, "agents", "main", "sessions");
  mkdirSync(dir, { recursive: true });
  const ev = (id, parent, role, text) => JSON.stringify({ type: "message", id, parentId: parent, timestamp: "2026-11-01T10:00:00.000Z", message: { role, content: text, timestamp: 1_793_000_000_000 } });
  writeFileSync(join(dir, "s1.jsonl"), [ev("u1", null, "user", "hello"), ev("a1", "u1", "assistant", "hi"), '{"type":"message","id":"u2"'].join("\n"));
  writeFileSync(join(dir, "s1.trajectory.jsonl"), "{}\n");
  writeFileSync(join(dir, "s0.jsonl.deleted.2026-10-01T00-00-00.000Z"), ev("x", null, "user", "old") + "\n");
  writeFileSync(join(dir, "sessions.json"), JSON.stringify({ "agent:main:explicit:s1": { sessionId: "s1" } }));
  return { state, dir };
}

test("a JSONL store: live transcripts listed with their key, trajectories never, deleted ones only when asked", async () => {
  const { state } = jsonlStore();
  try {
    const live = await listSessions(state, "main");
    assert.deepEqual(live.map((s) => [s.sessionId, s.sessionKey, s.source, s.deleted]), [["s1", "agent:main:explicit:s1", "jsonl", false]]);
    const all = await listSessions(state, "main", { includeDeleted: true });
    assert.equal(all.length, 2);
    const deleted = all.find((s) => s.deleted);
    assert.match(deleted.sessionId, /^s0\.deleted_/, "a deleted copy is named apart from the live id");
    const lines = await readLines(live[0]);
    assert.equal(lines.length, 3, "lines are handed over as written, the truncated last one included");
    assert.deepEqual(await listSessions(state, "nobody"), [], "an agent without a store has no sessions");
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
});

test("flags are checked with the flag named", () => {
  assert.equal(parseTime("--since", "2026-11-30"), Date.parse("2026-11-30"));
  assert.equal(parseTime("--since", "1793000000000"), 1793000000000);
  assert.equal(parseTime("--since", undefined), null);
  assert.throws(() => parseTime("--until", "yesterday-ish"), /--until must be a date/);
  assert.equal(parseCount("--limit", "5"), 5);
  for (const bad of ["0", "-1", "2.5", "x"]) assert.throws(() => parseCount("--limit", bad), /--limit must be a whole number/);
});

test("progress: a bar redrawn in place on a terminal, plain lines elsewhere, with turns/s and what is left", () => {
  let clock = 0;
  const out = [];
  const tty = createProgress({ stream: { isTTY: true, write: (s) => out.push(s) }, now: () => clock });
  tty.add(200);
  clock = 10_000;
  tty.tick(100, "s1");
  assert.match(out[0], /^\r\[#{12}\.{12}\] s1 100\/200 turns · 10\.0 turns\/s · about 10 s left/);
  tty.end();
  assert.equal(out.at(-1), "\n");
  const lines = [];
  const plain = createProgress({ stream: { isTTY: false, write: (s) => lines.push(s) }, now: () => clock });
  plain.add(3);
  plain.tick(3, "s2");
  assert.match(lines[0], /^import: s2 3\/3 turns/);
  assert.ok(!lines[0].includes("\r"));
});

test("the importer hands each transcript to the engine in slices and sums what it reports", async () => {
  const { state } = jsonlStore();
  try {
    const calls = [];
    // an engine that reports 250 turns to write and writes what it is asked, slice by slice
    let left = 250;
    const engine = {
      async importSession(req) {
        calls.push({ apply: req.apply, limit: req.limit ?? null, lines: req.lines.length });
        const written = req.apply ? Math.min(req.limit, left) : 0;
        left -= written;
        return { sessionId: req.sessionId, ovSessionId: "main--s1-imported", liveOvSessionId: "main--s1", turns: 250, toolCalls: 0, tokens: 1, firstMs: null, lastMs: null, alreadyStored: 250 - left - written, written, remaining: left, queued: 0, commits: written ? 1 : 0, skipped: { unreadable: 1, unknownMessages: 0, otherBranches: 0 }, stopped: null };
      },
    };
    const progress = createProgress({ stream: { isTTY: false, write() {} } });
    const run = createImporter({ store: null }, { pickAgent: () => ({ agentId: "main", engine }), progress });
    const doc = await run({ openclawStateDir: state, apply: true, limit: "220" });
    assert.deepEqual(calls.map((c) => [c.apply, c.limit]), [[false, null], [true, 100], [true, 100], [true, 20]], "a dry look, then slices within --limit");
    assert.equal(doc.totals.written, 220);
    assert.equal(doc.sessions[0].remaining, 30);
    assert.equal(progress.done, 220);
    const text = formatImport(doc);
    assert.match(text, /220 turns written, .* 30 left; 3 commits/);
    assert.match(text, /left out: 1 unreadable line/);

    const dry = await createImporter({ store: null }, { pickAgent: () => ({ agentId: "main", engine }) })({ openclawStateDir: state });
    assert.match(formatImport(dry), /dry run .* run again with --apply/);
    const bad = await run({ openclawStateDir: state, since: "soon" });
    assert.match(bad.error, /--since must be a date/);
    const none = await run({ openclawStateDir: state, session: "nope" });
    assert.match(none.error, /no session nope of agent main/);
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
});
