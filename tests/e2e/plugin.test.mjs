// The plugin in real OpenClaw turns: OpenClaw 2026.9.6 (`openclaw agent --local`, one
// process per turn) with js-glue in the context-engine slot, a real OpenViking (remote mode)
// and the loopback fake model. Asserts on what the model received (request log), what
// OpenClaw returned, and what OpenViking holds.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startFakeModel, defaultScript, endsWithToolResult, lastQuestion, textOf } from "./fake-model.mjs";
import { writeConfig, runTurn, scratchDir } from "./openclaw.mjs";
import { startHarness } from "../../js-glue/test/openviking/helpers.mjs";
import { createClient } from "../inspect/client.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const TURN_MS = 150_000;
const SKILL = "billing-database-migrations";
let fm, dir, ov, client;
let overflowDone = false;

function script(req) {
  const q = lastQuestion(req);
  // once: the retry after compaction carries the question wrapped in a continue prompt
  if (q.includes("OVERFLOW") && !overflowDone) {
    overflowDone = true;
    return { error: "context_length_exceeded" };
  }
  if (q.includes("RECALL") && !endsWithToolResult(req.messages)) {
    return { toolCalls: [{ name: "memory_recall", arguments: { query: "database tip for slow queries" } }] };
  }
  const remember = /^remember that (.+)$/i.exec(q.trim());
  if (remember && !endsWithToolResult(req.messages)) {
    return { toolCalls: [{ name: "memory_store", arguments: { text: `The user said: ${remember[1]}`, category: "preferences" } }] };
  }
  const expand = /EXPAND (\S+)/.exec(q);
  if (expand && !endsWithToolResult(req.messages)) {
    return { toolCalls: [{ name: "memory_expand", arguments: { summaryOrMemoryUri: expand[1], query: "release train" } }] };
  }
  return defaultScript(req);
}

before(async () => {
  ov = await startHarness();
  fm = await startFakeModel({ script });
  dir = scratchDir("oc-plugin-");
  writeConfig({
    dir,
    modelUrl: `${fm.url}/v1`,
    plugin: {
      path: path.join(ROOT, "js-glue"),
      id: "openviking",
      config: { mode: "remote", baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, compactTurnThreshold: 3, recentRawTurnCount: 1, timeoutMs: 8000, hookFallback: false },
    },
    extra: { agents: { defaults: { compaction: { keepRecentTokens: 10 } } } },
  });
  client = createClient({ baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, agentId: "main" });
  // a skill under the user's skills, for the skill list
  const planted = await fetch(`${ov.env.baseUrl}/api/v1/skills`, {
    method: "POST",
    headers: { "X-API-Key": ov.env.userKey, "Content-Type": "application/json" },
    body: JSON.stringify({ data: `---\nname: ${SKILL}\ndescription: Migrate the billing database schema safely, one transaction per file\n---\n# Billing migrations\nRun each migration file in its own transaction.\n`, wait: true }),
  }).then((r) => r.json());
  assert.equal(planted.status, "ok", JSON.stringify(planted));
});
after(async () => {
  await fm?.close?.();
  await ov?.stop();
});

async function turn(t, sessionId, message) {
  const n0 = fm.requests.length;
  const r = await runTurn({ dir, sessionId, message, timeoutMs: TURN_MS });
  const reqs = fm.requests.slice(n0);
  t.diagnostic(`turn ${sessionId} exit=${r.code} wall=${r.ms}ms requests=${reqs.length} ${JSON.stringify(message).slice(0, 60)}`);
  for (const line of `${r.stdout}\n${r.stderr}`.split("\n").filter((l) => l.includes("[openviking]"))) t.diagnostic(`  ${line.slice(0, 300)}`);
  // with the engine in the slot, it never reports itself inert
  assert.doesNotMatch(`${r.stdout}\n${r.stderr}`, /context engine is not in use/, `turn ${sessionId}: no inert warning with the engine active`);
  return { ...r, reqs };
}
const ok = (r) => assert.equal(r.code, 0, `exit ${r.code}; stderr tail:\n${r.stderr.slice(-3000)}`);

