// A scripted fake LLM on 127.0.0.1 speaking the OpenAI chat-completions API the way
// OpenClaw's `openai-completions` provider uses it: GET /v1/models, POST /v1/chat/completions
// (SSE streaming with tool_call deltas, `usage` when asked, `data: [DONE]`; or one JSON body).
// Every request body is logged (memory + optional JSONL file) so a test can assert exactly
// what the model received. Replies come from `script(request, index)`:
//   { text } | { toolCalls: [{ name, arguments }] } | { error: "context_length_exceeded" }
//   (error may also be { kind, maxTokens, requestedTokens, status, message })
// (a reply may also be a Promise; null → defaultScript, also passed as 3rd argument).
// It also speaks Anthropic's Messages API the way OpenClaw's `anthropic-messages` transport
// (@anthropic-ai/sdk `messages.create({…, stream: true})`, baseURL + "/v1/messages") uses it:
// POST …/messages streams message_start / content_block_* / message_delta / message_stop
// events (one JSON message without `stream`). Each Messages request is first VALIDATED as
// Anthropic and Bedrock would (`anthropicViolation`): a refused one is answered 400
// `invalid_request_error` with the reason, and recorded in `rejections` too. The script gets
// an OpenAI-shaped view of it (`anthropicToChat`), so the same scripts drive both APIs.
// No dependencies; runs on Node ≥ 20.
import http from "node:http";
import fs from "node:fs";

/** Plain text of an OpenAI message's content (string or array of parts). */
export function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p === "string" ? p : p?.text ?? "")).join("");
  return "";
}

export const INTERNAL_CONTEXT_MARK = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>";
/** After overflow compaction OpenClaw retries with this synthetic user prompt appended. */
export const CONTINUE_PROMPT_START = "Continue the current task from the existing transcript";

/** The question itself: OpenClaw wraps it as "[Mon 2026-11-30 05:01 UTC] text\n\nRuntime: …". */
export function questionOf(m) {
  return textOf(m?.content).replace(/^\[[^\]\n]{0,80}\] /, "").replace(/\n\nRuntime: [\s\S]*$/, "").trim();
}

/**
 * A user message OpenClaw adds itself, not a question: the internal-context block (exec
 * sessions, subagents; sent last on every request, also after tool results) or the
 * continuation prompt of a retry after compaction.
 */
export function isInternalUser(m) {
  if (m?.role !== "user") return false;
  return textOf(m.content).includes(INTERNAL_CONTEXT_MARK) || questionOf(m).startsWith(CONTINUE_PROMPT_START);
}

/** The user messages that are real questions. */
export function realUserMessages(messages = []) {
  return messages.filter((m) => m.role === "user" && !isInternalUser(m));
}

/** The last real question of a request (unwrapped), or "". */
export const lastQuestion = (request) => questionOf(realUserMessages(request?.messages).at(-1));

/** True when the request ends in a tool round (tool results, maybe + internal user messages). */
export function endsWithToolResult(messages = []) {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === "tool") return true;
    if (!isInternalUser(messages[i])) return false;
  }
  return false;
}

/** The answer text the default script gives for a user question. */
export const echoText = (question) => `FAKE-ANSWER: ${question.slice(0, 200)}`;

/** Default script: echo the last real user question; after a tool result, answer with text. */
export function defaultScript(request) {
  const msgs = request.messages || [];
  if (endsWithToolResult(msgs)) {
    const last = msgs.filter((m) => m.role === "tool").at(-1);
    return { text: `FAKE-TOOL-DONE: ${textOf(last?.content).slice(0, 200)}` };
  }
  return { text: echoText(lastQuestion(request)) };
}

const estimateTokens = (v) => Math.ceil(JSON.stringify(v ?? "").length / 4);

/** The host tests' script: a question containing "TOOL" makes the model call memory_recall
 *  first (a turn with two model calls); everything else is answered by `defaultScript`. */
export function recallToolScript(req) {
  const q = lastQuestion(req);
  if (q.includes("TOOL") && !endsWithToolResult(req.messages)) {
    return { toolCalls: [{ name: "memory_recall", arguments: { query: q.replace(/^\S+ TOOL /, "") } }] };
  }
  return defaultScript(req);
}

