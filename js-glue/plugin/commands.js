// The operator commands, on both surfaces OpenClaw 2026.9.x offers a plugin:
//   `openclaw openviking <sub> [--json]`  — api.registerCli (a Commander command tree)
//   `/openviking <sub> [json]`            — api.registerCommand (a chat command; bypasses the model)
// Subcommands: status, doctor, flush, trace. Each builds one report document (what `--json`
// prints) from what the engine, OpenViking and the host report; commands-format.js turns it
// into text. Session state is read THROUGH the engine (status / trace / drain / ownsSession /
// ovSessionId): no rule of the engine is repeated here. The API key is never shown: the
// resolved config is printed without it, and every output passes through the engine's redactor.
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { inspectPort, readPidFile, readServerConfig, resolveServerBin, startLockPath, LOG_FILE } from "../openviking/local-server.js";
import { isOpenVikingServer, pidAlive } from "../openviking/proc.js";
import { lockHolder } from "../lock-file.js";
import { agentFromSessionKey, freshRuntime, hostDefaultAgent, openclawStateDir, resolveStateDir } from "./runtime.js";
export { hostDefaultAgent };
import { ENGINE_ID } from "./context-engine.js";
import { formatDoctor, formatExport, formatFlush, formatImport, formatSetup, formatStatus, formatTrace, usage } from "./commands-format.js";
import { createImporter, createProgress, importOptions, progressKey } from "./import.js";
import { createExporter, createRestorer, exportOptions } from "./export.js";
import { runSetup, setupOptions } from "./setup.js";

export const COMMAND = "openviking";
export const SUBCOMMANDS = ["status", "doctor", "flush", "trace"];
const DESCRIPTION = "OpenViking context engine: status, doctor, flush, trace, import, export, setup";
const SESSION_PREFIX = "session/";
const PROBE_MS = 5000;

/** True when the CLI invocation prints JSON on stdout (OpenClaw routes its own diagnostics to
 *  stderr then). Synchronous and pure, as root CLI metadata must be. */
export function machineOutput({ argv }) {
  return Array.isArray(argv) && argv.includes("--json");
}

const message = (err) => String(err?.message ?? err);

/** The OpenClaw host version, when this host's api exposes it (`api.runtime.version`). */
function hostVersion(api) {
  try {
    const v = api?.runtime?.version;
    return typeof v === "string" && v ? v : null;
  } catch {
    return null; // a registration mode without a runtime
  }
}

/**
 * The four reports over one plugin runtime. `opts` of each: {sessionKey?, agent?, session?,
 * preferSession?, hostConfig?}: sessionKey (a chat command's) or agent (the CLI's --agent)
 * picks the agent; session is an OpenClaw sessionId (or one of the agent's OpenViking
 * session ids) to look at instead of all of them.
 */
