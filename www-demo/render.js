// Renders the engine's answer for the current turn (Engine.assemble): the recall query with
// used/skipped turns, injected vs cut (with reasons), the ranked candidates with their rank
// components, the token budget bar (the engine's split), the composed context message by
// message (a tool output kept out of the context shown as its stand-in: tool, tokens → stand-in
// tokens, reference), the exact synthetic memory_recall_auto messages, the final messages and
// the config export. Every function fills one element of index.html by id; none of them computes what the
// model sees — that is the engine's answer, drawn as it is.
import { h, fill, num, tok } from "./dom.js";
import { preview, textOf } from "./messages.js";

const SKIP_LABEL = { empty: "empty", greeting: "greeting / ack", command: "/command", too_short: "too short", injected_only: "injected only" };
const CUT_ORDER = ["malformed", "not_level_2", "agent_evolution", "below_threshold", "no_query_word", "far_below_best", "duplicate", "superseded", "over_limit", "over_budget"];

/** The query parts as a list (shared with the timeline view). */
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

/** Injected vs cut: counts, cut reasons, the recall pair's tokens (the outcome's, and how
 *  they stand in the context: the engine's `split`), and the injected memories. */
export function renderDecisions(out) {
  const recall = out.recall;
  if (!recall) {
    fill("decisions", h("p", { class: "note" }, "No recall this turn."), h("span", { id: "injected-count", hidden: true }, "0"));
    return;
  }
  const trimmed = out.trimmed.recall;
  const cuts = {};
  for (const e of recall.explain) if (e.decision === "cut") cuts[e.reason] = (cuts[e.reason] ?? 0) + 1;
  const cutTotal = Object.values(cuts).reduce((a, b) => a + b, 0);
  fill("decisions",
    h("div", { class: "stats" },
      h("div", { class: "stat kept" }, h("span", { class: "big", id: "injected-count" }, recall.memories.length), trimmed ? " memories picked, not injected" : ` memor${recall.memories.length === 1 ? "y" : "ies"} injected`),
      h("div", { class: "stat cut" }, h("span", { class: "big", id: "cut-count" }, cutTotal), " cut"),
      h("div", { class: "stat", id: "recall-tokens", dataset: { tokens: recall.tokens, budget: recall.budget } },
        h("span", { class: "big" }, `${tok(recall.tokens)} / ${tok(recall.budget)}`), " recall pair tokens (of recallTokenBudget)"),
      h("ul", { class: "reasons", id: "cut-reasons" }, CUT_ORDER.filter((r) => cuts[r]).map((r) =>
        h("li", {}, h("span", { class: `badge cut-${r}` }, r), ` ${cuts[r]}`)))),
    pairLine(out),
    trimmed
      ? h("p", { class: "error-inline", id: "recall-trimmed" }, "The host token budget trimmed the recall pair: these memories were picked, but the model does not see them this turn (see Token budget).")
      : null,
    recall.memories.length
      ? h("ol", { class: "memories", id: "injected" }, recall.memories.map((m) =>
          h("li", {},
            h("div", { class: "mem-head" }, h("span", { class: "badge cat" }, m.category), h("span", { class: "score" }, `score ${num(m.score)}`), h("span", { class: "uri" }, m.uri)),
            h("div", { class: "mem-body" }, m.content))))
      : h("p", { class: "note" }, recall.tokens
          ? "No memory injected (every candidate was cut, see the table): the pair carries only what is listed beside the memories (see Token budget)."
          : "Nothing injected: every candidate was cut (see the reasons in the table)."));
}

/** The recall pair's tokens as the Token budget bar shows them (the engine's `split`): its
 *  memories part and its skills part make the outcome's `tokens`; the line opening the pair
 *  is counted apart, outside recallTokenBudget. */
