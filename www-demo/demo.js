// Entry point of the recall-tuning demo: loads the wasm engine from /pkg/, the bundled
// samples, wires the settings and data inputs, and re-runs the engine's autoRecall on every
// edit (it is pure and fast, so results update live). Any failure ends up on the page.
import { h, fill } from "./dom.js";
import { buildSettings, readConfig, readHostBudget, resetSettings, setValue } from "./settings.js";
import { InputError, parseSearch, parseTranscript, readFileText } from "./data.js";
import { budgetSplit, splitTurns, textOf } from "./turns.js";
import * as render from "./render.js";
import { createReplay } from "./replay.js";
import { wireLive } from "./live.js";

const ENGINE_URL = "/pkg/openviking_context_engine.js";
const SAMPLES = { en: "samples/en.json", zh: "samples/zh.json" };

let wasm = null;
let engine = null;
let replay = null;
let firstRender = true;
/** What the engine runs on: the current sample, possibly with the user's own data. */
const data = { sample: null, prompt: "", messages: [], search: {}, contents: {}, nowMs: 0, from: { search: "sample", transcript: "sample" } };

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
  buildSettings($("settings"), update);
  $("reset-settings").addEventListener("click", () => { resetSettings(); setValue("hostTokenBudget", data.sample?.tokenBudget ?? 24000); update(); });
  $("sample").addEventListener("change", () => loadSample($("sample").value).then(update));
  $("prompt").addEventListener("input", () => { data.prompt = $("prompt").value; update(); });
  wireData("search", parseSearch, applySearch, () => JSON.stringify({ ...data.search, contents: data.contents }, null, 2));
  wireData("transcript", parseTranscript, applyTranscript, () => JSON.stringify(data.messages, null, 2));
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
  replay = createReplay();
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
    sample, prompt: sample.prompt ?? "", messages: sample.messages ?? [], search: sample.search ?? {},
    contents: sample.contents ?? {}, nowMs: lastTimestamp(sample.messages ?? []), from: { search: "sample", transcript: "sample" },
  });
  $("sample").value = id;
  $("prompt").value = data.prompt;
  setValue("hostTokenBudget", sample.tokenBudget ?? 24000);
  fill("sample-description", sample.description ?? "");
  for (const k of ["search", "transcript"]) { fill(`${k}-error`); fill(`${k}-status`); }
  replay.reset();
  showSource();
  return true;
}

const lastTimestamp = (messages) => [...messages].reverse().find((m) => typeof m.timestamp === "number")?.timestamp ?? 0;

function showSource() {
  const custom = data.from.search !== "sample" || data.from.transcript !== "sample";
  $("sample-custom").hidden = !custom;
  if (custom) $("sample").value = "custom";
  fill("data-source", `Sample: ${data.sample.name} · search results: ${data.from.search} · transcript: ${data.from.transcript}`);
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

function applyTranscript(messages, label) {
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
  data.nowMs = lastTimestamp(messages) || data.nowMs;
  data.from.transcript = label;
  $("prompt").value = data.prompt;
  replay.reset();
  return `Loaded ${messages.length} messages (${splitTurns(messages).length} turns). ${note}`;
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
  let next;
  try {
    next = new wasm.Engine(readConfig(), {});
  } catch (err) {
    render.renderWarnings([]);
    return render.renderError(err);
  }
  engine?.free();
  engine = next;
  render.renderWarnings(engine.warnings);
  const request = (prompt, messages, nowMs) => ({ prompt, messages, search: data.search, contents: data.contents, nowMs });
  const out = engine.autoRecall(request(data.prompt, data.messages, data.nowMs));
  const recall = out.recall;
  render.renderQuery(out.query);
  render.renderDecisions(recall);
  render.renderCandidates(recall);
  render.renderSynthetic(recall);
  render.renderFinal(out.messages, data.messages.length);
  render.renderExport(engine.configSnippet());
  const current = engine;
  const host = readHostBudget();
  const triggerSteps = engine.replayTriggers({ messages: data.messages, tokenBudget: host.error ? undefined : host.value });
  replay.update(data.messages, data.prompt, data.nowMs, (step) => current.autoRecall(request(step.prompt, step.history, step.nowMs)), triggerSteps);
  if (host.error) return render.renderError({ message: host.error, field: "hostTokenBudget" });
  render.renderBudget(budgetSplit({
    history: data.messages, prompt: data.prompt, recallTokens: recall?.tokens ?? 0,
    rawTurns: engine.config.recentRawTurnCount, hostBudget: host.value, estimate: wasm.estimateMessageTokens,
  }), engine.config.recentRawTurnCount);
  render.renderError(null);
  if (firstRender) {
    firstRender = false;
    performance.mark("results-rendered");
    document.body.dataset.ready = "true";
  }
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
