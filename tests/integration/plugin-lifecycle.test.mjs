// The OpenClaw plugin (js-glue/index.js) driven like the three host generations, against a
// real OpenViking: 2026.9.x (assemble with `prompt`, commitTurn only), 2026.8.1–9.2
// (commitTurn AND afterTurn for the same turn — written once), 2026.4.x (afterTurn sliced
// by prePromptMessageCount, with the injected recall pair in the snapshot — never stored).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHarness } from "../../js-glue/test/openviking/helpers.mjs";
import { createClient } from "../inspect/client.js";

let h;
let stateDir;
let engine;
let tools;
let client;
const warnings = [];

before(async () => {
  h = await startHarness();
  stateDir = mkdtempSync(join(tmpdir(), "ove-plugin-"));
  const { default: plugin } = await import("../../js-glue/index.js");
  tools = {};
  let factory;
  plugin.register({
    pluginConfig: { mode: "remote", baseUrl: h.env.baseUrl, apiKey: h.env.userKey, stateDir, compactTurnThreshold: 50 },
    logger: { warn: (m) => warnings.push(m), info() {}, error: (m) => warnings.push(m) },
    registerContextEngine: (id, f) => (factory = f),
    registerTool: (f, o) => (tools[o.name] = f),
    registerService() {},
  });
  engine = factory({});
  client = createClient({ baseUrl: h.env.baseUrl, apiKey: h.env.userKey, agentId: "main" });
});
after(async () => {
  await engine?.dispose();
  await h?.stop();
  rmSync(stateDir, { recursive: true, force: true });
});

const user = (text, ts) => ({ role: "user", content: text, timestamp: ts });
const answer = (text) => ({ role: "assistant", content: [{ type: "text", text }], stopReason: "stop", api: "openai-completions", provider: "fake", model: "m", timestamp: Date.now() });
const userTexts = async (ov) => ((await client.sessionContext(ov, { tokenBudget: 1000000 })).messages ?? [])
  .filter((m) => m.role === "user").map((m) => m.parts.find((p) => p.type === "text")?.text);

test("2026.9.x: assemble gets prompt apart; commitTurn stores the turn once; a retry is duplicate", async () => {
  const sessionKey = "agent:main:main";
  await engine.bootstrap({ sessionId: "s9", sessionKey });
  const a = await engine.assemble({ sessionId: "s9", sessionKey, messages: [], prompt: "We decided the cache TTL is 300 seconds", tokenBudget: 90000 });
  assert.ok(Array.isArray(a.messages) && a.estimatedTokens >= 0);
  assert.match(a.systemPromptAddition, /memory_recall/);
  const turn = [user("We decided the cache TTL is 300 seconds", 1764000001000), answer("Noted: TTL 300 s.")];
  assert.deepEqual(await engine.commitTurn({ sessionId: "s9", sessionKey, advancementKey: "adv-9-1", messages: turn, terminal: true }), { status: "committed" });
  assert.deepEqual(await engine.commitTurn({ sessionId: "s9", sessionKey, advancementKey: "adv-9-1", messages: turn, terminal: true }), { status: "duplicate" });
  assert.deepEqual(await userTexts("main--s9"), ["We decided the cache TTL is 300 seconds"]);
});

test("2026.8.1–9.2: commitTurn and afterTurn for the same turn write it once", async () => {
  const sessionKey = "agent:main:both";
  const turn = [user("Let's go with Postgres 16 for billing", 1764000002000), answer("Postgres 16 it is.")];
  await engine.commitTurn({ sessionId: "s8", sessionKey, advancementKey: "adv-8-1", messages: turn });
  await engine.afterTurn({ sessionId: "s8", sessionKey, messages: turn, prePromptMessageCount: 0, tokenBudget: 80000 });
  assert.deepEqual(await userTexts("main--s8"), ["Let's go with Postgres 16 for billing"]);
});

const toolUse = (id) => ({ role: "assistant", content: [{ type: "toolCall", id, name: "exec", arguments: { command: "ls" } }], stopReason: "toolUse", timestamp: 1764000009100 });
const toolResult = (id) => ({ role: "toolResult", toolCallId: id, toolName: "exec", content: [{ type: "text", text: "README.md" }], isError: false, timestamp: 1764000009200 });
const liveMessages = async (ov) => (await client.sessionContext(ov, { tokenBudget: 1000000 })).messages ?? [];

