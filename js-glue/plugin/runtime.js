// The plugin's shared runtime: parsed config, state dir, one lifecycle engine per agent (it
// speaks OpenViking's protocol itself, through the fetch transport), the local server,
// background work the host should wait for.
// OpenClaw may import the plugin module more than once per process, so the runtime lives
// in one registry on globalThis keyed by state dir (never in module-level variables).
import { accessSync, constants, mkdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { ensureLocalServer, localServerStarting, LOG_FILE } from "../openviking/local-server.js";
import { createStateStore } from "../state-store.js";
import { createEngineHost, createTransport } from "../engine-host.js";
import { loadEngineSync } from "../wasm.js";

const REGISTRY = Symbol.for("openviking-context-engine.runtimes");

/** OpenClaw's state dir: what the host says, else OPENCLAW_STATE_DIR, else ~/.openclaw. */
export function openclawStateDir(api) {
  return api?.runtime?.state?.resolveStateDir?.(process.env) ?? process.env.OPENCLAW_STATE_DIR ?? join(homedir(), ".openclaw");
}

/** The plugin's state dir: config.stateDir, else <OpenClaw state dir>/plugins/openviking. */
export function resolveStateDir(api, config) {
  if (config.stateDir) return config.stateDir;
  return join(openclawStateDir(api), "plugins", "openviking");
}

/** The agent an OpenClaw session key ("agent:<agentId>:<rest>") names, or null: the rule
 *  is the engine's (`address::session_map::agent_from_session_key`). */
export function agentFromSessionKey(sessionKey) {
  return loadEngineSync().agentFromSessionKey(typeof sessionKey === "string" ? sessionKey : null) ?? null;
}

/** The agent a CLI command speaks for when none is given: OpenClaw's default agent (the one
 *  marked `default: true`, else the first configured, else "main" — docs/gateway/health.md,
 *  docs/gateway/cli-backends.md of OpenClaw 2026.9.6). */
export function hostDefaultAgent(hostConfig) {
  const agents = hostConfig?.agents;
  const entries = agents?.entries && typeof agents.entries === "object" ? Object.entries(agents.entries) : [];
  const marked = entries.find(([, a]) => a?.default === true) ?? entries[0];
  if (marked) return marked[0];
  const list = Array.isArray(agents?.list) ? agents.list.filter((a) => typeof a?.id === "string") : [];
  const first = list.find((a) => a.default === true) ?? list[0];
  return first?.id ?? "main";
}

/** Can the plugin keep its state in `dir`? Creates it (0700) if missing; null when usable,
 *  else the system's `{code, message}` (the engine names the problem: `stateDirProblem`). */
function probeStateDir(dir) {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!statSync(dir).isDirectory()) return { code: "ENOTDIR", message: `${dir} is not a folder` };
    accessSync(dir, constants.W_OK | constants.X_OK);
    return null;
  } catch (err) {
    return { code: typeof err?.code === "string" ? err.code : "EIO", message: String(err?.message ?? err) };
  }
}

/** The runtime for this plugin config (created once per state dir and process). `wasm` is
 *  the loaded engine package. Never throws for a bad config: the engine checks it
 *  (`checkConfig`) and each problem is logged once, naming the key, its value and the fix; a
 *  config whose problems include an error (or an unusable state dir) gives a *refused*
 *  runtime — the operator commands work, the context engine is off (`runtime.refusal`). */