// ── Anthropic Messages ────────────────────────────────────────────────────────────────
export const ANTHROPIC_API = "anthropic-messages";

/** The content blocks of an Anthropic message (a string is one text block). */
export function anthropicBlocks(content) {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content : [];
}

/** Consecutive messages of one role combined into one turn, as Anthropic's API does;
 *  each turn: { role, content: [blocks], from: [indexes of the request's messages] }. */
export function mergeAnthropicTurns(messages = []) {
  const out = [];
  for (const [i, m] of messages.entries()) {
    const last = out.at(-1);
    if (last && last.role === m?.role) { last.content.push(...anthropicBlocks(m?.content)); last.from.push(i); }
    else out.push({ role: m?.role, content: [...anthropicBlocks(m?.content)], from: [i] });
  }
  return out;
}

/** "user(text) assistant(tool_use) user(tool_result,text) …" — roles and block types. */
export function anthropicRoles(messages = []) {
  return messages.map((m) => `${m?.role}(${anthropicBlocks(m?.content).map((b) => b?.type).join(",")})`).join(" ");
}

const TOOL_ID = /^[a-zA-Z0-9_-]+$/;
const blocksOf = (turn, type) => turn.content.filter((b) => b?.type === type);

/**
 * Why Anthropic's or Bedrock's Messages endpoint would refuse this request body with 400
 * invalid_request_error, or null. Checked: a non-empty messages array of user/assistant
 * messages; the first message is the user's; no empty content or blank text block; tool_use
 * only from the assistant, tool_result only from the user; tool_use ids well-formed and
 * unique. Then, on the turns after merging consecutive same-role messages (as Anthropic
 * does): the roles alternate; every tool_result answers a tool_use of the immediately
 * preceding assistant turn, once, and the tool_result blocks come first in their turn; every
 * tool_use is answered in the next user turn. `strictAlternation` also refuses two
 * consecutive messages of one role in the raw request (Bedrock Converse; off by default).
 */
