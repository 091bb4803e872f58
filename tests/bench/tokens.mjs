#!/usr/bin/env node
// Token-estimation benchmark: the engine's estimator (through the built wasm) against the
// real o200k tokenizer (npm gpt-tokenizer), per language, on both halves of
// tests/corpus/tokens.json. The weights were fitted on "tune"; "holdout" is the honest figure.
// chars/4 (the legacy plugin's rule) is shown for comparison.
//
//   node tests/bench/tokens.mjs [--json]
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { loadPackage } = await import(resolve(root, "tests", "support", "packages.mjs"));
const { encode } = createRequire(resolve(root, "js-glue", "package.json"))("gpt-tokenizer/encoding/o200k_base");

export async function measure() {
  const { estimateTokens } = await loadPackage("page");
  const corpus = JSON.parse(readFileSync(resolve(root, "tests", "corpus", "tokens.json"), "utf8"));
  const rows = {};
  for (const s of corpus) {
    const real = encode(s.text, { disallowedSpecial: new Set() }).length;
    const key = `${s.split}/${s.lang}`;
    const r = (rows[key] ??= { split: s.split, lang: s.lang, n: 0, err: 0, bias: 0, max: 0, legacyErr: 0 });
    const est = estimateTokens(s.text);
    const e = (est - real) / real;
    r.n += 1;
    r.err += Math.abs(e);
    r.bias += e;
    r.max = Math.max(r.max, Math.abs(e));
    r.legacyErr += Math.abs(Math.ceil(s.text.length / 4) - real) / real;
  }
  return Object.values(rows).map((r) => ({
    split: r.split,
    lang: r.lang,
    n: r.n,
    meanAbsError: r.err / r.n,
    meanBias: r.bias / r.n,
    maxError: r.max,
    charsOver4MeanAbsError: r.legacyErr / r.n,
  }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await measure();
  if (process.argv.includes("--json")) {
    console.log(JSON.stringify(rows, null, 2));
  } else {
    const pct = (x) => `${(x * 100).toFixed(1)}%`.padStart(7);
    console.log("split    lang     n  mean|err|    bias   max|err|   chars/4 mean|err|");
    for (const r of rows.sort((a, b) => a.split.localeCompare(b.split) || a.lang.localeCompare(b.lang))) {
      console.log(`${r.split.padEnd(8)} ${r.lang.padEnd(6)} ${String(r.n).padStart(3)} ${pct(r.meanAbsError)}  ${pct(r.meanBias)} ${pct(r.maxError)}   ${pct(r.charsOver4MeanAbsError)}`);
    }
  }
}
