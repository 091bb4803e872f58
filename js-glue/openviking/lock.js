// lock.js — a cross-process exclusive lock file (O_CREAT|O_EXCL) with stale-lock detection:
// a lock whose holder pid is gone, or that is older than staleMs, is broken and retaken.
// Only the holder (by a random token) ever removes its lock.

import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { pidAlive } from "./proc.js";

const UNWRITTEN_GRACE_MS = 10000; // an empty/garbled lock younger than this is being written

function readLock(path) {
  try {
    const text = readFileSync(path, "utf8");
    const mtime = statSync(path).mtimeMs;
    try {
      const info = JSON.parse(text);
      return info && typeof info === "object" ? { ...info, mtime } : { mtime };
    } catch {
      return { mtime };
    }
  } catch (err) {
    if (err.code === "ENOENT") return null;
    throw err;
  }
}

function isStale(info, staleMs) {
  const age = Date.now() - (Number.isFinite(info.createdAt) ? info.createdAt : info.mtime);
  if (!Number.isInteger(info.pid)) return Date.now() - info.mtime > UNWRITTEN_GRACE_MS;
  return !pidAlive(info.pid) || age > staleMs;
}

function breakLock(path, seen) {
  const aside = `${path}.stale-${randomUUID()}`;
  try {
    renameSync(path, aside);
  } catch (err) {
    if (err.code === "ENOENT") return; // someone else broke it first
    throw err;
  }
  const moved = readLock(aside);
  if (moved && moved.token !== seen.token) {
    // we raced and moved a fresh lock: put it back unless a newer one already exists
    try {
      linkSync(aside, path);
    } catch {
      /* EEXIST: leave the newer lock alone */
    }
  }
  try {
    unlinkSync(aside);
  } catch {
    /* already gone */
  }
}

/**
 * Try once (plus one retry after breaking a stale lock) to take the lock.
 * @returns {{release: () => void, token: string} | null} null when a live holder has it
 */
export function tryLock(path, { staleMs = 120000, meta = {} } = {}) {
  for (let attempt = 0; attempt < 2; attempt++) {
    const token = randomUUID();
    try {
      const fd = openSync(path, "wx", 0o600);
      try {
        writeSync(fd, JSON.stringify({ ...meta, pid: process.pid, token, createdAt: Date.now() }));
      } finally {
        closeSync(fd);
      }
      return {
        token,
        release() {
          const cur = readLock(path);
          if (cur && cur.token === token) {
            try {
              unlinkSync(path);
            } catch {
              /* already gone */
            }
          }
        },
      };
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
    }
    const info = readLock(path);
    if (info && !isStale(info, staleMs)) return null;
    if (info) breakLock(path, info);
  }
  return null;
}