export function createOperator(runtime, { api = null, pluginVersion = null } = {}) {
  const { config, stateDir } = runtime;
  const probeMs = Math.min(config?.timeoutMs ?? PROBE_MS, PROBE_MS);
  // a config the engine refused: every command says so (doctor lists each bad key and its fix)
  const problems = () => runtime.problems ?? safe(() => runtime.wasm.checkConfig(runtime.rawConfig ?? null, process.env).problems) ?? [];
  const refusedDoc = (command, extra = {}) => ({ command, refused: true, problems: problems(), error: runtime.refused, ...extra });

  function pickAgent(opts) {
    if (opts.sessionKey) return runtime.agent(opts.sessionKey);
    const id = opts.agent ?? hostDefaultAgent(opts.hostConfig);
    const key = `agent:${id}:${COMMAND}`;
    if (agentFromSessionKey(key) !== id) throw new Error(`--agent must be an agent id of [A-Za-z0-9_.-] (1-128 characters)`);
    return runtime.agent(key);
  }

  /** This agent's sessions in the state dir, by the engine's ownership (parsed ids). */
  async function ownSessions(agent) {
    // sessions OpenViking holds that this state dir has not seen (a second machine) first
    await agent.engine.adoptSessions?.().catch(() => {});
    const keys = await runtime.store.listStateKeys(SESSION_PREFIX);
    const owns = (ov) => {
      try {
        return agent.engine.ownsSession(ov);
      } catch {
        return false;
      }
    };
    return keys.map((k) => k.slice(SESSION_PREFIX.length)).filter(owns).sort();
  }

  /** The OpenViking session id of what the operator typed: one of the agent's sessions as
   *  listed, else the engine's id for that OpenClaw sessionId. */
  function resolveSession(agent, given, known) {
    if (known.includes(given)) return given;
    return agent.engine.ovSessionId(given);
  }

  /** The engine's checks of the server: health (no key), the key, a probe search, and their
   *  verdict (what the plugin sees of its local server included: a start under way). */
  async function probe(agent) {
    try {
      return await agent.engine.probe(probeMs, runtime.localFacts?.());
    } catch (err) {
      const error = message(err);
      return {
        baseUrl: config.baseUrl,
        health: { reachable: false, version: null, latencyMs: null, error },
        auth: { userId: null, denied: false, error },
        find: { ran: false, scope: null, hits: 0, error },
        verdict: { state: "unreachable", message: error, fix: null },
      };
    }
  }

  /** The server as `status` shows it: reachable or not, and the verdict in one word. */
  const server = ({ health, verdict }) => ({ baseUrl: config.baseUrl, mode: config.mode, ...health, state: verdict.state, usable: verdict.state === "ok" || verdict.state === "no_user", message: verdict.message, fix: verdict.fix });

  async function status(opts = {}) {
    if (runtime.refused) return refusedDoc("status", { stateDir, sessions: [] });
    const agent = pickAgent(opts);
    const probed = await probe(agent);
    // whose key it is, from the same check: a refused key is not "user unknown"
    const identity = { userId: probed.auth.userId ?? null, agentId: agent.agentId, error: probed.auth.error ?? null, denied: Boolean(probed.auth.denied) };
    const doc = { command: "status", openviking: server(probed), identity, stateDir, session: opts.session ?? null, sessions: [], memoryQueued: null, import: null, error: null };
    try {
      doc.memoryQueued = await agent.engine.memoryQueued();
      const imp = await runtime.store.loadState(progressKey(agent.agentId)).catch(() => null);
      if (imp) doc.import = { ...imp, running: !imp.finishedAt && pidAlive(imp.pid) };
      const known = await ownSessions(agent);
      const list = opts.session ? [resolveSession(agent, opts.session, known)] : known;
      for (const ov of list) {
        try {
          doc.sessions.push({ ...(await agent.engine.status(ov)), known: known.includes(ov) });
        } catch (err) {
          doc.sessions.push({ ovSessionId: ov, sessionId: null, known: known.includes(ov), error: message(err) });
        }
      }
    } catch (err) {
      doc.error = message(err);
    }
    return doc;
  }

  async function flush(opts = {}) {
    if (runtime.refused) return refusedDoc("flush", { agentId: null, session: opts.session ?? null, sessions: [], totals: { written: 0, queued: 0 } });
    const agent = pickAgent(opts);
    const doc = { command: "flush", agentId: agent.agentId, session: opts.session ?? null, sessions: [], memory: null, totals: { written: 0, queued: 0 }, error: null };
    try {
      await runtime.ensureServer?.(); // local mode: start or reuse the server, as a turn does
      // the memory changes queued during an outage first, as every replay does
      doc.memory = await agent.engine.flushMemoryNow();
      const known = await ownSessions(agent);
      const list = opts.session ? [resolveSession(agent, opts.session, known)] : known;
      for (const ov of list) {
        try {
          const r = await agent.engine.flushNow(ov); // sent now, whatever a pause says
          doc.sessions.push({ ovSessionId: ov, ...r, error: null });
          doc.totals.written += r.written;
          doc.totals.queued += r.queued;
        } catch (err) {
          doc.sessions.push({ ovSessionId: ov, written: 0, queued: null, reason: null, inProgress: false, error: message(err) });
        }
      }
    } catch (err) {
      doc.error = message(err);
    }
    return doc;
  }

  async function trace(opts = {}) {
    if (runtime.refused) return refusedDoc("trace", { agentId: null, ovSessionId: null, sessionId: null, trace: null });
    const agent = pickAgent(opts);
    const doc = { command: "trace", agentId: agent.agentId, ovSessionId: null, sessionId: null, trace: null, error: null };
    try {
      const known = await ownSessions(agent);
      let ov = null;
      let found = null;
      if (opts.session) {
        ov = resolveSession(agent, opts.session, known);
      } else {
        const preferred = opts.preferSession ? safe(() => resolveSession(agent, opts.preferSession, known)) : null;
        if (preferred && known.includes(preferred)) found = { ov: preferred, trace: await agent.engine.trace(preferred) };
        if (!found?.trace) {
          // the session assembled last, by the engine's own traces
          for (const cand of known) {
            const t = await agent.engine.trace(cand);
            if (t && (!found?.trace || t.atMs > found.trace.atMs)) found = { ov: cand, trace: t };
          }
        }
        ov = found?.ov ?? null;
      }
      if (!ov) {
        doc.error = `no session of agent ${agent.agentId} in the state dir has an assembled turn yet`;
        return doc;
      }
      doc.ovSessionId = ov;
      doc.trace = found?.ov === ov ? found.trace : await agent.engine.trace(ov);
      doc.sessionId = (await agent.engine.status(ov)).sessionId || null;
    } catch (err) {
      doc.error = message(err);
    }
    return doc;
  }

  async function doctor(opts = {}) {
    const checks = [];
    const check = (id, title, status, detail = null, fix = null) =>
      checks.push({ id, title, status, detail, fix: status === "fail" || status === "warn" ? fix : null });
    const doc = {
      command: "doctor",
      ok: false,
      plugin: { id: COMMAND, version: pluginVersion, engineVersion: safe(() => runtime.wasm.version()) },
      host: { version: hostVersion(api) },
      agentId: null,
      config: { resolved: null, apiKeySet: false, warnings: [], error: null },
      checks,
    };

    // 1. the config as the engine checked it: each problem on its own line, with its fix
    const found = problems();
    const resolved = config ? Object.fromEntries(Object.entries(config).filter(([k]) => k !== "apiKey")) : null;
    doc.config = {
      resolved,
      apiKeySet: Boolean(config?.apiKey),
      warnings: found.filter((p) => p.severity === "warning").map((p) => `${p.message} — fix: ${p.fix}`),
      problems: found,
      error: runtime.refused ?? null,
    };
    if (!found.length) check("config", "config resolved", "ok", `mode ${config.mode}, API key ${config.apiKey ? "set" : "not set"}`);
    for (const p of found) check("config", `config ${p.key}`, p.severity === "error" ? "fail" : "warn", p.message, p.fix);

    // 2. the host: is this engine the one in the context-engine slot, and will the host use it?
    const hostConfig = opts.hostConfig ?? null;
    const slot = hostConfig ? hostConfig.plugins?.slots?.contextEngine ?? null : undefined;
    const version = doc.host.version;
    // the engine's own verdict on these facts, where this build of it has one
    const verdict = typeof runtime.wasm.diagnoseHost === "function" ? safe(() => runtime.wasm.diagnoseHost({ slot: slot ?? null, hostVersion: version })) : undefined;
    const slotFix = verdict?.code === "not_in_slot" ? verdict.fix
      : `set plugins.slots.contextEngine to "${ENGINE_ID}" in openclaw.json (and restart a running gateway); until then turns are not stored in OpenViking and recall only comes from the before_prompt_build fallback`;
    if (slot === undefined) {
      check("slot", "context-engine slot", "warn", "the host gave no config to read the slot from", `check that plugins.slots.contextEngine is "${ENGINE_ID}" in openclaw.json`);
    } else {
      check("slot", "context-engine slot", slot === ENGINE_ID ? "ok" : "fail",
        slot === ENGINE_ID ? `plugins.slots.contextEngine is "${ENGINE_ID}"` : `plugins.slots.contextEngine is ${slot === null ? 'unset (the built-in "legacy" engine runs)' : JSON.stringify(slot)}`,
        slotFix);
      const entry = hostConfig.plugins?.entries?.[COMMAND];
      if (config?.hookFallback) {
        const allowed = entry?.hooks?.allowConversationAccess === true;
        check("hooks", "conversation hooks (recall fallback)", allowed ? "ok" : "warn",
          allowed ? "plugins.entries.openviking.hooks.allowConversationAccess is true" : "plugins.entries.openviking.hooks.allowConversationAccess is not true: OpenClaw 2026.9.x never calls the before_prompt_build fallback",
          "set plugins.entries.openviking.hooks.allowConversationAccess to true (or hookFallback: false in the plugin config)");
      }
    }

    // 3. OpenViking, endpoint by endpoint
    let agent = null;
    if (!runtime.refused) {
      try {
        agent = pickAgent(opts);
        doc.agentId = agent.agentId;
      } catch (err) {
        check("agent", "agent", "fail", message(err), "pass --agent with an agent id of this OpenClaw");
      }
    }
    // the host check: what the engine saw in this process (a turn run without it) wins over
    // the facts; never "[ok]" beside a cause the engine reported
    const seen = agent && typeof agent.engine.inert === "function" ? safe(() => agent.engine.inert()) : null;
    const diagnosis = seen ?? verdict;
    if (runtime.refused) {
      check("host", "host uses the engine (the engine's verdict)", "fail",
        "no — the engine refuses to start while the plugin config has errors (above): OpenClaw runs its built-in engine and nothing is stored in OpenViking",
        "fix the keys above under plugins.entries.openviking.config in openclaw.json (and restart a running gateway)");
    } else if (verdict !== undefined || seen) {
      const status = !diagnosis ? "ok" : diagnosis.code === "not_in_slot" || diagnosis.code === "host_too_old" ? "fail" : "warn";
      const detail = !diagnosis
        ? `OpenClaw ${version ?? "(version unknown)"} with the engine in the slot drives it`
        : diagnosis.code === "not_in_slot" ? `no — ${diagnosis.cause}` : `${diagnosis.code}: ${diagnosis.cause}`;
      check("host", "host uses the engine (the engine's verdict)", status, detail, diagnosis?.fix ?? null);
    }
    if (agent) {
      const { health, auth, find, verdict: reach } = await probe(agent);
      const unreachableFix = reach.state === "unreachable" || reach.state === "server_starting" ? reach.fix : null;
      check("health", "OpenViking GET /health", health.reachable ? "ok" : reach.state === "server_starting" ? "warn" : "fail",
        health.reachable ? `${config.baseUrl}: OpenViking ${health.version ?? "(no version)"}, ${health.latencyMs} ms`
          : reach.state === "server_starting" ? `${config.baseUrl}: ${reach.message}` : `${config.baseUrl}: ${health.error}`,
        unreachableFix ?? reach.fix);
      const authLabel = `OpenViking GET /api/v1/system/status (${config.apiKey ? "with the API key" : "no API key set"})`;
      if (auth.error) {
        check("auth", authLabel, "fail", reach.state === "key_refused" ? reach.message : auth.error, reach.fix);
      } else {
        check("auth", authLabel, auth.userId ? "ok" : "warn", reach.message, reach.fix);
      }
      const findLabel = "OpenViking POST /api/v1/search/find (user memories)";
      if (!find.ran) {
        check("find", findLabel, "skip", "needs the user id from the status check");
      } else if (find.error) {
        check("find", findLabel, "fail", find.error,
          "the server's search failed: check its embedding model configuration and its log; recall is skipped until it answers");
      } else {
        check("find", findLabel, "ok", `${find.scope}: answered (${find.hits} hit${find.hits === 1 ? "" : "s"} for a probe query)`);
      }
    } else if (runtime.refused) {
      check("openviking", "OpenViking", "skip", "not checked: the config has errors (above)");
    }

    // 4. the state dir
    if (!stateDir || runtime.refused) {
      check("state", "state dir", "skip", stateDir ? `${stateDir}: not used while the config has errors` : "not resolved: see the config check above");
    } else try {
      const keys = await runtime.store.listStateKeys("");
      const own = agent ? (await ownSessions(agent)).length : null;
      check("state", "state dir", "ok", `${stateDir}: ${keys.length} state file(s)${own === null ? "" : `, ${own} session(s) of agent ${agent.agentId}`}`);
    } catch (err) {
      check("state", "state dir", "fail", message(err), `make ${stateDir} readable and writable by this user (0700), or set stateDir`);
    }

    // 5. local mode: the server this plugin starts, its config file, pid file and start lock
    // (with errors in the config, the rest of it: `checkConfig`'s degraded config)
    const local = config ?? runtime.degraded ?? null;
    if (!local) {
      // nothing to check against: the config above decides mode and port
    } else if (local.mode === "local") {
      const config = local;
      const stateDir = runtime.stateDir ?? resolveStateDir(api, local);
      const v = await inspectPort(config.port, probeMs);
      check("local-port", `local server port 127.0.0.1:${config.port}`, v.state === "openviking" ? "ok" : "fail",
        v.state === "openviking" ? `OpenViking ${v.health?.version ?? ""} answers`.trim() : v.state === "absent" ? `nothing answers (${v.reason})` : `something that is not OpenViking answers: ${v.reason}`,
        v.state === "impostor" ? `stop what listens on 127.0.0.1:${config.port} or choose another port (the plugin's "port"); the plugin sends it no key and no turns` : `start the gateway or run one turn: the plugin starts openviking-server --config ${config.configPath}; see ${join(stateDir, LOG_FILE)}`);
      // the server's config file, which the plugin passes to the server it starts: on disk,
      // one JSON object (what openviking-server reads)
      const answering = v.state === "openviking";
      const conf = readServerConfig(config.configPath);
      if (conf.ok) {
        check("local-config", "local server config (configPath)", "ok", `${config.configPath} exists and parses (${conf.summary})`);
      } else {
        check("local-config", "local server config (configPath)", answering ? "warn" : "fail",
          `configPath ${config.configPath} ${conf.why}${answering ? " (the server answering on the port is reused; a new start would fail)" : ": the plugin cannot start openviking-server"}`,
          conf.exists
            ? "make it one JSON object (OpenViking's ov.conf: server, storage, embedding, vlm — see the README's local mode), or set configPath to yours"
            : "create that ov.conf (OpenViking's server config: storage path, embedding and model settings) or set configPath to yours");
      }
      // the server binary the plugin starts: $OPENVIKING_SERVER_BIN, else openviking-server on PATH
      try {
        const bin = resolveServerBin(undefined, process.env);
        check("local-bin", "local server binary (openviking-server)", "ok", `${bin} (${process.env.OPENVIKING_SERVER_BIN ? "OPENVIKING_SERVER_BIN" : "on PATH"})`);
      } catch (err) {
        check("local-bin", "local server binary (openviking-server)", answering ? "warn" : "fail",
          `${message(err)}${answering ? " (the server answering on the port is reused; a new start would fail)" : ""}`,
          "pip install openviking==0.5.2 (in a venv), then set OPENVIKING_SERVER_BIN=<venv>/bin/openviking-server where OpenClaw (or its gateway) starts, or put <venv>/bin on its PATH");
      }
      // the key: a server whose ov.conf sets server.root_api_key wants a user key (its
      // data APIs refuse the root key); without one it runs in dev mode and wants none
      if (conf.ok) {
        const keyFix = `run \`openclaw openviking setup\` (it makes a user key with the root key and writes it as OPENVIKING_API_KEY where OpenClaw reads it), or make one yourself — POST http://127.0.0.1:${config.port}/api/v1/admin/accounts {"account_id":"me","admin_user_id":"me"} sent with server.root_api_key (the README's local mode has the curl) answers it as result.user_key — then set apiKey (or $OPENVIKING_API_KEY) to it`;
        if (conf.rootKey && config.apiKey && config.apiKey === conf.rootKey) {
          check("local-key", "API key for the local server", "fail", "apiKey is the server's root key (server.root_api_key in configPath): OpenViking refuses it on the data APIs (PERMISSION_DENIED)", keyFix);
        } else if (conf.rootKey && !config.apiKey) {
          check("local-key", "API key for the local server", "fail", "configPath sets server.root_api_key, so the server wants a user key, and apiKey is not set (nor $OPENVIKING_API_KEY)", keyFix);
        } else if (conf.rootKey) {
          check("local-key", "API key for the local server", "ok", `set (a user key; the server checks it${answering ? ": see the status check above" : " once it answers"})`);
        } else {
          check("local-key", "API key for the local server", "ok", `the server runs in dev mode (configPath sets no server.root_api_key): no key needed${config.apiKey ? "; the key set is sent" : ""}`);
        }
      } else {
        check("local-key", "API key for the local server", "skip", "needs a readable configPath (above)");
      }
      const info = readPidFile(stateDir);
      if (!info) {
        check("local-pid", "local server pid file", "ok", "none (this plugin started no server; one answering on the port is reused)");
      } else if (isOpenVikingServer(info.pid, info.port)) {
        check("local-pid", "local server pid file", info.port === config.port ? "ok" : "warn",
          `pid ${info.pid} is openviking-server on port ${info.port}, started ${info.startedAt ?? "(unknown)"}`,
          `the server this state dir manages listens on ${info.port}, the config says ${config.port}: stop it (pid ${info.pid}) or set port back`);
      } else {
        check("local-pid", "local server pid file", "warn", `pid ${info.pid} (port ${info.port}) is no longer openviking-server: the pid file is stale`,
          "nothing to do: the next start replaces it (a stale pid is never signalled)");
      }
      // the start lock ensureLocalServer takes (local-server.js: openviking-server.<port>.lock)
      const lockPath = startLockPath(stateDir, config.port);
      if (!existsSync(lockPath)) {
        check("local-lock", "local server start lock", "ok", "free (no start under way)");
      } else {
        const holder = lockHolder(lockPath);
        const live = Boolean(holder?.live);
        // a lock left by a process that is gone blocks nothing (the next start breaks it, a
        // healthy server's reuse removes it): not a warning
        check("local-lock", "local server start lock", live ? "warn" : "ok",
          live ? `held by pid ${holder.pid} until ${new Date(holder.expiresAtMs).toISOString()}: a start is under way` : `free (a stale lock of a process that is gone is left; the next start breaks it)`,
          live ? "wait for that start to finish (or for it to time out)" : null);
      }
    } else {
      check("local", "local server", "skip", "remote mode: the plugin starts no server");
    }

    doc.ok = !checks.some((c) => c.status === "fail");
    return doc;
  }

  /** `import`: refused like the others when the config is; `progress` only on the CLI. */
  const importSessions = (opts = {}, progress = null) =>
    runtime.refused ? Promise.resolve(refusedDoc("import", { sessions: [], totals: null }))
      : opts.from ? createRestorer(runtime, { pickAgent, progress })(opts)
      : createImporter(runtime, { pickAgent, progress })(opts);
  /** `export`: the agent's past in OpenViking to one file. */
  const exportAgent = (opts = {}) =>
    runtime.refused ? Promise.resolve(refusedDoc("export", { sessions: [], totals: null })) : createExporter(runtime, { pickAgent })(opts);
  /** `setup` (local mode): runs whatever the config's state; then the doctor on the config
   *  as it is afterwards (a runtime made anew: the key may just have been written). */
  const setup = (opts = {}) =>
    runSetup({
      runtime, options: opts, openclawStateDir: openclawStateDir(api), stateDir: stateDir ?? resolveStateDir(api, runtime.degraded ?? {}),
      log: (m) => runtime.logger?.info?.(`[openviking] ${m}`),
      doctor: (rawConfig) => createOperator(freshRuntime(api, runtime, rawConfig), { api, pluginVersion }).doctor({ hostConfig: opts.hostConfig }),
    });
  return { status, doctor, flush, trace, import: importSessions, export: exportAgent, setup };
}

