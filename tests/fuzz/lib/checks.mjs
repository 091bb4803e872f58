// Outcome classification (trap / codeless / coded error / ok) and the invariants of
// successful results.

export const CODES = ["INVALID_CONFIG", "INVALID_INPUT", "HOST_FAILED", "HOST_TIMEOUT", "INTERNAL"];

export function safeMessage(e) {
  try {
    if (e === null || e === undefined) return String(e);
    if (typeof e === "symbol") return e.toString();
    if (typeof e === "object" || typeof e === "function") {
      const m = e.message;
      return typeof m === "string" ? m : String(m);
    }
    return String(e);
  } catch (x) {
    return "(message unreadable)";
  }
}

function prop(e, k) {
  try {
    return e !== null && (typeof e === "object" || typeof e === "function") ? e[k] : undefined;
  } catch {
    return undefined;
  }
}

const TRAP_RE = /unreachable|memory access out of bounds|out of bounds memory access|table index is out of bounds|null function or function signature mismatch|integer overflow|divide by zero|invalid conversion to integer|indirect call|RuntimeError/i;
const POISON_RE = /recursive use of an object detected|attempted to take ownership of Rust value while it was borrowed|already (mutably )?borrowed|closure invoked (recursively|after being dropped)|null pointer passed to rust/i;

/**
 * How a thrown/rejected value counts: `trap` (the wasm trapped, or its stack overflowed),
 * `codeless` (no string `code`, an undocumented code, or INVALID_INPUT/INVALID_CONFIG without a
 * string `field`), else `coded` with its code.
 */
/** `instanceof` that survives a Proxy whose getPrototypeOf trap throws. */
function isA(e, C) {
  try {
    return e instanceof C;
  } catch {
    return false;
  }
}

export function classifyError(e) {
  const message = safeMessage(e);
  const code = prop(e, "code");
  if (isA(e, WebAssembly.RuntimeError) || (typeof code !== "string" && TRAP_RE.test(message))) return { kind: "trap", message };
  if (isA(e, RangeError) && /call stack/i.test(message)) return { kind: "trap", message: `stack overflow: ${message}` };
  if (typeof code !== "string") {
    const what = POISON_RE.test(message) ? "wasm-bindgen borrow/ownership error" : isA(e, Error) ? `${prop(e, "constructor")?.name ?? "Error"} without code` : `non-Error thrown (${typeof e})`;
    return { kind: "codeless", message, what };
  }
  if (!CODES.includes(code)) return { kind: "codeless", message, what: `undocumented code ${JSON.stringify(code)}` };
  if ((code === "INVALID_INPUT" || code === "INVALID_CONFIG") && typeof prop(e, "field") !== "string") {
    return { kind: "codeless", message, what: `${code} without a string field (${typeof prop(e, "field")})` };
  }
  if (!isA(e, Error)) return { kind: "codeless", message, what: `code ${code} on a non-Error` };
  return { kind: "coded", code, message, field: prop(e, "field") };
}

// ---- invariants ------------------------------------------------------------------------

const isLone = (s) => /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);
export const hasLone = isLone;

/** A non-string id as the engine re-serialises it (serde_json: object keys sorted). */
function canonical(v) {
  if (typeof v === "string") return v;
  const sort = (x) => (Array.isArray(x) ? x.map(sort) : x && typeof x === "object" ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, sort(x[k])])) : x);
  return JSON.stringify(sort(v)) ?? String(v);
}

/** Tool-call ids whose pairing is broken: not exactly one call and one result after it. */
export function toolPairProblems(messages) {
  const calls = new Map();
  const results = new Map();
  const order = [];
  if (!Array.isArray(messages)) return new Set();
  messages.forEach((m, i) => {
    if (!m || typeof m !== "object") return;
    if (m.role === "assistant" && Array.isArray(m.content)) {
      for (const p of m.content) if (p && p.type === "toolCall") {
        const id = canonical(p.id);
        calls.set(id, (calls.get(id) ?? 0) + 1);
        order.push([id, "call", i]);
      }
    }
    if (m.role === "toolResult") {
      const id = canonical(m.toolCallId);
      results.set(id, (results.get(id) ?? 0) + 1);
      order.push([id, "result", i]);
    }
  });
  const bad = new Set();
  for (const id of new Set([...calls.keys(), ...results.keys()])) {
    if (calls.get(id) !== 1 || results.get(id) !== 1) bad.add(id);
    else {
      const c = order.find(([x, k]) => x === id && k === "call")[2];
      const r = order.find(([x, k]) => x === id && k === "result")[2];
      if (r <= c) bad.add(id);
    }
  }
  return bad;
}

