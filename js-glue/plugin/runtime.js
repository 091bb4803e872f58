// The plugin's shared runtime: parsed config, state dir, one lifecycle engine per agent (it
// speaks OpenViking's protocol itself, through the fetch transport), the local server,
// background work the host should wait for.
// OpenClaw may import the plugin module more than once per process, so the runtime lives
// in one registry on globalThis keyed by state dir (never in module-level variables).
import { homedir } from "node:os";
import { join } from "node:path";
import { ensureLocalServer } from "../openviking/local-server.js";
import { createStateStore } from "../state-store.js";
import { createEngineHost, createTransport } from "../engine-host.js";

const REGISTRY = Symbol.for("openviking-context-engine.runtimes");

/** The plugin's state dir: config.stateDir, else <OpenClaw state dir>/plugins/openviking. */
export function resolveStateDir(api, config) {
  if (config.stateDir) return config.stateDir;
  const base = api?.runtime?.state?.resolveStateDir?.(process.env) ?? process.env.OPENCLAW_STATE_DIR ?? join(homedir(), ".openclaw");
  return join(base, "plugins", "openviking");
}

/** OpenClaw session keys look like "agent:<agentId>:<rest>". */
export function agentFromSessionKey(sessionKey) {
  const m = /^agent:([A-Za-z0-9_.-]{1,128}):/.exec(sessionKey ?? "");
  return m ? m[1] : null;
}

/** The runtime for this plugin config (created once per state dir and process). `wasm` is
 *  the loaded engine package. Throws INVALID_CONFIG naming the key for a bad config. */
export function getRuntime({ api, rawConfig, logger, wasm }) {
  const parsed = wasm.parseConfig(rawConfig ?? null, process.env); // throws INVALID_CONFIG naming the key
  const config = parsed.config;
  const stateDir = resolveStateDir(api, config);
  const registry = (globalThis[REGISTRY] ??= new Map());
  const existing = registry.get(stateDir);
  if (existing) return existing;
  for (const w of parsed.warnings) logger.warn(`[openviking] config: ${w}`);
  // what the plugin can see of its host; the engine says whether it will be used
  const hostFacts = { slot: api?.config?.plugins?.slots?.contextEngine ?? null, hostVersion: api?.runtime?.version ?? null };
  const inert = wasm.diagnoseHost(hostFacts);
  if (inert) logger.warn(`[openviking] the context engine is not in use: ${inert.cause}; fix: ${inert.fix}`);
  const runtime = createRuntime({ wasm, config, rawConfig: rawConfig ?? {}, stateDir, logger, hostFacts });
  registry.set(stateDir, runtime);
  return runtime;
}

function createRuntime({ wasm, config, rawConfig, stateDir, logger, hostFacts = {} }) {
  const store = createStateStore(stateDir, { warn: (m) => logger.warn(`[openviking] ${m}`) });
  const recall = new wasm.Engine(rawConfig, process.env);
  const agents = new Map();
  const background = new Set();
  const explicitAgent = typeof rawConfig.agentId === "string";
  let serverReady = null;

  /** Local mode: start or reuse the server once per process, in the background. */
  function ensureServer() {
    if (config.mode !== "local") return Promise.resolve(true);
    serverReady ??= ensureLocalServer({ port: config.port, configPath: config.configPath, stateDir, log: (m) => logger.info?.(`[openviking] ${m}`) })
      .then(() => {
        recovered("local-server");
        return true;
      })
      .catch((err) => {
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

  return { wasm, config, rawConfig, stateDir, store, recall, logger, agent, ensureServer, track, drain, touch, agents, warnOnce, recovered, hostFacts };
}
