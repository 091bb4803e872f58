// The lifecycle engine under a host whose callbacks misbehave: each failure stays a failure
// of that one call (a turn is kept in the outbox, or the call rejects with a code), every
// engine promise settles, and the next call works. OpenViking operations misbehave behind
// the `request` callback (test/support/ops-over-http.mjs routes the engine's real HTTP
// requests to them), and `request` itself misbehaves too. Also: a turn holding a lone UTF-16
// surrogate is stored (as U+FFFD), not refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loadEngine } from "../../tests/support/packages.mjs"; // the test build: setUserId, record, forgetSearch
import { memoryHost } from "./support/memory-host.mjs";

const { ContextEngine } = await loadEngine();

/** Replays the outbox until it is empty (a replay left running in the background may still
 *  hold it), at most 20 tries half a second apart; the last report. */
async function flushUntilEmpty(e, ovSessionId) {
  let report;
  for (let i = 0; i < 20; i++) {
    report = await e.flush(ovSessionId);
    if (report.queued === 0 && !report.inProgress) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  return report;
}

const turn = (text) => [
  { role: "user", content: text, timestamp: Date.now() },
  { role: "assistant", content: [{ type: "text", text: `ok: ${text.slice(0, 20)}` }] },
];

const hostile = {
  "a synchronous throw": () => {
    throw new Error("boom");
  },
  "a rejection with a string": () => Promise.reject("nope"),
  "a rejection with undefined": () => Promise.reject(undefined),
  "a thenable whose then throws": () => ({
    then() {
      throw new Error("then exploded");
    },
  }),
  "a thenable that resolves and rejects": () => ({
    then(res, rej) {
      rej(new Error("first"));
      res({ message_count: 99 });
    },
  }),
  "a promise whose constructor getter throws": () => {
    const p = Promise.resolve({ message_count: 1 });
    Object.defineProperty(p, "constructor", { get() { throw new Error("ctor"); } });
    return p;
  },
  "a number instead of an answer": () => 42,
  "an answer that never comes": () => new Promise(() => {}),
};

for (const [what, bad] of Object.entries(hostile)) {
  test(`addMessages answering with ${what}: the turn is kept, the engine goes on`, { timeout: 20000 }, async () => {
    const h = memoryHost();
    const e = new ContextEngine({ agentId: "main", timeoutMs: 1000 }, {}, h);
    await e.writeTurn({ sessionId: "s", advancementKey: "k0", messages: turn("first turn before the fault") });
    const good = h.addMessages;
    h.addMessages = bad;
    // committed (in the outbox), or — for a server that never answers — HOST_TIMEOUT at the
    // call's deadline while the write goes on in the background; never a hang
    const out = await e.writeTurn({ sessionId: "s", advancementKey: "k1", messages: turn("second turn during the fault") }).catch((err) => err);
    assert.ok(out.status === "committed" || out.code === "HOST_TIMEOUT", String(out.message ?? out.status));
    h.addMessages = good;
    const report = await flushUntilEmpty(e, "main--s");
    assert.equal(report.queued, 0, JSON.stringify(report));
    const third = await e.writeTurn({ sessionId: "s", advancementKey: "k2", messages: turn("third turn after the fault") });
    assert.equal(third.outboxLen, 0);
    const users = h.sessions.get("main--s").filter((m) => m.role === "user").map((m) => m.parts[0].text);
    // a thenable that "resolved" after rejecting never stored anything; the rest stored once
    assert.deepEqual(users, ["first turn before the fault", "second turn during the fault", "third turn after the fault"]);
  });
}

for (const cb of ["find", "readContent", "userId"]) {
  for (const [what, bad] of Object.entries(hostile)) {
    test(`${cb} answering with ${what}: assemble still answers with the host's turn, and the next assemble recalls`, { timeout: 20000 }, async () => {
      const h = memoryHost();
      const e = new ContextEngine({ agentId: "main", timeoutMs: 1000, recallPreferAbstract: false }, {}, h);
      const good = h[cb];
      h[cb] = bad;
      const messages = [{ role: "user", content: "Which editor theme do I prefer?", timestamp: 1 }];
      const out = await e.assemble({ sessionId: "s", prompt: "Which editor theme do I prefer?", messages, tokenBudget: 20000 }).catch((err) => err);
      if (out instanceof Error) assert.equal(out.code, "HOST_TIMEOUT", out.message); // only a callback that never answers
      else assert.ok(out.messages.some((m) => m.role === "user"), "the host's message is there");
      h[cb] = good;
      e.forgetSearch();
      // a server that did not answer is not asked again for one timeout (src/openviking/pause.rs)
      if (what === "an answer that never comes") await new Promise((r) => setTimeout(r, 1100));
      const next = await e.assemble({ sessionId: "s", prompt: "Which editor theme do I prefer?", messages, tokenBudget: 20000 });
      assert.ok(next.recall.memories.length > 0, "recall works again");
    });
  }
}

const hostileExchange = {
  ...hostile,
  "no status": () => Promise.resolve({ body: "{}" }),
  "a status out of range": () => Promise.resolve({ status: 42, body: "{}" }),
  "a string status": () => Promise.resolve({ status: "200", body: JSON.stringify({ status: "ok", result: {} }) }),
  "a body that is not text": () => Promise.resolve({ status: 200, body: { status: "ok", result: {} } }),
  "null": () => Promise.resolve(null),
  "an HTML error page": () => Promise.resolve({ status: 502, body: "<html>Bad Gateway</html>" }),
  "an envelope with no result": () => Promise.resolve({ status: 200, body: JSON.stringify({ status: "ok" }) }),
};

for (const [what, bad] of Object.entries(hostileExchange)) {
  test(`the request callback answering with ${what}: the turn is kept, assemble answers, the next call works`, { timeout: 20000 }, async () => {
    const h = memoryHost();
    const e = new ContextEngine({ agentId: "main", timeoutMs: 1000 }, {}, h);
    const good = h.request;
    h.request = bad;
    const out = await e.writeTurn({ sessionId: "s", advancementKey: "k1", messages: turn("a turn while the transport is broken") }).catch((err) => err);
    assert.ok(out.status === "committed" || out.code === "HOST_TIMEOUT", String(out.message ?? out.status));
    const messages = [{ role: "user", content: "Which editor theme do I prefer?", timestamp: 1 }];
    const asm = await e.assemble({ sessionId: "s", prompt: "Which editor theme do I prefer?", messages, tokenBudget: 20000 }).catch((err) => err);
    if (asm instanceof Error) assert.equal(asm.code, "HOST_TIMEOUT", asm.message);
    else assert.ok(asm.messages.some((m) => m.role === "user"));
    h.request = good;
    const report = await flushUntilEmpty(e, "main--s");
    assert.equal(report.queued, 0, JSON.stringify(report));
    const users = h.sessions.get("main--s").filter((m) => m.role === "user").map((m) => m.parts[0].text);
    assert.deepEqual(users, ["a turn while the transport is broken"], "stored once, after the transport recovered");
  });
}

test("drain waits for a replay already running, so a stop right after a signal still empties the outbox", { timeout: 20000 }, async () => {
  const h = memoryHost();
  const e = new ContextEngine({ agentId: "main", timeoutMs: 2000 }, {}, h);
  const good = h.addMessages;
  h.addMessages = () => Promise.reject(Object.assign(new Error("down"), { code: "OV_UNREACHABLE" }));
  for (let i = 0; i < 3; i++) await e.writeTurn({ sessionId: "s", advancementKey: `k${i}`, messages: turn(`turn ${i} during the outage`) });
  h.addMessages = async (id, messages) => {
    await new Promise((r) => setTimeout(r, 150)); // a slow server: the first replay is still running
    return good(id, messages);
  };
  const first = e.flush("main--s"); // what a signal handler starts, not awaited
  const second = await e.flush("main--s");
  assert.equal(second.inProgress, true, "a plain flush reports the running replay");
  const drained = await e.drain("main--s");
  assert.equal(drained.inProgress, false);
  assert.equal(drained.queued, 0, JSON.stringify(drained));
  assert.equal(h.sessions.get("main--s").filter((m) => m.role === "user").length, 3, "all three stored, once");
  await first;
});

test("nowMs and warn that throw cannot break a call", async () => {
  const h = memoryHost();
  h.nowMs = () => {
    throw new Error("clock broke");
  };
  h.warn = () => {
    throw new Error("logger broke");
  };
  const e = new ContextEngine({ agentId: "main" }, {}, h);
  h.addMessages = () => Promise.reject(Object.assign(new Error("down"), { code: "OV_UNREACHABLE" }));
  const out = await e.writeTurn({ sessionId: "s", advancementKey: "k0", messages: turn("a turn while the logger is broken") });
  assert.equal(out.queued, true);
  assert.equal((await e.record("main--s")).sessionId, "s");
});

test("a wall clock that jumps a day ahead (or answers 1e300) while a send gets no answer, then comes back, keeps no turn queued", async () => {
  const DAY = 86_400_000;
  for (const [what, jump] of [["a day ahead", (t) => t + DAY], ["1e300", () => 1e300]]) {
    for (const monotonic of [false, true]) {
      const h = memoryHost();
      // virtual time: sleeps move both clocks; a jump moves only the wall clock
      let wall = Date.now();
      let mono = 1_000;
      let jumped = null;
      h.nowMs = () => jumped ?? wall;
      if (monotonic) h.monotonicMs = () => mono;
      h.sleep = async (ms) => {
        wall += ms;
        mono += ms;
      };
      const e = new ContextEngine({ agentId: "main", timeoutMs: 1000 }, {}, h);
      await e.writeTurn({ sessionId: "s", advancementKey: "k0", messages: turn("first turn") });
      const good = h.addMessages;
      h.addMessages = () => Promise.reject(Object.assign(new Error("no answer"), { kind: "timeout" }));
      jumped = jump(wall);
      const out = await e.writeTurn({ sessionId: "s", advancementKey: "k1", messages: turn("second turn, no answer") });
      assert.equal(out.queued, true, `${what}, monotonic ${monotonic}`);
      h.addMessages = good;
      // the clock is back; five seconds pass (the pause and the wait for the send are over)
      jumped = null;
      wall += 5_000;
      mono += 5_000;
      const report = await e.flush("main--s");
      assert.deepEqual([report.written, report.queued, report.reason], [1, 0, null], `${what}, monotonic ${monotonic}: ${JSON.stringify(report)}`);
      const users = h.sessions.get("main--s").filter((m) => m.role === "user").map((m) => m.parts[0].text);
      assert.deepEqual(users, ["first turn", "second turn, no answer"]);
    }
  }
});

test("a storage callback that throws rejects that call with a code; the next call works", async () => {
  const h = memoryHost();
  const e = new ContextEngine({ agentId: "main" }, {}, h);
  const append = h.outboxAppendText;
  h.outboxAppendText = () => {
    throw new Error("EROFS");
  };
  await assert.rejects(e.writeTurn({ sessionId: "s", advancementKey: "k0", messages: turn("not storable now") }), (err) => err.code === "HOST_FAILED");
  h.outboxAppendText = append;
  const out = await e.writeTurn({ sessionId: "s", advancementKey: "k0", messages: turn("not storable now") });
  assert.equal(out.status, "committed", "the failed attempt reserved nothing");
});

test("text callbacks that answer what is not JSON text: the call rejects with a code or the record is skipped, never a trap", async () => {
  const h = memoryHost();
  const texts = new Map();
  Object.assign(h, {
    loadStateText: async (k) => texts.get(k) ?? null,
    saveStateText: async (k, t) => void texts.set(k, t),
  });
  const e = new ContextEngine({ agentId: "main" }, {}, h);
  assert.equal((await e.writeTurn({ sessionId: "s", advancementKey: "k0", messages: turn("kept as text") })).status, "committed");
  assert.ok([...texts.values()].every((t) => typeof t === "string" && (JSON.parse(t), true)), "saved as JSON text");
  for (const [what, bad] of [["text that is not JSON", "{\"next\":"], ["a number", 42], ["an object", { nextSequence: 1 }]]) {
    const fresh = new ContextEngine({ agentId: "main" }, {}, { ...h, loadStateText: async () => bad });
    await assert.rejects(fresh.writeTurn({ sessionId: "s", advancementKey: `k-${what}`, messages: turn(`after ${what}`) }), (err) => err.code === "HOST_FAILED" && /loadStateText/.test(err.message), what);
  }
  // a document saved as `null` (a cleared mark) is no document
  const nulls = new ContextEngine({ agentId: "main" }, {}, { ...h, loadStateText: async () => "null" });
  assert.equal((await nulls.writeTurn({ sessionId: "s2", advancementKey: "k-null", messages: turn("after null documents") })).status, "committed");
  // an outbox read that hands back a non-object's text skips that record, with a warning
  const warned = [];
  const odd = new ContextEngine({ agentId: "main" }, {}, { ...h, outboxReadText: async (k) => (k === "outbox/main--s" ? ["[1,2]", "nope"] : []), warn: (m) => warned.push(m) });
  const report = await odd.flush("main--s");
  assert.equal(report.queued, 0);
  assert.equal(warned.filter((w) => /not a JSON object/.test(w)).length, 2, warned.join("; "));
});

test("a commit that names no archive settles, and the next write works", { timeout: 20000 }, async () => {
  const h = memoryHost();
  const e = new ContextEngine({ agentId: "main", timeoutMs: 1000 }, {}, h);
  await e.writeTurn({ sessionId: "s", advancementKey: "k0", messages: turn("We decided to ship on Fridays") });
  const out = await e.runCommit({ ovSessionId: "main--s", forced: true, waitMs: 3000 });
  assert.equal(out.compacted, true);
  const next = await e.writeTurn({ sessionId: "s", advancementKey: "k1", messages: turn("next turn") });
  assert.equal(next.status, "committed");
});

test("a host object that lacks a callback is refused at construction, naming it", () => {
  const h = memoryHost();
  delete h.outboxDrop;
  assert.throws(() => new ContextEngine({}, {}, h), (err) => err.code === "INVALID_INPUT" && err.field === "host" && /outboxDrop/.test(err.message));
  assert.throws(() => new ContextEngine({}, {}, 5), (err) => err.code === "INVALID_INPUT" && err.field === "host");
});

test("a turn holding a lone surrogate is stored, the surrogate as U+FFFD", async () => {
  const h = memoryHost();
  const e = new ContextEngine({ agentId: "main" }, {}, h);
  const cut = "the model stopped mid-emoji \uD83D";
  const out = await e.writeTurn({ sessionId: "s", advancementKey: "k0", messages: turn(cut) });
  assert.equal(out.status, "committed");
  const stored = h.sessions.get("main--s")[0].parts[0].text;
  assert.equal(stored, "the model stopped mid-emoji \uFFFD");
});

test("a non-string session id is an input error naming the field, never a trap", async () => {
  const h = memoryHost();
  const e = new ContextEngine({ agentId: "main" }, {}, h);
  for (const bad of [42, true, {}, 7n, Symbol("s"), { length: -1 }, null, undefined]) {
    assert.throws(() => e.ovSessionId(bad), (err) => err.code === "INVALID_INPUT" && err.field === "sessionId");
    assert.throws(() => e.setUserId(bad), (err) => err.code === "INVALID_INPUT" && err.field === "userId");
    await assert.rejects(e.flush(bad), (err) => err.code === "INVALID_INPUT" && err.field === "ovSessionId");
    await assert.rejects(e.record(bad), (err) => err.code === "INVALID_INPUT");
    await assert.rejects(e.followTask(bad, 0), (err) => err.code === "INVALID_INPUT");
  }
  await assert.rejects(e.followTask("main--s", "soon"), (err) => err.code === "INVALID_INPUT" && err.field === "waitMs");
  assert.equal(e.ovSessionId("s"), "main--s", "still works");
});

test("a retry while the first attempt is still being stored is refused, never answered duplicate", async () => {
  const h = memoryHost();
  const append = h.outboxAppendText;
  let fail = true;
  h.outboxAppendText = async (...a) => {
    await new Promise((r) => setTimeout(r, 150));
    if (fail) throw Object.assign(new Error("ENOSPC"), { kind: "local" });
    return append(...a);
  };
  const e = new ContextEngine({ agentId: "main" }, {}, h);
  const first = e.writeTurn({ sessionId: "s", advancementKey: "k0", messages: turn("a turn on a slow disk") });
  const retry = e.writeTurn({ sessionId: "s", advancementKey: "k0", messages: turn("a turn on a slow disk") });
  await assert.rejects(retry, (err) => err.code === "HOST_TIMEOUT", "not durable yet: the retry must not hear duplicate");
  await assert.rejects(first, (err) => err.code === "HOST_FAILED");
  fail = false;
  const again = await e.writeTurn({ sessionId: "s", advancementKey: "k0", messages: turn("a turn on a slow disk") });
  assert.equal(again.status, "committed");
  assert.equal(h.sessions.get("main--s").filter((m) => m.role === "user").length, 1);
});

test("every engine call settles within its deadline, even when a callback never answers", { timeout: 20000 }, async () => {
  const h = memoryHost();
  h.loadStateText = () => new Promise(() => {});
  const e = new ContextEngine({ agentId: "main", timeoutMs: 1000 }, {}, h);
  const t0 = Date.now();
  await assert.rejects(e.writeTurn({ sessionId: "s", advancementKey: "k0", messages: turn("never answered") }), (err) => ["HOST_TIMEOUT", "HOST_FAILED"].includes(err.code));
  await assert.rejects(e.record("main--s"), (err) => ["HOST_TIMEOUT", "HOST_FAILED"].includes(err.code));
  assert.ok(Date.now() - t0 < 10000, `settled in ${Date.now() - t0} ms`);
});
