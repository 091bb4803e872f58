// The plugin's one cross-process lock: a file created with O_EXCL that holds
// `{pid, host, owner, expiresAtMs}` (and what the taker adds, such as a port). The state
// store's outbox locks and the local server's start lock are both this.
//
// - Its holder is gone when the lock has expired, when its pid is dead on this host (proc.js:
//   a zombie is dead; a pid this host cannot check counts as alive, so only the expiry frees
//   it), or when the file cannot be read as a lock and is older than STALE_UNREADABLE_MS (a
//   crash between create and write).
// - A gone holder's lock is broken under a breaker file (`<lock>.break`, O_EXCL), and only if
//   it still holds the bytes that were judged stale: two breakers never both remove it, and a
//   fresh lock taken meanwhile is never removed.
// - Only its owner (one id per lockFiles() instance: not re-entrant) releases a lock.
// - Not fsync'd: a lock orders live processes, which see the file as soon as it is created;
//   after a machine crash no holder is alive, so a lock lost with it changes nothing, and one
//   kept is stale and broken.
import { promises as nodeFs, readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { pidAlive } from "./openviking/proc.js";

/** A lock file or breaker this old that cannot be read as a lock is left by a crash. */
export const STALE_UNREADABLE_MS = 10_000;

const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

function parseLock(bytes) {
  try {
    const lock = JSON.parse(Buffer.isBuffer(bytes) ? bytes.toString("utf8") : String(bytes));
    return isObject(lock) ? lock : null;
  } catch {
    return null;
  }
}

/** Write every byte of `buf` at the handle's position (the end, for an append handle): a
 *  short write is continued, a write of 0 bytes is a failure. (The state store's writes too.) */
export async function writeAll(h, buf) {
  for (let off = 0; off < buf.length; ) {
    const { bytesWritten } = await h.write(buf, off, buf.length - off);
    if (!(bytesWritten > 0)) throw new Error(`short write: ${off} of ${buf.length} bytes written`);
    off += bytesWritten;
  }
}

/** Whether a lock's holder on this host may still hold it: alive by proc.js, or a pid that
 *  is not one (only the lock's expiry frees it then). */
function holderAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return true;
  return pidAlive(pid);
}

/** Whether a readable lock's holder is gone: expired, or its pid dead on this host. */
function holderGone(lock, now) {
  if (typeof lock.expiresAtMs !== "number" || now > lock.expiresAtMs) return true;
  return lock.host === hostname() && !holderAlive(lock.pid);
}

/** Whether the holder of a lock file with these bytes and mtime is gone (see the top). */
export function isStale(bytes, mtimeMs, now = Date.now()) {
  const lock = parseLock(bytes);
  if (!lock || typeof lock.expiresAtMs !== "number") return now - mtimeMs > STALE_UNREADABLE_MS;
  return holderGone(lock, now);
}

/** Who holds lock `file` as far as its bytes show, read synchronously (`doctor`, "is a start
 *  under way"): `{pid, host, expiresAtMs, live}`, or null when there is no readable lock.
 *  `live`: not expired and, on this host, its pid alive. */
export function lockHolder(file, now = Date.now()) {
  let lock;
  try {
    lock = parseLock(readFileSync(file));
  } catch {
    return null;
  }
  if (!lock) return null;
  return { pid: lock.pid, host: lock.host, expiresAtMs: lock.expiresAtMs, live: !holderGone(lock, now) };
}

/**
 * Locks taken and released by one owner.
 * @param {object} [o]
 * @param {import("node:fs").promises} [o.fs] node's fs.promises, or a stand-in (tests inject faults)
 * @param {(file: string) => Promise<import("node:fs/promises").FileHandle>} [o.create] opens
 *   `file` with "wx" (the state store makes the folder and sets the file's mode)
 */
export function lockFiles({ fs = nodeFs, create = (file) => fs.open(file, "wx", 0o600) } = {}) {
  const owner = randomUUID();

  /** The file's bytes and mtime, or null when there is none. */
  async function read(file) {
    try {
      const st = await fs.stat(file);
      return { bytes: await fs.readFile(file), mtimeMs: st.mtimeMs };
    } catch (err) {
      if (err.code === "ENOENT") return null;
      throw err;
    }
  }

  /** Create lock `file`; false when it exists. */
  async function createLock(file, ttlMs, meta) {
    let h;
    try {
      h = await create(file);
    } catch (err) {
      if (err.code === "EEXIST") return false;
      throw err;
    }
    try {
      const lock = { ...meta, pid: process.pid, host: hostname(), owner, expiresAtMs: Date.now() + ttlMs };
      await writeAll(h, Buffer.from(JSON.stringify(lock), "utf8"));
    } catch (err) {
      await h.close().catch(() => {});
      h = null;
      await fs.rm(file, { force: true }).catch(() => {}); // ours (O_EXCL), and unusable
      throw err;
    } finally {
      await h?.close();
    }
    return true;
  }

  /** Remove lock `file` if it still holds exactly `bytes`, under the breaker. False: another
   *  process is breaking it; give up this attempt. */
  async function breakLock(file, bytes) {
    const breaker = `${file}.break`;
    let b;
    try {
      b = await create(breaker);
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
      // a breaker left by a crash is cleared, for a later attempt
      const st = await fs.stat(breaker).catch(() => null);
      if (st && Date.now() - st.mtimeMs > STALE_UNREADABLE_MS) await fs.rm(breaker, { force: true });
      return false;
    }
    try {
      await b.close();
      const now = await read(file);
      if (now?.bytes.equals(bytes)) await fs.rm(file, { force: true });
      return true;
    } finally {
      await fs.rm(breaker, { force: true });
    }
  }

  return {
    owner,
    /**
     * Take lock `file` for `ttlMs`: true if taken, false while a live holder has it.
     * `reclaim`: a lock of this owner's still on disk (released but not removable then) is free
     * to it. `meta` is written into the lock beside the holder.
     */
    async take(file, ttlMs, { meta = {}, reclaim = false } = {}) {
      if (!(Number.isFinite(ttlMs) && ttlMs > 0)) throw new Error(`ttlMs must be a positive number, not ${ttlMs}`);
      if (await createLock(file, ttlMs, meta)) return true;
      const seen = await read(file);
      if (seen) {
        const mine = reclaim && parseLock(seen.bytes)?.owner === owner;
        if (!(mine || isStale(seen.bytes, seen.mtimeMs))) return false;
        if (!(await breakLock(file, seen.bytes))) return false;
      }
      return createLock(file, ttlMs, meta);
    },
    /** Release lock `file` if this owner holds it: true if removed, false when it is gone or
     *  someone else's. A removal that fails throws (the caller may retry later). */
    async release(file) {
      const now = await read(file);
      if (!now || parseLock(now.bytes)?.owner !== owner) return false;
      await fs.rm(file, { force: true });
      return true;
    },
  };
}
