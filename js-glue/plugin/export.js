// `openclaw openviking export --out <file>` and `openclaw openviking import --from <file>`:
// an agent's past moved to another OpenViking account or server (or kept as a backup). The
// engine reads OpenViking and makes the file's lines (`exportStart`, `exportSession`,
// `exportMemories`, `exportEndLine`), and reads them back (`indexExport`, `restoreSession`,
// `restoreMemories`); the format is the engine's. This file only moves lines between the
// engine and the file: written to `<file>.partial` (mode 0600: it holds what the user said)
// and renamed when whole, gzip when the name ends in `.gz`; read back whole (gzip or not).
import { createReadStream, createWriteStream, existsSync, renameSync, rmSync } from "node:fs";
import { createInterface } from "node:readline";
import { createGunzip, createGzip } from "node:zlib";
import { once } from "node:events";
import { parseCount } from "./import.js";

/** Turns restored per engine call: the unit of progress (and of what a kill can cut). */
export const RESTORE_SLICE_TURNS = 100;

const message = (err) => String(err?.message ?? err);

/** The options of `openclaw openviking export`. */
export function exportOptions(cmd) {
  return cmd
    .option("--out <file>", "the file to write (JSON lines; gzip when it ends in .gz)")
    .option("--force", "replace the file if it exists");
}

/** Writes lines to `file` through `<file>.partial`, gzip for `.gz`; `finish()` renames it. */
function lineWriter(file) {
  const partial = `${file}.partial`;
  const out = createWriteStream(partial, { mode: 0o600 });
  const gzip = file.endsWith(".gz") ? createGzip() : null;
  if (gzip) gzip.pipe(out);
  const sink = gzip ?? out;
  let failed = null;
  // one promise for the first error of either stream (handled here: a late one is no
  // unhandled rejection)
  const broke = new Promise((_, reject) => {
    const on = (e) => {
      failed ??= e;
      reject(e);
    };
    out.on("error", on);
    gzip?.on("error", on);
  });
  broke.catch(() => {});
  let bytes = 0;
  return {
    async write(lines) {
      if (failed) throw failed;
      for (const l of lines) {
        bytes += Buffer.byteLength(l) + 1;
        if (!sink.write(`${l}\n`)) await Promise.race([once(sink, "drain"), broke]);
        if (failed) throw failed;
      }
    },
    async finish() {
      sink.end();
      await once(out, "close");
      if (failed) throw failed;
      renameSync(partial, file);
      return bytes;
    },
    abort() {
      sink.destroy();
      out.destroy();
      rmSync(partial, { force: true });
    },
  };
}

/** An export over one plugin runtime: `run({agent, out, force})` → the report document. */
export function createExporter(runtime, { pickAgent, now = () => Date.now() } = {}) {
  return async function run(opts = {}) {
    const started = now();
    const doc = { command: "export", agentId: null, file: opts.out ?? null, sessions: [], totals: { sessions: 0, turns: 0, memories: 0 }, bytes: 0, problems: [], elapsedMs: 0, error: null };
    let writer = null;
    try {
      if (!opts.out) throw new Error("--out <file> is required: the file to write the export to (end it in .gz to compress it)");
      if (existsSync(opts.out) && !opts.force) throw new Error(`${opts.out} exists: pass --force to replace it, or choose another --out`);
      const agent = pickAgent(opts);
      doc.agentId = agent.agentId;
      await runtime.ensureServer?.();
      const start = await agent.engine.exportStart();
      writer = lineWriter(opts.out);
      await writer.write([start.header]);
      for (const ov of start.sessions) {
        const part = await agent.engine.exportSession(ov);
        await writer.write(part.lines);
        doc.sessions.push({ ovSessionId: ov, turns: part.turns, problems: part.problems });
        doc.totals.sessions += 1;
        doc.totals.turns += part.turns;
        doc.problems.push(...part.problems);
      }
      const mem = await agent.engine.exportMemories();
      await writer.write(mem.lines);
      doc.totals.memories = mem.memories;
      doc.problems.push(...mem.problems);
      await writer.write([runtime.wasm.exportEndLine(doc.totals)]);
      doc.bytes = await writer.finish();
      writer = null;
    } catch (err) {
      writer?.abort();
      doc.error = message(err);
    }
    doc.elapsedMs = now() - started;
    return doc;
  };
}

