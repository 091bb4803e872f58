// The page's composed-context figures against the engine's: Engine.assemble run in Node (the
// same www-demo/pkg the page runs) on the page's data and settings, and what the page shows
// (the budget bar, its legend, the total, what was trimmed, the composed list, the recall
// figures), compared number for number. Shared by demo.test.mjs.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { root, recallFigures, checkRecallFigures } from "./browser.mjs";

export const readSample = async (id) => JSON.parse(await readFile(join(root, "www-demo", "samples", `${id}.json`), "utf8"));
export const lastTimestamp = (messages) => [...messages].reverse().find((m) => typeof m.timestamp === "number")?.timestamp ?? 0;

/** The experiences, skills and map the page lists (#budget-extras), with their data-*. */
export const extrasOf = (page) => page.evaluate(() => [...document.querySelectorAll("#budget-extras li")].map((li) => ({ ...li.dataset })));

/** engineOut, shown and assertShows for this page and the engine package `wasm`. */
export function engineFigures(page, wasm) {
  /**
   * Engine.assemble in Node on the page's data: the page's current settings (its export
   * snippet) and the given request parts, with the sample's for the rest.
   */
  async function engineOut(sample, parts = {}) {
    const config = JSON.parse(await page.inputValue("#export"));
    const engine = new wasm.Engine(config, {});
    try {
      const messages = parts.messages ?? sample.messages;
      const request = {
        prompt: parts.prompt ?? sample.prompt, messages, search: sample.search, contents: sample.contents, nowMs: lastTimestamp(messages),
        tokenBudget: parts.tokenBudget ?? sample.tokenBudget, summaries: parts.summaries ?? sample.summaries ?? [],
      };
      // what the sample hands in beside the memories (experiences, skills, the folders' trees)
      for (const k of ["userId", "experiences", "skills", "map"]) if (sample[k] !== undefined) request[k] = sample[k];
      const nextSequence = "nextSequence" in parts ? parts.nextSequence : sample.nextSequence;
      if (nextSequence !== undefined) request.nextSequence = nextSequence;
      return engine.assemble(request);
    } finally {
      engine.free();
    }
  }

  /** What the page shows: the bar's parts, the legend, the total, the trimmed counts, the composed list. */
  async function shown() {
    return page.evaluate(() => {
      const n = (el) => (el ? Number(el.dataset.tokens) : null);
      const parts = ["summary", "raw", "recall", "current", "skills", "map", "recallOpening"];
      const bar = Object.fromEntries([...document.querySelectorAll("#budget-bar .seg:not(.seg-free)")].map((s) => [s.dataset.part, Number(s.dataset.tokens)]));
      return {
        bar,
        legend: Object.fromEntries(parts.map((p) => [p, n(document.getElementById(`budget-${p}`))])),
        free: n(document.getElementById("budget-free")),
        total: n(document.getElementById("budget-total")),
        budget: Number(document.getElementById("budget-total").dataset.budget),
        over: document.getElementById("budget-over") ? Number(document.getElementById("budget-over").dataset.tokens) : null,
        trimmed: Object.fromEntries([...document.querySelectorAll("#budget-trimmed li")].map((li) => [li.id.replace("trimmed-", ""), li.dataset.value])),
        list: [...document.querySelectorAll("#composed-list li")].map((li) => ({ kind: li.dataset.kind, role: li.dataset.role, tokens: Number(li.dataset.tokens) })),
      };
    });
  }

  /** The page shows exactly the engine's composition `out`. */
  async function assertShows(out) {
    const s = await shown();
    const nonZero = Object.fromEntries(Object.entries(out.split).filter(([, v]) => v > 0));
    assert.deepEqual(s.bar, nonZero, "the bar's parts are out.split");
    assert.deepEqual(s.legend, { skills: 0, map: 0, recallOpening: 0, ...out.split }, "the legend is out.split");
    assert.equal(s.total, out.estimatedTokens);
    assert.equal(Object.values(out.split).reduce((a, b) => a + b, 0), out.estimatedTokens, "the split adds up");
    assert.equal(s.budget, out.budget);
    assert.equal(s.free, Math.max(0, out.budget - out.estimatedTokens));
    assert.equal(s.over, out.overBudget ? out.estimatedTokens - out.budget : null);
    const yes = (b) => (b ? "yes" : "no");
    assert.deepEqual(s.trimmed, {
      recall: yes(out.trimmed.recall), olderSummaries: String(out.trimmed.olderSummaries),
      rawTurns: String(out.trimmed.rawTurns), latestSummary: yes(out.trimmed.latestSummary),
    });
    // the composed list: the engine's messages in order, then the current prompt
    assert.equal(s.list.length, out.messages.length + 1);
    assert.deepEqual(s.list.slice(0, -1).map((m) => m.role), out.messages.map((m) => m.role));
    assert.deepEqual(s.list.slice(0, -1).map((m) => m.tokens), wasm.estimateMessageTokens(out.messages));
    assert.equal(s.list.at(-1).kind, "current");
    assert.equal(s.list.filter((m) => m.kind === "summary").length, out.compactSummaries.length ? 1 : 0);
    if (out.compactSummaries.length) assert.equal(s.list[0].kind, "summary");
    assert.equal(s.list.filter((m) => m.kind === "recall").length, out.recallIncluded ? 2 : 0);
    // the recall figures: the engine's, and they agree with the bar
    const f = await recallFigures(page);
    checkRecallFigures(f, assert);
    assert.deepEqual([f.tokens, f.budget, f.injected], out.recall ? [out.recall.tokens, out.recall.budget, out.recall.memories.length] : [null, null, 0]);
    if (out.recallIncluded) {
      assert.equal(out.split.recall + (out.split.skills ?? 0), out.recall.tokens, "the engine's split: memories + skills = the pair's tokens");
      assert.deepEqual([f.line.memories, f.line.skills, f.line.opening], [out.split.recall, out.split.skills ?? 0, out.split.recallOpening]);
    }
    return s;
  }
  return { engineOut, shown, assertShows };
}
