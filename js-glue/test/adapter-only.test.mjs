// The plugin is an adapter: OpenClaw registration, lifecycle mapping and I/O callbacks. The
// rules — which URIs, how many memories, which thresholds — are the engine's (src/), written
// once. This fails when plugin code builds viking:// URIs or reads a recall/compaction setting
// to compute with it (tests, node_modules and the generated pkg/ are not plugin code).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = new URL("..", import.meta.url).pathname;
const SKIP = new Set(["node_modules", "test", "pkg"]);

/** Settings only the engine may act on. */
const POLICY_KEYS = [
  "recallLimit", "recallScoreThreshold", "recallMaxContentChars", "recallPreferAbstract", "recallTokenBudget",
  "recentRawTurnCount", "assembleRecallWindow", "compactCommitThreshold", "memoryExpandMaxResults",
  "compactTokensAddedThreshold", "compactTurnThreshold", "compactMaxIntervalMinutes",
];
/** Settings read as a property (`targetUri` is also the name of a find parameter). */
const POLICY_PROPS = ["targetUri"];

function sources(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (SKIP.has(name)) return [];
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(m?js)$/.test(name) ? [path] : [];
  });
}

/** The code without its comments (so a comment may explain what the engine does). */
function code(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:\\])\/\/.*$/gm, "$1");
}

test("no plugin file builds a viking:// URI or computes with a recall or compaction setting", () => {
  const files = sources(ROOT);
  assert.ok(files.length >= 10, `found the plugin's files (${files.length})`);
  const found = [];
  for (const file of files) {
    const lines = code(readFileSync(file, "utf8")).split("\n");
    lines.forEach((line, i) => {
      const where = `${relative(ROOT, file)}:${i + 1}`;
      if (line.includes("viking://")) found.push(`${where}: builds a viking:// URI — ${line.trim()}`);
      for (const key of POLICY_KEYS) if (new RegExp(`\\b${key}\\b`).test(line)) found.push(`${where}: uses ${key} — ${line.trim()}`);
      for (const key of POLICY_PROPS) if (new RegExp(`config\\??\\.${key}\\b`).test(line)) found.push(`${where}: reads ${key} — ${line.trim()}`);
    });
  }
  assert.deepEqual(found, [], `policy in the plugin (move it to src/):\n${found.join("\n")}`);
});

test("only the transport and the local-server manager talk HTTP: the OpenViking protocol is the engine's", () => {
  // engine-host.js carries the engine's requests as they are; local-server.js probes what
  // listens on the local port without a key (is it OpenViking, is it this user's)
  const allowed = new Set(["engine-host.js", join("openviking", "local-server.js")]);
  const found = [];
  for (const file of sources(ROOT)) {
    const rel = relative(ROOT, file);
    if (allowed.has(rel)) continue;
    code(readFileSync(file, "utf8")).split("\n").forEach((line, i) => {
      if (/\bfetch\s*\(|X-API-Key|X-OpenViking-Agent|["'`]\/api\/v1\/[a-z/]*["'`]\s*[,)+]/.test(line)) found.push(`${rel}:${i + 1}: ${line.trim()}`);
    });
  }
  assert.deepEqual(found, [], `HTTP to OpenViking outside the transport (the protocol is src/openviking):\n${found.join("\n")}`);
});

test("the check itself finds what it looks for", () => {
  const sample = 'const uri = `viking://user/${id}/memories`; // a comment with viking:// is fine\nconst n = Math.max(config.recallLimit * 4, 20);';
  const lines = code(sample).split("\n");
  assert.ok(lines[0].includes("viking://"), "code is kept");
  assert.ok(!lines[0].includes("a comment"), "comments are dropped");
  assert.ok(/\brecallLimit\b/.test(lines[1]));
  const http = /\bfetch\s*\(|X-API-Key|X-OpenViking-Agent|["'`]\/api\/v1\/[a-z/]*["'`]\s*[,)+]/;
  assert.ok(http.test('await fetch(url, {})') && http.test('request("GET", "/api/v1/sessions", opts)') && http.test('h["X-API-Key"] = k'));
  assert.ok(!http.test('const label = "OpenViking GET /api/v1/system/status (with the API key)";'), "a label naming an endpoint is not a request");
});
