// forget-verify.test.mjs — memory_forget against a REAL OpenViking 0.5.2: it reports only what
// the server really deleted. OpenViking answers a delete of a uri with nothing behind it with
// {status:"ok", estimated_deleted_count:0} (a uri that does not exist, look-alike dots, "%2F"
// slashes), and collapses "//" onto a real file; the tool checks the uri (fs/stat) before and
// after, refuses uris that read differently (naming the field), and says what happened.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { inspect } from "node:util";
import { createClient } from "../../../tests/inspect/client.js";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { registerTools } from "../../plugin/tools.js";
import { createEngineHost, createTransport } from "../../engine-host.js";
import { httpFromOps } from "../support/ops-over-http.mjs";
import { createStateStore } from "../../state-store.js";
import { loadEngine } from "../../wasm.js";
import { skipReason, startHarness, uid } from "./helpers.mjs";

const wasm = await loadEngine();

/** memory_forget as the plugin registers it: the engine over the plugin's host callbacks.
 *  `server` is a real one ({baseUrl, apiKey}: the plugin's fetch transport) or a stand-in
 *  (operations served through ops-over-http); `findImpl` answers the searches instead. */
function forgetToolFor(server, userId, { findImpl } = {}) {
  const store = createStateStore(mkdtempSync(join(tmpdir(), "ov-forget-")));
  let config = { agentId: "main" };
  let request;
  if (server.baseUrl) {
    config = { ...config, mode: "remote", baseUrl: server.baseUrl, apiKey: server.apiKey };
    const real = createTransport();
    const found = (v) => ({ status: 200, body: JSON.stringify({ status: "ok", result: v }) });
    request = (req) => (findImpl && new URL(req.url).pathname.endsWith("/api/v1/search/find") ? findImpl().then(found) : real(req));
  } else {
    request = httpFromOps({ userId: async () => userId, find: findImpl ?? (async () => ({ memories: [] })), ...server });
  }
  const host = createEngineHost({ store, request, logger: { warn() {} } });
  const engine = new wasm.ContextEngine(config, {}, host);
  const tools = new Map();
  const api = { registerTool: (factory, { name }) => tools.set(name, factory({ sessionKey: "agent:main:main" })) };
  registerTools(api, { wasm, agent: () => ({ engine }) });
  return tools.get("memory_forget");
}

const doc = (r) => {
  assert.equal(r.isError, undefined, r.content[0].text);
  return JSON.parse(r.content[0].text);
};