function safe(fn) {
  try {
    return fn();
  } catch {
    return null;
  }
}

const FORMAT = { status: formatStatus, doctor: formatDoctor, flush: formatFlush, trace: formatTrace, import: formatImport, export: formatExport, setup: formatSetup };

/** Did the command fail (for the CLI's exit code)? */
export function failed(doc) {
  if (doc.error) return true;
  if (doc.refused) return true;
  if (doc.command === "status") return !doc.openviking.usable || doc.sessions.some((s) => s.error);
  if (doc.command === "doctor") return !doc.ok;
  if (doc.command === "flush") return doc.totals.queued > 0 || (doc.memory?.queued ?? 0) > 0 || doc.sessions.some((s) => s.error);
  if (doc.command === "import") return Boolean(doc.error) || doc.sessions.some((s) => s.error || s.stopped) || Boolean(doc.memories?.error);
  if (doc.command === "export") return Boolean(doc.error);
  if (doc.command === "setup") return !doc.ok;
  return false;
}

/** `{render, redact}`: a report as text (or JSON), with the API key scrubbed from it. */
export function createRenderer(runtime, { now = () => Date.now() } = {}) {
  const raw = runtime.rawConfig?.apiKey;
  const secrets = [runtime.config?.apiKey, typeof raw === "string" && !raw.includes("${") ? raw : undefined];
  const redact = (text) => runtime.wasm.redactSecrets(String(text ?? ""), secrets);
  return {
    redact,
    render(doc, json) {
      if (json) return redact(JSON.stringify(doc, null, 2));
      let text;
      try {
        text = FORMAT[doc.command](doc, { now: now() });
      } catch {
        text = `openviking ${doc.command}: ${doc.error ?? "the report could not be formatted (try --json)"}`;
      }
      return redact(text);
    },
  };
}

