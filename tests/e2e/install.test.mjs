// `openclaw plugins install -l ./js-glue` in real OpenClaw 2026.9.6: the plugin is linked,
// selected for the context-engine slot, loads, and lists its five tools. A bad plugin config
// is reported at load with the key named.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openclawPaths, writeConfig, turnEnv, scratchDir } from "./openclaw.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const PLUGIN = path.join(ROOT, "js-glue");

function openclaw(dir, args) {
  const { node, cli } = openclawPaths();
  return spawnSync(node, [cli, ...args], { env: turnEnv(dir), encoding: "utf8", timeout: 120000 });
}

test("plugins install -l links the plugin, selects the engine, and it loads with its tools", { timeout: 300000 }, () => {
  const dir = scratchDir("oc-install-");
  writeConfig({ dir, modelUrl: "http://127.0.0.1:9/v1" });
  const inst = openclaw(dir, ["plugins", "install", "-l", PLUGIN, "--force", "--accept-capabilities"]);
  assert.equal(inst.status, 0, inst.stdout + inst.stderr);
  const cfg = JSON.parse(fs.readFileSync(path.join(dir, "openclaw.json"), "utf8"));
  assert.deepEqual(cfg.plugins.load.paths, [PLUGIN]);
  assert.equal(cfg.plugins.slots.contextEngine, "openviking");
  const list = openclaw(dir, ["plugins", "list", "--json"]);
  assert.equal(list.status, 0, list.stderr);
  const p = JSON.parse(list.stdout).plugins.find((x) => x.id === "openviking");
  assert.equal(p.status, "loaded");
  assert.equal(p.kind, "context-engine");
  assert.deepEqual([...p.toolNames].sort(), ["memory_expand", "memory_forget", "memory_recall", "memory_recall_auto", "memory_store"]);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("a bad plugin config is refused by OpenClaw's validation (our configSchema), naming the key", { timeout: 300000 }, () => {
  const dir = scratchDir("oc-badcfg-");
  writeConfig({ dir, modelUrl: "http://127.0.0.1:9/v1", plugin: { path: PLUGIN, id: "openviking", config: { recallLimit: "lots" } } });
  const check = openclaw(dir, ["config", "validate"]);
  assert.notEqual(check.status, 0);
  assert.match(`${check.stdout}\n${check.stderr}`, /plugins\.entries\.openviking\.config\.recallLimit/, "the offending key is named");
  fs.rmSync(dir, { recursive: true, force: true });
});
