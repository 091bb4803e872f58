// Browser tests of the demo's live mode against a REAL OpenViking 0.5.2 (tests/openviking/
// harness.py with server.cors_origins set to the page's origin), in real headless Chromium
// (Debian's /usr/bin/chromium, npm playwright-core): the wasm HTTP host (`liveSearch`, gloo-net)
// finds a seeded memory and the page ranks it; a wrong URL and a page origin the server does
// not allow (CORS) both show the message naming the cors_origins to set; a wrong key is an
// error on the key field; the key is never stored, put in the URL or logged. Also prints the
// time of one autoRecall over 1000 candidates in the page and the page load time, and saves a
// screenshot after a live search to tests/artifacts/live.png.
//
//   node --test tests/browser/live.test.mjs      (needs pkg/ — `make build` — and the
//                                                 OpenViking venv — `.ci/install-tools.sh openviking`)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { createServer } from "node:net";
import { root, startServe as startServeChild, launchBrowser, loadDemo, recallFigures, checkRecallFigures } from "./browser.mjs";

const run = promisify(execFile);
const HARNESS = join(root, "tests", "openviking", "harness.py");
const PYTHON = process.env.PYTHON || "python3";
const T = { timeout: 90_000 };
const MEMORY = "Prefers a dark editor theme";
const SCREENSHOT = join(root, "tests", "artifacts", "live.png");

const servers = [];
let page, other, browser, ovDir, ov, allowed, blocked;
const problems = [];
const consoleText = [];

/** Starts www-demo/serve.mjs on a free port; resolves with its base URL (ending in "/"). */
async function startServe() {
  const { url, child } = await startServeChild();
  servers.push(child);
  return url;
}

async function freePort() {
  const srv = createServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

before(async () => {
  allowed = await startServe(); // the origin the server allows
  blocked = await startServe(); // same page, an origin the server does not allow
  ovDir = await mkdtemp(join(tmpdir(), "ov-live-"));
  try {
    await run(PYTHON, [HARNESS, "start", "--workdir", ovDir, "--cors-origin", allowed.slice(0, -1)], { timeout: 150_000, cwd: root });
  } catch (err) {
    throw new Error(`harness start failed: ${err.stderr || err.message}`);
  }
  ov = JSON.parse(await readFile(join(ovDir, "env.json"), "utf8"));
  const res = await fetch(`${ov.baseUrl}/api/v1/content/write`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": ov.userKey },
    body: JSON.stringify({ uri: `viking://user/${ov.userId}/memories/preferences/theme.md`, content: MEMORY, mode: "create", wait: true }),
  });
  const body = await res.json();
  assert.equal(body.status, "ok", `seeding the memory: ${JSON.stringify(body)}`);

  browser = await launchBrowser("ov-live-chromium-");
  page = browser.page;
  other = await browser.context.newPage();
  for (const p of [page, other]) {
    p.on("console", (msg) => consoleText.push(msg.text()));
    p.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  }
});

after(async () => {
  await browser?.close();
  for (const s of servers) s.kill();
  if (ovDir) {
    await run(PYTHON, [HARNESS, "stop", "--workdir", ovDir], { timeout: 60_000 }).catch(() => {});
    if (process.env.OV_TEST_KEEP !== "1") await rm(ovDir, { recursive: true, force: true });
  }
});

const load = (p, base) => loadDemo(p, base);

/** Fills the live panel and clicks Search; resolves when a status or an error is shown. */
async function liveSearch(p, { url, key = "", agent = "default" }) {
  await p.fill("#live-url", url);
  await p.fill("#live-key", key);
  await p.fill("#live-agent", agent);
  await p.click("#live-search");
  await p.waitForFunction(() => {
    const s = document.getElementById("live-status").textContent;
    return s.startsWith("Found") || document.getElementById("live-error").textContent !== "";
  }, null, { timeout: 30_000 });
}

