#!/usr/bin/env node
// assemble() latency on a realistic session against a real OpenViking (started here with
// the loopback stand-in): OpenViking time (both scopes' find, in parallel) vs engine time
// (query + pipeline + composition through wasm, marshalling included), over 40 assembles of
// a 40-turn session with a compaction summary; and the tokens injected. Median and p99.
//
//   node tests/bench/assemble-latency.mjs
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startHarness } from "../../js-glue/test/openviking/helpers.mjs";
import { createClient } from "../inspect/client.js";
import { loadPackage } from "../support/packages.mjs";
import { searchScopes } from "../../js-glue/plugin/recall.js";

const h = await startHarness();
const stateDir = mkdtempSync(join(tmpdir(), "ove-lat-"));
try {
  const { Engine, estimateMessageTokens } = await loadPackage("page");
  const client = createClient({ baseUrl: h.env.baseUrl, apiKey: h.env.userKey, agentId: "main" });
  const facts = [
    "Prefers a dark editor theme", "Decided to keep the staging pool at 10 connections", "Slow queries on orders are fixed by an index on (user_id, created_at)",
    "Deploys use blue-green with a 10 percent canary", "The billing service runs on Postgres 16", "On-call rotation changes on Mondays",
    "Prefers short answers with code examples", "Backups run nightly at 02:00 UTC", "The API uses cursor pagination", "Redis holds the session cache",
  ];
  for (const [i, f] of facts.entries()) {
    await client.writeContent({ uri: `viking://user/${h.env.userId}/memories/preferences/fact-${i}.md`, content: f, mode: "create", wait: true });
  }
  const config = { recallLimit: 6 };
  const engine = new Engine(config, {});
  const runtime = { config: { ...engine.config }, recall: engine };
  const agent = { client, identity: async () => h.env.userId, agentId: "main" };
  const messages = [];
  for (let i = 0; i < 40; i++) {
    messages.push({ role: "user", content: `Turn ${i}: what about ${facts[i % facts.length].toLowerCase()}?`, timestamp: 1764000000000 + i });
    messages.push({ role: "assistant", content: [{ type: "text", text: `Answer ${i}: ${"here is a detailed explanation with steps. ".repeat(8)}` }], timestamp: 1764000000000 + i });
  }
  const summaries = [{ checkpointId: "ckpt-1", archiveUri: "viking://user/u/sessions/main--s/history/archive_001", startSequence: 0, endSequence: 29, text: "# Working Memory\n\n## Current State\nTuning the staging database.\n\n## Open Issues\n- confirm the canary size" }];
  const prompts = ["which database does billing use?", "how do we deploy?", "what theme do I like?", "when do backups run?"];
  const ovTimes = [];
  const engineTimes = [];
  let injected = [];
  for (let i = 0; i < 44; i++) {
    const prompt = prompts[i % prompts.length];
    const q = engine.buildRecallQuery({ prompt, messages }).query;
    const t0 = performance.now();
    const { search } = await searchScopes(runtime, agent, q);
    const t1 = performance.now();
    const out = engine.assemble({ prompt, messages, search, nowMs: Date.now(), tokenBudget: 100000, summaries, nextSequence: 40 });
    const t2 = performance.now();
    if (i >= 4) {
      ovTimes.push(t1 - t0);
      engineTimes.push(t2 - t1);
      injected.push({ recall: out.recall?.tokens ?? 0, total: out.estimatedTokens, summary: out.summarizedTurns, memories: out.recall?.memories.length ?? 0 });
    }
  }
  const stat = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return `median ${s[Math.floor(s.length / 2)].toFixed(2)} ms, p99 ${s[Math.min(s.length - 1, Math.floor(0.99 * s.length))].toFixed(2)} ms`;
  };
  const avg = (k) => (injected.reduce((a, b) => a + b[k], 0) / injected.length).toFixed(0);
  console.log(`assemble over ${ovTimes.length} turns of a 40-turn session (30 turns summarized):`);
  console.log(`  OpenViking (two finds in parallel): ${stat(ovTimes)}`);
  console.log(`  engine (query, pipeline, composition, marshalling): ${stat(engineTimes)}`);
  console.log(`  injected: ${avg("memories")} memories, ${avg("recall")} recall tokens (budget ${engine.config.recallTokenBudget}); whole context ${avg("total")} tokens; raw history would be ${estimateMessageTokens(messages).reduce((a, b) => a + b, 0)} tokens`);
} finally {
  await h.stop();
  rmSync(stateDir, { recursive: true, force: true });
}
