// The plugin in real OpenClaw 2026.9.2 turns (Node 24, `openclaw agent --local`, one process
// per turn), js-glue in the context-engine slot, a real OpenViking (remote mode) and the
// loopback fake model. 2026.9.2 is the host generation that calls BOTH lifecycle methods:
// with `ownsCompaction: true` it calls `afterTurn` before every model call of a turn (its
// tool-loop hook: the new user message, later the tool round, never the final answer), and
// `commitTurn` once with the whole accepted turn under its `advancementKey`. Each turn must
// still be stored exactly once. Five turns, OpenViking killed for the middle two (their
// turns go to the outbox and are replayed after the restart), two of them with a tool call
// (several model calls in one turn); then every user message is in the OpenViking session's
// live messages exactly once and in order, every answer and tool call once, and the outbox
// is empty. Needs `.ci/install-tools.sh openclaw` and `… openviking` (~1.5 min on 2 cores).
// OV_E2E_KEEP=1 keeps the scratch dir.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeModel, recallToolScript } from "./fake-model.mjs";
import { openclawPaths, writeConfig, runTurn, scratchDir } from "./openclaw.mjs";
import { startHarness, harnessCommand } from "../../js-glue/test/openviking/helpers.mjs";
import { createClient } from "../inspect/client.js";
import { createStateStore } from "../../js-glue/state-store.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const VERSION = "2026.9.2";
const TURN_MS = 120_000;
const SESSION = "host92";
const OV_SESSION = `main--${SESSION}`;

// Each user message carries a unique marker; "TOOL" makes the model call memory_recall first.
const TURNS = [
  { marker: "H92-T1", text: "We decided to use Postgres 16 for the billing service." },
  { marker: "H92-T2", text: "TOOL look up what we decided for the billing database." },
  { marker: "H92-T3", text: "Note that the pager escalates after ten minutes.", down: true },
  { marker: "H92-T4", text: "TOOL search memory for the pager policy.", down: true },
  { marker: "H92-T5", text: "And weekends are covered by the secondary." },
];
const TOOL_TURNS = TURNS.filter((x) => x.text.startsWith("TOOL")).length;

let fm, dir, ov, client, stateDir;

const script = recallToolScript;
const harness = (cmd) => harnessCommand(ov, cmd);

before(async () => {
  openclawPaths(VERSION); // throws a clear "run .ci/install-tools.sh openclaw" when missing
  ov = await startHarness();
  fm = await startFakeModel({ script });
  dir = scratchDir("oc-host92-");
  stateDir = path.join(dir, "openviking-plugin-state");
  writeConfig({
    dir,
    modelUrl: `${fm.url}/v1`,
    plugin: {
      path: path.join(ROOT, "js-glue"),
      id: "openviking",
      // no trigger fires within five turns: every stored message stays live
      config: { mode: "remote", baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, timeoutMs: 5000, compactTurnThreshold: 1000, hookFallback: false, stateDir },
    },
  });
  client = createClient({ baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, agentId: "main" });
});

after(async () => {
  await fm?.close?.();
  await ov?.stop();
  if (dir && !process.env.OV_E2E_KEEP) fs.rmSync(dir, { recursive: true, force: true });
  else if (dir) console.log(`# kept ${dir}`);
});

/** One line per stored message: role, then each part (text head, or tool:name). */
function describe(messages) {
  return messages.map((m, i) => {
    const parts = (m.parts ?? []).map((p) => (p.type === "text" ? JSON.stringify((p.text ?? "").replace(/\s+/g, " ").slice(0, 70)) : `${p.type}:${p.tool_name ?? p.uri ?? ""}`));
    return `${String(i).padStart(2)} ${m.role}: ${parts.join(" | ")}`;
  });
}
const textOfParts = (m) => (m.parts ?? []).filter((p) => p.type === "text").map((p) => p.text ?? "").join("\n");

test(`OpenClaw ${VERSION} (afterTurn in the tool loop + commitTurn): every turn stored exactly once, through an OpenViking outage`, { timeout: 420_000 }, async (t) => {
  const t0 = Date.now();
  let wasDown = false;
  for (const turn of TURNS) {
    if (turn.down && !wasDown) { harness("kill-server"); wasDown = true; t.diagnostic("OpenViking killed"); }
    if (!turn.down && wasDown) { harness("restart-server"); wasDown = false; t.diagnostic("OpenViking restarted"); }
    const message = `${turn.marker} ${turn.text}`;
    const n0 = fm.requests.length;
    const r = await runTurn({ dir, sessionId: SESSION, message, timeoutMs: TURN_MS, version: VERSION });
    const reqs = fm.requests.slice(n0);
    t.diagnostic(`turn ${turn.marker} exit=${r.code} wall=${r.ms}ms requests=${reqs.length}${turn.down ? " (OpenViking down)" : ""}`);
    for (const line of `${r.stdout}\n${r.stderr}`.split("\n").filter((l) => l.includes("[openviking]"))) t.diagnostic(`  ${line.slice(0, 300)}`);
    assert.equal(r.code, 0, `turn ${turn.marker}: exit ${r.code}; stderr tail:\n${r.stderr.slice(-3000)}`);
    if (turn.text.startsWith("TOOL")) assert.ok(reqs.length >= 2, `turn ${turn.marker}: a tool loop (several model calls) happened`);
  }

  const ctx = await client.sessionContext(OV_SESSION, { tokenBudget: 1_000_000 });
  const live = ctx.messages ?? [];
  const dump = describe(live);
  for (const line of dump) t.diagnostic(`  live ${line}`);
  const seen = `OpenViking ${OV_SESSION} live messages:\n${dump.join("\n")}`;

  // The claim: each user message exactly once, in the order of the turns.
  const userMarkers = live
    .filter((m) => m.role === "user" && textOfParts(m).trim())
    .map((m) => TURNS.find((x) => textOfParts(m).includes(x.marker))?.marker ?? `? ${textOfParts(m).slice(0, 40)}`);
  assert.deepEqual(userMarkers, TURNS.map((x) => x.marker), `each user message stored exactly once, in order\n${seen}`);

  // The rest of each turn once too: every answer, every tool call of the tool loops.
  const assistantText = live.filter((m) => m.role === "assistant").map(textOfParts).join("\n");
  for (const turn of TURNS.filter((x) => !x.text.startsWith("TOOL"))) {
    assert.equal(assistantText.split(`FAKE-ANSWER: ${turn.marker}`).length - 1, 1, `the answer to ${turn.marker} stored once\n${seen}`);
  }
  assert.equal(assistantText.split("FAKE-TOOL-DONE").length - 1, TOOL_TURNS, `each tool turn's final answer stored once\n${seen}`);
  const toolParts = live.flatMap((m) => m.parts ?? []).filter((p) => p.type === "tool");
  assert.equal(toolParts.filter((p) => p.tool_name === "memory_recall").length, TOOL_TURNS, `each model tool call stored once\n${seen}`);
  assert.ok(!toolParts.some((p) => p.tool_name === "memory_recall_auto"), "the synthetic recall pair is never stored");

  const outbox = await createStateStore(stateDir).outboxRead(`outbox/${OV_SESSION}`);
  assert.equal(outbox.length, 0, `the outbox drained (left: ${JSON.stringify(outbox).slice(0, 500)})`);
  t.diagnostic(`wall ${Math.round((Date.now() - t0) / 1000)} s for ${TURNS.length} turns`);
});