test("live search finds the seeded memory and it becomes the ranked search results", T, async () => {
  await load(page, allowed);
  await page.fill("#prompt", "Which editor theme do I prefer: dark or light?");
  await liveSearch(page, { url: ov.baseUrl, key: ov.userKey });
  assert.equal(await page.textContent("#live-error"), "");
  const status = await page.textContent("#live-status");
  assert.match(status, new RegExp(`Found [1-9]\\d* user and \\d+ agent items for user ${ov.userId} in \\d+ ms`));
  console.log(`live search round trip (status + both scopes): ${status.match(/in (\d+) ms/)[1]} ms`);
  assert.match(await page.textContent("#data-source"), new RegExp(`search results: live ${ov.baseUrl.replace(/[.]/g, "\\.")}`));
  const rows = page.locator("#candidates tbody tr", { hasText: "theme.md" });
  assert.ok(await rows.count() >= 1, "the seeded memory is among the ranked candidates");
  assert.match(await page.innerText("#candidates"), /Prefers a dark editor theme|theme\.md/);
  assert.match(await page.innerText("#injected"), /dark editor theme/, "and it is injected");
  // the grep for the question's words found it too (src/recall/lexical.rs): marked with its rank
  assert.equal(await rows.first().getAttribute("data-grep-rank"), "1");
  assert.match(await page.textContent("#synthetic"), /dark editor theme/);
  await mkdir(dirname(SCREENSHOT), { recursive: true });
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  // the settings re-rank the live results without searching again
  checkRecallFigures(await recallFigures(page), assert);
  await page.fill("#set-recallScoreThreshold", "1");
  assert.equal(Number(await page.textContent("#injected-count")), 0);
  // no memory: the recall figures still agree, and say whose tokens they are
  checkRecallFigures(await recallFigures(page), assert);
  await page.fill("#set-recallScoreThreshold", "0.15");
  assert.ok(await page.locator("#candidates tbody tr", { hasText: "theme.md" }).count() >= 1);
  // with the lexical candidates off, the next live search sends no grep: nothing is marked
  await page.uncheck("#set-recallLexical");
  await liveSearch(page, { url: ov.baseUrl, key: ov.userKey });
  assert.equal(await page.textContent("#live-error"), "");
  assert.ok(await page.locator("#candidates tbody tr", { hasText: "theme.md" }).count() >= 1);
  assert.equal(await page.locator("#candidates tr[data-grep-rank]").count(), 0);
  await page.check("#set-recallLexical");
  assert.deepEqual(problems, []);
});

test("a wrong URL says the server could not be reached and which cors_origins to set", T, async () => {
  await load(page, allowed);
  const wrong = `http://127.0.0.1:${await freePort()}`;
  await liveSearch(page, { url: wrong, key: ov.userKey });
  const text = await page.innerText("#live-error");
  assert.match(text, new RegExp(`the browser could not reach ${wrong.replace(/[.]/g, "\\.")} — is the server running, and does its server\\.cors_origins include ${allowed.slice(0, -1).replace(/[.]/g, "\\.")}\\?`));
  assert.match(await page.innerText("#live-cors-hint"), new RegExp(`"cors_origins": \\["${allowed.slice(0, -1).replace(/[.]/g, "\\.")}"\\]`));
  assert.ok(await page.locator("#live-url.invalid").count() === 1, "the URL field is marked");
  assert.equal(await page.textContent("#live-status"), "");
  assert.doesNotMatch(text, new RegExp(ov.userKey));
});

test("a page origin the server does not allow (CORS) gets the same clear message", T, async () => {
  await load(other, blocked);
  await liveSearch(other, { url: ov.baseUrl, key: ov.userKey });
  const text = await other.innerText("#live-error");
  assert.match(text, new RegExp(`could not reach ${ov.baseUrl.replace(/[.]/g, "\\.")} .*server\\.cors_origins include ${blocked.slice(0, -1).replace(/[.]/g, "\\.")}\\?`));
  assert.match(await other.innerText("#live-cors-hint"), new RegExp(blocked.slice(0, -1).replace(/[.]/g, "\\.")));
  assert.doesNotMatch(text, new RegExp(ov.userKey));
});

