// `openclaw openviking import`: an agent's sessions from OpenClaw's own store
// (openclaw-sessions.js) into OpenViking, through the engine (`ContextEngine.importSession`,
// which decides what each transcript holds, what OpenViking lacks, and writes it once, in
// order, committing as the live triggers would). A dry run unless `apply`. This file only
// walks the sessions, hands each transcript over in slices of turns (so a long one shows
// progress and a kill loses at most the slice in flight, which the next run finds), runs a
// few sessions at once, and tells the operator how far it got.
import { listSessions, readLines } from "./openclaw-sessions.js";

/** Turns written per engine call: the unit of progress. */
export const SLICE_TURNS = 100;
/** Sessions imported at once when not told otherwise. */
export const DEFAULT_CONCURRENCY = 2;
/** The state key of an import under way (for `status`). */
export const progressKey = (agentId) => `import/${agentId}`;

const message = (err) => String(err?.message ?? err);

/** The options of `openclaw openviking import` on its Commander command. */
export function importOptions(cmd) {
  return cmd
    .option("--apply", "write (without it: a dry run that says what would be written)")
    .option("--session <sessionId>", "only this OpenClaw session")
    .option("--since <date>", "only turns at or after this time (2026-11-30, an ISO time, or ms)")
    .option("--until <date>", "only turns before this time")
    .option("--limit <n>", "write at most this many turns in this run (the next run goes on)")
    .option("--concurrency <n>", `sessions imported at once (default ${DEFAULT_CONCURRENCY})`)
    .option("--include-deleted", "also transcripts OpenClaw keeps as deleted or reset")
    .option("--from <file>", "restore a file `openclaw openviking export` wrote, instead of reading OpenClaw's sessions");
}

/** "2026-11-30", "2026-11-30T10:00:00Z" or milliseconds → ms; null for nothing; throws naming the flag. */
export function parseTime(flag, value) {
  if (value === undefined || value === null || value === "") return null;
  const n = /^\d+$/.test(String(value)) ? Number(value) : Date.parse(String(value));
  if (!Number.isFinite(n) || n < 0) throw new Error(`${flag} must be a date (2026-11-30, 2026-11-30T10:00:00Z) or milliseconds since 1970, got ${JSON.stringify(value)}`);
  return n;
}

