// Large tool outputs in real turns: OpenClaw 2026.9.6 (`openclaw agent --local`, one process
// per turn) with js-glue in the context-engine slot, a real OpenViking 0.5.2 (remote mode) and
// the loopback fake model.
//
// A log of ~100k tokens (the engine's estimate) sits in the agent's workspace with one line
// that matters in the middle. Turn 1: the scripted model reads it with OpenClaw's own `read`
// tool ({path, offset?}). OpenClaw 2026.9.6 never hands over a whole 100k-token file in one
// tool result: its read tool pages (and every tool result is capped at 64000 characters even
// for a ≥ 200k-token window, `resolveLiveToolResultMaxChars`), so the model follows the
// "Use offset=N to continue" notices until the end — the whole file reaches the model, in
// pages, in the turn that reads it. Turns 2 and 3: what the model RECEIVED — under the budget,
// every large page a stand-in with its reference, the line not in the context, the pairing
// intact; in turn 2 the model calls memory_read_output with the reference of the page that
// holds the line and `query: "vault combination"` and gets the exact line back. OpenViking
// holds each page once, byte for byte what the model received from the read tool.
//
// The window is 200000 tokens in every turn: OpenClaw truncates tool results in the prompt
// history before the engine sees them (per result ≤ 64000 characters from a 200k window on,
// less below; all results of a prompt ≤ max(4 × that, 2 × window) characters), so a smaller
// window would have OpenClaw, not the engine, cut the pages. One page of this log (≤ 64000
// characters) is ~16–17k tokens, above the default `largeToolResultTokens` (8000, chosen for
// these caps): the test runs with the default, and every page is a stand-in.
//
// Prints `# large-output: …` with the figures (stand-in sizes, read-back latency, context
// before/after). OV_E2E_KEEP=1 keeps the scratch dir.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createHash } from "node:crypto";
import { startFakeModel, defaultScript, endsWithToolResult, lastQuestion, textOf, realUserMessages } from "./fake-model.mjs";
import { writeConfig, runTurn, scratchDir } from "./openclaw.mjs";
import { startHarness } from "../../js-glue/test/openviking/helpers.mjs";
import { createClient } from "../inspect/client.js";
import { storedMessages as storedMessagesOf } from "../inspect/stored.js";
import { loadEngine } from "../support/packages.mjs"; // the test build: the plugin's and the page's exports
import { createStateStore } from "../../js-glue/state-store.js";
import { createEngineHost, createTransport } from "../../js-glue/engine-host.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const TURN_MS = 120_000;
const SESSION = "bigread";
const OV_SESSION = `main--${SESSION}`;
const WINDOW = 200_000; // the model's context window: OpenClaw's budget for the engine
const THRESHOLD = (await loadEngine()).parseConfig({}, {}).config.largeToolResultTokens; // the default
const LINES = 12_000;
const SECRET_LINE_NO = 6001;
const SECRET = "06001 ERROR the vault combination is 31-7-44";
const STAND_IN_HEAD = /^\[tool output kept out of the context: (\S+) returned (\d+) tokens in (\d+) lines; reference (out-[0-9a-f]{16})\](?:\narguments: (.*))?/;

let wasm, fm, ov, dir, client, file, fileText;

/** ~100k tokens of log; line 6001 is the one that matters. */
function bigLog() {
  const lines = [];
  for (let i = 1; i <= LINES; i++) {
    lines.push(i === SECRET_LINE_NO ? SECRET : `${String(i).padStart(5, "0")} INFO request served`);
  }
  return `${lines.join("\n")}\n`;
}

/** The stand-ins in a request: {reference, tool, tokens, lines, args, callId}. */
function standIns(body) {
  return body.messages.filter((m) => m.role === "tool").flatMap((m) => {
    const s = STAND_IN_HEAD.exec(textOf(m.content));
    if (!s) return [];
    let args = null;
    try { args = s[5] ? JSON.parse(s[5]) : null; } catch {}
    return [{ tool: s[1], tokens: Number(s[2]), lines: Number(s[3]), reference: s[4], args, callId: m.tool_call_id, text: textOf(m.content) }];
  });
}

