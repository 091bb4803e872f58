// Moving an agent to another OpenViking account (`openclaw openviking export --out f.jsonl.gz`,
// then `import --from f.jsonl.gz --apply` on the other side), with the plugin's own exporter
// and restorer over the engine, a real OpenViking 0.5.2 and two accounts of it: the source
// agent has nine turns (tool calls, one 30 kB output) in two archives and a live tail, a
// memory it stored, and another agent's session beside it. After the restore, the second
// account answers status, history search and memory_expand as the first does; the file holds
// no key; a second restore writes nothing; a file cut short restores what it holds and says so.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHarness } from "../../js-glue/test/openviking/helpers.mjs";
import { makeEngine, toolTurn } from "./engine-host.mjs";
import { createExporter, createRestorer } from "../../js-glue/plugin/export.js";
import { loadEngine } from "../support/packages.mjs";

const CONFIG = { compactTurnThreshold: 1000, compactTokensAddedThreshold: 100000000, compactMaxIntervalMinutes: 100000 };
const WAIT = 90_000;
let h, dir, wasm, src, dst, other;
const SID = "moving";

before(async () => {
  h = await startHarness();
  dir = mkdtempSync(join(tmpdir(), "ov-move-"));
  wasm = await loadEngine();
  const base = { baseUrl: h.env.baseUrl, apiKey: h.env.userKey, userId: h.env.userId, config: CONFIG, timeoutMs: 15000 };
  src = await makeEngine({ ...base, stateDir: join(dir, "src") });
  other = await makeEngine({ ...base, agentId: "other", stateDir: join(dir, "other") });
  // the second account, with a user of its own
  const made = await src.engine.adminUserKey({ rootKey: h.env.rootKey, accountId: "moved", userId: "mover" });
  dst = await makeEngine({ ...base, apiKey: made.userKey, userId: "mover", stateDir: join(dir, "dst") });

  const write = (i, q, a, big = false) => {
    const m = toolTurn(i, q, a);
    if (big) m[2].content[0].text = `pool report\n${"row ".repeat(7_500)}`;
    return src.engine.writeTurn({ sessionId: SID, advancementKey: `mv-${i}`, messages: m });
  };
  const facts = [
    ["Which database does billing use?", "Billing runs on Postgres 16."],
    ["Where do the nightly backups go?", "Backups go to the cold bucket at 02:00 UTC."],
    ["What is the pool size of the audit service?", "The audit pool is 24."],
    ["Which region hosts the search cluster?", "Search runs in eu-west-3."],
    ["Who owns the release train?", "Mara owns the release train, every second Tuesday."],
    ["What does the cache TTL default to?", "The cache TTL defaults to 90 seconds."],
    ["Which queue handles invoices?", "Invoices go through the amber queue."],
    ["Where is the on-call rota kept?", "The rota lives in the ops wiki."],
    ["What port does the metrics gateway use?", "The metrics gateway listens on 9464."],
  ];
  for (const [i, [q, a]] of facts.entries()) {
    assert.equal((await write(i, q, a, i === 2)).status, "committed");
    if (i === 3 || i === 6) {
      const c = await src.engine.runCommit({ ovSessionId: `main--${SID}`, forced: true, reason: "test", waitMs: WAIT });
      assert.ok(c.compacted && c.checkpoint, JSON.stringify(c));
    }
  }
  const stored = await src.engine.runTool("memory_store", { text: "The user prefers answers with the exact config path.", category: "preferences" }, { sessionId: SID });
  assert.equal(stored.stored, true, JSON.stringify(stored));
  await other.engine.writeTurn({ sessionId: "theirs", advancementKey: "o-1", messages: toolTurn(50, "The other agent's secret launch code is ZEBRA.", "Noted.") });
});

