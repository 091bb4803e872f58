// End-to-end harness check: REAL OpenClaw 2026.9.6 (Node 24, `openclaw agent --local`) with
// its default (legacy) context engine and no plugin, against the loopback fake model.
// Proves the harness works: turns exit 0, answers come back in --json, the model sees the
// session's history, a scripted tool call round-trips, and a context_length_exceeded
// answer makes OpenClaw compact and retry. Run: node --test tests/e2e/harness.test.mjs
// (needs `.ci/install-tools.sh openclaw`; ~1.5 min on 2 cores). OV_E2E_KEEP=1 keeps the
// scratch dir (config, state, requests.jsonl) for inspection.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { startFakeModel, defaultScript, echoText, endsWithToolResult, lastQuestion, textOf } from "./fake-model.mjs";
import { openclawPaths, writeConfig, runTurn, scratchDir } from "./openclaw.mjs";

const TURN_MS = 150_000;
let fm, dir;
const overflowed = new Set();

// Scripted model: "TOOL" asks for OpenClaw's own read-only `read` tool once; "OVERFLOW"
// answers the first request of that question with context_length_exceeded; else echo.
function script(req) {
  const q = lastQuestion(req);
  if (q.includes("OVERFLOW") && !overflowed.has(q)) { overflowed.add(q); return { error: "context_length_exceeded" }; }
  if (q.includes("TOOL") && !endsWithToolResult(req.messages)) return { toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] };
  return defaultScript(req);
}

/** Runs one turn; returns the result plus the model requests it caused. Prints wall time. */
async function turn(t, sessionId, message) {
  const n0 = fm.requests.length;
  const r = await runTurn({ dir, sessionId, message, timeoutMs: TURN_MS });
  const reqs = fm.requests.slice(n0);
  const line = `turn session=${sessionId} exit=${r.code} wall=${r.ms}ms requests=${reqs.length} msg=${JSON.stringify(message)}`;
  t.diagnostic(line);
  return { ...r, reqs, text: (r.json?.payloads || []).map((p) => p.text).join("\n") };
}

const ok = (r) => assert.equal(r.code, 0, `exit ${r.code}; stderr tail:\n${r.stderr.slice(-2000)}`);
const roles = (req) => req.body.messages.map((m) => m.role);
const allText = (req) => req.body.messages.map((m) => textOf(m.content)).join("\n");

before(async () => {
  openclawPaths(); // throws a clear "run .ci/install-tools.sh openclaw" when missing
  dir = scratchDir("oc-e2e-harness-");
  fm = await startFakeModel({ script, logFile: path.join(dir, "requests.jsonl") });
  // keepRecentTokens: tiny so the legacy compactor has something to summarise in a short
  // session (with the default 20000 it answers "Nothing to compact (session too small)").
  writeConfig({ dir, modelUrl: fm.url, extra: { agents: { defaults: { compaction: { keepRecentTokens: 10 } } } } });
  fs.writeFileSync(path.join(dir, "workspace", "notes.txt"), "the secret word is PAPAYA\n");
});

after(async () => {
  await fm?.close();
  if (dir && !process.env.OV_E2E_KEEP) fs.rmSync(dir, { recursive: true, force: true });
  else if (dir) console.log(`# kept ${dir}`);
});

