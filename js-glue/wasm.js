// Loads the plugin's wasm package in Node, synchronously (OpenClaw loads plugins with
// require(), which cannot wait for a top-level await). `make build` puts the wasm-pack
// output of the crate's `plugin` feature (`--target web`) into js-glue/pkg/, so an install
// that copies this folder carries the wasm with it. The tuning page has its own package
// (www-demo/pkg/); the test-only exports are in neither (tests/support/packages.mjs).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as pkg from "./pkg/openviking_context_engine.js";

const WASM = new URL("./pkg/openviking_context_engine_bg.wasm", import.meta.url);
let ready = false;

/** The pkg/ folder in use. */
export function findPkg() {
  return fileURLToPath(new URL("./pkg/", import.meta.url));
}

/** The initialised plugin package (ContextEngine, checkConfig, toolDefinitions, …). */
export function loadEngineSync() {
  if (!ready) {
    pkg.initSync({ module: readFileSync(WASM) });
    ready = true;
  }
  return pkg;
}

/** Same, as a promise (for callers that await). */
export async function loadEngine() {
  return loadEngineSync();
}
