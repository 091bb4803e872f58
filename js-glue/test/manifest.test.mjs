// openclaw.plugin.json and package.json against the engine: every config key the engine
// accepts is in the schema (and nothing else), with the engine's default and bounds;
// contracts.tools lists exactly the tools the plugin registers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadEngine } from "../wasm.js";

const manifest = JSON.parse(readFileSync(new URL("../openclaw.plugin.json", import.meta.url), "utf8"));
const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const { parseConfig } = await loadEngine();
const props = manifest.configSchema.properties;

test("manifest identity and packaging", () => {
  assert.equal(manifest.id, "openviking");
  assert.equal(manifest.kind, "context-engine");
  assert.equal(pkg.type, "module");
  assert.deepEqual(pkg.openclaw.extensions, ["./index.js"]);
});

test("the schema has every engine key with the engine's default and bounds", () => {
  const defaults = parseConfig(null, {}).config;
  const engineKeys = Object.keys(defaults).sort();
  assert.deepEqual(Object.keys(props).sort(), engineKeys);
  for (const [key, spec] of Object.entries(props)) {
    assert.ok(spec.description, `${key} has a description`);
    if ("default" in spec && !["configPath"].includes(key)) assert.deepEqual(defaults[key], spec.default, `${key} default`);
    if ("minimum" in spec) {
      const below = parseConfig({ [key]: spec.minimum - (spec.type === "integer" ? 1 : 0.01) }, {});
      assert.equal(below.config[key], spec.minimum, `${key} clamps to its minimum`);
      assert.equal(below.warnings.length, 1);
    }
    if ("maximum" in spec) {
      assert.equal(parseConfig({ [key]: spec.maximum + 1 }, {}).config[key], spec.maximum, `${key} clamps to its maximum`);
    }
    if (spec.enum) for (const v of spec.enum) assert.equal(parseConfig({ [key]: v }, {}).config[key], v);
  }
  assert.ok(manifest.configSchema.patternProperties["^ingestReplyAssist"], "legacy ingestReplyAssist* keys validate");
});

test("contracts.tools lists exactly the registered tools", async () => {
  const { default: plugin } = await import("../index.js");
  const tools = [];
  plugin.register({
    pluginConfig: { mode: "remote", baseUrl: "http://127.0.0.1:9" },
    logger: { warn() {}, info() {} },
    registerContextEngine() {},
    registerTool: (_f, opts) => tools.push(opts.name),
    registerService() {},
  });
  assert.deepEqual(tools.sort(), [...manifest.contracts.tools].sort());
});

test("a bad plugin config fails at load, naming the key", async () => {
  const { default: plugin } = await import("../index.js");
  assert.throws(
    () => plugin.register({ pluginConfig: { recallLimit: "many", stateDir: "/tmp/ov-bad" }, logger: console, registerContextEngine() {}, registerTool() {} }),
    (err) => err.code === "INVALID_CONFIG" && err.field === "recallLimit",
  );
});