export function getRuntime({ api, rawConfig, logger, wasm }) {
  const check = wasm.checkConfig(rawConfig ?? null, process.env);
  const problems = [...check.problems];
  let config = check.config;
  const configuredDir = typeof rawConfig?.stateDir === "string";
  // the state dir: the configured one once resolved, else OpenClaw's (unknown when the
  // configured one could not be resolved)
  const stateDir = config ? resolveStateDir(api, config) : configuredDir ? null : resolveStateDir(api, {});
  const registry = (globalThis[REGISTRY] ??= new Map());
  const key = stateDir ?? `(unresolved) ${JSON.stringify(problems.map((p) => p.message))}`;
  const existing = registry.get(key);
  if (existing) return existing;
  if (config) {
    const unusable = probeStateDir(stateDir);
    if (unusable) {
      problems.push(wasm.stateDirProblem({ path: stateDir, code: unusable.code, message: unusable.message, configured: Boolean(config.stateDir) }));
      config = null;
    }
  }
  for (const p of problems.filter((x) => x.severity === "warning")) logger.warn(`[openviking] config: ${p.message} — fix: ${p.fix}`);
  const errors = problems.filter((x) => x.severity === "error");
  // what the plugin can see of its host; the engine says whether it will be used (once per
  // process and cause: the engine keeps count)
  const hostFacts = { slot: api?.config?.plugins?.slots?.contextEngine ?? null, hostVersion: api?.runtime?.version ?? null };
  let runtime;
  if (errors.length) {
    const lines = errors.map((p) => `${p.message} — fix: ${p.fix}`);
    const log = logger.error ?? logger.warn;
    log.call(logger, `[openviking] INVALID_CONFIG: the context engine is off until the plugin config is fixed (OpenClaw runs its built-in engine meanwhile; nothing is stored in OpenViking): ${lines.join("; ")}`);
    // the rest of the config (each key in error at its default): what doctor and setup use
    runtime = refusedRuntime({ wasm, rawConfig: rawConfig ?? {}, stateDir, logger, hostFacts, problems, errors, degraded: check.degraded ?? null });
  } else {
    const inert = wasm.reportHost(hostFacts);
    if (inert) logger.warn(`[openviking] ${inert.line}`);
    runtime = createRuntime({ wasm, config, rawConfig: rawConfig ?? {}, stateDir, logger, hostFacts });
    runtime.problems = problems;
    runtime.openclawStateDir = openclawStateDir(api); // where OpenClaw keeps its own sessions
  }
  registry.set(key, runtime);
  return runtime;
}

/** The runtime for `runtime`'s plugin config (or `rawConfig`) made anew (the environment may
 *  have changed: `setup` just wrote the key): the cached one is replaced for this process. */
export function freshRuntime(api, runtime, rawConfig = runtime.rawConfig) {
  const registry = (globalThis[REGISTRY] ??= new Map());
  for (const [k, v] of registry) if (v === runtime) registry.delete(k);
  return getRuntime({ api, rawConfig, logger: runtime.logger, wasm: runtime.wasm });
}

/** The runtime of a config the engine refused: everything that would store or recall throws
 *  the engine's INVALID_CONFIG error (naming every bad key); `doctor` and `status` read
 *  `problems`. One thing still runs: in local mode, when the only error is the API key (the
 *  user key is made *with* the server), `ensureServer` starts the local server, so the
 *  command that makes the key has a server to talk to. */
function refusedRuntime({ wasm, rawConfig, stateDir, logger, hostFacts, problems, errors, degraded }) {
  const first = errors[0];
  const serverDir = stateDir ?? degraded?.stateDir ?? null; // a configured dir is left unresolved above
  const keyOnly = degraded?.mode === "local" && Boolean(serverDir) && errors.every((p) => p.key === "apiKey");
  let serverReady = null;
  function ensureServer() {
    if (!keyOnly) return Promise.resolve(false);
    serverReady ??= ensureLocalServer({ port: degraded.port, configPath: degraded.configPath, stateDir: serverDir, log: (m) => logger.info?.(`[openviking] ${m}`) })
      .then(() => {
        logger.warn(`[openviking] the local OpenViking server runs on port ${degraded.port}, while the context engine stays off until apiKey is fixed: \`openclaw openviking setup\` makes a user key with it`);
        return true;
      })
      .catch((err) => {
        logger.warn(`[openviking] local OpenViking server not started: ${err.message}`);
        serverReady = null;
        return false;
      });
    return serverReady;
  }
  const message = `INVALID_CONFIG: the OpenViking context engine is off: ${errors.map((p) => `${p.message} — fix: ${p.fix}`).join("; ")}`;
  const refusal = () => Object.assign(new Error(message), { name: "OpenVikingEngineError", code: "INVALID_CONFIG", field: first.key });
  return {
    wasm,
    config: null,
    rawConfig,
    stateDir,
    logger,
    hostFacts,
    problems,
    refused: message,
    refusal,
    degraded,
    agent() {
      throw refusal();
    },
    ensureServer,
    localFacts: () => ({ starting: false, failed: null, logPath: null }),
    noteLocal() {},
    track: (p) => p,
    drain: () => Promise.resolve(),
    touch() {},
    agents: new Map(),
    warnOnce() {},
    recovered() {},
  };
}