test("2026.9.2: the tool-loop afterTurn checkpoints write nothing; commitTurn stores the turn once", async () => {
  const sessionKey = "agent:main:h92";
  // as the real host calls it: afterTurn before each model call, then commitTurn with the
  // transcript's copy of the turn (its user timestamp ~1 s off the live message's)
  const live = user("List the files in the repo", 1764000009000);
  await engine.afterTurn({ sessionId: "s92", sessionKey, messages: [live], prePromptMessageCount: 0, tokenBudget: 80000 });
  await engine.afterTurn({ sessionId: "s92", sessionKey, messages: [live, toolUse("c92"), toolResult("c92")], prePromptMessageCount: 1, tokenBudget: 80000 });
  const final = { ...answer("There is a README.md."), timestamp: 1764000009300 };
  const transcript = [user("List the files in the repo", 1764000008050), toolUse("c92"), toolResult("c92"), final];
  assert.deepEqual(await engine.commitTurn({ sessionId: "s92", sessionKey, advancementKey: "adv-92-1", messages: transcript }), { status: "committed" });
  assert.deepEqual(await userTexts("main--s92"), ["List the files in the repo"]);
  const tools = (await liveMessages("main--s92")).flatMap((m) => m.parts).filter((p) => p.type === "tool");
  assert.equal(tools.length, 1, "the tool call stored once");
});

test("2026.7.35: a tool turn arriving as three afterTurn slices is stored whole, once", async () => {
  const sessionKey = "agent:main:h735";
  const u = user("What does the README say?", 1764000010000);
  await engine.afterTurn({ sessionId: "s735", sessionKey, messages: [u], prePromptMessageCount: 0 });
  await engine.afterTurn({ sessionId: "s735", sessionKey, messages: [u, toolUse("c735"), toolResult("c735")], prePromptMessageCount: 1 });
  const done = [u, toolUse("c735"), toolResult("c735"), answer("It describes the engine.")];
  await engine.afterTurn({ sessionId: "s735", sessionKey, messages: done, prePromptMessageCount: 3 });
  const msgs = await liveMessages("main--s735");
  assert.deepEqual(msgs.map((m) => m.role), ["user", "assistant"], "one turn: the user message and one assistant message");
  const parts = msgs[1].parts.map((p) => p.type);
  assert.ok(parts.includes("tool") && parts.includes("text"), `tool call and answer together: ${parts}`);
});

test("2026.4.x: afterTurn slices by prePromptMessageCount and never stores the injected pair", async () => {
  const sessionKey = "agent:main:old";
  const history = [user("I prefer dark mode in every editor", 1764000003000), answer("Dark mode noted.")];
  await engine.afterTurn({ sessionId: "s4", sessionKey, messages: history, prePromptMessageCount: 0 });
  // next turn: the host gives the full snapshot including the current user message
  const current = user("Which editor theme do I like?", 1764000004000);
  const assembled = await engine.assemble({ sessionId: "s4", sessionKey, messages: [...history, current], tokenBudget: 90000 });
  const snapshot = [...assembled.messages, answer("You like dark mode.")];
  await engine.afterTurn({ sessionId: "s4", sessionKey, messages: snapshot, prePromptMessageCount: assembled.messages.length - 1 });
  const texts = await userTexts("main--s4");
  assert.deepEqual(texts, ["I prefer dark mode in every editor", "Which editor theme do I like?"]);
  const ctx = await client.sessionContext("main--s4", { tokenBudget: 1000000 });
  const toolNames = (ctx.messages ?? []).flatMap((m) => m.parts).filter((p) => p.type === "tool").map((p) => p.tool_name);
  assert.ok(!toolNames.includes("memory_recall_auto"), "the synthetic recall pair is never stored");
});

