// A scripted fake LLM on 127.0.0.1 speaking the OpenAI chat-completions API the way
// OpenClaw's `openai-completions` provider uses it: GET /v1/models, POST /v1/chat/completions
// (SSE streaming with tool_call deltas, `usage` when asked, `data: [DONE]`; or one JSON body).
// Every request body is logged (memory + optional JSONL file) so a test can assert exactly
// what the model received. Replies come from `script(request, index)`:
//   { text } | { toolCalls: [{ name, arguments }] } | { error: "context_length_exceeded" }
//   (error may also be { kind, maxTokens, requestedTokens, status, message })
// (a reply may also be a Promise; null → defaultScript, also passed as 3rd argument).
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

export async function startFakeModel({ port = 0, script = defaultScript, logFile = null, modelId = "fake-1" } = {}) {
  const requests = [];
  let callSeq = 0;
  const sockets = new Set();

  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url, "http://x");
      if (req.method === "GET" && /\/models$/.test(url.pathname)) {
        return json(res, 200, { object: "list", data: [{ id: modelId, object: "model", created: 0, owned_by: "fake" }] });
      }
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
    /** Swap the script (e.g. per test). */
    setScript(fn) { script = fn || defaultScript; },
    reset() { requests.length = 0; },
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