function pairLine(out) {
  const { recall, split } = out;
  if (!out.recallIncluded) {
    return h("p", { class: "help", id: "recall-pair-line", dataset: { included: "false" } },
      recall.tokens ? "The recall pair is not in the context this turn: 0 of its tokens reach the model." : "No recall pair this turn: nothing to inject.");
  }
  return h("p", { class: "help", id: "recall-pair-line", dataset: { included: "true", memories: split.recall, skills: split.skills ?? 0, opening: split.recallOpening ?? 0 } },
    "In the context (Token budget): recall pair = memories ", h("strong", {}, tok(split.recall)),
    recall.experienceTokens ? ` (experience lines ${tok(recall.experienceTokens)} of them)` : "",
    " + skills ", h("strong", {}, tok(split.skills ?? 0)), ` = ${tok(recall.tokens)} tokens`,
    `, plus ${tok(split.recallOpening ?? 0)} for the one-line user message that opens the pair (not counted in recallTokenBudget).`);
}

/** The key results in one line that stays in view (sticky) while the settings are edited:
 *  memories injected and cut, the recall pair's tokens of its budget, the composed context's
 *  tokens of the host budget — the same engine numbers the cards below show. */
export function renderKeyResults(out) {
  const recall = out.recall;
  const cut = recall ? recall.explain.filter((e) => e.decision === "cut").length : 0;
  const budget = out.budget ?? out.estimatedTokens;
  fill("key-results",
    h("span", { id: "key-injected", dataset: { memories: recall ? recall.memories.length : 0 } },
      h("strong", {}, recall ? recall.memories.length : 0), out.trimmed.recall ? " picked, not injected" : " injected"),
    h("span", { id: "key-cut" }, h("strong", {}, cut), " cut"),
    h("span", { id: "key-recall", dataset: { tokens: recall ? recall.tokens : 0, budget: recall ? recall.budget : 0 } },
      "recall pair ", h("strong", {}, recall ? `${tok(recall.tokens)} / ${tok(recall.budget)}` : "none"), recall ? " tokens" : ""),
    h("span", { id: "key-total", dataset: { tokens: out.estimatedTokens, budget } },
      "context ", h("strong", {}, `${tok(out.estimatedTokens)} / ${tok(budget)}`), " tokens"));
}

/** One row per candidate, in the engine's order, with every rank component; a candidate the
 *  grep for the question's words placed (its `lexical_rank` in the search results the engine
 *  fused: `liveSearch`, src/recall/lexical.rs) says so beside its uri. */
