// Summarises a `node --cpu-prof` profile of a run that calls the wasm package: self time by
// kind (wasm engine code, serde, allocation, the wasm-bindgen glue, JSON across the boundary,
// GC) and by frame, and the engine's functions by inclusive time. Rust symbols are demangled;
// the glue's anonymous import functions are named by their line. Used by recall-legacy.mjs
// (`--summarise-profile FILE.cpuprofile [--top 25]`).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export function summariseProfile(file, top) {
  const prof = JSON.parse(readFileSync(file, "utf8"));
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const self = new Map();
  for (let i = 0; i < prof.samples.length; i++) {
    const dt = prof.timeDeltas[i + 1] ?? 0;
    self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + dt);
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const agg = new Map();
  const groups = new Map();
  const srcCache = new Map();
  const glueName = (cf) => {
    // wasm-bindgen imports are anonymous functions: name them by their glue line
    if (!/^file:/.test(cf.url)) return null;
    let lines = srcCache.get(cf.url);
    if (!lines) {
      try {
        lines = readFileSync(fileURLToPath(cf.url.replace(/\?.*$/, "")), "utf8").split("\n");
      } catch {
        lines = [];
      }
      srcCache.set(cf.url, lines);
    }
    const here = lines[cf.lineNumber] ?? "";
    const imp = /(__wbg_\w+?)(?:_[0-9a-f]{16})?:/.exec(here);
    const body = (lines[cf.lineNumber + 1] ?? "").trim();
    return imp ? `${imp[1]} { ${body.slice(0, 60)} }` : null;
  };
  for (const [id, us] of self) {
    const cf = byId.get(id).callFrame;
    const name = (cf.functionName ? null : glueName(cf)) ?? demangle(cf.functionName || "(anonymous)");
    const where = cf.url ? `${cf.url.replace(/^.*\//, "")}:${cf.lineNumber + 1}` : "";
    const key = `${name}  ${where}`;
    agg.set(key, (agg.get(key) ?? 0) + us);
    const g = groupOf(cf, name);
    groups.set(g, (groups.get(g) ?? 0) + us);
  }
  console.log(`${file}: ${(total / 1e6).toFixed(2)} s sampled\n`);
  console.log("by kind:");
  for (const [g, us] of [...groups].sort((a, b) => b[1] - a[1])) console.log(`  ${((100 * us) / total).toFixed(1).padStart(5)} %  ${g}`);
  console.log(`\ntop ${top} frames by self time:`);
  for (const [k, us] of [...agg].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`);
  // inclusive time of the engine's own functions (what they and their callees cost)
  const incl = new Map();
  const nameOf = (n) => (n.callFrame.functionName ? null : glueName(n.callFrame)) ?? demangle(n.callFrame.functionName || "(anonymous)");
  const walk = (node, onStack) => {
    let t = self.get(node.id) ?? 0;
    const name = nameOf(node);
    const fresh = !onStack.has(name);
    if (fresh) onStack.add(name);
    for (const c of node.children ?? []) t += walk(byId.get(c), onStack);
    if (fresh) {
      onStack.delete(name);
      incl.set(name, (incl.get(name) ?? 0) + t);
    }
    return t;
  };
  walk(prof.nodes[0], new Set());
  console.log(`\nengine functions and boundary imports by inclusive time (self + callees; inlined functions count in their caller):`);
  for (const [k, us] of [...incl].filter(([k]) => /^openviking_context_engine::|^engine_|^__wbg_/.test(k)).sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`  ${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`);
}

function groupOf(cf, name) {
  if (cf.url.startsWith("wasm://") || /^\$?wasm-function|^\$func/.test(cf.functionName)) {
    if (/serde_json|serde::|serde_core/.test(name)) return "wasm: serde / serde_json";
    if (/dlmalloc|alloc::|__rust_alloc|__rust_dealloc|__rdl_|realloc|malloc|free|memcpy|memmove|memset|drop_in_place/.test(name)) return "wasm: allocation, copies, drops";
    if (/openviking_context_engine/.test(name)) return "wasm: engine code";
    if (/core::|alloc::|std::/.test(name)) return "wasm: core/alloc/std (strings, hashing, sorting)";
    return "wasm: other";
  }
  if (name === "(garbage collector)") return "GC";
  if (/^__wbg_stringify/.test(name)) return "JS: JSON.stringify of the request (inside the call)";
  if (/^__wbg_parse/.test(name)) return "JS: JSON.parse of the result (inside the call)";
  if (/^(encodeInto|decode|decodeUTF8|encodeUtf8String)$/.test(name) || cf.url === "node:internal/encoding" || /encoding$/.test(cf.url)) return "JS: UTF-8 encode/decode across the boundary";
  if (name === "passStringToWasm0" || name === "getStringFromWasm0") return "JS: string copy into/out of wasm memory (glue)";
  if (name === "(program)" || name === "(idle)" || name === "(root)") return name;
  if (/openviking_context_engine\.js/.test(cf.url)) return "JS: wasm-bindgen glue";
  if (!cf.url) return `builtin: ${name}`;
  if (/ovce-legacy-/.test(cf.url)) return "JS: legacy plugin code";
  return "JS: other";
}

/** Rust legacy symbol demangling, enough for profile names (`_ZN...17h<hash>E`). */
function demangle(s) {
  const m = /^_ZN(.*)E$/.exec(s);
  if (!m) return s.replace(/::h[0-9a-f]{16}$/, "").replace(/\[[0-9a-f]{16}\]/g, "");
  let rest = m[1];
  const parts = [];
  while (rest.length) {
    const l = /^(\d+)/.exec(rest);
    if (!l) break;
    const len = Number(l[1]);
    parts.push(rest.slice(l[1].length, l[1].length + len));
    rest = rest.slice(l[1].length + len);
  }
  if (parts.length && /^h[0-9a-f]{16}$/.test(parts[parts.length - 1])) parts.pop();
  return parts
    .join("::")
    .replace(/\$LT\$/g, "<").replace(/\$GT\$/g, ">").replace(/\$RF\$/g, "&").replace(/\$BP\$/g, "*").replace(/\$C\$/g, ",")
    .replace(/\$u20\$/g, " ").replace(/\$u27\$/g, "'").replace(/\$u5b\$/g, "[").replace(/\$u5d\$/g, "]").replace(/\$u7b\$/g, "{").replace(/\$u7d\$/g, "}")
    .replace(/\$u3b\$/g, ";").replace(/\$u2b\$/g, "+").replace(/\$u22\$/g, '"').replace(/\.\./g, "::");
}