/** A positive whole number from a flag, or null; throws naming the flag. */
export function parseCount(flag, value) {
  if (value === undefined || value === null || value === "") return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${flag} must be a whole number of 1 or more, got ${JSON.stringify(value)}`);
  return n;
}

/**
 * Progress for a person: a bar redrawn in place on a terminal, a line per slice otherwise,
 * both on stderr (stdout keeps the report, `--json` included).
 */
export function createProgress({ stream = process.stderr, now = () => Date.now() } = {}) {
  const tty = Boolean(stream?.isTTY);
  const start = now();
  let total = 0;
  let done = 0;
  let drawn = false;
  const rate = () => {
    const s = (now() - start) / 1000;
    return s > 0 ? done / s : 0;
  };
  function line(label) {
    const r = rate();
    const eta = r > 0 && total > done ? ` · about ${Math.ceil((total - done) / r)} s left` : "";
    return `${label} ${done}/${total} turns · ${r.toFixed(1)} turns/s${eta}`;
  }
  return {
    add(n) {
      total += n;
    },
    tick(n, session) {
      done += n;
      if (tty) {
        const width = 24;
        const filled = total ? Math.round((done / total) * width) : width;
        stream.write(`\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${line(session)}\x1b[K`);
        drawn = true;
      } else {
        stream.write(`import: ${line(session)}\n`);
      }
    },
    end() {
      if (drawn) stream.write("\n");
    },
    get done() {
      return done;
    },
    get total() {
      return total;
    },
    rate,
  };
}

/**
 * The import over one plugin runtime: `run({agent, session, since, until, limit, apply,
 * concurrency, includeDeleted, openclawStateDir})` → the report document.
 */
export function createImporter(runtime, { pickAgent, now = () => Date.now(), progress = null } = {}) {
  return async function run(opts = {}) {
    const started = now();
    const doc = { command: "import", apply: Boolean(opts.apply), agentId: null, openclawStateDir: opts.openclawStateDir, sessions: [], totals: { sessions: 0, turns: 0, toolCalls: 0, tokens: 0, alreadyStored: 0, written: 0, remaining: 0, queued: 0, commits: 0 }, elapsedMs: 0, turnsPerSecond: null, error: null };
    try {
      const sinceMs = parseTime("--since", opts.since);
      const untilMs = parseTime("--until", opts.until);
      let budget = parseCount("--limit", opts.limit) ?? Infinity;
      const concurrency = parseCount("--concurrency", opts.concurrency) ?? DEFAULT_CONCURRENCY;
      const agent = pickAgent(opts);
      doc.agentId = agent.agentId;
      let sessions = await listSessions(opts.openclawStateDir, agent.agentId, { includeDeleted: Boolean(opts.includeDeleted) });
      if (opts.session) {
        sessions = sessions.filter((s) => s.sessionId === opts.session);
        if (!sessions.length) throw new Error(`no session ${opts.session} of agent ${agent.agentId} under ${opts.openclawStateDir}`);
      }
      if (doc.apply) await runtime.ensureServer?.();
      const bar = doc.apply ? progress : null;
      const saveProgress = (session) =>
        runtime.store?.saveState?.(progressKey(agent.agentId), { pid: process.pid, startedAt: started, session, done: bar?.done ?? 0, total: bar?.total ?? 0 }).catch?.(() => {});

      async function one(s) {
        const row = { sessionId: s.sessionId, sessionKey: s.sessionKey, source: s.source, deleted: s.deleted, error: null };
        try {
          const lines = await readLines(s);
          const base = { sessionId: s.sessionId, lines, sinceMs, untilMs };
          const seen = await agent.engine.importSession({ ...base, apply: false });
          Object.assign(row, seen, { written: 0, commits: 0 });
          if (!doc.apply || seen.remaining === 0) return row;
          bar?.add(Math.min(seen.remaining, budget));
          while (row.remaining > 0 && budget > 0) {
            const take = Math.min(SLICE_TURNS, budget);
            budget -= take; // reserved before the await: sessions running at once share it
            const r = await agent.engine.importSession({ ...base, apply: true, limit: take });
            budget += take - r.written;
            Object.assign(row, { alreadyStored: r.alreadyStored, remaining: r.remaining, queued: r.queued, stopped: r.stopped, written: row.written + r.written, commits: row.commits + r.commits });
            bar?.tick(r.written, s.sessionId);
            await saveProgress(s.sessionId);
            if (r.stopped || r.written === 0) break;
          }
        } catch (err) {
          row.error = message(err);
        }
        return row;
      }

      const queue = [...sessions];
      const workers = Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
        for (let s = queue.shift(); s; s = queue.shift()) doc.sessions.push(await one(s));
      });
      await Promise.all(workers);
      bar?.end();
      doc.sessions.sort((a, b) => sessions.indexOf(sessions.find((s) => s.sessionId === a.sessionId)) - sessions.indexOf(sessions.find((s) => s.sessionId === b.sessionId)));
      for (const r of doc.sessions) {
        doc.totals.sessions += 1;
        for (const k of ["turns", "toolCalls", "tokens", "alreadyStored", "written", "remaining", "queued", "commits"]) doc.totals[k] += r[k] ?? 0;
      }
      await runtime.store?.saveState?.(progressKey(agent.agentId), { pid: process.pid, startedAt: started, finishedAt: now(), session: null, done: doc.totals.written, total: doc.totals.written + doc.totals.remaining }).catch?.(() => {});
    } catch (err) {
      doc.error = message(err);
    }
    doc.elapsedMs = now() - started;
    doc.turnsPerSecond = doc.apply && doc.elapsedMs > 0 ? Math.round((doc.totals.written / (doc.elapsedMs / 1000)) * 10) / 10 : null;
    return doc;
  };
}
