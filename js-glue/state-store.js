// Durable local state for the engine, in the plugin's state dir:
//   <stateDir>/state/<key>.json    one JSON document per key, replaced atomically
//                                  (write temp file, fsync, rename, fsync dir); a cache the
//                                  engine can rebuild (saveCache) without the two fsyncs, so
//                                  a crash leaves the previous file or an empty one (none)
//   <stateDir>/outbox/<key>.jsonl  an ordered queue, one framed record per line:
//                                  `#<crc32, 8 hex>:<byte length>:<JSON>\n`; a line whose
//                                  length or checksum does not match (a torn or corrupt
//                                  record) is skipped on read, a line without the `#` frame
//                                  is a plain JSON record from an earlier version
//   <stateDir>/locks/<name>.lock   a cross-process lock (lock-file.js): created with O_EXCL,
//                                  holds {pid, host, owner, expiresAtMs}; a stale one is broken
// Acknowledged means durably stored: an append resolves only once every byte is written,
// fsync'd and read back as a valid record; a failed one (full disk, read-only, short write)
// is cut back off the file and rejects. Two processes sharing a state dir must hold
// tryLock(key) around their writes to outbox `key`.
// Writes to one key are chained, so they land in call order; lock calls on a name share the
// chain of the outbox with that key. Keys are file-name encoded.
// The files hold whole turns (private text): every file written here is 0600 and every
// folder created here 0700, set explicitly after creation so no umask changes them; a state
// dir left by an older version (0644 files in 0755 folders) is tightened when first opened.
import { promises as nodeFs, constants } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { lockFiles, writeAll } from "./lock-file.js";
import { frameText, hasTurnId, parseRecords } from "./outbox-records.js";

export { crc32, parseOutboxText } from "./outbox-records.js";

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

const encodeKey = (key) => encodeURIComponent(key).replace(/\./g, "%2E");

const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
/** A document's text, checked to be a string (a JSON text: the engine's, written as given). */
const textArg = (text) => {
  if (typeof text !== "string") throw new Error("the document must be given as its JSON text");
  return text;
};


/** An error the engine maps to HostErrorKind "local". */
function localError(op, err) {
  const e = new Error(`${op}: ${err.message}`);
  e.kind = "local";
  return e;
}

/** chmod `path` to `want` unless it already has exactly that mode; symlinks and entries of
 *  the wrong type are left alone. Resolves to an error message, or null. */
async function tighten(fs, path, want, isDir) {
  let st;
  try {
    st = await fs.lstat(path);
  } catch (err) {
    return err.code === "ENOENT" ? null : `${path}: ${err.code ?? err.message}`;
  }
  if (st.isSymbolicLink() || st.isDirectory() !== isDir || (!isDir && !st.isFile())) return null;
  if ((st.mode & 0o777) === want) return null;
  try {
    await fs.chmod(path, want);
    return null;
  } catch (err) {
    return `${path}: ${err.code ?? err.message}`;
  }
}

