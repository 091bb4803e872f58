// The recall settings panel: one control per recall key of the plugin config (bounds and
// defaults from the README config table), plus the host's token budget, which is a simulation
// input and not a plugin key. Values go to the engine as typed, so the engine's own errors
// (INVALID_CONFIG naming the key) and clamping warnings show on the page.
import { h } from "./dom.js";

/** Plugin config keys tuned here. `int` = the engine wants an integer. */
export const SETTINGS = [
  { key: "recallLimit", label: "Recall limit", min: 1, max: 100, step: 1, def: 6, int: true, help: "memories injected at most" },
  { key: "recallScoreThreshold", label: "Score threshold", min: 0, max: 1, step: 0.01, def: 0.15, help: "minimum search score" },
  { key: "recallMaxContentChars", label: "Max content chars", min: 50, max: 10000, step: 10, def: 500, int: true, help: "per memory, UTF-16 units including the …" },
  { key: "recallPreferAbstract", label: "Prefer abstract", bool: true, def: true, help: "use the abstract when there is one" },
  { key: "recallTokenBudget", label: "Recall token budget", min: 100, max: 50000, step: 50, def: 2000, int: true, help: "the whole synthetic recall pair never exceeds it" },
  { key: "assembleRecallWindow", label: "Recall query window", min: 1, max: 50, step: 1, def: 5, int: true, help: "user turns (current included) that form the query" },
  { key: "recentRawTurnCount", label: "Recent raw turns", min: 0, max: 200, step: 1, def: 8, int: true, help: "newest turns always kept raw" },
  { key: "compactTurnThreshold", label: "Compact after turns", min: 1, max: 10000, step: 1, def: 20, int: true, help: "counted turns since the last compaction (replay timeline)" },
  { key: "compactTokensAddedThreshold", label: "Compact after tokens", min: 100, max: 10000000, step: 100, def: 30000, int: true, help: "tokens added since the last compaction (replay timeline)" },
  { key: "largeToolResultTokens", label: "Large tool output", min: 500, max: 1000000, step: 500, def: 8000, int: true, help: "a tool output above this many tokens reaches the model as a stand-in" },
  { key: "compactMaxIntervalMinutes", label: "Compact after minutes", min: 1, max: 10080, step: 1, def: 30, int: true, help: "with ≥ 1 counted turn (replay timeline)" },
];

/** The host's context window for the budget bar (simulation only). */
export const HOST_BUDGET = { key: "hostTokenBudget", label: "Host token budget", min: 1000, max: 1000000, step: 1000, def: 24000, int: true, help: "the model context the host gives the engine (simulation input, not a plugin key)" };

/** Builds the controls into `container`; calls onChange() on every edit. */
export function buildSettings(container, onChange) {
  for (const s of [...SETTINGS, HOST_BUDGET]) container.append(control(s, onChange));
}

function control(s, onChange) {
  const id = `set-${s.key}`;
  if (s.bool) {
    const box = h("input", { type: "checkbox", id, checked: s.def, oninput: onChange });
    return h("div", { class: "setting bool" },
      h("label", { for: id }, box, " ", s.label, h("code", {}, s.key)),
      h("p", { class: "help" }, `${s.help} · default ${s.def}`));
  }
  const number = h("input", { type: "number", id, min: s.min, max: s.max, step: s.int ? 1 : s.step, value: s.def });
  const range = h("input", { type: "range", min: s.min, max: s.max, step: s.step, value: s.def, "aria-label": `${s.label} slider`, tabindex: -1 });
  range.addEventListener("input", () => { number.value = range.value; onChange(); });
  number.addEventListener("input", () => {
    if (number.value !== "") range.value = number.value;
    onChange();
  });
  return h("div", { class: s.sim ? "setting sim" : "setting" },
    h("label", { for: id }, s.label, h("code", {}, s.key)),
    h("div", { class: "pair" }, range, number),
    h("p", { class: "help" }, `${s.help} · ${s.min}–${s.max.toLocaleString("en-US")}, default ${s.def.toLocaleString("en-US")}`));
}

/** The plugin config the controls describe (numbers as typed; junk passed through as text). */
export function readConfig() {
  const config = {};
  for (const s of SETTINGS) config[s.key] = read(s);
  return config;
}

/** The host token budget, or an error string. */
export function readHostBudget() {
  const v = read(HOST_BUDGET);
  if (typeof v !== "number" || !Number.isInteger(v) || v < HOST_BUDGET.min || v > HOST_BUDGET.max) {
    return { error: `${HOST_BUDGET.label}: enter a whole number from ${HOST_BUDGET.min} to ${HOST_BUDGET.max}` };
  }
  return { value: v };
}

function read(s) {
  const el = document.getElementById(`set-${s.key}`);
  if (s.bool) return el.checked;
  const raw = el.value.trim();
  const n = Number(raw);
  return raw !== "" && Number.isFinite(n) ? n : raw;
}

/** Sets one control (used for the host budget when a sample loads, and for reset). */
export function setValue(key, value) {
  const el = document.getElementById(`set-${key}`);
  if (el.type === "checkbox") el.checked = value;
  else {
    el.value = value;
    el.previousElementSibling.value = value;
  }
}

export function resetSettings() {
  for (const s of SETTINGS) setValue(s.key, s.def);
}
