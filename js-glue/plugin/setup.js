// `openclaw openviking setup` (local mode): from nothing to a working local OpenViking in one
// command, whatever state the plugin config is in (an `apiKey` naming a variable that is not
// set yet is the usual first state: the engine is off, but the rest of the config — mode,
// port, configPath — is known, `checkConfig`'s `degraded`). Steps, each reported:
//   1. ov.conf at the config's configPath: written when missing (a new random root key, a
//      workspace beside it, the embedding and VLM endpoints given as flags; mode 0600), else
//      read (one JSON object; its root key, if any)
//   2. openviking-server: found ($OPENVIKING_SERVER_BIN or PATH), started or reused on
//      127.0.0.1:port (the same start as a turn's: local-server.js)
//   3. a user key made with the root key (the engine's `adminUserKey`; the protocol is the
//      engine's) — skipped for a server in dev mode (no root key: no key wanted)
//   4. the key written as OPENVIKING_API_KEY to OpenClaw's global .env (<state dir>/.env, which
//      OpenClaw loads without overriding the environment; mode 0600) — the plugin reads that
//      variable when `apiKey` is not set, or through `apiKey: "${OPENVIKING_API_KEY}"`
//   5. `doctor` on the config as it is now
// No key is ever printed: the report names the file the key went to.
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ensureLocalServer, readServerConfig, resolveServerBin } from "../openviking/local-server.js";
import { createEngineHost, createTransport } from "../engine-host.js";
import { createStateStore } from "../state-store.js";

export const DEFAULT_ACCOUNT = "openclaw";
export const DEFAULT_USER = "openclaw";
export const ENV_VAR = "OPENVIKING_API_KEY";

const message = (err) => String(err?.message ?? err);

/** The options of `openclaw openviking setup` on its Commander command. */
export function setupOptions(cmd) {
  return cmd
    .option("--embedding-url <url>", "an OpenAI-compatible embedding endpoint for a new ov.conf (without one, OpenViking downloads a local model on first use)")
    .option("--embedding-key <key>", "its API key")
    .option("--embedding-model <name>", "its model (default text-embedding-3-small)")
    .option("--embedding-dimension <n>", "its vector size (default 1536)")
    .option("--vlm-url <url>", "an OpenAI-compatible chat endpoint for a new ov.conf (summaries and memory extraction)")
    .option("--vlm-key <key>", "its API key")
    .option("--vlm-model <name>", "its model (default gpt-4o-mini)")
    .option("--workspace <dir>", "where a new ov.conf's server keeps its data (default: beside the ov.conf)")
    .option("--account <id>", `the OpenViking account to make (default ${DEFAULT_ACCOUNT})`)
    .option("--user <id>", `its user (default ${DEFAULT_USER})`)
    .option("--env-file <path>", "where to write OPENVIKING_API_KEY (default: OpenClaw's <state dir>/.env)");
}

/** A minimal ov.conf from the flags. */
export function minimalServerConfig(options, configPath, rootKey) {
  const conf = { server: { root_api_key: rootKey }, storage: { workspace: options.workspace ?? join(dirname(configPath), "workspace") } };
  if (options.embeddingUrl) {
    const dimension = options.embeddingDimension === undefined ? 1536 : Number(options.embeddingDimension);
    if (!Number.isInteger(dimension) || dimension < 1) throw new Error(`--embedding-dimension must be a whole number, got ${JSON.stringify(options.embeddingDimension)}`);
    conf.embedding = { dense: { provider: "openai", api_base: options.embeddingUrl, api_key: options.embeddingKey ?? "", model: options.embeddingModel ?? "text-embedding-3-small", dimension } };
  }
  if (options.vlmUrl) conf.vlm = { provider: "openai", api_base: options.vlmUrl, api_key: options.vlmKey ?? "", model: options.vlmModel ?? "gpt-4o-mini" };
  return conf;
}

/** `text` of a .env file with `name=value` set (an existing line replaced, else added). */
export function withEnvLine(text, name, value) {
  const lines = (text ?? "").split("\n");
  while (lines.length && lines.at(-1) === "") lines.pop();
  const line = `${name}=${value}`;
  const at = lines.findIndex((l) => new RegExp(`^\\s*(export\\s+)?${name}\\s*=`).test(l));
  if (at >= 0) lines[at] = line;
  else lines.push(line);
  return `${lines.join("\n")}\n`;
}