/** The arguments of a message that is only `/openviking [args]` (the whole message, as a
 *  command is sent), else null: any other text is the user's, for the model. */
export function chatCommandArgs(text) {
  if (typeof text !== "string") return null;
  const m = new RegExp(`^\\s*/${COMMAND}(?:\\s+([\\s\\S]*?))?\\s*$`).exec(text);
  return m ? m[1] ?? "" : null;
}

/** The chat command's argument string → {sub, json, session, help}. */
export function parseChatArgs(args) {
  const words = String(args ?? "").trim().split(/\s+/).filter(Boolean);
  const out = { sub: null, json: false, session: null, help: false, unknown: [] };
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w === "json" || w === "--json") out.json = true;
    else if (w === "help" || w === "--help" || w === "-h") out.help = true;
    else if (w === "--session" || w === "session") out.session = words[++i] ?? null;
    else if (w.startsWith("--session=") || w.startsWith("session=")) out.session = w.slice(w.indexOf("=") + 1) || null;
    else if (!out.sub && SUBCOMMANDS.includes(w)) out.sub = w;
    else out.unknown.push(w);
  }
  return out;
}

const SPECS = [
  ["status", "OpenViking reachability, identity, and each session's turns, outbox, commits and triggers", true],
  ["doctor", "config, context-engine slot, OpenViking endpoints and the local server, each with a fix", false],
  ["flush", "replay each session's outbox into OpenViking now", true],
  ["trace", "the last assembled turn: query, scopes, memories injected or cut and why, token split", true],
  ["import", "bring the agent's OpenClaw sessions from before this engine into OpenViking (a dry run without --apply)", false],
  ["export", "the agent's past in OpenViking (sessions, checkpoints, memories) to one file, for `import --from` on another server", false],
  ["setup", "local mode in one command: ov.conf, the server, a user key where OpenClaw reads it, then doctor", false],
];

