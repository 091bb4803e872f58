// local-server-fail.test.mjs — ensureLocalServer failure paths with stand-in "openviking-server"
// scripts (no real server needed): a binary that exits at once, one that never gets healthy
// (killed at the deadline), a missing binary, and bad arguments. Pid file and lock are cleaned up.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureLocalServer, stopLocalServer, PID_FILE } from "../../openviking/local-server.js";
import { pidAlive } from "../../openviking/proc.js";
import { freePort } from "./helpers.mjs";

const dir = mkdtempSync(join(tmpdir(), "ov-fail-"));
after(() => rmSync(dir, { recursive: true, force: true }));

function fakeBin(name, body) {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  const p = join(d, "openviking-server");
  writeFileSync(p, `#!/bin/sh\n${body}\n`);
  chmodSync(p, 0o755);
  return p;
}

test("a server that exits before /health answers is an error; no pid file or lock remains", async () => {
  const stateDir = join(dir, "s1");
  const serverBin = fakeBin("exits", 'echo "config error: $*" >&2; exit 3');
  const port = await freePort();
  await assert.rejects(ensureLocalServer({ port, configPath: "/nonexistent/ov.conf", stateDir, serverBin, startTimeoutMs: 10000 }),
    /exited .*"code":3.*openviking-server\.log/);
  assert.equal(existsSync(join(stateDir, PID_FILE)), false);
  assert.deepEqual(readdirSync(stateDir).filter((n) => n.endsWith(".lock")), []);
  assert.match(readFileSync(join(stateDir, "openviking-server.log"), "utf8"), /--config \/nonexistent\/ov.conf --host 127\.0\.0\.1 --port \d+/);
});

test("a server that never gets healthy is killed at the deadline", async () => {
  const stateDir = join(dir, "s2");
  const serverBin = fakeBin("hangs", "exec sleep 60");
  const port = await freePort();
  const lines = [];
  const t0 = Date.now();
  await assert.rejects(ensureLocalServer({ port, configPath: "/x/ov.conf", stateDir, serverBin, startTimeoutMs: 1500, log: (m) => lines.push(m) }),
    /did not become healthy/);
  assert.ok(Date.now() - t0 < 10000);
  const pid = Number(/pid (\d+)/.exec(lines[0])[1]);
  assert.equal(pidAlive(pid), false);
  assert.equal(existsSync(join(stateDir, PID_FILE)), false);
  assert.deepEqual(await stopLocalServer({ stateDir }), { stopped: false, reason: "no_pid_file" });
});

test("missing binary and bad arguments are reported before anything starts", async () => {
  const stateDir = join(dir, "s3");
  const port = await freePort();
  await assert.rejects(ensureLocalServer({ port, configPath: "/x", stateDir, serverBin: join(dir, "none") }), /not an executable/);
  await assert.rejects(ensureLocalServer({ port: 0, configPath: "/x", stateDir }), TypeError);
  await assert.rejects(ensureLocalServer({ port, stateDir }), TypeError);
  await assert.rejects(ensureLocalServer({ port, configPath: "/x" }), TypeError);
  await assert.rejects(stopLocalServer({}), TypeError);
});
