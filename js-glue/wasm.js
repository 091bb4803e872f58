// Loads the engine's wasm package in Node, synchronously (OpenClaw loads plugins with
// require(), which cannot wait for a top-level await). `make build` puts the wasm-pack
// output (`--target web`, the same files the browser demo uses) into js-glue/pkg/, so an
// install that copies this folder carries the wasm with it.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as pkg from "./pkg/openviking_context_engine.js";

const WASM = new URL("./pkg/openviking_context_engine_bg.wasm", import.meta.url);
let ready = false;

/** The pkg/ folder in use. */
export function findPkg() {
  return fileURLToPath(new URL("./pkg/", import.meta.url));
}

/** The initialised engine module (Engine, ContextEngine, parseConfig, estimateTokens, …). */
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