/** The `openclaw openviking <sub>` tree on the Commander `program` OpenClaw hands the
 *  registrar; `run(sub, options)` resolves to the text to print and whether it failed. */
function buildCliTree(program, run) {
  const root = program.command(COMMAND).description(DESCRIPTION);
  for (const [sub, description, perSession] of SPECS) {
    const cmd = root.command(sub).description(description).option("--json", "print the report as JSON");
    if (sub === "import") importOptions(cmd);
    if (sub === "export") exportOptions(cmd);
    if (sub === "setup") setupOptions(cmd);
    if (perSession) cmd.option("--session <sessionId>", "only this session (an OpenClaw sessionId)");
    cmd.option("--agent <agentId>", "the OpenClaw agent (default: the host's default agent)");
    cmd.action(async (options = {}) => {
      const { text, fail } = await run(sub, options);
      process.stdout.write(`${text}\n`);
      if (fail) process.exitCode = 1;
    });
  }
}

const CLI_OPTIONS = { descriptors: [{ name: COMMAND, description: DESCRIPTION, hasSubcommands: true, machineOutput }] };

/**
 * Registers `openclaw openviking …` and `/openviking …` on hosts that offer them. Without a
 * runtime (OpenClaw's "cli-metadata" registration, where the plugin runtime is unavailable)
 * only the CLI root is declared, so the host can route `openclaw openviking` to this plugin;
 * the commands then run from the plugin's full registration.
 */