/** New pairing problems the engine introduced (problems already in the input are the host's). */
export function checkToolPairs(where, input, output, fail) {
  // the input as the engine saw it (JSON): a Date id is its ISO string, a getter is its value
  let seen = [];
  try {
    seen = JSON.parse(JSON.stringify(input ?? []));
  } catch {}
  // …with lone surrogates as U+FFFD, as the engine reads them: two ids that differ only in a
  // lone surrogate are one id to it, a pairing problem already in the input
  const wellFormed = (v) => (typeof v === "string" ? v.toWellFormed() : Array.isArray(v) ? v.map(wellFormed) : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, wellFormed(x)])) : v);
  seen = wellFormed(seen);
  const before = toolPairProblems(seen);
  for (const id of toolPairProblems(output)) if (!before.has(id)) fail(`${where}: toolCall/toolResult ${JSON.stringify(id).slice(0, 60)} not paired exactly once`);
}

export function checkRecall(where, recall, cfg, { inputLone, tokensOf }, fail) {
  if (recall === null || recall === undefined) return;
  if (typeof recall.tokens !== "number" || typeof recall.budget !== "number") return fail(`${where}: recall.tokens/budget not numbers`);
  if (recall.tokens > recall.budget) fail(`${where}: recall.tokens ${recall.tokens} > recall.budget ${recall.budget}`);
  if (cfg && recall.budget > cfg.recallTokenBudget) fail(`${where}: recall.budget ${recall.budget} > recallTokenBudget ${cfg.recallTokenBudget}`);
  if (tokensOf && Array.isArray(recall.messages) && recall.messages.length) {
    const t = tokensOf(recall.messages);
    if (t !== null && t > recall.budget) fail(`${where}: the synthetic pair is ${t} tokens by estimateMessageTokens > recall.budget ${recall.budget}`);
  }
  const max = cfg?.recallMaxContentChars;
  const contents = [];
  for (const m of recall.memories ?? []) contents.push(m?.content);
  // the memories as the model sees them: one "- " line per memory inside the toolResult, each
  // memory's whitespace collapsed (so no memory spans two lines)
  for (const msg of recall.messages ?? []) {
    if (msg?.role !== "toolResult") continue;
    for (const part of Array.isArray(msg.content) ? msg.content : []) {
      const lines = typeof part?.text === "string" ? part.text.split("\n") : [];
      if (lines.length !== (recall.memories ?? []).length || !lines.every((l) => l.startsWith("- "))) {
        fail(`${where}: the toolResult text is not one "- " line per memory`);
        continue;
      }
      for (const l of lines) contents.push(l.slice(2));
    }
  }
  for (const c of contents) {
    if (typeof c !== "string") { fail(`${where}: memory content is ${typeof c}`); continue; }
    if (max !== undefined && c.length > max) fail(`${where}: memory content ${c.length} UTF-16 units > recallMaxContentChars ${max}`);
    if (c.endsWith("...") && /[\uD800-\uDBFF]$/.test(c.slice(0, -3))) fail(`${where}: truncation split a surrogate pair`);
    if (!inputLone && isLone(c)) fail(`${where}: memory content has a lone surrogate the input did not have`);
  }
}

export function checkQuery(where, q, fail) {
  if (!q || typeof q !== "object") return fail(`${where}: query is ${typeof q}`);
  if (q.query !== null && typeof q.query !== "string") return fail(`${where}: query.query is ${typeof q.query}`);
  if (typeof q.query === "string" && q.query.length > 1000) fail(`${where}: recall query ${q.query.length} UTF-16 units > 1000`);
}