/** The lines of an export file (gzip or not: its first bytes say). */
export async function readExportLines(file) {
  if (!existsSync(file)) throw new Error(`--from ${file}: no such file`);
  const head = await new Promise((resolve, reject) => {
    const s = createReadStream(file, { start: 0, end: 1 });
    const chunks = [];
    s.on("data", (c) => chunks.push(c)).on("end", () => resolve(Buffer.concat(chunks))).on("error", reject);
  });
  const raw = createReadStream(file);
  const input = head[0] === 0x1f && head[1] === 0x8b ? raw.pipe(createGunzip()) : raw;
  const failed = new Promise((_, reject) => {
    raw.on("error", reject);
    input.on("error", (e) => reject(new Error(`--from ${file}: ${e.code === "Z_BUF_ERROR" || e.code === "Z_DATA_ERROR" ? "the gzip data is cut short or damaged" : e.message}`)));
  });
  failed.catch(() => {}); // an error after the lines were read is no unhandled rejection
  const lines = [];
  const rl = createInterface({ input, crlfDelay: Infinity });
  const read = (async () => {
    for await (const l of rl) lines.push(l);
  })();
  await Promise.race([read, failed]);
  return lines;
}

/**
 * A restore (`import --from`) over one plugin runtime: `run({from, agent, apply, limit})` →
 * the report document (per session what the file holds, what OpenViking has, what was
 * written; the memories).
 */
export function createRestorer(runtime, { pickAgent, now = () => Date.now(), progress = null } = {}) {
  return async function run(opts = {}) {
    const started = now();
    const doc = { command: "import", from: opts.from, apply: Boolean(opts.apply), agentId: null, fromAgentId: null, exportedAt: null, complete: null, problems: [], sessions: [], memories: null, totals: { sessions: 0, turns: 0, alreadyStored: 0, written: 0, remaining: 0, queued: 0, commits: 0 }, elapsedMs: 0, turnsPerSecond: null, error: null };
    try {
      let budget = parseCount("--limit", opts.limit) ?? Infinity;
      const lines = await readExportLines(opts.from);
      const index = runtime.wasm.indexExport(lines);
      Object.assign(doc, { fromAgentId: index.agentId, exportedAt: index.exportedAt, complete: index.complete, problems: index.problems });
      const agent = pickAgent(opts);
      doc.agentId = agent.agentId;
      if (index.agentId !== agent.agentId && !opts.agent) {
        throw new Error(`the file holds agent ${index.agentId}'s past, and this would restore it into agent ${agent.agentId}: pass --agent ${index.agentId} (or --agent ${agent.agentId} to give it to that agent on purpose)`);
      }
      if (doc.apply) await runtime.ensureServer?.();
      const bar = doc.apply ? progress : null;
      for (const s of index.sessions) {
        const part = s.lines.map((i) => lines[i]);
        const row = { sessionId: s.sessionId, ovSessionId: s.ovSessionId, error: null };
        try {
          const seen = await agent.engine.restoreSession({ lines: part, apply: false });
          Object.assign(row, seen, { written: 0, commits: 0 });
          bar?.add(Math.min(seen.remaining, budget));
          // written but not archived yet (a run killed before its commit) counts as work too
          const due = (r) => r.remaining > 0 || (r.archived ?? 0) < s.archives;
          while (doc.apply && due(row) && budget > 0) {
            const take = Math.min(RESTORE_SLICE_TURNS, budget);
            const r = await agent.engine.restoreSession({ lines: part, apply: true, limit: take });
            budget -= r.written;
            Object.assign(row, { alreadyStored: r.alreadyStored, remaining: r.remaining, queued: r.queued, archived: r.archived, stopped: r.stopped, written: row.written + r.written, commits: row.commits + r.commits });
            bar?.tick(r.written, s.sessionId);
            if (r.stopped || !due(r) || (r.written === 0 && r.commits === 0)) break;
          }
        } catch (err) {
          row.error = message(err);
        }
        doc.sessions.push(row);
      }
      bar?.end();
      if (index.memoryLines.length) {
        const mem = index.memoryLines.map((i) => lines[i]);
        try {
          doc.memories = await agent.engine.restoreMemories({ lines: mem, apply: doc.apply });
        } catch (err) {
          doc.memories = { error: message(err) };
        }
      }
      for (const r of doc.sessions) {
        doc.totals.sessions += 1;
        for (const k of ["turns", "alreadyStored", "written", "remaining", "queued", "commits"]) doc.totals[k] += r[k] ?? 0;
      }
    } catch (err) {
      doc.error = message(err);
    }
    doc.elapsedMs = now() - started;
    doc.turnsPerSecond = doc.apply && doc.elapsedMs > 0 ? Math.round((doc.totals.written / (doc.elapsedMs / 1000)) * 10) / 10 : null;
    return doc;
  };
}
