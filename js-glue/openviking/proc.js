// proc.js — process inspection for the local-server manager: is a pid alive (zombies count as
// dead), its argv (/proc/<pid>/cmdline on Linux, `ps` elsewhere), its process group, and
// "is this pid an openviking-server listening on port N" as the guard against pid reuse.

import { existsSync, readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";

const HAS_PROC = existsSync("/proc/self/cmdline");

function validPid(pid) {
  return Number.isInteger(pid) && pid > 1;
}

/** /proc/<pid>/stat fields after the command name, or null. */
function statFields(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return text.slice(text.lastIndexOf(")") + 2).split(" ");
  } catch {
    return null;
  }
}

export function pidAlive(pid) {
  if (!validPid(pid)) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if (err.code !== "EPERM") return false;
  }
  if (HAS_PROC) {
    const f = statFields(pid);
    if (!f || f[0] === "Z" || f[0] === "X") return false;
  }
  return true;
}

/** Process group id (Linux), else null. */
export function processGroup(pid) {
  const f = HAS_PROC ? statFields(pid) : null;
  const pgrp = f ? Number(f[2]) : NaN;
  return Number.isInteger(pgrp) ? pgrp : null;
}

/** Start time of the process in clock ticks since boot (Linux), else null: with the pid it
 *  identifies one process for good, so a reused pid is never mistaken for ours. */
export function processStartTicks(pid) {
  const f = HAS_PROC ? statFields(pid) : null;
  const ticks = f ? Number(f[19]) : NaN;
  return Number.isFinite(ticks) ? ticks : null;
}

/** The argv of a running process, or null. */
export function processArgv(pid) {
  if (!pidAlive(pid)) return null;
  if (HAS_PROC) {
    try {
      const raw = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      return raw.split("\0").filter((a) => a !== "");
    } catch {
      return null;
    }
  }
  try {
    const out = execFileSync("ps", ["-o", "command=", "-p", String(pid)], { encoding: "utf8", timeout: 5000 });
    return out.trim() ? out.trim().split(/\s+/) : null;
  } catch {
    return null;
  }
}

/** True if pid runs openviking-server (and, when port is given, with `--port <port>`). */
export function isOpenVikingServer(pid, port) {
  const argv = processArgv(pid);
  if (!argv || !argv.some((a) => a === "openviking-server" || a.endsWith("/openviking-server"))) return false;
  if (port === undefined || port === null) return true;
  const i = argv.indexOf("--port");
  return (i >= 0 && argv[i + 1] === String(port)) || argv.includes(`--port=${port}`);
}
