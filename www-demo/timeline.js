// The timeline view: steps through the loaded transcript one user message at a time (the
// messages before it are the history, its text is the prompt) and shows what the engine's
// autoRecall would inject at that point with the current settings and the loaded search
// results (autoRecall: the memories only, so its recall pair carries no experience or skill
// line, unlike the current turn's assemble above it). The trigger timeline is engine.triggerTimeline as it answers: per turn, whether it
// counts toward compaction, its tokens, and the trigger that fires (assuming each compaction
// commits at once); the page only draws the engine's records.
import { h, fill, num, tok } from "./dom.js";
import { queryParts } from "./render.js";
import { textOf } from "./messages.js";

const MAX_CHIPS = 40;

export function createTimeline() {
  let steps = [];
  let transcript = [];
  let index = 0;
  let run = null;

  const root = document.getElementById("timeline");
  const prev = h("button", { type: "button", id: "timeline-prev", onclick: () => go(index - 1) }, "◀ Previous turn");
  const next = h("button", { type: "button", id: "timeline-next", onclick: () => go(index + 1) }, "Next turn ▶");
  const position = h("span", { id: "timeline-position", "aria-live": "polite" });
  const strip = h("div", { class: "turn-strip", id: "timeline-strip" });
  const body = h("div", { id: "timeline-body" });
  const timeline = h("div", { class: "timeline", id: "trigger-timeline" });
  let triggers = [];
  const slider = h("input", { type: "range", id: "timeline-slider", min: 1, "aria-label": "turn", oninput: () => go(Number(slider.value) - 1) });
  root.replaceChildren(
    h("div", { class: "timeline-controls" }, prev, position, next),
    strip,
    body,
    timeline);

  function go(i) {
    if (!steps.length) return;
    index = Math.max(0, Math.min(steps.length - 1, i));
    draw();
  }

  function draw() {
    if (!steps.length) {
      position.textContent = "No turns";
      prev.disabled = next.disabled = true;
      fill(strip);
      fill(body, h("p", { class: "note" }, "The transcript has no user message to step through."));
      return;
    }
    position.textContent = `Turn ${index + 1} of ${steps.length}`;
    prev.disabled = index === 0;
    next.disabled = index === steps.length - 1;
    // one chip per turn with its injected count; a slider instead for long transcripts
    const results = steps.length <= MAX_CHIPS ? steps.map(attempt) : null;
    if (results || strip.firstChild !== slider) fill(strip, results ? steps.map((s, i) => {
      const r = results[i];
      const count = r.error ? "!" : r.out.recall ? r.out.recall.memories.length : 0;
      return h("button", { type: "button", class: i === index ? "chip current" : "chip", title: `injected ${count}: ${s.prompt.slice(0, 200)}`, "aria-label": `turn ${i + 1}`, onclick: () => go(i) },
        h("span", { class: "chip-n" }, s.current ? `${i + 1}★` : i + 1), h("span", { class: "chip-c" }, count));
    }) : slider);
    slider.max = steps.length;
    slider.value = index + 1;
    const step = steps[index];
    const r = results ? results[index] : attempt(step);
    fill(body,
      h("p", { class: "help" }, step.current ? "The current prompt (after the whole transcript)." : `History: ${step.before} messages before this turn.`),
      h("h3", {}, "Prompt"),
      h("pre", { class: "query-text", id: "timeline-prompt" }, step.prompt || "(empty)"),
      r.error ? errorBox(r.error) : stepResult(r.out));
  }

  function drawTimeline() {
    const fired = triggers.filter((t) => t.trigger);
    fill(timeline,
      h("h3", {}, `Compaction triggers: ${fired.length} compaction${fired.length === 1 ? "" : "s"} over ${triggers.length} turns`),
      h("p", { class: "help" }, "Per turn, as the engine's triggerTimeline reports it: counted toward compaction or not (and why not), the tokens it adds, and the trigger that fires with these thresholds and the host budget."),
      h("ol", { class: "trigger-list" }, triggers.map((t) =>
        h("li", { class: t.trigger ? "fires" : t.counted ? "counted" : "skipped" },
          `turn ${t.turn + 1}: `,
          t.counted ? "counted" : `not counted (${t.captureReason})`,
          ` · ${tok(t.tokens)} tokens`,
          t.trigger ? h("strong", { dataset: { trigger: t.trigger.kind } }, ` → compaction: ${describe(t.trigger)}`) : ""))));
  }

  function attempt(step) {
    try {
      return { out: run({ ...step, history: transcript.slice(0, step.before) }) };
    } catch (error) {
      return { error };
    }
  }

  return {
    /** New transcript or settings: keeps the position when the turn still exists. */
    update(messages, prompt, nowMs, runner, triggerSteps = []) {
      transcript = messages;
      steps = timelineSteps(messages, prompt, nowMs);
      run = runner;
      triggers = triggerSteps;
      drawTimeline();
      if (index >= steps.length) index = Math.max(0, steps.length - 1);
      draw();
    },
    reset() { index = 0; },
  };
}

function stepResult(out) {
  const r = out.recall;
  return h("div", {},
    h("h3", {}, "Recall query"),
    out.query.query ? h("pre", { class: "query-text" }, out.query.query) : h("p", { class: "note" }, "No query: every turn in the window was skipped."),
    queryParts(out.query),
    r
      ? h("h3", { id: "timeline-injected", dataset: { memories: r.memories.length, tokens: r.tokens, budget: r.budget } },
          `Injected: ${r.memories.length} memor${r.memories.length === 1 ? "y" : "ies"} · recall pair ${tok(r.tokens)} / ${tok(r.budget)} tokens (of recallTokenBudget; memories only: the timeline adds no experience or skill)`)
      : h("h3", { id: "timeline-injected" }, "Injected: nothing (no recall this turn)"),
    r && r.memories.length
      ? h("ol", { class: "memories compact", id: "timeline-memories" }, r.memories.map((m) =>
          h("li", {}, h("span", { class: "badge cat" }, m.category), h("span", { class: "score" }, num(m.score)), " ", m.content)))
      : null);
}

function errorBox(err) {
  return h("div", { class: "error" }, h("strong", {}, err.code ?? "Error"), err.field ? ` · field ${err.field}` : "", h("div", {}, err.message));
}

/** The engine's trigger record as it is: its kind, its values and its threshold. */
function describe(trigger) {
  const { kind, threshold, ...values } = trigger;
  const shown = Object.entries(values).map(([k, v]) => `${k} ${typeof v === "number" ? tok(v) : v}`);
  return `${String(kind).replace(/_/g, " ")} (${[...shown, threshold !== undefined ? `threshold ${tok(threshold)}` : null].filter(Boolean).join(", ")})`;
}

/**
 * One timeline step per user message (its text is the prompt, everything before it the
 * history), plus the current prompt after the whole transcript when there is one.
 */
function timelineSteps(messages, currentPrompt, nowMs) {
  const steps = [];
  messages.forEach((m, i) => {
    if (m.role !== "user") return;
    steps.push({ prompt: textOf(m), nowMs: m.timestamp ?? messages[i - 1]?.timestamp ?? nowMs, before: i, current: false });
  });
  if (currentPrompt.trim()) steps.push({ prompt: currentPrompt, nowMs, before: messages.length, current: true });
  return steps;
}
