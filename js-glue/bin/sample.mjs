#!/usr/bin/env node
// The main job: runs the bundled samples (an English and a Chinese conversation with
// OpenViking search results for both memory scopes) through the wasm engine and prints the
// recall query, the injected memories, the synthetic memory_recall_auto messages and the
// explain record of every candidate.
//
//   node js-glue/bin/sample.mjs [sample.json …] [--json]
import { readFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join, basename } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const asJson = args.includes("--json");
const files = args.filter((a) => !a.startsWith("--"));
const samples = files.length
  ? files
  : ["en.json", "zh.json"].map((f) => join(here, "..", "..", "www-demo", "samples", f));

// the tuning page's package (www-demo/pkg, `make build`): the pure Engine with its explain
// records (the plugin's package, js-glue/pkg, has only the lifecycle engine)
const pkgDir = join(here, "..", "..", "www-demo", "pkg");
const wasm = await import(pathToFileURL(join(pkgDir, "openviking_context_engine.js")).href);
wasm.initSync({ module: readFileSync(join(pkgDir, "openviking_context_engine_bg.wasm")) });
const { Engine, version } = wasm;

const pad = (s, n) => String(s).padEnd(n);
const fmt = (x) => (typeof x === "number" ? x.toFixed(3) : "  -  ");

for (const file of samples) {
  const sample = JSON.parse(readFileSync(file, "utf8"));
  const engine = new Engine(sample.config ?? {}, {});
  const out = engine.autoRecall({
    prompt: sample.prompt,
    messages: sample.messages,
    search: sample.search,
    contents: sample.contents,
    nowMs: sample.messages.at(-1)?.timestamp ?? 0,
    explain: true, // the main job shows every candidate's record
  });
  if (asJson) {
    console.log(JSON.stringify({ sample: basename(file), ...out }, null, 2));
    continue;
  }
  const r = out.recall;
  console.log(`\n══ ${sample.name} (${basename(file)}) · engine ${version()}`);
  console.log(`prompt: ${sample.prompt}`);
  console.log(`\nrecall query (${out.query.parts.length} user turns looked at):`);
  for (const p of out.query.parts) {
    console.log(`  ${p.skipped ? `skip ${pad(p.skipped, 12)}` : "use              "} [${p.source}] ${p.text.slice(0, 90)}`);
  }
  if (!r) {
    console.log("\nno recall this turn (nothing to search for)");
    continue;
  }
  console.log(`\ninjected memories: ${r.memories.length} · ${r.tokens}/${r.budget} tokens of the recall budget`);
  r.memories.forEach((m, i) => console.log(`  ${i + 1}. [${m.category}] (${m.score}) ${m.content.slice(0, 110)}`));
  console.log(`\nsynthetic messages (placed right before the current user turn):`);
  for (const m of r.messages) console.log("  " + JSON.stringify(m).slice(0, 400) + (JSON.stringify(m).length > 400 ? " …" : ""));
  console.log(`\nexplain records (${r.explain.length} candidates):`);
  console.log(`  ${pad("decision", 16)} ${pad("rank", 6)} ${pad("score", 6)} ${pad("lvl", 4)} ${pad("lex", 6)} ${pad("intent", 6)} uri`);
  for (const e of r.explain) {
    const what = e.decision === "kept" ? `kept #${e.position}` : e.reason;
    const intent = e.rank.temporalBoost + e.rank.preferenceBoost;
    const dup = e.duplicateOf ? `  (duplicate of ${e.duplicateOf})` : "";
    console.log(`  ${pad(what, 16)} ${fmt(e.rank.total)}  ${fmt(e.rank.score)}  ${pad(e.level ?? "-", 3)} ${fmt(e.rank.lexicalBoost)}  ${fmt(intent)}  ${e.uri || "(no uri)"}${dup}`);
  }
  console.log(`\nmessages handed to the model: ${out.messages.length} (${sample.messages.length} prior + 2 synthetic)`);
}