describe("memory_forget verifies its deletes against a real OpenViking", { skip: skipReason, timeout: 240000 }, () => {
  let harness, env, client, mem, forget;
  const exists = async (uri) => {
    try {
      await client.stat(uri);
      return true;
    } catch (err) {
      if (err.code === "NOT_FOUND") return false;
      throw err;
    }
  };
  const write = async (name, content) => {
    const uri = `${mem}/preferences/${name}`;
    await client.writeContent({ uri, content, mode: "create", wait: true });
    assert.ok(await exists(uri), `${uri} was written`);
    return uri;
  };

  before(async () => {
    harness = await startHarness();
    env = harness.env;
    client = createClient({ baseUrl: env.baseUrl, apiKey: env.userKey, agentId: "main" });
    mem = `viking://user/${env.userId}/memories`;
    forget = forgetToolFor({ baseUrl: env.baseUrl, apiKey: env.userKey }, env.userId);
  });
  after(async () => {
    await harness?.stop();
  });

  test("the server itself answers ok for deletes that delete nothing (why the tool must verify)", async () => {
    const uri = await write(`${uid("probe")}.md`, "I drink green tea in the morning.");
    for (const alias of [`${mem}/preferences/${uid("missing")}.md`, uri.replace(/\.md$/, "\u2024md"), `${mem}%2Fpreferences%2F${uri.split("/").pop()}`]) {
      const res = await client.deleteUri(alias);
      assert.equal(res.estimated_deleted_count, 0, alias);
    }
    assert.ok(await exists(uri), "none of the look-alikes touched the real memory");
  });

  test("a uri with nothing behind it: deleted [] with notFound and a reason", async () => {
    const uri = `${mem}/preferences/${uid("never-written")}.md`;
    const out = doc(await forget.execute("f1", { uri }));
    assert.deepEqual(out.deleted, []);
    assert.deepEqual(out.notFound, [uri]);
    assert.match(out.reason, /no memory at this uri/);
  });

  test("look-alike dots, %2F / %2E escapes, dot segments, //, backslashes are refused naming uri — and the real memory stays", async () => {
    const name = `${uid("tea")}.md`;
    const uri = await write(name, "I take my tea without sugar.");
    const aliases = [
      uri.replace(/\.md$/, "\u2024md"), // ONE DOT LEADER
      uri.replace(/\.md$/, "\uff0emd"), // FULLWIDTH FULL STOP
      uri.replace("/preferences/", "\uff0fpreferences\uff0f"), // FULLWIDTH SOLIDUS
      `${mem}%2Fpreferences%2F${name}`,
      `${mem}/preferences/${name.replace(/\.md$/, "%2Emd")}`,
      `${mem}/preferences/%2E%2E/preferences/${name}`,
      `${mem}/preferences/../preferences/${name}`,
      `${mem}/preferences/./${name}`,
      `${mem}/preferences//${name}`, // the server collapses this onto the real file
      `${uri}/`,
      `${mem}/preferences\\${name}`,
      `${uri}?x=1`,
      `${mem}/preferences/\u200b${name}`,
      ` ${uri}`,
    ];
    for (const alias of aliases) {
      const r = await forget.execute("f2", { uri: alias });
      assert.equal(r.isError, true, `${JSON.stringify(alias)} → ${r.content[0].text}`);
      assert.match(r.content[0].text, /^uri: /, alias);
    }
    assert.ok(await exists(uri), "the real memory is still there");
    const bad = await forget.execute("f2b", { query: "tea", targetUri: `${mem}%2Fpreferences` });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /^targetUri: /);
  });

  test("a real memory: deleted [uri], and it is really gone (stat, read and find)", async () => {
    const uri = await write(`${uid("editor")}.md`, "I prefer a dark theme in every editor.");
    const out = doc(await forget.execute("f3", { uri }));
    assert.deepEqual(out, { deleted: [uri] });
    assert.equal(await exists(uri), false);
    await assert.rejects(client.readContent(uri), (err) => err.code === "NOT_FOUND");
    const found = await client.find({ query: "dark theme in every editor", targetUri: mem, limit: 20, scoreThreshold: 0 });
    assert.ok(!(found.memories ?? []).some((m) => m.uri === uri), "find no longer returns it");
    // the same delete again deletes nothing, and says so
    const again = doc(await forget.execute("f4", { uri }));
    assert.deepEqual(again.deleted, []);
    assert.deepEqual(again.notFound, [uri]);
  });

  test("a folder is not a memory: refused, nothing deleted", async () => {
    const uri = await write(`${uid("keep")}.md`, "I keep my notes in plain text.");
    const r = await forget.execute("f5", { uri: `${mem}/preferences` });
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /^uri: names a folder/);
    assert.ok(await exists(uri));
  });

  test("by query: a single clear match that is already gone is reported as not deleted", async () => {
    const uri = `${mem}/preferences/${uid("ghost")}.md`;
    const tool = forgetToolFor({ baseUrl: env.baseUrl, apiKey: env.userKey }, env.userId, {
      findImpl: async () => ({ memories: [{ uri, level: 2, score: 0.97, abstract: "a memory the index still lists" }] }),
    });
    const out = doc(await tool.execute("f6", { query: "ghost" }));
    assert.deepEqual(out.deleted, []);
    assert.deepEqual(out.notFound, [uri]);
  });

  test("by query: a single clear match is deleted and verified", async () => {
    const uri = await write(`${uid("lunch")}.md`, "I have lunch at noon.");
    const tool = forgetToolFor({ baseUrl: env.baseUrl, apiKey: env.userKey }, env.userId, {
      findImpl: async () => ({ memories: [{ uri, level: 2, score: 0.95, abstract: "lunch at noon" }] }),
    });
    assert.deepEqual(doc(await tool.execute("f7", { query: "when do I have lunch" })), { deleted: [uri] });
    assert.equal(await exists(uri), false);
  });

  test("no API key in any result", async () => {
    const results = [
      await forget.execute("k1", { uri: `${mem}/preferences/${uid("x")}.md` }),
      await forget.execute("k2", { uri: `${mem}%2Fx` }),
    ];
    for (const r of results) assert.ok(!inspect(r, { depth: 8 }).includes(env.userKey));
  });
});

describe("memory_forget when the server's answers disagree (stand-in client)", () => {
  const mem = "viking://user/u/memories";
  const uri = `${mem}/preferences/x.md`;
  const notFound = () => Object.assign(new Error("File not found"), { code: "NOT_FOUND", status: 404 });
  const make = (client) => forgetToolFor(client, "u");

  test("a delete that leaves the memory in place: deleted [] with notDeleted", async () => {
    const tool = make({ stat: async () => ({ uri, isDir: false }), deleteUri: async () => ({ uri, estimated_deleted_count: 1 }) });
    const out = JSON.parse((await tool.execute("a", { uri })).content[0].text);
    assert.deepEqual(out.deleted, []);
    assert.deepEqual(out.notDeleted, [uri]);
  });

  test("a delete that counts nothing: deleted [] with notFound", async () => {
    let n = 0;
    const tool = make({ stat: async () => (n++ === 0 ? { uri, isDir: false } : Promise.reject(notFound())), deleteUri: async () => ({ uri, estimated_deleted_count: 0 }) });
    const out = JSON.parse((await tool.execute("b", { uri })).content[0].text);
    assert.deepEqual(out.deleted, []);
    assert.deepEqual(out.notFound, [uri]);
  });

  test("the check after the delete fails: deleted [] with unverified", async () => {
    let n = 0;
    const down = () => Object.assign(new Error("OpenViking unreachable"), { code: "OV_UNREACHABLE" });
    const tool = make({ stat: async () => (n++ === 0 ? { uri, isDir: false } : Promise.reject(down())), deleteUri: async () => ({ uri, estimated_deleted_count: 1 }) });
    const out = JSON.parse((await tool.execute("c", { uri })).content[0].text);
    assert.deepEqual(out.deleted, []);
    assert.deepEqual(out.unverified, [uri]);
  });

  test("a server that reads the uri as another one: refused naming uri, nothing deleted", async () => {
    let deleted = false;
    const tool = make({ stat: async () => ({ uri: `${mem}/preferences/y.md`, isDir: false }), deleteUri: async () => ((deleted = true), {}) });
    const r = await tool.execute("d", { uri });
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /^uri: OpenViking reads it as/);
    assert.equal(deleted, false);
  });
});
