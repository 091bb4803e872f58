// OpenClaw's own record of an agent's sessions, read for `openclaw openviking import` —
// read-only, never written. Where the installed OpenClaw keeps them (checked in the
// releases this plugin supports):
//   2026.9.x  <state>/agents/<agent>/agent/openclaw-agent.sqlite — `session_windows` (one row
//             per transcript: session_id, session_key, times) and `transcript_events` (one
//             row per event: `event_json`, or `event_zstd` for a large one), opened read-only
//             with node:sqlite; legacy `<state>/agents/<agent>/sessions/*.jsonl` files may sit
//             beside it (the database wins for a session both hold)
//   2026.7.x and older  <state>/agents/<agent>/sessions/<sessionId>.jsonl, one event per
//             line, and sessions.json (session key → sessionId)
// Transcripts a user deleted or reset (`*.jsonl.deleted.<time>`, `*.jsonl.reset.<time>`) are
// listed as `deleted` and read only when asked for. The plugin API's session accessor
// (`api.runtime.subagent.getSessionMessages`) answers messages without the event ids and
// times a lossless, idempotent import needs, and only through a gateway; hence the store.
// What a transcript's lines mean is the engine's to decide (lifecycle/transcript.rs): this
// file only finds them and hands them over in order.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const SQLITE_FILE = "openclaw-agent.sqlite";
const TRANSCRIPT = /^(.+)\.jsonl(?:\.(deleted|reset)\.[^/]+)?$/;

/** The paths of one agent's session store under OpenClaw's state dir. */
export function agentStore(openclawStateDir, agentId) {
  const base = join(openclawStateDir, "agents", agentId);
  return { sqlite: join(base, "agent", SQLITE_FILE), sessionsDir: join(base, "sessions") };
}

async function openDatabase(path) {
  let sqlite;
  try {
    sqlite = await import("node:sqlite");
  } catch {
    throw new Error(`${path} needs node:sqlite (Node 22.5 or later, as OpenClaw 2026.9 itself): run the import with OpenClaw's own Node`);
  }
  return new sqlite.DatabaseSync(path, { readOnly: true });
}

function hasTable(db, name) {
  return Boolean(db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name));
}

/** The sessions in the agent's database: {sessionId, sessionKey, source, path, events, startedAt, updatedAt}. */
async function databaseSessions(path) {
  if (!existsSync(path)) return [];
  const db = await openDatabase(path);
  try {
    if (!hasTable(db, "transcript_events")) return [];
    const windows = hasTable(db, "session_windows")
      ? new Map(db.prepare("SELECT session_id, session_key, created_at, updated_at FROM session_windows").all().map((r) => [r.session_id, r]))
      : new Map();
    const rows = db.prepare("SELECT session_id, count(*) AS n, min(created_at) AS first, max(created_at) AS last FROM transcript_events GROUP BY session_id").all();
    return rows.map((r) => {
      const w = windows.get(r.session_id);
      return { sessionId: r.session_id, sessionKey: w?.session_key ?? null, source: "sqlite", path, deleted: false, events: Number(r.n), startedAt: Number(w?.created_at ?? r.first), updatedAt: Number(r.last) };
    });
  } finally {
    db.close();
  }
}

function sessionKeys(dir) {
  try {
    const doc = JSON.parse(readFileSync(join(dir, "sessions.json"), "utf8"));
    return new Map(Object.entries(doc ?? {}).filter(([, v]) => typeof v?.sessionId === "string").map(([k, v]) => [v.sessionId, k]));
  } catch {
    return new Map();
  }
}

/** The agent's JSONL transcripts (legacy, or the only store of older releases). */
function fileSessions(dir) {
  if (!existsSync(dir)) return [];
  const keys = sessionKeys(dir);
  const out = [];
  for (const name of readdirSync(dir)) {
    const m = TRANSCRIPT.exec(name);
    if (!m || m[1].endsWith(".trajectory")) continue;
    const path = join(dir, name);
    let st;
    try {
      st = statSync(path);
    } catch {
      continue;
    }
    if (!st.isFile()) continue;
    out.push({ sessionId: m[1], sessionKey: keys.get(m[1]) ?? null, source: "jsonl", path, deleted: Boolean(m[2]), events: null, startedAt: Math.round(st.birthtimeMs || st.mtimeMs), updatedAt: Math.round(st.mtimeMs) });
  }
  return out;
}

/**
 * Every session OpenClaw holds for `agentId`, oldest first: the database's, then transcript
 * files the database does not hold. `deleted` ones only with `includeDeleted`.
 */
export async function listSessions(openclawStateDir, agentId, { includeDeleted = false } = {}) {
  const store = agentStore(openclawStateDir, agentId);
  const fromDb = await databaseSessions(store.sqlite);
  const inDb = new Set(fromDb.map((s) => s.sessionId));
  const files = fileSessions(store.sessionsDir).filter((s) => !inDb.has(s.sessionId) && (includeDeleted || !s.deleted));
  // a live transcript and its deleted copies: the live one is the session, a deleted copy
  // is an earlier transcript of the same id (named apart so both can be brought in)
  const seen = new Map();
  for (const s of files) {
    if (s.deleted) s.sessionId = `${s.sessionId}.${s.path.slice(s.path.lastIndexOf(".jsonl.") + 7).replace(/[^A-Za-z0-9_-]/g, "_")}`;
    seen.set(s.sessionId, s);
  }
  return [...fromDb, ...seen.values()].sort((a, b) => a.startedAt - b.startedAt || a.sessionId.localeCompare(b.sessionId));
}

/** What a row that cannot be read becomes: a line the engine counts as unreadable. */
const UNREADABLE = "(an event this Node could not decompress)";

/** One session of the agent by its id, or null: the database's row, else its transcript
 *  file (a bootstrap's first contact looks for exactly one). */
export async function findSession(openclawStateDir, agentId, sessionId) {
  const store = agentStore(openclawStateDir, agentId);
  if (existsSync(store.sqlite)) {
    const db = await openDatabase(store.sqlite);
    try {
      if (hasTable(db, "transcript_events") && db.prepare("SELECT 1 FROM transcript_events WHERE session_id = ? LIMIT 1").get(sessionId)) {
        return { sessionId, sessionKey: null, source: "sqlite", path: store.sqlite, deleted: false };
      }
    } finally {
      db.close();
    }
  }
  const file = join(store.sessionsDir, `${sessionId}.jsonl`);
  return !sessionId.includes("/") && existsSync(file) ? { sessionId, sessionKey: null, source: "jsonl", path: file, deleted: false } : null;
}

async function zstd() {
  const zlib = await import("node:zlib");
  return typeof zlib.zstdDecompressSync === "function" ? zlib.zstdDecompressSync : null;
}

/** A session's transcript as lines (events in order); a line that cannot be read is passed
 *  on as it is, and the engine counts it. */
export async function readLines(session) {
  if (session.source === "jsonl") return readFileSync(session.path, "utf8").split("\n");
  const db = await openDatabase(session.path);
  try {
    const unzip = await zstd();
    const rows = db.prepare("SELECT event_json, event_zstd FROM transcript_events WHERE session_id = ? ORDER BY seq").all(session.sessionId);
    return rows.map((r) => {
      if (typeof r.event_json === "string") return r.event_json;
      if (r.event_zstd && unzip) {
        try {
          return unzip(Buffer.from(r.event_zstd)).toString("utf8");
        } catch {
          return UNREADABLE;
        }
      }
      return UNREADABLE;
    });
  } finally {
    db.close();
  }
}
