#!/usr/bin/env node
// Generates samples/en-large-output.json, the demo's transcript with a big tool output: the
// staging session of samples/en.json (same user, same search results), where the agent read a
// ~36k-token export log with OpenClaw's `read` tool and then a ~2.5k-token config file. With the
// default largeToolResultTokens (20000) the log reaches the model as a stand-in; lower the
// threshold and the config file is one too; raise it above the log and the log turn no longer
// fits the 24000-token budget. Deterministic: the same file on every run (a browser test
// checks the committed file against largeOutputSample()).
//
//   node www-demo/samples/large-output.mjs        (rewrites samples/en-large-output.json)
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const here = (name) => fileURLToPath(new URL(name, import.meta.url));
export const OUTPUT = here("en-large-output.json");

export const LOG_PATH = "/var/log/ledgerline/export-2026-11-30.log";
export const LOG_LINES = 4000;
/** The line of the log that matters, in the middle. */
export const LOG_ERROR_LINE = 2417;
export const LOG_ERROR = "02417 ERROR export batch 118 timed out after 30000 ms (pool exhausted: 10/10 connections busy)";

/** The export log: 4000 lines, one error in the middle. */
export function exportLog() {
  const lines = [];
  for (let i = 1; i <= LOG_LINES; i++) {
    const n = String(i).padStart(5, "0");
    lines.push(i === LOG_ERROR_LINE ? LOG_ERROR : `${n} INFO export chunk ok`);
  }
  return lines.join("\n");
}

/** config/database.yml of the ledgerline repo: pool settings and a tenant list. */
export function databaseYml() {
  const lines = [
    "# ledgerline database settings (staging)",
    "default: &default",
    "  adapter: postgresql",
    "  pool: 10            # PG_POOL_MAX",
    "  statement_timeout: 30000",
    "  lock_timeout: 5000",
    "  idle_in_transaction_session_timeout: 60000",
    "staging:",
    "  <<: *default",
    "  host: ledgerline-staging.cluster-ro.internal",
    "  database: ledgerline",
    "  tenants:",
  ];
  for (let i = 1; i <= 120; i++) lines.push(`    - { id: tenant-${String(i).padStart(3, "0")}, schema: t${i}, export: nightly, batch_rows: 500 }`);
  return lines.join("\n");
}

const T0 = 1795252800000; // 2026-11-30 08:00 UTC

export function largeOutputSample() {
  const en = JSON.parse(readFileSync(here("en.json"), "utf8"));
  const assistant = (content, at, stopReason = "stop") => ({
    role: "assistant", content, api: "openai-completions", provider: "openai", model: "gpt-5", stopReason, timestamp: at,
  });
  const messages = [
    { role: "user", content: [{ type: "text", text: `The nightly invoice export on staging took four hours last night. Can you read ${LOG_PATH} and tell me what happened?` }], timestamp: T0 },
    assistant([{ type: "toolCall", id: "call_read_log", name: "read", arguments: { path: LOG_PATH } }], T0 + 2100, "toolUse"),
    { role: "toolResult", toolCallId: "call_read_log", toolName: "read", content: [{ type: "text", text: exportLog() }], isError: false, timestamp: T0 + 2400 },
    assistant([{ type: "text", text: "The export ran 200 batches. Batch 118 timed out after 30 s because all 10 pool connections were busy; the retry queue then serialised the remaining batches, which is where the four hours went." }], T0 + 9800),
    { role: "user", content: [{ type: "text", text: "What does the pool config look like in config/database.yml?" }], timestamp: T0 + 60000 },
    assistant([{ type: "toolCall", id: "call_read_config", name: "read", arguments: { path: "config/database.yml" } }], T0 + 61500, "toolUse"),
    { role: "toolResult", toolCallId: "call_read_config", toolName: "read", content: [{ type: "text", text: databaseYml() }], isError: false, timestamp: T0 + 61700 },
    assistant([{ type: "text", text: "The shared pool is 10 connections (pool: 10), with a 30 s statement timeout and a 5 s lock timeout; 120 tenants export nightly in batches of 500 rows." }], T0 + 66000),
    { role: "user", content: [{ type: "text", text: "OK. Let's not touch the shared pool before the backfill window ends." }], timestamp: T0 + 120000 },
    assistant([{ type: "text", text: "Agreed: no change to the shared pool until the backfill window is over." }], T0 + 123000),
  ];
  return {
    name: "A big tool output (English)",
    description: `The staging session of the first sample the morning after: the agent read a ${LOG_LINES}-line export log (about 36,000 tokens) with OpenClaw's read tool, then a 2,500-token config file. Above largeToolResultTokens an output of an earlier turn reaches the model as a stand-in (tool, size, head and tail, a reference for memory_read_output); try the threshold.`,
    userId: en.userId,
    agentId: en.agentId,
    tokenBudget: 24000,
    prompt: "Before I change anything: which export batch failed last night, and how long did it wait before timing out?",
    messages,
    search: en.search,
    contents: en.contents,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(OUTPUT, `${JSON.stringify(largeOutputSample(), null, 2)}\n`);
  console.log(`wrote ${OUTPUT}`);
}
