// Entry point of the recall-tuning demo: loads the wasm engine from /pkg/, the bundled
// samples, wires the settings and data inputs, and re-runs the engine's assemble on every edit
// (it is pure and fast, so results update live): recall with its explain records and the
// composed context — summary, raw turns, recall pair, current turn — under the host budget,
// all as the engine computes it. Any failure ends up on the page.
import { h, fill } from "./dom.js";
import { buildSettings, readConfig, readHostBudget, resetSettings, setValue, showProblems } from "./settings.js";
import { InputError, parseSearch, parseTranscript, readFileText } from "./data.js";
import { textOf } from "./messages.js";
import * as render from "./render.js";
import { createTimeline } from "./timeline.js";
import { wireLive } from "./live.js";

const ENGINE_URL = "/pkg/openviking_context_engine.js";
const SAMPLES = { en: "samples/en.json", "en-compacted": "samples/en-compacted.json", "en-large-output": "samples/en-large-output.json", zh: "samples/zh.json" };

let wasm = null;
let engine = null;
let timeline = null;
let firstRender = true;
/**
 * What the engine runs on: the current sample, possibly with the user's own data. `summaries`
 * and `nextSequence` are the session's compact checkpoints (AssembleRequest), when it has any.
 */
const data = {
  sample: null, prompt: "", messages: [], summaries: [], nextSequence: undefined, search: {}, contents: {}, nowMs: 0,
  // what the engine reads beside the memories, as the sample holds it: experience candidates,
  // skills/find answer items, each map root's fs/tree answer (the engine picks and budgets)
  userId: undefined, experiences: [], skills: [], map: undefined,
  from: { search: "sample", transcript: "sample" },
};

const $ = (id) => document.getElementById(id);

function fatal(title, err) {
  $("boot").hidden = true;
  fill("fatal", h("strong", {}, title), h("div", {}, String(err?.message ?? err)));
  $("fatal").hidden = false;
}

window.addEventListener("error", (e) => render.renderError({ message: `Unexpected error: ${e.message}` }));
window.addEventListener("unhandledrejection", (e) => render.renderError({ message: `Unexpected error: ${e.reason?.message ?? e.reason}` }));

async function boot() {
  const firstSample = fetchSample("en"); // in parallel with the engine
  try {
    wasm = await import(ENGINE_URL);
    await wasm.default();
    performance.mark("engine-ready");
  } catch (err) {
    fatal(`Could not load the engine from ${ENGINE_URL}. Build it with \`make build\` and serve the page with \`node www-demo/serve.mjs\`.`, err);
    return;
  }
  buildSettings($("settings"), update, wasm);
  $("reset-settings").addEventListener("click", () => { resetSettings(); setValue("hostTokenBudget", data.sample?.tokenBudget ?? 24000); update(); });
  $("sample").addEventListener("change", () => loadSample($("sample").value).then(update));
  $("prompt").addEventListener("input", () => { data.prompt = $("prompt").value; update(); });
  wireData("search", parseSearch, applySearch, () => JSON.stringify({ ...data.search, contents: data.contents }, null, 2));
  wireData("transcript", parseTranscript, applyTranscript, () => JSON.stringify(
    data.summaries.length || data.nextSequence !== undefined
      ? { messages: data.messages, summaries: data.summaries, ...(data.nextSequence !== undefined && { nextSequence: data.nextSequence }) }
      : data.messages,
    null, 2));
  wireLive({
    wasm: () => wasm,
    engine: () => engine,
    request: () => ({ prompt: data.prompt, messages: data.messages }),
    apply: (search, label) => {
      fill("search-error");
      fill("search-status", applySearch({ search, contents: {} }, label));
      showSource();
      update();
    },
  });
  $("copy-export").addEventListener("click", copyExport);
  $("final-details").addEventListener("toggle", render.drawFinal);
  fill("engine-version", `engine ${wasm.version()} · `);
  timeline = createTimeline();
  if (!(await loadSample("en", firstSample))) return;
  $("boot").hidden = true;
  $("app").hidden = false;
  update();
}

