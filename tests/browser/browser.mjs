// Shared by the demo page tests: Debian's /usr/bin/chromium driven by npm playwright-core
// (from js-glue/node_modules), and www-demo/serve.mjs on a free port.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { chromium } = createRequire(join(root, "js-glue", "package.json"))("playwright-core");

const CHROMIUM = "/usr/bin/chromium";
const ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** Starts serve.mjs on port 0; resolves with { url (ending in "/"), child }. */
export function startServe() {
  return new Promise((resolveUrl, reject) => {
    const child = spawn(process.execPath, [join(root, "www-demo", "serve.mjs"), "0"], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    const timer = setTimeout(() => reject(new Error(`serve.mjs printed no URL: ${out}`)), 10_000);
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const m = out.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (m) { clearTimeout(timer); resolveUrl({ url: m[0], child }); }
    });
    child.stderr.on("data", (chunk) => { out += chunk; });
    child.on("exit", (code) => { clearTimeout(timer); reject(new Error(`serve.mjs exited (${code}): ${out}`)); });
  });
}

/** A headless Chromium with a throwaway profile; close() also removes the profile. */
export async function launchBrowser(prefix) {
  const userDataDir = await mkdtemp(join(tmpdir(), prefix));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM, headless: false, args: ARGS, viewport: { width: 1400, height: 900 },
  });
  const page = context.pages()[0] ?? await context.newPage();
  return {
    context,
    page,
    close: async () => {
      await context.close();
      await rm(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Loads the page and waits until the first results are rendered. */
export async function loadDemo(page, base) {
  await page.goto(base);
  await page.waitForSelector("body[data-ready=true]", { timeout: 20_000 });
}

/** The package the page runs (www-demo/pkg), loaded here in Node: the reference for every
 *  number it shows. */
export async function loadPkgInNode() {
  const wasm = await import(pathToFileURL(join(root, "www-demo", "pkg", "openviking_context_engine.js")).href);
  await wasm.default({ module_or_path: await readFile(join(root, "www-demo", "pkg", "openviking_context_engine_bg.wasm")) });
  return wasm;
}

/** serve.mjs and Chromium, with the page's console errors and uncaught errors pushed to
 *  `problems`. Resolves with { base, server, browser, page }. */
export async function openDemoBrowser(prefix, problems) {
  const { url: base, child: server } = await startServe();
  const browser = await launchBrowser(prefix);
  const page = browser.page;
  page.on("console", (msg) => { if (msg.type() === "error") problems.push(`console: ${msg.text()}`); });
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  return { base, server, browser, page };
}

const tok = (n) => Math.round(n).toLocaleString("en-US");

/** The recall figures the page shows: the pair's tokens and budget in the recall card, the
 *  pair's line there, the bar's recall parts, the opening message in the composed list. */
export function recallFigures(page) {
  return page.evaluate(() => {
    const n = (el, k = "tokens") => (el ? Number(el.dataset[k]) : null);
    const stat = document.getElementById("recall-tokens");
    const line = document.getElementById("recall-pair-line");
    return {
      injected: Number(document.getElementById("injected-count").textContent),
      tokens: n(stat), budget: n(stat, "budget"), statText: stat?.innerText.replace(/\s+/g, " ").trim() ?? null,
      line: line && { included: line.dataset.included === "true", memories: n(line, "memories"), skills: n(line, "skills"), opening: n(line, "opening"), text: line.innerText },
      legend: { recall: n(document.getElementById("budget-recall")), skills: n(document.getElementById("budget-skills")), recallOpening: n(document.getElementById("budget-recallOpening")) },
      opening: [...document.querySelectorAll("#composed-list li[data-kind=opening]")].map((li) => Number(li.dataset.tokens)),
      decisions: document.getElementById("decisions").innerText,
    };
  });
}

/** The recall figures agree with each other: the card's pair tokens are the bar's memories +
 *  skills parts, the opening message is counted apart, each labelled as what it is. */
export function checkRecallFigures(f, assert) {
  if (f.tokens === null) return assert.equal(f.line, null, "no recall: no pair line");
  assert.equal(f.statText, `${tok(f.tokens)} / ${tok(f.budget)} recall pair tokens (of recallTokenBudget)`);
  if (f.line.included) {
    assert.equal(f.legend.recall + f.legend.skills, f.tokens, "the pair's tokens = the bar's memories + skills parts");
    assert.deepEqual([f.line.memories, f.line.skills, f.line.opening], [f.legend.recall, f.legend.skills, f.legend.recallOpening]);
    assert.ok(f.line.opening > 0, "the pair's opening message is counted apart");
    assert.deepEqual(f.opening, [f.legend.recallOpening], "the opening message in the composed list costs what the bar shows");
    assert.ok(f.line.text.startsWith(`In the context (Token budget): recall pair = memories ${tok(f.line.memories)}`), f.line.text);
    assert.ok(f.line.text.includes(` + skills ${tok(f.line.skills)} = ${tok(f.tokens)} tokens, plus ${tok(f.line.opening)} for the one-line user message that opens the pair (not counted in recallTokenBudget).`), f.line.text);
  } else {
    assert.deepEqual([f.legend.recall, f.legend.skills, f.legend.recallOpening, f.opening.length], [0, 0, 0, 0]);
  }
  if (f.injected === 0 && f.tokens > 0) assert.match(f.decisions, /No memory injected .*: the pair carries only what is listed beside the memories/);
}

/** The status of a GET of `path` as sent, dot segments and escapes kept (fetch() normalises them). */
export async function rawGet(base, path) {
  const { request } = await import("node:http");
  const { port } = new URL(base);
  return new Promise((ok, fail) => {
    const req = request({ host: "127.0.0.1", port, path: `/${path}`, method: "GET" }, (res) => { res.resume(); ok(res.statusCode); });
    req.on("error", fail);
    req.end();
  });
}

/** Where the element `sel` is on the screen, how far the page is scrolled, how wide it is. */
export function viewBox(page, sel) {
  return page.evaluate((sel) => {
    const r = document.querySelector(sel).getBoundingClientRect();
    return { top: r.top, bottom: r.bottom, scrollY: window.scrollY, scrollWidth: document.scrollingElement.scrollWidth };
  }, sel);
}
