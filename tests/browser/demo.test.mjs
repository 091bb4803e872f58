// Browser tests of the recall-tuning demo (www-demo/) in real headless Chromium (Debian's
// /usr/bin/chromium driven by npm playwright-core from js-glue/node_modules). Starts
// www-demo/serve.mjs on a free port, then checks: the page loads clean; the settings move
// the results (threshold, token budget); the export snippet round-trips through parseConfig;
// bad input is reported on the page; the Chinese sample and the replay work. Prints the page
// load time and saves a screenshot to tests/artifacts/demo.png.
//
//   node --test tests/browser/        (needs pkg/: `make build`)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { root, startServe, launchBrowser, loadDemo } from "./browser.mjs";

const SCREENSHOT = join(root, "tests", "artifacts", "demo.png");
const T = { timeout: 60_000 };

let server, base, browser, page;
const problems = [];

before(async () => {
  ({ url: base, child: server } = await startServe());
  browser = await launchBrowser("ov-demo-chromium-");
  page = browser.page;
  page.on("console", (msg) => { if (msg.type() === "error") problems.push(`console: ${msg.text()}`); });
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
});

after(async () => {
  await browser?.close();
  server?.kill();
});

/** A fresh load of the page, waiting until the first results are rendered. */
const load = () => loadDemo(page, base);

/** Waits until the element shows text matching re (for results that arrive asynchronously). */
const shows = (selector, re) => page.locator(selector, { hasText: re }).waitFor({ timeout: 10_000 });

const injected = async () => Number(await page.textContent("#injected-count"));

test("serve.mjs: wasm MIME type, the two folders only", T, async () => {
  const wasm = await fetch(`${base}pkg/openviking_context_engine_bg.wasm`);
  assert.equal(wasm.status, 200);
  assert.equal(wasm.headers.get("content-type"), "application/wasm");
  assert.match((await fetch(base)).headers.get("content-type"), /^text\/html/);
  assert.match((await fetch(`${base}demo.js`)).headers.get("content-type"), /^text\/javascript/);
  for (const path of ["../README.md", "%2e%2e/README.md", "pkg/%2e%2e/README.md", "pkg/%2e%2e/Cargo.toml", "..%2fREADME.md", "%2e%2e%2f%2e%2e%2fetc/passwd"]) {
    // fetch() normalises dot segments, so send the raw path through a plain HTTP request line
    const res = await rawGet(path);
    assert.equal(res, 404, path);
  }
});

async function rawGet(path) {
  const { request } = await import("node:http");
  const { port } = new URL(base);
  return new Promise((ok, fail) => {
    const req = request({ host: "127.0.0.1", port, path: `/${path}`, method: "GET" }, (res) => { res.resume(); ok(res.statusCode); });
    req.on("error", fail);
    req.end();
  });
}

test("the page loads and renders results with no console or page errors", T, async () => {
  await load();
  const ms = await page.evaluate(() => performance.getEntriesByName("results-rendered")[0].startTime);
  console.log(`page load (navigation start → results rendered): ${ms.toFixed(0)} ms`);
  assert.equal(await injected(), 6);
  assert.ok(await page.locator("#candidates tbody tr").count() > 10);
  assert.match(await page.textContent("#query-text"), /PG_POOL_MAX/);
  assert.match(await page.textContent("#synthetic"), /memory_recall_auto/);
  assert.match(await page.textContent("#budget-summaries"), /summaries 0/);
  assert.match(await page.textContent("#final-summary"), /Final messages \(18: 16 from the transcript \+ the synthetic pair\)/);
  assert.equal(await page.isVisible("#final pre"), false, "collapsed at first");
  await page.click("#final-summary");
  assert.match(await page.textContent("#final pre"), /"toolName": "memory_recall_auto"/);
  assert.match(await page.textContent("footer"), /Live mode queries your OpenViking server directly from this page/);
  assert.equal(await page.isVisible("#engine-error"), false);
  assert.deepEqual(problems, []);
});

test("raising the score threshold lowers the injected count", T, async () => {
  await load();
  const before = await injected();
  await page.fill("#set-recallScoreThreshold", "0.7");
  const after = await injected();
  assert.ok(after < before, `${after} < ${before}`);
  assert.ok(await page.locator("#candidates tr[data-reason=below_threshold]").count() > 0);
  await page.fill("#set-recallScoreThreshold", "0.95");
  assert.equal(await injected(), 0);
});