async function fetchSample(id) {
  const res = await fetch(SAMPLES[id]);
  if (!res.ok) throw new Error(`HTTP ${res.status} for ${SAMPLES[id]}`);
  return res.json();
}

/** Loads a bundled sample; false (with the reason on the page) when it cannot. */
async function loadSample(id, fetched = fetchSample(id)) {
  let sample;
  try {
    sample = await fetched;
  } catch (err) {
    fatal(`Could not load the sample ${SAMPLES[id]}.`, err);
    return false;
  }
  Object.assign(data, {
    sample, prompt: sample.prompt ?? "", messages: sample.messages ?? [], summaries: sample.summaries ?? [], nextSequence: sample.nextSequence,
    search: sample.search ?? {}, contents: sample.contents ?? {}, nowMs: lastTimestamp(sample.messages ?? []),
    userId: sample.userId, experiences: sample.experiences ?? [], skills: sample.skills ?? [], map: sample.map,
    from: { search: "sample", transcript: "sample" },
  });
  $("sample").value = id;
  $("prompt").value = data.prompt;
  setValue("hostTokenBudget", sample.tokenBudget ?? 24000);
  fill("sample-description", sample.description ?? "");
  for (const k of ["search", "transcript"]) { fill(`${k}-error`); fill(`${k}-status`); }
  timeline.reset();
  showSource();
  return true;
}

const lastTimestamp = (messages) => [...messages].reverse().find((m) => typeof m.timestamp === "number")?.timestamp ?? 0;

function showSource() {
  const custom = data.from.search !== "sample" || data.from.transcript !== "sample";
  $("sample-custom").hidden = !custom;
  if (custom) $("sample").value = "custom";
  const n = data.summaries.length;
  fill("data-source", `Sample: ${data.sample.name} · search results: ${data.from.search} · transcript: ${data.from.transcript}` +
    ` · ${n ? `${n} checkpoint summar${n === 1 ? "y" : "ies"}` : "no checkpoint summary"}`);
}

/** Paste box + file upload + apply button for one kind of data. */
function wireData(kind, parse, apply, current) {
  const text = $(`${kind}-input`);
  const fail = (err) => {
    fill(`${kind}-status`);
    fill(`${kind}-error`, err instanceof InputError ? err.message : `Could not read it: ${err.message}`);
  };
  const use = (raw, label) => {
    try {
      const parsed = parse(raw);
      fill(`${kind}-error`);
      fill(`${kind}-status`, apply(parsed, label));
      showSource();
      update();
    } catch (err) {
      fail(err);
    }
  };
  $(`${kind}-apply`).addEventListener("click", () => use(text.value, "pasted"));
  $(`${kind}-current`).addEventListener("click", () => { text.value = current(); fill(`${kind}-error`); });
  $(`${kind}-file`).addEventListener("change", async (e) => {
    const file = e.target.files?.[0];
    e.target.value = "";
    if (!file) return;
    try {
      use(await readFileText(file), `file ${file.name}`);
    } catch (err) {
      fail(err);
    }
  });
}

function applySearch({ search, contents }, label) {
  data.search = search;
  data.contents = contents;
  data.from.search = label;
  const count = (v) => (Array.isArray(v) ? v.length : Array.isArray(v?.memories) ? v.memories.length : 0);
  return `Loaded ${count(search.user)} user and ${count(search.agent)} agent items, ${Object.keys(contents).length} full texts.`;
}

/** A pasted/uploaded transcript replaces the sample's, checkpoints included (a bare list of
 *  messages has none; a `{messages, summaries?, nextSequence?}` session brings its own). */