export function anthropicViolation(body, { strictAlternation = false } = {}) {
  if (typeof body?.model !== "string" || !body.model) return "model: Field required";
  if (!Number.isInteger(body?.max_tokens) || body.max_tokens < 1) return "max_tokens: Field required (a positive integer)";
  const msgs = body?.messages;
  if (!Array.isArray(msgs) || msgs.length === 0) return "messages: at least one message is required";
  const useIds = new Set();
  for (const [i, m] of msgs.entries()) {
    if (m?.role !== "user" && m?.role !== "assistant") return `messages.${i}.role: Input should be 'user' or 'assistant' (got ${JSON.stringify(m?.role)})`;
    const blocks = anthropicBlocks(m.content);
    const final = i === msgs.length - 1 && m.role === "assistant";
    if ((typeof m.content === "string" ? !m.content.trim() : blocks.length === 0) && !final) {
      return `messages.${i}: all messages must have non-empty content except for the optional final assistant message`;
    }
    for (const [j, b] of blocks.entries()) {
      const at = `messages.${i}.content.${j}`;
      if (b?.type === "text" && !(typeof b.text === "string" && b.text.trim())) return `${at}: text content blocks must contain non-whitespace text`;
      if (b?.type === "tool_use") {
        if (m.role !== "assistant") return `${at}: tool_use blocks may only appear in assistant messages`;
        if (typeof b.id !== "string" || !TOOL_ID.test(b.id)) return `${at}.id: String should match pattern '^[a-zA-Z0-9_-]+$' (got ${JSON.stringify(b.id)})`;
        if (useIds.has(b.id)) return `${at}: \`tool_use\` ids must be unique (duplicate ${b.id})`;
        useIds.add(b.id);
      }
      if (b?.type === "tool_result" && m.role !== "user") return `${at}: tool_result blocks may only appear in user messages`;
    }
  }
  // Anthropic's wording; Bedrock: "A conversation must start with a user message."
  if (msgs[0].role !== "user") return `messages.0.role: first message must use the "user" role (got "${msgs[0].role}")`;
  if (strictAlternation) {
    for (let i = 1; i < msgs.length; i++) {
      if (msgs[i].role === msgs[i - 1].role) return `messages.${i}: roles must alternate between "user" and "assistant" (two "${msgs[i].role}" messages in a row)`;
    }
  }
  const turns = mergeAnthropicTurns(msgs);
  for (const [k, t] of turns.entries()) {
    if (k > 0 && t.role === turns[k - 1].role) return `messages.${t.from[0]}: roles must alternate between "user" and "assistant"`;
    if (t.role === "assistant") {
      const uses = blocksOf(t, "tool_use").map((b) => b.id);
      const next = turns[k + 1];
      const answered = new Set(next?.role === "user" ? blocksOf(next, "tool_result").map((b) => b.tool_use_id) : []);
      const missing = uses.filter((id) => !answered.has(id));
      if (missing.length) {
        return `messages.${t.from.at(-1)}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
      continue;
    }
    const results = blocksOf(t, "tool_result");
    if (!results.length) continue;
    const prev = turns[k - 1];
    const uses = new Set(prev?.role === "assistant" ? blocksOf(prev, "tool_use").map((b) => b.id) : []);
    const seen = new Set();
    for (const r of results) {
      if (!uses.has(r.tool_use_id)) {
        return `messages.${t.from[0]}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${r.tool_use_id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      }
      if (seen.has(r.tool_use_id)) return `messages.${t.from[0]}: each \`tool_use\` must have a single result (duplicate \`tool_result\` for ${r.tool_use_id})`;
      seen.add(r.tool_use_id);
    }
    const lastResult = t.content.findLastIndex((b) => b?.type === "tool_result");
    if (t.content.slice(0, lastResult).some((b) => b?.type !== "tool_result")) {
      return `messages.${t.from[0]}: in a user turn that holds tool results, the \`tool_result\` blocks must come first (text only after all of them)`;
    }
  }
  return null;
}

/** An OpenAI chat-completions view of an Anthropic Messages body (system first; tool_use →
 *  tool_calls; each tool_result → a `tool` message), for the scripts and helpers above. */
export function anthropicToChat(body) {
  const messages = [];
  const system = Array.isArray(body?.system) ? body.system.map((b) => b?.text ?? "").join("\n") : body?.system;
  if (system) messages.push({ role: "system", content: system });
  for (const m of body?.messages ?? []) {
    const blocks = anthropicBlocks(m?.content);
    if (m?.role === "assistant") {
      const calls = blocks.filter((b) => b?.type === "tool_use")
        .map((b) => ({ id: b.id, type: "function", function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } }));
      const msg = { role: "assistant", content: blocks.filter((b) => b?.type === "text").map((b) => b.text).join("") || null };
      if (calls.length) msg.tool_calls = calls;
      messages.push(msg);
      continue;
    }
    let parts = [];
    const flush = () => { if (parts.length) messages.push({ role: m?.role, content: parts }); parts = []; };
    for (const b of blocks) {
      if (b?.type === "tool_result") { flush(); messages.push({ role: "tool", tool_call_id: b.tool_use_id, content: textOf(b.content) }); }
      else if (b?.type === "text") parts.push({ type: "text", text: b.text });
    }
    flush();
  }
  const tools = (body?.tools ?? []).map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.input_schema } }));
  return { model: body?.model, stream: Boolean(body?.stream), messages, tools };
}