test("lowering the recall token budget cuts items as over_budget, shown on the page", T, async () => {
  await load();
  assert.equal(await page.locator("#candidates tr[data-reason=over_budget]").count(), 0);
  const before = await injected();
  await page.fill("#set-recallTokenBudget", "300");
  const cut = page.locator("#candidates tr[data-reason=over_budget]");
  assert.ok(await cut.count() > 0);
  assert.match(await cut.first().innerText(), /over_budget/);
  assert.ok(await page.locator("#cut-reasons").innerText().then((t) => t.includes("over_budget")));
  assert.ok(await injected() < before);
  assert.match(await page.textContent("#budget-recall"), /recall \d+/);
});

test("the export snippet parses and round-trips through parseConfig without warnings", T, async () => {
  await load();
  await page.fill("#set-recallLimit", "4");
  await page.fill("#set-recallScoreThreshold", "0.3");
  await page.fill("#set-recallMaxContentChars", "320");
  await page.fill("#set-recallTokenBudget", "1500");
  await page.fill("#set-assembleRecallWindow", "3");
  await page.fill("#set-recentRawTurnCount", "2");
  await page.uncheck("#set-recallPreferAbstract");
  const text = await page.inputValue("#export");
  const snippet = JSON.parse(text);
  assert.equal(snippet.apiKey, undefined);
  assert.doesNotMatch(text, /apiKey/);
  const expected = { recallLimit: 4, recallScoreThreshold: 0.3, recallMaxContentChars: 320, recallPreferAbstract: false, recallTokenBudget: 1500, assembleRecallWindow: 3, recentRawTurnCount: 2 };
  for (const [k, v] of Object.entries(expected)) assert.equal(snippet[k], v, k);
  const parsed = await page.evaluate(async (s) => {
    const m = await import("/pkg/openviking_context_engine.js");
    return m.parseConfig(s, {});
  }, snippet);
  assert.deepEqual(parsed.warnings, []);
  for (const [k, v] of Object.entries(snippet)) assert.deepEqual(parsed.config[k], v, k);
  await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base.slice(0, -1) });
  await page.click("#copy-export");
  await page.waitForFunction(() => document.getElementById("copy-status").textContent !== "");
  if ((await page.textContent("#copy-status")) === "Copied.") {
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), text);
  }
});

test("bad input shows a clear message on the page", T, async () => {
  await load();
  await page.click("#search-box summary");
  await page.fill("#search-input", "{not json");
  await page.click("#search-apply");
  assert.match(await page.innerText("#search-error"), /Search results is not valid JSON/);
  await page.fill("#search-input", '{"user": 5}');
  await page.click("#search-apply");
  assert.match(await page.innerText("#search-error"), /"user" must be a find result object or an array/);
  assert.equal(await injected(), 6, "bad input is not applied");

  await page.click("#transcript-box summary");
  await page.fill("#transcript-input", '{"role":"user","content":"hello there"}\n{"role": oops}');
  await page.click("#transcript-apply");
  assert.match(await page.innerText("#transcript-error"), /line 2 is not valid JSON/);
  await page.fill("#transcript-input", '[{"content":"no role"}]');
  await page.click("#transcript-apply");
  assert.match(await page.innerText("#transcript-error"), /message \[0\] is not an AgentMessage/);
  await page.setInputFiles("#transcript-file", { name: "huge.jsonl", mimeType: "application/json", buffer: Buffer.alloc(5 * 1024 * 1024 + 1, 32) });
  await shows("#transcript-error", /huge\.jsonl is 5\.0 MB; the demo accepts files up to 5\.0 MB/);

  // a shape only the engine rejects: its code and field are shown
  await page.fill("#search-input", '{"user": {"memories": [1]}, "agent": {"memories": "x"}}');
  await page.click("#search-apply");
  assert.match(await page.innerText("#search-error"), /"agent\.memories" must be an array/);
  await page.fill("#set-recallLimit", "1.5");
  await page.waitForSelector("#engine-error:not([hidden])");
  assert.match(await page.innerText("#engine-error"), /INVALID_CONFIG/);
  assert.equal(await page.textContent("#error-field"), "recallLimit");
  await page.fill("#set-recallLimit", "6");
  assert.equal(await page.isVisible("#engine-error"), false);
  assert.deepEqual(problems, []);
});

