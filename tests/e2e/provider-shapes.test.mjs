// Every request the engine shapes is valid under Anthropic's and Bedrock's Messages rules, in
// real turns: OpenClaw 2026.9.6 (`openclaw agent --local`, one process per turn) with js-glue
// in the context-engine slot, a real OpenViking 0.5.2 (remote mode) holding memories planted
// for the user (so recall injects the synthetic memory_recall_auto pair, opened by one user
// line), and a custom provider `api: "anthropic-messages"` pointing at the loopback fake
// model, which validates each Messages request as Anthropic/Bedrock do and answers 400
// invalid_request_error when one breaks a rule (fake-model.mjs `anthropicViolation`). Here,
// on the same recorded requests, Gemini's rule too: a function call follows a user turn.
// Guards against the engine before the pair's opening line (8a81aaa^): with OpenClaw 2026.9.6
// the first turn of a new session with memories sent the synthetic assistant tool_use as the
// FIRST message; Bedrock refused it ("first message must use the user role") and the turn
// exited 1 with "Message ordering conflict" (this test then fails in (a) and (d1)).
// Cases: (a) a new session's first turn, (b) a later turn, (c) a tool loop (memory_recall then
// memory_expand), (e) after the engine's turn trigger compacted (the summary comes first; the
// first turn after the commit records its checkpoint, the next one shows it), all in home A;
// (d) older turns trimmed under a small context window, in home B. 8 turns in all.
// OpenClaw 2026.9.6 assembles before the prompt with budget window − reserve − system prompt −
// prompt (home B: ~4000 tokens, so the engine trims; its trim order drops the pair first), then
// once per model call with that result as history and a larger budget (the pair comes back).
// Prints `# provider-shapes: …` per request (role sequence). OV_E2E_KEEP=1 keeps the dirs.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeModel, defaultScript, endsWithToolResult, lastQuestion, isInternalUser, anthropicBlocks, anthropicRoles, mergeAnthropicTurns, ANTHROPIC_API } from "./fake-model.mjs";
import { writeConfig, runTurn, scratchDir } from "./openclaw.mjs";
import { startHarness } from "../../js-glue/test/openviking/helpers.mjs";
import { createClient } from "../inspect/client.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const TURN_MS = 150_000;
const PROVIDER = "msgs"; // a custom provider: OpenClaw applies no first-party Anthropic shaping
const MODEL = "fake-messages-1";
const OPENING = "[memory_recall_auto]";
const MEMORIES = {
  "preferences/billing-database.md": "The billing service runs on Postgres 16; slow invoice queries are fixed by an index on (customer_id, created_at).",
  "events/release-train.md": "The release train leaves every second Tuesday; hotfixes skip the train but need two reviewers.",
  "preferences/answers.md": "The user prefers short answers with code examples about the billing service and the release train.",
};
// Home B's turns (~1600 tokens each): beside the prompt, one earlier turn fits its budget, two do not.
const FILLER = (tag) => Array.from({ length: 100 }, (_, i) => `${tag} line ${i}: the billing service ledger row ${i * 7} balanced.`).join("\n");
let fm, ov, client, A, B;
const t0 = Date.now();

