// A short JS-source rendering of an input, for failure reports and repros. Never triggers a
// Proxy trap or getter of values this harness made (they are looked up in `marks` first).
import { marks } from "./values.mjs";

function str(s, max) {
  if (s.length > max) {
    const unit = s.slice(0, 8);
    for (const n of [1, 2, 3, 4, 5]) {
      const u = s.slice(0, n);
      if (u.repeat(Math.floor(s.length / n)) === s.slice(0, Math.floor(s.length / n) * n)) return `${JSON.stringify(u)}.repeat(${Math.floor(s.length / n)})`;
    }
    return `${JSON.stringify(s.slice(0, max))}/*…${s.length} UTF-16 units, starts ${JSON.stringify(unit)}*/`;
  }
  return JSON.stringify(s);
}

export function describe(v, { depth = 0, max = 160, budget = { n: 2500 } } = {}) {
  if (budget.n <= 0) return "…";
  try {
    switch (typeof v) {
      case "string": budget.n -= Math.min(v.length, max); return str(v, max);
      case "number": return Object.is(v, -0) ? "-0" : String(v);
      case "bigint": return `${v}n`;
      case "symbol": return `Symbol(${JSON.stringify(v.description ?? "")})`;
      case "undefined": return "undefined";
      case "boolean": return String(v);
      case "function": return marks.has(v) ? `/*${marks.get(v)}*/ () => {}` : `function ${v.name || "anonymous"}() {…}`;
    }
    if (v === null) return "null";
    if (marks.has(v)) return `/*${marks.get(v)}*/`;
    if (depth > 7) return Array.isArray(v) ? "[…]" : "{…}";
    if (v === globalThis) return "globalThis";
    if (v instanceof Error) return `new ${v.constructor?.name ?? "Error"}(${JSON.stringify(String(v.message).slice(0, 80))})${v.code !== undefined ? `/*code ${String(v.code)}*/` : ""}`;
    if (typeof v.then === "function" && !(v instanceof Promise)) return `{ then: ${v.then.toString().replace(/\s+/g, " ").slice(0, 120)} }`;
    if (v instanceof Promise) return "Promise";
    if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer || v instanceof Map || v instanceof Set || v instanceof Date || v instanceof RegExp) return `/*${v.constructor.name}*/`;
    if (Array.isArray(v)) {
      if (v.length > 40) return `[${v.slice(0, 6).map((x) => describe(x, { depth: depth + 1, max, budget })).join(", ")}, /*…${v.length} items*/]`;
      budget.n -= 2;
      return `[${v.map((x) => describe(x, { depth: depth + 1, max, budget })).join(", ")}]`;
    }
    const keys = Object.keys(v);
    const proto = Object.getPrototypeOf(v);
    const pre = proto === null ? "/*null prototype*/ " : proto !== Object.prototype ? `/*${proto.constructor?.name ?? "?"}*/ ` : "";
    const shown = keys.slice(0, 30).map((k) => {
      const d = Object.getOwnPropertyDescriptor(v, k);
      const kk = /^[A-Za-z_$][\w$]*$/.test(k) && k !== "__proto__" ? k : `[${JSON.stringify(k)}]`;
      if (d && d.get) return `get ${kk}() {…}`;
      budget.n -= k.length + 2;
      return `${kk}: ${describe(v[k], { depth: depth + 1, max, budget })}`;
    });
    if (keys.length > 30) shown.push(`/*…${keys.length - 30} more keys*/`);
    return `${pre}{ ${shown.join(", ")} }`;
  } catch (e) {
    return `/*cannot describe: ${String(e?.message ?? e)}*/`;
  }
}

/** Arguments as a call's argument list. */
export function describeArgs(args) {
  const budget = { n: 2500 };
  return args.map((a) => describe(a, { budget })).join(", ");
}