function writePrivate(path, text) {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

/**
 * Runs the steps; `doctor(rawConfig)` runs the doctor on the config as it is afterwards. Returns the
 * report document (`command: "setup"`).
 */
export async function runSetup({ runtime, options = {}, openclawStateDir, stateDir, doctor, log = () => {} }) {
  const steps = [];
  const step = (id, status, detail, fix = null) => steps.push({ id, status, detail, fix });
  const doc = { command: "setup", ok: false, configPath: null, port: null, envFile: null, steps, doctor: null, error: null };
  let rawForDoctor = runtime.rawConfig;
  try {
    const cfg = runtime.config ?? runtime.degraded;
    if (!cfg) throw new Error(`the plugin config has errors setup cannot work around: ${(runtime.problems ?? []).filter((p) => p.severity === "error").map((p) => p.message).join("; ")}`);
    if (cfg.mode !== "local") throw new Error("setup is for local mode (the plugin starts OpenViking on this machine); in remote mode make a user key on that server and set apiKey");
    doc.configPath = cfg.configPath;
    doc.port = cfg.port;

    // 1. ov.conf
    let conf;
    if (!existsSync(cfg.configPath)) {
      conf = minimalServerConfig(options, cfg.configPath, randomBytes(24).toString("base64url"));
      mkdirSync(conf.storage.workspace, { recursive: true, mode: 0o700 });
      writePrivate(cfg.configPath, `${JSON.stringify(conf, null, 2)}\n`);
      const noEmbedding = conf.embedding ? "" : "; no --embedding-url: OpenViking 0.5.2 downloads a local embedding model from Hugging Face on first use (a machine without internet needs an endpoint)";
      step("ov-conf", "done", `wrote ${cfg.configPath} (a new root key, workspace ${conf.storage.workspace}${conf.vlm ? "" : ", no --vlm-url: commits are archived without summaries or memories"}${noEmbedding})`);
    } else {
      const read = readServerConfig(cfg.configPath);
      if (!read.ok) throw new Error(`configPath ${cfg.configPath} ${read.why}: fix it, or move it away and run setup again to write a new one`);
      conf = { server: { root_api_key: read.rootKey } };
      step("ov-conf", "ok", `${cfg.configPath} exists, kept as it is (${read.summary})`);
    }
    const rootKey = conf.server.root_api_key || null;

    // 2. the server
    const bin = resolveServerBin(undefined, process.env);
    step("server-bin", "ok", bin);
    await ensureLocalServer({ port: cfg.port, configPath: cfg.configPath, stateDir, log });
    step("server", "ok", `OpenViking answers on 127.0.0.1:${cfg.port}`);

    // 3. the user key
    if (!rootKey) {
      step("key", "skip", "the server runs in dev mode (no server.root_api_key in its ov.conf): it wants no key; leave apiKey unset");
    } else {
      // an engine over the config without its keys in error and without a key (the root
      // key goes with the one call that needs it)
      const inError = new Set((runtime.problems ?? []).filter((p) => p.severity === "error").map((p) => p.key));
      const raw = Object.fromEntries(Object.entries(runtime.rawConfig ?? {}).filter(([k]) => k !== "apiKey" && !inError.has(k)));
      const host = createEngineHost({ store: runtime.store ?? createStateStore(stateDir), request: createTransport({ localServer: true }), logger: { warn: () => {} } });
      const engine = new runtime.wasm.ContextEngine({ ...raw, mode: "local", port: cfg.port }, {}, host);
      const made = await engine.adminUserKey({ rootKey, accountId: options.account ?? DEFAULT_ACCOUNT, userId: options.user ?? DEFAULT_USER });
      step("key", "done", `user ${made.userId} of account ${made.accountId}${made.regenerated ? " (the account existed: its key was made anew, an older key no longer works)" : ""}`);

      // 4. where OpenClaw reads it
      const envFile = options.envFile ?? join(openclawStateDir, ".env");
      doc.envFile = envFile;
      const before = existsSync(envFile) ? readFileSync(envFile, "utf8") : "";
      writePrivate(envFile, withEnvLine(before, ENV_VAR, made.userKey));
      // the plugin config reads the variable when apiKey is unset or names it — OpenClaw hands
      // it over resolved when the variable was set (from its .env) when it loaded the config
      const configured = runtime.rawConfig?.apiKey;
      const previous = process.env[ENV_VAR];
      const uses = configured === undefined || configured === `\${${ENV_VAR}}` || (Boolean(previous) && configured === previous);
      process.env[ENV_VAR] = made.userKey; // for the doctor below, in this process
      if (uses) rawForDoctor = { ...runtime.rawConfig, apiKey: `\${${ENV_VAR}}` };
      step("env", uses ? "done" : "warn", `${ENV_VAR} written to ${envFile} (mode 0600; OpenClaw loads it, never over a variable already set)`,
        uses ? null : `the plugin config's apiKey is set to something else: set it to "\${${ENV_VAR}}", or remove it`);
    }
    doc.doctor = await doctor(rawForDoctor);
    doc.ok = !steps.some((s) => s.status === "fail") && Boolean(doc.doctor?.ok);
  } catch (err) {
    doc.error = message(err);
  }
  return doc;
}