test("a wrong key is an HTTP error on the key field, without the key", T, async () => {
  await load(page, allowed);
  const wrongKey = `wrong-${ov.userKey.slice(0, 12)}-key`;
  await liveSearch(page, { url: ov.baseUrl, key: wrongKey });
  const text = await page.innerText("#live-error");
  assert.match(text, /HTTP 401|HTTP 403/);
  assert.match(text, /check the API key/);
  assert.ok(!text.includes(wrongKey));
  assert.ok(await page.locator("#live-key.invalid").count() === 1);
  // bad input is refused before any request
  await liveSearch(page, { url: "127.0.0.1:1933", key: ov.userKey });
  assert.match(await page.innerText("#live-error"), /baseUrl: must start with http:\/\/ or https:\/\//);
});

test("a server that never answers is a timeout error, and the engine lives on", T, async () => {
  await load(page, allowed);
  const sockets = new Set();
  const hang = createServer((sock) => { sockets.add(sock); sock.on("error", () => {}); });
  await new Promise((r) => hang.listen(0, "127.0.0.1", r));
  try {
    const url = `http://127.0.0.1:${hang.address().port}`;
    const err = await page.evaluate(async ({ url, key }) => {
      const m = await import("/pkg/openviking_context_engine.js");
      const t0 = performance.now();
      try {
        await m.liveSearch({ baseUrl: url, apiKey: key, query: "dark theme", timeoutMs: 800 });
        return null;
      } catch (e) {
        return { isError: e instanceof Error, code: e.code, field: e.field, message: e.message, ms: performance.now() - t0, alive: m.estimateTokens("still alive") > 0 };
      }
    }, { url, key: ov.userKey });
    assert.ok(err && err.isError, JSON.stringify(err));
    assert.equal(err.code, "HOST_TIMEOUT");
    assert.equal(err.field, "baseUrl");
    assert.match(err.message, /did not answer within 0\.8 s/);
    assert.ok(err.ms < 5000, `${err.ms} ms`);
    assert.ok(err.alive, "no panic: the wasm instance still works");
    assert.ok(!err.message.includes(ov.userKey));
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise((r) => hang.close(r));
  }
});

test("the key is never stored, put in the URL or logged", T, async () => {
  await load(page, allowed);
  await liveSearch(page, { url: ov.baseUrl, key: ov.userKey });
  assert.match(await page.textContent("#live-status"), /^Found/);
  for (const p of [page, other]) {
    const state = await p.evaluate(() => ({
      local: JSON.stringify({ ...localStorage }), session: JSON.stringify({ ...sessionStorage }),
      url: location.href, cookie: document.cookie, history: history.length,
    }));
    assert.ok(!state.local.includes(ov.userKey), "localStorage");
    assert.ok(!state.session.includes(ov.userKey), "sessionStorage");
    assert.ok(!state.url.includes(ov.userKey) && !p.url().includes(ov.userKey), "URL");
    assert.ok(!state.cookie.includes(ov.userKey), "cookie");
  }
  // a reload does not bring it back
  await load(page, allowed);
  assert.equal(await page.inputValue("#live-key"), "");
  assert.ok(!consoleText.some((t) => t.includes(ov.userKey)), "console");
  assert.deepEqual(problems, []);
});

test("timing: one autoRecall over 1000 candidates in the page, and the page load", T, async () => {
  await load(page, allowed);
  const loadMs = await page.evaluate(() => performance.getEntriesByName("results-rendered")[0].startTime);
  const rerank = await page.evaluate(async () => {
    const m = await import("/pkg/openviking_context_engine.js");
    const engine = new m.Engine({}, {});
    const words = ["postgres", "pool", "timeout", "theme", "dark", "editor", "migration", "index", "staging", "deploy", "cache", "query"];
    let seed = 42;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const item = (scope, i) => ({
      uri: `viking://${scope}/memories/generated/m${i}.md`, level: i % 10 === 0 ? 1 : 2, score: rnd(), category: "preferences",
      abstract: Array.from({ length: 12 + (i % 20) }, () => words[Math.floor(rnd() * words.length)]).join(" "),
    });
    const search = {
      user: { memories: Array.from({ length: 800 }, (_, i) => item("user/u", i)) },
      agent: { memories: Array.from({ length: 200 }, (_, i) => item("agent", i)) },
    };
    const request = { prompt: "Why does the staging postgres pool time out after the migration?", messages: [], search, nowMs: 1795165923000, explain: true };
    engine.autoRecall(request); // warm-up
    const times = [];
    let out;
    for (let i = 0; i < 15; i++) {
      const t0 = performance.now();
      out = engine.autoRecall(request);
      times.push(performance.now() - t0);
    }
    engine.free();
    times.sort((a, b) => a - b);
    return { median: times[7], min: times[0], max: times[14], explained: out.recall.explain.length, injected: out.recall.memories.length };
  });
  assert.equal(rerank.explained, 1000, "every candidate has an explain record");
  assert.ok(rerank.injected > 0);
  console.log(`autoRecall over 1000 candidates in the page: median ${rerank.median.toFixed(2)} ms (min ${rerank.min.toFixed(2)}, max ${rerank.max.toFixed(2)}, 15 runs)`);
  console.log(`page load (navigation start → results rendered): ${loadMs.toFixed(0)} ms`);
});