function createRuntime({ wasm, config, rawConfig, stateDir, logger, hostFacts = {} }) {
  const store = createStateStore(stateDir, { warn: (m) => logger.warn(`[openviking] ${m}`) });
  const agents = new Map();
  const background = new Set();
  const explicitAgent = typeof rawConfig.agentId === "string";
  let serverReady = null;
  // what this process knows of its local server: a start under way here, the last failure
  const local = { starting: false, failed: null };

  /** What the plugin sees of its local server (LocalServerFacts): a start in this process,
   *  or one another process is making (its start lock, its spawned server), the last failure. */
  function localFacts() {
    if (config.mode !== "local") return { starting: false, failed: null, logPath: null };
    return { starting: local.starting || localServerStarting(stateDir, config.port), failed: local.failed, logPath: join(stateDir, LOG_FILE) };
  }

  /** Hands the facts to the engines (the engine tells "still starting" from "down" by them). */
  function noteLocal(only) {
    if (config.mode !== "local") return;
    const facts = localFacts();
    for (const a of only ? [only] : agents.values()) a.engine.noteLocalServer(facts);
  }

  /** Local mode: start or reuse the server once per process, in the background. */
  function ensureServer() {
    if (config.mode !== "local") return Promise.resolve(true);
    if (!serverReady) {
      local.starting = true;
      noteLocal();
    }
    serverReady ??= ensureLocalServer({ port: config.port, configPath: config.configPath, stateDir, log: (m) => logger.info?.(`[openviking] ${m}`) })
      .then(() => {
        Object.assign(local, { starting: false, failed: null });
        noteLocal();
        recovered("local-server");
        return true;
      })
      .catch((err) => {
        Object.assign(local, { starting: false, failed: err.message });
        noteLocal();
        warnOnce("local-server", `local OpenViking server unavailable (turns are kept in the outbox): ${err.message}`);
        serverReady = null; // try again next time
        return false;
      });
    return serverReady;
  }

  function agentIdFor(sessionKey) {
    if (explicitAgent) return config.agentId;
    return agentFromSessionKey(sessionKey) ?? config.agentId;
  }

  // local mode: the transport checks the port is really OpenViking before any key leaves
  const request = createTransport({ localServer: config.mode === "local" });

  /** The per-agent lifecycle engine (no shared mutable state between agents). */
  function agent(sessionKey) {
    const agentId = agentIdFor(sessionKey);
    let a = agents.get(agentId);
    if (a) return a;
    const host = createEngineHost({ store, request, logger: { warn: (m) => logger.warn(m) } });
    const engine = new wasm.ContextEngine({ ...rawConfig, agentId }, process.env, host);
    engine.noteHost(hostFacts);
    // the user id behind the key: the engine asks the server once and keeps it an hour
    a = { agentId, engine, identity: () => engine.userId() };
    agents.set(agentId, a);
    noteLocal(a);
    return a;
  }

  /** Work the host should not have to wait for, but that should finish before exit. */
  function track(promise) {
    const p = Promise.resolve(promise).catch((err) => logger.warn(`[openviking] background work failed: ${err?.message ?? err}`));
    background.add(p);
    p.finally(() => background.delete(p));
    return p;
  }

  // sessions this process wrote to, so a stop or a signal can replay their outboxes
  const touched = new Map();
  const touch = (agent, ovSessionId) => touched.set(ovSessionId, agent);

  /** Waits (bounded) for background commits, then replays touched sessions' outboxes. */
  async function drain(timeoutMs = 8000) {
    let timer;
    const flushAll = async () => {
      await Promise.allSettled([...background]);
      // drain, not flush: a replay already running (a signal's drain, a turn's) is waited
      // for, not reported as "in progress" while the process exits under it
      await Promise.allSettled([...touched].map(([ov, agent]) => agent.engine.drain(ov)));
    };
    await Promise.race([flushAll(), new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
  }

  // one warning per outage, not per turn: a key warns again only after it recovered
  const warned = new Set();
  function warnOnce(key, message) {
    if (warned.has(key)) return;
    warned.add(key);
    logger.warn(`[openviking] ${message}`);
  }
  function recovered(key) {
    warned.delete(key);
  }

  return { wasm, config, rawConfig, stateDir, store, logger, agent, ensureServer, localFacts, noteLocal, track, drain, touch, agents, warnOnce, recovered, hostFacts, problems: [], refused: null };
}
