// scopes.test.mjs — resolveMemoryScopes and isWithinScope: traversal (`..`, `%2e%2e`,
// double encoding), sibling prefixes, and malformed input never count as "inside".
import { test } from "node:test";
import assert from "node:assert/strict";
import { isWithinScope, resolveMemoryScopes } from "../../openviking/client.js";

const scope = "viking://user/alice/memories";

test("resolveMemoryScopes builds the user and agent memory roots", () => {
  assert.deepEqual(resolveMemoryScopes({ userId: "alice", agentId: "agent-a" }), {
    user: "viking://user/alice/memories",
    agent: "viking://agent/agent-a/memories",
  });
  for (const bad of ["", ".", "..", "a/b", "a%2fb", "a b", "a\\b", "a?x", "a#x", undefined, 7]) {
    assert.throws(() => resolveMemoryScopes({ userId: bad, agentId: "a" }), TypeError, String(bad));
    assert.throws(() => resolveMemoryScopes({ userId: "u", agentId: bad }), TypeError, String(bad));
  }
});

test("isWithinScope accepts the scope itself and what lies below it", () => {
  assert.equal(isWithinScope(scope, scope), true);
  assert.equal(isWithinScope(scope + "/", scope), true);
  assert.equal(isWithinScope(scope + "/preferences/dark-mode.md", scope), true);
  assert.equal(isWithinScope(scope + "/preferences/", scope + "/"), true);
  assert.equal(isWithinScope(scope + "/a%20b.md", scope), true); // a harmless encoded space
});

test("isWithinScope rejects siblings, parents and other users", () => {
  for (const uri of [
    "viking://user/alice/memories-evil/x.md",
    "viking://user/alice/memoriesx",
    "viking://user/alice",
    "viking://user/alice/",
    "viking://user/bob/memories/x.md",
    "viking://user/alicex/memories/x.md",
    "viking://agent/alice/memories/x.md",
  ]) assert.equal(isWithinScope(uri, scope), false, uri);
});

test("isWithinScope cannot be fooled by dot segments or encodings", () => {
  for (const uri of [
    scope + "/../../bob/memories/x.md",
    scope + "/..",
    scope + "/./x.md",
    scope + "/%2e%2e/%2e%2e/bob/memories",
    scope + "/%2E%2E/secret",
    scope + "/%252e%252e/secret", // double encoded
    scope + "/%25252e%25252e%25252e/x", // triple encoded "..."
    scope + "/%2525252e%2525252e/x", // encoded deeper than the decoder goes
    scope + "/.../x",
    scope + "/.%2e/x",
    scope + "%2f..%2fsecret",
    scope + "%2F%2E%2E/x",
    scope + "/x/..\\..\\y",
    scope + "\\..\\x",
    scope + "//x.md",
    scope + "/x%00.md",
    scope + "/x\n.md",
    scope + "/x?y=1",
    scope + "/x#frag",
    scope + "/%zz",
  ]) assert.equal(isWithinScope(uri, scope), false, uri);
});

test("isWithinScope rejects non-viking and non-string input, and a bad scope", () => {
  for (const uri of ["http://user/alice/memories/x", "VIKING://user/alice/memories/x", "user/alice/memories/x",
    " viking://user/alice/memories/x", "", null, undefined, 42, {}, ["viking://user/alice/memories"]]) {
    assert.equal(isWithinScope(uri, scope), false, String(uri));
  }
  assert.equal(isWithinScope(scope + "/x", "viking://user/alice/../alice/memories"), false);
  assert.equal(isWithinScope(scope + "/x", ""), false);
  assert.equal(isWithinScope(scope + "/x", "viking://"), false);
});
