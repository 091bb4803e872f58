// The operator commands' test fixture: a fake OpenClaw api that captures the registrations
// (CLI tree and chat command), a runtime whose engines are real ContextEngines on an
// in-memory host (OpenViking + state dir), and every text a command printed (`outputs`, for
// the key checks).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadEngine } from "../../../tests/support/packages.mjs"; // the test build (parseConfig is the page's)
import { registerCommands } from "../../plugin/commands.js";
import { agentFromSessionKey } from "../../plugin/runtime.js";
import { memoryHost } from "./memory-host.mjs";

export const wasm = await loadEngine();
export const { ContextEngine } = wasm;
export const KEY = "sk-operator-SECRET-9f8e7d";
export const HOST_CONFIG = {
  plugins: { slots: { contextEngine: "openviking" }, entries: { openviking: { enabled: true, hooks: { allowConversationAccess: true } } } },
};
export { freePort } from "../openviking/helpers.mjs";

export const outputs = []; // every text any command printed, for the key check at the end

/** The runtime's shape (plugin/runtime.js) with real engines over one in-memory host. */
export function fakeRuntime({ mode = "remote", port, stateDir = "/tmp/ov-commands-test-state", keyLeaks = false, configPath = "/nowhere/ov.conf", localFacts, apiKey = KEY } = {}) {
  const host = memoryHost();
  const rawConfig = { mode, port, baseUrl: "http://127.0.0.1:1933", apiKey, compactTurnThreshold: 3, timeoutMs: 1000, stateDir, configPath };
  if (mode === "remote") delete rawConfig.port;
  if (apiKey === null) delete rawConfig.apiKey;
  const { config } = wasm.parseConfig(rawConfig, {});
  const agents = new Map();
  // the server as the probe sees it: down, or a careless proxy that echoes the key
  const server = {
    get down() {
      return host.down;
    },
    set down(v) {
      host.down = v;
    },
    finds: host.finds,
  };
  const userId = host.userId;
  host.userId = async () => {
    // the commands must still not print a key the server echoed
    if (keyLeaks) throw Object.assign(new Error(`bad key ${KEY}`), { code: "UNAUTHENTICATED", status: 401 });
    return userId();
  };
  function agent(sessionKey) {
    const agentId = agentFromSessionKey(sessionKey) ?? config.agentId;
    if (agents.has(agentId)) return agents.get(agentId);
    const engine = new ContextEngine({ ...rawConfig, agentId }, {}, host);
    const a = { agentId, engine, identity: () => engine.userId() };
    agents.set(agentId, a);
    return a;
  }
  return { wasm, config, rawConfig, stateDir, store: host, host, server, agents, agent, logger: { warn() {}, info() {} }, ensureServer: async () => true, localFacts };
}

/** Just enough of Commander for the registrar: command/description/option/action. */
export class FakeCommand {
  constructor(name) {
    Object.assign(this, { name, subs: [], flags: [], fn: null, text: "" });
  }
  command(name) {
    const c = new FakeCommand(name);
    this.subs.push(c);
    return c;
  }
  description(text) {
    this.text = text;
    return this;
  }
  option(flags) {
    this.flags.push(flags);
    return this;
  }
  action(fn) {
    this.fn = fn;
    return this;
  }
}

/** A fake OpenClaw api that captures registrations. */
export function fakeApi(extra = {}) {
  const api = { clis: [], commands: [], config: HOST_CONFIG, runtime: { version: "2026.9.6" }, ...extra };
  api.registerCli = (registrar, opts) => api.clis.push({ registrar, opts });
  api.registerCommand = (def) => api.commands.push(def);
  api.hooks = [];
  api.on = (name, handler, opts) => api.hooks.push({ name, handler, opts });
  return api;
}

/** Registers on a fake api; returns runners for both surfaces. */
export function surfaces(runtime, { hostConfig = HOST_CONFIG } = {}) {
  const api = fakeApi();
  registerCommands(api, runtime, { pluginVersion: "0.1.0" });
  const program = new FakeCommand("openclaw");
  api.clis[0].registrar({ program, config: hostConfig, parentPath: [], logger: console });
  const root = program.subs.find((c) => c.name === "openviking");
  async function cli(sub, options = {}) {
    const cmd = root.subs.find((c) => c.name === sub);
    let out = "";
    const write = process.stdout.write;
    const code0 = process.exitCode; // the runner's own (1 once any test failed)
    process.exitCode = undefined;
    // the command writes strings; the test runner's own (serialized) reports pass through
    process.stdout.write = (chunk, ...rest) => (typeof chunk === "string" ? ((out += chunk), true) : write.call(process.stdout, chunk, ...rest));
    try {
      await cmd.fn(options, cmd);
    } finally {
      process.stdout.write = write;
    }
    const exitCode = process.exitCode;
    process.exitCode = code0;
    outputs.push(out);
    return { out, exitCode, json: options.json ? JSON.parse(out) : null };
  }
  async function chat(args, ctx = {}) {
    const r = await api.commands[0].handler({ args, commandBody: `/openviking ${args}`, channel: "test", isAuthorizedSender: true, config: hostConfig, ...ctx });
    outputs.push(r.text);
    return r.text;
  }
  return { api, root, cli, chat };
}

export const said = (text) => [
  { role: "user", content: text, timestamp: Date.now() },
  { role: "assistant", content: [{ type: "text", text: `ok: ${text.slice(0, 20)}` }] },
];

/** One assembled + written turn of `sessionId` by the agent of `sessionKey`. */
export async function turn(runtime, sessionKey, sessionId, text, key) {
  const a = runtime.agent(sessionKey);
  await a.engine.assemble({ sessionId, prompt: text, messages: [{ role: "user", content: text, timestamp: Date.now() }], tokenBudget: 20000 });
  return a.engine.writeTurn({ sessionId, sessionKey, advancementKey: key, messages: said(text) });
}

/** A runtime with four assembled and written turns: agent main in sessions alpha (two) and
 *  beta, then agent other in gamma (assembled last), on one state dir and server. */
export async function seededRuntime() {
  const rt = fakeRuntime();
  await turn(rt, "agent:main:a", "alpha", "Which editor theme do I prefer for long sessions?", "a1");
  await turn(rt, "agent:main:a", "alpha", "We decided to ship the billing service on Tuesdays.", "a2");
  await turn(rt, "agent:main:b", "beta", "What is the release train cadence again?", "b1");
  await new Promise((r) => setTimeout(r, 5));
  await turn(rt, "agent:other:g", "gamma", "Gamma-only secret plans for the other agent.", "g1");
  return rt;
}
