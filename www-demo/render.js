// Renders the engine's answer for the current turn: the recall query with used/skipped turns,
// injected vs cut (with reasons), the ranked candidates with their rank components, the token
// budget bar, the exact synthetic memory_recall_auto messages, the final messages and the
// config export. Every function fills one element of index.html by id.
import { h, fill, num, tok } from "./dom.js";

const SKIP_LABEL = { empty: "empty", greeting: "greeting / ack", command: "/command", too_short: "too short", injected_only: "injected only" };
const CUT_ORDER = ["malformed", "not_level_2", "below_threshold", "duplicate", "over_limit", "over_budget"];

/** The query parts as a list (shared with the replay view). */
export function queryParts(query) {
  return h("ol", { class: "parts" }, query.parts.map((p) =>
    h("li", { class: p.skipped ? "skipped" : "used" },
      h("span", { class: `badge ${p.skipped ? "muted" : "ok"}` }, p.skipped ? `skipped · ${SKIP_LABEL[p.skipped] ?? p.skipped}` : "used"),
      h("span", { class: "source" }, p.source),
      h("span", { class: "text" }, p.text || "(empty)"))));
}

export function renderQuery(query) {
  fill("query",
    query.query
      ? h("pre", { class: "query-text", id: "query-text" }, query.query)
      : h("p", { class: "note", id: "query-text" }, "No recall query this turn: every turn in the window was skipped, so nothing is searched and nothing is injected."),
    h("h3", {}, `User turns looked at (${query.parts.length}, newest first)`),
    queryParts(query));
}

/** Injected vs cut: counts, cut reasons, and the injected memories as the model sees them. */
export function renderDecisions(recall) {
  if (!recall) {
    fill("decisions", h("p", { class: "note" }, "No recall this turn."), h("span", { id: "injected-count", hidden: true }, "0"));
    return;
  }
  const cuts = {};
  for (const e of recall.explain) if (e.decision === "cut") cuts[e.reason] = (cuts[e.reason] ?? 0) + 1;
  const cutTotal = Object.values(cuts).reduce((a, b) => a + b, 0);
  fill("decisions",
    h("div", { class: "stats" },
      h("div", { class: "stat kept" }, h("span", { class: "big", id: "injected-count" }, recall.memories.length), " injected"),
      h("div", { class: "stat cut" }, h("span", { class: "big", id: "cut-count" }, cutTotal), " cut"),
      h("div", { class: "stat" }, h("span", { class: "big" }, `${tok(recall.tokens)} / ${tok(recall.budget)}`), " recall tokens"),
      h("ul", { class: "reasons", id: "cut-reasons" }, CUT_ORDER.filter((r) => cuts[r]).map((r) =>
        h("li", {}, h("span", { class: `badge cut-${r}` }, r), ` ${cuts[r]}`)))),
    recall.memories.length
      ? h("ol", { class: "memories", id: "injected" }, recall.memories.map((m) =>
          h("li", {},
            h("div", { class: "mem-head" }, h("span", { class: "badge cat" }, m.category), h("span", { class: "score" }, `score ${num(m.score)}`), h("span", { class: "uri" }, m.uri)),
            h("div", { class: "mem-body" }, m.content))))
      : h("p", { class: "note" }, "Nothing injected: every candidate was cut (see the reasons in the table)."));
}

