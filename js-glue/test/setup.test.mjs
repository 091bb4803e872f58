// `openclaw openviking setup` without a server: the .env line it writes (replaced, never
// doubled, other lines kept), the ov.conf it writes from its flags, and a config it cannot
// work with named before anything is written. The whole command against a real OpenViking it
// starts, in real OpenClaw: tests/e2e/config-and-truth.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { minimalServerConfig, runSetup, withEnvLine } from "../plugin/setup.js";

test("the key's line in .env is replaced or added; other lines are kept", () => {
  assert.equal(withEnvLine("", "OPENVIKING_API_KEY", "k1"), "OPENVIKING_API_KEY=k1\n");
  assert.equal(withEnvLine("A=1\nOPENVIKING_API_KEY=old\nB=2\n", "OPENVIKING_API_KEY", "k2"), "A=1\nOPENVIKING_API_KEY=k2\nB=2\n");
  assert.equal(withEnvLine("export OPENVIKING_API_KEY=old", "OPENVIKING_API_KEY", "k3"), "OPENVIKING_API_KEY=k3\n");
  assert.equal(withEnvLine("A=1", "OPENVIKING_API_KEY", "k4"), "A=1\nOPENVIKING_API_KEY=k4\n");
  assert.equal(withEnvLine("OPENVIKING_API_KEY_OLD=x\n", "OPENVIKING_API_KEY", "k5"), "OPENVIKING_API_KEY_OLD=x\nOPENVIKING_API_KEY=k5\n", "a longer name is another variable");
});

test("a new ov.conf: the root key, a workspace beside it, and only the endpoints given", () => {
  const bare = minimalServerConfig({}, "/home/me/.openviking/ov.conf", "root");
  assert.deepEqual(bare, { server: { root_api_key: "root" }, storage: { workspace: "/home/me/.openviking/workspace" } });
  const full = minimalServerConfig({ embeddingUrl: "http://e/v1", embeddingKey: "ek", embeddingDimension: "384", vlmUrl: "http://v/v1", workspace: "/data/ov" }, "/x/ov.conf", "root");
  assert.deepEqual(full.embedding.dense, { provider: "openai", api_base: "http://e/v1", api_key: "ek", model: "text-embedding-3-small", dimension: 384 });
  assert.equal(full.vlm.model, "gpt-4o-mini");
  assert.equal(full.storage.workspace, "/data/ov");
  assert.throws(() => minimalServerConfig({ embeddingUrl: "http://e", embeddingDimension: "big" }, "/x/ov.conf", "r"), /--embedding-dimension must be a whole number/);
});

test("a config setup cannot work with is named before anything is written", async () => {
  const doctor = async () => assert.fail("no doctor without a config");
  const none = await runSetup({ runtime: { config: null, degraded: null, problems: [{ severity: "error", message: "the plugin config is a string, not an object" }] }, doctor });
  assert.match(none.error, /setup cannot work around: the plugin config is a string/);
  const remote = await runSetup({ runtime: { config: { mode: "remote" } }, doctor });
  assert.match(remote.error, /setup is for local mode/);
  assert.equal(remote.ok, false);
  assert.deepEqual(remote.steps, []);
});
