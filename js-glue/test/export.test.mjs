// The export's file handling (plugin/export.js) over a scripted engine and the real wasm
// line format: the file is written through `<file>.partial`, 0600, gzip for `.gz`; an
// export that fails leaves no file; a file cut short, a damaged gzip, another agent's file,
// a missing file are each said plainly, never thrown past the report.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadEngine } from "../../tests/support/packages.mjs";
import { createExporter, createRestorer, readExportLines } from "../plugin/export.js";

const wasm = await loadEngine();
const dir = mkdtempSync(join(tmpdir(), "ov-export-"));
process.on("exit", () => rmSync(dir, { recursive: true, force: true }));

const header = JSON.stringify({ kind: "header", format: "openviking-context-engine-export", version: 1, agentId: "main", exportedAt: "2026-12-05T00:00:00Z" });
const session = JSON.stringify({ kind: "session", sessionId: "s1", ovSessionId: "main--s1", archives: 0, turns: 1 });
const turnLine = JSON.stringify({ kind: "turn", sessionId: "s1", turnId: "t1", atMs: 1, archive: null, messages: [{ role: "user", content: "hi" }] });

/** An engine that exports one session of one turn, or fails at `failAt`. */
function engine({ failAt = null, restored = [] } = {}) {
  return {
    async exportStart() {
      if (failAt === "start") throw new Error("OpenViking unreachable");
      return { header, sessions: ["main--s1"] };
    },
    async exportSession() {
      if (failAt === "session") throw new Error("archive 1 of main--s1: timeout");
      return { lines: [session, turnLine], turns: 1, memories: 0, problems: [] };
    },
    async exportMemories() {
      return { lines: [], turns: 0, memories: 0, problems: [] };
    },
    async restoreSession(req) {
      restored.push(req);
      return { sessionId: "s1", ovSessionId: "main--s1", turns: 1, archives: 0, alreadyStored: 0, written: req.apply ? 1 : 0, remaining: req.apply ? 0 : 1, queued: 0, commits: 0, archived: 0, stopped: null };
    },
    async restoreMemories() {
      return { memories: 0, alreadyStored: 0, written: 0, remaining: 0, problems: [] };
    },
  };
}
const runtime = { wasm, ensureServer: async () => {} };
const pick = (e, agentId = "main") => () => ({ agentId, engine: e });

test("an export is written whole through .partial, 0600, gzip for .gz, and read back", async () => {
  for (const name of ["a.jsonl", "a.jsonl.gz"]) {
    const out = join(dir, name);
    const doc = await createExporter(runtime, { pickAgent: pick(engine()) })({ out });
    assert.equal(doc.error, null);
    assert.deepEqual(doc.totals, { sessions: 1, turns: 1, memories: 0 });
    assert.equal(statSync(out).mode & 0o777, 0o600);
    assert.ok(!existsSync(`${out}.partial`));
    const lines = await readExportLines(out);
    assert.deepEqual(lines.slice(0, 3), [header, session, turnLine]);
    assert.equal(wasm.indexExport(lines).complete, true);
  }
});

test("an export that fails half-way leaves no file, and says why", async () => {
  const out = join(dir, "failed.jsonl");
  const doc = await createExporter(runtime, { pickAgent: pick(engine({ failAt: "session" })) })({ out });
  assert.match(doc.error, /archive 1 of main--s1: timeout/);
  assert.ok(!existsSync(out) && !existsSync(`${out}.partial`));
  const nowhere = await createExporter(runtime, { pickAgent: pick(engine()) })({ out: join(dir, "no-such-dir", "x.jsonl") });
  assert.match(nowhere.error, /ENOENT/);
  const none = await createExporter(runtime, { pickAgent: pick(engine()) })({});
  assert.match(none.error, /^--out <file> is required/);
});

test("a restore reads what it can and says what it could not: a cut file, a damaged gzip, another agent's file, no file", async () => {
  const restored = [];
  const restore = createRestorer(runtime, { pickAgent: pick(engine({ restored })) });
  const cut = join(dir, "cut.jsonl");
  writeFileSync(cut, `${header}\n${session}\n${turnLine}\n{"kind":"memory","sco`);
  const doc = await restore({ from: cut, apply: true });
  assert.equal(doc.error, null);
  assert.equal(doc.complete, false);
  assert.match(doc.problems.join("\n"), /line 4: cannot be read/);
  assert.deepEqual([doc.totals.written, restored.at(-1).lines.length], [1, 2]);

  const gz = gzipSync(Buffer.from(`${header}\n${session}\n${turnLine}\n`));
  const damaged = join(dir, "damaged.jsonl.gz");
  writeFileSync(damaged, gz.subarray(0, gz.length - 12));
  assert.match((await restore({ from: damaged })).error, /gzip data is cut short or damaged|unexpected end of file/);

  const theirs = createRestorer(runtime, { pickAgent: pick(engine(), "ops") });
  assert.match((await theirs({ from: cut })).error, /agent main's past, and this would restore it into agent ops: pass --agent main/);
  assert.equal((await theirs({ from: cut, agent: "ops" })).error, null, "named on purpose");

  assert.match((await restore({ from: join(dir, "nope.jsonl") })).error, /no such file/);
  const notOurs = join(dir, "other.jsonl");
  writeFileSync(notOurs, '{"type":"session","id":"x"}\n');
  assert.match((await restore({ from: notOurs })).error, /is not the header of an openviking-context-engine-export file/);
  assert.match((await restore({ from: cut, limit: "many" })).error, /--limit must be a whole number/);
});
