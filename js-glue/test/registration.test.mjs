// OpenClaw evaluates the plugin's entry and calls register() up to three times per process,
// each time a fresh module instance: the wasm package is initialised once (wasm.js), the
// runtime is built once per state dir (plugin/runtime.js), and every registration still
// registers the engine, the tools and the service on its own api.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const manifest = JSON.parse(readFileSync(new URL("../openclaw.plugin.json", import.meta.url), "utf8"));
const quiet = { warn() {}, info() {}, error() {} };

test("every registration registers the engine, the tools and the service on its own api", async () => {
  const stateDir = mkdtempSync(join(tmpdir(), "ove-reg-"));
  try {
    const seen = [];
    for (const n of [1, 2, 3]) {
      const { default: plugin } = await import(`../index.js?registration=${n}`); // a fresh module instance
      plugin.register({
        pluginConfig: { mode: "remote", baseUrl: "http://127.0.0.1:9", stateDir },
        logger: quiet,
        registerContextEngine: (id, f) => seen.push(`${n} engine ${id} ${typeof f}`),
        registerTool: () => seen.push(`${n} tool`),
        registerService: (s) => seen.push(`${n} service ${s.id}`),
        on() {},
      });
    }
    for (const n of [1, 2, 3]) {
      assert.ok(seen.includes(`${n} engine openviking function`), seen.join("; "));
      assert.ok(seen.includes(`${n} service openviking-server`));
      assert.equal(seen.filter((s) => s === `${n} tool`).length, manifest.contracts.tools.length, "every tool the manifest lists");
    }
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
});