export async function startFakeModel({ port = 0, script = defaultScript, logFile = null, modelId = "fake-1", anthropic = {} } = {}) {
  const requests = [];
  /** Messages requests refused by the validator: { index, reason, roles, body }. */
  const rejections = [];
  let callSeq = 0;
  const sockets = new Set();

  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url, "http://x");
      if (req.method === "GET" && /\/models$/.test(url.pathname)) {
        return json(res, 200, { object: "list", data: [{ id: modelId, object: "model", created: 0, owned_by: "fake" }] });
      }
      if (req.method === "POST" && /\/messages$/.test(url.pathname)) return await anthropicMessages(req, res);
      if (req.method !== "POST" || !/\/chat\/completions$/.test(url.pathname)) {
        return json(res, 404, { error: { message: `no route ${req.method} ${url.pathname}`, type: "not_found" } });
      }
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      const index = requests.length;
      const entry = { index, at: Date.now(), body, reply: null };
      requests.push(entry);
      let reply;
      try {
        reply = await script(body, index, defaultScript);
      } catch (e) {
        reply = { text: `FAKE-SCRIPT-ERROR: ${e.message}` };
      }
      reply = reply ?? defaultScript(body);
      entry.reply = reply;
      if (logFile) fs.appendFileSync(logFile, JSON.stringify(entry) + "\n");
      if (reply.error) return sendError(res, reply.error);
      respond(res, body, reply);
    } catch (e) {
      if (!res.headersSent) json(res, 500, { error: { message: String(e?.message || e), type: "server_error" } });
      else res.end();
    }
  });
  server.on("connection", (s) => { sockets.add(s); s.on("close", () => sockets.delete(s)); });

  /** POST …/messages: validate, record, then answer as Anthropic does. */
  async function anthropicMessages(req, res) {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    let body;
    try { body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}"); } catch (e) { return anthropicError(res, 400, "invalid_request_error", `invalid JSON body: ${e.message}`); }
    const index = requests.length;
    const headers = { "anthropic-version": req.headers["anthropic-version"] ?? null, "anthropic-beta": req.headers["anthropic-beta"] ?? null, apiKeySent: Boolean(req.headers["x-api-key"] || req.headers.authorization) };
    const entry = { index, at: Date.now(), api: ANTHROPIC_API, body, view: anthropicToChat(body), headers, rejection: null, reply: null };
    requests.push(entry);
    entry.rejection = anthropicViolation(body, anthropic);
    if (entry.rejection) {
      rejections.push({ index, reason: entry.rejection, roles: anthropicRoles(body.messages), body });
      if (logFile) fs.appendFileSync(logFile, JSON.stringify(entry) + "\n");
      return anthropicError(res, 400, "invalid_request_error", entry.rejection);
    }
    let reply;
    try {
      reply = await script(entry.view, index, defaultScript, { api: ANTHROPIC_API, body });
    } catch (e) {
      reply = { text: `FAKE-SCRIPT-ERROR: ${e.message}` };
    }
    reply = reply ?? defaultScript(entry.view);
    entry.reply = reply;
    if (logFile) fs.appendFileSync(logFile, JSON.stringify(entry) + "\n");
    if (reply.error) {
      const err = reply.error, kind = typeof err === "string" ? err : err.kind || err.code || "api_error";
      if (kind === "context_length_exceeded") {
        const max = err.maxTokens ?? 200000, got = err.requestedTokens ?? max + 4096;
        return anthropicError(res, err.status ?? 400, "invalid_request_error", `prompt is too long: ${got} tokens > ${max} maximum`);
      }
      return anthropicError(res, err.status ?? 500, "api_error", err.message || kind);
    }
    respondAnthropic(res, body, reply);
  }

  function respondAnthropic(res, body, reply) {
    const id = `msg_fake${String(requests.length).padStart(6, "0")}`;
    const model = body.model || modelId;
    const text = reply.text ?? ((reply.toolCalls || []).length ? "" : "ok");
    const content = [];
    if (text) content.push({ type: "text", text });
    for (const t of reply.toolCalls || []) {
      content.push({ type: "tool_use", id: t.id || `toolu_fake${String(++callSeq).padStart(6, "0")}`, name: t.name,
        input: typeof t.arguments === "string" ? JSON.parse(t.arguments || "{}") : t.arguments ?? {} });
    }
    const stop_reason = content.some((b) => b.type === "tool_use") ? "tool_use" : "end_turn";
    const usage = { input_tokens: estimateTokens([body.system, body.messages]), output_tokens: estimateTokens(content) };
    if (!body.stream) {
      return json(res, 200, { id, type: "message", role: "assistant", model, content, stop_reason, stop_sequence: null, usage });
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive", "request-id": `req_${id}` });
    const ev = (type, data = {}) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    ev("message_start", { message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: usage.input_tokens, output_tokens: 1 } } });
    ev("ping");
    content.forEach((b, index) => {
      if (b.type === "text") {
        ev("content_block_start", { index, content_block: { type: "text", text: "" } });
        for (const piece of b.text.match(/[\s\S]{1,24}/g) || []) ev("content_block_delta", { index, delta: { type: "text_delta", text: piece } });
      } else {
        ev("content_block_start", { index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } });
        for (const piece of JSON.stringify(b.input).match(/[\s\S]{1,16}/g) || []) ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } });
      }
      ev("content_block_stop", { index });
    });
    ev("message_delta", { delta: { stop_reason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
    ev("message_stop");
    res.end();
  }

  function respond(res, body, reply) {
    const id = `chatcmpl-fake-${requests.length}`;
    const created = Math.floor(Date.now() / 1000);
    const model = body.model || modelId;
    const toolCalls = (reply.toolCalls || []).map((t) => ({
      id: t.id || `fakecall${++callSeq}`, // alphanumeric: OpenClaw strips `_` from ids on replay
      type: "function",
      function: { name: t.name, arguments: typeof t.arguments === "string" ? t.arguments : JSON.stringify(t.arguments ?? {}) },
    }));
    const text = reply.text ?? (toolCalls.length ? "" : "ok");
    const finish = toolCalls.length ? "tool_calls" : "stop";
    const usage = { prompt_tokens: estimateTokens(body.messages), completion_tokens: estimateTokens(text) + toolCalls.length * 10 };
    usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;

    if (!body.stream) {
      const message = { role: "assistant", content: text || null };
      if (toolCalls.length) message.tool_calls = toolCalls;
      return json(res, 200, { id, object: "chat.completion", created, model, choices: [{ index: 0, message, finish_reason: finish }], usage });
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const send = (delta, finish_reason = null) =>
      res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason }] })}\n\n`);
    send({ role: "assistant", content: "" });
    // Text in a few pieces, so the client really assembles a stream.
    for (const piece of text.match(/[\s\S]{1,24}/g) || []) send({ content: piece });
    toolCalls.forEach((tc, i) => {
      send({ tool_calls: [{ index: i, id: tc.id, type: "function", function: { name: tc.function.name, arguments: "" } }] });
      for (const piece of tc.function.arguments.match(/[\s\S]{1,16}/g) || []) send({ tool_calls: [{ index: i, function: { arguments: piece } }] });
    });
    send({}, finish);
    if (body.stream_options?.include_usage) {
      res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage })}\n\n`);
    }
    res.end("data: [DONE]\n\n");
  }

  await new Promise((resolve, reject) => { server.once("error", reject); server.listen(port, "127.0.0.1", resolve); });
  const actualPort = server.address().port;
  return {
    port: actualPort,
    url: `http://127.0.0.1:${actualPort}/v1`,
    requests,
    /** The Messages requests the validator refused (also in `requests`, with `rejection`). */
    rejections,
    /** Swap the script (e.g. per test). */
    setScript(fn) { script = fn || defaultScript; },
    reset() { requests.length = 0; rejections.length = 0; },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}

function json(res, status, obj) {
  const s = JSON.stringify(obj);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(s) });
  res.end(s);
}

function anthropicError(res, status, type, message) {
  json(res, status, { type: "error", error: { type, message }, request_id: `req_fake${Date.now().toString(36)}` });
}

function sendError(res, err) {
  const kind = typeof err === "string" ? err : err.kind || err.code || "server_error";
  if (kind === "context_length_exceeded") {
    const max = err.maxTokens ?? 128000, got = err.requestedTokens ?? max + 4096;
    return json(res, err.status ?? 400, { error: {
      message: `This model's maximum context length is ${max} tokens. However, your messages resulted in ${got} tokens. Please reduce the length of the messages.`,
      type: "invalid_request_error", param: "messages", code: "context_length_exceeded" } });
  }
  json(res, err.status ?? 500, { error: { message: err.message || kind, type: "server_error", code: kind } });
}
