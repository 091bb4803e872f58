#!/usr/bin/env node
// The project's recall-quality benchmark:
//
//   node tests/bench/quality/run.mjs [--json] [--seed N] [--out FILE] [--concurrency N]
//                                    [--personas en1,zh2] [--questions N] [--no-history] [--keep]
//                                    [--no-intent] [--no-narrow]
//                                    [--context N] [--config JSON] [--replay FILE]
//                                    [--set personas|tune|heldout|heldout2|heldout3] [--pkg DIR]
//
// Data: generate.mjs (deterministic; 4 personas, en + zh, ~610 memories, ~420 turns, 320
// questions with evidence labels). One real OpenViking 0.5.2 (tests/openviking/harness.py)
// with the stand-in's REAL embedding model (`--embedder minilm`: all-MiniLM-L6-v2, numpy),
// one OpenViking account + user per persona. Then:
//
// 1. Plant: every memory as a user memory, `viking://user/<uid>/memories/<type>/<id>.md`
//    (`POST /api/v1/content/write`, `wait: true`: findable when it returns), one by one in
//    the order they were said (session by session), so the store's write times say which
//    version of a fact came last, as extraction after each session would.
// 2. Recall, per question (the question is the current user message, nothing before it):
//    the query as the engine builds it (`Engine.buildRecallQuery`), then the finds the
//    engine's protocol sends (src/openviking/client.rs: `{query, target_uri, limit,
//    score_threshold: 0}` on the user scope `viking://user/<uid>/memories` and the agent's own
//    scope `viking://agent/<agentId>/memories`, one find over both unless a window applies, as
//    src/engine/read.rs does; the baseline's two finds whole), `limit` = `Engine.searchLimit`, the rerank pool:
//    recallLimit·8 = 48), then the engine's own selection through the wasm:
//    `Engine.autoRecall({messages, search, nowMs, explain: true})`, default config.
//    Recorded: the injected memories; evidence recall (≥ 1 evidence memory injected) and,
//    for questions needing several facts, all evidence; precision (injected evidence memories /
//    injected memories, pooled over the questions); memories injected; tokens — what the
//    synthetic messages add to the request (estimateMessageTokens of autoRecall's messages
//    minus the input's: the opening user message and the tool pair), and per memory; near-
//    duplicate slots (injected memories minus distinct facts among them); for decision
//    questions whether a superseded step was injected (stale); for unrelated questions whether
//    anything was injected; whether any evidence was among the candidates at all (in pool).
//    Baseline on the SAME find answers: OpenViking's own order — the level-2 items of both
//    answers (a level 0/1 hit is a folder's abstract/overview, not a memory), first per uri,
//    by score, top recallLimit = 6; its tokens are the legacy plugin's text block for those
//    memories (`<relevant-memories>` … `- [category] text`, estimateTokens), and the engine's
//    memories are also costed in that block (legacyBlockTokens) for a per-memory comparison.
// 3. History: every conversation written through a ContextEngine (`writeTurn`, one per turn,
//    real OpenViking, a scratch state dir per persona; advancementKey = the turn id), then
//    `runTool("memory_search_history", {query: <question>, limit: 10})` (defaults: match
//    "any", relevance) twice: before any commit (E words: the word index alone — nothing is
//    archived, so nothing is embedded) and after each session was committed as its triggers
//    would at its end and OpenViking's queues drained (E: words fused with the vectors of the
//    archived turns). R@k = share of the question's evidence facts (groups) with at least one
//    stating turn in the top k, averaged over questions.
//    Baseline: plain BM25 (bm25.mjs: k1 1.2, b 0.75, whitespace+punctuation tokens, CJK
//    bigrams) over the same turns (user + assistant text).
//
// --context N asks each question after N earlier turns of the persona's small talk (the same
// session; chosen per question from the seed), so the engine's query window (the current input
// plus earlier user turns, `assembleRecallWindow`) carries them into the finds: what a question
// in the middle of a conversation gets. Default 0: the question alone.
//
// The find answers of every question are saved beside the records (quality-finds.json, with the
// seed, context and search limit they were made with); `--replay FILE` runs step 2 on a saved
// file without starting OpenViking (no history): the same answers, other recall settings or
// another build, in seconds.
//
// Output: tables per question type (en, zh, all), engine and baseline side by side; the
// per-question records in tests/artifacts/bench/quality.json (--out); `--json` prints the
// summary as JSON instead of the tables. Deterministic apart from timing (fixed seed, fixed
// nowMs for recall; OpenViking's scores are the embedding's cosine). Needs: `make build`
// (js-glue/pkg) and `.ci/install-tools.sh openviking` (the server, numpy, the MiniLM weights).

