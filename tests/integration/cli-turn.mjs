#!/usr/bin/env node
// One turn of a one-process-per-turn host (like `openclaw agent --local --message`), through
// the plugin (js-glue/index.js, the built package): register, bootstrap, assemble, commitTurn,
// dispose. Args: a JSON object {baseUrl, stateDir, timeoutMs, turn}. Prints
// {ms, assembleMs, commitMs, disposeMs, status} (times from register to the end of dispose).
const args = JSON.parse(process.argv[2]);
const { default: plugin } = await import("../../js-glue/index.js");
const t0 = performance.now();
let factory;
plugin.register({
  pluginConfig: { mode: "remote", baseUrl: args.baseUrl, apiKey: "uk-cli-turn-key", stateDir: args.stateDir, timeoutMs: args.timeoutMs },
  logger: { warn() {}, info() {}, error() {} },
  registerContextEngine: (_id, f) => (factory = f),
  registerTool() {},
  registerService() {},
  registerCommand() {},
  registerCli() {},
  on() {},
});
const engine = factory();
const sessionKey = "agent:main:main";
const i = args.turn;
await engine.bootstrap({ sessionId: "cli", sessionKey });
const a0 = performance.now();
await engine.assemble({ sessionId: "cli", sessionKey, messages: [], prompt: `what did we decide about the deploy window? (turn ${i})`, tokenBudget: 4000 });
const c0 = performance.now();
const out = await engine.commitTurn({
  sessionId: "cli",
  sessionKey,
  advancementKey: `cli-${i}`,
  messages: [{ role: "user", content: `what did we decide about the deploy window? (turn ${i})`, timestamp: 1764000200000 + i }, { role: "assistant", content: [{ type: "text", text: "noted" }] }],
});
const d0 = performance.now();
await engine.dispose?.();
const end = performance.now();
process.stdout.write(JSON.stringify({ ms: end - t0, assembleMs: c0 - a0, commitMs: d0 - c0, disposeMs: end - d0, status: out?.status ?? null }));
process.exit(0);