export function renderCandidates(recall, search) {
  if (!recall) return fill("candidates", h("p", { class: "note" }, "No candidates: no recall this turn."));
  const head = ["", "decision", "total", "score", "level", "temporal", "pref.", "lexical", "matched", "tokens", "scope", "cat.", "uri"];
  const grepRank = new Map();
  for (const scope of [search?.user, search?.agent]) {
    const items = Array.isArray(scope) ? scope : scope?.memories;
    if (Array.isArray(items)) for (const it of items) if (Number.isInteger(it?.lexical_rank) && !grepRank.has(it.uri)) grepRank.set(it.uri, it.lexical_rank);
  }
  const rows = recall.explain.map((e, i) => {
    const r = e.rank;
    const grep = grepRank.get(e.uri);
    const decision = e.decision === "kept"
      ? h("span", { class: "badge ok" }, `kept #${e.position}`)
      : h("span", { class: `badge cut-${e.reason}` }, e.reason);
    const note = e.duplicateOf ? h("div", { class: "dup" }, e.reason === "superseded" ? "older than " : "duplicate of ", e.duplicateOf) : e.detail ? h("div", { class: "dup" }, e.detail) : null;
    return h("tr", { class: e.decision, dataset: { reason: e.reason ?? "kept", ...(grep ? { grepRank: grep } : {}) } },
      h("td", { class: "n" }, i + 1), h("td", {}, decision),
      h("td", { class: "n strong" }, num(r.total)), h("td", { class: "n" }, num(r.score)),
      h("td", { class: "n" }, plus(r.levelBoost)), h("td", { class: "n" }, plus(r.temporalBoost)),
      h("td", { class: "n" }, plus(r.preferenceBoost)), h("td", { class: "n" }, plus(r.lexicalBoost)),
      h("td", { class: "n" }, r.matchedTokens), h("td", { class: "n" }, e.tokens ?? "–"),
      h("td", {}, e.scope), h("td", {}, e.category ?? "–"),
      h("td", { class: "uri", title: e.uri }, e.uri ? e.uri.replace(/^viking:\/\//, "") : "(no uri)",
        grep ? h("span", { class: "badge grep", title: "placed by the grep for the question's words, at the vector score of this rank" }, ` words #${grep}`) : null, note));
  });
  fill("candidates", h("table", { class: "cands" },
    h("thead", {}, h("tr", {}, head.map((c) => h("th", {}, c)))),
    h("tbody", {}, rows)));
}

const plus = (x) => (x ? `+${num(x)}` : "·");

/**
 * The token budget as the engine composed it: the bar's parts are `out.split` (summary
 * message, raw turns kept, recall pair, current turn — they add up to `out.estimatedTokens`),
 * the rest of the host budget is free; what was trimmed to fit is `out.trimmed`.
 */
export function renderBudget(out, rawSetting, largeSetting) {
  const { split, trimmed } = out;
  const budget = out.budget ?? out.estimatedTokens;
  const latest = out.compactSummaries.at(-1);
  const segments = [
    { key: "summary", label: "summary", value: split.summary,
      note: latest
        ? `the <conversation-summary> message of checkpoint ${latest.checkpointId}: turn sequences ${latest.turns[0]}–${latest.turns[1]}, standing for ${out.summarizedTurns} earlier turn${out.summarizedTurns === 1 ? "" : "s"} of this transcript${out.compactSummaries.length > 1 ? ` (+ ${out.compactSummaries.length - 1} older summar${out.compactSummaries.length === 2 ? "y" : "ies"})` : ""}`
        : trimmed.latestSummary ? "the summary was trimmed to fit the budget" : "no compact summary: this session has no checkpoint with a summary (yet)" },
    { key: "raw", label: "raw turns", value: split.raw,
      note: `${out.recentRawTurns} earlier turn${out.recentRawTurns === 1 ? "" : "s"} kept raw (recentRawTurnCount ${rawSetting})${trimmed.rawTurns ? `; the ${trimmed.rawTurns} oldest trimmed to fit` : ""}` +
        (out.standIns.length ? `; ${out.standIns.length} tool output${out.standIns.length === 1 ? "" : "s"} counted as ${out.standIns.length === 1 ? "its stand-in" : "their stand-ins"} (see below)` : "") },
    { key: "recall", label: "recall pair: memories", value: split.recall,
      note: (out.recallIncluded ? `the synthetic memory_recall_auto call and result with ${out.recall.memories.length} memor${out.recall.memories.length === 1 ? "y" : "ies"}` : trimmed.recall ? "trimmed: the recall pair did not fit the budget" : "no recall pair this turn") +
        (out.recallIncluded && out.recall?.experienceTokens ? `, of which ${tok(out.recall.experienceTokens)} for experience lines (see below)` : "") +
        (out.recallIncluded ? `; with skills: the pair's ${tok(out.recall.tokens)} of the ${tok(out.recall.budget)} recallTokenBudget` : "") },
    { key: "skills", label: "recall pair: skills", value: split.skills ?? 0,
      note: out.skills.length ? `the skills list in the same result: ${out.skills.length} skill${out.skills.length === 1 ? "" : "s"} (see below)${out.recall?.memories.length || out.recall?.experienceTokens ? "" : "; with no memory or experience, the call is counted here"}` : "no skill listed this turn" },
    { key: "recallOpening", label: "recall opening", value: split.recallOpening ?? 0,
      note: out.recallIncluded ? "the one-line user message before the pair; not counted in recallTokenBudget" : "no recall pair this turn" },
    { key: "map", label: "map", value: split.map ?? 0,
      note: out.map ? "the map of folders in the system prompt addition (see below)" : "no map of folders this turn" },
    { key: "current", label: "current turn", value: split.current, note: "the current turn with its prompt: never trimmed" },
    { key: "free", label: "free", value: Math.max(0, budget - out.estimatedTokens), note: "left of the host budget" },
  ];
  const scale = Math.max(budget, out.estimatedTokens) || 1;
  const yes = (b) => (b ? "yes" : "no");
  const cuts = [
    { key: "recall", label: "recall pair trimmed", value: yes(trimmed.recall) },
    { key: "olderSummaries", label: "older summaries trimmed", value: trimmed.olderSummaries },
    { key: "rawTurns", label: "oldest raw turns trimmed", value: trimmed.rawTurns },
    { key: "latestSummary", label: "latest summary trimmed", value: yes(trimmed.latestSummary) },
  ];
  fill("budget",
    h("div", { class: "bar", id: "budget-bar", role: "img", "aria-label": segments.map((s) => `${s.label} ${s.value}`).join(", ") },
      segments.filter((s) => s.value > 0).map((s) =>
        h("div", { class: `seg seg-${s.key}`, dataset: { part: s.key, tokens: s.value }, style: { width: `${(100 * s.value) / scale}%` }, title: `${s.label}: ${tok(s.value)} tokens` }))),
    h("p", { class: "budget-total", id: "budget-total", dataset: { tokens: out.estimatedTokens, budget } },
      h("strong", {}, `${tok(out.estimatedTokens)} / ${tok(budget)} tokens`), " composed (the engine's estimatedTokens, o200k-calibrated)"),
    out.overBudget
      ? h("p", { class: "error-inline", id: "budget-over", dataset: { tokens: out.estimatedTokens - budget } },
          `Over the host budget by ${tok(out.estimatedTokens - budget)} tokens: the current turn alone does not fit, and the engine never trims it.`)
      : null,
    h("ul", { class: "legend" }, segments.map((s) =>
      h("li", { id: `budget-${s.key}`, dataset: { tokens: s.value } },
        h("span", { class: `swatch seg-${s.key}` }), h("strong", {}, s.label), ` ${tok(s.value)}`,
        h("span", { class: "pct" }, ` (${((100 * s.value) / scale).toFixed(1)}\u00a0%)`), h("div", { class: "help" }, s.note)))),
    h("h3", {}, "Injected beside the memories"),
    extrasList(out),
    h("h3", {}, "Tool outputs as stand-ins"),
    standInList(out.standIns, largeSetting),
    h("h3", {}, "Trimmed to fit"),
    h("ul", { class: "trimmed", id: "budget-trimmed" }, cuts.map((c) =>
      h("li", { id: `trimmed-${c.key}`, dataset: { value: c.value }, class: c.value && c.value !== "no" ? "hit" : null }, `${c.label}: `, h("strong", {}, c.value)))),
    h("p", { class: "help" }, "Over budget the engine drops recalled memories first, then older summaries, then the oldest raw turns, then the latest summary."));
}

/** The experiences, skills and map the engine returned, each with its tokens and why it is
 *  there (or why it was cut): the engine's records as they are. */
function extrasList(out) {
  const experiences = out.recall?.experiences ?? [];
  const items = [
    ...experiences.map((x) =>
      h("li", { class: x.decision === "kept" ? "kept" : "cut", dataset: { part: "experience", uri: x.uri, decision: x.decision, tokens: x.tokens ?? 0, ...(x.reason && { reason: x.reason }) } },
        h("strong", {}, "experience "), h("code", {}, x.name), ` ${x.decision}`,
        x.tokens !== null && x.tokens !== undefined ? ` · ${tok(x.tokens)} tokens` : "", ` · score ${num(x.score, 2)}`,
        x.position !== null && x.position !== undefined ? ` · experience ${x.position} in the recall pair` : "",
        h("span", { class: "help" }, x.why.length ? ` · why: ${x.why.join("; ")}` : "", x.reason ? ` · cut: ${x.reason}` : ""))),
    ...out.skills.map((s) =>
      h("li", { class: "kept", dataset: { part: "skill", uri: s.uri, tokens: s.tokens, score: s.score } },
        h("strong", {}, "skill "), h("code", {}, s.name), ` · ${tok(s.tokens)} tokens · search score ${num(s.score, 2)}`,
        h("span", { class: "help" }, ` · ${s.description} (${s.uri})`))),
    out.map
      ? h("li", { class: "kept", dataset: { part: "map", tokens: out.map.tokens, listed: out.map.listed, leftOut: out.map.leftOut } },
          h("strong", {}, "map of folders"), ` · ${tok(out.map.tokens)} tokens · ${out.map.listed} entr${out.map.listed === 1 ? "y" : "ies"} listed, ${out.map.leftOut} left out (memoryMapTokenBudget)`,
          h("pre", { class: "map-text" }, out.map.text))
      : null,
  ].filter(Boolean);
  if (!items.length) {
    return h("p", { class: "note", id: "budget-extras", dataset: { count: 0 } }, "No experience, skill or map of folders this turn.");
  }
  return h("ul", { class: "extras", id: "budget-extras", dataset: { count: items.length } }, items);
}

/** The engine's `standIns`: per output, its tokens and the tokens of the stand-in the model sees instead. */
function standInList(standIns, largeSetting) {
  if (!standIns.length) {
    return h("p", { class: "note", id: "budget-standins", dataset: { count: 0 } },
      `No tool output over largeToolResultTokens (${tok(largeSetting)}): every output reaches the model as it is.`);
  }
  return h("ul", { class: "standins", id: "budget-standins", dataset: { count: standIns.length } }, standIns.map((s) =>
    h("li", { dataset: { reference: s.reference, tool: s.toolName, tokens: s.tokens, standInTokens: s.standInTokens, lines: s.lines } },
      h("strong", {}, s.toolName), ` ${tok(s.tokens)} → ${tok(s.standInTokens)} tokens`,
      h("span", { class: "help" }, ` · ${tok(s.lines)} lines · over largeToolResultTokens ${tok(largeSetting)} · `),
      h("code", { class: "ref" }, s.reference))));
}

const KIND_LABEL = { summary: "summary", raw: "raw", recall: "synthetic pair", opening: "recall opening", current: "current turn" };

/**
 * The composed context, message by message, as `Engine.assemble` returned it: the summary
 * message (when a checkpoint's summary stands for earlier turns), the raw turns kept, the
 * synthetic recall pair, then the current turn, whose prompt the host sends apart from the
 * messages. `perMessage` = the engine's estimate of each message (estimateMessageTokens).
 */
export function renderComposed(out, perMessage, prompt) {
  const pair = out.recallIncluded && out.recall ? out.recall.messages.map((m) => JSON.stringify(m)) : [];
  // the pair's call and the message just before it, which opens the pair
  const call = pair.length ? out.messages.findIndex((m) => JSON.stringify(m) === pair[0]) : -1;
  const hasSummary = out.compactSummaries.length > 0;
  const latest = out.compactSummaries.at(-1);
  const items = out.messages.map((m, i) => ({
    message: m, tokens: perMessage[i],
    kind: i === 0 && hasSummary ? "summary" : pair.includes(JSON.stringify(m)) ? "recall" : i === call - 1 ? "opening" : "raw",
    standIn: m.role === "toolResult" ? out.standIns.find((s) => s.callId === m.toolCallId) ?? null : null,
  }));
  // the prompt's tokens are what the engine counted beyond the messages
  const promptTokens = out.estimatedTokens - perMessage.reduce((a, b) => a + b, 0);
  const rawMessages = items.filter((it) => it.kind === "raw").length;
  fill("composed",
    h("p", { class: "composed-line", id: "composed-line" },
      hasSummary ? `1 summary message (for ${out.summarizedTurns} earlier turns) · ` : "",
      `${out.recentRawTurns} raw turns (${rawMessages} messages) · `,
      out.recallIncluded ? "the recall pair with its opening message · " : out.trimmed.recall ? "recall pair trimmed · " : "no recall pair · ",
      out.standIns.length ? `${out.standIns.length} tool output${out.standIns.length === 1 ? "" : "s"} as stand-in${out.standIns.length === 1 ? "" : "s"} · ` : "",
      `the current turn: ${tok(out.estimatedTokens)} tokens in all`),
    out.systemPromptAddition
      ? h("details", { class: "addition", id: "system-addition" },
          h("summary", {}, `System prompt addition (${[out.compactSummaries.length ? "from the summary's Current State and Open Issues" : null, out.map ? `the map of folders: ${tok(out.map.tokens)} tokens` : null].filter(Boolean).join("; ") || "from the summary's Current State and Open Issues"})`),
          h("pre", { class: "query-text" }, out.systemPromptAddition))
      : null,
    h("ol", { class: "composed", id: "composed-list" },
      items.map((it, i) => h("li", {
        class: `msg msg-${it.kind}${it.standIn ? " msg-standin" : ""}`,
        dataset: { kind: it.kind, role: it.message.role, tokens: it.tokens, ...(it.standIn && { reference: it.standIn.reference, fullTokens: it.standIn.tokens, standInTokens: it.standIn.standInTokens }) },
      },
        h("span", { class: "n" }, i + 1),
        h("span", { class: `badge kind-${it.kind}` }, it.kind === "summary" && latest ? `summary · seq ${latest.turns[0]}–${latest.turns[1]}` : KIND_LABEL[it.kind]),
        h("span", { class: "role" }, it.message.role === "toolResult" ? `toolResult ${it.message.toolName ?? ""}`.trim() : it.message.role),
        h("span", { class: "tokens" }, `${tok(it.tokens)} tok`),
        it.standIn
          ? h("details", { class: "text standin" },
              h("summary", {},
                h("span", { class: "badge kind-standin" }, "stand-in"),
                ` ${it.standIn.toolName} output of ${tok(it.standIn.tokens)} tokens (${tok(it.standIn.lines)} lines) → ${tok(it.standIn.standInTokens)} tokens · `,
                h("code", { class: "ref" }, it.standIn.reference),
                h("span", { class: "help" }, " · the full output: memory_read_output with this reference")),
              h("pre", { class: "query-text standin-text" }, textOf(it.message)))
          : it.kind === "summary"
          ? h("details", { class: "text" },
              h("summary", {}, `Stands for ${out.summarizedTurns} earlier turn${out.summarizedTurns === 1 ? "" : "s"} of this transcript (full text via memory_expand on ${latest?.sessionUri ?? "its archive"})`),
              h("pre", { class: "query-text", id: "composed-summary-text" }, textOf(it.message)))
          : h("span", { class: "text" }, preview(it.message)))),
      h("li", { class: "msg msg-current", dataset: { kind: "current", role: "user", tokens: promptTokens } },
        h("span", { class: "n" }, items.length + 1),
        h("span", { class: "badge kind-current" }, KIND_LABEL.current),
        h("span", { class: "role" }, "user"),
        h("span", { class: "tokens" }, `${tok(promptTokens)} tok`),
        h("span", { class: "text" }, prompt.trim() ? preview({ content: prompt }) : "(empty prompt)", h("span", { class: "help" }, " · the prompt, sent by the host apart from the messages")))));
}

export function renderSynthetic(recall, out) {
  fill("synthetic", recall
    ? [out.trimmed.recall ? h("p", { class: "note", id: "synthetic-trimmed" }, "Trimmed by the host budget this turn: the engine built this pair but left it out of the context.") : null,
       h("pre", { class: "json" }, JSON.stringify(recall.messages, null, 2))]
    : h("p", { class: "note" }, "No synthetic messages this turn (no recall)."));
}

let finalMessages = [];

/** The final messages' summary line; their JSON only while the <details> is open (long transcripts). */
export function renderFinal(out) {
  finalMessages = out.messages;
  const summary = out.compactSummaries.length ? 1 : 0;
  const pair = out.recallIncluded ? 3 : 0; // the opening user message, the call, the result
  const parts = [summary ? "the summary" : null, `${out.messages.length - summary - pair} raw`, pair ? "the synthetic pair" : null].filter(Boolean);
  fill("final-summary", `Final messages (${out.messages.length}: ${parts.join(" + ")}; the current prompt goes apart)`);
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
