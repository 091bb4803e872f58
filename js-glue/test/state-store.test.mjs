// state-store.test.mjs — the outbox's durability contract: an append that resolves is on disk
// and reads back; one that fails (a real full or read-only filesystem, a short or failing
// write) rejects and leaves the file as it was; a turn is queued at most once; two processes
// appending under the lock; what a warm store asks the file system. The records' framing:
// outbox-records.test.mjs; the cross-process locks: state-store-locks.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  promises as fsp,
  appendFileSync,
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStateStore, parseOutboxText } from "../state-store.js";
import {
  KEY,
  sleep,
  turn,
  ids,
  outboxPath,
  lockPath,
  isLocal,
  inTempDir,
  frame,
  child,
} from "./support/state-dir.mjs";

test("dedupe: the same turnId twice is 'appended' then 'present', and stored once", async () => {
  await inTempDir(async (dir) => {
    const store = createStateStore(dir);
    assert.equal(await store.outboxAppend(KEY, turn("t1", "first")), "appended");
    const size = readFileSync(outboxPath(dir)).length;
    assert.equal(await store.outboxAppend(KEY, turn("t1", "a retry")), "present");
    assert.equal(readFileSync(outboxPath(dir)).length, size, "a present append writes nothing");
    assert.deepEqual(await store.outboxRead(KEY), [turn("t1", "first")]);
    // another key is another outbox
    assert.equal(await store.outboxAppend("outbox/other", turn("t1")), "appended");
    // a second store instance (another process, in effect) sees it too
    assert.equal(await createStateStore(dir).outboxAppend(KEY, turn("t1")), "present");
  });
});

test("drop by turnIds removes exactly those and torn lines, keeping the rest in order", async () => {
  await inTempDir(async (dir) => {
    const store = createStateStore(dir);
    for (const t of ["t1", "t2", "t3"]) await store.outboxAppend(KEY, turn(t));
    appendFileSync(outboxPath(dir), "#0000"); // torn
    for (const t of ["t4", "t5"]) await store.outboxAppend(KEY, turn(t));
    await store.outboxDrop(KEY, ["t2", "t4", "not-queued"]);
    assert.deepEqual(ids(await store.outboxRead(KEY)), ["t1", "t3", "t5"]);
    const text = readFileSync(outboxPath(dir), "utf8");
    assert.equal(text, ["t1", "t3", "t5"].map((t) => frame(turn(t))).join(""), "rewritten without the torn line");
    assert.deepEqual(readdirSync(join(dir, "outbox")), [outboxPath(dir).split("/").pop()], "no temp file left");
    // the number form: the first n valid records
    await store.outboxDrop(KEY, 1);
    assert.deepEqual(ids(await store.outboxRead(KEY)), ["t3", "t5"]);
    appendFileSync(outboxPath(dir), "#1234abcd:9:{\"turnId\""); // torn again
    await store.outboxDrop(KEY, []); // drops no record, but the torn line
    assert.equal(readFileSync(outboxPath(dir), "utf8"), ["t3", "t5"].map((t) => frame(turn(t))).join(""));
    await store.outboxDrop(KEY, ["t5", "t3"]);
    assert.equal(existsSync(outboxPath(dir)), false, "an outbox with nothing valid left is removed");
    assert.deepEqual(await store.outboxRead(KEY), []);
    await store.outboxDrop(KEY, ["t1"]); // nothing there: fine
    await assert.rejects(store.outboxDrop(KEY, [1]), isLocal("outboxDrop"));
  });
});

