#!/usr/bin/env node
// Where each package's bytes go: the crate builds two
// packages (cargo features): the plugin's (pkg/, copied into js-glue/pkg/) and the tuning
// page's (www-demo/pkg/). For each: the shipped .wasm's raw and gzip (-9) sizes, and the
// function bodies of the module summed by crate and, for this crate, by module. The shipped
// files have no names, so the script makes a copy that keeps them: the cargo build of the
// package's feature and profile through wasm-bindgen (which demangles) and wasm-opt with the release
// flags and `-g`, into a temp dir. Run after `make build`.
//
//   node tests/bench/wasm-size.mjs [--top 30] [--package plugin|page] [--cold 9]
//
// --cold N (default 9; 0 skips): each shipped package's cold `initSync` (compile +
// instantiate of the .wasm, the JS glue imported first) in N fresh Node processes per
// package, interleaved; the median.
import { readFileSync, mkdtempSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { gzipSync } from "node:zlib";
import { resolve, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const arg = (k, d) => { const i = process.argv.indexOf(`--${k}`); return i > 0 ? process.argv[i + 1] : d; };
const TOP = Number(arg("top", 30));
const COLD = Number(arg("cold", 9));
// each package's folder and cargo profile (the plugin's is built for size: Cargo.toml)
const PACKAGES = { plugin: "pkg", page: "www-demo/pkg" };
const PROFILE = { plugin: "plugin-release", page: "release" };
const only = arg("package", null);
if (only && !PACKAGES[only]) { console.error(`--package: one of ${Object.keys(PACKAGES).join(", ")}`); process.exit(2); }
const flags = readFileSync(resolve(root, "Cargo.toml"), "utf8").match(/^wasm-opt = \[(.*)\]/m)[1].split(",").map((x) => x.trim().replace(/^"|"$/g, ""));
const kb = (b) => (b / 1024).toFixed(1);

const summary = [];
for (const [name, dir] of Object.entries(PACKAGES)) {
  if (only && name !== only) continue;
  const shipped = readFileSync(resolve(root, dir, "openviking_context_engine_bg.wasm"));
  summary.push({ name, dir, raw: shipped.length, gzip: gzipSync(shipped, { level: 9 }).length });
  // the package's own cargo build (cached by cargo per feature set), named
  execFileSync("cargo", ["build", "--profile", PROFILE[name], "--lib", "--target", "wasm32-unknown-unknown", "--no-default-features", "--features", name, "--quiet"], { cwd: root, stdio: "inherit" });
  const cargoOut = resolve(root, `target/wasm32-unknown-unknown/${PROFILE[name]}/openviking_context_engine.wasm`);
  const tmp = mkdtempSync(join(tmpdir(), `ovce-size-${name}-`));
  execFileSync("wasm-bindgen", ["--target", "web", "--out-dir", tmp, cargoOut], { stdio: "inherit" });
  const named = join(tmp, "named.wasm");
  execFileSync("wasm-opt", [join(tmp, "openviking_context_engine_bg.wasm"), ...flags.filter((f) => !/^--strip/.test(f)), "-g", "-o", named], { stdio: "inherit" });
  console.log(`\n## ${name} package (${dir}/)\n`);
  breakdown(readFileSync(named), shipped);
}
// cold initSync per package, in fresh processes, interleaved
const cold = new Map(summary.map((p) => [p.name, []]));
for (let i = 0; i < COLD; i++) {
  for (const p of summary) {
    const dir = resolve(root, p.dir);
    const script = `import { readFileSync } from "node:fs";
const m = await import(${JSON.stringify(pathToFileURL(join(dir, "openviking_context_engine.js")).href)});
const bytes = readFileSync(${JSON.stringify(join(dir, "openviking_context_engine_bg.wasm"))});
const t = performance.now(); m.initSync({ module: bytes }); console.log(performance.now() - t);`;
    cold.get(p.name).push(Number(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }).trim()));
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`\n| package | raw | gzip -9 (Node zlib) | cold initSync, median of ${COLD} |\n|---|---:|---:|---:|`);
for (const p of summary) {
  const c = cold.get(p.name);
  console.log(`| ${p.name} (${p.dir}/) | ${p.raw.toLocaleString("en")} B (${kb(p.raw)} KB) | ${p.gzip.toLocaleString("en")} B (${kb(p.gzip)} KB) | ${c.length ? median(c).toFixed(1) + " ms" : "-"} |`);
}

function reader(buf, pos = 0) {
  return {
    get pos() { return pos; },
    set pos(p) { pos = p; },
    u8() { return buf[pos++]; },
    leb() { let r = 0, s = 0, b; do { b = buf[pos++]; r += (b & 0x7f) * 2 ** s; s += 7; } while (b & 0x80); return r; },
    str() { const n = this.leb(); const t = buf.toString("utf8", pos, pos + n); pos += n; return t; },
  };
}

function breakdown(raw, shipped) {
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
  const rows = [...byGroup].sort((a, b) => b[1] - a[1]);
  console.log(`named copy: ${kb(raw.length)} KB (code section ${kb(sections[10] ?? 0)} KB, data ${kb(sections[11] ?? 0)} KB, names ${kb(sections["custom:name"] ?? 0)} KB, ${bodies.length} functions)`);
  console.log(`shipped (after wasm-bindgen + wasm-opt): ${kb(shipped.length)} KB raw, ${kb(gzipSync(shipped, { level: 9 }).length)} KB gzip -9\n`);
  console.log("| code of the shipped module, by crate / module | KB | share |");
  console.log("|---|---:|---:|");
  const ours = rows.filter(([g]) => g.startsWith("crate::")).reduce((a, [, b]) => a + b, 0);
  console.log(`| this crate, all modules | ${kb(ours)} | ${((100 * ours) / code).toFixed(1)} % |`);
  for (const [g, b] of rows.slice(0, TOP)) console.log(`| ${g} | ${kb(b)} | ${((100 * b) / code).toFixed(1)} % |`);
}
