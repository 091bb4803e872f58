// The lifecycle engine through the wasm boundary: the plugin's host callbacks with the real
// file-backed state store and outbox in a temp dir, and an in-memory OpenViking behind the
// `request` callback (the engine's own protocol code sends real requests to it; the real
// server is exercised in test/openviking/ and tests/integration/). Proves the bridge:
// promises, typed host errors, durability across engine instances (processes).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadEngine } from "../../tests/support/packages.mjs"; // the test build: setUserId, record
import { createStateStore } from "../state-store.js";
import { createEngineHost } from "../engine-host.js";
import { httpFromOps } from "./support/ops-over-http.mjs";

const { ContextEngine } = await loadEngine();

function fakeClient() {
  const sessions = new Map();
  const c = {
    down: false,
    failWith: null,
    calls: 0,
    guard(op) {
      c.calls++;
      if (c.down) throw Object.assign(new Error(`${op}: connect ECONNREFUSED 127.0.0.1:1`), { code: "OV_UNREACHABLE" });
      if (c.failWith) {
        const e = c.failWith;
        c.failWith = null;
        throw e;
      }
    },
    async getSession(id) {
      c.guard("getSession");
      if (!sessions.has(id)) throw Object.assign(new Error("no session"), { code: "NOT_FOUND" });
      return { message_count: sessions.get(id).live.length };
    },
    async createSession({ sessionId, memoryPolicy }) {
      c.guard("createSession");
      if (sessions.has(sessionId)) throw Object.assign(new Error("exists"), { code: "ALREADY_EXISTS", status: 409 });
      sessions.set(sessionId, { live: [], archives: [], memoryPolicy });
    },
    async addMessages(id, messages) {
      c.guard("addMessages");
      sessions.get(id).live.push(...messages);
      return { message_count: sessions.get(id).live.length };
    },
    async sessionContext(id) {
      c.guard("sessionContext");
      return { messages: sessions.get(id)?.live ?? [] };
    },
    async commit(id) {
      c.guard("commit");
      const s = sessions.get(id);
      if (!s.live.length) return { status: "skipped", task_id: null, reason: "no_messages" };
      s.archives.push(s.live.splice(0));
      return { status: "accepted", task_id: `t${s.archives.length}`, archive_uri: `viking://user/u/sessions/${id}/history/archive_00${s.archives.length}` };
    },
    async getTask() {
      c.guard("getTask");
      return { status: "completed", result: { memory_diff_uri: "viking://diff" } };
    },
    async getArchive() {
      return { overview: "# Working Memory\n## Current State\nok" };
    },
    async readJson() {
      return { operations: { adds: [{ uri: "viking://user/u/memories/events/e.md" }] } };
    },
    async writeContent() {},
    sessions,
  };
  return c;
}

/** The fake client's calls as the operations the engine's requests are routed to. */
function opsOf(c) {
  return {
    sessionMeta: (id) => c.getSession(id).catch((e) => (e.code === "NOT_FOUND" ? null : Promise.reject(e))),
    createSession: (sessionId, memoryPolicy) => c.createSession({ sessionId, memoryPolicy }),
    addMessages: (id, messages) => c.addMessages(id, messages),
    liveMessages: async (id) => (await c.sessionContext(id)).messages,
    commit: (id, body) => c.commit(id, body),
    task: (t) => c.getTask(t),
    archive: (id, a) => c.getArchive(id, a),
    readJson: (uri) => c.readJson(uri),
    writeJson: (uri, value) => c.writeContent({ uri, content: JSON.stringify(value) }),
    writeText: (uri, content, mode, wait) => c.writeContent({ uri, content, mode, wait }),
    find: async () => ({ memories: [] }),
    readContent: async (uri) => JSON.stringify(await c.readJson(uri)), // 0.5.2 answers a file's text
    stat: async () => null,
    deleteUri: async (uri) => ({ uri, estimated_deleted_count: 0 }),
    userId: async () => "u",
  };
}