test("fake model speaks the OpenAI chat-completions protocol", async () => {
  const m = await startFakeModel({ script: (req, i) => (i === 1 ? { toolCalls: [{ name: "ls", arguments: { path: "." } }] } : i === 2 ? { error: "context_length_exceeded" } : defaultScript(req)) });
  try {
    const post = (body) => fetch(`${m.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    const models = await (await fetch(`${m.url}/models`)).json();
    assert.equal(models.data[0].id, "fake-1");
    const plain = await (await post({ model: "fake-1", messages: [{ role: "user", content: "[Mon 2026-11-30 05:01 UTC] hi\n\nRuntime: x" }] })).json();
    assert.equal(plain.choices[0].message.content, echoText("hi"));
    const sse = await (await post({ model: "fake-1", stream: true, stream_options: { include_usage: true }, messages: [{ role: "user", content: "x" }] })).text();
    const events = sse.split("\n\n").filter(Boolean).map((e) => e.replace(/^data: /, ""));
    assert.equal(events.at(-1), "[DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    const call = chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls || []);
    assert.equal(call[0].function.name, "ls");
    assert.ok(call[0].id);
    assert.deepEqual(JSON.parse(call.map((c) => c.function.arguments).join("")), { path: "." });
    assert.equal(chunks.at(-2).choices[0].finish_reason, "tool_calls");
    assert.ok(chunks.at(-1).usage.total_tokens > 0);
    const err = await post({ model: "fake-1", messages: [] });
    assert.equal(err.status, 400);
    assert.equal((await err.json()).error.code, "context_length_exceeded");
    assert.equal(m.requests.length, 3);
  } finally {
    await m.close();
  }
});

test("real OpenClaw turns against the fake model (legacy engine, no plugin)", { timeout: 900_000 }, async (t) => {
  await t.test("session a, turn 1: answer comes back; request has system, tools, question", async (t) => {
    const r = await turn(t, "a", "my favourite colour is teal");
    ok(r);
    assert.ok(r.text.includes(echoText("my favourite colour is teal")), r.text);
    assert.equal(r.json.meta.agentMeta.sessionId, "a");
    assert.equal(r.reqs.length, 1);
    const req = r.reqs[0];
    assert.equal(req.body.stream, true);
    assert.equal(roles(req)[0], "system");
    assert.ok(req.body.tools.some((x) => x.function.name === "read"), "read tool offered directly (tools.toolSearch:false)");
    assert.ok(!req.body.tools.some((x) => x.function.name === "tool_search"));
    assert.equal(lastQuestion(req.body), "my favourite colour is teal");
  });

  await t.test("session a, turn 2: request carries turn 1's history", async (t) => {
    const r = await turn(t, "a", "what colour did I say?");
    ok(r);
    assert.ok(r.text.includes(echoText("what colour did I say?")));
    const text = allText(r.reqs[0]);
    const i1 = text.indexOf("my favourite colour is teal");
    const i2 = text.indexOf(echoText("my favourite colour is teal"));
    const i3 = text.indexOf("what colour did I say?");
    assert.ok(i1 >= 0 && i2 > i1 && i3 > i2, "history (user, assistant) precedes the new question");
  });

  await t.test("session b: a scripted tool call round-trips through OpenClaw's read tool", async (t) => {
    const r = await turn(t, "b", "TOOL please read notes.txt");
    ok(r);
    assert.equal(r.reqs.length, 2, "tool call, then the answer after the result");
    assert.ok(!allText(r.reqs[0]).includes("teal"), "session b does not see session a");
    const msgs = r.reqs[1].body.messages;
    const asst = msgs.find((m) => m.role === "assistant" && m.tool_calls);
    const tool = msgs.find((m) => m.role === "tool");
    assert.equal(asst.tool_calls[0].function.name, "read");
    assert.equal(tool.tool_call_id, asst.tool_calls[0].id);
    assert.ok(textOf(tool.content).includes("PAPAYA"));
    assert.ok(r.text.includes("PAPAYA"), r.text);
  });

  await t.test("session a, turn 3: context_length_exceeded → compaction → retry", async (t) => {
    const r = await turn(t, "a", "OVERFLOW third question");
    ok(r);
    const meta = r.json.meta.agentMeta;
    t.diagnostic(`compactionCount=${meta.compactionCount} requests=${r.reqs.length} compactionTokensAfter=${meta.compactionTokensAfter}`);
    assert.equal(meta.compactionCount, 1);
    assert.equal(r.reqs[0].reply.error, "context_length_exceeded");
    assert.equal(r.reqs.length, 2, "legacy compaction summarises locally: no summary call, one retry");
    const retry = allText(r.reqs[1]);
    assert.ok(retry.includes("The conversation history before this point was compacted"), "summary in retry");
    assert.ok(r.text.includes(echoText("OVERFLOW third question")), r.text);
  });

  await t.test("session c: overflow with nothing to compact fails the turn", async (t) => {
    const r = await turn(t, "c", "OVERFLOW on a fresh session");
    assert.equal(r.code, 1);
    assert.equal(r.reqs.length, 1);
    assert.equal(r.json.meta.error.kind, "context_overflow");
  });
});
