// state-store-locks.test.mjs — the cross-process locks that let two processes share a state
// dir: exclusive and not re-entrant, an expired or unreadable one broken, one held by a
// SIGKILLed process taken, one held by a live process respected, unlocks ordered after appends.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { createStateStore } from "../state-store.js";
import { KEY, sleep, lockPath, isLocal, inTempDir, child } from "./support/state-dir.mjs";

test("locks: exclusive across instances and not re-entrant; unlock frees; a non-owner's unlock does not", async () => {
  await inTempDir(async (dir) => {
    const a = createStateStore(dir);
    const b = createStateStore(dir);
    assert.equal(await a.tryLock(KEY, 60_000), true);
    assert.equal(await a.tryLock(KEY, 60_000), false, "not re-entrant");
    assert.equal(await b.tryLock(KEY, 60_000), false);
    assert.equal(await b.tryLock("replay/main--s1", 60_000), true, "another name is another lock");
    const held = JSON.parse(readFileSync(lockPath(dir), "utf8"));
    assert.equal(held.pid, process.pid);
    assert.equal(held.host, hostname());
    assert.ok(held.expiresAtMs > Date.now() + 50_000);
    assert.equal(readFileSync(lockPath(dir, "replay/main--s1"), "utf8").includes(held.owner), false, "one owner id per instance");
    await b.unlock(KEY); // not b's
    assert.equal(existsSync(lockPath(dir)), true);
    assert.equal(await b.tryLock(KEY, 60_000), false);
    await a.unlock(KEY);
    assert.equal(existsSync(lockPath(dir)), false);
    await a.unlock(KEY); // not held: fine
    assert.equal(await b.tryLock(KEY, 60_000), true);
    assert.equal(await a.tryLock(KEY, 60_000), false);
  });
});

test("locks: an expired lock is taken, even from a live holder", async () => {
  await inTempDir(async (dir) => {
    const a = createStateStore(dir);
    const b = createStateStore(dir);
    // a TTL a busy machine cannot outrun between two calls, and a wait past it
    assert.equal(await a.tryLock(KEY, 1_000), true);
    assert.equal(await b.tryLock(KEY, 60_000), false);
    await sleep(1_100);
    assert.equal(await b.tryLock(KEY, 60_000), true);
    await a.unlock(KEY); // no longer a's: left alone
    assert.equal(await a.tryLock(KEY, 60_000), false);
    // one written by another host, expired
    mkdirSync(join(dir, "locks"), { recursive: true });
    writeFileSync(lockPath(dir, "x"), JSON.stringify({ pid: 1, host: "elsewhere", owner: "o", expiresAtMs: Date.now() - 1 }));
    assert.equal(await a.tryLock("x", 1000), true);
    assert.equal(JSON.parse(readFileSync(lockPath(dir, "x"), "utf8")).pid, process.pid);
    // a live holder on another host is trusted until it expires
    writeFileSync(lockPath(dir, "y"), JSON.stringify({ pid: 999999999, host: "elsewhere", owner: "o", expiresAtMs: Date.now() + 60_000 }));
    assert.equal(await a.tryLock("y", 1000), false);
  });
});

test("locks: an unreadable lock file is stale only once older than 10 s; a stuck breaker is cleared", async () => {
  await inTempDir(async (dir) => {
    const store = createStateStore(dir);
    mkdirSync(join(dir, "locks"), { recursive: true });
    writeFileSync(lockPath(dir), ""); // a crash between create and write
    assert.equal(await store.tryLock(KEY, 1000), false);
    const old = (Date.now() - 20_000) / 1000;
    utimesSync(lockPath(dir), old, old);
    // a breaker left by a crashed breaker: this attempt gives up and clears it...
    writeFileSync(`${lockPath(dir)}.break`, "");
    utimesSync(`${lockPath(dir)}.break`, old, old);
    assert.equal(await store.tryLock(KEY, 1000), false);
    assert.equal(existsSync(`${lockPath(dir)}.break`), false);
    // ...and the next one breaks the stale lock
    assert.equal(await store.tryLock(KEY, 1000), true);
    assert.equal(existsSync(`${lockPath(dir)}.break`), false);
    // a fresh breaker: someone is breaking it right now, so give up and leave theirs
    await store.unlock(KEY);
    writeFileSync(lockPath(dir), JSON.stringify({ pid: 1, host: "elsewhere", owner: "o", expiresAtMs: 0 }));
    writeFileSync(`${lockPath(dir)}.break`, "");
    assert.equal(await store.tryLock(KEY, 1000), false);
    assert.equal(existsSync(`${lockPath(dir)}.break`), true);
  });
});

test("locks: errors other than 'held' reject as local errors", async () => {
  await inTempDir(async (dir) => {
    writeFileSync(join(dir, "locks"), "not a folder");
    const store = createStateStore(dir);
    await assert.rejects(store.tryLock(KEY, 1000), isLocal("tryLock"));
    await assert.rejects(store.unlock(KEY), isLocal("unlock"));
    rmSync(join(dir, "locks"));
    await assert.rejects(store.tryLock(KEY, 0), isLocal("tryLock"));
    assert.equal(await store.tryLock(KEY, 1000), true);
  });
});

/** A child node process running `body` (an async ESM body with `createStateStore` and `dir`
 *  in scope); resolves once it printed its first line. */
const HOLD = `const s = createStateStore(dir);
console.log(await s.tryLock(${JSON.stringify(KEY)}, 600000));
setInterval(() => {}, 1e6);`;

test("locks: one held by a process killed with SIGKILL is broken and taken", { timeout: 20_000 }, async () => {
  await inTempDir(async (dir) => {
    const c = child(dir, HOLD);
    try {
      assert.equal(await c.firstLine, "true");
      const held = JSON.parse(readFileSync(lockPath(dir), "utf8"));
      assert.equal(held.pid, c.p.pid);
      c.p.kill("SIGKILL");
      assert.equal((await c.exited).signal, "SIGKILL"); // reaped: no zombie to look alive
      const store = createStateStore(dir);
      assert.equal(await store.tryLock(KEY, 60_000), true);
      assert.equal(JSON.parse(readFileSync(lockPath(dir), "utf8")).pid, process.pid);
      assert.equal(existsSync(`${lockPath(dir)}.break`), false);
    } finally {
      c.p.kill("SIGKILL");
    }
  });
});

test("locks: one held by a live other process is not taken", { timeout: 20_000 }, async () => {
  await inTempDir(async (dir) => {
    const c = child(dir, HOLD);
    try {
      assert.equal(await c.firstLine, "true");
      const store = createStateStore(dir);
      assert.equal(await store.tryLock(KEY, 60_000), false);
      await store.unlock(KEY); // not ours
      assert.equal(JSON.parse(readFileSync(lockPath(dir), "utf8")).pid, c.p.pid);
      assert.equal(await store.tryLock(KEY, 60_000), false);
    } finally {
      c.p.kill("SIGKILL");
      await c.exited;
    }
  });
});
