// The plugin's one cross-process lock (lock-file.js), as the local server's start lock uses it
// (the state store's outbox locks through it: state-store-locks.test.mjs): one holder at a
// time, a live holder respected, a dead or expired one broken, only the owner releases, and
// what `doctor` reads of a holder.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { lockFiles, lockHolder, isStale } from "../lock-file.js";

const dir = mkdtempSync(join(tmpdir(), "ov-lock-"));
test.after(() => rmSync(dir, { recursive: true, force: true }));

const deadPid = () => spawnSync(process.execPath, ["-e", "0"]).pid; // exited and reaped
const lockText = (o) => JSON.stringify({ host: hostname(), owner: "other", expiresAtMs: Date.now() + 60_000, ...o });

test("one holder; not re-entrant; only the owner releases; a stale handle never removes a new lock", async () => {
  const p = join(dir, "a.lock");
  const a = lockFiles();
  const b = lockFiles();
  assert.equal(await a.take(p, 60_000, { meta: { port: 1933 } }), true);
  assert.equal(await a.take(p, 60_000), false, "not re-entrant");
  assert.equal(await b.take(p, 60_000), false, "a live holder is respected");
  const held = JSON.parse(readFileSync(p, "utf8"));
  assert.equal(held.pid, process.pid);
  assert.equal(held.port, 1933, "the taker's meta is written beside the holder");
  assert.equal(held.owner, a.owner);
  assert.equal(await b.release(p), false, "someone else's lock is left alone");
  assert.equal(existsSync(p), true);
  assert.equal(await a.release(p), true);
  assert.equal(existsSync(p), false);
  assert.equal(await b.take(p, 60_000), true);
  assert.equal(await a.release(p), false, "a released owner cannot remove the next holder's lock");
  assert.equal(existsSync(p), true);
  assert.equal(await b.release(p), true);
});

test("a dead holder on this host is broken; on another host only its expiry frees it", async () => {
  const here = join(dir, "dead.lock");
  writeFileSync(here, lockText({ pid: deadPid() }));
  const l = lockFiles();
  assert.equal(await l.take(here, 60_000), true);
  assert.equal(JSON.parse(readFileSync(here, "utf8")).pid, process.pid);
  await l.release(here);

  const there = join(dir, "remote.lock");
  writeFileSync(there, lockText({ pid: deadPid(), host: "another-machine" }));
  assert.equal(await l.take(there, 60_000), false, "a pid of another host cannot be checked");
  writeFileSync(there, lockText({ pid: deadPid(), host: "another-machine", expiresAtMs: Date.now() - 1 }));
  assert.equal(await l.take(there, 60_000), true, "expired");
});

test("an expired lock is broken even while its pid lives; an empty or garbled one only once older than 10 s", async () => {
  const p = join(dir, "old.lock");
  writeFileSync(p, lockText({ pid: process.ppid, expiresAtMs: Date.now() - 1 }));
  const l = lockFiles();
  assert.equal(await l.take(p, 60_000), true);
  await l.release(p);

  for (const text of ["", "{\"pid\":", "[1]"]) {
    const q = join(dir, `garbled-${text.length}.lock`);
    writeFileSync(q, text);
    assert.equal(await l.take(q, 60_000), false, `fresh ${JSON.stringify(text)}: being written`);
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(q, old, old);
    assert.equal(await l.take(q, 60_000), true, `old ${JSON.stringify(text)}: left by a crash`);
  }
});

test("a breaker in place stops a second breaker; one left by a crash is cleared for the next try", async () => {
  const p = join(dir, "broken.lock");
  writeFileSync(p, lockText({ pid: deadPid() }));
  writeFileSync(`${p}.break`, "");
  const l = lockFiles();
  assert.equal(await l.take(p, 60_000), false, "someone else is breaking it");
  const old = (Date.now() - 60_000) / 1000;
  utimesSync(`${p}.break`, old, old);
  assert.equal(await l.take(p, 60_000), false, "the stuck breaker is cleared, this try gives up");
  assert.equal(existsSync(`${p}.break`), false);
  assert.equal(await l.take(p, 60_000), true);
});

test("a bad ttl is refused by name", async () => {
  for (const ttl of [0, -1, Number.NaN, Infinity, "5"]) await assert.rejects(lockFiles().take(join(dir, "ttl.lock"), ttl), /ttlMs must be a positive number/);
});

test("lockHolder: who holds a lock and whether that holder is live, as doctor reads it", () => {
  const p = join(dir, "holder.lock");
  assert.equal(lockHolder(p), null, "no file");
  writeFileSync(p, lockText({ pid: process.pid }));
  assert.deepEqual(lockHolder(p) && { pid: lockHolder(p).pid, live: lockHolder(p).live }, { pid: process.pid, live: true });
  writeFileSync(p, lockText({ pid: deadPid() }));
  assert.equal(lockHolder(p).live, false, "dead on this host");
  writeFileSync(p, lockText({ pid: process.pid, expiresAtMs: Date.now() - 1 }));
  assert.equal(lockHolder(p).live, false, "expired");
  writeFileSync(p, "{");
  assert.equal(lockHolder(p), null, "unreadable");
  assert.equal(isStale(Buffer.from(lockText({ pid: process.pid })), Date.now()), false);
});
