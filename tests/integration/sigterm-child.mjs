#!/usr/bin/env node
// A plugin process for signals.test.mjs: registers the plugin (remote mode, baseUrl from
// argv), writes one turn — which goes to the outbox while the proxy refuses — prints READY
// and idles until a signal arrives.
const [baseUrl, apiKey, stateDir] = process.argv.slice(2);
const { default: plugin } = await import("../../js-glue/index.js");
let factory;
plugin.register({
  pluginConfig: { mode: "remote", baseUrl, apiKey, stateDir, timeoutMs: 1500 },
  logger: { warn: (m) => process.stderr.write(`${m}\n`), info() {} },
  registerContextEngine: (_id, f) => (factory = f),
  registerTool() {},
  registerService() {},
  on() {},
});
const engine = factory();
const out = await engine.commitTurn({
  sessionId: "sig",
  sessionKey: "agent:main:sig",
  advancementKey: "sig-1",
  messages: [{ role: "user", content: "We decided signals must flush the outbox.", timestamp: 1764000300000 }, { role: "assistant", content: [{ type: "text", text: "Agreed." }] }],
});
process.stdout.write(`READY ${JSON.stringify(out)}\n`);
setInterval(() => {}, 1000);
