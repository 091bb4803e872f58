// Browser tests of the recall-tuning demo (www-demo/) in real headless Chromium (Debian's
// /usr/bin/chromium driven by npm playwright-core from js-glue/node_modules). Starts
// www-demo/serve.mjs on a free port, then checks: the page loads clean; the settings move
// the results (threshold, token budget); the budget bar, the composed context and what was
// trimmed are the engine's own numbers — the same pkg/ loaded here in Node, called on the same
// sample, must give exactly what the page shows (the compacted sample's summary included, and
// a lower host budget trimming; the experience, skills and map of folders with their tokens and
// why, moved by skillLimit, memoryMapTokenBudget, recallTokenBudget; the recall pair's tokens =
// the bar's memories + skills parts); the export round-trips through parseConfig; bad input is
// reported; a clamped value's warning and value in effect beside its field; on a phone the key
// results stay in view while a setting is edited; own transcripts with and without checkpoints; the Chinese sample
// and the timeline work. Prints the page load time and saves a screenshot (the compacted
// sample) to tests/artifacts/demo.png.
//
//   node --test tests/browser/        (needs pkg/: `make build`)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdir, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { root, loadDemo, loadPkgInNode, openDemoBrowser, rawGet, viewBox } from "./browser.mjs";
import { engineFigures, extrasOf, readSample, lastTimestamp } from "./engine-figures.mjs";

const SCREENSHOT = join(root, "tests", "artifacts", "demo.png");
const T = { timeout: 60_000 };

let server, base, browser, page, wasm, engineOut, shown, assertShows;
const problems = [];

