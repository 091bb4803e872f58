// local-server.js — start, reuse and stop a local `openviking-server` on 127.0.0.1:<port>.
// ensureLocalServer() reuses a healthy OpenViking or spawns one detached (it outlives a CLI turn),
// recording it in <stateDir>/openviking-server.pid; a per-port start lock (../lock-file.js) keeps two
// concurrent callers from starting two servers. stopLocalServer() only stops the server that
// pid file names, and only while that pid is still openviking-server on the recorded port.
// "Healthy OpenViking" is checked without any credential (inspectPort): anything else on the
// port is an impostor — an error, never reused, no server spawned over it — and
// localServerGate() keeps the client from sending it the API key or a turn.

import { spawn } from "node:child_process";
import { accessSync, chmodSync, closeSync, constants, existsSync, fchmodSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import { isOpenVikingServer, pidAlive, processGroup, processStartTicks } from "./proc.js";
import { lockFiles, lockHolder } from "../lock-file.js";

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
  throw new Error("openviking-server not found: set OPENVIKING_SERVER_BIN to its path, or put it on PATH (it comes with `pip install openviking`)");
}

// ---- is it really OpenViking? -------------------------------------------------------------
// Before the plugin sends anything with the API key (or a turn) to 127.0.0.1:<port> in local
// mode, the answer on the port must be OpenViking's: GET /health (no key sent) answering 200
// with OpenViking 0.5's health document, and on Linux the listening socket owned by this
// user. Anything else on the port is an impostor: a clear error, never used, never sent the key.

const SEMVER = /^\d+\.\d+(\.\d+)?([-+.][0-9A-Za-z.+-]*)?$/;

/** Why a keyless GET /health answer is not OpenViking 0.5's, or null when it is. OpenViking
 *  0.5.2 answers {status:"ok", healthy:true, version:"0.5.2", auth_mode:"api_key"} (auth_mode
 *  is left out when the server cannot read its config; with a key it adds account_id, user_id,
 *  role — the probe never sends one). */
export function healthProblem(status, contentType, body) {
  if (status !== 200) return `GET /health answered HTTP ${status}`;
  if (!/^application\/json\b/i.test(contentType ?? "")) return `GET /health answered ${contentType ? shown(contentType) : "no content type"}, not JSON`;
  if (body === null || typeof body !== "object" || Array.isArray(body)) return "GET /health did not answer a JSON object";
  if (body.status !== "ok") return `GET /health status is ${shown(body.status)}, not "ok"`;
  if (body.healthy !== true) return "GET /health does not report healthy: true";
  if (typeof body.version !== "string" || !SEMVER.test(body.version)) return "GET /health has no OpenViking version";
  for (const k of ["auth_mode", "account_id", "user_id", "role"]) {
    if (k in body && body[k] !== null && typeof body[k] !== "string") return `GET /health has a malformed ${k}`;
  }
  return null;
}

/** Why a keyless GET /api/v1/system/status answer is not OpenViking's envelope, or null. With
 *  API keys on, 0.5.2 answers 401 {status:"error", result:null, error:{code:"UNAUTHENTICATED",
 *  message}, telemetry, profile}; in dev mode 200 {status:"ok", result:{initialized, user}, …}. */
export function statusProblem(status, body) {
  const what = "GET /api/v1/system/status (sent without a key)";
  if (body === null || typeof body !== "object" || Array.isArray(body)) return `${what} did not answer OpenViking's JSON envelope`;
  if (!("result" in body) || !("error" in body)) return `${what} did not answer OpenViking's {status, result, error} envelope`;
  if (status === 200 && body.status === "ok" && body.result && typeof body.result.initialized === "boolean") return null;
  if ((status === 401 || status === 403) && body.status === "error" && typeof body.error?.code === "string") return null;
  return `${what} answered HTTP ${status} with status ${shown(body.status)}, not OpenViking's`;
}

// /proc/net/tcp{,6} local addresses that a connection to 127.0.0.1 can reach
const V4_REACH = new Set(["0100007F", "00000000"]); // 127.0.0.1, 0.0.0.0
const V6_REACH = new Set(["0000000000000000FFFF00000100007F", "00000000000000000000000000000000"]); // ::ffff:127.0.0.1, ::