export function registerCommands(api, runtime, { pluginVersion = null } = {}) {
  if (!runtime) {
    if (typeof api.registerCli === "function") {
      api.registerCli(({ program }) => buildCliTree(program, async (sub) => ({ text: `openviking ${sub}: not available while OpenClaw only collects CLI metadata`, fail: true })), CLI_OPTIONS);
    }
    return null;
  }
  const operator = createOperator(runtime, { api, pluginVersion });
  const { render } = createRenderer(runtime);

  if (typeof api.registerCli === "function") {
    api.registerCli(
      ({ program, config }) =>
        buildCliTree(program, async (sub, options) => {
          const json = Boolean(options.json);
          let doc;
          try {
            const hostConfig = config ?? safe(() => api.config);
            doc = sub === "import" ? await operator.import({ ...options, hostConfig, openclawStateDir: openclawStateDir(api) }, createProgress())
              : sub === "export" ? await operator.export({ ...options, hostConfig })
              : sub === "setup" ? await operator.setup({ ...options, hostConfig })
              : await operator[sub]({ agent: options.agent, session: options.session, hostConfig });
          } catch (err) {
            doc = { command: sub, error: message(err) };
          }
          return { text: render(doc, json), fail: failed(doc) };
        }),
      CLI_OPTIONS,
    );
  }

  /** A chat command's answer: `args` after `/openviking`, `ctx` the host's (sessionKey, agentId, sessionId, config). */
  async function answer(args, ctx = {}) {
    const a = parseChatArgs(args);
    if (a.help || !a.sub || a.unknown.length) {
      const head = a.unknown.length ? `unknown argument(s): ${a.unknown.join(" ")}\n` : "";
      return { text: `${head}${usage(`/${COMMAND}`)}` };
    }
    const sessionKey = ctx.sessionKey ?? (ctx.agentId ? `agent:${ctx.agentId}:${COMMAND}` : undefined);
    try {
      const doc = await operator[a.sub]({ sessionKey, session: a.session, preferSession: ctx.sessionId, hostConfig: ctx.config ?? safe(() => api.config) });
      const text = render(doc, a.json);
      return { text: a.json ? `\`\`\`json\n${text}\n\`\`\`` : text };
    } catch (err) {
      return { text: render({ command: a.sub, error: message(err) }, a.json) };
    }
  }

  // where OpenClaw runs its command dispatcher (a gateway's chat.send: the TUI on a gateway,
  // the Control UI, channels), `/openviking …` reaches this handler and never the model
  if (typeof api.registerCommand === "function") {
    api.registerCommand({
      name: COMMAND,
      description: DESCRIPTION,
      acceptsArgs: true,
      requireAuth: true,
      handler: (ctx = {}) => answer(ctx.args, ctx),
    });
  }
  // where it does not (`openclaw agent --message`, `--local`, `openclaw chat`: the text goes
  // to the agent run as it is), the run's before_agent_reply hook claims a message that is
  // only `/openviking …` and answers it in place of the model: no model call, and the run
  // ends before the context engine sees a turn. OpenClaw calls the hook only with
  // plugins.entries.openviking.hooks.allowConversationAccess: true.
  if (typeof api.on === "function") {
    try {
      api.on("before_agent_reply", async (event, ctx = {}) => {
        const args = chatCommandArgs(event?.cleanedBody);
        if (args === null) return undefined;
        const { text } = await answer(args, ctx);
        return { handled: true, reply: { text } };
      }, { eligibleTriggers: ["user"] });
    } catch {
      // a host that does not know the hook: the commands still work on its other surfaces
    }
  }
  return operator;
}