/** Every tool call in a request has its tool result, and ids are well-formed. */
function assertValid(req) {
  const msgs = req.body.messages;
  for (const [i, m] of msgs.entries()) {
    for (const call of m.tool_calls ?? []) {
      assert.match(call.id, /^[A-Za-z0-9_-]{1,64}$/);
      assert.ok(msgs.slice(i + 1).some((x) => x.role === "tool" && x.tool_call_id === call.id), `tool call ${call.id} has its result`);
    }
  }
}

const recallPairs = (req) =>
  req.body.messages.filter((m) => (m.tool_calls ?? []).some((c) => c.function?.name === "memory_recall_auto"));

async function waitFor(fn, ms = 60000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > end) return null;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

test("turns land in OpenViking, the engine's triggers compact, a new session recalls the decision", { timeout: 900_000 }, async (t) => {
  const a1 = await turn(t, "alpha", "We decided to use Postgres 16 for the billing service.");
  ok(a1);
  assert.ok(a1.reqs.length >= 1);
  assert.ok(textOf(a1.reqs[0].body.messages[0].content).includes("Long-term memory (OpenViking)"), "the engine's systemPromptAddition reached the model");
  a1.reqs.forEach(assertValid);
  const meta1 = await client.getSession("main--alpha");
  assert.equal(meta1.message_count, 2, "turn 1 landed in OpenViking");

  ok(await turn(t, "alpha", "Tip: slow queries on the invoices table are fixed by an index on (customer_id, created_at)."));
  ok(await turn(t, "alpha", "I prefer short answers with code examples."));
  // the third counted turn fired the turn trigger: the commit ran before the process exited
  const committed = await waitFor(async () => (await client.getSession("main--alpha")).commit_count >= 1);
  assert.ok(committed, "the engine's trigger committed the session");
  const memory = await waitFor(async () => {
    const r = await client.find({ query: "billing database Postgres", targetUri: `viking://user/${ov.env.userId}/memories`, limit: 5, scoreThreshold: 0 });
    return (r.memories ?? []).some((m) => /postgres/i.test(`${m.abstract} ${m.uri}`));
  }, 90000);
  assert.ok(memory, "the decision was extracted into long-term memory");

  const b1 = await turn(t, "bravo", "Which database did we pick for billing?");
  ok(b1);
  b1.reqs.forEach(assertValid);
  for (const req of b1.reqs) assert.equal(recallPairs(req).length, 1, "exactly one synthetic recall pair per request");
  const req = b1.reqs[0].body.messages;
  const callIdx = req.findIndex((m) => (m.tool_calls ?? []).some((c) => c.function?.name === "memory_recall_auto"));
  const result = req[callIdx + 1];
  assert.equal(result.role, "tool");
  assert.match(textOf(result.content), /postgres/i, "the recalled decision is in the tool result");
  // the planted skill is listed after the memories, as data: name, one line, uri
  const lines = textOf(result.content).split("\n");
  const at = lines.findIndex((l) => l.startsWith("Skills that may fit this turn"));
  assert.ok(at > 0, textOf(result.content));
  assert.equal(lines[at + 1], `- ${SKILL} — Migrate the billing database schema safely, one transaction per file (viking://user/${ov.env.userId}/skills/${SKILL})`);
  // the map of folders is in the system prompt: this agent's and the user's, with counts
  const system = textOf(req[0].content);
  assert.equal(req[0].role, "system");
  assert.match(system, new RegExp(`Folders your long-term memory holds[^\\n]*\\n- your memories \\(viking://user/${ov.env.userId}/memories\\): \\S+/ \\(\\d+\\)`), system.slice(-800));
  const mapText = system.slice(system.indexOf("Folders your long-term memory holds")).split(/\n\s*\n|<!--/)[0];
  assert.ok(!mapText.includes("openviking-context-engine") && !mapText.includes("viking://agent/memories"), `only the user's and this agent's own folders: ${mapText}`);
  t.diagnostic(`map in the system prompt: ${mapText.split("\n").join(" | ")}`);
  assert.ok(!textOf(req[req.length - 1].content).includes("relevant-memories"), "no prepended recall text");
});