/** One row per candidate, in the engine's order, with every rank component. */
export function renderCandidates(recall) {
  if (!recall) return fill("candidates", h("p", { class: "note" }, "No candidates: no recall this turn."));
  const head = ["", "decision", "total", "score", "level", "temporal", "pref.", "lexical", "matched", "tokens", "scope", "cat.", "uri"];
  const rows = recall.explain.map((e, i) => {
    const r = e.rank;
    const decision = e.decision === "kept"
      ? h("span", { class: "badge ok" }, `kept #${e.position}`)
      : h("span", { class: `badge cut-${e.reason}` }, e.reason);
    const note = e.duplicateOf ? h("div", { class: "dup" }, "duplicate of ", e.duplicateOf) : e.detail ? h("div", { class: "dup" }, e.detail) : null;
    return h("tr", { class: e.decision, dataset: { reason: e.reason ?? "kept" } },
      h("td", { class: "n" }, i + 1), h("td", {}, decision),
      h("td", { class: "n strong" }, num(r.total)), h("td", { class: "n" }, num(r.score)),
      h("td", { class: "n" }, plus(r.levelBoost)), h("td", { class: "n" }, plus(r.temporalBoost)),
      h("td", { class: "n" }, plus(r.preferenceBoost)), h("td", { class: "n" }, plus(r.lexicalBoost)),
      h("td", { class: "n" }, r.matchedTokens), h("td", { class: "n" }, e.tokens ?? "–"),
      h("td", {}, e.scope), h("td", {}, e.category ?? "–"),
      h("td", { class: "uri", title: e.uri }, e.uri ? e.uri.replace(/^viking:\/\//, "") : "(no uri)", note));
  });
  fill("candidates", h("table", { class: "cands" },
    h("thead", {}, h("tr", {}, head.map((c) => h("th", {}, c)))),
    h("tbody", {}, rows)));
}

const plus = (x) => (x ? `+${num(x)}` : "·");

/** The budget bar: recall / summaries (0 for now) / raw turns / older turns / free. */
export function renderBudget(split, rawSetting) {
  const segments = [
    { key: "recall", label: "recall", value: split.recall, note: "the synthetic memory_recall_auto pair" },
    { key: "summaries", label: "summaries", value: 0, note: "0 for now — compact summaries arrive with the write-path engine" },
    { key: "raw", label: "raw turns", value: split.raw, note: `current prompt + newest ${split.rawTurnsKept} of ${split.turns} turns (recentRawTurnCount ${rawSetting})` },
    { key: "older", label: "older turns", value: split.older, note: "outside the raw window: to be summarised by the write path; counted raw until then" },
    { key: "free", label: "free", value: split.free, note: "left of the host budget" },
  ];
  const scale = Math.max(split.total, split.total + split.over);
  fill("budget",
    h("div", { class: "bar", role: "img", "aria-label": segments.map((s) => `${s.label} ${s.value}`).join(", ") },
      segments.filter((s) => s.value > 0).map((s) =>
        h("div", { class: `seg seg-${s.key}`, style: { width: `${(100 * s.value) / scale}%` }, title: `${s.label}: ${tok(s.value)} tokens` }))),
    split.over ? h("p", { class: "error-inline", id: "budget-over" }, `Over the host budget by ${tok(split.over)} tokens.`) : null,
    h("ul", { class: "legend" }, segments.map((s) =>
      h("li", { id: `budget-${s.key}` },
        h("span", { class: `swatch seg-${s.key}` }), h("strong", {}, s.label), ` ${tok(s.value)}`,
        h("span", { class: "pct" }, ` (${((100 * s.value) / split.total).toFixed(1)}\u00a0%)`), h("div", { class: "help" }, s.note)))),
    h("p", { class: "help" }, `Host budget ${tok(split.total)} tokens; counts from the engine's estimator (o200k-calibrated).`));
}

export function renderSynthetic(recall) {
  fill("synthetic", recall
    ? h("pre", { class: "json" }, JSON.stringify(recall.messages, null, 2))
    : h("p", { class: "note" }, "No synthetic messages this turn (no recall)."));
}

let finalMessages = [];

/** The final messages' summary line; their JSON only while the <details> is open (long transcripts). */
export function renderFinal(messages, historyCount) {
  finalMessages = messages;
  fill("final-summary", `Final messages (${messages.length}: ${historyCount} from the transcript${messages.length > historyCount ? " + the synthetic pair" : ""})`);
  drawFinal();
}

export function drawFinal() {
  const open = document.getElementById("final-details").open;
  fill("final", open ? h("pre", { class: "json" }, JSON.stringify(finalMessages, null, 2)) : null);
}

export function renderExport(snippet) {
  const box = document.getElementById("export");
  box.value = JSON.stringify(snippet, null, 2);
  box.rows = box.value.split("\n").length;
}

export function renderWarnings(warnings) {
  const el = fill("warnings", warnings.map((w) => h("li", {}, w)));
  el.hidden = !warnings.length;
}

/** An error banner; engine errors show their code and field. Pass null to clear. */
export function renderError(err) {
  const el = document.getElementById("engine-error");
  for (const input of document.querySelectorAll(".invalid")) input.classList.remove("invalid");
  if (err?.field) document.getElementById(`set-${err.field}`)?.classList.add("invalid");
  if (!err) {
    el.hidden = true;
    el.replaceChildren();
    document.getElementById("results").classList.remove("stale");
    return;
  }
  const parts = [h("strong", {}, err.code ? `Engine error ${err.code}` : "Error")];
  if (err.field) parts.push(" · field ", h("code", { id: "error-field" }, err.field));
  parts.push(h("div", {}, err.message));
  parts.push(h("div", { class: "help" }, "The results below are from the last valid input."));
  fill(el, parts);
  el.hidden = false;
  document.getElementById("results").classList.add("stale");
}
