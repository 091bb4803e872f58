// lock.test.mjs — the O_EXCL lock file behind ensureLocalServer: one holder at a time, a live
// holder is respected, a dead holder's or an over-age lock is broken, only the holder releases.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tryLock } from "../../openviking/lock.js";

const dir = mkdtempSync(join(tmpdir(), "ov-lock-"));
test.after(() => rmSync(dir, { recursive: true, force: true }));

function deadPid() {
  const r = spawnSync(process.execPath, ["-e", "0"]);
  return r.pid; // exited and reaped
}

test("only one holder; release frees it; a foreign release does nothing", () => {
  const p = join(dir, "a.lock");
  const a = tryLock(p);
  assert.ok(a);
  assert.equal(tryLock(p), null); // same live pid holds it
  const info = JSON.parse(readFileSync(p, "utf8"));
  assert.equal(info.pid, process.pid);
  a.release();
  assert.equal(existsSync(p), false);
  const b = tryLock(p);
  assert.ok(b);
  a.release(); // a stale handle must not remove b's lock
  assert.equal(existsSync(p), true);
  b.release();
});

test("a lock whose holder pid is gone is broken and retaken", () => {
  const p = join(dir, "dead.lock");
  writeFileSync(p, JSON.stringify({ pid: deadPid(), token: "old", createdAt: Date.now() }));
  const l = tryLock(p);
  assert.ok(l);
  assert.equal(JSON.parse(readFileSync(p, "utf8")).pid, process.pid);
  l.release();
});

test("a lock older than staleMs is broken even if its pid lives; a fresh one is not", () => {
  const p = join(dir, "old.lock");
  writeFileSync(p, JSON.stringify({ pid: process.ppid, token: "old", createdAt: Date.now() - 60000 }));
  assert.equal(tryLock(p, { staleMs: 120000 }), null);
  const l = tryLock(p, { staleMs: 1000 });
  assert.ok(l);
  l.release();
});

test("an empty lock file is respected while fresh and broken once old", () => {
  const p = join(dir, "empty.lock");
  writeFileSync(p, "");
  assert.equal(tryLock(p), null);
  const old = (Date.now() - 60000) / 1000;
  utimesSync(p, old, old);
  const l = tryLock(p);
  assert.ok(l);
  l.release();
});