/** The read calls of a request and their results, in order: [{id, args, result}]. */
function readRounds(body) {
  const msgs = body.messages;
  return msgs.flatMap((m) => (m.tool_calls ?? []).filter((c) => c.function?.name === "read").map((c) => ({
    id: c.id,
    args: JSON.parse(c.function.arguments || "{}"),
    result: textOf(msgs.find((x) => x.role === "tool" && x.tool_call_id === c.id)?.content),
  })));
}

/** The engine's estimate of what the model received: every message's text and tool calls. */
function contextTokens(body) {
  let n = 0;
  for (const m of body.messages) {
    n += wasm.estimateTokens(textOf(m.content));
    for (const c of m.tool_calls ?? []) n += wasm.estimateTokens(`${c.function?.name ?? ""} ${c.function?.arguments ?? ""}`);
  }
  return n;
}

function script(req) {
  const q = lastQuestion(req);
  const msgs = req.messages ?? [];
  if (q.startsWith("READ")) {
    if (!endsWithToolResult(msgs)) return { toolCalls: [{ name: "read", arguments: { path: file } }] };
    const next = /Use offset=(\d+) to continue/.exec(textOf(msgs.filter((m) => m.role === "tool").at(-1)?.content));
    if (next) return { toolCalls: [{ name: "read", arguments: { path: file, offset: Number(next[1]) } }] };
    return { text: "READ-DONE: the log is mostly served requests." };
  }
  if (q.startsWith("FIND")) {
    if (!endsWithToolResult(msgs)) {
      // the page whose offset is the last one at or before the line: as a model would pick it
      const page = standIns(req).filter((s) => (s.args?.offset ?? 1) <= SECRET_LINE_NO).sort((a, b) => (b.args?.offset ?? 1) - (a.args?.offset ?? 1))[0];
      if (!page) return { text: "NO-STAND-IN" };
      return { toolCalls: [{ name: "memory_read_output", arguments: { reference: page.reference, query: "vault combination" } }] };
    }
    return defaultScript(req);
  }
  return defaultScript(req);
}

before(async () => {
  wasm = await loadEngine();
  ov = await startHarness();
  fm = await startFakeModel({ script });
  dir = scratchDir("oc-large-");
  file = path.join(dir, "workspace", "app.log");
  writeConfig({
    dir,
    modelUrl: `${fm.url}/v1`,
    model: { contextWindow: WINDOW },
    plugin: {
      path: path.join(ROOT, "js-glue"),
      id: "openviking",
      config: {
        mode: "remote", baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, timeoutMs: 15000, hookFallback: false,
        stateDir: path.join(dir, "plugin-state"),
        // no commit in these three turns: the stored turns stay live messages
        compactTokensAddedThreshold: 10_000_000, compactTurnThreshold: 1000,
      },
    },
  });
  fileText = bigLog();
  fs.writeFileSync(file, fileText);
  client = createClient({ baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, agentId: "main" });
});
after(async () => {
  await fm?.close?.();
  await ov?.stop();
  if (process.env.OV_E2E_KEEP === "1") console.log(`# kept ${dir}`);
  else if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function turn(t, message) {
  const n0 = fm.requests.length;
  const r = await runTurn({ dir, sessionId: SESSION, message, timeoutMs: TURN_MS });
  const reqs = fm.requests.slice(n0);
  t.diagnostic(`turn exit=${r.code} wall=${r.ms}ms requests=${reqs.length} ${JSON.stringify(message).slice(0, 60)}`);
  for (const line of `${r.stdout}\n${r.stderr}`.split("\n").filter((l) => /\[openviking\]|tool-result-truncation|context-overflow/.test(l))) t.diagnostic(`  ${line.slice(0, 300)}`);
  assert.equal(r.code, 0, `exit ${r.code}; stderr tail:\n${r.stderr.slice(-3000)}`);
  assert.doesNotMatch(`${r.stdout}\n${r.stderr}`, /context engine is not in use/);
  return { ...r, reqs };
}

/** Every tool call in a request has exactly one result, right after its assistant message. */
function assertPairing(body) {
  const msgs = body.messages;
  for (const [i, m] of msgs.entries()) {
    const ids = (m.tool_calls ?? []).map((c) => c.id);
    if (!ids.length) continue;
    const results = msgs.slice(i + 1, i + 1 + ids.length);
    assert.deepEqual(results.map((x) => x.role), ids.map(() => "tool"), `the results follow call message ${i}`);
    assert.deepEqual(results.map((x) => x.tool_call_id).sort(), [...ids].sort(), `each call of message ${i} has its result`);
  }
  const calls = new Set(msgs.flatMap((m) => (m.tool_calls ?? []).map((c) => c.id)));
  for (const m of msgs.filter((x) => x.role === "tool")) assert.ok(calls.has(m.tool_call_id), `result ${m.tool_call_id} has its call`);
}

/** Every stored message of the session, oldest first (tests/inspect/stored.js). */
const storedMessages = () => storedMessagesOf(client, OV_SESSION);

const NOTICE = /\n\n\[(?:Showing [^\]]*|Read output capped [^\]]*|\d+ more lines? in file\. [^\]]*)\]\s*$/;

