// The wasm time of one engine call split by boundary: a second copy of the package's glue and
// module, its JSON and string imports wrapped in timers — JSON.stringify of the request, the
// copy into wasm memory, the engine, the UTF-8 decode out, JSON.parse of the result. Used by
// recall-legacy.mjs beside its plain timed comparison.
import { pathToFileURL } from "node:url";

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * The wasm time split by boundary: a second copy of the same glue + module, instantiated with
 * its JSON/string imports wrapped in timers (the timed comparison above uses the plain copy).
 * JSON.stringify of the request and JSON.parse of the result run inside the call (the glue's
 * `__wbg_stringify_*` / `__wbg_parse_*` imports), the string crosses into wasm memory through
 * `__wbindgen_string_get` (a JS byte loop for the ASCII prefix, then TextEncoder.encodeInto).
 */
export async function wasmBreakdown(turns, runs, instrumented, method, { warmUp, batchSize }) {
  const { eng, acc } = instrumented;
  const once = (w) => eng[method](w.request);
  const batch = batchSize(await warmUp(async (i) => {
    const t0 = performance.now();
    once(turns[i % turns.length]);
    return performance.now() - t0;
  }), turns.length);
  let t;
  const samples = [];
  for (let r = 0; r < runs; r++) {
    acc.reset();
    instrumented.timeParse(true);
    t = performance.now();
    for (let i = r * batch; i < (r + 1) * batch; i++) once(turns[i % turns.length]);
    const total = ((performance.now() - t) / batch) * 1000;
    instrumented.timeParse(false);
    const s = {
      totalUs: total,
      stringifyUs: (acc.stringify / batch) * 1000,
      copyInUs: (acc.stringGet / batch) * 1000,
      parseUs: (acc.jsonParse / batch) * 1000,
      decodeOutUs: ((acc.parseImport - acc.jsonParse) / batch) * 1000,
      requestBytes: acc.stringifyChars / acc.stringifyCalls,
      responseBytes: acc.parseBytes / acc.parseCalls,
      importCalls: acc.calls / batch,
    };
    s.wasmUs = s.totalUs - s.stringifyUs - s.copyInUs - s.parseUs - s.decodeOutUs;
    samples.push(s);
  }
  const out = {};
  for (const k of Object.keys(samples[0])) out[k] = median(samples.map((s) => s[k]));
  out.note = "totalUs is the instrumented copy's time (timers add ~0.1 µs per wrapped import call); wasmUs = total − the JS-side parts";
  return out;
}

export async function initInstrumented(pkgJs, wasmBytes) {
  const acc = {
    stringify: 0, stringGet: 0, parseImport: 0, jsonParse: 0, calls: 0,
    stringifyChars: 0, stringifyCalls: 0, parseBytes: 0, parseCalls: 0,
    reset() {
      this.stringify = this.stringGet = this.parseImport = this.jsonParse = this.calls = 0;
      this.stringifyChars = this.stringifyCalls = this.parseBytes = this.parseCalls = 0;
    },
  };
  const wrap = (name, f) => {
    if (/^__wbg_stringify_/.test(name))
      return function () {
        acc.calls++;
        const t = performance.now();
        const r = f.apply(this, arguments);
        acc.stringify += performance.now() - t;
        if (typeof r === "string") (acc.stringifyChars += r.length), acc.stringifyCalls++;
        return r;
      };
    if (/^__wbg___wbindgen_string_get_|^__wbg_encodeInto_/.test(name))
      return function () {
        acc.calls++;
        const t = performance.now();
        const r = f.apply(this, arguments);
        acc.stringGet += performance.now() - t;
        return r;
      };
    if (/^__wbg_parse_/.test(name))
      return function (ptr, len) {
        acc.calls++;
        acc.parseBytes += len;
        acc.parseCalls++;
        const t = performance.now();
        const r = f.apply(this, arguments);
        acc.parseImport += performance.now() - t;
        return r;
      };
    return function () {
      acc.calls++;
      return f.apply(this, arguments);
    };
  };
  // A second module record of the same glue (query string), so it holds its own instance.
  const mod = await import(pathToFileURL(pkgJs).href + "?instrumented");
  const Orig = WebAssembly.Instance;
  WebAssembly.Instance = function (module, imports) {
    const wrapped = {};
    for (const [ns, fns] of Object.entries(imports)) {
      wrapped[ns] = {};
      for (const [name, f] of Object.entries(fns)) wrapped[ns][name] = typeof f === "function" ? wrap(name, f) : f;
    }
    return new Orig(module, wrapped);
  };
  try {
    mod.initSync({ module: wasmBytes });
  } finally {
    WebAssembly.Instance = Orig;
  }
  const origParse = JSON.parse;
  const timedParse = function (text, reviver) {
    const t = performance.now();
    const r = origParse(text, reviver);
    acc.jsonParse += performance.now() - t;
    return r;
  };
  return {
    acc,
    eng: new mod.Engine({}, {}),
    // JSON.parse inside the glue's parse import is the global one: timed only while measuring
    timeParse(on) {
      JSON.parse = on ? timedParse : origParse;
    },
  };
}