function setup() {
  const dir = mkdtempSync(join(tmpdir(), "ove-"));
  const client = fakeClient();
  const warnings = [];
  const make = () => {
    const host = createEngineHost({ store: createStateStore(dir), request: httpFromOps(opsOf(client)), logger: { warn: (m) => warnings.push(m) } });
    const e = new ContextEngine({ agentId: "main", compactTurnThreshold: 2 }, {}, host);
    e.setUserId("u");
    return e;
  };
  return { dir, client, warnings, make, done: () => rmSync(dir, { recursive: true, force: true }) };
}

const turn = (text) => [
  { role: "user", content: text },
  { role: "assistant", content: [{ type: "text", text: `Noted: ${text}` }] },
];

test("turns are written through the JS host and a due commit is followed to its checkpoint", async () => {
  const t = setup();
  const e = t.make();
  const a = await e.writeTurn({ sessionId: "s1", messages: turn("We decided to use Postgres 16"), advancementKey: "k1" });
  assert.equal(a.status, "committed");
  assert.equal(a.ovSessionId, "main--s1");
  const b = await e.writeTurn({ sessionId: "s1", messages: turn("We decided the pool is 10"), advancementKey: "k2" });
  assert.equal(b.commitDue, true);
  assert.equal(b.trigger.kind, "turns");
  const dup = await e.writeTurn({ sessionId: "s1", messages: turn("We decided the pool is 10"), advancementKey: "k2" });
  assert.equal(dup.status, "duplicate");
  const c = await e.runCommit({ ovSessionId: "main--s1", reason: b.trigger.kind, waitMs: 5000 });
  assert.equal(c.compacted, true);
  assert.deepEqual(c.checkpoint.sourceTurnRange, { startSequence: 0, endSequence: 1 });
  assert.deepEqual(c.checkpoint.extractedMemoryUris, ["viking://user/u/memories/events/e.md"]);
  assert.equal(t.client.sessions.get("main--s1").archives[0].length, 4);
  t.done();
});

test("an unreachable server queues turns in the on-disk outbox; a new process replays them", async () => {
  const t = setup();
  const e = t.make();
  t.client.down = true;
  for (let i = 0; i < 3; i++) {
    const out = await e.writeTurn({ sessionId: "s2", messages: turn(`outage turn ${i} with details`), advancementKey: `o${i}` });
    assert.equal(out.status, "committed");
    assert.equal(out.queued, true);
  }
  assert.equal(t.warnings.filter((w) => w.includes("unavailable")).length, 1);
  t.client.down = false;
  const restarted = t.make();
  assert.deepEqual(await restarted.flush("main--s2"), { written: 3, queued: 0, reason: null, inProgress: false, memoryApplied: 0, memoryQueued: 0 });
  const texts = t.client.sessions.get("main--s2").live.filter((m) => m.role === "user").map((m) => m.parts[0].text);
  assert.deepEqual(texts, ["outage turn 0 with details", "outage turn 1 with details", "outage turn 2 with details"]);
  const again = await restarted.writeTurn({ sessionId: "s2", messages: turn("outage turn 2 with details"), advancementKey: "o2" });
  assert.equal(again.status, "duplicate", "idempotency survives the restart");
  t.done();
});

test("state crosses as the engine's JSON text: the host stores and hands back texts, never objects, and parses nothing", async () => {
  const t = setup();
  const host = createEngineHost({ store: createStateStore(t.dir), request: httpFromOps(opsOf(t.client)), logger: { warn: (m) => t.warnings.push(m) } });
  const e = new ContextEngine({ agentId: "main" }, {}, host);
  e.setUserId("u");
  const send = (i) => e.writeTurn({ sessionId: "s9", messages: turn(`turn ${i} about the billing schema`), advancementKey: `t${i}` });
  const seen = [];
  for (const k of ["saveStateText", "saveCacheText", "outboxAppendText", "loadStateText", "outboxReadText"]) {
    const f = host[k];
    host[k] = async (...a) => {
      seen.push(k);
      if (/save|Append/.test(k)) assert.equal(typeof a[1], "string", `${k} is given text`);
      const out = await f(...a);
      if (k === "outboxReadText") assert.ok(out.every((x) => typeof x === "string"));
      return out;
    };
  }
  assert.deepEqual(Object.keys(host).filter((k) => /^(loadState|saveState|saveCache|outboxAppend|outboxRead)$/.test(k)), [], "no object forms");
  t.client.down = true; // queued: the outbox is written and read as text
  for (const i of [0, 1, 2]) assert.equal((await send(i)).queued, true);
  assert.equal(await send(1).then((o) => o.status), "duplicate", "its keys read back from text");
  for (const k of ["saveStateText", "outboxAppendText", "loadStateText", "outboxReadText"]) assert.ok(seen.includes(k), `${k} used: ${seen}`);
  t.client.down = false;
  // a second process on the same state dir replays everything once
  const next = new ContextEngine({ agentId: "main" }, {}, createEngineHost({ store: createStateStore(t.dir), request: httpFromOps(opsOf(t.client)), logger: { warn: () => {} } }));
  next.setUserId("u");
  assert.deepEqual(await next.flush("main--s9"), { written: 3, queued: 0, reason: null, inProgress: false, memoryApplied: 0, memoryQueued: 0 });
  const texts = t.client.sessions.get("main--s9").live.filter((m) => m.role === "user").map((m) => m.parts[0].text);
  assert.deepEqual(texts, [0, 1, 2].map((i) => `turn ${i} about the billing schema`));
  t.done();
});