import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { generate, stats, DEFAULT_SEED, TYPES } from "./generate.mjs";
import { bm25Index } from "./bm25.mjs";
import { loadSet, setStats, SET_CATEGORIES } from "./conversations/load.mjs";
import { idOf, score, historyScore, summarise, printTables, sum, mean, round, pct, num } from "./report.mjs";

const run = promisify(execFile);
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const args = parseArgs(process.argv.slice(2));
const SEED = Number(args.seed ?? DEFAULT_SEED);
// --set personas (default): generate.mjs's personas; --set tune / heldout: a conversation set
// (conversations/README.md). Rules are chosen on personas and tune; heldout is only measured.
const SET = String(args.set ?? "personas");
const CONCURRENCY = Math.max(1, Number(args.concurrency ?? 3));
const OUT = resolve(args.out ?? join(root, "tests", "artifacts", "bench", SET === "personas" ? "quality.json" : `quality-${SET}.json`));
const NOW_MS = Date.UTC(2026, 4, 1, 12, 0, 0); // the questions are asked on 1 May 2026, after every session
const CONTEXT = Math.max(0, Number(args.context ?? 0));
const FINDS_OUT = join(dirname(OUT), basename(OUT, ".json") + "-finds.json");
const replay = args.replay ? JSON.parse(readFileSync(resolve(args.replay), "utf8")) : null;
if (replay && (replay.seed !== SEED || replay.context !== CONTEXT)) die(`--replay ${args.replay} was made with seed ${replay.seed}, context ${replay.context}`);
const finds = {};
const AGENT_ID = "main";
const AGENT_SCOPE = `viking://agent/${AGENT_ID}/memories`; // the engine's agent scope (src/address/scopes.rs)
const log = (m) => process.stderr.write(`[quality] ${m}\n`);
const memIndexCache = new Map();

const t0 = performance.now();
const timings = {};
const lap = (name, since) => (timings[name] = Math.round(performance.now() - since));

// ---------------------------------------------------------------------------------------------
// The data, the engine
// ---------------------------------------------------------------------------------------------
const data = SET === "personas" ? generate({ seed: SEED }) : await loadSet(SET);
const CATEGORIES = SET === "personas" ? TYPES : SET_CATEGORIES;
const only = args.personas ? String(args.personas).split(",") : null;
if (only) data.personas = data.personas.filter((p) => only.includes(p.tag));
if (args.questions) for (const p of data.personas) p.questions = p.questions.filter((q, i, all) => all.filter((x) => x.type === q.type).indexOf(q) < Number(args.questions));
if (!data.personas.length) die(`no persona matches --personas ${args.personas}`);

// the test build: the pure Engine and ContextEngine (with setUserId) on one instance
const { loadEngine, findPkg } = await import(pathToFileURL(join(root, "tests", "support", "packages.mjs")).href);
// --pkg DIR: another build's test package (e.g. an earlier commit's target/pkg-test/), to
// measure it on the same data
const pkgDir = args.pkg ? resolve(args.pkg) : findPkg("testing");
const wasmPath = join(pkgDir, "openviking_context_engine_bg.wasm");
const wasmSha = sha256(readFileSync(wasmPath));
const pkg = args.pkg ? await loadPkgDir(pkgDir) : await loadEngine();
// --config '{"recallScoreThreshold": 0.7}': the recall settings to measure (default: the defaults)
const engine = new pkg.Engine(args.config ? JSON.parse(args.config) : {}, {});
const config = engine.config;
const RECALL_LIMIT = config.recallLimit;
const SEARCH_LIMIT = engine.searchLimit;
// --lexical '{"take": 10, "lift": false}': the lexical fusion's knobs (default: the engine's)
const LEXICAL_KNOBS = args.lexical ? JSON.parse(args.lexical) : {};
const tokensOf = (messages) => pkg.estimateMessageTokens(messages).reduce((a, x) => a + x, 0);