test("a ~100k-token file read with OpenClaw's read tool: later turns carry stand-ins, memory_read_output finds the line, OpenViking holds each page once", { timeout: 600_000 }, async (t) => {
  const fileTokens = wasm.estimateTokens(fileText);
  t.diagnostic(`file: ${LINES} lines, ${fileText.length} chars, ${fileTokens} tokens (engine estimate)`);
  assert.ok(fileTokens > 90_000 && fileTokens < 120_000, `~100k tokens: ${fileTokens}`);

  // ── turn 1: the model reads the whole file, page by page, with OpenClaw's read tool
  const r1 = await turn(t, `READ the application log ${path.basename(file)} for me.`);
  assert.ok(r1.reqs.length >= 3, `the read tool paged (requests: ${r1.reqs.length})`);
  const raw = r1.reqs.at(-1).body; // the model's last call of turn 1: all pages, raw
  assertPairing(raw);
  const pages = readRounds(raw);
  t.diagnostic(`turn 1: ${pages.length} read calls, page sizes (chars): ${pages.map((p) => p.result.length).join(" ")}`);
  assert.equal(pages.length, r1.reqs.length - 1, "one read call per model call but the last");
  assert.ok(pages.every((p) => p.args.path === file), "the read tool's own argument shape: {path, offset?}");
  const joined = pages.map((p) => p.result.replace(NOTICE, "")).join("\n");
  const at = [...joined].findIndex((c, i) => c !== fileText[i]);
  assert.ok(joined === fileText.replace(/\n$/, "") || joined === fileText, `the pages, notices removed, are the whole file (first difference at ${at}: ${JSON.stringify(joined.slice(at - 80, at + 80))} vs ${JSON.stringify(fileText.slice(at - 80, at + 80))}; ends ${pages.map((p) => JSON.stringify(p.result.slice(-120))).join(" | ")})`);
  assert.ok(textOf(raw.messages.find((m) => m.role === "tool" && textOf(m.content).includes(SECRET))?.content).length > 0, "the line reached the model raw in turn 1");
  assert.equal(standIns(raw).length, 0, "no stand-in while the model works on the outputs");
  const before = contextTokens(raw);
  const pageTokens = pages.map((p) => wasm.estimateTokens(p.result));
  const secretPage = pages.findIndex((p) => p.result.includes(SECRET));
  assert.ok(pageTokens[secretPage] > THRESHOLD, `the page with the line is over the threshold: ${pageTokens[secretPage]}`);

  // ── turn 2: stand-ins; the model reads the line back
  const r2 = await turn(t, "FIND what is the vault combination in that log?");
  assert.ok(r2.reqs.length >= 2, "the model called memory_read_output and got its result");
  const first = r2.reqs[0].body;
  const after2 = contextTokens(first);
  for (const req of r2.reqs) assertPairing(req.body);
  const si = standIns(first);
  t.diagnostic(`turn 2: ${si.length} stand-ins: ${si.map((s) => `${s.reference} ${s.tokens}→${wasm.estimateTokens(s.text)}`).join(", ")}`);
  const big = pages.filter((_, i) => pageTokens[i] > THRESHOLD);
  assert.equal(si.length, big.length, "every page over the threshold is a stand-in");
  assert.deepEqual(si.map((s) => s.callId), big.map((p) => p.id), "each in place of its own result (same tool_call_id)");
  for (const s of si) {
    assert.equal(s.tool, "read");
    assert.ok(wasm.estimateTokens(s.text) <= 400, `a stand-in is at most 400 tokens: ${wasm.estimateTokens(s.text)}`);
  }
  assert.ok(after2 < before / 5, `the context shrank: ${before} → ${after2} tokens`);
  assert.ok(after2 <= WINDOW, "under the budget");
  assert.ok(!JSON.stringify(first.messages).includes(SECRET), "the line is not in the context");
  assert.ok(realUserMessages(first.messages).some((m) => textOf(m.content).includes("READ the application log")), "turn 1's user words stay (nothing trimmed)");
  const call = r2.reqs[0].reply.toolCalls?.[0];
  assert.equal(call?.name, "memory_read_output", `the model called the read-back (reply: ${JSON.stringify(r2.reqs[0].reply).slice(0, 200)})`);
  const page = si.find((s) => s.reference === call.arguments.reference);
  assert.equal(page.callId, pages[secretPage].id, "the reference of the page that holds the line");
  // what the model received next: the tool result of that call
  const back = r2.reqs[1].body.messages.filter((m) => m.role === "tool").at(-1);
  const doc = JSON.parse(textOf(back.content));
  t.diagnostic(`memory_read_output: ${textOf(back.content).slice(0, 400)}`);
  assert.equal(doc.reference, call.arguments.reference);
  assert.equal(doc.matchCount, 1);
  const hit = doc.matches.find((m) => m.text === SECRET);
  assert.ok(hit, "the exact line came back");
  const secretInPage = pages[secretPage].result.split("\n").indexOf(SECRET) + 1;
  assert.equal(hit.line, secretInPage, "with its line number in that output");
  const readBackMs = r2.reqs[1].at - r2.reqs[0].at;

  // ── turn 3: the stand-ins stay (stable references), the raw pages stay out
  const r3 = await turn(t, "Anything else worth knowing about that log?");
  const third = r3.reqs[0].body;
  assertPairing(third);
  const si3 = standIns(third);
  assert.deepEqual(si3.map((s) => s.reference), si.map((s) => s.reference), "the same stand-ins, same references");
  const after3 = contextTokens(third);
  assert.ok(after3 < before / 5 && after3 <= WINDOW, `still small: ${after3}`);
  for (const p of big) {
    const middle = p.result.split("\n")[Math.floor(p.result.split("\n").length / 2)];
    assert.ok(!JSON.stringify(third.messages).includes(JSON.stringify(middle).slice(1, -1)) || middle === SECRET, `no raw page in turn 3 (${middle})`);
  }

  // ── OpenViking: each page once, byte for byte what the read tool returned. OpenViking 0.5.2
  // itself keeps a large tool output out of the message (a preview in `tool_output`) and stores
  // the output once under the session's tool-results/<id>/output.txt, with its sha256.
  const stored = await storedMessages();
  const parts = stored.flatMap((m) => (m.parts ?? []).map((p) => ({ ...p, from: m.from })));
  const reads = parts.filter((p) => p.type === "tool" && p.tool_name === "read");
  t.diagnostic(`OpenViking: ${stored.length} messages, ${reads.length} read parts; a part: ${JSON.stringify({ ...reads[0], tool_output: `${String(reads[0]?.tool_output ?? "").slice(0, 60)}…` })}`);
  assert.equal(reads.length, pages.length, "one stored tool part per read call");
  const fullOf = async (part) => {
    const uri = part.tool_output_storage_uri ?? part.tool_output_ref;
    if (!uri) return part.tool_output;
    const text = await client.readContent(`${uri}/output.txt`);
    assert.equal(createHash("sha256").update(text, "utf8").digest("hex"), part.tool_output_sha256, "the stored output matches OpenViking's own digest");
    return text;
  };
  const fulls = [];
  for (const part of reads) fulls.push({ part, text: await fullOf(part) });
  for (const p of pages) {
    const holding = fulls.filter((f) => f.text === p.result);
    assert.equal(holding.length, 1, `page at offset ${p.args.offset ?? 1} stored exactly once, byte-identical`);
    assert.equal(holding[0].part.tool_id, p.id, "under its own call");
  }
  const uris = reads.map((p) => p.tool_output_storage_uri ?? p.tool_output_ref).filter(Boolean);
  assert.equal(new Set(uris).size, uris.length, "one stored output per page");
  const base = `viking://user/${ov.env.userId}/sessions/${OV_SESSION}/tool-results`;
  const listed = (await client.ls(base).catch(() => [])).filter((e) => e.isDir ?? e.is_dir ?? true);
  t.diagnostic(`${base}: ${listed.length} entries`);
  if (uris.length) assert.equal(listed.length, uris.length, "nothing else stored under tool-results");
  const inline = parts.filter((x) => typeof x.tool_output === "string" && x.tool_output.includes(SECRET));
  assert.ok(inline.length <= 1, "the line is inline in at most one stored part (the memory_read_output answer), never a second copy of the page");
  assert.ok(fulls.filter((f) => f.text.includes(SECRET)).length === 1, "the line's page is stored once");
  assert.ok(!parts.some((x) => typeof x.tool_output === "string" && STAND_IN_HEAD.test(x.tool_output)), "no stand-in was stored");

  // ── the engine's own read-back latency, against the same OpenViking and state dir
  const host = createEngineHost({ store: createStateStore(path.join(dir, "plugin-state")), request: createTransport(), logger: { warn: () => {} } });
  const engine = new wasm.ContextEngine({ mode: "remote", baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, agentId: "main", largeToolResultTokens: THRESHOLD }, {}, host);
  const times = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const again = await engine.runTool("memory_read_output", { reference: page.reference, query: "vault combination" });
    times.push(performance.now() - t0);
    assert.equal(again.matches.find((m) => m.text === SECRET)?.line, secretInPage);
  }
  times.sort((a, b) => a - b);

  // the same file as ONE output (what a host without OpenClaw's caps would hand over), through
  // the engine's pure assemble: the stand-in size for the whole ~100k-token output
  const one = new wasm.Engine({ largeToolResultTokens: 20000 }, {});
  const whole = one.assemble({
    prompt: "What did the error line say?",
    tokenBudget: 50_000,
    messages: [
      { role: "user", content: "Read the application log.", timestamp: 1 },
      { role: "assistant", content: [{ type: "toolCall", id: "callread", name: "read", arguments: { path: file } }], stopReason: "toolUse", timestamp: 2 },
      { role: "toolResult", toolCallId: "callread", toolName: "read", content: [{ type: "text", text: fileText }], isError: false, timestamp: 3 },
      { role: "assistant", content: [{ type: "text", text: "It is a long log." }], stopReason: "stop", timestamp: 4 },
      { role: "user", content: "What did the error line say?", timestamp: 5 },
    ],
  }).standIns[0];
  assert.ok(whole && whole.standInTokens <= 400 && whole.tokens === fileTokens, JSON.stringify(whole));

  const standInSizes = si.map((s) => wasm.estimateTokens(s.text));
  const line = `# large-output: file=${fileTokens}tok/${LINES}lines readPages=${pages.length} pageTokens=${Math.min(...pageTokens)}..${Math.max(...pageTokens)} ` +
    `standIns=${si.length} standInTokens=${Math.min(...standInSizes)}..${Math.max(...standInSizes)} (sum ${standInSizes.reduce((a, b) => a + b, 0)}) ` +
    `wholeFileAsOneOutput=${whole.tokens}→${whole.standInTokens}tok ` +
    `contextBefore=${before}tok contextAfter=${after2}tok(turn2)/${after3}tok(turn3) budget=${WINDOW} ` +
    `readBackInTurn=${readBackMs}ms readBackEngine=median ${times[2].toFixed(1)}ms (min ${times[0].toFixed(1)}, max ${times[4].toFixed(1)})`;
  console.log(line);
  t.diagnostic(line.slice(2));
});