test("own data: an uploaded JSONL transcript and pasted search items drive the results", T, async () => {
  await load();
  const sample = JSON.parse(await readFile(join(root, "www-demo", "samples", "en.json"), "utf8"));
  const jsonl = [...sample.messages, { role: "user", content: sample.prompt, timestamp: 1 }].map((m) => JSON.stringify(m)).join("\n");
  await page.click("#transcript-box summary");
  await page.setInputFiles("#transcript-file", { name: "session.jsonl", mimeType: "application/json", buffer: Buffer.from(jsonl) });
  await shows("#transcript-status", /Loaded 17 messages \(6 turns\)/);
  assert.equal(await page.inputValue("#prompt"), sample.prompt);
  assert.equal(await injected(), 6);
  assert.match(await page.textContent("#data-source"), /transcript: file session\.jsonl/);
  await page.click("#search-box summary");
  const items = { user: sample.search.user.memories.slice(0, 2), agent: [] };
  await page.fill("#search-input", JSON.stringify(items));
  await page.click("#search-apply");
  assert.match(await page.innerText("#search-status"), /Loaded 2 user and 0 agent items/);
  assert.equal(await page.locator("#candidates tbody tr").count(), 2);
  assert.deepEqual(problems, []);
});

test("the Chinese sample works", T, async () => {
  await load();
  await page.selectOption("#sample", "zh");
  await page.waitForFunction(() => document.getElementById("query-text").textContent.includes("订单列表"));
  assert.ok(await injected() > 0);
  assert.match(await page.innerText("#injected"), /联合索引/);
  assert.match(await page.textContent("#data-source"), /订单列表慢查询/);
  assert.match(await page.textContent("#synthetic"), /memory_recall_auto/);
  assert.equal(await page.isVisible("#engine-error"), false);
});

test("the replay steps through the transcript turn by turn", T, async () => {
  await load();
  assert.equal(await page.textContent("#replay-position"), "Turn 1 of 6");
  assert.equal(await page.textContent("#replay-prompt"), "hi");
  assert.ok(await page.isDisabled("#replay-prev"));
  await page.click("#replay-next");
  assert.equal(await page.textContent("#replay-position"), "Turn 2 of 6");
  assert.match(await page.textContent("#replay-prompt"), /nightly migration job/);
  assert.ok(await page.locator("#replay-memories li").count() > 0);
  await page.click("#replay-strip button >> nth=5");
  assert.equal(await page.textContent("#replay-position"), "Turn 6 of 6");
  assert.ok(await page.isDisabled("#replay-next"));
  assert.equal(await page.locator("#replay-memories li").count(), await injected());
  await page.click("#replay-prev");
  assert.equal(await page.textContent("#replay-position"), "Turn 5 of 6");
  const timeline = await page.innerText("#trigger-timeline");
  assert.match(timeline, /compaction triggers: \d+ compactions? over 5 turns/i);
  assert.equal(await page.locator("#trigger-timeline li").count(), 5);
  // a low turn threshold makes compactions fire on the timeline
  await page.fill("#set-compactTurnThreshold", "1");
  await page.waitForFunction(() => document.querySelectorAll("#trigger-timeline li.fires").length > 0);
  assert.match(await page.innerText("#trigger-timeline"), /→ compaction: \d+ counted turns ≥ 1/);
});

test("the replay of a long transcript uses a slider", T, async () => {
  await load();
  const turns = [];
  for (let i = 0; i < 45; i++) {
    turns.push({ role: "user", content: `Question ${i} about the staging Postgres pool size and migrations` });
    turns.push({ role: "assistant", content: [{ type: "text", text: `Answer ${i}` }] });
  }
  await page.click("#transcript-box summary");
  await page.fill("#transcript-input", JSON.stringify(turns));
  await page.click("#transcript-apply");
  await shows("#transcript-status", /Loaded 90 messages \(45 turns\)/);
  assert.equal(await page.locator("#replay-strip .chip").count(), 0);
  await page.fill("#replay-slider", "30");
  assert.equal(await page.textContent("#replay-position"), "Turn 30 of 45");
  assert.equal(await page.textContent("#replay-prompt"), "Question 29 about the staging Postgres pool size and migrations");
  await page.click("#replay-next");
  assert.equal(await page.inputValue("#replay-slider"), "31");
  assert.deepEqual(problems, []);
});

test("without a built engine the page says how to build it", T, async () => {
  const other = await browser.context.newPage();
  try {
    await other.route("**/pkg/openviking_context_engine.js", (route) => route.fulfill({ status: 404, body: "not found" }));
    await other.goto(base);
    await other.locator("#fatal", { hasText: /make build/ }).waitFor({ timeout: 10_000 });
    assert.equal(await other.isVisible("#app"), false);
  } finally {
    await other.close();
  }
});

test("screenshot saved to tests/artifacts/demo.png", T, async () => {
  await load();
  await mkdir(dirname(SCREENSHOT), { recursive: true });
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  const png = await readFile(SCREENSHOT);
  assert.equal(png.subarray(1, 4).toString(), "PNG");
  console.log(`screenshot: ${SCREENSHOT}`);
});

test("no console errors or page errors during the whole session", T, () => {
  assert.deepEqual(problems, []);
});
