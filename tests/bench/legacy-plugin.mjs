// legacy-plugin.mjs — the legacy OpenClaw plugin of OpenViking (examples/openclaw-plugin at
// LEGACY_COMMIT, 2026-03-23), loaded at run time from LEGACY_PLUGIN_DIR for the benchmarks that
// compare the engine with it (recall-legacy.mjs: speed and agreement; legacy-divergence.mjs:
// every class of recall selection that differs). NO LEGACY CODE IS IN THIS REPOSITORY: the
// files are read from LEGACY_PLUGIN_DIR, their TypeScript types stripped into a temp directory,
// and the hook's pieces cut out of index.ts by anchors (see recall-legacy.mjs for how to get
// the legacy copy).
import { readFileSync, writeFileSync, mkdtempSync, rmSync, existsSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { resolve, join } from "node:path";
import { pathToFileURL } from "node:url";
import * as nodeModule from "node:module";

export const LEGACY_COMMIT = "3b5b9a42c0ce2896e5c67ba8b7a234f641dc713a";
// git blob ids of the files at that commit (git ls-tree), to tell a developer if their copy differs.
const LEGACY_BLOBS = {
  "memory-ranking.ts": "3e7b615df27b7702af92819f94e24292fc1390f3",
  "index.ts": "d30a95b5faf02b8069649aa27cd98fd2a171b830",
  "text-utils.ts": "40f224a458a3b3fe3710121061427319b2a79fdc",
  "config.ts": "90100593f91bfd8f32c6790bb99af012a11c429c",
};

function die(msg) {
  console.error(`legacy-plugin: ${msg}`);
  process.exit(2);
}
function gitBlobId(buf) {
  return createHash("sha1").update(`blob ${buf.length}\0`).update(buf).digest("hex");
}
function oneLine(s) {
  return s.replace(/\s+/g, " ").trim().slice(0, 200);
}

// =============================================================================================
// Loading the legacy plugin
// =============================================================================================
export async function loadLegacy() {
  const dir = process.env.LEGACY_PLUGIN_DIR;
  if (!dir) die("LEGACY_PLUGIN_DIR is not set: see the comment at the top of this script for how to get the legacy plugin at " + LEGACY_COMMIT);
  const abs = resolve(dir);
  const files = ["memory-ranking.ts", "text-utils.ts", "config.ts", "index.ts"];
  for (const f of files) if (!existsSync(join(abs, f))) die(`${join(abs, f)} is missing: LEGACY_PLUGIN_DIR must be the openclaw-plugin folder of OpenViking ${LEGACY_COMMIT}`);
  const text = Object.fromEntries(files.map((f) => [f, readFileSync(join(abs, f), "utf8")]));
  const blobCheck = files
    .filter((f) => LEGACY_BLOBS[f])
    .map((f) => {
      const got = gitBlobId(readFileSync(join(abs, f)));
      return { file: f, expected: LEGACY_BLOBS[f], got, matches: got === LEGACY_BLOBS[f] };
    });
  for (const b of blobCheck) if (!b.matches) console.error(`warning: ${b.file} is not the file of ${LEGACY_COMMIT.slice(0, 9)} (blob ${b.got.slice(0, 9)}, expected ${b.expected.slice(0, 9)})`);

  const { strip, name: transpiler } = await transpiler_();
  const tmp = mkdtempSync(join(tmpdir(), "ovce-legacy-"));
  const js = (src) => strip(src).replace(/from\s+(["'])\.\/([\w.-]+)\.js\1/g, (_, q, m) => `from ${q}./${m}.mjs${q}`);
  for (const f of ["memory-ranking.ts", "text-utils.ts", "config.ts"]) writeFileSync(join(tmp, f.replace(/\.ts$/, ".mjs")), js(text[f]));

  // Pieces of index.ts, cut out of its (type-stripped) text.
  const index = strip(text["index.ts"]);
  const cut = extractHookPieces(index);
  const adapter = `// generated at run time by tests/bench/recall-legacy.mjs from ${abs}/index.ts — not part of any repository
import * as ranking from "./memory-ranking.mjs";
import * as textUtils from "./text-utils.mjs";
const { clampScore, postProcessMemories, formatMemoryLines, toJsonLog, summarizeInjectionMemories, pickMemoriesForInjection } = ranking;
const { extractLatestUserText, isTranscriptLikeIngest } = textUtils;
${cut.functions.join("\n")}
export function legacyQueryText(eventObj) {
${cut.queryText}
  return queryText;
}
export function legacyRecallGate(cfg, queryText) {
  return (${cut.gate});
}
export function legacyMergeRank(userResult, agentResult, cfg, queryText) {
${cut.core}
  return memories;
}
export async function legacyHookRecall(userResult, agentResult, cfg, queryText, api, client) {
  const prependContextParts = [];
${cut.full}
  return { memories, prependContextParts };
}
`;
  writeFileSync(join(tmp, "hook-adapter.mjs"), adapter);
  const removeTmp = () => rmSync(tmp, { recursive: true, force: true });
  if (!process.env.KEEP_LEGACY_TMP) process.on("exit", removeTmp);
  const ranking = await import(pathToFileURL(join(tmp, "memory-ranking.mjs")).href);
  const config = await import(pathToFileURL(join(tmp, "config.mjs")).href);
  const hook = await import(pathToFileURL(join(tmp, "hook-adapter.mjs")).href);
  return {
    dir: abs,
    transpiler,
    blobCheck,
    ranking,
    config,
    hook,
    extracted: cut.summary,
    cleanup: () => (process.env.KEEP_LEGACY_TMP ? console.log(`legacy temp dir kept: ${tmp}`) : removeTmp()),
  };
}

async function transpiler_() {
  if (typeof nodeModule.stripTypeScriptTypes === "function") {
    // silence the one-line ExperimentalWarning for stripTypeScriptTypes
    const emit = process.emitWarning;
    process.emitWarning = (w, ...rest) => (String(w).includes("stripTypeScriptTypes") || String(rest[0]).includes("ExperimentalWarning") ? undefined : emit.call(process, w, ...rest));
    return { strip: (src) => nodeModule.stripTypeScriptTypes(src, { mode: "strip" }), name: `node:module stripTypeScriptTypes (Node ${process.version})` };
  }
  const tsDir = process.env.TYPESCRIPT_DIR;
  if (!tsDir) die(`Node ${process.version} cannot strip TypeScript: run with Node ≥ 22.13 (e.g. Node 24), or set TYPESCRIPT_DIR (npm install --prefix /tmp/legacy-ts typescript@5; TYPESCRIPT_DIR=/tmp/legacy-ts/node_modules/typescript)`);
  const require = nodeModule.createRequire(import.meta.url);
  const ts = require(resolve(tsDir));
  return {
    strip: (src) => ts.transpileModule(src, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, verbatimModuleSyntax: false } }).outputText,
    name: `typescript ${ts.version} transpileModule`,
  };
}

/**
 * Cuts out of index.ts (JS text): the budget functions, the hook's query extraction, its
 * recall gate, and its merge → dedupe → leaf → postProcess → pick → budget → block code,
 * by anchors. Fails loudly when an anchor is missing (another version of the plugin).
 */
function extractHookPieces(src) {
  const need = (what, i) => {
    if (i < 0) die(`legacy index.ts: cannot find ${what} (is this ${LEGACY_COMMIT.slice(0, 9)}?)`);
    return i;
  };
  const functions = ["estimateTokenCount", "resolveMemoryContent", "buildMemoryLinesWithBudget"].map((name) => {
    const m = new RegExp(`(?:export\\s+)?(?:async\\s+)?function\\s+${name}\\s*\\(`).exec(src);
    const start = need(`function ${name}`, m ? m.index : -1);
    const open = src.indexOf("(", start);
    const close = matching(src, open);
    const body = src.indexOf("{", close);
    return src.slice(start, matching(src, body) + 1);
  });
  const hookAt = need(`the before_prompt_build hook`, src.indexOf(`"before_prompt_build"`));
  const qStart = need("const queryText", src.indexOf("const queryText", hookAt));
  const queryText = src.slice(qStart, statementEnd(src, qStart) + 1);
  const gateAt = need("the recall gate (queryText.length)", src.indexOf("queryText.length", qStart));
  const gateIf = src.lastIndexOf("if", gateAt);
  const gateOpen = src.indexOf("(", gateIf);
  const gate = src.slice(gateOpen + 1, matching(src, gateOpen));
  // the per-scope search limit (also the postProcess limit), declared before the two finds
  const lStart = need("const candidateLimit", src.indexOf("const candidateLimit", gateAt));
  const limitStmt = src.slice(lStart, statementEnd(src, lStart) + 1);
  const mStart = need("const allMemories", src.indexOf("const allMemories", lStart));
  const pickAt = need("pickMemoriesForInjection(", src.indexOf("pickMemoriesForInjection(", mStart));
  const core = limitStmt + "\n" + src.slice(mStart, statementEnd(src, pickAt) + 1);
  const ifAt = need("if (memories.length > 0)", src.indexOf("if (memories.length > 0)", pickAt));
  const ifBody = src.indexOf("{", src.indexOf(")", ifAt));
  const full = limitStmt + "\n" + src.slice(mStart, matching(src, ifBody) + 1);
  return {
    functions,
    queryText,
    gate,
    core,
    full,
    summary: {
      functions: ["estimateTokenCount", "resolveMemoryContent", "buildMemoryLinesWithBudget"],
      queryText: oneLine(queryText),
      limit: oneLine(limitStmt),
      gate: oneLine(gate),
      coreChars: core.length,
      fullChars: full.length,
      coreFirstLine: oneLine(core.split("\n")[0]),
    },
  };
}

/** Index of the bracket matching the one at `i` ((, [, {), skipping strings, templates and comments. */
function matching(src, i) {
  const pairs = { "(": ")", "[": "]", "{": "}" };
  const stack = [];
  for (let j = i; j < src.length; j++) {
    j = skipLiteral(src, j);
    const c = src[j];
    if (pairs[c]) stack.push(pairs[c]);
    else if (c === ")" || c === "]" || c === "}") {
      if (stack.pop() !== c) die(`legacy index.ts: unbalanced ${c} at ${j}`);
      if (stack.length === 0) return j;
    }
  }
  die("legacy index.ts: unterminated bracket");
}

/** Index of the `;` that ends the statement containing position `i` (depth 0 from `i`). */
function statementEnd(src, i) {
  let depth = 0;
  for (let j = i; j < src.length; j++) {
    j = skipLiteral(src, j);
    const c = src[j];
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") depth--;
    else if (c === ";" && depth <= 0) return j;
  }
  die("legacy index.ts: unterminated statement");
}

/** If a string/template literal or comment starts at j, the index of its last character; else j. */
function skipLiteral(src, j) {
  const c = src[j];
  if (c === '"' || c === "'") {
    for (let k = j + 1; k < src.length; k++) {
      if (src[k] === "\\") k++;
      else if (src[k] === c) return k;
    }
  } else if (c === "`") {
    for (let k = j + 1; k < src.length; k++) {
      if (src[k] === "\\") k++;
      else if (src[k] === "`") return k;
      else if (src[k] === "$" && src[k + 1] === "{") k = matching(src, k + 1);
    }
  } else if (c === "/" && src[j + 1] === "/") {
    const e = src.indexOf("\n", j);
    return e < 0 ? src.length : e;
  } else if (c === "/" && src[j + 1] === "*") {
    return src.indexOf("*/", j + 2) + 1;
  }
  return j;
}

