#!/usr/bin/env node
// Reference token counts for tests/corpus/tokens.json, using the real
// OpenAI o200k_base tokenizer (npm `gpt-tokenizer`, installed as a
// devDependency of js-glue).
//
//   node tests/bench/tokens-reference.mjs           verify stored counts (exit 1 on mismatch)
//   node tests/bench/tokens-reference.mjs --write   rewrite every `o200k` field
//
// Both modes print per-language stats (samples, chars, tokens, chars/token).

import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");
const corpusPath = resolve(root, "tests", "corpus", "tokens.json");

// Resolve the package from js-glue/node_modules regardless of the cwd, through
// the package's own "exports" map ("./*" -> cjs/*.js for require).
const requireFromGlue = createRequire(resolve(root, "js-glue", "package.json"));
let encode;
try {
  ({ encode } = requireFromGlue("gpt-tokenizer/encoding/o200k_base"));
} catch (err) {
  console.error(`cannot load gpt-tokenizer/encoding/o200k_base: ${err.message}`);
  console.error("install it with: cd js-glue && npm install --no-audit --no-fund");
  process.exit(2);
}

// Treat special-token text (e.g. "<|endoftext|>") as plain text, never throw.
const count = (text) => encode(text, { disallowedSpecial: new Set() }).length;

const args = process.argv.slice(2);
const unknown = args.filter((a) => a !== "--write");
if (unknown.length) {
  console.error(`unknown argument(s): ${unknown.join(" ")}`);
  process.exit(2);
}
const write = args.includes("--write");

const corpus = JSON.parse(readFileSync(corpusPath, "utf8"));
if (!Array.isArray(corpus)) {
  console.error(`${corpusPath}: expected a JSON array`);
  process.exit(2);
}

const mismatches = [];
const stats = new Map(); // lang -> { n, chars, tokens }
const out = corpus.map((s) => {
  const real = count(s.text);
  if (s.o200k !== real) mismatches.push({ id: s.id, stored: s.o200k, real });
  const st = stats.get(s.lang) ?? { n: 0, chars: 0, tokens: 0 };
  st.n += 1;
  st.chars += [...s.text].length; // code points, not UTF-16 units
  st.tokens += real;
  stats.set(s.lang, st);
  // Stable key order.
  return { id: s.id, lang: s.lang, split: s.split, text: s.text, o200k: real };
});

const ids = new Set();
for (const s of corpus) {
  if (ids.has(s.id)) console.error(`warning: duplicate id ${s.id}`);
  ids.add(s.id);
}

const pad = (v, w) => String(v).padStart(w);
console.log(`${"lang".padEnd(6)} ${pad("n", 3)} ${pad("chars", 7)} ${pad("tokens", 7)} ${pad("chars/tok", 9)}`);
let all = { n: 0, chars: 0, tokens: 0 };
for (const [lang, st] of stats) {
  console.log(
    `${lang.padEnd(6)} ${pad(st.n, 3)} ${pad(st.chars, 7)} ${pad(st.tokens, 7)} ${pad((st.chars / st.tokens).toFixed(2), 9)}`,
  );
  all = { n: all.n + st.n, chars: all.chars + st.chars, tokens: all.tokens + st.tokens };
}
console.log(
  `${"all".padEnd(6)} ${pad(all.n, 3)} ${pad(all.chars, 7)} ${pad(all.tokens, 7)} ${pad((all.chars / all.tokens).toFixed(2), 9)}`,
);

if (write) {
  writeFileSync(corpusPath, JSON.stringify(out, null, 2) + "\n");
  console.log(`wrote ${out.length} counts to ${corpusPath} (${mismatches.length} changed)`);
  process.exit(0);
}

if (mismatches.length) {
  console.error(`\n${mismatches.length} mismatch(es):`);
  for (const m of mismatches) console.error(`  ${m.id}: stored ${m.stored}, real ${m.real}`);
  process.exit(1);
}
console.log(`ok: all ${corpus.length} stored counts match o200k_base`);