/** Linux: the uids owning the TCP listeners that 127.0.0.1:<port> reaches (IPv4 ones, else
 *  dual-stack IPv6 ones), or null when /proc/net is not readable. */
export function listenerUids(port) {
  const found = { v4: [], v6: [] };
  let read = false;
  for (const [file, reach, out] of [["/proc/net/tcp", V4_REACH, found.v4], ["/proc/net/tcp6", V6_REACH, found.v6]]) {
    let text;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    read = true;
    for (const line of text.split("\n").slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 8 || f[3] !== "0A") continue; // 0A = LISTEN
      const [addr, hexPort] = f[1].split(":");
      if (parseInt(hexPort, 16) !== port || !reach.has(addr?.toUpperCase())) continue;
      out.push(Number(f[7]));
    }
  }
  if (!read) return null;
  return found.v4.length ? found.v4 : found.v6;
}

/** A value from an untrusted answer, short enough for a log line. */
const shown = (v) => {
  const t = JSON.stringify(v) ?? String(v);
  return t.length > 60 ? `${t.slice(0, 60)}…` : t;
};

/**
 * What answers on 127.0.0.1:<port>, without sending any credential:
 *   {state:"openviking", health} — OpenViking's health answer, from a listener of this user;
 *   {state:"absent", reason}     — nothing answers (refused, no answer in time);
 *   {state:"impostor", reason}   — something answers that is not (this user's) OpenViking.
 */
export async function inspectPort(port, timeoutMs = 2000) {
  const myUid = typeof process.getuid === "function" ? process.getuid() : null;
  const ownerProblem = () => {
    if (myUid === null) return null;
    const uids = listenerUids(port);
    const foreign = uids?.find((u) => u !== myUid);
    return foreign === undefined ? null : `the listener on ${HOST}:${port} belongs to uid ${foreign}, not to this user (uid ${myUid})`;
  };
  const get = async (path) => {
    // the probe carries no API key: nothing secret goes out before the answer is judged
    const res = await fetch(`http://${HOST}:${port}${path}`, { signal: AbortSignal.timeout(timeoutMs), redirect: "manual", headers: { Accept: "application/json" } });
    let body;
    try {
      body = JSON.parse(await res.text());
    } catch {
      body = undefined;
    }
    return { status: res.status, contentType: res.headers.get("content-type"), body };
  };
  let health;
  try {
    health = await get("/health");
  } catch (err) {
    const owner = ownerProblem();
    if (owner) return { state: "impostor", reason: owner };
    const why = err?.name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : (err?.cause?.code ?? err?.cause?.message ?? err?.name ?? "unreachable");
    return { state: "absent", reason: why };
  }
  const problem = healthProblem(health.status, health.contentType, health.body) ?? ownerProblem();
  if (problem) return { state: "impostor", reason: problem };
  let status;
  try {
    status = await get("/api/v1/system/status");
  } catch (err) {
    return { state: "impostor", reason: `GET /api/v1/system/status got no answer (${err?.cause?.code ?? err?.name})` };
  }
  const envelope = statusProblem(status.status, status.body);
  if (envelope) return { state: "impostor", reason: envelope };
  return { state: "openviking", health: health.body };
}

/** True when GET /health on the port answers as OpenViking does and reports healthy (and, on
 *  Linux, the port is this user's). */
export async function probeHealth(port, timeoutMs = 2000) {
  return (await inspectPort(port, timeoutMs)).state === "openviking";
}

// Local servers this process manages (ensureLocalServer was asked for them), by origin, with
// the last verdict on what answers there. On globalThis: the plugin module may be loaded twice.
const REGISTRY = Symbol.for("openviking-context-engine.local-servers");
const registry = () => (globalThis[REGISTRY] ??= new Map());
const VERIFIED_FOR_MS = 30000; // a good verdict is re-checked after this (the port may change hands)
const REFUSED_FOR_MS = 2000; // a bad one sooner (the impostor may be gone, our server up)

