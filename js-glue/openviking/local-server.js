// local-server.js — start, reuse and stop a local `openviking-server` on 127.0.0.1:<port>.
// ensureLocalServer() reuses a healthy server or spawns one detached (it outlives a CLI turn),
// recording it in <stateDir>/openviking-server.pid; a per-port O_EXCL lock file keeps two
// concurrent callers from starting two servers. stopLocalServer() only stops the server that
// pid file names, and only while that pid is still openviking-server on the recorded port.

import { spawn } from "node:child_process";
import { accessSync, closeSync, constants, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import { isOpenVikingServer, pidAlive, processGroup, processStartTicks } from "./proc.js";
import { tryLock } from "./lock.js";

export const PID_FILE = "openviking-server.pid";
export const LOG_FILE = "openviking-server.log";
const HOST = "127.0.0.1";
const POLL_MS = 250;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function makeLog(log) {
  if (typeof log === "function") return { info: log, warn: log };
  const pick = (k) => (log && typeof log[k] === "function" ? log[k].bind(log) : () => {});
  return { info: pick("info"), warn: log && typeof log.warn === "function" ? log.warn.bind(log) : pick("info") };
}

function isExecutableFile(p) {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** serverBin, then $OPENVIKING_SERVER_BIN, then PATH. */
export function resolveServerBin(serverBin, env = process.env) {
  for (const [what, candidate] of [["serverBin", serverBin], ["OPENVIKING_SERVER_BIN", env.OPENVIKING_SERVER_BIN]]) {
    if (!candidate) continue;
    if (isExecutableFile(candidate)) return resolve(candidate);
    throw new Error(`${what} is not an executable file: ${candidate}`);
  }
  for (const dir of (env.PATH || "").split(delimiter)) {
    const p = dir && join(dir, "openviking-server");
    if (p && isExecutableFile(p)) return p;
  }
  throw new Error("openviking-server not found: pass serverBin, set OPENVIKING_SERVER_BIN, or put it on PATH");
}

/** True when GET /health on the port answers like OpenViking and reports healthy. */
export async function probeHealth(port, timeoutMs = 2000) {
  try {
    const res = await fetch(`http://${HOST}:${port}/health`, { signal: AbortSignal.timeout(timeoutMs), redirect: "manual" });
    if (res.status !== 200) return false;
    const body = await res.json();
    return body?.healthy === true || (body?.status === "ok" && typeof body?.version === "string");
  } catch {
    return false;
  }
}

export function readPidFile(stateDir) {
  try {
    const info = JSON.parse(readFileSync(join(stateDir, PID_FILE), "utf8"));
    return Number.isInteger(info?.pid) && info.pid > 1 ? info : null;
  } catch {
    return null;
  }
}

function writePidFile(stateDir, info) {
  const tmp = join(stateDir, `${PID_FILE}.${process.pid}.tmp`);
  writeFileSync(tmp, JSON.stringify(info) + "\n", { mode: 0o600 });
  renameSync(tmp, join(stateDir, PID_FILE));
}

function removePidFile(stateDir, pid) {
  const cur = readPidFile(stateDir);
  if (cur && pid !== undefined && cur.pid !== pid) return; // not ours to remove
  try {
    unlinkSync(join(stateDir, PID_FILE));
  } catch {
    /* already gone */
  }
}

/** The pid file names a live process this module started: same pid, same start time (Linux),
 *  still openviking-server on the recorded port. */
function isOurs(info) {
  if (!info || !isOpenVikingServer(info.pid, info.port)) return false;
  const now = processStartTicks(info.pid);
  return now === null || info.procStart === now;
}

/** The pid from the pid file if it is our live server on this port, else null. */
function ownedPid(stateDir, port) {
  const info = readPidFile(stateDir);
  return info && info.port === port && isOurs(info) ? info.pid : null;
}

async function terminate(pid, graceMs) {
  const group = processGroup(pid) === pid; // detached: it leads its own group
  const send = (sig) => {
    try {
      process.kill(group ? -pid : pid, sig);
    } catch {
      /* gone */
    }
  };
  send("SIGTERM");
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!pidAlive(pid)) return false;
    await sleep(100);
  }
  send("SIGKILL");
  for (let i = 0; i < 50 && pidAlive(pid); i++) await sleep(100);
  return true;
}

/** The child's environment: ours + the caller's, with loopback exempt from any proxy. */
function serverEnv(extra) {
  const env = { ...process.env, ...(extra ?? {}) };
  for (const k of ["NO_PROXY", "no_proxy"]) {
    const cur = env[k] ? env[k].split(",").map((s) => s.trim()) : [];
    for (const h of ["127.0.0.1", "localhost"]) if (!cur.includes(h)) cur.push(h);
    env[k] = cur.filter(Boolean).join(",");
  }
  return env;
}