function script(req) {
  const q = lastQuestion(req);
  const msgs = req.messages ?? [];
  if (!q.includes("TOOLS")) return defaultScript(req);
  // this turn's tool calls (after the last real question): memory_recall, then memory_expand
  const since = msgs.slice(msgs.findLastIndex((m) => m.role === "user" && !isInternalUser(m)) + 1);
  const called = new Set(since.flatMap((m) => (m.tool_calls ?? []).map((c) => c.function?.name)));
  if (!called.has("memory_recall")) return { toolCalls: [{ name: "memory_recall", arguments: { query: "billing database slow invoice queries" } }] };
  if (!called.has("memory_expand")) {
    const uri = /viking:\/\/[^"\s]+\.md/.exec(since.filter((m) => m.role === "tool").map((m) => m.content).join(" "))?.[0];
    return { toolCalls: [{ name: "memory_expand", arguments: { summaryOrMemoryUri: uri ?? `viking://user/${ov.env.userId}/memories/${Object.keys(MEMORIES)[0]}`, query: "invoice index" } }] };
  }
  return endsWithToolResult(msgs) ? { text: "TOOLS-DONE: Postgres 16 with an index." } : defaultScript(req);
}

function home(prefix, { contextWindow, plugin, agents = {} }) {
  const dir = scratchDir(prefix);
  writeConfig({
    dir,
    modelUrl: `${fm.url}/v1`, // the openai-completions "fake" provider stays configured, unused
    plugin: { path: path.join(ROOT, "js-glue"), id: "openviking", config: { mode: "remote", baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, timeoutMs: 8000, hookFallback: false, recallScoreThreshold: 0, stateDir: path.join(dir, "plugin-state"), ...plugin } },
    extra: {
      models: { providers: { [PROVIDER]: {
        baseUrl: `http://127.0.0.1:${fm.port}`, apiKey: "fake-key", api: ANTHROPIC_API, // the SDK posts to baseUrl + /v1/messages
        models: [{ id: MODEL, name: "Fake Messages model", reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow, maxTokens: 1024 }],
      } } },
      agents: { defaults: { model: { primary: `${PROVIDER}/${MODEL}` }, ...agents } },
    },
  });
  return dir;
}

before(async () => {
  ov = await startHarness();
  client = createClient({ baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, agentId: "main" });
  for (const [file, content] of Object.entries(MEMORIES)) {
    await client.writeContent({ uri: `viking://user/${ov.env.userId}/memories/${file}`, content, mode: "create", wait: true });
  }
  fm = await startFakeModel({ script });
  A = home("oc-shapes-a-", { contextWindow: 128_000, plugin: { compactTurnThreshold: 3, recentRawTurnCount: 1 } });
  // B: a small window; neither OpenClaw (compaction.enabled false) nor the engine's triggers
  // compact, so older turns are trimmed by the engine's assemble
  B = home("oc-shapes-b-", {
    contextWindow: 16_000,
    plugin: { compactTurnThreshold: 1000, compactTokensAddedThreshold: 10_000_000, compactCommitThreshold: 1 },
    agents: { compaction: { enabled: false } },
  });
});

after(async () => {
  await fm?.close?.();
  await ov?.stop();
  for (const d of [A, B].filter(Boolean)) {
    if (!process.env.OV_E2E_KEEP) fs.rmSync(d, { recursive: true, force: true });
    else console.log(`# kept ${d}`);
  }
  console.log(`# provider-shapes: ${fm?.requests.length ?? 0} Messages requests, ${fm?.rejections.length ?? 0} rejected, wall ${Math.round((Date.now() - t0) / 1000)} s`);
});

const textOfBlocks = (m) => anthropicBlocks(m?.content).filter((b) => b?.type === "text").map((b) => b.text).join("\n");
const toolResultText = (b) => (typeof b.content === "string" ? b.content : anthropicBlocks(b.content).map((x) => x.text ?? "").join(""));

/** Gemini's rule on the same request: every assistant message with a tool_use directly follows
 *  a user message (never the start, never another assistant message), and that user turn —
 *  consecutive user messages merged — holds only text and tool results. */
function geminiViolation(body) {
  const msgs = body.messages;
  const turns = mergeAnthropicTurns(msgs);
  for (const [i, m] of msgs.entries()) {
    if (m.role !== "assistant" || !anthropicBlocks(m.content).some((b) => b?.type === "tool_use")) continue;
    if (i === 0) return `messages.0: a function call opens the conversation`;
    if (msgs[i - 1].role !== "user") return `messages.${i}: a function call follows an assistant message`;
    const userTurn = turns.find((t) => t.from.includes(i - 1));
    const odd = userTurn.content.find((b) => b?.type !== "text" && b?.type !== "tool_result");
    if (odd) return `messages.${i}: a function call follows a user turn holding a ${odd.type} block`;
  }
  return null;
}

/** The synthetic pair of a request: opening user line, assistant tool_use, tool_result — or null. */
function recallPair(body) {
  const msgs = body.messages;
  const at = msgs.findIndex((m) => m.role === "assistant" && anthropicBlocks(m.content).some((b) => b?.type === "tool_use" && b.name === "memory_recall_auto"));
  if (at < 0) return null;
  assert.equal(msgs.filter((m) => anthropicBlocks(m.content).some((b) => b?.name === "memory_recall_auto")).length, 1, "one synthetic call per request");
  const call = anthropicBlocks(msgs[at].content).find((b) => b.name === "memory_recall_auto");
  assert.equal(msgs[at - 1]?.role, "user", "the synthetic call follows a user message");
  assert.ok(textOfBlocks(msgs[at - 1]).endsWith(OPENING), `… the engine's opening line, got ${JSON.stringify(textOfBlocks(msgs[at - 1]).slice(0, 120))}`);
  const result = anthropicBlocks(msgs[at + 1]?.content).find((b) => b?.type === "tool_result" && b.tool_use_id === call.id);
  assert.ok(msgs[at + 1]?.role === "user" && result, "the synthetic result is the next message");
  // the compact result: one line per memory, "- " + its text
  const lines = toolResultText(result).split("\n");
  assert.ok(lines.every((l) => l.startsWith("- ")), `one "- " line per memory, got ${JSON.stringify(lines)}`);
  assert.deepEqual(call.input, {}, "the synthetic call has no arguments");
  return { at, memories: lines.map((l) => ({ content: l.slice(2) })) };
}

/** One turn: exit 0, nothing refused, every request valid for Gemini too and carrying the
 *  synthetic pair with the planted memories; each request's roles in the diagnostics. */
async function turn(t, label, dir, sessionId, message) {
  const n0 = fm.requests.length, r0 = fm.rejections.length;
  const r = await runTurn({ dir, sessionId, message, timeoutMs: TURN_MS });
  const reqs = fm.requests.slice(n0);
  t.diagnostic(`(${label}) ${sessionId} exit=${r.code} wall=${r.ms}ms requests=${reqs.length}`);
  for (const q of reqs) {
    const line = `(${label}) request ${q.index}: ${anthropicRoles(q.body.messages)}${q.rejection ? `  REFUSED: ${q.rejection}` : ""}`;
    t.diagnostic(line);
    console.log(`# provider-shapes: ${line}`);
  }
  for (const x of fm.rejections.slice(r0)) {
    t.diagnostic(`REFUSED request ${x.index}: ${x.reason}\n  roles: ${x.roles}\n  first message: ${JSON.stringify(x.body.messages?.[0]).slice(0, 600)}`);
  }
  assert.deepEqual(fm.rejections.slice(r0).map((x) => `request ${x.index}: ${x.reason} — roles ${x.roles}`), [], "no request refused by the Anthropic/Bedrock rules");
  assert.equal(r.code, 0, `exit ${r.code}; stderr tail:\n${r.stderr.slice(-3000)}`);
  assert.ok(reqs.length >= 1, "the model was called");
  for (const q of reqs) {
    assert.equal(q.api, ANTHROPIC_API);
    assert.equal(q.body.messages[0].role, "user", "the first message is the user's");
    assert.equal(geminiViolation(q.body), null, `Gemini's rule (request ${q.index}: ${anthropicRoles(q.body.messages)})`);
  }
  const pairs = reqs.map((q) => recallPair(q.body));
  for (const [i, p] of pairs.entries()) {
    assert.ok(p, `request ${reqs[i].index} carries the synthetic recall pair`);
    assert.ok(p.memories.length >= 1, "… with the planted memories");
  }
  return { ...r, reqs, pairs };
}

test("(a) a new session's first turn, (b) a later turn, (c) a tool loop, (e) after the trigger compacted: Anthropic/Bedrock/Gemini-valid", { timeout: 900_000 }, async (t) => {
  const S = "shapes";
  const a = await turn(t, "a", A, S, "Which database does the billing service use?");
  assert.equal(a.pairs[0].at, 1, "(a) nothing before the pair but its opening line");
  assert.ok(a.pairs[0].memories.some((m) => /Postgres 16/.test(m.content)), "(a) the planted memory was recalled");

  const b = await turn(t, "b", A, S, "And when does the release train leave?");
  assert.ok(b.reqs[0].body.messages.some((m) => m.role === "assistant" && /FAKE-ANSWER: Which database/.test(textOfBlocks(m))), "(b) the first turn is in the history");

  const c = await turn(t, "c", A, S, "TOOLS look up the billing database tip in memory, then expand it.");
  const calls = c.reqs.flatMap((q) => q.body.messages.flatMap((m) => anthropicBlocks(m.content))).filter((x) => x.type === "tool_use").map((x) => x.name);
  assert.ok(c.reqs.length >= 3 && calls.includes("memory_recall") && calls.includes("memory_expand"), `(c) a tool loop of three model calls (${c.reqs.length}: ${[...new Set(calls)]})`);
  const last = c.reqs.at(-1).body.messages;
  assert.equal(last.at(-1).role, "user", "(c) the loop's last request ends on the user's side");

  // (c) was the third turn: the engine's turn trigger (compactTurnThreshold 3) committed
  const deadline = Date.now() + 120_000;
  while ((await client.getSession(`main--${S}`).catch(() => ({}))).commit_count < 1) {
    assert.ok(Date.now() < deadline, "the trigger committed the session");
    await new Promise((r) => setTimeout(r, 1000));
  }
  await turn(t, "e1", A, S, "Remind me what we said about the billing database."); // records the checkpoint
  const e = await turn(t, "e2", A, S, "And what did we say about the release train?");
  const first = e.reqs[0].body.messages[0];
  assert.ok(textOfBlocks(first).includes("<conversation-summary"), `(e) the compaction summary comes first: ${JSON.stringify(textOfBlocks(first).slice(0, 200))}`);
  assert.ok(!e.reqs[0].body.messages.slice(1).some((m) => /TOOLS look up/.test(textOfBlocks(m))), "(e) the compacted turns are not raw any more");
});

test("(d) a session whose older turns are trimmed under a small context window: Anthropic/Bedrock/Gemini-valid", { timeout: 600_000 }, async (t) => {
  const S = "tight";
  await turn(t, "d1", B, S, `D1 Keep this billing ledger; which database does the billing service use?\n${FILLER("D1")}`);
  const d2 = await turn(t, "d2", B, S, `D2 Here is more of the billing ledger:\n${FILLER("D2")}`);
  assert.ok(d2.reqs[0].body.messages.some((m) => textOfBlocks(m).includes("D1 line 0:")), "(d2) one earlier turn still fits");
  const d = await turn(t, "d3", B, S, `D3 And the last part of the billing ledger:\n${FILLER("D3")}`);
  for (const q of d.reqs) {
    const texts = q.body.messages.map(textOfBlocks);
    assert.ok(!texts.some((x) => x.includes("D1 line 0:")), "(d3) the oldest turn was trimmed");
    assert.ok(texts.some((x) => x.includes("D2 line 0:")), "(d3) the newer one kept");
    assert.ok(/D2 Here is more/.test(texts[0]), `(d3) the request opens with the oldest kept turn's user message: ${JSON.stringify(texts[0].slice(0, 80))}`);
  }
});