function originOf(port) {
  return `http://${HOST}:${port}`;
}

function entryFor(port) {
  const origin = originOf(port);
  let entry = registry().get(origin);
  if (!entry) registry().set(origin, (entry = { port, verdict: null, at: 0, pending: null }));
  return entry;
}

/** A fresh look at the port (callers at the same moment share one), recorded for the gate. */
function inspectAndRecord(port) {
  const entry = entryFor(port);
  entry.pending ??= inspectPort(port).then((verdict) => {
    Object.assign(entry, { verdict, at: Date.now(), pending: null });
    return verdict;
  });
  return entry.pending;
}

/**
 * For the OpenViking client, before a request that carries the API key. Resolves to null when
 * `origin` is not a local server of this process (nothing to check: remote mode), else to
 * {ok:true} or {ok:false, reason}: the key may only go out on ok. `managed` makes an origin
 * local even before ensureLocalServer ran in this process.
 */
export async function localServerGate(origin, { managed = false } = {}) {
  let entry = registry().get(origin);
  if (!entry) {
    if (!managed) return null;
    const m = /^http:\/\/127\.0\.0\.1:(\d{1,5})$/.exec(origin);
    if (!m) return { ok: false, reason: `${origin} is not a local server address` };
    entry = entryFor(Number(m[1]));
  }
  const v0 = entry.verdict;
  const fresh = v0 && Date.now() - entry.at < (v0.state === "openviking" ? VERIFIED_FOR_MS : REFUSED_FOR_MS);
  const v = fresh ? v0 : await inspectAndRecord(entry.port);
  if (v.state === "openviking") return { ok: true };
  return { ok: false, reason: v.state === "impostor" ? `not OpenViking: ${v.reason}` : `no OpenViking answers (${v.reason})` };
}

function impostorError(port, reason) {
  return new Error(
    `something that is not OpenViking answers on ${HOST}:${port} (${reason}); it is not used and is sent no API key or turns — ` +
      `stop it or choose another port (the plugin's "port"), then the local server starts`,
  );
}

/** The start lock of `port` in `stateDir` (ensureLocalServer holds it while it starts one). */
export function startLockPath(stateDir, port) {
  return join(stateDir, `openviking-server.${port}.lock`);
}

/** Is a start of the local server under way, as far as the files show: a live process holds
 *  the start lock, or the server spawned for this state dir runs (on this port) — while
 *  nothing answers yet, that is a server still starting. Synchronous, no network. */
export function localServerStarting(stateDir, port) {
  if (lockHolder(startLockPath(stateDir, port))?.live) return true;
  const info = readPidFile(stateDir);
  return Boolean(info && info.port === port && isOurs(info));
}

/** A start lock left by a process that is gone (a CLI turn that exited mid-start) is removed
 *  once the server answers: it blocks nothing, but `doctor` would show it. */
