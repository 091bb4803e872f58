// The engine's wasm packages, loaded in Node by tests and benchmarks. The crate builds two
// shipped packages (cargo features, see Cargo.toml) and a test build:
//
//   plugin   js-glue/pkg/      what OpenClaw loads (through js-glue/wasm.js): ContextEngine and
//                              the plugin's free functions                        (`make build`)
//   page     www-demo/pkg/     the tuning page's: the pure Engine (explain records, replay),
//                              parseConfig, configBounds, estimateTokens, liveSearch (`make build`)
//   testing  target/pkg-test/  both, plus the exports only tests call (ContextEngine's
//                              setUserId, recall, memoryScopes, forgetSearch, record;
//                              Engine's recallIntent, expand, classifyExpandUri, fallbackBlock)
//                                                                             (`make test-pkg`)
//
// A test loads the shipped package it exercises, and the test build only when it needs a
// test-only export (or both packages' exports on one instance, as the fuzzer does).
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = new URL("../../", import.meta.url);
export const PACKAGES = { plugin: "js-glue/pkg/", page: "www-demo/pkg/", testing: "target/pkg-test/" };
const BUILD = { plugin: "make build", page: "make build", testing: "make test-pkg" };
const loaded = new Map();

function dirUrl(which) {
  const rel = PACKAGES[which];
  if (!rel) throw new Error(`no wasm package "${which}" (one of ${Object.keys(PACKAGES).join(", ")})`);
  return new URL(rel, ROOT);
}

/** The folder of a package (with a trailing separator). */
export function findPkg(which = "testing") {
  return fileURLToPath(dirUrl(which));
}

/** The initialised module of a package (loaded once per process and package). */
export async function loadPackage(which = "testing") {
  if (!loaded.has(which)) {
    const dir = dirUrl(which);
    const wasm = new URL("openviking_context_engine_bg.wasm", dir);
    if (!existsSync(wasm)) throw new Error(`${fileURLToPath(dir)} holds no wasm package: run \`${BUILD[which]}\``);
    const mod = await import(new URL("openviking_context_engine.js", dir).href);
    mod.initSync({ module: readFileSync(wasm) });
    loaded.set(which, mod);
  }
  return loaded.get(which);
}

/** The test build (every export, the test-only ones included). */
export function loadEngine() {
  return loadPackage("testing");
}