// ---------------------------------------------------------------------------------------------
// OpenViking: one server, one account + user per persona
// ---------------------------------------------------------------------------------------------
const work = mkdtempSync(join(tmpdir(), "ov-quality-"));
const python = process.env.PYTHON || "python3";
const harness = join(root, "tests", "openviking", "harness.py");
let stopped = false;
async function stop() {
  if (stopped) return;
  stopped = true;
  if (!replay) await run(python, [harness, "stop", "--workdir", work], { timeout: 60_000 }).catch(() => {});
  if (!args.keep) rmSync(work, { recursive: true, force: true });
  else log(`kept ${work}`);
}
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => stop().finally(() => process.exit(130)));

let env;
try {
  let t = performance.now();
  if (replay) {
    env = replay.env;
    if (replay.searchLimit !== SEARCH_LIMIT) die(`--replay ${args.replay} was made with ${replay.searchLimit} per scope, this config searches ${SEARCH_LIMIT}`);
    log(`replaying the find answers of ${args.replay} (OpenViking ${env.version}, ${env.embedder}); no history`);
  } else {
  log(`starting OpenViking + the MiniLM stand-in in ${work}`);
  try {
    await run(python, [harness, "start", "--workdir", work, "--embedder", "minilm"], { timeout: 180_000, cwd: root });
  } catch (err) {
    throw new Error(`harness start failed: ${err.stderr || err.message}`);
  }
  env = JSON.parse(readFileSync(join(work, "env.json"), "utf8"));
  lap("startMs", t);
  const card = /card=(\{[^}]*\})/.exec(readFileSync(env.standinLog, "utf8"))?.[1] ?? null;
  log(`OpenViking ${env.version} at ${env.baseUrl}, embedder ${env.embedder} (${env.embeddingDim} dims; model-card check ${card})`);

  for (const p of data.personas) {
    const r = await ov(env.rootKey, "POST", "/api/v1/admin/accounts", { account_id: `quality-${p.tag}`, admin_user_id: `user-${p.tag}` });
    p.userId = `user-${p.tag}`;
    p.key = r.user_key;
    if (!p.key) throw new Error(`creating the account for ${p.tag} failed: ${JSON.stringify(r)}`);
    p.userScope = `viking://user/${p.userId}/memories`;
  }

  // 1. plant
  t = performance.now();
  // a conversation set's memories are written one by one in the order they were said (the
  // newest fact is written last, as extraction after each session would)
  // (the personas' too: by session, in the order the generator lists them)
  const chronological = (p) => (SET === "personas" ? p.memories.map((m, i) => ({ m, i })).sort((a, b) => a.m.session - b.m.session || a.i - b.i).map(({ m }) => m) : p.memories);
  await pool(data.personas, 4, async (p) => {
    for (const m of chronological(p)) await ov(p.key, "POST", "/api/v1/content/write", { uri: `${p.userScope}/${m.path}`, content: m.text, mode: "create", wait: true });
  });
  lap("plantMs", t);
  const planted = data.personas.reduce((n, p) => n + p.memories.length, 0);
  log(`planted ${planted} memories in ${(timings.plantMs / 1000).toFixed(1)} s`);
  }
  for (const p of data.personas) p.userScope ??= `viking://user/user-${p.tag}/memories`;

  // 2. recall
  t = performance.now();
  const records = [];
  const allQuestions = data.personas.flatMap((p) => p.questions.map((q) => ({ p, q })));
  let done = 0;
  await pool(allQuestions, CONCURRENCY, async ({ p, q }) => {
    records.push(await recallOne(p, q));
    if (++done % 40 === 0) log(`recall ${done}/${allQuestions.length}`);
  });
  lap("recallMs", t);
  const byId = new Map(records.map((r) => [r.id, r]));
  // what the lexical candidates cost a turn: the grep against the one find over both scopes,
  // one request at a time (nothing else running), alternating, over the first 40 searched
  // questions; medians
  if (!replay) {
    const probe = allQuestions.filter(({ q }) => byId.get(q.id)?.query).slice(0, 40);
    const ms = { find: [], grep: [] };
    for (const { p, q } of probe) {
      const query = byId.get(q.id).query;
      let s = performance.now();
      await ov(p.key, "POST", "/api/v1/search/find", { query, target_uri: [p.userScope, AGENT_SCOPE], limit: 2 * SEARCH_LIMIT, score_threshold: 0 });
      ms.find.push(performance.now() - s);
      const body = engine.lexicalGrep(query, p.userScope);
      if (!body) continue;
      s = performance.now();
      await ov(p.key, "POST", "/api/v1/search/grep", body);
      ms.grep.push(performance.now() - s);
    }
    const median = (a) => (a.length ? Math.round(a.slice().sort((x, y) => x - y)[a.length >> 1] * 10) / 10 : null);
    timings.findMedianMs = median(ms.find);
    timings.grepMedianMs = median(ms.grep);
    log(`one find ${timings.findMedianMs} ms, one grep ${timings.grepMedianMs} ms (medians of ${ms.find.length} and ${ms.grep.length}, one at a time)`);
  }

  mkdirSync(dirname(OUT), { recursive: true });
  if (!replay) writeFileSync(FINDS_OUT, JSON.stringify({ seed: SEED, context: CONTEXT, searchLimit: SEARCH_LIMIT, env: { version: env.version, embedder: env.embedder, embeddingDim: env.embeddingDim }, finds }));

  // 3. history
  if (!args["no-history"] && !replay) {
    t = performance.now();
    let turns = 0;
    await pool(data.personas, 4, async (p) => {
      p.ctx = await contextEngine(p);
      for (const s of p.sessions) {
        for (const turn of s.turns) {
          const out = await p.ctx.writeTurn({
            sessionId: s.id,
            advancementKey: turn.id,
            messages: [
              { role: "user", content: turn.user, timestamp: turn.ts },
              { role: "assistant", content: [{ type: "text", text: turn.assistant }], stopReason: "stop", timestamp: turn.ts + 30_000 },
            ],
          });
          if (out.status !== "committed") throw new Error(`writeTurn ${turn.id}: ${JSON.stringify(out)}`);
          turns++;
        }
      }
    });
    lap("historyWriteMs", t);
    log(`wrote ${turns} turns through ContextEngine.writeTurn in ${(timings.historyWriteMs / 1000).toFixed(1)} s`);
    const searchAll = async (key) => {
      for (const p of data.personas) {
        const index = bm25Index(p.sessions.flatMap((s) => s.turns.map((turn) => ({ id: turn.id, text: `${turn.user}\n${turn.assistant}` }))));
        for (const q of p.questions) {
          const r = byId.get(q.id);
          // 30: the R@k columns read the first 10; the rest is for studying fusion offline
          const answer = await p.ctx.runTool("memory_search_history", { query: q.text, limit: 30 });
          r.history ??= { bm25: historyScore(q, index.search(q.text, 10).map((h) => h.id)) };
          r.history[key] = historyScore(q, (answer.hits ?? []).map((h) => h.turnId), answer);
        }
      }
    };
    // before any commit: the words alone (no turn is archived, so none is embedded)
    t = performance.now();
    await searchAll("engineWords");
    lap("historyWordsSearchMs", t);
    // each session committed as the triggers would at its end: the archive's turns embedded
    t = performance.now();
    let commits = 0;
    await pool(data.personas, 4, async (p) => {
      for (const s of p.sessions) {
        const out = await p.ctx.runCommit({ ovSessionId: p.ctx.ovSessionId(s.id), forced: true, reason: "bench", waitMs: 300_000 });
        if (!out.compacted || !out.checkpoint) throw new Error(`commit of ${s.id}: ${JSON.stringify(out)}`);
        commits++;
      }
    });
    await queueDrained();
    lap("historyCommitMs", t);
    log(`committed ${commits} sessions and embedded their turns in ${(timings.historyCommitMs / 1000).toFixed(1)} s`);
    t = performance.now();
    await searchAll("engine");
    lap("historySearchMs", t);
    // the vectors alone: OpenViking's order of the embedded turns (the engine's folder, its
    // file names → turn ids)
    for (const p of data.personas) {
      const byName = new Map(p.sessions.flatMap((s) => s.turns.map((turn) => [`t-${createHash("sha256").update(turn.id).digest("hex").slice(0, 16)}.md`, turn.id])));
      const dir = `viking://user/${p.userId}/resources/openviking-context-engine/${AGENT_ID}/turns`;
      for (const q of p.questions) {
        const found = await ov(p.key, "POST", "/api/v1/search/find", { query: q.text, target_uri: dir, limit: 30, score_threshold: 0 });
        const items = (found?.resources ?? []).filter((x) => byName.has(x.uri.split("/").pop()));
        byId.get(q.id).history.vectors = { ...historyScore(q, items.map((x) => byName.get(x.uri.split("/").pop()))), scores: items.map((x) => x.score) };
      }
    }
  }

  // report
  records.sort((a, b) => (a.id < b.id ? -1 : 1));
  const summary = summarise(records, CATEGORIES);
  const endSha = sha256(readFileSync(wasmPath));
  timings.totalMs = Math.round(performance.now() - t0);
  const meta = {
    seed: SEED,
    context: CONTEXT,
    node: process.version,
    cpus: cpus().length,
    load: loadavg().map((x) => Number(x.toFixed(2))),
    openviking: env.version,
    embedder: `${env.embedder} (${env.embeddingDim} dims)`,
    wasm: { path: wasmPath, sha256: wasmSha, changedDuringRun: endSha !== wasmSha },
    config: pick(config, ["recallLimit", "recallScoreThreshold", "recallMaxContentChars", "recallPreferAbstract", "recallTokenBudget", "assembleRecallWindow"]),
    searchLimit: SEARCH_LIMIT,
    set: SET,
    dataset: SET === "personas" ? stats(data) : setStats(data),
    timings,
  };
  mkdirSync(dirname(OUT), { recursive: true });
  writeFileSync(OUT, JSON.stringify({ generatedAt: new Date().toISOString(), ...meta, summary, questions: records }, null, 1));
  if (args.json) {
    process.stdout.write(JSON.stringify({ ...meta, summary }, null, 2) + "\n");
  } else {
    printTables(summary, { ...meta, configGiven: Boolean(args.config) });
    console.log(`\nper-question records: ${OUT}`);
  }
  if (endSha !== wasmSha) log(`WARNING: ${wasmPath} changed during the run: rerun`);
  log(`done in ${(timings.totalMs / 1000).toFixed(1)} s (start ${fmtS(timings.startMs)}, plant ${fmtS(timings.plantMs)}, recall ${fmtS(timings.recallMs)}, history write ${fmtS(timings.historyWriteMs)}, history commits ${fmtS(timings.historyCommitMs)}, history search ${fmtS(timings.historySearchMs)})`);
} catch (err) {
  log(`FAILED: ${err.stack || err.message}`);
  process.exitCode = 1;
} finally {
  await stop();
}

