#!/usr/bin/env node
// How far lexical candidates could carry recall: of the answerable questions whose evidence
// was NOT among the vector candidates (the records of a quality run, `in pool` false), how
// many would have it among plain BM25's top k over the same memories (bm25.mjs). Reads the
// per-question records run.mjs wrote; searches nothing.
//
//   node tests/bench/quality/lexical-ceiling.mjs [--set personas|tune|heldout|heldout2|heldout3] [--records FILE]
//
// (default records: tests/artifacts/bench/quality.json for the personas, quality-<set>.json otherwise)
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bm25Index } from "./bm25.mjs";
import { loadSet } from "./conversations/load.mjs";
import { generate } from "./generate.mjs";

const argv = process.argv.slice(2);
const opt = (name, dflt) => (argv.includes(`--${name}`) ? argv[argv.indexOf(`--${name}`) + 1] : dflt);
const set = opt("set", "personas");
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const file = opt("records", join(root, "tests", "artifacts", "bench", set === "personas" ? "quality.json" : `quality-${set}.json`));
const records = JSON.parse(readFileSync(file, "utf8"));
if (records.set && records.set !== set) throw new Error(`${file} holds the records of ${records.set}, not ${set}`);
const personas = (set === "personas" ? generate({ seed: records.seed }) : await loadSet(set)).personas;
const index = new Map(personas.map((p) => [p.tag, bm25Index(p.memories.map((m) => ({ id: m.id, text: m.text })))]));

const missed = records.questions.filter((q) => q.type !== "unrelated" && q.evidence.length && q.evidenceInPool === false);
const byLang = {};
for (const q of missed) byLang[q.lang] = (byLang[q.lang] ?? 0) + 1;
console.log(`${set}: ${missed.length} answerable questions searched without their evidence among the vector candidates (${Object.entries(byLang).map(([l, n]) => `${l} ${n}`).join(", ") || "none"})`);
for (const k of [5, 10, 20]) {
  const found = missed.filter((q) => {
    const evidence = new Set(q.evidence.flat());
    return index.get(q.persona).search(q.query ?? q.text, k).some((h) => evidence.has(h.id));
  });
  console.log(`  BM25 top ${k} over the same memories holds the evidence for ${found.length}`);
}