/** Mount a `size` tmpfs on a new dir and run `fn(mountDir)`; unmounted after. Root only. */
async function withTmpfs(size, fn) {
  assert.ok(
    process.getuid?.() === 0,
    "this test mounts a tmpfs to fill a real filesystem and must run as root (CI does); it is not skipped so that it cannot silently stop testing anything",
  );
  const dir = mkdtempSync(join(tmpdir(), "ov-tmpfs-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size},mode=0700`, "tmpfs", dir]);
  try {
    return await fn(dir);
  } finally {
    execFileSync("umount", ["-l", dir]);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Fill the filesystem of `dir` with a file until ENOSPC; returns its path. */
function fillUp(dir) {
  const filler = join(dir, "filler");
  const fd = openSync(filler, "w");
  const chunk = Buffer.alloc(4096, 0x61);
  try {
    for (;;) {
      try {
        if (writeSync(fd, chunk) === 0) break;
      } catch (err) {
        if (err.code === "ENOSPC") break;
        throw err;
      }
    }
  } finally {
    closeSync(fd);
  }
  return filler;
}

test("a full disk (a real 64 KiB tmpfs): the append rejects, nothing acknowledged is lost or torn", async () => {
  await withTmpfs("64k", async (mnt) => {
    const stateDir = join(mnt, "sd");
    const store = createStateStore(stateDir);
    const acked = [];
    for (let i = 0; i < 3; i++) {
      const e = turn(`t${i}`, `${"x".repeat(1000)} ${i}`);
      assert.equal(await store.outboxAppend(KEY, e), "appended");
      acked.push(e);
    }
    const before = readFileSync(outboxPath(stateDir));
    const filler = fillUp(mnt);
    // bigger than a page, so it cannot fit in the slack of the outbox file's last page
    const big = turn("big", "y".repeat(9000));
    await assert.rejects(store.outboxAppend(KEY, big), (err) => isLocal("outboxAppend")(err) && /ENOSPC/.test(err.message));
    assert.deepEqual(await store.outboxRead(KEY), acked);
    assert.deepEqual(readFileSync(outboxPath(stateDir)), before, "the partial record was cut back off");
    // a drop's rewrite fails too, and leaves the outbox and no temp file behind
    await assert.rejects(store.outboxDrop(KEY, ["t0"]), isLocal("outboxDrop"));
    assert.deepEqual(await store.outboxRead(KEY), acked);
    assert.deepEqual(readdirSync(join(stateDir, "outbox")), [outboxPath(stateDir).split("/").pop()]);
    // a lock cannot be written either: it rejects, and leaves no empty lock file behind
    await assert.rejects(store.tryLock(KEY, 60_000), (err) => isLocal("tryLock")(err) && /ENOSPC/.test(err.message));
    assert.equal(existsSync(lockPath(stateDir)), false);

    rmSync(filler);
    assert.equal(await store.outboxAppend(KEY, big), "appended");
    acked.push(big);
    assert.equal(await store.outboxAppend(KEY, acked[0]), "present");
    const { records, skipped } = parseOutboxText(readFileSync(outboxPath(stateDir), "utf8"));
    assert.deepEqual(records, acked, "every acknowledged record, exactly once");
    assert.equal(skipped, 0);
    assert.equal(await store.tryLock(KEY, 60_000), true);
  });
});

test("a read-only filesystem (remounted ro): appends and locks reject, earlier records still read", async () => {
  await withTmpfs("1m", async (mnt) => {
    const stateDir = join(mnt, "sd");
    const store = createStateStore(stateDir);
    await store.outboxAppend(KEY, turn("t1"));
    await store.outboxAppend(KEY, turn("t2"));
    execFileSync("mount", ["-o", "remount,ro", mnt]);
    await assert.rejects(store.outboxAppend(KEY, turn("t3")), (err) => isLocal("outboxAppend")(err) && /EROFS/.test(err.message));
    await assert.rejects(store.tryLock(KEY, 1000), (err) => isLocal("tryLock")(err) && /EROFS/.test(err.message));
    assert.deepEqual(ids(await store.outboxRead(KEY)), ["t1", "t2"]);
    assert.deepEqual(ids(await createStateStore(stateDir).outboxRead(KEY)), ["t1", "t2"]);
    execFileSync("mount", ["-o", "remount,rw", mnt]);
    assert.equal(await store.outboxAppend(KEY, turn("t3")), "appended");
    assert.deepEqual(ids(await store.outboxRead(KEY)), ["t1", "t2", "t3"]);
  });
});

test("a lock whose release the disk refused (read-only) does not wedge: its holder takes it back, and frees it at the next chance", async () => {
  await withTmpfs("1m", async (mnt) => {
    const stateDir = join(mnt, "sd");
    const store = createStateStore(stateDir);
    const other = createStateStore(stateDir);
    assert.equal(await store.tryLock(KEY, 60_000), true);
    assert.equal(await store.tryLock("replay/x", 60_000), true);
    execFileSync("mount", ["-o", "remount,ro", mnt]);
    await assert.rejects(store.unlock(KEY), isLocal("unlock"));
    await assert.rejects(store.unlock("replay/x"), isLocal("unlock"));
    execFileSync("mount", ["-o", "remount,rw", mnt]);
    // still on disk with a live holder: another process must wait (not expired, pid alive)
    assert.equal(await other.tryLock(KEY, 60_000), false);
    // the holder released it: it takes it back at once
    assert.equal(await store.tryLock(KEY, 60_000), true);
    await store.unlock(KEY);
    // ... and that call removed the other stuck lock too
    assert.equal(await other.tryLock("replay/x", 60_000), true);
    assert.equal(await other.tryLock(KEY, 60_000), true);
  });
});

/** fs.promises whose file handles' methods named in `overrides` (write, truncate, sync) are
 *  replaced by `(realHandle, ...args) => ...`, on files in the outbox folder. */
function faultyFs(overrides) {
  const wrap = (h) =>
    new Proxy(h, {
      get(target, prop) {
        if (Object.hasOwn(overrides, prop)) return (...args) => overrides[prop](target, ...args);
        const v = Reflect.get(target, prop);
        return typeof v === "function" ? v.bind(target) : v;
      },
    });
  return {
    ...fsp,
    open: async (path, ...rest) => {
      const h = await fsp.open(path, ...rest);
      return String(path).includes("/outbox/") ? wrap(h) : h;
    },
  };
}

const enospc = () => Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });

test("a short write then ENOSPC mid-record: rejects, and the file is cut back to what it was", async () => {
  await inTempDir(async (dir) => {
    const good = createStateStore(dir);
    await good.outboxAppend(KEY, turn("t1"));
    await good.outboxAppend(KEY, turn("t2"));
    const before = readFileSync(outboxPath(dir));
    let calls = 0;
    const store = createStateStore(dir, {
      fsImpl: faultyFs({
        // the first write stores half the bytes for real and says so; the next one fails
        write: (h, buf, off, len) => (calls++ === 0 ? h.write(buf, off, len >> 1) : Promise.reject(enospc())),
      }),
    });
    await assert.rejects(store.outboxAppend(KEY, turn("t3", "z".repeat(500))), (err) => isLocal("outboxAppend")(err) && /ENOSPC/.test(err.message));
    assert.equal(calls, 2, "the short write was continued");
    assert.deepEqual(readFileSync(outboxPath(dir)), before, "no torn tail left");
    assert.deepEqual(ids(await good.outboxRead(KEY)), ["t1", "t2"]);
    assert.equal(await good.outboxAppend(KEY, turn("t3")), "appended", "t3 was never acknowledged");
  });
});

test("a write that stores 0 bytes is a failure, not a loop", async () => {
  await inTempDir(async (dir) => {
    await createStateStore(dir).outboxAppend(KEY, turn("t1"));
    const before = readFileSync(outboxPath(dir));
    const store = createStateStore(dir, { fsImpl: faultyFs({ write: async () => ({ bytesWritten: 0 }) }) });
    await assert.rejects(store.outboxAppend(KEY, turn("t2")), (err) => isLocal("outboxAppend")(err) && /short write/.test(err.message));
    assert.deepEqual(readFileSync(outboxPath(dir)), before);
  });
});

test("short writes that do complete are continued to the end, then fsync'd: the record is whole", async () => {
  await inTempDir(async (dir) => {
    const events = [];
    const store = createStateStore(dir, {
      fsImpl: faultyFs({
        write: (h, buf, off, len) => (events.push("write"), h.write(buf, off, Math.min(len, 7))),
        sync: (h) => (events.push("sync"), h.sync()),
      }),
    });
    const e = turn("t1", "ü".repeat(40));
    assert.equal(await store.outboxAppend(KEY, e), "appended");
    assert.ok(events.filter((x) => x === "write").length > 10, events.join());
    assert.equal(events.at(-1), "sync", "fsync'd after the last write, before it resolved");
    assert.deepEqual(await createStateStore(dir).outboxRead(KEY), [e]);
    assert.equal(readFileSync(outboxPath(dir), "utf8"), frame(e));
  });
});

test("when the cut-back fails too, the torn tail is skipped and the next append stands apart", async () => {
  await inTempDir(async (dir) => {
    const good = createStateStore(dir);
    await good.outboxAppend(KEY, turn("t1"));
    let calls = 0;
    const store = createStateStore(dir, {
      fsImpl: faultyFs({
        write: (h, buf, off, len) => (calls++ === 0 ? h.write(buf, off, len >> 1) : Promise.reject(enospc())),
        truncate: () => Promise.reject(Object.assign(new Error("EIO: i/o error"), { code: "EIO" })),
      }),
    });
    await assert.rejects(store.outboxAppend(KEY, turn("t2", "z".repeat(300))), isLocal("outboxAppend"));
    const torn = readFileSync(outboxPath(dir), "utf8");
    assert.ok(!torn.endsWith("\n"), "precondition: a torn tail is left");
    assert.deepEqual(ids(await good.outboxRead(KEY)), ["t1"]);
    assert.equal(await good.outboxAppend(KEY, turn("t2")), "appended");
    assert.deepEqual(ids(await good.outboxRead(KEY)), ["t1", "t2"]);
    assert.equal(parseOutboxText(readFileSync(outboxPath(dir), "utf8")).skipped, 1);
  });
});

test("an append whose record does not read back is not acknowledged", async () => {
  await inTempDir(async (dir) => {
    // a write that claims success but stores other bytes (a lying device, in effect)
    const store = createStateStore(dir, {
      fsImpl: faultyFs({ write: (h, buf, off, len) => h.write(Buffer.from(buf.subarray(off, off + len)).fill(0x20, 20, 30), 0, len) }),
    });
    await assert.rejects(store.outboxAppend(KEY, turn("t1", "q".repeat(50))), (err) => isLocal("outboxAppend")(err) && /did not read back/.test(err.message));
    assert.deepEqual(await createStateStore(dir).outboxRead(KEY), []);
  });
});


test("an unlock issued during an append on the same key runs after that append settled", async () => {
  await inTempDir(async (dir) => {
    const events = [];
    const store = createStateStore(dir, {
      fsImpl: faultyFs({ write: async (h, ...args) => (await sleep(50), events.push("write"), h.write(...args)) }),
    });
    assert.equal(await store.tryLock(KEY, 60_000), true);
    const append = store.outboxAppend(KEY, turn("t1")).then((r) => events.push(`append ${r}`));
    const unlock = store.unlock(KEY).then(() => events.push(`unlock, lock file there: ${existsSync(lockPath(dir))}`));
    await Promise.all([append, unlock]);
    assert.deepEqual(events, ["write", "append appended", "unlock, lock file there: false"]);
  });
});

test("two processes appending 100 turns each under the lock: all 200 stored exactly once, none torn", { timeout: 60_000 }, async () => {
  await inTempDir(async (dir) => {
    const writer = (name) =>
      child(
        dir,
        `const s = createStateStore(dir);
const key = ${JSON.stringify(KEY)};
console.log("ready");
for (let i = 0; i < 100; i++) {
  while (!(await s.tryLock(key, 10000))) await sleep(1 + Math.random() * 4);
  try {
    const r = await s.outboxAppend(key, { turnId: "${name}-" + i, text: "${name} ".repeat(1 + (i % 50)) });
    if (r !== "appended") throw new Error("append " + i + ": " + r);
  } finally {
    await s.unlock(key);
  }
}
console.log("done");`,
      );
    const ws = [writer("a"), writer("b")];
    try {
      const results = await Promise.all(ws.map((w) => w.exited));
      for (const [i, r] of results.entries()) assert.equal(r.code, 0, `writer ${i}: ${ws[i].stderr()}`);
      const { records, skipped } = parseOutboxText(readFileSync(outboxPath(dir), "utf8"));
      assert.equal(skipped, 0, "no torn record");
      assert.equal(records.length, 200);
      assert.equal(new Set(ids(records)).size, 200, "each exactly once");
      for (const name of ["a", "b"]) {
        const mine = ids(records).filter((t) => t.startsWith(`${name}-`));
        assert.deepEqual(mine, Array.from({ length: 100 }, (_, i) => `${name}-${i}`), `${name}'s turns in order`);
      }
      assert.equal(existsSync(lockPath(dir)), false, "the lock is released");
    } finally {
      for (const w of ws) w.p.kill("SIGKILL");
    }
  });
});

/** fs.promises that counts fsyncs (of files and of folders) under `dir`. */
function countingFs(counts) {
  return {
    ...fsp,
    open: async (path, ...rest) => {
      const h = await fsp.open(path, ...rest);
      return new Proxy(h, {
        get(target, prop) {
          if (prop === "sync") return () => (counts.sync++, target.sync());
          const v = Reflect.get(target, prop);
          return typeof v === "function" ? v.bind(target) : v;
        },
      });
    },
  };
}

test("a document is saved durably (file and folder fsync'd), a cache and a lock without an fsync; an empty cache file reads as none", async () => {
  await inTempDir(async (dir) => {
    const counts = { sync: 0 };
    const store = createStateStore(dir, { fsImpl: countingFs(counts) });
    await store.loadState("warm-up"); // the first use tightens the state dir
    await store.saveState("ledger/s1", { next: 3 });
    assert.equal(counts.sync, 2, "the temp file and the folder");
    counts.sync = 0;
    await store.saveCache("trace/s1", { turn: 7 });
    await store.saveCache("trace/s1", { turn: 8 });
    assert.equal(counts.sync, 0, "a cache is never fsync'd");
    // a lock orders live processes only: taking and giving it back syncs nothing
    assert.equal(await store.tryLock(KEY, 60_000), true);
    assert.equal(await createStateStore(dir).tryLock(KEY, 60_000), false, "another process sees it at once");
    await store.unlock(KEY);
    assert.equal(counts.sync, 0, "a lock is never fsync'd");
    const fresh = createStateStore(dir);
    assert.deepEqual(await fresh.loadState("ledger/s1"), { next: 3 });
    assert.deepEqual(await fresh.loadState("trace/s1"), { turn: 8 }, "replaced whole, last write wins");
    assert.deepEqual(readdirSync(join(dir, "state")).filter((f) => f.endsWith(".tmp")), [], "no temp file left");
    // what a crash after an unsynced rename may leave on some filesystems: an empty file
    writeFileSync(join(dir, "state", `${encodeURIComponent("trace/s1")}.json`), "");
    assert.equal(await fresh.loadState("trace/s1"), null);
    // anything else unreadable is still an error, not silently none
    writeFileSync(join(dir, "state", `${encodeURIComponent("ledger/s1")}.json`), "{\"next\":");
    await assert.rejects(fresh.loadState("ledger/s1"), isLocal("loadState"));
  });
});

test("a warm store asks the file system only what a write needs: no mkdir, no fstat of a file it creates, no re-read of the outbox", async () => {
  await inTempDir(async (dir) => {
    const calls = [];
    const counting = {
      ...fsp,
      mkdir: (...a) => (calls.push("mkdir"), fsp.mkdir(...a)),
      readFile: (...a) => (calls.push(`readFile ${String(a[0]).split("/").at(-2)}`), fsp.readFile(...a)),
      open: async (path, ...rest) => {
        const h = await fsp.open(path, ...rest);
        return new Proxy(h, {
          get(target, prop) {
            if (prop === "stat") calls.push("fstat");
            const v = Reflect.get(target, prop);
            return typeof v === "function" ? v.bind(target) : v;
          },
        });
      },
    };
    const store = createStateStore(dir, { fsImpl: counting });
    // the first use of each folder makes it (and checks a created file's mode once)
    await store.saveState("session/s1", { n: 1 });
    await store.outboxAppend(KEY, turn("t1"));
    assert.equal(await store.tryLock("replay/s1", 60_000), true);
    await store.unlock("replay/s1");
    calls.length = 0;
    await store.saveState("session/s1", { n: 2 });
    await store.saveCache("trace/s1", { n: 2 });
    assert.equal(await store.outboxAppend(KEY, turn("t2")), "appended");
    assert.equal(await store.tryLock("replay/s1", 60_000), true);
    await store.unlock("replay/s1");
    // the append's open of the existing outbox is still checked (an older version's 0644 file);
    // the only read of a file is the lock's, before it is removed (whose lock it is)
    assert.deepEqual(calls, ["fstat", "readFile locks"]);
    assert.deepEqual(ids(await store.outboxRead(KEY)), ["t1", "t2"]);
    assert.deepEqual(await createStateStore(dir).loadState("session/s1"), { n: 2 });
  });
});

test("folders removed under a running store are made again by its next write, append and lock", async () => {
  await inTempDir(async (dir) => {
    const store = createStateStore(dir);
    await store.saveState("session/s1", { n: 1 });
    await store.outboxAppend(KEY, turn("t1"));
    assert.equal(await store.tryLock("replay/s1", 60_000), true);
    await store.unlock("replay/s1");
    for (const f of ["state", "outbox", "locks"]) rmSync(join(dir, f), { recursive: true, force: true });
    await store.saveState("session/s1", { n: 2 });
    assert.equal(await store.outboxAppend(KEY, turn("t2")), "appended");
    assert.equal(await store.tryLock("replay/s1", 60_000), true);
    const fresh = createStateStore(dir);
    assert.deepEqual(await fresh.loadState("session/s1"), { n: 2 });
    assert.deepEqual(ids(await fresh.outboxRead(KEY)), ["t2"]);
    assert.equal(await fresh.tryLock("replay/s1", 60_000), false, "the lock taken after the folder was made again holds");
  });
});

test("documents and entries given as JSON text are stored and handed back as that text; the object forms read them", async () => {
  await inTempDir(async (dir) => {
    const store = createStateStore(dir);
    const doc = '{"nextSequence":4,"note":"ünïcode \\u2028 and \\"quotes\\""}';
    await store.saveStateText("session/s1", doc);
    assert.equal(await store.loadStateText("session/s1"), doc, "the very text");
    assert.deepEqual(await store.loadState("session/s1"), JSON.parse(doc));
    assert.equal(await store.loadStateText("session/none"), null);
    await store.saveCacheText("trace/s1", '{"turn":1}');
    assert.deepEqual(await createStateStore(dir).loadState("trace/s1"), { turn: 1 });
    await assert.rejects(store.saveStateText("session/s1", { not: "text" }), isLocal("saveState"));
    // entries: the text is framed as is; its turn id beside it keeps a turn queued once
    const e1 = JSON.stringify(turn("t1", 'the turnId "t2" inside a message is not t2\'s'));
    const e2 = JSON.stringify(turn("t2"));
    assert.equal(await store.outboxAppendText(KEY, e1, "t1"), "appended");
    assert.equal(await store.outboxAppendText(KEY, e2, "t2"), "appended", "a record that only mentions t2 is not t2");
    assert.equal(await store.outboxAppendText(KEY, e2, "t2"), "present");
    assert.deepEqual(await store.outboxReadText(KEY), [e1, e2]);
    assert.deepEqual(ids(await store.outboxRead(KEY)), ["t1", "t2"]);
    await store.outboxDrop(KEY, ["t1"]);
    assert.deepEqual(await createStateStore(dir).outboxReadText(KEY), [e2]);
    for (const bad of [42, "[1,2]", "not json"]) await assert.rejects(store.outboxAppendText(KEY, bad, null), isLocal("outboxAppend"));
    // a plain-JSON line of an earlier version is handed over as its text too
    appendFileSync(outboxPath(dir), `${JSON.stringify(turn("t3"))}\n`);
    assert.deepEqual(ids((await store.outboxReadText(KEY)).map((t) => JSON.parse(t))), ["t2", "t3"]);
  });
});