test("the model's own memory_recall call and tool-loop re-assembly never stack pairs", { timeout: 300_000 }, async (t) => {
  const r = await turn(t, "bravo", "RECALL please look up the database tip");
  ok(r);
  assert.ok(r.reqs.length >= 2, "a tool loop happened");
  for (const req of r.reqs) {
    assertValid(req);
    assert.ok(recallPairs(req).length <= 1, "re-assembly keeps one pair");
  }
  const last = r.reqs.at(-1).body.messages;
  const toolMsg = last.filter((m) => m.role === "tool").at(-1);
  const doc = JSON.parse(textOf(toolMsg.content));
  assert.equal(doc.source, "openviking-recall");
  assert.ok(Array.isArray(doc.memories));
  const stored = await client.sessionContext("main--bravo", { tokenBudget: 1000000 });
  const toolNames = (stored.messages ?? []).flatMap((m) => m.parts).filter((p) => p.type === "tool").map((p) => p.tool_name);
  assert.ok(!toolNames.includes("memory_recall_auto"), "the synthetic pair is never stored");
  assert.ok(toolNames.includes("memory_recall"), "the model's real tool call is stored");
});

test("a provider overflow makes OpenClaw call compact(force); the retry sees the summary", { timeout: 400_000 }, async (t) => {
  ok(await turn(t, "charlie", "We decided the release train leaves every second Tuesday."));
  ok(await turn(t, "charlie", "Note that hotfixes skip the train but need two reviewers."));
  const r = await turn(t, "charlie", "OVERFLOW what is our release cadence?");
  ok(r);
  assert.ok(r.json?.meta?.agentMeta?.compactionCount >= 1 || r.reqs.length >= 2, "OpenClaw compacted and retried");
  const meta = await client.getSession("main--charlie");
  assert.ok(meta.commit_count >= 1, "compact() was an OpenViking commit");
  const retry = r.reqs.at(-1).body.messages;
  assertValid(r.reqs.at(-1));
  assert.ok(retry.some((m) => textOf(m.content).includes("<conversation-summary")), "the retry carries the engine's summary");
  assert.ok(!retry.some((m) => textOf(m.content).includes("1970-01-01")), "the summary message has a real timestamp");
});

test("OpenViking stopped mid-conversation (remote mode): the turn completes, a memory_store is queued, and both land once after the restart", { timeout: 400_000 }, async (t) => {
  const harness = (cmd) => execFileSync("python3", [path.join(ROOT, "tests/openviking/harness.py"), cmd, "--workdir", ov.dir], { timeout: 120_000 });
  ok(await turn(t, "delta", "We decided the on-call rotation changes on Mondays."));
  harness("kill-server");
  const down = await turn(t, "delta", "Note that the pager escalates after ten minutes.");
  ok(down);
  // an explicit memory asked for while OpenViking is down is queued, said so, and applied later
  const asked = await turn(t, "delta", "remember that the pager rota lives in the ops wiki");
  ok(asked);
  const answer = asked.reqs.at(-1).body.messages.filter((m) => m.role === "tool").map((m) => textOf(m.content)).join("\n");
  assert.match(answer, /"status":"queued"/, `memory_store answered queued: ${answer.slice(0, 400)}`);
  const memoryUri = /"uri":"([^"]+)"/.exec(answer)?.[1];
  assert.ok(memoryUri, answer.slice(0, 400));
  harness("restart-server");
  ok(await turn(t, "delta", "And weekends are covered by the secondary."));
  assert.match(await client.readContent(memoryUri), /pager rota lives in the ops wiki/, "the queued memory is in OpenViking");
  const folder = memoryUri.slice(0, memoryUri.lastIndexOf("/"));
  const same = (await client.ls(folder)).map((f) => String(f.uri ?? f)).filter((u) => u.includes("pager-rota"));
  assert.equal(same.length, 1, `once: ${same.join(", ")}`);
  const ctx = await client.sessionContext("main--delta", { tokenBudget: 1000000 });
  const texts = (ctx.messages ?? []).filter((m) => m.role === "user").map((m) => m.parts.find((p) => p.type === "text")?.text ?? "");
  assert.ok(texts.some((x) => x.includes("pager escalates")), "the outage turn was replayed from the outbox");
  assert.equal(texts.filter((x) => x.includes("pager escalates")).length, 1, "exactly once");
  assert.ok(texts.at(-1).includes("secondary"), "in order");
});