/** `opts.fsImpl` replaces node's fs.promises (tests inject failing writes through it). */
export function createStateStore(stateDir, { warnOutboxAt = 500, warn = () => {}, fsImpl = nodeFs } = {}) {
  const fs = fsImpl;
  const chains = new Map();
  const stateDirPath = join(stateDir, "state");
  const outboxDirPath = join(stateDir, "outbox");
  const locksDirPath = join(stateDir, "locks");
  // the outbox locks (lock-file.js): one owner per store instance, so not re-entrant, not even here
  const locks = lockFiles({ fs, create: (file) => inDir(dirname(file), () => openPrivate(file, "wx")) });
  let opened = null;
  // the first use tightens what an older version left: the folders and every file in them
  const open = () => (opened ??= tightenExisting());
  const chain = (key, fn) => {
    const prev = chains.get(key) ?? Promise.resolve();
    const next = prev.catch(() => {}).then(open).then(fn);
    chains.set(key, next);
    return next;
  };
  const stateFile = (key) => join(stateDirPath, `${encodeKey(key)}.json`);
  const outboxFile = (key) => join(outboxDirPath, `${encodeKey(key)}.jsonl`);
  const lockFile = (name) => join(locksDirPath, `${encodeKey(name)}.lock`);

  async function tightenExisting() {
    const problems = [];
    const note = (p) => p && problems.push(p);
    // the state dir itself may be a folder someone made and shares: it keeps its mode (the
    // plugin's own folders inside it are 0700) and one that others can open is warned about
    const top = await fs.lstat(stateDir).catch(() => null);
    if (top?.isDirectory() && !top.isSymbolicLink() && (top.mode & 0o077) !== 0) {
      const m = (top.mode & 0o777).toString(8).padStart(4, "0");
      warn(`the state dir ${stateDir} can be opened by other users (mode ${m}); its mode is left as it is and the plugin's own folders in it are 0700 — fix: chmod 700 ${stateDir} if no one else needs it`);
    }
    for (const dir of [stateDirPath, outboxDirPath, locksDirPath]) {
      note(await tighten(fs, dir, DIR_MODE, true));
      let names = [];
      try {
        names = await fs.readdir(dir);
      } catch (err) {
        if (err.code !== "ENOENT" && err.code !== "ENOTDIR") note(`${dir}: ${err.code ?? err.message}`);
      }
      for (const n of names) note(await tighten(fs, join(dir, n), FILE_MODE, false));
    }
    if (problems.length) warn(`could not make the state dir private (0700 folders, 0600 files): ${problems.slice(0, 3).join("; ")}`);
  }

  // the folders this instance made or found (no mkdir per write); one removed since is made
  // again by `inDir`
  const dirsMade = new Set();

  /** mkdir -p with 0700 for every folder it creates (chmod'ed: the umask may narrow mkdir's mode). */
  async function ensureDir(dir) {
    if (dirsMade.has(dir)) return;
    await makeDir(dir);
    dirsMade.add(dir);
  }

  /** `fn()`, which creates a file in folder `dir`, once the folder exists; a folder removed
   *  since this instance made it (ENOENT) is made again and `fn` tried once more. */
  async function inDir(dir, fn) {
    await ensureDir(dir);
    try {
      return await fn();
    } catch (err) {
      if (err.code !== "ENOENT" || !dirsMade.delete(dir)) throw err;
      await ensureDir(dir);
      return fn();
    }
  }

  async function makeDir(dir) {
    let first;
    try {
      first = await fs.mkdir(dir, { recursive: true, mode: DIR_MODE });
    } catch (err) {
      // node's recursive mkdir says ENOENT for a folder it could not create (a read-only
      // filesystem, say): a plain mkdir of the last one throws the real cause
      if (err.code !== "ENOENT") throw err;
      await fs.mkdir(dir, { mode: DIR_MODE });
      first = dir; // it could, this time
    }
    if (first === undefined) return;
    // every folder from `dir` up to the first one this call created
    const top = resolve(first);
    for (let d = resolve(dir); ; d = dirname(d)) {
      await fs.chmod(d, DIR_MODE);
      if (d === top || d === dirname(d)) break;
    }
  }

  // a file this instance created came out 0600: the umask keeps that mode, so a file it
  // creates later ("wx") needs no fstat (an existing file opened "a+" is still checked)
  let createdPrivate = false;

  /** Open for writing a file that is 0600 whatever the umask, and whatever an older version left. */
  async function openPrivate(file, flags) {
    const h = await fs.open(file, flags, FILE_MODE);
    if (flags === "wx" && createdPrivate) return h;
    try {
      const st = await h.stat();
      if ((st.mode & 0o777) !== FILE_MODE) await h.chmod(FILE_MODE);
      else if (flags === "wx") createdPrivate = true;
      return h;
    } catch (err) {
      await h.close();
      throw err;
    }
  }

  async function fsyncDir(dir) {
    let h;
    try {
      h = await fs.open(dir, constants.O_RDONLY);
      await h.sync();
    } catch {
      // some filesystems refuse directory fsync; the rename is still atomic
    } finally {
      await h?.close();
    }
  }

  /** Replace `file` atomically (temp file, rename); `sync`: durably (the temp file and the
   *  folder fsync'd), else a crash may leave the previous file or an empty one. */
  async function replaceFile(file, text, { sync = true } = {}) {
    const dir = join(file, "..");
    const tmp = `${file}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2, 8)}.tmp`;
    try {
      const h = await inDir(dir, () => openPrivate(tmp, "wx")); // 0600 before any byte is written
      try {
        await h.writeFile(text);
        if (sync) await h.sync();
      } finally {
        await h.close();
      }
      await fs.rename(tmp, file);
    } catch (err) {
      await fs.rm(tmp, { force: true }).catch(() => {});
      throw err;
    }
    if (sync) await fsyncDir(dir);
  }

  /** The file's bytes, or null when there is none. */
  async function readIfAny(file) {
    try {
      return await fs.readFile(file);
    } catch (err) {
      if (err.code === "ENOENT") return null;
      throw err;
    }
  }

  /** A state document's text, or null when there is none. */
  async function readStateText(key) {
    await open();
    let text;
    try {
      text = await fs.readFile(stateFile(key), "utf8");
    } catch (err) {
      if (err.code === "ENOENT") return null;
      throw err;
    }
    // empty: a cache whose unsynced replace a crash cut short (saveCache) — none kept
    return text === "" ? null : text;
  }

  const readOutbox = async (file) => parseRecords((await readIfAny(file))?.toString("utf8") ?? "");

  /** Appends one entry, given as its JSON text (an object's) and its turn id (null: none). */
  async function appendRecord(key, json, turnId) {
    const file = outboxFile(key);
    const { crc, line } = frameText(json);
    const h = await inDir(join(file, ".."), () => openPrivate(file, "a+"));
    const mine = (r) => r.crc === crc && r.json === json;
    let oldSize = -1;
    let n;
    try {
      const before = await h.readFile(); // nothing read or written yet: from offset 0
      const queued = parseRecords(before.toString("utf8")).records;
      if (turnId !== null && queued.some((r) => hasTurnId(r, turnId))) return "present";
      // a torn tail (crash or full disk mid-append) must not swallow the start of this record
      const torn = before.length > 0 && before[before.length - 1] !== 0x0a;
      oldSize = before.length;
      const bytes = Buffer.from(torn ? `\n${line}` : line, "utf8");
      await writeAll(h, bytes);
      await h.sync();
      // acknowledged only once it reads back as a valid record: the bytes where it was
      // appended (past what was there), read through the same handle
      const back = Buffer.alloc(bytes.length);
      const { bytesRead } = await h.read(back, 0, back.length, oldSize);
      n = parseRecords(back.subarray(0, bytesRead).toString("utf8")).records.some(mine) ? queued.length + 1 : null;
    } catch (err) {
      if (oldSize >= 0) {
        // cut the partial record back off, so that no torn bytes are left behind
        await h.truncate(oldSize).then(() => h.sync()).catch(() => {});
      }
      throw err;
    } finally {
      await h.close();
    }
    if (n === null) {
      // not where it was written (another writer appended in between, without the lock):
      // anywhere in the file will do
      const { records } = await readOutbox(file);
      if (!records.some(mine)) throw new Error(`the appended record did not read back from ${file}`);
      n = records.length;
    }
    if (n > 0 && n % warnOutboxAt === 0) warn(`outbox ${key} holds ${n} turns waiting for OpenViking`);
    return "appended";
  }

  async function dropRecords(key, turnIds) {
    const file = outboxFile(key);
    const { records, skipped } = await readOutbox(file);
    let rest;
    if (typeof turnIds === "number") rest = records.slice(turnIds); // the older form: a count
    else if (Array.isArray(turnIds) && turnIds.every((t) => typeof t === "string")) {
      const drop = new Set(turnIds);
      rest = records.filter((r) => !drop.has(r.record?.turnId));
    } else throw new Error("turnIds must be an array of turn ids (or a count)");
    if (rest.length === records.length && skipped === 0) return; // nothing to drop
    if (rest.length === 0) {
      await fs.rm(file, { force: true });
    } else {
      await replaceFile(file, rest.map((r) => frameText(r.json).line).join(""));
    }
  }

  // Locks this instance gave up but could not remove (a disk that turned read-only): they
  // are removed at the next chance — a later tryLock of any lock, or an unlock — and this
  // instance may take one back at once, so a released lock never wedges its own holder.
  const released = new Set();

  async function retryReleases() {
    for (const name of [...released]) {
      try {
        await releaseLock(name);
      } catch {
        // still refused: kept for the next chance
      }
    }
  }

  async function takeLock(name, ttlMs) {
    await retryReleases();
    const taken = await locks.take(lockFile(name), ttlMs, { reclaim: released.has(name) });
    if (taken) released.delete(name);
    return taken;
  }

  async function releaseLock(name) {
    try {
      await locks.release(lockFile(name));
      released.delete(name);
    } catch (err) {
      released.add(name);
      throw err;
    }
  }

  return {
    /** Keys of the saved state documents that start with `prefix`. */
    async listStateKeys(prefix = "") {
      let names;
      try {
        await open();
        names = await fs.readdir(stateDirPath);
      } catch (err) {
        if (err.code === "ENOENT") return [];
        throw localError("listStateKeys", err);
      }
      return names
        .filter((n) => n.endsWith(".json"))
        .map((n) => decodeURIComponent(n.slice(0, -5)))
        .filter((k) => k.startsWith(prefix));
    },
    async loadState(key) {
      try {
        const text = await readStateText(key);
        return text === null ? null : JSON.parse(text);
      } catch (err) {
        throw localError("loadState", err);
      }
    },
    /** The document's JSON text as saved, or null when there is none (not parsed here). */
    async loadStateText(key) {
      try {
        return await readStateText(key);
      } catch (err) {
        throw localError("loadState", err);
      }
    },
    saveState(key, value) {
      return this.saveStateText(key, JSON.stringify(value));
    },
    /** Saves the document's JSON text as given (the engine's own text: not parsed here). */
    saveStateText(key, text) {
      return chain(`s:${key}`, () => replaceFile(stateFile(key), textArg(text))).catch((err) => {
        throw localError("saveState", err);
      });
    },
    /** A document the engine can rebuild (a cache): replaced atomically, not fsync'd. */
    saveCache(key, value) {
      return this.saveCacheText(key, JSON.stringify(value));
    },
    saveCacheText(key, text) {
      return chain(`s:${key}`, () => replaceFile(stateFile(key), textArg(text), { sync: false })).catch((err) => {
        throw localError("saveCache", err);
      });
    },
    /** Append `entry`; resolves "appended" once it is durably stored, "present" (writing
     *  nothing) when a record with its turnId is already queued. */
    outboxAppend(key, entry) {
      return chain(`o:${key}`, () => {
        if (!isObject(entry)) throw new Error("an outbox entry must be a JSON object");
        return appendRecord(key, JSON.stringify(entry), typeof entry.turnId === "string" ? entry.turnId : null);
      }).catch((err) => {
        throw localError("outboxAppend", err);
      });
    },
    /** The same, for an entry given as its JSON text (an object's; not parsed here) and its
     *  turn id beside it (null: none). */
    outboxAppendText(key, text, turnId) {
      return chain(`o:${key}`, () => {
        if (typeof text !== "string" || !text.startsWith("{") || !text.endsWith("}")) throw new Error("an outbox entry must be a JSON object's text");
        return appendRecord(key, text, typeof turnId === "string" ? turnId : null);
      }).catch((err) => {
        throw localError("outboxAppend", err);
      });
    },
    /** The valid records, in file order. */
    outboxRead(key) {
      return chain(`o:${key}`, async () => (await readOutbox(outboxFile(key))).records.map((r) => r.record).filter(Boolean)).catch((err) => {
        throw localError("outboxRead", err);
      });
    },
    /** The valid records' JSON texts, in file order (not parsed here). */
    outboxReadText(key) {
      return chain(`o:${key}`, async () => (await readOutbox(outboxFile(key))).records.map((r) => r.json)).catch((err) => {
        throw localError("outboxRead", err);
      });
    },
    /** Remove the records with these turnIds (a number n: the first n records) and any torn
     *  line; the file is rewritten atomically, and removed when nothing is left. */
    outboxDrop(key, turnIds) {
      return chain(`o:${key}`, () => dropRecords(key, turnIds)).catch((err) => {
        throw localError("outboxDrop", err);
      });
    },
    /** Take lock `name` for `ttlMs` across processes: true if taken, false while a live
     *  holder (this instance included: not re-entrant) has it. Runs on the chain of the
     *  outbox with the same key, after the appends and drops issued before it. */
    tryLock(name, ttlMs) {
      return chain(`o:${name}`, () => takeLock(name, ttlMs)).catch((err) => {
        throw localError("tryLock", err);
      });
    },
    /** Release lock `name` if this instance holds it; someone else's is left alone. */
    unlock(name) {
      return chain(`o:${name}`, () => releaseLock(name)).catch((err) => {
        throw localError("unlock", err);
      });
    },
  };
}