// =============================================================================================
// One question through the finds, the engine and the baseline
// =============================================================================================
async function recallOne(p, q) {
  const nowMs = q.nowMs ?? NOW_MS;
  const messages = [...contextTurns(p, q), { role: "user", content: q.text, timestamp: nowMs }];
  const rec = { id: q.id, persona: q.persona, lang: q.lang, type: q.type, subtype: q.subtype, text: q.text, evidence: q.evidence, stale: q.stale ?? [] };
  const built = engine.buildRecallQuery({ messages });
  rec.query = built.query;
  // the intent of the question (src/recall/intent.rs); --no-intent measures the engine without it
  const intent = args["no-intent"] ? null : engine.recallIntent({ messages, nowMs });
  rec.intent = intent;
  const memOf = memoryIndex(p);
  const evidenceIds = new Set(q.evidence.flat());
  const staleIds = new Set(q.stale ?? []);
  if (!built.query || intent?.needsRecall === false) {
    rec.engine = score([], q, memOf);
    rec.engine.finds = 0;
    rec.candidates = { user: 0, agent: 0, leaves: 0 };
    if (!built.query) {
      rec.baseline = score([], q, memOf);
      return rec;
    }
  }
  const find = (scope, extra = {}) => ov(p.key, "POST", "/api/v1/search/find", { query: built.query, target_uri: scope, limit: SEARCH_LIMIT, score_threshold: 0, ...extra });
  // the baseline always searches both scopes whole (saved for --replay)
  let user, agent;
  if (replay) {
    const saved = replay.finds[q.id];
    if (!saved || saved.query !== built.query) die(`--replay: no saved find answers for ${q.id} with this query`);
    ({ user, agent } = saved);
  } else {
    [user, agent] = await Promise.all([find(p.userScope), find(AGENT_SCOPE)]);
    finds[q.id] = { query: built.query, user, agent };
  }
  const skipped = intent?.needsRecall === false;
  // the engine's finds as src/engine/read.rs sends them: the user scope (the intent's folder,
  // if it names one) and the agent scope in ONE find over both (twice the pool, split back by
  // uri space: recall::combined_find), or, when the intent names a window (since on
  // created_at, which would narrow the agent scope too), two finds; no memory in a narrowed
  // user scope → the whole scope again (a replay reuses the answers it saved)
  let engineUser = user;
  let engineAgent = agent;
  let findCount = 2;
  // --no-narrow: the engine given the whole scopes' finds (one find per question), the
  // intent's folder and window left to the ranking
  if (args["no-narrow"] && !skipped) findCount = 1;
  else if (!skipped) {
    const target = intent?.narrowedTo ? `${p.userScope}/${intent.narrowedTo}` : p.userScope;
    if (intent?.window) {
      const extra = { since: new Date(intent.window.startMs).toISOString(), time_field: "created_at" };
      if (replay) engineUser = replay.finds[q.id]?.narrowed ?? (args.pkg ? ((rec.replayApprox = true), user) : null);
      else {
        engineUser = await find(target, extra).catch((err) => (/NOT_FOUND/.test(err.message) ? null : Promise.reject(err)));
        finds[q.id].narrowed = engineUser;
      }
    } else {
      // a narrowed folder that does not exist fails the combined find (NOT_FOUND): the engine
      // then sends the two finds, the narrowed one failing the same way
      const notFound = (err) => (/NOT_FOUND/.test(err.message) ? null : Promise.reject(err));
      let combined;
      if (replay) {
        combined = replay.finds[q.id]?.combined;
        // another build (--pkg) may search a question this one did not, or whole where this
        // one narrowed: it gets both scopes' whole finds (the baseline's), marked approximate
        if (combined === undefined && args.pkg) {
          combined = { memories: [...(user?.memories ?? []), ...(agent?.memories ?? [])] };
          rec.replayApprox = true;
        }
        if (combined === undefined) die(`--replay: no saved combined find for ${q.id} (made before the one-find read path)`);
      } else {
        combined = await find([target, AGENT_SCOPE], { limit: 2 * SEARCH_LIMIT }).catch(notFound);
        finds[q.id].combined = combined;
      }
      if (combined) {
        ({ user: engineUser, agent: engineAgent } = splitCombined(combined, SEARCH_LIMIT));
        findCount = 1;
      } else {
        engineUser = null;
        findCount = 3;
      }
    }
    if (intent?.narrowedTo || intent?.window) {
      const hasMemory = (engineUser?.memories ?? []).some((it) => it.level === 2);
      rec.fellBack = !hasMemory;
      if (!hasMemory) engineUser = user, findCount++;
    }
  }
  const items = [...(user?.memories ?? []), ...(agent?.memories ?? [])];
  const leaves = [];
  const seen = new Set();
  for (const it of items) if (it.level === 2 && !seen.has(it.uri)) seen.add(it.uri), leaves.push(it);
  const byScore = leaves.slice().sort((a, b) => b.score - a.score); // stable: ties keep find's order
  rec.candidates = { user: user?.memories?.length ?? 0, agent: agent?.memories?.length ?? 0, leaves: leaves.length };
  const firstEvidence = byScore.findIndex((it) => evidenceIds.has(idOf(it.uri)));
  rec.evidenceInPool = firstEvidence >= 0;
  rec.evidenceScoreRank = firstEvidence >= 0 ? firstEvidence + 1 : null;
  rec.scores = { top: byScore[0]?.score ?? null, sixth: byScore[RECALL_LIMIT - 1]?.score ?? null, evidence: firstEvidence >= 0 ? byScore[firstEvidence].score : null, bestNonEvidence: byScore.find((it) => !evidenceIds.has(idOf(it.uri)))?.score ?? null };

  // the engine (a question it decided needs no recall was scored above: nothing injected)
  if (!skipped) {
    // the lexical candidates as src/engine/search.rs adds them: a grep for the query's words
    // over the user scope's target (not within a window), sent beside the find, its hits
    // fused into the user answer (saved for --replay)
    const narrow = !args["no-narrow"];
    const grepBody = narrow && intent?.window ? null : engine.lexicalGrep(built.query, narrow && intent?.narrowedTo ? `${p.userScope}/${intent.narrowedTo}` : p.userScope);
    if (grepBody) {
      let grepped;
      if (replay) {
        grepped = replay.finds[q.id]?.grep;
        if (grepped === undefined) die(`--replay: no saved grep for ${q.id} (made before lexical candidates)`);
      } else {
        grepped = await ov(p.key, "POST", "/api/v1/search/grep", grepBody).catch((err) => (/NOT_FOUND/.test(err.message) ? null : Promise.reject(err)));
        finds[q.id].grep = grepped;
      }
      if (grepped && engineUser) engineUser = engine.fuseLexical({ query: built.query, find: engineUser, grep: grepped, ...LEXICAL_KNOBS });
    }
    // when each found memory was written, as src/engine/read.rs adds it: the folders of the
    // found memories (the fullest first, at most 4) listed newest first, each item given its
    // `written_at` (saved for --replay)
    let times = replay ? replay.finds[q.id]?.written ?? {} : null;
    if (!times) {
      times = {};
      const folders = memoryFolders([engineUser, engineAgent], 4);
      const listed = await Promise.all(folders.map((f) => ov(p.key, "GET", `/api/v1/fs/ls?uri=${encodeURIComponent(f)}&output=original&sort_by=mtime&sort_order=desc&node_limit=1000`).catch(() => [])));
      for (const e of listed.flat()) if (!e.isDir && e.uri && Date.parse(e.modTime)) times[e.uri] = Date.parse(e.modTime);
      finds[q.id].written = times;
    }
    const stamp = (answer) => answer && { ...answer, memories: (answer.memories ?? []).map((it) => (times[it.uri] !== undefined ? { ...it, written_at: times[it.uri] } : it)) };
    engineUser = stamp(engineUser);
    engineAgent = stamp(engineAgent);
    const out = engine.autoRecall({ messages, search: { user: engineUser, agent: engineAgent }, nowMs, explain: true });
    const injectedUris = (out.recall?.memories ?? []).map((m) => m.uri);
    rec.engine = score(injectedUris, q, memOf);
    rec.engine.finds = findCount;
    rec.engine.tokens = tokensOf(out.messages) - tokensOf(messages);
    rec.engine.pairTokens = out.recall?.tokens ?? 0;
    rec.engine.legacyBlockTokens = legacyBlockTokens(out.recall?.memories ?? []);
    rec.engine.fates = Object.fromEntries(
      (out.recall?.explain ?? []).filter((e) => evidenceIds.has(idOf(e.uri)) || staleIds.has(idOf(e.uri))).map((e) => [idOf(e.uri), e.decision === "kept" ? `kept@${e.position}` : e.reason]),
    );
    rec.engine.rank = (out.recall?.explain ?? []).filter((e) => e.decision === "kept").map((e) => ({ id: idOf(e.uri), score: round(e.rank.score), lexical: round(e.rank.lexicalBoost), temporal: round(e.rank.temporalBoost), preference: round(e.rank.preferenceBoost), total: round(e.rank.total) }));
  }

  // the baseline: OpenViking's order
  const top = byScore.slice(0, RECALL_LIMIT);
  rec.baseline = score(top.map((it) => it.uri), q, memOf);
  rec.baseline.tokens = legacyBlockTokens(top.map((it) => ({ category: categoryOf(it.uri), content: it.abstract || it.overview || it.uri })));
  return rec;
}