async function spawnAndWait({ port, configPath, stateDir, serverBin, env, deadline, log }) {
  const bin = resolveServerBin(serverBin);
  const logPath = join(stateDir, LOG_FILE);
  const fd = openSync(logPath, "a", 0o600);
  let child;
  try {
    child = spawn(bin, ["--config", configPath, "--host", HOST, "--port", String(port)], {
      detached: true, stdio: ["ignore", fd, fd], cwd: stateDir, env: serverEnv(env),
    });
  } finally {
    closeSync(fd);
  }
  let exited = null;
  child.once("exit", (code, signal) => (exited = { code, signal }));
  child.once("error", (err) => (exited = { error: err.code }));
  child.unref();
  if (!child.pid) throw new Error(`could not spawn ${bin} (see ${logPath})`);
  const pid = child.pid;
  writePidFile(stateDir, { pid, port, startedAt: new Date().toISOString(), bin, procStart: processStartTicks(pid) });
  log.info(`openviking-server: spawned pid ${pid} on ${HOST}:${port}, log ${logPath}`);

  for (;;) {
    if (exited) {
      removePidFile(stateDir, pid);
      if (await probeHealth(port)) return { started: false, pid: null }; // someone else's server won the port
      throw new Error(`openviking-server exited (${JSON.stringify(exited)}) before /health answered; see ${logPath}`);
    }
    if (await probeHealth(port)) return { started: true, pid };
    if (Date.now() > deadline) {
      await terminate(pid, 5000);
      removePidFile(stateDir, pid);
      throw new Error(`openviking-server did not become healthy on ${HOST}:${port} in time; see ${logPath}`);
    }
    await sleep(POLL_MS);
  }
}

/**
 * @param {{port: number, configPath: string, stateDir: string, serverBin?: string,
 *          env?: Record<string,string>, startTimeoutMs?: number, log?: Function|object}} o
 * @returns {Promise<{started: boolean, pid: number|null, baseUrl: string}>}
 */
export async function ensureLocalServer({ port, configPath, stateDir, serverBin, env, startTimeoutMs = 60000, log } = {}) {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new TypeError("port must be an integer 1-65535");
  if (typeof stateDir !== "string" || !stateDir) throw new TypeError("stateDir is required");
  if (typeof configPath !== "string" || !configPath) throw new TypeError("configPath is required");
  const logger = makeLog(log);
  const baseUrl = `http://${HOST}:${port}`;
  const deadline = Date.now() + startTimeoutMs;
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const reuse = () => ({ started: false, pid: ownedPid(stateDir, port), baseUrl });

  if (await probeHealth(port)) return reuse();
  const lockPath = join(stateDir, `openviking-server.${port}.lock`);
  for (;;) {
    const lock = tryLock(lockPath, { staleMs: startTimeoutMs + 15000, meta: { port } });
    if (lock) {
      try {
        if (await probeHealth(port)) return reuse(); // the previous holder finished starting it
        const known = readPidFile(stateDir);
        if (known && isOurs(known)) {
          if (known.port !== port) throw new Error(`${stateDir} already manages openviking-server pid ${known.pid} on port ${known.port}`);
          logger.warn(`openviking-server pid ${known.pid} runs but is not healthy yet; waiting`);
          while (Date.now() < deadline) {
            if (await probeHealth(port)) return reuse();
            await sleep(POLL_MS);
          }
          throw new Error(`openviking-server pid ${known.pid} on port ${port} is running but not healthy`);
        }
        const r = await spawnAndWait({ port, configPath, stateDir, serverBin, env, deadline, log: logger });
        return r.started ? { ...r, baseUrl } : reuse();
      } finally {
        lock.release();
      }
    }
    if (await probeHealth(port)) return reuse();
    if (Date.now() > deadline) throw new Error(`timed out waiting for another process to start openviking-server on port ${port}`);
    await sleep(POLL_MS);
  }
}

/**
 * Stop the server recorded in <stateDir>/openviking-server.pid, if it is still that server.
 * @returns {Promise<{stopped: boolean, pid?: number, forced?: boolean, reason?: string}>}
 */
export async function stopLocalServer({ stateDir, graceMs = 10000, log } = {}) {
  if (typeof stateDir !== "string" || !stateDir) throw new TypeError("stateDir is required");
  const logger = makeLog(log);
  const info = readPidFile(stateDir);
  if (!info) return { stopped: false, reason: "no_pid_file" };
  if (!isOurs(info)) {
    removePidFile(stateDir, info.pid); // stale or not ours: forget it, never signal it
    return { stopped: false, pid: info.pid, reason: "not_running" };
  }
  const forced = await terminate(info.pid, graceMs);
  removePidFile(stateDir, info.pid);
  logger.info(`openviking-server: stopped pid ${info.pid}${forced ? " (SIGKILL)" : ""}`);
  return { stopped: true, pid: info.pid, forced };
}
