// The lifecycle engine (wasm) against a REAL OpenViking 0.5.2 server with the loopback
// model stand-in: writes land completely, triggers fire at their thresholds, compaction
// archives and yields a summary, extracted memories and a checkpoint, retried keys write
// nothing twice, one process per turn behaves like a long-lived engine; tool parts keep their
// status, duration and skill; recall's intent narrows and windows the finds OpenViking answers;
// history search finds an archived turn by meaning; two machines writing one session answer
// status and history search the same; lexical candidates come from OpenViking's grep.
import { describe, test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startHarness } from "../../js-glue/test/openviking/helpers.mjs";
import { makeEngine, toolTurn } from "./engine-host.mjs";
import { createClient } from "../inspect/client.js";

const here = fileURLToPath(new URL(".", import.meta.url));
let harness;
let stateRoot;
const stateDir = (name) => join(stateRoot, name);

before(async () => {
  harness = await startHarness();
  stateRoot = mkdtempSync(join(tmpdir(), "ove-int-"));
});
after(async () => {
  await harness?.stop();
  rmSync(stateRoot, { recursive: true, force: true });
});

const base = () => ({ baseUrl: harness.env.baseUrl, apiKey: harness.env.userKey, userId: harness.env.userId });
const client0 = () => createClient({ baseUrl: harness.env.baseUrl, apiKey: harness.env.userKey, agentId: "main", timeoutMs: 60000 });

async function liveMessages(client, ovId) {
  const ctx = await client.sessionContext(ovId, { tokenBudget: 1000000 });
  return ctx.messages ?? [];
}