/** The folders holding the answers' memories, the fullest first (src/recall/candidate.rs memory_folders). */
function memoryFolders(answers, max) {
  const count = new Map();
  for (const a of answers) for (const it of (Array.isArray(a) ? a : a?.memories) ?? []) {
    if (it.level !== 2 || typeof it.uri !== "string" || !it.uri.includes("/")) continue;
    const f = it.uri.slice(0, it.uri.lastIndexOf("/"));
    count.set(f, (count.get(f) ?? 0) + 1);
  }
  return [...count].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, max).map(([f]) => f);
}

/** One find over both scopes split back by uri space, each in the server's order, each cut to `limit` (src/recall/combined_find.rs: the agent's items from `memories` and `resources`, inside its own folder only). */
function splitCombined(answer, limit) {
  const items = Array.isArray(answer) ? answer : answer?.memories ?? [];
  const user = items.filter((it) => it.uri?.startsWith("viking://user/")).slice(0, limit);
  const agentItems = Array.isArray(answer) ? answer : [...items, ...(answer?.resources ?? [])];
  const agent = agentItems.filter((it) => it.uri?.startsWith(`${AGENT_SCOPE}/`)).slice(0, limit);
  return { user: { memories: user }, agent: { memories: agent } };
}

/** --context: N earlier turns of small talk before the question (deterministic per question). */
function contextTurns(p, q) {
  if (!CONTEXT) return [];
  const small = p.sessions.flatMap((s) => s.turns.filter((t) => !t.memoryIds.length));
  let h = 2166136261;
  for (const c of q.id) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
  const out = [];
  for (let i = 0; i < CONTEXT; i++) {
    const t = small[(h + i * 7) % small.length];
    const at = (q.nowMs ?? NOW_MS) - (CONTEXT - i) * 120_000;
    out.push({ role: "user", content: t.user, timestamp: at }, { role: "assistant", content: [{ type: "text", text: t.assistant }], stopReason: "stop", timestamp: at + 30_000 });
  }
  return out;
}