/** `RecalledMemory[]` (memory_recall's answer): shapes, content length, surrogates, scores. */
export function checkMemories(where, memories, { max, inputLone, limit, threshold }, fail) {
  if (!Array.isArray(memories)) return fail(`${where}: memories is not an array`);
  if (limit !== undefined && memories.length > limit) fail(`${where}: ${memories.length} memories > limit ${limit}`);
  for (const m of memories) {
    if (!m || typeof m.uri !== "string" || typeof m.category !== "string" || typeof m.content !== "string" || typeof m.score !== "number") {
      fail(`${where}: a memory is not {uri, category, content, score}: ${JSON.stringify(m)?.slice(0, 120)}`);
      continue;
    }
    const c = m.content;
    if (max !== undefined && c.length > max) fail(`${where}: memory content ${c.length} UTF-16 units > recallMaxContentChars ${max}`);
    if (c.endsWith("...") && /[\uD800-\uDBFF]$/.test(c.slice(0, -3))) fail(`${where}: truncation split a surrogate pair`);
    if (!inputLone && isLone(c)) fail(`${where}: memory content has a lone surrogate the input did not have`);
    if (!(m.score >= 0 && m.score <= 1)) fail(`${where}: score ${m.score} outside [0, 1]`);
    // scores are reported rounded to 2 decimals
    if (threshold !== undefined && m.score + 0.005 + 1e-9 < threshold) fail(`${where}: score ${m.score} below scoreThreshold ${threshold}`);
  }
}

/** A value as the engine reads it: JSON, lone surrogates as U+FFFD; objects compared with sorted keys. */
export function engineView(v) {
  let seen;
  try {
    seen = JSON.parse(JSON.stringify(v) ?? "null");
  } catch {
    return undefined;
  }
  const wf = (x) => (typeof x === "string" ? x.toWellFormed() : Array.isArray(x) ? x.map(wf) : x && typeof x === "object" ? Object.fromEntries(Object.entries(x).map(([k, y]) => [k.toWellFormed(), wf(y)])) : x);
  return wf(seen);
}
export function sameJson(a, b) {
  return canonical(a) === canonical(b);
}

/** The text of a message as the engine reads it (string content, or its text parts). */
export function messageText(m) {
  if (typeof m?.content === "string") return m.content;
  if (Array.isArray(m?.content)) return m.content.filter((p) => p && p.type === "text" && typeof p.text === "string").map((p) => p.text).join("\n");
  return "";
}

export function tokensOf(W) {
  return (messages) => {
    try {
      const t = W.pkg.estimateMessageTokens(messages);
      return t.reduce((a, b) => a + b, 0);
    } catch {
      return null;
    }
  };
}

export const checkAutoRecall = (r, fail, { cfg, input, inputLone, W }) => {
  checkQuery("autoRecall", r.query, fail);
  checkRecall("autoRecall", r.recall, cfg, { inputLone, tokensOf: tokensOf(W) }, fail);
  checkToolPairs("autoRecall.messages", input?.messages, r.messages, fail);
  if (r.recall) checkToolPairs("autoRecall.recall.messages", [], r.recall.messages, fail);
};

export const checkAssemble = (r, fail, { cfg, input, inputLone, W }) => {
  checkQuery("assemble", r.query, fail);
  checkRecall("assemble", r.recall, cfg, { inputLone, tokensOf: tokensOf(W) }, fail);
  checkToolPairs("assemble.messages", input?.messages, r.messages, fail);
  const budget = r.budget;
  if (typeof budget === "number") {
    if (r.estimatedTokens > budget && !r.overBudget) fail(`assemble: estimatedTokens ${r.estimatedTokens} > budget ${budget} and overBudget is false`);
    const t = tokensOf(W)(r.messages);
    const prompt = typeof input?.prompt === "string" ? W.pkg.estimateTokens(input.prompt) + 4 : 0;
    if (t !== null && t + prompt > budget && !r.overBudget) fail(`assemble: the output messages are ${t + prompt} tokens by estimateMessageTokens > budget ${budget} and overBudget is false`);
    if (r.overBudget && r.recallIncluded) fail("assemble: over budget with the recall pair still included (memories go first)");
  }
};

