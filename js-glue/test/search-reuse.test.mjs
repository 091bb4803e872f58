// One turn's assemble calls share one OpenViking search: searchScopes reuses a successful
// search for the same query (and limit and scope) for SEARCH_REUSE_MS; failures are never
// reused, and a memory written or deleted through the tools drops it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { searchScopes, forgetSearch, SEARCH_REUSE_MS } from "../plugin/recall.js";

function fixture({ fail = false } = {}) {
  const calls = [];
  const agent = {
    identity: async () => "u1",
    client: {
      async find(req) {
        calls.push(req);
        if (fail) throw Object.assign(new Error("down"), { code: "OV_UNREACHABLE" });
        return { memories: [{ uri: `${req.targetUri}/m.md`, abstract: req.query, score: 0.9, level: 2 }] };
      },
    },
  };
  const runtime = { config: { recallLimit: 6 } };
  let t = 1_000_000;
  return { calls, agent, runtime, now: () => t, advance: (ms) => (t += ms) };
}

test("the same query within the window asks OpenViking once (both scopes)", async () => {
  const f = fixture();
  const a = await searchScopes(f.runtime, f.agent, "billing database", { now: f.now });
  f.advance(SEARCH_REUSE_MS - 1);
  const b = await searchScopes(f.runtime, f.agent, "billing database", { now: f.now });
  assert.equal(f.calls.length, 2, "one find per scope");
  assert.deepEqual(b, a);
  assert.deepEqual(f.calls.map((c) => c.targetUri).sort(), ["viking://agent/memories", "viking://user/u1/memories"]);
});

test("another query, another limit, or an expired window searches again", async () => {
  const f = fixture();
  await searchScopes(f.runtime, f.agent, "q1", { now: f.now });
  await searchScopes(f.runtime, f.agent, "q2", { now: f.now });
  assert.equal(f.calls.length, 4);
  await searchScopes({ config: { recallLimit: 10 } }, f.agent, "q2", { now: f.now });
  assert.equal(f.calls.length, 6);
  assert.equal(f.calls.at(-1).limit, 40);
  f.advance(SEARCH_REUSE_MS);
  await searchScopes({ config: { recallLimit: 10 } }, f.agent, "q2", { now: f.now });
  assert.equal(f.calls.length, 8);
});

test("a failed search is not reused; forgetSearch drops a good one", async () => {
  const down = fixture({ fail: true });
  const r = await searchScopes(down.runtime, down.agent, "q", { now: down.now });
  assert.equal(r.failed.length, 2);
  await searchScopes(down.runtime, down.agent, "q", { now: down.now });
  assert.equal(down.calls.length, 4);

  const f = fixture();
  await searchScopes(f.runtime, f.agent, "q", { now: f.now });
  forgetSearch(f.agent);
  await searchScopes(f.runtime, f.agent, "q", { now: f.now });
  assert.equal(f.calls.length, 4);
});
