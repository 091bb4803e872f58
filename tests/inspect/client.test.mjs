// client.test.mjs — every client method against a REAL OpenViking 0.5.2 server started by
// tests/openviking/harness.py (loopback model stand-in): sessions, messages with tool parts,
// commit + waitTask, memory_diff via readJson, find, context, archives, content files, ls,
// deletes, accounts, and server error codes (NOT_FOUND, ALREADY_EXISTS, PERMISSION_DENIED,
// UNAUTHENTICATED) with the API key absent from every error.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { inspect } from "node:util";
import { createClient, OpenVikingError } from "./client.js";
import { skipReason, startHarness, uid } from "../../js-glue/test/openviking/helpers.mjs";

describe("OpenViking client against a real server", { skip: skipReason, timeout: 240000 }, () => {
  let harness, env, client, scopes;
  const keys = () => [env.userKey, env.rootKey];
  const noKey = (err) => {
    for (const text of [err.message, err.stack, inspect(err, { depth: 5 }), JSON.stringify(err)]) {
      for (const k of keys()) assert.ok(!text.includes(k), `key leaked in: ${text}`);
    }
  };
  const failure = async (p) => {
    try {
      await p;
    } catch (err) {
      assert.ok(err instanceof OpenVikingError, String(err));
      noKey(err);
      return err;
    }
    assert.fail("expected a rejection");
  };

  before(async () => {
    harness = await startHarness();
    env = harness.env;
    client = createClient({ baseUrl: env.baseUrl, apiKey: env.userKey, agentId: "agent-a", timeoutMs: 30000 });
    scopes = { user: `viking://user/${env.userId}/memories`, agent: "viking://agent/agent-a/memories" }; // the agent scope the engine searches: its own folder
  });
  after(async () => {
    await harness?.stop();
  });

  test("health and systemStatus", async () => {
    const h = await client.health();
    assert.equal(h.healthy, true);
    assert.equal(h.version, "0.5.2");
    const s = await client.systemStatus();
    assert.equal(s.user, env.userId);
  });

  test("session: create, duplicate, messages with tool parts, commit, waitTask, memory_diff, find, context, archive", async () => {
    const sid = uid("agent-a--conv");
    const created = await client.createSession({ sessionId: sid, memoryPolicy: { working_memory: { enabled: true } } });
    assert.equal(created.session_id, sid);
    assert.equal(created.uri, `viking://user/${env.userId}/sessions/${sid}`);

    const dup = await failure(client.createSession({ sessionId: sid }));
    assert.equal(dup.code, "ALREADY_EXISTS");
    assert.equal(dup.status, 409);
    assert.equal(dup.retryable, false);
    assert.equal(dup.endpoint, "POST /api/v1/sessions");

    const bad = await failure(client.createSession({ sessionId: uid("x"), memoryPolicy: { bogus: true } }));
    assert.equal(bad.code, "INVALID_ARGUMENT");

    assert.equal((await client.getSession(sid)).message_count, 0);
    const batch = await client.addMessages(sid, [
      { role: "user", content: "Hi! I prefer dark mode and tabs over spaces in every editor I use." },
      { role: "assistant", content: "Got it, dark mode and tabs." },
      { role: "user", content: "For the billing service we decided to use PostgreSQL instead of MongoDB." },
    ]);
    assert.equal(batch.added, 3);
    await client.addMessage(sid, { role: "assistant", parts: [
      { type: "text", text: "Let me look at the query plan." },
      { type: "tool", tool_id: "call-1", tool_name: "run_sql", tool_input: { sql: "EXPLAIN SELECT * FROM invoices" },
        tool_output: "Seq Scan on invoices", tool_status: "completed", duration_ms: 12 },
    ] });
    const one = await client.addMessage(sid, { role: "user", content: "Tip: slow invoice queries are fixed by an index on customer_id." });
    assert.equal(one.message_count, 5);
    assert.equal((await client.getSession(sid, { autoCreate: false })).message_count, 5);

    const commit = await client.commit(sid, {});
    assert.equal(commit.status, "accepted");
    assert.ok(commit.task_id);
    const t0 = Date.now();
    const task = await client.waitTask(commit.task_id, { timeoutMs: 90000, intervalMs: 500 });
    console.log(`# commit task completed in ${Date.now() - t0} ms`);
    assert.equal(task.status, "completed", JSON.stringify(task));
    assert.ok(task.result.memories_extracted.memory_write >= 1, JSON.stringify(task.result));

    const diff = await client.readJson(task.result.memory_diff_uri);
    const adds = diff.operations.adds;
    assert.ok(adds.length >= 1);
    const pref = adds.find((a) => a.memory_type === "preferences");
    assert.ok(pref, JSON.stringify(adds));
    assert.ok(pref.uri.startsWith(`${scopes.user}/`), pref.uri);

    // the server indexes new memories asynchronously after the task: poll (bounded) until it is findable
    let found;
    for (let i = 0; i < 40; i++) {
      found = await client.find({ query: "which colour theme does the user like in code editors?", targetUri: scopes.user, limit: 10 });
      if (found.memories.some((m) => m.uri === pref.uri)) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    assert.ok(found.memories.length >= 1, JSON.stringify(found));
    assert.ok(found.memories.some((m) => m.uri === pref.uri), JSON.stringify(found.memories.map((m) => m.uri)));
    const leaf = await client.readContent(pref.uri);
    assert.match(leaf, /dark mode/i);
    const agentFind = await client.find({ query: "dark mode", targetUri: scopes.agent, limit: 5, scoreThreshold: 0 });
    assert.deepEqual(agentFind.memories, []); // no agent evolution: an empty scope, not an error

    const ctx = await client.sessionContext(sid, { tokenBudget: 8000 });
    assert.match(ctx.latest_archive_overview, /^# Working Memory/);
    const archiveId = task.result.archive_uri.replace(/\/+$/, "").split("/").pop();
    const archive = await client.getArchive(sid, archiveId);
    const parts = archive.messages.flatMap((m) => m.parts ?? []);
    assert.ok(parts.some((p) => p.type === "tool" && p.tool_name === "run_sql"), JSON.stringify(archive.messages));

    const skipped = await client.commit(sid);
    assert.equal(skipped.status, "skipped");

    await client.deleteSession(sid);
    const gone = await failure(client.getSession(sid, { autoCreate: false }));
    assert.equal(gone.code, "NOT_FOUND");
  });

  test("addMessages chunks a long batch against the real server", async () => {
    const sid = uid("agent-a--batch");
    await client.createSession({ sessionId: sid, memoryPolicy: { self: { enabled: false }, peer: { enabled: false } } });
    const msgs = Array.from({ length: 205 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}` }));
    const res = await client.addMessages(sid, msgs);
    assert.equal(res.added, 205);
    assert.equal((await client.getSession(sid)).message_count, 205);
    await client.deleteSession(sid);
  });

  test("content: write, read (JSON, lines), ls, delete under resources/", async () => {
    const dir = `viking://user/${env.userId}/resources/ov-client-test-${uid("d")}`;
    const uri = `${dir}/checkpoint.json`;
    const record = { kind: "checkpoint", seq: 7, turns: ["t1", "t2"] };
    const w = await client.writeContent({ uri, content: JSON.stringify(record), mode: "create", wait: true });
    assert.equal(w.uri, uri);
    assert.deepEqual(await client.readJson(uri), record);
    const md = `${dir}/notes.md`;
    await client.writeContent({ uri: md, content: "line1\nline2\nline3\n", mode: "create", wait: true });
    await client.writeContent({ uri: md, content: "line4\n", mode: "append", wait: true });
    assert.equal(await client.readContent(md, { offset: 1, limit: 2 }), "line2\nline3\n");
    const entries = await client.ls(dir);
    assert.deepEqual(entries.map((e) => e.name).filter((n) => !n.startsWith(".")).sort(), ["checkpoint.json", "notes.md"]);
    assert.ok(entries.every((e) => e.uri.startsWith(`${dir}/`)));

    const del = await client.deleteUri(uri);
    assert.equal(del.uri, uri);
    assert.equal((await failure(client.readContent(uri))).code, "NOT_FOUND");
    assert.equal((await failure(client.deleteUri(dir))).code, "INVALID_ARGUMENT"); // a directory needs recursive
    await client.deleteUri(dir, { recursive: true });
    const lsGone = await failure(client.ls(dir));
    assert.equal(lsGone.code, "NOT_FOUND");
    assert.equal(lsGone.status, 404);
    assert.equal(lsGone.endpoint, "GET /api/v1/fs/ls");

    const inSessions = await failure(client.writeContent({ uri: `viking://user/${env.userId}/sessions/x.json`, content: "{}", mode: "create" }));
    assert.equal(inSessions.code, "INVALID_ARGUMENT");
  });

  test("NOT_FOUND for a missing session, archive and task", async () => {
    const missing = uid("missing");
    const e1 = await failure(client.getSession(missing, { autoCreate: false }));
    assert.equal(e1.code, "NOT_FOUND");
    assert.equal(e1.status, 404);
    assert.equal(e1.retryable, false);
    assert.equal(e1.endpoint, `GET /api/v1/sessions/${missing}`);
    assert.equal((await failure(client.getArchive(missing, "archive_001"))).code, "NOT_FOUND");
    assert.equal((await failure(client.getTask("no-such-task"))).code, "NOT_FOUND");
  });

  test("accounts: root key creates one, user keys are refused, wrong keys are UNAUTHENTICATED", async () => {
    const root = createClient({ baseUrl: env.baseUrl, apiKey: env.rootKey, agentId: "admin", timeoutMs: 30000 });
    const acct = uid("acct");
    const made = await root.createAccount({ accountId: acct, adminUserId: "bob" });
    assert.ok(made.user_key);
    const bob = createClient({ baseUrl: env.baseUrl, apiKey: made.user_key, agentId: "agent-b", timeoutMs: 30000 });
    assert.equal((await bob.systemStatus()).user, "bob");

    const denied = await failure(client.createAccount({ accountId: uid("acct"), adminUserId: "eve" }));
    assert.equal(denied.code, "PERMISSION_DENIED");
    assert.equal(denied.status, 403);
    const rootOnData = await failure(root.find({ query: "x", targetUri: scopes.user }));
    assert.equal(rootOnData.code, "PERMISSION_DENIED");

    const wrong = createClient({ baseUrl: env.baseUrl, apiKey: env.userKey + "x", agentId: "agent-a", timeoutMs: 30000 });
    const unauth = await failure(wrong.systemStatus());
    assert.equal(unauth.code, "UNAUTHENTICATED");
    assert.equal(unauth.status, 401);
    assert.ok(!unauth.message.includes(env.userKey));
  });

  test("INVALID_URI from the server passes through", async () => {
    const err = await failure(client.find({ query: "x", targetUri: "viking://user/memories" }));
    assert.equal(err.code, "INVALID_URI");
    assert.equal(err.status, 400);
  });
});
