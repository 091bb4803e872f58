// Durable local state for the engine, in the plugin's state dir:
//   <stateDir>/state/<key>.json    one JSON document per key, replaced atomically
//                                  (write temp file, fsync, rename, fsync dir)
//   <stateDir>/outbox/<key>.jsonl  an ordered queue, one JSON entry per line; appends are
//                                  fsync'd before they resolve; a torn last line (crash
//                                  mid-append) is ignored on read
// Writes to one key are chained, so they land in call order. Keys are file-name encoded.
import { promises as fs, constants } from "node:fs";
import { join } from "node:path";

const encodeKey = (key) => encodeURIComponent(key).replace(/\./g, "%2E");

/** An error the engine maps to HostErrorKind "local". */
function localError(op, err) {
  const e = new Error(`${op}: ${err.message}`);
  e.kind = "local";
  return e;
}

export function createStateStore(stateDir, { warnOutboxAt = 500, warn = () => {} } = {}) {
  const chains = new Map();
  const chain = (key, fn) => {
    const prev = chains.get(key) ?? Promise.resolve();
    const next = prev.catch(() => {}).then(fn);
    chains.set(key, next);
    return next;
  };
  const stateFile = (key) => join(stateDir, "state", `${encodeKey(key)}.json`);
  const outboxFile = (key) => join(stateDir, "outbox", `${encodeKey(key)}.jsonl`);

  async function ensureDir(dir) {
    await fs.mkdir(dir, { recursive: true });
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
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    const h = await fs.open(tmp, "w");
    try {
      await h.writeFile(text);
      await h.sync();
    } finally {
      await h.close();
    }
    await fs.rename(tmp, file);
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
        names = await fs.readdir(join(stateDir, "state"));
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
        const h = await fs.open(file, "a");
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
