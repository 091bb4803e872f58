// Durable local state for the engine, in the plugin's state dir:
//   <stateDir>/state/<key>.json    one JSON document per key, replaced atomically
//                                  (write temp file, fsync, rename, fsync dir)
//   <stateDir>/outbox/<key>.jsonl  an ordered queue, one JSON entry per line; appends are
//                                  fsync'd before they resolve; a torn last line (crash
//                                  mid-append) is ignored on read
// Writes to one key are chained, so they land in call order. Keys are file-name encoded.
// The files hold whole turns (private text): every file written here is 0600 and every
// folder created here 0700, set explicitly after creation so no umask changes them; a state
// dir left by an older version (0644 files in 0755 folders) is tightened when first opened.
import { promises as fs, constants } from "node:fs";
import { dirname, join, resolve } from "node:path";

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

const encodeKey = (key) => encodeURIComponent(key).replace(/\./g, "%2E");

/** An error the engine maps to HostErrorKind "local". */
function localError(op, err) {
  const e = new Error(`${op}: ${err.message}`);
  e.kind = "local";
  return e;
}

/** chmod `path` to `want` unless it already has exactly that mode; symlinks and entries of
 *  the wrong type are left alone. Resolves to an error message, or null. */
async function tighten(path, want, isDir) {
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

export function createStateStore(stateDir, { warnOutboxAt = 500, warn = () => {} } = {}) {
  const chains = new Map();
  const stateDirPath = join(stateDir, "state");
  const outboxDirPath = join(stateDir, "outbox");
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

  async function tightenExisting() {
    const problems = [];
    const note = (p) => p && problems.push(p);
    note(await tighten(stateDir, DIR_MODE, true));
    for (const dir of [stateDirPath, outboxDirPath]) {
      note(await tighten(dir, DIR_MODE, true));
      let names = [];
      try {
        names = await fs.readdir(dir);
      } catch (err) {
        if (err.code !== "ENOENT" && err.code !== "ENOTDIR") note(`${dir}: ${err.code ?? err.message}`);
      }
      for (const n of names) note(await tighten(join(dir, n), FILE_MODE, false));
    }
    if (problems.length) warn(`could not make the state dir private (0700 folders, 0600 files): ${problems.slice(0, 3).join("; ")}`);
  }

  /** mkdir -p with 0700 for every folder it creates (chmod'ed: the umask may narrow mkdir's mode). */
  async function ensureDir(dir) {
    const first = await fs.mkdir(dir, { recursive: true, mode: DIR_MODE });
    if (first === undefined) return;
    // every folder from `dir` up to the first one this call created
    const top = resolve(first);
    for (let d = resolve(dir); ; d = dirname(d)) {
      await fs.chmod(d, DIR_MODE);
      if (d === top || d === dirname(d)) break;
    }
  }

  /** Open for writing a file that is 0600 whatever the umask, and whatever an older version left. */
  async function openPrivate(file, flags) {
    const h = await fs.open(file, flags, FILE_MODE);
    try {
      const st = await h.stat();
      if ((st.mode & 0o777) !== FILE_MODE) await h.chmod(FILE_MODE);
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

  async function replaceFile(file, text) {
    const dir = join(file, "..");
    await ensureDir(dir);
    const tmp = `${file}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2, 8)}.tmp`;
    try {
      const h = await openPrivate(tmp, "wx"); // 0600 before any byte is written
      try {
        await h.writeFile(text);
        await h.sync();
      } finally {
        await h.close();
      }
      await fs.rename(tmp, file);
    } catch (err) {
      await fs.rm(tmp, { force: true }).catch(() => {});
      throw err;
    }
    await fsyncDir(dir);
  }

  async function readLines(file) {
    let text;
    try {
      text = await fs.readFile(file, "utf8");
    } catch (err) {
      if (err.code === "ENOENT") return [];
      throw err;
    }
    const out = [];
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      try {
        out.push(JSON.parse(line));
      } catch {
        // a torn last line from a crash mid-append: it was never acknowledged
      }
    }
    return out;
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
        await open();
        return JSON.parse(await fs.readFile(stateFile(key), "utf8"));
      } catch (err) {
        if (err.code === "ENOENT") return null;
        throw localError("loadState", err);
      }
    },
    saveState(key, value) {
      return chain(`s:${key}`, () => replaceFile(stateFile(key), JSON.stringify(value))).catch((err) => {
        throw localError("saveState", err);
      });
    },
    outboxAppend(key, entry) {
      return chain(`o:${key}`, async () => {
        const file = outboxFile(key);
        await ensureDir(join(file, ".."));
        const h = await openPrivate(file, "a");
        try {
          await h.write(`${JSON.stringify(entry)}\n`);
          await h.sync();
        } finally {
          await h.close();
        }
        const n = (await readLines(file)).length;
        if (n > 0 && n % warnOutboxAt === 0) warn(`outbox ${key} holds ${n} turns waiting for OpenViking`);
      }).catch((err) => {
        throw localError("outboxAppend", err);
      });
    },
    outboxRead(key) {
      return chain(`o:${key}`, () => readLines(outboxFile(key))).catch((err) => {
        throw localError("outboxRead", err);
      });
    },
    outboxDrop(key, count) {
      return chain(`o:${key}`, async () => {
        const file = outboxFile(key);
        const rest = (await readLines(file)).slice(count);
        if (rest.length === 0) {
          await fs.rm(file, { force: true });
        } else {
          await replaceFile(file, rest.map((e) => `${JSON.stringify(e)}\n`).join(""));
        }
      }).catch((err) => {
        throw localError("outboxDrop", err);
      });
    },
  };
}