function applyTranscript({ messages, summaries, nextSequence }, label) {
  const last = messages.at(-1);
  let note;
  if (last.role === "user") {
    data.prompt = textOf(last);
    data.messages = messages.slice(0, -1);
    note = "The last message is a user message: it is now the current prompt.";
  } else {
    data.prompt = "";
    data.messages = messages;
    note = "It does not end with a user message, so the prompt is empty: type one to simulate the next turn.";
  }
  data.summaries = summaries;
  data.nextSequence = nextSequence;
  data.nowMs = lastTimestamp(messages) || data.nowMs;
  data.from.transcript = label;
  $("prompt").value = data.prompt;
  timeline.reset();
  const users = messages.filter((m) => m.role === "user").length;
  const checkpoints = summaries.length ? ` With ${summaries.length} checkpoint summar${summaries.length === 1 ? "y" : "ies"}.` : "";
  return `Loaded ${messages.length} messages (${users} turns). ${note}${checkpoints}`;
}

/** Runs the engine on the current settings and data and renders everything. */
function update() {
  try {
    run();
  } catch (err) {
    render.renderError(err);
  }
}

function run() {
  const config = readConfig();
  let next;
  try {
    next = new wasm.Engine(config, {});
  } catch (err) {
    render.renderWarnings([]);
    // the engine refuses the config: its problem beside the field it names
    showProblems(err?.field ? [{ key: err.field, severity: "error", message: err.message }] : [], null, update);
    return render.renderError(err);
  }
  engine?.free();
  engine = next;
  render.renderWarnings(engine.warnings);
  // each warning beside its field, with the value the engine runs with
  showProblems(wasm.parseConfig(config, {}).problems, engine.config, update);
  const host = readHostBudget();
  if (host.error) return render.renderError({ message: host.error, field: "hostTokenBudget" });
  const out = engine.assemble(assembleRequest(host.value));
  const recall = out.recall;
  render.renderQuery(out.query);
  render.renderKeyResults(out);
  render.renderDecisions(out);
  render.renderCandidates(recall, data.search);
  render.renderBudget(out, engine.config.recentRawTurnCount, engine.config.largeToolResultTokens);
  render.renderComposed(out, out.messages.length ? wasm.estimateMessageTokens(out.messages) : [], data.prompt);
  render.renderSynthetic(recall, out);
  render.renderFinal(out);
  render.renderExport(changedKeys(engine.configSnippet()));
  const current = engine;
  const triggerSteps = engine.triggerTimeline({ messages: data.messages, tokenBudget: host.value });
  const recallAt = (step) => current.autoRecall({ prompt: step.prompt, messages: step.history, search: data.search, contents: data.contents, nowMs: step.nowMs, explain: true });
  timeline.update(data.messages, data.prompt, data.nowMs, recallAt, triggerSteps);
  render.renderError(null);
  if (firstRender) {
    firstRender = false;
    performance.mark("results-rendered");
    document.body.dataset.ready = "true";
  }
}

/** The keys of `snippet` whose value is not the engine's default: what the user changed. An
 *  export of every key would also carry `mode`, `port` and `agentId` defaults, which would
 *  switch a remote install pasting it to local mode. */
let defaults = null;
function changedKeys(snippet) {
  if (!defaults) {
    const plain = new wasm.Engine({}, {});
    try {
      defaults = plain.configSnippet();
    } finally {
      plain.free();
    }
  }
  return Object.fromEntries(Object.entries(snippet).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(defaults[k])));
}

/** The page's data as one AssembleRequest (the same object the tests hand the engine in Node). */
function assembleRequest(tokenBudget) {
  const request = {
    prompt: data.prompt, messages: data.messages, search: data.search, contents: data.contents, nowMs: data.nowMs,
    tokenBudget, summaries: data.summaries,
  };
  if (data.nextSequence !== undefined) request.nextSequence = data.nextSequence;
  if (data.userId !== undefined) request.userId = data.userId;
  if (data.experiences.length) request.experiences = data.experiences;
  if (data.skills.length) request.skills = data.skills;
  if (data.map !== undefined) request.map = data.map;
  return request;
}

async function copyExport() {
  const box = $("export");
  try {
    await navigator.clipboard.writeText(box.value);
    fill("copy-status", "Copied.");
  } catch {
    box.focus();
    box.select();
    fill("copy-status", "Selected: press Ctrl+C (⌘C) to copy.");
  }
}

boot();