/** The metrics of one injected list. */
// The legacy plugin's injected text (shared/docs/legacy-recall-semantics.md, step 8).
function legacyBlockTokens(memories) {
  if (!memories.length) return 0;
  const lines = memories.map((m) => `- [${m.category || "memory"}] ${m.content}`);
  return pkg.estimateTokens(`<relevant-memories>\nThe following OpenViking memories may be relevant:\n${lines.join("\n")}\n</relevant-memories>`);
}

function memoryIndex(p) {
  if (!memIndexCache.has(p.tag)) memIndexCache.set(p.tag, new Map(p.memories.map((m) => [m.id, m])));
  return memIndexCache.get(p.tag);
}
function categoryOf(uri) {
  return /\/memories\/([^/]+)\//.exec(uri ?? "")?.[1] ?? "memory";
}

// =============================================================================================
// Plumbing
// =============================================================================================
async function contextEngine(p) {
  const { createStateStore } = await import(pathToFileURL(join(root, "js-glue", "state-store.js")).href);
  const { createEngineHost } = await import(pathToFileURL(join(root, "js-glue", "engine-host.js")).href);
  const stateDir = join(work, `state-${p.tag}`);
  const warnings = [];
  const store = createStateStore(stateDir, { warn: (m) => warnings.push(m) });
  const host = createEngineHost({ store, logger: { warn: (m) => warnings.push(m) } });
  const e = new pkg.ContextEngine({ mode: "remote", baseUrl: env.baseUrl, apiKey: p.key, agentId: AGENT_ID, timeoutMs: 60_000 }, {}, host);
  e.setUserId(p.userId);
  return e;
}