describe("engine against a real OpenViking", { timeout: 300000 }, () => {
  test("a conversation with tool calls lands completely", async () => {
    const { engine, client } = await makeEngine({ ...base(), stateDir: stateDir("land"), config: { compactTurnThreshold: 50 } });
    for (let i = 0; i < 3; i++) {
      const out = await engine.writeTurn({ sessionId: "land", advancementKey: `land-${i}`, messages: toolTurn(i, `What pool size does service ${i} use?`, `Service ${i} uses a pool of ${10 + i}.`) });
      assert.equal(out.status, "committed");
      assert.equal(out.queued, false);
    }
    const meta = await client.getSession("main--land");
    assert.equal(meta.message_count, 6, "user + assistant per turn");
    const msgs = await liveMessages(client, "main--land");
    const parts = msgs.flatMap((m) => m.parts ?? []);
    assert.equal(parts.filter((p) => p.type === "tool").length, 3);
    assert.equal(parts.filter((p) => p.type === "text").length, 9);
    assert.ok(parts.some((p) => p.type === "tool" && String(p.tool_output).includes("pool: 11")));
  });

  test("tool memory: each tool part keeps its status, duration and the skill it belongs to, as OpenViking stores them", async () => {
    const { engine, client } = await makeEngine({ ...base(), stateDir: stateDir("skill"), config: { compactTurnThreshold: 50 } });
    const t = 1764100000000;
    const turn = [
      { role: "user", content: "Draft the release notes for 2.4", timestamp: t },
      { role: "assistant", stopReason: "toolUse", timestamp: t + 1000, content: [{ type: "toolCall", id: "r1", name: "read", arguments: { path: "/home/u/.openclaw/skills/release_notes/SKILL.md" } }] },
      { role: "toolResult", toolCallId: "r1", toolName: "read", isError: false, timestamp: t + 1040, content: [{ type: "text", text: "# Release notes\nRun git log between the tags." }] },
      { role: "assistant", stopReason: "toolUse", timestamp: t + 2000, content: [{ type: "toolCall", id: "r2", name: "exec", arguments: { command: "git log v2.3..v2.4" } }] },
      { role: "toolResult", toolCallId: "r2", toolName: "exec", isError: true, timestamp: t + 3250, content: [{ type: "text", text: "fatal: bad revision" }] },
      { role: "assistant", stopReason: "stop", timestamp: t + 4000, content: [{ type: "text", text: "The tag v2.4 does not exist yet." }] },
    ];
    assert.equal((await engine.writeTurn({ sessionId: "skill", advancementKey: "skill-1", messages: turn })).status, "committed");
    const tools = (await liveMessages(client, "main--skill")).flatMap((m) => m.parts ?? []).filter((p) => p.type === "tool");
    const skill = `viking://user/${harness.env.userId}/skills/release_notes`;
    assert.deepEqual(
      tools.map((p) => [p.tool_id, p.tool_status, p.duration_ms, p.skill_uri]),
      [["r1", "completed", 40, skill], ["r2", "error", 1250, skill]],
      "read back from OpenViking: the home alias resolved to the user's skills",
    );
    assert.equal(tools[1].tool_output, "fatal: bad revision");
  });

  test("recall that reads the question: a folder, a window, and the fallback, against OpenViking's find", async () => {
    const uid = harness.env.userId;
    const mem = `viking://user/${uid}/memories`;
    for (const [path, content] of [["preferences/editor-theme.md", "Prefers a dark editor theme with a large monospace font."], ["events/cache-switch.md", "The team switched the session cache from Redis to Memcached."]]) {
      await client0().writeContent({ uri: `${mem}/${path}`, content, mode: "replace", wait: true });
    }
    const now = Date.now();
    const { engine } = await makeEngine({ ...base(), stateDir: stateDir("intent"), now: () => now });
    const ask = (sessionId, prompt) => engine.assemble({ sessionId, prompt, messages: [{ role: "user", content: prompt, timestamp: now }], tokenBudget: 20000 });
    const injected = (out) => (out.recall?.memories ?? []).map((m) => m.uri);

    const pref = await ask("intent-a", "What editor theme do I like?");
    assert.equal(pref.recallStatus.state, "searched");
    assert.equal(pref.recallStatus.intent.narrowedTo, "preferences");
    assert.equal(pref.recallStatus.intent.fellBack, false);
    assert.ok(injected(pref).includes(`${mem}/preferences/editor-theme.md`), JSON.stringify(injected(pref)));
    assert.ok(injected(pref).every((u) => u.startsWith(`${mem}/preferences/`) || u.startsWith("viking://agent/")), "only the preferences folder of the user scope");

    // a window whose start is after every memory: OpenViking's since keeps nothing, so the
    // engine searches the whole scope again and still finds the event
    const today = await ask("intent-b", "What did we switch for the session cache today?");
    assert.equal(today.recallStatus.intent.window, "today");
    assert.ok(today.recallStatus.intent.since.endsWith("T00:00:00.000Z"));
    assert.ok(injected(today).includes(`${mem}/events/cache-switch.md`));
    const tomorrow = await makeEngine({ ...base(), stateDir: stateDir("intent-late"), now: () => now + 86400000 * 2 });
    const late = await tomorrow.engine.assemble({ sessionId: "intent-c", prompt: "What did we switch for the cache yesterday?", messages: [], tokenBudget: 20000 });
    assert.equal(late.recallStatus.intent.window, "yesterday");
    assert.equal(late.recallStatus.intent.fellBack, true, "no memory was created since yesterday (two days after they were written)");
    assert.ok(injected(late).includes(`${mem}/events/cache-switch.md`), "the fallback still finds it");
    assert.match(late.recallStatus.line, /nothing there, so the whole scope was searched/);

    // an acknowledgement is not searched
    const ack = await ask("intent-d", "ok thanks!");
    assert.equal(ack.recallStatus.state, "not_needed");
  });

  test("skills and the map: a skill planted under the user's skills is listed and read; the map shows this agent's folders, never another agent's, and is refreshed after a commit", async () => {
    const uid = harness.env.userId;
    const headers = { "X-API-Key": harness.env.userKey, "Content-Type": "application/json" };
    const planted = await fetch(`${harness.env.baseUrl}/api/v1/skills`, {
      method: "POST",
      headers,
      body: JSON.stringify({ data: "---\nname: release-notes\ndescription: Draft release notes from the git log between two tags\n---\n# Release notes\nRun git log between the tags and group the commits by type.\n", wait: true }),
    }).then((r) => r.json());
    assert.equal(planted.result?.root_uri, `viking://user/${uid}/skills/release-notes`, JSON.stringify(planted));
    const c = client0();
    await c.writeContent({ uri: "viking://agent/other-agent/memories/secretcases/x.md", content: "Another agent's case.", mode: "replace", wait: true });
    await c.writeContent({ uri: "viking://agent/main/memories/cases/deploy.md", content: "Deploys go out on Tuesdays.", mode: "replace", wait: true });
    await c.writeContent({ uri: `viking://user/${uid}/resources/openviking-context-engine/other-agent/s/cp.json`, content: "{}", mode: "replace", wait: true });

    const { engine } = await makeEngine({ ...base(), stateDir: stateDir("skills-map"), config: { compactTurnThreshold: 50 } });
    const prompt = "Please write the release notes for version 2.4 from the git log";
    const out = await engine.assemble({ sessionId: "skmap", prompt, messages: [], tokenBudget: 20000, explain: true });
    const pair = out.messages.find((m) => m.role === "toolResult" && m.toolName === "memory_recall_auto");
    const text = pair?.content?.[0]?.text ?? "";
    assert.match(text, /^Skills that may fit this turn/m, text);
    assert.ok(text.includes(`- release-notes — Draft release notes from the git log between two tags (viking://user/${uid}/skills/release-notes)`), text);
    assert.ok(out.split.skills > 0 && out.skills[0].uri === `viking://user/${uid}/skills/release-notes`, JSON.stringify(out.split));
    const read = await engine.runTool("memory_expand", { summaryOrMemoryUri: `viking://user/${uid}/skills/release-notes` }, { sessionId: "skmap" });
    assert.match(read.text, /group the commits by type/);
    await assert.rejects(engine.runTool("memory_expand", { summaryOrMemoryUri: "viking://agent/other-agent/skills/x" }, { sessionId: "skmap" }), /own skill scopes/);

    const map = out.map;
    assert.ok(map && out.systemPromptAddition.includes(map.text), JSON.stringify(out.systemPromptAddition));
    assert.ok(map.text.includes(`- this agent's memories (viking://agent/main/memories): cases/ (1)`), map.text);
    for (const never of ["other-agent", "secretcases", "openviking-context-engine"]) assert.ok(!map.text.includes(never), `${never} in ${map.text}`);
    assert.equal(out.split.map, map.tokens);

    // a commit that extracts memories: the next turn lists the folders again and shows them
    for (const [i, [q, a]] of [["I prefer tabs over spaces in every Go file.", "Noted: tabs in Go."], ["We decided the billing ledger closes on the 5th.", "Noted: ledger closes on the 5th."]].entries()) {
      await engine.writeTurn({ sessionId: "skmap", advancementKey: `skmap-${i}`, messages: toolTurn(i, q, a) });
    }
    const commit = await engine.runCommit({ ovSessionId: "main--skmap", reason: "test", waitMs: 90000 });
    assert.ok(commit.compacted && commit.checkpoint, JSON.stringify(commit));
    const after = await engine.assemble({ sessionId: "skmap", prompt: "What do you know about billing?", messages: [], tokenBudget: 20000 });
    assert.ok(after.map.builtAtMs > map.builtAtMs, "rebuilt after the commit, not the 10-minute cache");
    const mem = `viking://user/${uid}/memories/`;
    for (const u of commit.checkpoint.extractedMemoryUris.filter((u) => u.startsWith(mem))) {
      const folder = u.slice(mem.length).split("/")[0];
      if (!u.slice(mem.length).includes("/")) continue;
      const n = new RegExp(`${folder}/ \\((\\d+)\\+?\\)`).exec(after.map.text)?.[1];
      assert.ok(Number(n) >= 1, `${folder} with its files (at any depth) in ${after.map.text}`);
    }
    console.log(`# skills ${out.split.skills} tokens (${out.skills.length} listed), map ${map.tokens} tokens; after the commit: ${after.map.tokens} tokens: ${after.map.text.split("\n").slice(1).join(" | ")}`);
  });

  test("time and change against OpenViking: the version written last wins when the present is asked, and a calendar span in the question windows the find", async () => {
    const uid = harness.env.userId;
    const mem = `viking://user/${uid}/memories`;
    const c = client0();
    const older = `${mem}/entities/priya-job-1.md`;
    const newer = `${mem}/entities/priya-job-2.md`;
    // the newer version is the shorter match for the question; OpenViking keeps write times to the second
    await c.writeContent({ uri: older, content: "Priya works as a nurse at St Mary's hospital in Leeds.", mode: "replace", wait: true });
    await new Promise((r) => setTimeout(r, 1100));
    await c.writeContent({ uri: newer, content: "Priya now works as a nurse at York Hospital.", mode: "replace", wait: true });
    for (const [name, content] of [["sam-bread", "On 2 February 2024 Sam baked sourdough bread for the first time."], ["sam-tart", "On 20 March 2024 Sam baked a lemon tart for the street party."]]) {
      await c.writeContent({ uri: `${mem}/events/${name}.md`, content, mode: "replace", wait: true });
    }
    const listed = [];
    const watch = (url, init) => {
      if (String(url).includes("/api/v1/fs/ls")) listed.push(new URL(url).searchParams.get("uri"));
      return fetch(url, init);
    };
    const now = Date.now();
    const { engine } = await makeEngine({ ...base(), stateDir: stateDir("time-change"), fetch: watch, now: () => now });
    const ask = (sessionId, prompt) => engine.assemble({ sessionId, prompt, messages: [{ role: "user", content: prompt, timestamp: now }], tokenBudget: 20000 });
    const injected = (out) => (out.recall?.memories ?? []).map((m) => m.uri);

    const job = await ask("time-a", "Where does Priya work as a nurse now?");
    assert.ok(listed.includes(`${mem}/entities`), `the entities folder was listed for write times: ${JSON.stringify(listed)}`);
    assert.ok(injected(job).includes(newer), JSON.stringify(injected(job)));
    assert.ok(!injected(job).includes(older), "the older version is not injected when the present is asked");
    // asked about the past, both versions stay, the newer first
    const past = await ask("time-b", "Where did Priya work as a nurse before?");
    const order = injected(past).filter((u) => u === older || u === newer);
    assert.deepEqual(order, [newer, older], JSON.stringify(injected(past)));

    const bake = await ask("time-c", "What did Sam bake in the second half of March 2024?");
    assert.equal(bake.recallStatus.intent.window, "second half of March 2024");
    assert.equal(bake.recallStatus.intent.since, "2024-03-16T00:00:00.000Z");
    const baked = injected(bake).filter((u) => u.includes("/events/sam-"));
    assert.equal(baked[0], `${mem}/events/sam-tart.md`, "the memory dated inside the span comes first");
  });

  test("one find over both scopes and the skills: a turn sends one search request, recalls the user's and this agent's memories, never another agent's", async () => {
    const uid = harness.env.userId;
    const c = client0();
    await c.writeContent({ uri: `viking://user/${uid}/memories/entities/kestrel-service.md`, content: "The kestrel service is owned by the payments team and runs on port 7443.", mode: "replace", wait: true });
    await c.writeContent({ uri: "viking://agent/main/memories/cases/kestrel-restart.md", content: "Restarting the kestrel service: drain the queue first, then restart, then check port 7443.", mode: "replace", wait: true });
    await c.writeContent({ uri: "viking://agent/other-agent/memories/cases/kestrel-secret.md", content: "Other agent: the kestrel service admin password rotation case.", mode: "replace", wait: true });
    const finds = [];
    const watch = (url, init) => {
      if (String(url).endsWith("/api/v1/search/find")) finds.push(JSON.parse(init.body).target_uri);
      return fetch(url, init);
    };
    const { engine } = await makeEngine({ ...base(), stateDir: stateDir("one-find"), fetch: watch });
    const prompt = "How is the kestrel service restarted and who owns it?";
    const out = await engine.assemble({ sessionId: "one-find", prompt, messages: [{ role: "user", content: prompt, timestamp: Date.now() }], tokenBudget: 20000 });
    const injected = (out.recall?.memories ?? []).map((m) => m.uri);
    assert.equal(out.recallStatus.state, "searched", JSON.stringify(out.recallStatus));
    assert.equal(out.recallStatus.intent?.narrowedTo ?? null, null, "a question naming no folder searches the whole user scope");
    assert.deepEqual(
      finds,
      [[`viking://user/${uid}/memories`, "viking://agent/main/memories", `viking://user/${uid}/skills`, "viking://agent/skills"]],
      "one find, one query embedding: the user's memories, this agent's own folder, and the skill roots",
    );
    assert.ok(injected.includes(`viking://user/${uid}/memories/entities/kestrel-service.md`), JSON.stringify(injected));
    assert.ok(injected.includes("viking://agent/main/memories/cases/kestrel-restart.md"), JSON.stringify(injected));
    assert.ok(injected.every((u) => !u.includes("other-agent")), JSON.stringify(injected));
  });

  test("lexical candidates against OpenViking: a memory the find left out is found by the grep for the question's words, in the user's space only", async () => {
    const uid = harness.env.userId;
    const mem = `viking://user/${uid}/memories`;
    const c = client0();
    const target = `${mem}/events/guzheng-lessons.md`;
    await c.writeContent({ uri: target, content: "每周四晚上跟林老师学古筝，已经学了两年。", mode: "replace", wait: true });
    await c.writeContent({ uri: `${mem}/preferences/tea.md`, content: "喜欢喝乌龙茶，不加糖。", mode: "replace", wait: true });
    await c.writeContent({ uri: "viking://agent/other-agent/memories/cases/guzheng.md", content: "另一个代理：古筝老师的电话号码。", mode: "replace", wait: true });
    // the vector search "misses" the lessons: the find's answer has them taken out, so only
    // the grep, sent beside it unchanged, can bring them back
    const greps = [];
    const missing = (url, init) => {
      const path = String(url);
      if (path.endsWith("/api/v1/search/grep")) greps.push(JSON.parse(init.body));
      if (!path.endsWith("/api/v1/search/find")) return fetch(url, init);
      return fetch(url, init).then(async (res) => {
        const body = await res.json();
        for (const list of ["memories", "resources"]) if (Array.isArray(body.result?.[list])) body.result[list] = body.result[list].filter((m) => m.uri !== target);
        return new Response(JSON.stringify(body), { status: res.status, headers: { "content-type": "application/json" } });
      });
    };
    const prompt = "我的古筝课是跟哪位老师学的？";
    const ask = async (name, config) => {
      const { engine } = await makeEngine({ ...base(), stateDir: stateDir(name), fetch: missing, config });
      return engine.assemble({ sessionId: name, prompt, messages: [{ role: "user", content: prompt, timestamp: Date.now() }], tokenBudget: 20000 });
    };
    const injected = (out) => (out.recall?.memories ?? []).map((m) => m.uri);

    const on = await ask("lexical-on", {});
    assert.equal(greps.length, 1, JSON.stringify(greps));
    assert.equal(greps[0].uri, mem, "the user's memories only");
    assert.ok(greps[0].pattern.split("|").includes("古筝"), greps[0].pattern);
    assert.ok(injected(on).includes(target), `the grep's hit reaches the model: ${JSON.stringify(injected(on))}`);
    assert.ok(injected(on).every((u) => !u.includes("other-agent")), JSON.stringify(injected(on)));
    const text = (on.recall?.memories ?? []).find((m) => m.uri === target)?.content ?? "";
    assert.match(text, /林老师/, "the matched text is the memory's");

    const off = await ask("lexical-off", { recallLexical: false });
    assert.equal(greps.length, 1, "no grep with recallLexical off");
    assert.ok(!injected(off).includes(target), JSON.stringify(injected(off)));
  });

  test("a large tool output stood in on one machine is read on another: live, then from OpenViking's tool-results after the commit", async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `${String(i + 1).padStart(5, "0")} INFO worker ${i % 7} served /api/orders/${i * 3}`);
    lines[1500] = "01501 ERROR the vault combination is 31-7-44";
    const log = lines.join("\n"); // ~130k characters: above OpenViking's 20k externalization threshold
    const turn = toolTurn(0, "Read the application log.", "It mostly shows served requests.");
    turn[2].content = [{ type: "text", text: log }];
    const config = { compactTurnThreshold: 50, largeToolResultTokens: 1000 };
    const a = await makeEngine({ ...base(), stateDir: stateDir("out-a"), config });
    assert.equal((await a.engine.writeTurn({ sessionId: "out", advancementKey: "out-0", messages: turn })).status, "committed");
    const next = [...turn, { role: "user", content: "What did the error line say?", timestamp: 1764000000100 }];
    const assembled = await a.engine.assemble({ sessionId: "out", prompt: "What did the error line say?", messages: next, tokenBudget: 20000 });
    const reference = assembled.standIns[0]?.reference;
    assert.match(reference ?? "", /^out-[0-9a-f]{16}$/, "the output was stood in");
    const read = async (dir) => {
      const { engine } = await makeEngine({ ...base(), stateDir: stateDir(dir), config });
      const r = await engine.runTool("memory_read_output", { reference, query: "vault combination" }, { sessionId: "out" });
      return r.matches.find((m) => m.line === 1501)?.text;
    };
    assert.equal(await read("out-b"), lines[1500], "another state dir finds it among the live messages");
    const out = await a.engine.runCommit({ ovSessionId: "main--out", reason: "test", waitMs: 90000 });
    assert.ok(out.compacted, JSON.stringify(out));
    const archived = JSON.stringify((await a.client.getArchive("main--out", "archive_001")).messages);
    assert.ok(archived.includes("tool_output_ref") && !archived.includes("01501 ERROR"), `the archive keeps a preview and a reference: ${archived.slice(0, 600)}`);
    assert.equal(await read("out-c"), lines[1500], "a third state dir reads it from the tool-results store, checked against its sha256");
  });

  test("history search by meaning: a commit embeds its archived turns, and a question that shares no word with a turn finds it; another agent does not", async () => {
    const { engine } = await makeEngine({ ...base(), stateDir: stateDir("meaning"), config: { compactTurnThreshold: 50 } });
    const said = [
      ["We moved everything to Postgres last week.", "Noted, Postgres it is."],
      ["Lunch is at noon on Fridays.", "Noon on Fridays."],
      ["My sister lives in Lisbon now.", "Lisbon, lovely."],
    ];
    for (const [i, [user, answer]] of said.entries()) {
      const messages = [{ role: "user", content: user, timestamp: 1764000000000 + i * 60000 }, { role: "assistant", content: [{ type: "text", text: answer }], stopReason: "stop", timestamp: 1764000000000 + i * 60000 + 1000 }];
      assert.equal((await engine.writeTurn({ sessionId: "meaning", advancementKey: `m-${i}`, messages })).status, "committed");
    }
    // this session only: earlier tests here wrote other sessions of this agent
    const ask = async (e, scope = "session") => (await e.runTool("memory_search_history", { query: "which database engine", scope }, { sessionId: "meaning" })).hits.map((h) => h.turnId);
    assert.deepEqual(await ask(engine), [], "before the commit no word of the question is in any turn");
    const out = await engine.runCommit({ ovSessionId: "main--meaning", reason: "test", waitMs: 90000 });
    assert.ok(out.compacted && out.checkpoint, JSON.stringify(out));
    // the stand-in embeds "database" and "Postgres" alike (its synonym table), as a model would
    let found = [];
    for (let i = 0; i < 60 && !found.includes("m-0"); i++) {
      found = await ask(engine);
      if (!found.includes("m-0")) await new Promise((r) => setTimeout(r, 500));
    }
    assert.equal(found[0], "m-0", `the turn about Postgres is found first: ${found}`);
    const dir = `viking://user/${harness.env.userId}/resources/openviking-context-engine/main/turns/main--meaning`;
    const listed = await (await fetch(`${harness.env.baseUrl}/api/v1/fs/ls?uri=${encodeURIComponent(dir)}`, { headers: { "X-API-Key": harness.env.userKey } })).json();
    assert.equal(listed.result.filter((f) => /\/t-[0-9a-f]{16}\.md$/.test(f.uri)).length, 3, JSON.stringify(listed).slice(0, 400));
    const other = await makeEngine({ ...base(), agentId: "other", stateDir: stateDir("meaning-other") });
    for (const scope of ["session", "all"]) {
      const theirs = await ask(other.engine, scope);
      assert.ok(!theirs.some((id) => id.startsWith("m-")), `another agent of the same user never gets these turns: ${theirs}`);
    }
  });

  test("two machines writing one session at once: status and history search answer the same on both, before and after one of them commits", async () => {
    const config = { compactTurnThreshold: 1000, compactTokensAddedThreshold: 10000000 };
    const [a, b] = await Promise.all([makeEngine({ ...base(), stateDir: stateDir("two-a"), config }), makeEngine({ ...base(), stateDir: stateDir("two-b"), config })]);
    const say = (e, who, i) => e.engine.writeTurn({ sessionId: "twomach", advancementKey: `${who}-${i}`, messages: [
      { role: "user", content: `${who === "a" ? "Ada" : "Bo"} note ${i}: ${who === "a" ? `the kiln runs at ${900 + i} degrees` : `the glaze is cobalt number ${i}`}`, timestamp: 1764000000000 + i },
      { role: "assistant", content: [{ type: "text", text: `Noted ${who}${i}.` }], stopReason: "stop", timestamp: 1764000000001 + i }] });
    // 2 × 20 turns at once, each machine its own state dir
    await Promise.all([a, b].map(async (m, k) => {
      for (let i = 0; i < 20; i++) assert.equal((await say(m, k ? "b" : "a", i)).status, "committed");
    }));
    const view = async (m) => {
      const st = await m.engine.status("main--twomach");
      const found = (q) => m.engine.runTool("memory_search_history", { query: q, scope: "session", limit: 50 }, { sessionId: "twomach" });
      const ids = [...(await found("kiln degrees")).hits, ...(await found("glaze cobalt")).hits].map((h) => h.turnId);
      return { stored: st.turnsStored, window: st.triggers.find((t) => t.kind === "turns").current, checkpoints: st.checkpoints, reason: st.lastCommitReason, found: new Set(ids).size };
    };
    const [va, vb] = [await view(a), await view(b)];
    assert.deepEqual(va, { stored: 40, window: 40, checkpoints: 0, reason: null, found: 40 }, "machine A knows all 40");
    assert.deepEqual(vb, va, "machine B answers the same");
    const out = await b.engine.runCommit({ ovSessionId: "main--twomach", reason: "test", waitMs: 90000 });
    assert.ok(out.compacted && out.checkpoint, JSON.stringify(out));
    assert.equal((await say(a, "a", 20)).status, "committed");
    const [after1, after2] = [await view(a), await view(b)];
    assert.deepEqual(after1, { stored: 41, window: 1, checkpoints: 1, reason: "test", found: 41 }, "A learned B's commit and checkpoint");
    assert.deepEqual(after2, after1);
  });

  test("an archive summary that says nothing (the empty template) is not used, and status says so", async () => {
    const { engine } = await makeEngine({ ...base(), stateDir: stateDir("empty-wm"), config: { compactTurnThreshold: 50 } });
    // the stand-in model answers this session's summary with the template and nothing in it
    const turns = [0, 1, 2].map((i) => toolTurn(i, `STANDIN-EMPTY-SUMMARY: we decided service ${i} keeps a pool of ${10 + i}.`, "Noted."));
    for (const [i, t] of turns.entries()) await engine.writeTurn({ sessionId: "emptywm", advancementKey: `w-${i}`, messages: t });
    const out = await engine.runCommit({ ovSessionId: "main--emptywm", reason: "test", waitMs: 90000 });
    assert.ok(out.compacted && out.checkpoint, JSON.stringify(out));
    assert.match(out.checkpoint.summary ?? "", /## Current State/, "OpenViking stored the template as the summary");
    assert.match(out.checkpoint.summaryProblem ?? "", /template with nothing filled in/);
    const st = await engine.status("main--emptywm");
    assert.equal(st.distrustedSummaries, 1);
    // the next turn: no summary stands for the archived turns, which the host still holds raw
    const a = await engine.assemble({ sessionId: "emptywm", prompt: "Which pool?", messages: turns.flat(), tokenBudget: 20000 });
    assert.deepEqual(a.compactSummaries, []);
    assert.ok(a.messages.some((m) => m.role === "user" && String(m.content).includes("service 0 keeps a pool of 10")), "the first turn is there raw");
  });

  test("a retried advancement key writes nothing twice", async () => {
    const { engine, client } = await makeEngine({ ...base(), stateDir: stateDir("dup") });
    const turn = toolTurn(0, "Remember that staging uses PgBouncer", "Noted: staging uses PgBouncer.");
    assert.equal((await engine.writeTurn({ sessionId: "dup", advancementKey: "adv-1", messages: turn })).status, "committed");
    assert.equal((await engine.writeTurn({ sessionId: "dup", advancementKey: "adv-1", messages: turn })).status, "duplicate");
    const restarted = await makeEngine({ ...base(), stateDir: stateDir("dup") });
    assert.equal((await restarted.engine.writeTurn({ sessionId: "dup", advancementKey: "adv-1", messages: turn })).status, "duplicate");
    assert.equal((await client.getSession("main--dup")).message_count, 2);
  });

  test("the turn trigger fires at its threshold; compaction archives with summary, memories and a checkpoint", async () => {
    const { engine, client } = await makeEngine({ ...base(), stateDir: stateDir("compact"), config: { compactTurnThreshold: 3 } });
    const lines = [
      ["We decided to keep the staging pool at 10 connections.", "Decision noted: staging pool stays at 10."],
      ["I prefer running migrations one file per transaction.", "Understood, one transaction per migration file."],
      ["Tip: slow queries on orders are fixed by an index on (user_id, created_at).", "Good tip, I'll remember the index."],
    ];
    const dues = [];
    let last;
    for (const [i, [q, a]] of lines.entries()) {
      last = await engine.writeTurn({ sessionId: "compact", advancementKey: `c-${i}`, messages: toolTurn(i, q, a) });
      dues.push(last.commitDue);
    }
    assert.deepEqual(dues, [false, false, true]);
    assert.equal(last.trigger.kind, "turns");
    const started = Date.now();
    const out = await engine.runCommit({ ovSessionId: "main--compact", reason: "turns", waitMs: 90000 });
    const took = Date.now() - started;
    assert.equal(out.compacted, true);
    const cp = out.checkpoint;
    assert.ok(cp, `task followed to completion (${took} ms)`);
    assert.deepEqual(cp.sourceTurnRange, { startSequence: 0, endSequence: 2 });
    assert.equal(cp.archiveIndex, 1);
    assert.ok(cp.summary && cp.summary.includes("Working Memory"), "the archive summary is recorded");
    assert.ok(cp.extractedMemoryUris.length >= 1, "memories were extracted");
    const stored = await client.readJson(`viking://user/${harness.env.userId}/resources/openviking-context-engine/main/main--compact/checkpoint-001.json`);
    assert.equal(stored.checkpointId, cp.checkpointId);
    assert.equal((await client.getSession("main--compact")).message_count, 0, "live messages archived");
    const again = await engine.runCommit({ ovSessionId: "main--compact", forced: true, waitMs: 1000 });
    assert.equal(again.compacted, false, "nothing new: never a false compacted:true");
    console.log(`# commit task followed to its checkpoint in ${took} ms; sample checkpoint: ${JSON.stringify(cp)}`);
  });

  test("one process per turn behaves like one long-lived engine", async () => {
    const gateway = await makeEngine({ ...base(), stateDir: stateDir("gw"), config: { compactTurnThreshold: 3 } });
    const texts = ["We decided the API uses cursor pagination.", "ok", "I prefer snake_case JSON fields.", "thanks", "Let's go with Redis for sessions."];
    const gw = [];
    const cli = [];
    for (const [i, text] of texts.entries()) {
      const a = await gateway.engine.writeTurn({
        sessionId: "gw",
        advancementKey: `g-${i}`,
        messages: [{ role: "user", content: text }, { role: "assistant", content: [{ type: "text", text: `Noted: ${text}` }] }],
      });
      gw.push([a.counted, a.commitDue]);
      const args = { ...base(), stateDir: stateDir("cli"), config: { compactTurnThreshold: 3 }, sessionId: "cli", advancementKey: `g-${i}`, text };
      const b = JSON.parse(execFileSync(process.execPath, [join(here, "one-turn.mjs"), JSON.stringify(args)]).toString());
      cli.push([b.counted, b.commitDue]);
    }
    assert.deepEqual(cli, gw);
    assert.ok(gw.some(([, due]) => due));
    const { client } = gateway;
    assert.equal((await client.getSession("main--cli")).message_count, (await client.getSession("main--gw")).message_count);
  });
});
