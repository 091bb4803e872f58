// Loads the plugin's wasm package in Node, synchronously (OpenClaw loads plugins with
// require(), which cannot wait for a top-level await). `make build` puts the wasm-pack
// output of the crate's `plugin` feature (`--target web`) into js-glue/pkg/, so an install
// that copies this folder carries the wasm with it. The tuning page has its own package
// (www-demo/pkg/); the test-only exports are in neither (tests/support/packages.mjs).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as pkg from "./pkg/openviking_context_engine.js";

const WASM = new URL("./pkg/openviking_context_engine_bg.wasm", import.meta.url);
// OpenClaw evaluates the plugin's entry — and so this module and the package's glue — up to
// three times per process, each time as fresh module instances. The first instance's
// initialised package is kept on globalThis (per wasm file), so the module is compiled and
// instantiated once per process and every import shares one engine whose code is warm.
const SHARED = Symbol.for(`openviking-context-engine.package ${WASM.href}`);

/** The pkg/ folder in use. */
export function findPkg() {
  return fileURLToPath(new URL("./pkg/", import.meta.url));
}

/** The initialised plugin package (ContextEngine, checkConfig, toolDefinitions, …). */
export function loadEngineSync() {
  const shared = globalThis[SHARED];
  if (shared) return shared;
  pkg.initSync({ module: readFileSync(WASM) });
  globalThis[SHARED] = pkg;
  return pkg;
}

/** Same, as a promise (for callers that await). */
export async function loadEngine() {
  return loadEngineSync();
}