test("compact() archives and reports a checkpoint; with nothing new it says compacted:false", async () => {
  const sessionKey = "agent:main:cmp";
  for (const [i, t] of ["We decided to ship on Fridays only.", "Tip: restart the worker after a deploy."].entries()) {
    await engine.commitTurn({ sessionId: "sc", sessionKey, advancementKey: `cmp-${i}`, messages: [user(t, 1764000005000 + i), answer("Noted.")] });
  }
  const out = await engine.compact({ sessionId: "sc", sessionKey, force: true, compactionTarget: "budget", tokenBudget: 90000 });
  assert.equal(out.ok, true);
  assert.equal(out.compacted, true);
  assert.ok(out.result.details.checkpoint || out.result.details.taskPending);
  assert.equal(typeof out.result.tokensBefore, "number");
  const again = await engine.compact({ sessionId: "sc", sessionKey, force: true });
  assert.equal(again.compacted, false);
  assert.ok(again.reason);
});

test("after compaction a new session recalls the tip, asked in other words", async () => {
  // extracted memories are indexed asynchronously after the commit task: poll (bounded)
  let result;
  for (let i = 0; i < 30; i++) {
    const a = await engine.assemble({ sessionId: "new-after-cmp", sessionKey: "agent:main:new", messages: [], prompt: "what should I do once a deploy has finished?", tokenBudget: 90000 });
    result = a.messages.find((m) => m.role === "toolResult" && m.toolName === "memory_recall_auto");
    if (result && /restart the worker/i.test(result.content[0].text)) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  assert.ok(result, "recall reached the messages");
  assert.match(result.content[0].text, /restart the worker/i, "the compacted tip came back through long-term memory");
});

test("memory_recall validates its input and answers with the shared JSON document", async () => {
  const tool = tools.memory_recall({ sessionKey: "agent:main:main" });
  const bad = await tool.execute("call_1", { query: "" });
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /^query:/);
  const unknown = await tool.execute("call_2", { query: "x", nope: 1 });
  assert.match(unknown.content[0].text, /^nope:/);
  const ok = await tool.execute("call_3", { query: "what did we decide about shipping days?" });
  const doc = JSON.parse(ok.content[0].text);
  assert.ok(Array.isArray(doc.memories));
  assert.equal(doc.source, "openviking-recall");
});

test("memory_store is recalled on the next turn; memory_forget stays inside the caller's scopes", async () => {
  const store = tools.memory_store({ sessionKey: "agent:main:main" });
  assert.match((await store.execute("s0", { text: "" })).content[0].text, /^text:/);
  const stored = await store.execute("s1", { text: "Remember that I prefer a dark theme in every editor.", category: "preferences" });
  assert.equal(stored.isError, undefined, stored.content[0].text);
  const { uri } = JSON.parse(stored.content[0].text);
  const a = await engine.assemble({ sessionId: "st", sessionKey: "agent:main:main", messages: [], prompt: "which colour scheme do I like for editors?", tokenBudget: 90000 });
  const pair = a.messages.filter((m) => m.role === "toolResult" && m.toolName === "memory_recall_auto");
  assert.equal(pair.length, 1);
  // the pair's result: one line per memory ("- " + its text), no uri
  assert.match(pair[0].content[0].text, /^- .*dark theme/im, "the stored memory is recalled at once");

  const forget = tools.memory_forget({ sessionKey: "agent:main:main" });
  for (const outside of ["viking://user/someone-else/memories/preferences/x.md", `viking://user/${h.env.userId}/sessions/main--s9`, `viking://user/${h.env.userId}/memories/../resources/x`, `viking://user/${h.env.userId}/memories`]) {
    const r = await forget.execute("f0", { uri: outside });
    assert.equal(r.isError, true, outside);
    assert.match(r.content[0].text, /^uri:/);
  }
  assert.match((await forget.execute("f1", { targetUri: "viking://agent/other/memories", query: "x" })).content[0].text, /^targetUri:/);
  const gone = await forget.execute("f2", { uri });
  assert.deepEqual(JSON.parse(gone.content[0].text).deleted, [uri]);
});