/** One OpenViking call; the envelope's result, or an error naming the endpoint. */
async function ov(key, method, path, body, timeoutMs = 120_000) {
  const res = await fetch(env.baseUrl + path, {
    method,
    headers: { "Content-Type": "application/json", "X-API-Key": key, "X-OpenViking-Agent": AGENT_ID },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${method} ${path}: HTTP ${res.status}, not JSON: ${text.slice(0, 200)}`);
  }
  if (!res.ok || json.status !== "ok") throw new Error(`${method} ${path}: HTTP ${res.status} ${JSON.stringify(json.error ?? json).slice(0, 300)}`);
  return json.result;
}

async function loadPkgDir(dir) {
  const mod = await import(pathToFileURL(join(dir, "openviking_context_engine.js")).href);
  mod.initSync({ module: readFileSync(join(dir, "openviking_context_engine_bg.wasm")) });
  return mod;
}

/** Waits until OpenViking's queues (the embeddings of the committed turns) are empty. */
async function queueDrained(timeoutMs = 600_000) {
  const until = Date.now() + timeoutMs;
  let quiet = 0;
  while (Date.now() < until) {
    const res = await fetch(env.baseUrl + "/api/v1/observer/queue", { headers: { "X-API-Key": env.rootKey } });
    const row = ((await res.json()).result?.status ?? "").split("\n").find((l) => /^\|\s*TOTAL\s*\|/.test(l));
    const [pending, running] = (row ?? "").split("|").slice(2, 4).map((c) => Number(c.trim()));
    quiet = row && pending === 0 && running === 0 ? quiet + 1 : 0;
    if (quiet >= 2) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error("OpenViking's queues did not drain");
}

async function pool(items, n, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, async () => {
    while (next < items.length) await fn(items[next++]);
  }));
}

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--")) die(`unexpected argument ${a}`);
    const k = a.slice(2);
    if (["json", "keep", "no-history", "no-intent", "no-narrow"].includes(k)) out[k] = true;
    else out[k] = argv[++i];
  }
  return out;
}
function die(m) {
  console.error(`quality: ${m}`);
  process.exit(2);
}
function sha256(b) {
  return createHash("sha256").update(b).digest("hex");
}
function pick(o, keys) {
  return Object.fromEntries(keys.filter((k) => o?.[k] !== undefined).map((k) => [k, o[k]]));
}
function fmtS(ms) {
  return ms === undefined ? "—" : `${(ms / 1000).toFixed(1)} s`;
}