after(async () => {
  await h?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const runtimeOf = (m) => ({ wasm, store: m.store, ensureServer: async () => {} });
const pick = (m) => () => ({ agentId: "main", engine: m.engine });

/** What an operator sees of the session on one side. */
async function view(m) {
  const st = await m.engine.status(`main--${SID}`);
  // by pattern (the words alone, newest first): a search by meaning would also rank the
  // archived turns by the vectors OpenViking makes of them in the background, not yet made
  // on the target right after the restore
  const search = async (pattern) => (await m.engine.runTool("memory_search_history", { pattern, scope: "session", limit: 20 }, { sessionId: SID })).hits.map((x) => `${x.turnId}${x.archived ? "/archived" : ""}`);
  const archive = st.lastCheckpoint?.archiveUri ?? null;
  return {
    turns: st.turnsStored,
    checkpoints: st.checkpoints,
    lastArchive: { turns: st.lastCheckpoint?.turns, hasSummary: st.lastCheckpoint?.hasSummary },
    window: st.triggers.find((x) => x.kind === "turns").current,
    search: { every: await search("\\?"), backups: await search("backups|cold bucket"), region: await search("region|eu-west") },
    archive,
  };
}

test("export to a gzip file, restore into another account: the same turns, archives, answers; no key in the file; a rerun writes nothing", { timeout: 600_000 }, async (t) => {
  const file = join(dir, "main.jsonl.gz");
  const exported = await createExporter(runtimeOf(src), { pickAgent: pick(src) })({ out: file });
  t.diagnostic(`export: ${JSON.stringify({ ...exported, sessions: exported.sessions.length })}`);
  assert.equal(exported.error, null);
  assert.deepEqual(exported.totals, { sessions: 1, turns: 9, memories: exported.totals.memories });
  assert.ok(exported.totals.memories >= 1, "the stored memory");
  const text = gunzipSync(readFileSync(file)).toString("utf8");
  for (const secret of [h.env.userKey, h.env.rootKey]) assert.ok(!text.includes(secret), "no key in the file");
  assert.ok(!text.includes("ZEBRA"), "never another agent's session");
  assert.ok(text.includes("row ".repeat(7_500)), "the 30 kB output whole");
  const refused = await createExporter(runtimeOf(src), { pickAgent: pick(src) })({ out: file });
  assert.match(refused.error, /exists: pass --force/);

  const restore = createRestorer(runtimeOf(dst), { pickAgent: pick(dst) });
  const dry = await restore({ from: file });
  assert.equal(dry.error, null, dry.error);
  assert.equal(dry.complete, true);
  assert.deepEqual([dry.totals.turns, dry.totals.remaining, dry.totals.written], [9, 9, 0]);
  const t0 = Date.now();
  const done = await restore({ from: file, apply: true });
  const restoreMs = Date.now() - t0;
  t.diagnostic(`restore: ${restoreMs} ms; ${JSON.stringify(done.sessions)}; memories ${JSON.stringify(done.memories)}`);
  console.log(`# move: export ${exported.totals.turns} turns, ${exported.totals.memories} memories in ${exported.elapsedMs} ms (${readFileSync(file).length} B gzip); restore ${restoreMs} ms with ${done.totals.commits} commits followed to their task's end`);
  assert.equal(done.error, null, done.error);
  assert.deepEqual([done.totals.written, done.totals.remaining, done.totals.commits], [9, 0, 2], JSON.stringify(done.sessions));
  assert.equal(done.memories.written + done.memories.alreadyStored, exported.totals.memories, "each memory there (the target's own extraction may have made some at the same path)");
  const paths = async (m) => new Set((await m.engine.exportMemories()).lines.map((l) => JSON.parse(l)).map((x) => `${x.scope}:${x.path}`));
  const [pa, pb] = [await paths(src), await paths(dst)];
  assert.deepEqual([...pa].filter((p) => !pb.has(p)), [], "every memory of the source is on the target");
  const pref = (await dst.engine.exportMemories()).lines.map((l) => JSON.parse(l)).find((x) => /exact config path/.test(x.content));
  assert.ok(pref, "the memory the agent stored is there, word for word");

  const [a, b] = [await view(src), await view(dst)];
  t.diagnostic(`source ${JSON.stringify(a)}\ntarget ${JSON.stringify(b)}`);
  assert.deepEqual({ ...b, archive: null }, { ...a, archive: null }, "status and history search answer the same");
  // the archive's raw turns are reached on the target too
  const expand = (m, uri) => m.engine.runTool("memory_expand", { summaryOrMemoryUri: uri, query: "release train owner" }, { sessionId: SID });
  const [ea, eb] = [await expand(src, a.archive), await expand(dst, b.archive)];
  assert.deepEqual(eb.excerpts.map((x) => [x.turnId, x.text]), ea.excerpts.map((x) => [x.turnId, x.text]));
  assert.match(eb.excerpts.map((x) => x.text).join("\n"), /Mara owns the release train/);
  assert.ok(b.archive.includes("/user/mover/") || b.archive.includes("moved"), `the target's own archive: ${b.archive}`);

  const again = await restore({ from: file, apply: true });
  assert.deepEqual([again.totals.written, again.totals.alreadyStored, again.totals.commits, again.memories.written], [0, 9, 0, 0]);

  // a file cut short (a copy that stopped half-way): what it holds is restored, and it says so
  const lines = text.split("\n").filter(Boolean);
  const cut = join(dir, "cut.jsonl");
  writeFileSync(cut, `${lines.slice(0, 6).join("\n")}\n${lines[6].slice(0, 40)}`);
  const part = await restore({ from: cut });
  assert.equal(part.complete, false);
  assert.match(part.problems.join("\n"), /line 7: cannot be read/);
  assert.match(part.problems.join("\n"), /cut short/);
  const bad = await restore({ from: join(dir, "nope.jsonl") });
  assert.match(bad.error, /no such file/);
});
