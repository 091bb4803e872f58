// `openclaw plugins install` in real OpenClaw 2026.9.6: linked (`-l ./js-glue`) or copied
// (the `npm pack` tarball, as a published package installs), the plugin is selected for the
// context-engine slot, loads (which instantiates the wasm), and lists its five tools. A bad
// plugin config value never makes OpenClaw reject its config: the engine names the key.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openclawPaths, writeConfig, turnEnv, scratchDir, runTurn } from "./openclaw.mjs";
import { startFakeModel } from "./fake-model.mjs";
import { loadEngine } from "../../js-glue/wasm.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const PLUGIN = path.join(ROOT, "js-glue");

function openclaw(dir, args) {
  const { node, cli } = openclawPaths();
  return spawnSync(node, [cli, ...args], { env: turnEnv(dir), encoding: "utf8", timeout: 120000 });
}

// the tools the engine defines (every one must be registered by the installed copy)
const TOOLS = (await loadEngine()).toolDefinitions().map((d) => d.name).sort();

/** `plugins list --json` → our plugin's entry. */
function listed(dir) {
  const list = openclaw(dir, ["plugins", "list", "--json"]);
  assert.equal(list.status, 0, list.stderr);
  return JSON.parse(list.stdout).plugins.find((x) => x.id === "openviking");
}

test("plugins install -l links the plugin, selects the engine, and it loads with its tools", { timeout: 300000 }, () => {
  const dir = scratchDir("oc-install-");
  writeConfig({ dir, modelUrl: "http://127.0.0.1:9/v1" });
  const inst = openclaw(dir, ["plugins", "install", "-l", PLUGIN, "--force", "--accept-capabilities"]);
  assert.equal(inst.status, 0, inst.stdout + inst.stderr);
  const cfg = JSON.parse(fs.readFileSync(path.join(dir, "openclaw.json"), "utf8"));
  assert.deepEqual(cfg.plugins.load.paths, [PLUGIN]);
  assert.equal(cfg.plugins.slots.contextEngine, "openviking");
  const p = listed(dir);
  assert.equal(p.status, "loaded");
  assert.equal(p.kind, "context-engine");
  assert.deepEqual([...p.toolNames].sort(), TOOLS);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("a copying install (npm pack tarball) carries the wasm, loads and runs a turn on its own", { timeout: 400000 }, async () => {
  const dir = scratchDir("oc-copy-");
  writeConfig({ dir, modelUrl: "http://127.0.0.1:9/v1" });
  const pack = spawnSync("npm", ["pack", "--pack-destination", dir, "--silent"], { cwd: PLUGIN, encoding: "utf8" });
  assert.equal(pack.status, 0, pack.stderr);
  const tgz = path.join(dir, pack.stdout.trim().split("\n").at(-1));
  const inst = openclaw(dir, ["plugins", "install", tgz, "--force", "--accept-capabilities"]);
  assert.equal(inst.status, 0, inst.stdout + inst.stderr);
  const installed = path.join(dir, "state", "extensions", "openviking");
  const wasm = path.join(installed, "pkg", "openviking_context_engine_bg.wasm");
  assert.ok(fs.existsSync(wasm), "the wasm is inside the copy");
  assert.deepEqual(fs.readFileSync(wasm), fs.readFileSync(path.join(PLUGIN, "pkg", "openviking_context_engine_bg.wasm")));
  for (const dev of ["test", "node_modules", "bin"]) assert.ok(!fs.existsSync(path.join(installed, dev)), `${dev}/ is not shipped`);
  const cfg = JSON.parse(fs.readFileSync(path.join(dir, "openclaw.json"), "utf8"));
  assert.equal(cfg.plugins.slots.contextEngine, "openviking");
  assert.ok(!(cfg.plugins.load?.paths ?? []).includes(PLUGIN), "not loaded from the source folder");
  const p = listed(dir);
  assert.equal(p.status, "loaded", JSON.stringify(p));
  assert.ok(fs.realpathSync(p.source).startsWith(fs.realpathSync(installed)), `loaded from the copy: ${p.source}`);
  assert.deepEqual([...p.toolNames].sort(), TOOLS);

  // A real turn through the copy, OpenViking unreachable: the turn completes and is kept.
  const fm = await startFakeModel({});
  try {
    const cfgNow = JSON.parse(fs.readFileSync(path.join(dir, "openclaw.json"), "utf8"));
    cfgNow.models.providers.fake.baseUrl = `${fm.url}/v1`;
    cfgNow.plugins.entries.openviking = {
      ...cfgNow.plugins.entries.openviking,
      config: { mode: "remote", baseUrl: "http://127.0.0.1:9", apiKey: "k", timeoutMs: 1000 },
      hooks: { allowConversationAccess: true },
    };
    fs.writeFileSync(path.join(dir, "openclaw.json"), JSON.stringify(cfgNow, null, 2));
    const r = await runTurn({ dir, sessionId: "copied", message: "hello from the copied plugin", timeoutMs: 150_000 });
    assert.equal(r.code, 0, r.stderr.slice(-3000));
    assert.ok(fm.requests.some((q) => JSON.stringify(q.body.messages).includes("hello from the copied plugin")));
    const outbox = path.join(dir, "state", "plugins", "openviking", "outbox");
    const kept = fs.readdirSync(outbox).map((f) => fs.readFileSync(path.join(outbox, f), "utf8")).join("");
    assert.match(kept, /hello from the copied plugin/, "the turn waits in the copy's outbox");
  } finally {
    await fm.close();
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

test("a bad plugin config value passes OpenClaw's validation (our configSchema refuses nothing); the engine names the key", { timeout: 300000 }, () => {
  const dir = scratchDir("oc-badcfg-");
  writeConfig({ dir, modelUrl: "http://127.0.0.1:9/v1", plugin: { path: PLUGIN, id: "openviking", config: { recallLimit: "lots", recalLimit: 3 } } });
  const check = openclaw(dir, ["config", "validate"]);
  assert.equal(check.status, 0, `${check.stdout}\n${check.stderr}`);
  const doctor = openclaw(dir, ["openviking", "doctor", "--json"]);
  const d = JSON.parse(doctor.stdout);
  assert.deepEqual(d.config.problems.map((p) => [p.key, p.severity]), [["recalLimit", "warning"], ["recallLimit", "warning"]], doctor.stdout);
  assert.match(d.config.problems[1].fix, /set recallLimit to a whole number from 1 to 100/);
  fs.rmSync(dir, { recursive: true, force: true });
});
