#!/usr/bin/env node
// Every class of recall selection that differs from the legacy plugin's:
// seeded random search results — scores out of range or not finite, blank and BOM-only
// abstracts with an overview, missing / cased / spaced categories, memory_type tags, items in
// events/cases folders under another category, whitespace and case variants of one text,
// CJK, stop words, intent cues inside longer words, repeated and non-ASCII query words — go
// through the legacy hook (merge, uri dedupe, leaf filter, postProcessMemories,
// pickMemoriesForInjection; legacy-plugin.mjs) and through the engine's autoRecall with the
// same query (the current turn only) and a budget that cuts nothing, so only the selection is
// compared: which memories, in which order.
//
// Each difference is attributed to a class by neutralising one cause at a time, on both
// sides' input (cumulatively, in the order of CLASSES below): the first neutraliser after
// which both pick the same list names the class. Every class is a deliberate difference
// documented in src/README.md ("The pipeline keeps the legacy rules … with these deliberate
// changes") with a case in tests/vectors/legacy-divergences.json; a difference no class
// explains is printed in full and makes the exit code 1.
//
//   LEGACY_PLUGIN_DIR=/tmp/legacy-openclaw-plugin <node24> tests/bench/legacy-divergence.mjs [--cases 3000] [--seed 24] [--show 3] [--examples]
//   … --vectors   (instead of random cases: the shared vectors' autoRecall cases, one line each)
//
// (how to get the legacy copy: the top of recall-legacy.mjs).
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { loadLegacy, LEGACY_COMMIT } from "./legacy-plugin.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const arg = (k, d) => {
  const i = process.argv.indexOf(`--${k}`);
  return i > 0 ? process.argv[i + 1] : d;
};
const CASES = Number(arg("cases", 3000));
const SEED = Number(arg("seed", 24));
const SHOW = Number(arg("show", 3));

const pkg = await import(pathToFileURL(resolve(root, "www-demo/pkg/openviking_context_engine.js")).href); // the page's package: the pure Engine
pkg.initSync({ module: readFileSync(resolve(root, "www-demo/pkg/openviking_context_engine_bg.wasm")) });
const CONFIG = { recallTokenBudget: 50000, recallMaxContentChars: 10000 }; // the budget cuts nothing
const engine = new pkg.Engine(CONFIG, {});
const legacy = await loadLegacy();
const legacyCfg = { ...legacy.config.memoryOpenVikingConfigSchema.parse({}), ...CONFIG };