async function clearStaleStartLock(locks, lockPath, staleMs) {
  if (!existsSync(lockPath)) return;
  try {
    if (await locks.take(lockPath, staleMs)) await locks.release(lockPath); // breaks a stale lock, leaves a live one
  } catch {
    /* someone else's: leave it */
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

/** A state dir made by an older version may be 0755: make it (and the files this module keeps
 *  there) private. Never fails: a warning at most. */
function tightenDir(stateDir, log) {
  const problems = [];
  for (const [p, want] of [[stateDir, 0o700], [join(stateDir, PID_FILE), 0o600], [join(stateDir, LOG_FILE), 0o600]]) {
    try {
      const st = lstatSync(p);
      if (!st.isSymbolicLink() && (st.mode & 0o777) !== want) chmodSync(p, want);
    } catch (err) {
      if (err.code !== "ENOENT") problems.push(`${p}: ${err.code ?? err.message}`);
    }
  }
  if (problems.length) log.warn(`openviking-server: could not make the state dir private: ${problems.join("; ")}`);
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

async function spawnAndWait({ port, configPath, stateDir, serverBin, env, deadline, log, usable }) {
  const bin = resolveServerBin(serverBin);
  const logPath = join(stateDir, LOG_FILE);
  const fd = openSync(logPath, "a", 0o600);
  try {
    fchmodSync(fd, 0o600); // a log left by an older version may be 0644
  } catch {
    /* not ours to change: the server still logs there */
  }
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
      if (await usable()) return { started: false, pid: null }; // someone else's server won the port (an impostor throws)
      throw new Error(`openviking-server exited (${JSON.stringify(exited)}) before /health answered; see ${logPath}`);
    }
    const v = await inspectAndRecord(port);
    if (v.state === "openviking") return { started: true, pid };
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
  tightenDir(stateDir, logger);
  entryFor(port); // from now on the client checks this origin before it sends the key
  const lockPath = startLockPath(stateDir, port);
  const staleMs = startTimeoutMs + 15000;
  // the start lock's owner: this call (two calls in one process never share a lock)
  const locks = lockFiles();
  const reuse = async () => {
    await clearStaleStartLock(locks, lockPath, staleMs);
    return { started: false, pid: ownedPid(stateDir, port), baseUrl };
  };
  /** "openviking" → reuse; "impostor" → throw (never use it); "absent" → false. */
  const usable = async () => {
    const v = await inspectAndRecord(port);
    if (v.state === "impostor") {
      const err = impostorError(port, v.reason);
      logger.warn(`openviking-server: ${err.message}`);
      throw err;
    }
    return v.state === "openviking";
  };

  if (await usable()) return reuse();
  for (;;) {
    if (await locks.take(lockPath, staleMs, { meta: { port } })) {
      try {
        if (await usable()) return reuse(); // the previous holder finished starting it
        const known = readPidFile(stateDir);
        if (known && isOurs(known)) {
          if (known.port !== port) throw new Error(`${stateDir} already manages openviking-server pid ${known.pid} on port ${known.port}`);
          logger.warn(`openviking-server pid ${known.pid} runs but is not healthy yet; waiting`);
          while (Date.now() < deadline) {
            if (await usable()) return reuse();
            await sleep(POLL_MS);
          }
          throw new Error(`openviking-server pid ${known.pid} on port ${port} is running but not healthy`);
        }
        const r = await spawnAndWait({ port, configPath, stateDir, serverBin, env, deadline, log: logger, usable });
        return r.started ? { ...r, baseUrl } : reuse();
      } finally {
        await locks.release(lockPath).catch(() => {}); // a lock left behind expires
      }
    }
    if (await usable()) return reuse();
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

/** The local server's ov.conf as far as doctor needs it: {ok, summary, rootKey} or {ok:false,
 *  exists, why}. The root key is only compared, never shown. */
export function readServerConfig(path) {
  let text;
  try {
    if (!statSync(path).isFile()) return { ok: false, exists: true, why: "is not a file" };
    text = readFileSync(path, "utf8");
  } catch (err) {
    return err?.code === "ENOENT" ? { ok: false, exists: false, why: "does not exist" } : { ok: false, exists: true, why: `cannot be read (${err?.code ?? err?.message ?? err})` };
  }
  let conf;
  try {
    conf = JSON.parse(text);
  } catch (err) {
    return { ok: false, exists: true, why: `is not valid JSON (${err?.message ?? err}): openviking-server cannot read it` };
  }
  if (conf === null || typeof conf !== "object" || Array.isArray(conf)) return { ok: false, exists: true, why: "is not a JSON object: openviking-server cannot read it" };
  const rootKey = typeof conf.server?.root_api_key === "string" && conf.server.root_api_key ? conf.server.root_api_key : null;
  const parts = [
    conf.storage?.workspace ? `storage.workspace ${conf.storage.workspace}` : "no storage.workspace",
    conf.embedding?.dense ? `embedding ${conf.embedding.dense.provider ?? "?"}/${conf.embedding.dense.model ?? "?"}` : "no embedding (the server's local default model, downloaded on first use)",
    rootKey ? "server.root_api_key set" : "no server.root_api_key (dev mode)",
  ];
  return { ok: true, summary: parts.join(", "), rootKey };
}
