// The OpenClaw plugin entry: loads the wasm engine (synchronously: OpenClaw may require()
// this module), then registers
// the context engine, the memory tools and the local-server service. The logic lives in
// the wasm engine (pkg/); plugin/ adapts OpenClaw's API to it and does the I/O.
import { readFileSync } from "node:fs";
import { loadEngineSync } from "./wasm.js";
import { getRuntime } from "./plugin/runtime.js";
import { createContextEngine, ENGINE_ID } from "./plugin/context-engine.js";
import { registerTools } from "./plugin/tools.js";
import { registerHookFallback } from "./plugin/hook-fallback.js";
import { registerCommands } from "./plugin/commands.js";

const manifest = JSON.parse(readFileSync(new URL("./openclaw.plugin.json", import.meta.url), "utf8"));
const wasm = loadEngineSync();

function flushOnSignals(runtime) {
  const key = Symbol.for("openviking-context-engine.signals");
  if (globalThis[key]) return;
  globalThis[key] = true;
  for (const sig of ["SIGTERM", "SIGINT"]) {
    process.once(sig, () => {
      runtime.drain(3000).finally(() => {
        if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
      });
    });
  }
}

export default {
  id: manifest.id,
  name: manifest.name,
  description: manifest.description,
  kind: manifest.kind,
  configSchema: manifest.configSchema,
  register(api) {
    // root CLI metadata (help, command routing): no plugin runtime here, only the CLI root
    if (api.registrationMode === "cli-metadata") return void registerCommands(api, null);
    const logger = api.logger ?? console;
    const runtime = getRuntime({ api, rawConfig: api.pluginConfig, logger, wasm });
    if (runtime.refused) {
      // the config has an error (logged once, naming each key): the plugin stays loaded so
      // `openclaw openviking doctor|status` can say what to fix; the engine refuses to be
      // created, so OpenClaw runs its built-in engine (its log names the refusal) and nothing
      // is acknowledged that was not stored. In local mode with only the key missing, a turn
      // (and the gateway's service) still starts the server, which makes the key.
      api.registerContextEngine(ENGINE_ID, () => {
        void runtime.ensureServer();
        throw runtime.refusal();
      });
      if (typeof api.registerCli === "function" || typeof api.registerCommand === "function") registerCommands(api, runtime, { pluginVersion: manifest.version });
      api.registerService?.({ id: "openviking-server", start: async () => void (await runtime.ensureServer()) });
      return;
    }
    api.registerContextEngine(ENGINE_ID, () => createContextEngine(runtime, { version: manifest.version }));
    registerTools(api, runtime);
    registerHookFallback(api, runtime);
    // operator commands: `openclaw openviking …` and `/openviking …` (hosts without them skip this)
    if (typeof api.registerCli === "function" || typeof api.registerCommand === "function") registerCommands(api, runtime, { pluginVersion: manifest.version });
    api.registerService?.({
      id: "openviking-server",
      start: async () => {
        await runtime.ensureServer();
      },
      stop: async () => {
        // flush what is pending; a local server is left running for the next CLI turn
        await runtime.drain(5000);
      },
    });
    flushOnSignals(runtime);
  },
};