// ---- a seeded generator ------------------------------------------------------------------
let state = SEED >>> 0 || 1;
const rnd = () => ((state = (Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0), state / 2 ** 32);
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
const chance = (p) => rnd() < p;

const QUERIES = [
  "What is my favorite coffee?", "When is the next billing release?", "Which editor theme do I prefer?",
  "Has he updated the staging database yet?", "What did we decide about the orders service pool size?",
  "Any update on the likely Monday deploy of payments?", "coffee coffee coffee order",
  "Remember the café on Rue Cler we liked?", "之前给我的订单服务慢查询优化建议是什么？", "我喜欢什么样的咖啡？",
  "Tell me about the vaults and the API keys rotation", "What is the rollout plan for checkout into production with canaries and alerts and dashboards?",
];
const WORDS = ["coffee", "flat", "white", "billing", "release", "fridays", "editor", "theme", "dark", "staging", "database", "pool", "size", "orders", "payments", "deploy", "monday", "café", "vaults", "api", "keys", "rotation", "checkout", "canaries", "the", "has", "into", "he", "update", "likely", "订单", "服务", "慢查询", "咖啡", "喜欢"];
const FOLDERS = ["preferences", "entities", "events", "cases", "profile", "patterns"];

function text() {
  const n = 2 + Math.floor(rnd() * 6);
  return Array.from({ length: n }, () => pick(WORDS)).join(" ");
}

function variant(t) {
  return pick([t, t.toUpperCase(), ` ${t} `, t.replace(/ /g, "  "), t.replace(/ /g, "\t")]);
}

function item(scope, i, shared) {
  const folder = pick(FOLDERS);
  const uri = `viking://${scope === "user" ? "user/ada" : "agent"}/memories/${folder}/m${i}.md`;
  const it = { uri: chance(0.03) ? ` ${uri} ` : uri, level: chance(0.9) ? 2 : pick([0, 1]) };
  it.score = chance(0.06) ? pick([Infinity, -Infinity, 1.4, -0.2, "0.9", null, NaN]) : Math.round(rnd() * 1000) / 1000;
  const t = shared.length && chance(0.3) ? variant(pick(shared)) : text();
  shared.push(t.trim());
  const blank = chance(0.1);
  if (blank) it.abstract = pick(["", "   ", "\uFEFF", " \n "]);
  else if (chance(0.05)) {
    /* no abstract at all */
  } else it.abstract = t;
  if (blank || !("abstract" in it) || chance(0.2)) it.overview = text();
  const c = rnd();
  if (c < 0.55) it.category = folder;
  else if (c < 0.65) it.category = pick([folder.toUpperCase(), ` ${folder} `, folder[0].toUpperCase() + folder.slice(1)]);
  else if (c < 0.75) it.category = pick(FOLDERS); // another folder's
  else if (c < 0.8) it.category = pick(["", "  "]);
  else if (c < 0.85) it.tags = [`memory_type=${pick(FOLDERS)}`];
  // else: no category
  return it;
}

function caseOf() {
  const shared = [];
  const user = Array.from({ length: 2 + Math.floor(rnd() * 10) }, (_, i) => item("user", i, shared));
  const agent = Array.from({ length: Math.floor(rnd() * 6) }, (_, i) => item("agent", 100 + i, shared));
  const contents = Object.fromEntries([...user, ...agent].map((m) => [m.uri, `Full text of ${m.uri}`]));
  return { query: pick(QUERIES), user, agent, contents };
}

// ---- both pipelines ----------------------------------------------------------------------
const clone = (c) => ({ ...c, user: c.user.map((m) => ({ ...m })), agent: c.agent.map((m) => ({ ...m })) });

async function legacyPick(c) {
  const q = legacy.hook.legacyQueryText({ messages: [{ role: "user", content: c.query }], prompt: c.query });
  if (!q || !legacy.hook.legacyRecallGate(legacyCfg, q)) return [];
  return legacy.hook.legacyMergeRank({ memories: c.user }, { memories: c.agent }, legacyCfg, q).map((m) => m.uri);
}

function enginePick(c) {
  // what the plugin hands the engine is JSON: Infinity and NaN arrive as null
  const request = JSON.parse(JSON.stringify({ prompt: c.query, messages: [], search: { user: { memories: c.user }, agent: { memories: c.agent } }, contents: c.contents, nowMs: 1764000000000 }));
  return (engine.autoRecall(request).recall?.memories ?? []).map((m) => m.uri);
}

// ---- the classes, each with the neutraliser that removes its cause on both sides ---------
const jsBlank = (s) => typeof s === "string" && s.trim() === "";
const folderOf = (uri) => uri.split("/memories/")[1]?.split("/")[0];
const engineCategory = (m) => {
  if (typeof m.category === "string" && m.category.trim()) return m.category.trim();
  const tag = (m.tags ?? []).find((t) => typeof t === "string" && t.startsWith("memory_type=") && t.length > 12);
  return tag ? tag.slice(12) : folderOf(m.uri.trim());
};
const each = (f) => (c) => ({ ...c, user: c.user.map(f), agent: c.agent.map(f) });

const CLASSES = [
  ["uri-space", "a uri with surrounding spaces is trimmed (legacy: another uri)", each((m) => ({ ...m, uri: m.uri.trim() }))],
  ["non-finite-score", "a non-finite score (Infinity) is read as 0 (legacy: clamped to 1 / 0)", each((m) => (typeof m.score === "number" && !Number.isFinite(m.score) && !Number.isNaN(m.score) ? { ...m, score: 0 } : m))],
  ["blank-abstract", "a blank or whitespace-only abstract is no abstract: the overview stands in (legacy: abstract ?? overview keeps the blank one)", each((m) => (jsBlank(m.abstract) ? (({ overview, ...rest }) => rest)(m) : m))],
  ["category-from-folder", "an item without a category (missing, blank) takes it from a memory_type tag or its folder (legacy: \"unknown\" for the dedupe)", each((m) => ({ ...m, category: engineCategory(m), tags: undefined }))],
  ["category-case", "the category is compared trimmed and case-insensitively (legacy: exactly)", each((m) => ({ ...m, category: typeof m.category === "string" ? m.category.trim().toLowerCase() : m.category }))],
  ["whitespace-dedupe", "the second dedupe collapses whitespace (legacy: trimmed and lowercased only)", each((m) => ({ ...m, abstract: typeof m.abstract === "string" ? m.abstract.replace(/\s+/g, " ") : m.abstract, overview: typeof m.overview === "string" ? m.overview.replace(/\s+/g, " ") : m.overview }))],
  ["query", "the query-aware rerank (subclassed below)", (c) => ({ ...c, query: "a b c d e f g" })],
];

const LEGACY_PREF = /prefer|preference|favorite|favourite|like|偏好|喜欢|爱好|更倾向/i;
const LEGACY_TEMP = /when|what time|date|day|month|year|yesterday|today|tomorrow|last|next|什么时候|何时|哪天|几月|几年|昨天|今天|明天|上周|下周|上个月|下个月|去年|明年/i;
/** Which of the documented query rules a query touches. */
function querySubclass(q) {
  const tags = [];
  if (/[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/.test(q)) tags.push("cjk-bigrams");
  const words = q.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const cue = (re, list) => re.test(q) && !words.some((w) => list.includes(w));
  if (cue(LEGACY_PREF, ["prefer", "preference", "preferences", "favorite", "favourite", "like", "likes"]) || cue(LEGACY_TEMP, ["when", "date", "day", "month", "year", "yesterday", "today", "tomorrow", "last", "next"])) tags.push("intent-cue-words");
  if (words.some((w) => /[^\x00-\x7f]/.test(w) && /[a-z]/.test(w))) tags.push("non-ascii-words");
  if (new Set(words).size < words.length) tags.push("repeated-words");
  tags.push("word-starts-and-stop-list");
  return tags.join("+");
}

// ---- run ---------------------------------------------------------------------------------
/** null when both pick the same list, else {cls, legacy, engine}. */
async function classify(c0) {
  const same = async (c) => {
    const [a, b] = [await legacyPick(clone(c)), enginePick(clone(c))];
    return { a, b, same: a.length === b.length && a.every((x, i) => x === b[i]) };
  };
  const first = await same(c0);
  if (first.same) return null;
  let c = c0;
  for (const [id, , neutralise] of CLASSES) {
    c = neutralise(c);
    if ((await same(c)).same) return { cls: id === "query" ? `query:${querySubclass(c0.query)}` : id, legacy: first.a, engine: first.b };
  }
  return { cls: "UNEXPLAINED", legacy: first.a, engine: first.b };
}

const counts = new Map();
const examples = new Map();
let differ = 0;
const inputs = [];
if (process.argv.includes("--vectors")) {
  // the shared vectors' autoRecall cases that search, each with its own query (the current turn)
  for (const file of ["recall.json", "legacy-divergences.json"]) {
    for (const v of JSON.parse(readFileSync(resolve(root, "tests/vectors", file), "utf8"))) {
      const s = v.call === "autoRecall" && v.input?.search;
      if (!s) continue;
      const last = [...(v.input.messages ?? [])].reverse().find((m) => m.role === "user");
      const query = v.input.prompt ?? (typeof last?.content === "string" ? last.content : "");
      inputs.push({ name: `${file}: ${v.name}`, c: { query, user: s.user?.memories ?? [], agent: s.agent?.memories ?? [], contents: v.input.contents ?? {} } });
    }
  }
} else {
  for (let n = 0; n < CASES; n++) inputs.push({ name: `case ${n}`, c: caseOf() });
}
for (const { name, c } of inputs) {
  const r = await classify(c);
  if (!r) continue;
  differ++;
  counts.set(r.cls, (counts.get(r.cls) ?? 0) + 1);
  if (!examples.has(r.cls)) examples.set(r.cls, []);
  if (examples.get(r.cls).length < SHOW) examples.get(r.cls).push({ name, query: c.query, legacy: r.legacy, engine: r.engine, user: c.user, agent: c.agent });
  if (process.argv.includes("--vectors")) console.log(`${r.cls.padEnd(28)} ${name}`);
}

console.log(`legacy ${LEGACY_COMMIT.slice(0, 9)} vs the engine's autoRecall: ${inputs.length} ${process.argv.includes("--vectors") ? "shared vectors" : `seeded cases (seed ${SEED})`}, ${differ} pick another list`);
for (const [id, what] of CLASSES) if (id !== "query") console.log(`  ${String(counts.get(id) ?? 0).padStart(5)}  ${id}: ${what}`);
for (const [cls, k] of [...counts].filter(([k]) => k.startsWith("query:")).sort()) console.log(`  ${String(k).padStart(5)}  ${cls}`);
console.log(`  ${String(counts.get("UNEXPLAINED") ?? 0).padStart(5)}  UNEXPLAINED`);
if (process.argv.includes("--examples")) for (const [cls, xs] of examples) console.log(`\n== ${cls}\n${xs.map((x) => JSON.stringify(x)).join("\n")}`);
else for (const x of examples.get("UNEXPLAINED") ?? []) console.log(`\nUNEXPLAINED: ${JSON.stringify(x)}`);
legacy.cleanup();
process.exitCode = counts.get("UNEXPLAINED") ? 1 : 0;
