// Loads the engine's wasm package (built by wasm-pack into pkg/, `--target web`) in Node.
// The same pkg/ serves the browser demo; Node instantiates it synchronously from the bytes.
import { readFileSync, existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));
// An installed copy carries pkg/ inside the plugin folder; the source tree has it one level up.
const PKG_DIRS = [join(here, "pkg"), join(here, "..", "pkg")];
const NAME = "openviking_context_engine";

let loaded = null;

/** The pkg/ folder in use, or an Error saying how to build it. */
export function findPkg() {
  const dir = PKG_DIRS.find((d) => existsSync(join(d, `${NAME}_bg.wasm`)));
  if (!dir) {
    const err = new Error(
      `OpenViking engine wasm not found in ${PKG_DIRS.join(" or ")}; build it with \`make build\``,
    );
    err.code = "ENGINE_NOT_BUILT";
    throw err;
  }
  return dir;
}

/** The initialised wasm module's exports (Engine, parseConfig, estimateTokens, version). */
export async function loadEngine() {
  if (loaded) return loaded;
  const dir = findPkg();
  const mod = await import(join(dir, `${NAME}.js`));
  mod.initSync({ module: readFileSync(join(dir, `${NAME}_bg.wasm`)) });
  loaded = mod;
  return mod;
}
