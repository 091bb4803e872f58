#!/usr/bin/env node
// Where the .wasm's bytes go (issue 12 goal 3): the function bodies of the shipped module,
// summed by crate and, for this crate, by module; plus the package's raw and gzip sizes.
// The shipped file has no names, so the script makes a copy that keeps them: the cargo
// build through wasm-bindgen (which demangles) and wasm-opt -O3 with `-g` (the release
// flags otherwise), into a temp dir. Run after `make build`.
//
//   node tests/bench/wasm-size.mjs [--top 30]
import { readFileSync, mkdtempSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { gzipSync } from "node:zlib";
import { resolve, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const arg = (k, d) => { const i = process.argv.indexOf(`--${k}`); return i > 0 ? process.argv[i + 1] : d; };
const TOP = Number(arg("top", 30));
const cargoOut = resolve(root, "target/wasm32-unknown-unknown/release/openviking_context_engine.wasm");
const shipped = readFileSync(resolve(root, "pkg/openviking_context_engine_bg.wasm"));
const tmp = mkdtempSync(join(tmpdir(), "ovce-size-"));
execFileSync("wasm-bindgen", ["--target", "web", "--out-dir", tmp, cargoOut], { stdio: "inherit" });
const flags = readFileSync(resolve(root, "Cargo.toml"), "utf8").match(/^wasm-opt = \[(.*)\]/m)[1].split(",").map((x) => x.trim().replace(/^"|"$/g, ""));
const named = join(tmp, "named.wasm");
execFileSync("wasm-opt", [join(tmp, "openviking_context_engine_bg.wasm"), ...flags.filter((f) => !/^--strip/.test(f)), "-g", "-o", named], { stdio: "inherit" });
const raw = readFileSync(named);

function reader(buf, pos = 0) {
  return {
    get pos() { return pos; },
    set pos(p) { pos = p; },
    u8() { return buf[pos++]; },
    leb() { let r = 0, s = 0, b; do { b = buf[pos++]; r += (b & 0x7f) * 2 ** s; s += 7; } while (b & 0x80); return r; },
    str() { const n = this.leb(); const t = buf.toString("utf8", pos, pos + n); pos += n; return t; },
  };
}

const r = reader(raw, 8);
let imported = 0;
const bodies = [];
const names = new Map();
const sections = {};
while (r.pos < raw.length) {
  const id = r.u8(), size = r.leb(), start = r.pos, end = start + size;
  if (id === 2) {
    for (let n = r.leb(); n > 0; n--) {
      r.str(); r.str();
      const kind = r.u8();
      if (kind === 0) { r.leb(); imported++; }
      else if (kind === 1) { r.u8(); const f = r.u8(); r.leb(); if (f & 1) r.leb(); }
      else if (kind === 2) { const f = r.u8(); r.leb(); if (f & 1) r.leb(); }
      else if (kind === 3) { r.u8(); r.u8(); }
      else r.leb();
    }
  } else if (id === 10) {
    for (let n = r.leb(); n > 0; n--) { const len = r.leb(); bodies.push(len); r.pos += len; }
  } else if (id === 0) {
    const name = r.str();
    sections[`custom:${name}`] = size;
    if (name === "name") {
      while (r.pos < end) {
        const sub = r.u8(), len = r.leb(), subEnd = r.pos + len;
        if (sub === 1) for (let n = r.leb(); n > 0; n--) { const idx = r.leb(); names.set(idx, r.str()); }
        r.pos = subEnd;
      }
    }
  }
  sections[id] = (sections[id] ?? 0) + size;
  r.pos = end;
}

// group: this crate by module (two path segments), other crates by crate
function group(name) {
  const n = name.replace(/^(<|&|mut |dyn |\(|\[)+/g, "");
  const m = /^([A-Za-z_][A-Za-z0-9_]*)(?:::([A-Za-z_][A-Za-z0-9_]*))?/.exec(n);
  if (!m) return "(other)";
  if (m[1] === "openviking_context_engine") return `crate::${m[2] ?? ""}`;
  return m[1];
}
const byGroup = new Map();
let code = 0;
bodies.forEach((len, i) => {
  const g = group(names.get(imported + i) ?? "(unnamed)");
  byGroup.set(g, (byGroup.get(g) ?? 0) + len);
  code += len;
});
const kb = (b) => (b / 1024).toFixed(1);
const rows = [...byGroup].sort((a, b) => b[1] - a[1]);
console.log(`named copy: ${kb(raw.length)} KB (code section ${kb(sections[10] ?? 0)} KB, data ${kb(sections[11] ?? 0)} KB, names ${kb(sections["custom:name"] ?? 0)} KB, ${bodies.length} functions)`);
console.log(`shipped (after wasm-bindgen + wasm-opt): ${kb(shipped.length)} KB raw, ${kb(gzipSync(shipped, { level: 9 }).length)} KB gzip -9\n`);
console.log("| code of the shipped module, by crate / module | KB | share |");
console.log("|---|---:|---:|");
const ours = rows.filter(([g]) => g.startsWith("crate::")).reduce((a, [, b]) => a + b, 0);
console.log(`| this crate, all modules | ${kb(ours)} | ${((100 * ours) / code).toFixed(1)} % |`);
for (const [g, b] of rows.slice(0, TOP)) console.log(`| ${g} | ${kb(b)} | ${((100 * b) / code).toFixed(1)} % |`);