test("\"remember …\" reaches memory_store and the next session recalls it; memory_expand returns raw turn text", { timeout: 400_000 }, async (t) => {
  const r = await turn(t, "foxtrot", "remember that I prefer a dark theme in every editor");
  ok(r);
  const stored = r.reqs.at(-1).body.messages.filter((m) => m.role === "tool").map((m) => textOf(m.content)).join("\n");
  assert.match(stored, /"stored":true/, "the model's memory_store call wrote the memory");
  const next = await turn(t, "golf", "Which colour scheme do I like for editors?");
  ok(next);
  const msgs = next.reqs[0].body.messages;
  const callId = msgs.flatMap((m) => m.tool_calls ?? []).find((c) => c.function?.name === "memory_recall_auto")?.id;
  const pair = msgs.find((m) => m.role === "tool" && callId && m.tool_call_id === callId);
  assert.ok(pair && /dark theme/i.test(textOf(pair.content)), "recalled in the very next session");
  // charlie was compacted by the overflow test: expand its archive back to the raw turns
  const rec = await client.ls(`viking://user/${ov.env.userId}/sessions/main--charlie/history`).catch(() => []);
  const archive = `viking://user/${ov.env.userId}/sessions/main--charlie/history/archive_001`;
  t.diagnostic(`charlie archives: ${JSON.stringify(rec).slice(0, 200)}`);
  const e = await turn(t, "charlie", `EXPAND ${archive}`);
  ok(e);
  const expanded = e.reqs.at(-1).body.messages.filter((m) => m.role === "tool").map((m) => textOf(m.content)).join("\n");
  assert.match(expanded, /release train leaves every second Tuesday/, "memory_expand returned the raw turn text");
});

test("engine not in the slot: the before_prompt_build fallback recalls; with the engine active it injects nothing", { timeout: 300_000 }, async (t) => {
  const legacyDir = scratchDir("oc-legacy-");
  writeConfig({
    dir: legacyDir,
    modelUrl: `${fm.url}/v1`,
    plugin: { path: path.join(ROOT, "js-glue"), id: "openviking", config: { mode: "remote", baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey } },
    extra: { plugins: { slots: { contextEngine: "legacy" } } },
  });
  const n0 = fm.requests.length;
  const r = await runTurn({ dir: legacyDir, sessionId: "echo", message: "Which database did we choose for billing?", timeoutMs: TURN_MS });
  t.diagnostic(`legacy-slot turn exit=${r.code} wall=${r.ms}ms`);
  ok(r);
  const req = fm.requests.slice(n0)[0].body.messages;
  assert.equal(recallPairs({ body: { messages: req } }).length, 0, "no synthetic pair without the engine");
  const users = req.filter((m) => m.role === "user").map((m) => textOf(m.content));
  assert.ok(users.some((u) => u.includes("<relevant-memories>") && /postgres/i.test(u)), "the hook fallback injected the recall");
  // loud when inert: the plugin says the engine is not in use, why, and the fix
  const said = `${r.stdout}\n${r.stderr}`.split("\n").filter((l) => l.includes("context engine is not in use"));
  t.diagnostic(`inert warning: ${said[0]?.slice(0, 300)}`);
  assert.equal(said.length, 1, `the plugin warns that the engine is inert, once per process and cause (its load and the turn's fallback see the same cause)\n${r.stderr.slice(-2000)}`);
  assert.match(said[0], /"legacy"/, "… naming the slot it found");
  assert.match(said[0], /fix: set plugins\.slots\.contextEngine to "openviking"/, "… and the fix");
});
