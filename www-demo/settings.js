// The recall settings panel: one control per recall key of the plugin config (bounds and
// defaults from the engine, `configBounds()` and `parseConfig({})`: the page holds none of its
// own), plus the host's token budget, which is a simulation input and not a plugin key. Values go to the engine as typed, so the engine's own warnings
// (a value clamped, or one it cannot take read as the default — each naming the key and the fix) show on the page,
// each beside its field with the value the engine runs with (`showProblems`).
import { h } from "./dom.js";

/** Plugin config keys tuned here (presentation only: label, slider step, help). */
export const SETTINGS = [
  { key: "recallLimit", label: "Recall limit", step: 1, help: "memories injected at most" },
  { key: "recallScoreThreshold", label: "Score threshold", step: 0.01, help: "minimum search score" },
  { key: "recallScoreWindow", label: "Score window", step: 0.01, help: "only memories within this of the best score (1 = no window)" },
  { key: "recallRequireQueryWord", label: "Require a query word", bool: true, help: "a memory sharing no word with the query is not injected" },
  { key: "recallNearDuplicateOverlap", label: "Near-duplicate overlap", step: 0.05, help: "share of words in common that makes a near-duplicate (0 = off)" },
  { key: "recallMaxContentChars", label: "Max content chars", step: 10, help: "per memory, UTF-16 units including the …" },
  { key: "recallLexical", label: "Lexical candidates", bool: true, help: "also grep the user's memories for the question's words (the next live search)" },
  { key: "recallPreferAbstract", label: "Prefer abstract", bool: true, help: "use the abstract when there is one" },
  { key: "recallTokenBudget", label: "Recall token budget", step: 50, help: "the whole synthetic recall pair never exceeds it" },
  { key: "assembleRecallWindow", label: "Recall query window", step: 1, help: "user turns (current included) that form the query" },
  { key: "recentRawTurnCount", label: "Recent raw turns", step: 1, help: "newest turns always kept raw" },
  { key: "compactTurnThreshold", label: "Compact after turns", step: 1, help: "counted turns since the last compaction (trigger timeline)" },
  { key: "compactTokensAddedThreshold", label: "Compact after tokens", step: 100, help: "tokens added since the last compaction (trigger timeline)" },
  { key: "largeToolResultTokens", label: "Large tool output", step: 500, help: "a tool output above this many tokens reaches the model as a stand-in" },
  { key: "skillLimit", label: "Skill limit", step: 1, help: "skills listed in the recall pair at most (within its budget)" },
  { key: "memoryMapTokenBudget", label: "Map token budget", step: 10, help: "the map of folders in the system prompt addition stays within it" },
  { key: "compactMaxIntervalMinutes", label: "Compact after minutes", step: 1, help: "with ≥ 1 counted turn (trigger timeline)" },
];

/** The host's context window for the budget bar (simulation only). */
export const HOST_BUDGET = { key: "hostTokenBudget", label: "Host token budget", min: 1000, max: 1000000, step: 1000, def: 24000, int: true, help: "the model context the host gives the engine (simulation input, not a plugin key)" };

/**
 * Builds the controls into `container`; calls onChange() on every edit. `engine` is the wasm
 * module: each key's default, bounds and integer-ness are the engine's own.
 */
export function buildSettings(container, onChange, engine) {
  const bounds = new Map(engine.configBounds().map((b) => [b.key, b]));
  const defaults = engine.parseConfig({}, {}).config;
  for (const s of SETTINGS) {
    const b = bounds.get(s.key);
    if (s.bool) s.def = defaults[s.key];
    else if (b) Object.assign(s, { min: b.min, max: b.max, def: b.default, int: b.integer });
    else throw new Error(`the engine has no bounds for ${s.key}`);
  }
  for (const s of [...SETTINGS, HOST_BUDGET]) container.append(control(s, onChange));
}

function control(s, onChange) {
  const id = `set-${s.key}`;
  if (s.bool) {
    const box = h("input", { type: "checkbox", id, checked: s.def, oninput: onChange });
    return h("div", { class: "setting bool" },
      h("label", { for: id }, box, " ", s.label, h("code", {}, s.key)),
      problemSlot(s.key),
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
    problemSlot(s.key),
    h("p", { class: "help" }, `${s.help} · ${s.min}–${s.max.toLocaleString("en-US")}, default ${s.def.toLocaleString("en-US")}`));
}

/** Where the engine's problem with this key shows, right under its control. */
const problemSlot = (key) => h("div", { class: "field-problem", id: `problem-${key}`, role: "status", hidden: true });

/**
 * Shows each of the engine's config problems (`parseConfig(...).problems`: key, severity,
 * message, fix) beside the control of its key, with the value the engine runs with
 * (`effective`, the engine's resolved config; none for an error) and a button that puts
 * that value in the box. Clears the others. `onChange` runs after the button.
 */
export function showProblems(problems, effective, onChange) {
  const byKey = new Map(problems.map((p) => [p.key, p]));
  for (const slot of document.querySelectorAll(".field-problem")) {
    const key = slot.id.slice("problem-".length);
    const p = byKey.get(key);
    slot.hidden = !p;
    slot.className = p ? `field-problem ${p.severity}` : "field-problem";
    if (!p) {
      slot.replaceChildren();
      delete slot.dataset.effective;
      continue;
    }
    const inEffect = p.severity === "warning" && effective && key in effective ? effective[key] : undefined;
    if (inEffect === undefined) delete slot.dataset.effective;
    else slot.dataset.effective = JSON.stringify(inEffect);
    slot.replaceChildren(
      h("div", { class: "problem-message" }, p.message, p.fix ? ` — fix: ${p.fix}` : ""),
      inEffect === undefined ? null : h("div", { class: "problem-effect" },
        "In effect: ", h("strong", { class: "effective" }, String(inEffect)), " (what the engine runs with and Export shows) ",
        h("button", { type: "button", class: "quiet small use-effective", onclick: () => { setValue(key, inEffect); onChange(); } }, `Use ${inEffect}`)));
  }
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