before(async () => {
  // the same package the page runs, in Node: the reference for every number the page shows
  wasm = await loadPkgInNode();
  ({ base, server, browser, page } = await openDemoBrowser("ov-demo-chromium-", problems));
  ({ engineOut, shown, assertShows } = engineFigures(page, wasm));
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
const extrasShown = () => extrasOf(page);

test("serve.mjs: wasm MIME type, the two folders only", T, async () => {
  const wasm = await fetch(`${base}pkg/openviking_context_engine_bg.wasm`);
  assert.equal(wasm.status, 200);
  assert.equal(wasm.headers.get("content-type"), "application/wasm");
  assert.match((await fetch(base)).headers.get("content-type"), /^text\/html/);
  assert.match((await fetch(`${base}demo.js`)).headers.get("content-type"), /^text\/javascript/);
  // (www-demo/ has a README.md of its own, so the escapes aim at files only the top level has)
  for (const path of ["../Cargo.toml", "%2e%2e/Makefile", "pkg/%2e%2e/Cargo.toml", "pkg/%2e%2e/%2e%2e/Makefile", "..%2fCargo.toml", "%2e%2e%2f%2e%2e%2fetc/passwd"]) {
    // fetch() normalises dot segments, so send the raw path through a plain HTTP request line
    const res = await rawGet(base, path);
    assert.equal(res, 404, path);
  }
});

test("the page loads and renders results with no console or page errors", T, async () => {
  await load();
  const ms = await page.evaluate(() => performance.getEntriesByName("results-rendered")[0].startTime);
  console.log(`page load (navigation start → results rendered): ${ms.toFixed(0)} ms`);
  // the three memories about the question (the pool decision, the pool exhaustion case, the
  // migration workflow) and the stable profile; the rest share no query word, score more than
  // 0.1 below the best, or duplicate one
  assert.equal(await injected(), 4);
  assert.ok(await page.locator("#candidates tbody tr").count() > 10);
  assert.ok(await page.locator("#candidates tr[data-reason=no_query_word]").count() > 0);
  assert.ok(await page.locator("#candidates tr[data-reason=far_below_best]").count() > 0);
  assert.match(await page.textContent("#query-text"), /PG_POOL_MAX/);
  assert.match(await page.textContent("#synthetic"), /memory_recall_auto/);
  assert.match(await page.textContent("#budget-summary"), /summary 0/);
  assert.match(await page.textContent("#final-summary"), /Final messages \(19: 16 raw \+ the synthetic pair; the current prompt goes apart\)/);
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
  // no memory, but the pair still lists the skills: its tokens are said to be theirs
  const out = await engineOut(await readSample("en"));
  assert.ok(out.recall.memories.length === 0 && out.recall.tokens > 0 && out.split.skills === out.recall.tokens, JSON.stringify(out.split));
  await assertShows(out);
  assert.match(await page.innerText("#decisions"), /^0 memories injected/);
});

test("lowering the recall token budget cuts items as over_budget, shown on the page", T, async () => {
  await load();
  assert.equal(await page.locator("#candidates tr[data-reason=over_budget]").count(), 0);
  const before = await injected();
  await page.fill("#set-recallTokenBudget", "120");
  const cut = page.locator("#candidates tr[data-reason=over_budget]");
  assert.ok(await cut.count() > 0);
  assert.match(await cut.first().innerText(), /over_budget/);
  assert.ok(await page.locator("#cut-reasons").innerText().then((t) => t.includes("over_budget")));
  assert.ok(await injected() < before);
  assert.match(await page.textContent("#budget-recall"), /recall pair: memories \d+/);
});

test("the budget bar and the composed context are the engine's assemble, number for number", T, async () => {
  await load();
  const sample = await readSample("en");
  const out = await engineOut(sample);
  assert.equal(out.compactSummaries.length, 0, "the plain sample has no checkpoint");
  await assertShows(out);
  assert.match(await page.innerText("#composed-line"), new RegExp(`^${out.recentRawTurns} raw turns \\(\\d+ messages\\) · the recall pair with its opening message · the current turn: ${out.estimatedTokens.toLocaleString("en-US")} tokens in all$`));
  assert.equal(await page.locator("#composed-list li[data-kind=summary]").count(), 0);
  assert.equal(await page.textContent("#composed-list li[data-kind=current] .text"), `${sample.prompt} · the prompt, sent by the host apart from the messages`);
  assert.match(await page.innerText("#budget-summary"), /no compact summary/);
  // a setting the composition depends on: fewer raw turns kept raw changes nothing without a
  // summary (nothing stands in for the older turns), exactly as the engine says
  await page.fill("#set-recentRawTurnCount", "2");
  await assertShows(await engineOut(sample));
  assert.deepEqual(problems, []);
});

test("experiences, skills and the map of folders: shown with the engine's tokens and why, and moved by the settings", T, async () => {
  await load();
  const sample = await readSample("en");
  let out = await engineOut(sample);
  // the default view shows all three, each with the engine's numbers
  assert.ok(out.split.skills > 0 && out.split.map > 0 && out.recall.experienceTokens > 0, JSON.stringify(out.split));
  await assertShows(out);
  let shown = await extrasShown();
  const exp = shown.filter((x) => x.part === "experience");
  assert.deepEqual(exp.map((x) => [x.uri, x.decision, Number(x.tokens)]), out.recall.experiences.map((x) => [x.uri, x.decision, x.tokens ?? 0]));
  assert.ok(exp.some((x) => x.decision === "kept" && Number(x.tokens) > 0));
  const kept = out.recall.experiences.find((x) => x.decision === "kept");
  assert.ok(kept.why.length > 0);
  assert.ok((await page.innerText("#budget-extras")).includes(`why: ${kept.why.join("; ")}`));
  const skills = shown.filter((x) => x.part === "skill");
  assert.equal(skills.length, 2);
  assert.deepEqual(skills.map((x) => [x.uri, Number(x.tokens), Number(x.score)]), out.skills.map((x) => [x.uri, x.tokens, x.score]));
  assert.equal(skills.reduce((a, x) => a + Number(x.tokens), 0), out.split.skills);
  const map = shown.find((x) => x.part === "map");
  assert.deepEqual([Number(map.tokens), Number(map.listed), Number(map.leftOut)], [out.map.tokens, out.map.listed, out.map.leftOut]);
  assert.equal(Number(map.tokens), out.split.map);
  assert.match(await page.innerText("#budget-recall"), /experience lines/);
  assert.ok((await page.textContent("#system-addition pre")).includes(out.map.text));
  // skillLimit 1: one skill, the engine's
  await page.fill("#set-skillLimit", "1");
  out = await engineOut(sample);
  assert.equal(out.skills.length, 1);
  await assertShows(out);
  shown = await extrasShown();
  assert.deepEqual(shown.filter((x) => x.part === "skill").map((x) => Number(x.tokens)), [out.split.skills]);
  // a small map budget: fewer entries listed, the rest counted as left out
  const before = out.map;
  await page.fill("#set-memoryMapTokenBudget", "60");
  out = await engineOut(sample);
  assert.ok(out.map.tokens < before.tokens && out.map.leftOut > before.leftOut, JSON.stringify(out.map));
  await assertShows(out);
  shown = await extrasShown();
  const m2 = shown.find((x) => x.part === "map");
  assert.deepEqual([Number(m2.tokens), Number(m2.leftOut)], [out.map.tokens, out.map.leftOut]);
  // a recall budget too small for the experience line: cut, and so shown
  await page.fill("#set-recallTokenBudget", "60");
  out = await engineOut(sample);
  await assertShows(out);
  shown = await extrasShown();
  assert.deepEqual(shown.filter((x) => x.part === "experience").map((x) => [x.decision, x.reason ?? null]), out.recall.experiences.map((x) => [x.decision, x.reason]));
  assert.ok(out.recall.experiences.length > 0 && out.recall.experiences.every((x) => x.decision === "cut"), JSON.stringify(out.recall.experiences));
});

test("the compacted sample: a checkpoint summary stands for the older turns", T, async () => {
  await load();
  await page.selectOption("#sample", "en-compacted");
  await page.waitForSelector("#composed-list li[data-kind=summary]");
  const sample = await readSample("en-compacted");
  assert.equal(sample.nextSequence, sample.messages.filter((m) => m.role === "user").length, "nextSequence = the turns so far");
  assert.match(sample.summaries[0].text, /^# Working Memory\n/);
  const out = await engineOut(sample);
  assert.equal(out.compactSummaries.length, 1);
  assert.deepEqual(out.compactSummaries[0].turns, [0, 5]);
  assert.ok(out.split.summary > 0 && out.summarizedTurns === 6, JSON.stringify(out.split));
  const s = await assertShows(out);
  assert.equal(s.list[0].role, "user");
  assert.match(await page.innerText("#composed-list li[data-kind=summary] .badge"), /summary · seq 0–5/);
  await page.click("#composed-list li[data-kind=summary] summary");
  const text = await page.textContent("#composed-summary-text");
  assert.equal(text, out.messages[0].content[0].text, "the summary message exactly as the engine composed it");
  assert.match(text, /^<conversation-summary checkpoint="ckpt-default--ledgerline-staging-001" turns="0-5">/);
  assert.match(text, /# Working Memory[\s\S]*## Current State[\s\S]*## Open Issues/);
  assert.match(await page.innerText("#budget-summary"), /checkpoint ckpt-default--ledgerline-staging-001: turn sequences 0–5, standing for 6 earlier turns/);
  assert.match(await page.innerText("#composed-line"), /^1 summary message \(for 6 earlier turns\) · 8 raw turns/);
  // the covered turns are not in the context raw; the recent ones are
  const listText = await page.innerText("#composed-list");
  assert.doesNotMatch(listText, /The nightly migration job for ledgerline failed/);
  assert.match(listText, /Go ahead and run it\./);
  await page.click("#system-addition summary");
  assert.equal(await page.textContent("#system-addition pre"), out.systemPromptAddition);
  assert.match(out.systemPromptAddition, /Current state: .*pool starvation/);
  assert.match(await page.textContent("#data-source"), /1 checkpoint summary/);
  assert.match(await page.textContent("#final-summary"), new RegExp(`^Final messages \\(${out.messages.length}: the summary \\+ ${out.messages.length - 4} raw \\+ the synthetic pair;`));
  // the trigger timeline: the engine's interval trigger fires on the sixth turn, the last
  // one the bundled checkpoint covers (endSequence 5)
  assert.match(await page.innerText("#trigger-timeline"), /1 compaction over 14 turns/i);
  const fires = page.locator("#trigger-timeline li.fires");
  assert.equal(await fires.count(), 1);
  assert.match(await fires.innerText(), /^turn 6: counted .*→ compaction: interval \(minutes \d+, threshold 30\)/);
  assert.deepEqual(problems, []);
});

test("lowering the host budget trims exactly what the engine trims", T, async () => {
  await load();
  await page.selectOption("#sample", "en-compacted");
  await page.waitForSelector("#composed-list li[data-kind=summary]");
  const sample = await readSample("en-compacted");
  await assertShows(await engineOut(sample));
  assert.equal(await page.textContent("#trimmed-rawTurns strong"), "0");

  await page.fill("#set-hostTokenBudget", "2000");
  const at2000 = await engineOut(sample, { tokenBudget: 2000 });
  assert.ok(at2000.trimmed.rawTurns > 0, JSON.stringify(at2000.trimmed));
  await page.waitForFunction((n) => document.getElementById("trimmed-rawTurns").dataset.value === String(n), at2000.trimmed.rawTurns);
  await assertShows(at2000);
  assert.equal(await page.textContent("#trimmed-rawTurns strong"), String(at2000.trimmed.rawTurns));
  assert.match(await page.innerText("#budget-raw"), new RegExp(`the ${at2000.trimmed.rawTurns} oldest trimmed to fit`));

  // lower, and the recall pair goes too (the compact pair is small: raw turns go first)
  await page.fill("#set-hostTokenBudget", "1200");
  await shows("#trimmed-recall", /yes/);
  const at1200 = await engineOut(sample, { tokenBudget: 1200 });
  assert.ok(at1200.trimmed.recall, JSON.stringify(at1200.trimmed));
  await assertShows(at1200);
  assert.ok(await page.isVisible("#recall-trimmed"), "the recall card says the pair was trimmed");
  assert.ok(await page.isVisible("#synthetic-trimmed"));
  assert.equal(await page.locator("#composed-list li[data-kind=recall]").count(), 0);

  await page.fill("#set-hostTokenBudget", "1000");
  const at1000 = await engineOut(sample, { tokenBudget: 1000 });
  await page.waitForFunction((n) => document.getElementById("trimmed-rawTurns").dataset.value === String(n), at1000.trimmed.rawTurns);
  assert.ok(at1000.trimmed.rawTurns > at2000.trimmed.rawTurns);
  await assertShows(at1000);
  assert.equal(await page.locator("#composed-list li[data-kind=summary]").count(), at1000.trimmed.latestSummary ? 0 : 1);

  // a current turn larger than the budget: never trimmed, so the context is over budget
  const prompt = `Please review this migration plan in detail: ${"we backfill invoice totals in batches of five thousand rows and then verify the sums per customer; ".repeat(60)}`;
  await page.fill("#prompt", prompt);
  const over = await engineOut(sample, { tokenBudget: 1000, prompt });
  assert.ok(over.overBudget, "the engine reports overBudget");
  await page.waitForSelector("#budget-over");
  await assertShows(over);
  assert.match(await page.innerText("#budget-over"), new RegExp(`Over the host budget by ${(over.estimatedTokens - 1000).toLocaleString("en-US")} tokens`));
  assert.equal(await page.isVisible("#engine-error"), false);
  assert.deepEqual(problems, []);
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
  // only the keys the user changed: no mode, port or agentId default that would turn a remote
  // install pasting it into a local one
  assert.deepEqual(snippet, expected);
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
  assert.equal(await injected(), 4, "bad input is not applied");

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
  // a value the engine cannot take as typed: its warning names the key, the value and the fix,
  // and the engine runs with the default (the plugin config fails soft)
  await page.fill("#set-recallLimit", "1.5");
  await page.waitForSelector("#warnings:not([hidden])");
  assert.match(await page.innerText("#warnings"), /recallLimit=1\.5 is not a whole number; using the default 6 — fix: set recallLimit to a whole number from 1 to 100/);
  assert.equal(await page.isVisible("#engine-error"), false);
  await page.fill("#set-recallLimit", "6");
  await page.waitForSelector("#warnings", { state: "hidden" });
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
  assert.equal(await injected(), 4);
  assert.match(await page.textContent("#data-source"), /transcript: file session\.jsonl/);
  await page.click("#search-box summary");
  const items = { user: sample.search.user.memories.slice(0, 2), agent: [] };
  await page.fill("#search-input", JSON.stringify(items));
  await page.click("#search-apply");
  assert.match(await page.innerText("#search-status"), /Loaded 2 user and 0 agent items/);
  assert.equal(await page.locator("#candidates tbody tr").count(), 2);
  assert.deepEqual(problems, []);
});

test("own transcripts: without checkpoints no summary; a session object brings its own", T, async () => {
  await load();
  await page.selectOption("#sample", "en-compacted");
  await page.waitForSelector("#composed-list li[data-kind=summary]");
  const sample = await readSample("en-compacted");
  await page.click("#transcript-box summary");
  // a plain list of messages: no checkpoint, so no summary and every turn within the budget raw
  await page.fill("#transcript-input", JSON.stringify(sample.messages));
  await page.click("#transcript-apply");
  await shows("#transcript-status", /Loaded 46 messages \(14 turns\)/);
  assert.doesNotMatch(await page.innerText("#transcript-status"), /checkpoint/);
  assert.equal(await page.locator("#composed-list li[data-kind=summary]").count(), 0);
  assert.match(await page.textContent("#data-source"), /transcript: pasted · no checkpoint summary/);
  const plain = await engineOut(sample, { messages: sample.messages, prompt: "", summaries: [], nextSequence: undefined });
  assert.equal(plain.split.summary, 0);
  await assertShows(plain);
  // the same session with its checkpoint, as {messages, summaries, nextSequence}
  const session = { messages: [...sample.messages, { role: "user", content: sample.prompt, timestamp: lastTimestamp(sample.messages) + 60_000 }], summaries: sample.summaries, nextSequence: sample.nextSequence };
  await page.fill("#transcript-input", JSON.stringify(session));
  await page.click("#transcript-apply");
  await shows("#transcript-status", /Loaded 47 messages \(15 turns\)\. The last message is a user message: it is now the current prompt\. With 1 checkpoint summary\./);
  assert.equal(await page.inputValue("#prompt"), sample.prompt);
  await page.waitForSelector("#composed-list li[data-kind=summary]");
  // the page's nowMs is the pasted transcript's last timestamp (the summary message carries it)
  const engine = new wasm.Engine(JSON.parse(await page.inputValue("#export")), {});
  const exact = engine.assemble({
    prompt: sample.prompt, messages: sample.messages, search: sample.search, contents: sample.contents, nowMs: session.messages.at(-1).timestamp,
    tokenBudget: sample.tokenBudget, summaries: sample.summaries, nextSequence: sample.nextSequence,
  });
  engine.free();
  assert.ok(exact.compactSummaries.length === 1 && exact.split.summary > 0);
  await assertShows(exact);
  // "Start from current" round-trips the session form
  await page.click("#transcript-current");
  const current = JSON.parse(await page.inputValue("#transcript-input"));
  assert.deepEqual(current, { messages: sample.messages, summaries: sample.summaries, nextSequence: sample.nextSequence });
  // bad checkpoint fields are reported, the engine's own checks name the field
  await page.fill("#transcript-input", JSON.stringify({ messages: sample.messages, nextSequence: -1 }));
  await page.click("#transcript-apply");
  assert.match(await page.innerText("#transcript-error"), /"nextSequence" must be a whole number ≥ 0/);
  await page.fill("#transcript-input", JSON.stringify({ messages: sample.messages, summaries: [{ text: "# Working Memory\n\n## Current State\nx", endSequence: 3 }], nextSequence: 14 }));
  await page.click("#transcript-apply");
  await page.waitForSelector("#engine-error:not([hidden])");
  assert.match(await page.innerText("#engine-error"), /INVALID_INPUT[\s\S]*summaries\[0\]\.startSequence/);
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

test("the export holds only the keys the user changed: none on a fresh page (each sample), a key set back to its default leaves it", T, async () => {
  for (const sample of ["en", "en-compacted", "en-large-output", "zh"]) {
    await load();
    await page.selectOption("#sample", sample);
    await page.waitForFunction(() => document.getElementById("export").value.trim() === "{}", null, { timeout: 10_000 });
  }
  await page.fill("#set-recallLimit", "9");
  await page.fill("#set-largeToolResultTokens", "12000");
  assert.deepEqual(JSON.parse(await page.inputValue("#export")), { recallLimit: 9, largeToolResultTokens: 12000 });
  await page.fill("#set-recallLimit", "6"); // the default
  const left = JSON.parse(await page.inputValue("#export"));
  assert.deepEqual(left, { largeToolResultTokens: 12000 });
  for (const k of ["mode", "port", "agentId", "baseUrl", "apiKey"]) assert.equal(k in left, false, k);
  // pasted into a remote install's config, it changes only that key
  const remote = { mode: "remote", baseUrl: "http://ov.example:1933" };
  const parsed = wasm.parseConfig({ ...remote, ...left }, {});
  assert.equal(parsed.config.mode, "remote");
  assert.equal(parsed.config.baseUrl, "http://ov.example:1933");
  assert.equal(parsed.config.largeToolResultTokens, 12000);
});

test("on a phone (390 × 844) the page has no horizontal scroll, every sample; settings and results fit the screen", T, async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    for (const sample of ["en", "en-compacted", "en-large-output", "zh"]) {
      await load();
      await page.selectOption("#sample", sample);
      await page.waitForSelector("#composed-list li");
      const m = await page.evaluate(() => {
        const de = document.documentElement;
        const right = (sel) => Math.max(...[...document.querySelectorAll(sel)].map((e) => e.getBoundingClientRect().right));
        return { scroll: de.scrollWidth, client: de.clientWidth, side: right(".side"), cards: right(".card"), settings: right("#settings .setting") };
      });
      assert.ok(m.scroll <= m.client, `${sample}: the page scrolls sideways (${m.scroll} > ${m.client})`);
      for (const k of ["side", "cards", "settings"]) assert.ok(m[k] <= m.client, `${sample}: ${k} ends at ${m[k]} px, past ${m.client}`);
    }
    // the controls still work there
    await page.fill("#set-recallLimit", "2");
    await shows("#injected-count", /^[0-2]$/);
  } finally {
    await page.setViewportSize({ width: 1400, height: 900 });
  }
});

test("a value the engine does not take as typed: its warning beside the field, with the value in effect that Export shows", T, async () => {
  await load();
  assert.equal(await page.locator(".field-problem:not([hidden])").count(), 0, "no problem at the defaults");
  for (const [key, typed] of [["recallLimit", "500"], ["recallScoreThreshold", "5"], ["memoryMapTokenBudget", "1"]]) {
    await page.fill(`#set-${key}`, typed);
    // the engine's own problem for this key, and the value it runs with
    const parsed = wasm.parseConfig({ [key]: Number(typed) }, {});
    const problem = parsed.problems.find((p) => p.key === key);
    assert.ok(problem && problem.severity === "warning", `${key}=${typed}: ${JSON.stringify(parsed.problems)}`);
    const inEffect = parsed.config[key];
    assert.notEqual(inEffect, Number(typed), `${key}: the engine does not take ${typed}`);
    const slot = page.locator(`#problem-${key}`);
    await slot.waitFor({ state: "visible" });
    assert.equal(await slot.getAttribute("data-effective"), JSON.stringify(inEffect));
    const text = await slot.innerText();
    assert.ok(text.includes(`${problem.message} — fix: ${problem.fix}`), text);
    assert.ok(text.includes(`In effect: ${inEffect} (what the engine runs with and Export shows)`), text);
    assert.equal(JSON.parse(await page.inputValue("#export"))[key], inEffect, "Export shows the value the warning names");
    // its button puts that value in the box; the warning goes
    await slot.locator("button.use-effective").click();
    assert.equal(await page.inputValue(`#set-${key}`), String(inEffect));
    await slot.waitFor({ state: "hidden" });
  }
  assert.deepEqual(problems, []);
});

test("on a phone (390 × 844) the key results stay in view beside the setting being changed", T, async () => {
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await load();
    const sample = await readSample("en");
    const inView = (sel) => viewBox(page, sel);
    for (const [key, value] of [["recallLimit", "2"], ["recallTokenBudget", "120"], ["recallLimit", "500"]]) {
      await page.locator(`#set-${key}`).scrollIntoViewIfNeeded();
      await page.fill(`#set-${key}`, value);
      const out = await engineOut(sample);
      // the changed result, the engine's numbers, on screen without scrolling
      const key_ = page.locator("#key-results");
      assert.equal(Number(await key_.locator("#key-injected").getAttribute("data-memories")), out.recall.memories.length);
      assert.deepEqual([await key_.locator("#key-recall").getAttribute("data-tokens"), await key_.locator("#key-recall").getAttribute("data-budget")].map(Number), [out.recall.tokens, out.recall.budget]);
      assert.equal(await key_.innerText().then((t) => t.replace(/\s+/g, " ").trim()),
        `${out.recall.memories.length} injected ${out.recall.explain.filter((e) => e.decision === "cut").length} cut recall pair ${out.recall.tokens.toLocaleString("en-US")} / ${out.recall.budget.toLocaleString("en-US")} tokens context ${out.estimatedTokens.toLocaleString("en-US")} / ${out.budget.toLocaleString("en-US")} tokens`);
      for (const sel of ["#key-injected", "#key-recall", `#set-${key}`]) {
        const r = await inView(sel);
        assert.ok(r.top >= 0 && r.bottom <= 844, `${key}=${value}: ${sel} is at ${r.top}–${r.bottom}, outside 0–844 (scrollY ${r.scrollY})`);
        assert.ok(r.scrollWidth <= 390, `the page scrolls sideways: ${r.scrollWidth}`);
      }
      const cards = await inView("#decisions");
      assert.ok(cards.top > 844 || cards.bottom < 0, `the test edits a setting away from the result cards (${cards.top})`);
      if (value === "500") {
        const r = await inView(`#problem-${key}`);
        assert.ok(r.top >= 0 && r.bottom <= 844, `the warning beside ${key} is in view: ${r.top}–${r.bottom}`);
      }
    }
    // and the field the sticky line covers is not hidden under it
    const bar = await inView("#key-results");
    const field = await inView("#set-recallLimit");
    assert.ok(field.top >= bar.bottom || field.bottom <= bar.top, `the key results cover the field (${bar.top}–${bar.bottom} vs ${field.top}–${field.bottom})`);
  } finally {
    await page.setViewportSize({ width: 1400, height: 900 });
  }
});

test("the timeline steps through the transcript turn by turn", T, async () => {
  await load();
  assert.equal(await page.textContent("#timeline-position"), "Turn 1 of 6");
  assert.equal(await page.textContent("#timeline-prompt"), "hi");
  assert.ok(await page.isDisabled("#timeline-prev"));
  await page.click("#timeline-next");
  assert.equal(await page.textContent("#timeline-position"), "Turn 2 of 6");
  assert.match(await page.textContent("#timeline-prompt"), /nightly migration job/);
  assert.ok(await page.locator("#timeline-memories li").count() > 0);
  await page.click("#timeline-strip button >> nth=5");
  assert.equal(await page.textContent("#timeline-position"), "Turn 6 of 6");
  assert.ok(await page.isDisabled("#timeline-next"));
  assert.equal(await page.locator("#timeline-memories li").count(), await injected());
  // its recall pair is the engine's autoRecall (memories only), labelled as such
  const en = await readSample("en");
  const plain = new wasm.Engine(JSON.parse(await page.inputValue("#export")), {});
  const r = plain.autoRecall({ prompt: en.prompt, messages: en.messages, search: en.search, contents: en.contents, nowMs: lastTimestamp(en.messages), explain: true }).recall;
  plain.free();
  const head = await page.locator("#timeline-injected");
  assert.deepEqual([await head.getAttribute("data-tokens"), await head.getAttribute("data-budget")].map(Number), [r.tokens, r.budget]);
  assert.equal(await head.textContent(), `Injected: ${r.memories.length} memories · recall pair ${r.tokens.toLocaleString("en-US")} / ${r.budget.toLocaleString("en-US")} tokens (of recallTokenBudget; memories only: the timeline adds no experience or skill)`);
  await page.click("#timeline-prev");
  assert.equal(await page.textContent("#timeline-position"), "Turn 5 of 6");
  const timeline = await page.innerText("#trigger-timeline");
  assert.match(timeline, /compaction triggers: \d+ compactions? over 5 turns/i);
  assert.equal(await page.locator("#trigger-timeline li").count(), 5);
  // a low turn threshold makes compactions fire on the timeline
  await page.fill("#set-compactTurnThreshold", "1");
  await page.waitForFunction(() => document.querySelectorAll("#trigger-timeline li.fires").length > 0);
  assert.match(await page.innerText("#trigger-timeline"), /→ compaction: turns \(turns 1, threshold 1\)/);
  // the timeline is the engine's triggerTimeline, record for record
  const engine = new wasm.Engine(JSON.parse(await page.inputValue("#export")), {});
  const sample = await readSample("en");
  const steps = engine.triggerTimeline({ messages: sample.messages, tokenBudget: sample.tokenBudget });
  engine.free();
  const items = await page.locator("#trigger-timeline li").evaluateAll((lis) => lis.map((li) => ({ fires: li.classList.contains("fires"), trigger: li.querySelector("[data-trigger]")?.dataset.trigger ?? null })));
  assert.deepEqual(items, steps.map((t) => ({ fires: Boolean(t.trigger), trigger: t.trigger?.kind ?? null })));
});

test("the timeline of a long transcript uses a slider", T, async () => {
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
  assert.equal(await page.locator("#timeline-strip .chip").count(), 0);
  await page.fill("#timeline-slider", "30");
  assert.equal(await page.textContent("#timeline-position"), "Turn 30 of 45");
  assert.equal(await page.textContent("#timeline-prompt"), "Question 29 about the staging Postgres pool size and migrations");
  await page.click("#timeline-next");
  assert.equal(await page.inputValue("#timeline-slider"), "31");
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
  await page.selectOption("#sample", "en-compacted");
  await page.waitForSelector("#composed-list li[data-kind=summary]");
  await mkdir(dirname(SCREENSHOT), { recursive: true });
  await page.screenshot({ path: SCREENSHOT, fullPage: true });
  const png = await readFile(SCREENSHOT);
  assert.equal(png.subarray(1, 4).toString(), "PNG");
  console.log(`screenshot: ${SCREENSHOT}`);
});

test("no console errors or page errors during the whole session", T, () => {
  assert.deepEqual(problems, []);
});