test("memory_expand goes from a summary's archive, and from an extracted memory, back to the raw turns", async () => {
  const sessionKey = "agent:main:exp";
  const lines = ["We decided the nightly backup runs at 02:00 UTC.", "Tip: slow queries on the audit log are fixed by partitioning it by month."];
  for (const [i, t] of lines.entries()) {
    await engine.commitTurn({ sessionId: "sx", sessionKey, advancementKey: `x-${i}`, messages: [user(t, 1764000009000 + i), answer("Noted.")] });
  }
  const c = await engine.compact({ sessionId: "sx", sessionKey, force: true });
  assert.equal(c.compacted, true);
  const cp = c.result.details.checkpoint;
  assert.ok(cp, "the checkpoint is recorded");
  const expand = tools.memory_expand({ sessionKey });
  const fromArchive = JSON.parse((await expand.execute("e1", { summaryOrMemoryUri: cp.archiveUri, query: "audit log slow queries" })).content[0].text);
  assert.equal(fromArchive.excerpts.length, 1);
  assert.match(fromArchive.excerpts[0].text, /partitioning it by month/);
  assert.equal(fromArchive.excerpts[0].turnId, "x-1");
  assert.ok(fromArchive.readable.length >= 2);
  if (cp.extractedMemoryUris.length) {
    const fromMemory = JSON.parse((await expand.execute("e2", { summaryOrMemoryUri: cp.extractedMemoryUris[0] })).content[0].text);
    assert.equal(fromMemory.checkpointId, cp.checkpointId);
    assert.ok(fromMemory.excerpts.length >= 1);
  }
  const foreign = await expand.execute("e3", { summaryOrMemoryUri: `viking://user/${h.env.userId}/sessions/other--sx/history/archive_001` });
  assert.equal(foreign.isError, true);
  assert.match((await expand.execute("e4", {})).content[0].text, /^summaryOrMemoryUri:/);
});

test("memory_expand: agent main never reads the archive of look-alike agent main-", async () => {
  const keyOf = (agent) => `agent:${agent}:exp`;
  await engine.commitTurn({ sessionId: "sx", sessionKey: keyOf("main-"), advancementKey: "la-0", messages: [user("main- decided the vault code is 4711", 1764000019000), answer("Noted.")] });
  const c = await engine.compact({ sessionId: "sx", sessionKey: keyOf("main-"), force: true });
  assert.equal(c.compacted, true);
  const archiveUri = c.result.details.checkpoint?.archiveUri ?? `viking://user/${h.env.userId}/sessions/_main_2d--sx/history/archive_001`;
  assert.match(archiveUri, /\/sessions\/_main_2d--sx\//, "main-'s session id is not main's prefix plus a dash");
  const own = JSON.parse((await tools.memory_expand({ sessionKey: keyOf("main-") }).execute("l1", { summaryOrMemoryUri: archiveUri })).content[0].text);
  assert.ok(own.excerpts.some((e) => /4711/.test(e.text)), "main- reads its own archive");
  const theirs = await tools.memory_expand({ sessionKey: keyOf("main") }).execute("l2", { summaryOrMemoryUri: archiveUri });
  assert.equal(theirs.isError, true);
  assert.ok(!JSON.stringify(theirs).includes("4711"));
});

test("the stable profile reaches the model through the recall pair", async () => {
  const uri = `viking://user/${h.env.userId}/memories/profile.md`;
  await client.writeContent({ uri, content: "Alice is a backend engineer in Berlin who writes Rust and TypeScript.", mode: "replace", wait: true });
  // a fresh plugin runtime (the profile is read once per process)
  const { default: plugin } = await import(`../../js-glue/index.js?fresh=${Date.now()}`);
  let factory;
  const dir2 = mkdtempSync(join(tmpdir(), "ove-prof-"));
  plugin.register({
    pluginConfig: { mode: "remote", baseUrl: h.env.baseUrl, apiKey: h.env.userKey, stateDir: dir2 },
    logger: { warn() {}, info() {} },
    registerContextEngine: (_id, f) => (factory = f),
    registerTool() {},
    registerService() {},
    on() {},
  });
  const e2 = factory();
  const a = await e2.assemble({ sessionId: "prof", sessionKey: "agent:main:prof", messages: [], prompt: "which languages should the code samples use?", tokenBudget: 90000 });
  const result = a.messages.find((m) => m.role === "toolResult" && m.toolName === "memory_recall_auto");
  assert.ok(result, "a recall pair");
  assert.equal(result.content[0].text.split("\n")[0], "- Alice is a backend engineer in Berlin who writes Rust and TypeScript.", "the profile leads the pair");
  rmSync(dir2, { recursive: true, force: true });
});
