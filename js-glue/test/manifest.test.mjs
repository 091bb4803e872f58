// openclaw.plugin.json and package.json against the engine: every config key the engine
// accepts is in the schema (and nothing else), with the engine's default; the schema refuses
// nothing (OpenClaw drops the whole config for one refusal — the engine checks the keys and
// says what to fix), and its descriptions carry the engine's bounds; contracts.tools lists
// exactly the tools the plugin registers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadPackage } from "../../tests/support/packages.mjs";

const manifest = JSON.parse(readFileSync(new URL("../openclaw.plugin.json", import.meta.url), "utf8"));
const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
const { parseConfig, configBounds } = await loadPackage("page");
const props = manifest.configSchema.properties;

test("manifest identity and packaging", () => {
  assert.equal(manifest.id, "openviking");
  assert.equal(manifest.kind, "context-engine");
  assert.equal(pkg.type, "module");
  assert.deepEqual(pkg.openclaw.extensions, ["./index.js"]);
});

test("the schema has every engine key with the engine's default, and the engine's bounds in words", () => {
  const defaults = parseConfig(null, {}).config;
  const engineKeys = Object.keys(defaults).sort();
  assert.deepEqual(Object.keys(props).sort(), engineKeys);
  for (const [key, spec] of Object.entries(props)) {
    assert.ok(spec.description, `${key} has a description`);
    if ("default" in spec && !["configPath"].includes(key)) assert.deepEqual(defaults[key], spec.default, `${key} default`);
  }
  for (const b of configBounds()) {
    assert.ok(props[b.key].description.includes(`${b.min}–${b.max}; outside, the nearest bound is used (with a warning)`), `${b.key}: ${props[b.key].description}`);
    // what the description promises, the engine does
    assert.equal(parseConfig({ [b.key]: b.max * 2 + 1 }, {}).config[b.key], b.max, `${b.key} clamps to its maximum`);
    const below = parseConfig({ [b.key]: b.min - 1 }, {});
    assert.equal(below.config[b.key], b.min, `${b.key} clamps to its minimum`);
    assert.equal(below.warnings.length, 1);
  }
  assert.ok(manifest.configSchema.patternProperties["^ingestReplyAssist"], "legacy ingestReplyAssist* keys are described");
});

test("the schema refuses nothing the engine reports itself: no type, bound, enum or pattern on a key, unknown keys allowed", () => {
  // OpenClaw 2026.9.6 validates plugins.entries.<id>.config against this schema and, on any
  // failure, rejects the WHOLE OpenClaw config (every command exits 1, the plugin and its
  // doctor disappear). So nothing here may fail: the engine checks each key (checkConfig).
  const schema = manifest.configSchema;
  assert.equal(schema.type, "object");
  assert.notEqual(schema.additionalProperties, false);
  const constraints = ["type", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "enum", "const", "pattern", "format", "minLength", "maxLength", "multipleOf", "required", "not", "anyOf", "oneOf", "allOf", "$ref"];
  for (const [key, spec] of [...Object.entries(props), ...Object.entries(schema.patternProperties)]) {
    for (const c of constraints) assert.ok(!(c in spec), `${key} has no "${c}": a value it refuses would drop the whole OpenClaw config`);
  }
  assert.ok(!("required" in schema));
  // and what OpenClaw would have refused, the engine takes with a warning (or refuses itself,
  // naming the key, while the plugin stays loaded)
  const soft = parseConfig({ recallLimit: 500, recalLimit: 3, timeoutMs: "ten", autoRecall: "yes" }, {});
  assert.deepEqual(soft.problems.map((p) => [p.key, p.severity]), [["recalLimit", "warning"], ["timeoutMs", "warning"], ["autoRecall", "warning"], ["recallLimit", "warning"]]);
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

test("a bad plugin config never fails the load: warnings name the key, an error turns the engine off with INVALID_CONFIG", async () => {
  const { default: plugin } = await import("../index.js");
  const warned = [];
  const quiet = { warn: (m) => warned.push(m), info() {}, error: (m) => warned.push(m) };
  let factory = null;
  assert.doesNotThrow(() => plugin.register({ pluginConfig: { recallLimit: "many", stateDir: "/tmp/ov-bad-soft" }, logger: quiet, registerContextEngine: (_id, f) => (factory = f), registerTool() {}, on() {}, registerService() {} }));
  assert.ok(warned.some((w) => /recallLimit="many" is a string, not a whole number; using the default 6 — fix: set recallLimit to a whole number from 1 to 100/.test(w)), warned.join("\n"));
  assert.equal(typeof factory, "function");
  assert.doesNotThrow(() => plugin.register({ pluginConfig: { mode: "cloud", stateDir: "/tmp/ov-bad-hard" }, logger: quiet, registerContextEngine: (_id, f) => (factory = f), registerTool() {}, on() {}, registerService() {} }));
  assert.throws(() => factory(), (err) => err.code === "INVALID_CONFIG" && err.field === "mode");
});

test("the plugin README's configuration table has a row for every key, with the engine's default and bounds", () => {
  const rows = readFileSync(new URL("../README.md", import.meta.url), "utf8").split("\n")
    .filter((l) => l.startsWith("| ") && !l.startsWith("| key ") && !l.startsWith("|---"))
    .map((l) => l.split("|").map((c) => c.trim()));
  const rowOf = (key) => rows.find((c) => c[1].split(" / ").includes(key));
  for (const key of Object.keys(props)) assert.ok(rowOf(key), `README has a row for ${key}`);
  const plain = (n) => String(n);
  for (const b of configBounds()) {
    const c = rowOf(b.key);
    assert.ok(c[3].startsWith(`${plain(b.min)}–${plain(b.max)}`), `${b.key}: bounds ${b.min}–${b.max} in "${c[3]}"`);
    assert.ok(c[2].split(" / ").includes(plain(b.default)), `${b.key}: default ${b.default} in "${c[2]}"`);
  }
});

test("the tuning page's settings name engine keys only, each of the engine's kind (bounds from configBounds, switches boolean)", async () => {
  const { SETTINGS } = await import("../../www-demo/settings.js");
  const defaults = parseConfig(null, {}).config;
  const bounded = new Set(configBounds().map((b) => b.key));
  assert.ok(SETTINGS.length >= 10);
  for (const s of SETTINGS) {
    assert.ok(s.key in defaults, `${s.key} is a key of the engine's config`);
    if (s.bool) assert.equal(typeof defaults[s.key], "boolean", `${s.key} is a switch in the engine`);
    else assert.ok(bounded.has(s.key), `${s.key} has the engine's bounds (configBounds)`);
  }
});