test("a callback that throws a plain error keeps the turn (outbox) rather than losing it", async () => {
  const t = setup();
  const e = t.make();
  await e.writeTurn({ sessionId: "s3", messages: turn("first turn goes through fine") });
  t.client.failWith = new TypeError("something odd happened inside the client");
  const out = await e.writeTurn({ sessionId: "s3", messages: turn("second turn hits the odd error") });
  assert.equal(out.queued, true);
  t.done();
});

test("bad input is an engine error naming the field", async () => {
  const t = setup();
  const e = t.make();
  await assert.rejects(e.writeTurn({ messages: [] }), (err) => err.code === "INVALID_INPUT" && err.field === "sessionId");
  await assert.rejects(e.writeTurn({ sessionId: "s", messages: [5] }), (err) => err.field === "messages[0]");
  await assert.rejects(e.runCommit({}), (err) => err.field === "ovSessionId");
  t.done();
});

test("an engine never touches another agent's sessions", async () => {
  const t = setup();
  const e = t.make();
  for (const call of [
    () => e.runCommit({ ovSessionId: "other--s1", forced: true }),
    () => e.flush("other--s1"),
    () => e.followTask("other--s1", 0),
    () => e.record("mainx--s1"),
  ]) {
    await assert.rejects(call(), (err) => err.code === "INVALID_INPUT" && err.field === "ovSessionId");
  }
  t.done();
});

test("two replays of one session at once (bootstrap and a turn) send each queued turn once", async () => {
  const t = setup();
  const e = t.make();
  t.client.down = true;
  for (let i = 0; i < 2; i++) await e.writeTurn({ sessionId: "s5", messages: turn(`queued turn ${i} with details`), advancementKey: `q${i}` });
  t.client.down = false;
  const add = t.client.addMessages;
  t.client.addMessages = async (...a) => {
    await new Promise((r) => setTimeout(r, 40)); // a slow server: the replays overlap
    return add(...a);
  };
  const restarted = t.make();
  const [a, b] = await Promise.all([restarted.flush("main--s5"), restarted.flush("main--s5")]);
  assert.equal(a.written + b.written, 2, "two entries written in all");
  const texts = t.client.sessions.get("main--s5").live.filter((m) => m.role === "user").map((m) => m.parts[0].text);
  assert.deepEqual(texts, ["queued turn 0 with details", "queued turn 1 with details"]);
  t.done();
});

test("the plugin's host offers a monotonic clock beside the wall clock; one given a clock of its own is measured on it", () => {
  const store = {};
  const real = createEngineHost({ store });
  assert.equal(typeof real.monotonicMs, "function");
  const a = real.monotonicMs();
  assert.ok(Number.isFinite(a) && a >= 0 && real.monotonicMs() >= a);
  const virtual = createEngineHost({ store, now: () => 1_764_000_000_000 });
  assert.equal(virtual.nowMs(), 1_764_000_000_000);
  assert.equal(virtual.monotonicMs, undefined, "a test's virtual time alone");
  assert.equal(createEngineHost({ store, now: () => 1, monotonic: () => 7 }).monotonicMs(), 7);
});
