// The plugin in real OpenClaw 2026.7.35 turns (Node 24, `openclaw agent --local`, one process
// per turn), js-glue in the context-engine slot, a real OpenViking (remote mode) and the
// loopback fake model. 2026.7.35 is the newest release of the `afterTurn`-only generation
// (no `commitTurn`): with `ownsCompaction: true` it calls `afterTurn` from its tool loop
// before each model call (slices `[user]`, then `[assistant toolCall, toolResult]`) and once
// more at the end of the turn, with `prePromptMessageCount` at the last checkpoint — so the
// final slice can be just `[final answer]`. The checkpoints must write nothing and the
// finished turn must be written whole, from its opening user message.
//
// Five turns: a tool turn (the fake model calls `memory_recall`: two model calls) while
// OpenViking is killed (the session's first turn goes to the outbox); a plain one after the
// restart (the outbox replays); a tool turn with OpenViking up (the third counted turn: the
// engine's turn trigger starts an OpenViking commit); a plain one (its process follows the
// commit task to the checkpoint — on a one-process-per-turn host the first turn after a
// commit may or may not see the summary yet); then a question whose model request carries
// the engine's summary in place of the archived turns and the recall pair with the decision
// the commit extracted. Then the stored conversation (archives + live messages) holds every
// turn exactly once, in order, each as one user message and one assistant message (a tool
// turn's call and answer in the same assistant message, not split at the checkpoints), no
// synthetic recall pair, and the outbox is empty. Needs `.ci/install-tools.sh openclaw` and
// `… openviking` (~2 min on 2 cores). OV_E2E_KEEP=1 keeps the scratch dir.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeModel, textOf, recallToolScript } from "./fake-model.mjs";
import { openclawPaths, writeConfig, runTurn, scratchDir } from "./openclaw.mjs";
import { startHarness, harnessCommand } from "../../js-glue/test/openviking/helpers.mjs";
import { createClient } from "../inspect/client.js";
import { storedMessages as storedMessagesOf } from "../inspect/stored.js";
import { createStateStore } from "../../js-glue/state-store.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const VERSION = "2026.7.35";
const TURN_MS = 120_000;
const SESSION = "host735";
const OV_SESSION = `main--${SESSION}`;
const COMPACT_AFTER = 3; // compactTurnThreshold: the third counted turn commits

// Each user message carries a unique marker; "TOOL" makes the model call memory_recall first.
// The outage is not on the commit turn's eve: the turn after a restart replays the outbox in
// the background, and a commit due in that same process finds the replay in progress, is
// refused as "unreachable" and backs off, so the trigger only fires on a later turn.
const TURNS = [
  { marker: "H735-T1", text: "TOOL search memory for the pager escalation policy.", down: true },
  { marker: "H735-T2", text: "We decided to use Postgres 16 for the billing service." },
  { marker: "H735-T3", text: "TOOL look up what we decided for the billing database." },
  { marker: "H735-T4", text: "Note that the pager escalates after ten minutes.", afterCommit: true },
  { marker: "H735-T5", text: "Which database did we pick for billing?", continuity: true },
];
const ARCHIVED = TURNS.slice(0, 3).map((x) => x.marker);
const isTool = (turn) => turn.text.startsWith("TOOL");

let fm, dir, ov, client, stateDir;

const script = recallToolScript;
const harness = (cmd) => harnessCommand(ov, cmd);

before(async () => {
  openclawPaths(VERSION); // throws a clear "run .ci/install-tools.sh openclaw" when missing
  ov = await startHarness();
  fm = await startFakeModel({ script });
  dir = scratchDir("oc-host735-");
  stateDir = path.join(dir, "openviking-plugin-state");
  writeConfig({
    dir,
    modelUrl: `${fm.url}/v1`,
    plugin: {
      path: path.join(ROOT, "js-glue"),
      id: "openviking",
      config: {
        mode: "remote", baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, timeoutMs: 8000, hookFallback: false, stateDir,
        compactTurnThreshold: COMPACT_AFTER, recentRawTurnCount: 1,
      },
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

async function waitFor(fn, ms) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn().catch(() => null);
    if (v) return v;
    if (Date.now() > end) return null;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Every stored message of the session, oldest first (tests/inspect/stored.js). */
const storedMessages = () => storedMessagesOf(client, OV_SESSION);

/** One line per stored message: where, role, then each part (text head, or tool:name). */
function describe(messages) {
  return messages.map((m, i) => {
    const parts = (m.parts ?? []).map((p) => (p.type === "text" ? JSON.stringify((p.text ?? "").replace(/\s+/g, " ").slice(0, 70)) : `${p.type}:${p.tool_name ?? p.uri ?? ""}`));
    return `${String(i).padStart(2)} ${m.from} ${m.role}: ${parts.join(" | ")}`;
  });
}
const textOfParts = (m) => (m.parts ?? []).filter((p) => p.type === "text").map((p) => p.text ?? "").join("\n");
const hasRecallPair = (req) => req.body.messages.some((m) => (m.tool_calls ?? []).some((c) => c.function?.name === "memory_recall_auto"));

test(`OpenClaw ${VERSION} (afterTurn only, also from its tool loop): every turn stored once and whole, through an outage and a compaction`, { timeout: 300_000 }, async (t) => {
  const t0 = Date.now();
  let wasDown = false;
  const requestsOf = {};
  for (const turn of TURNS) {
    if (turn.down && !wasDown) { harness("kill-server"); wasDown = true; t.diagnostic("OpenViking killed"); }
    if (!turn.down && wasDown) { harness("restart-server"); wasDown = false; t.diagnostic("OpenViking restarted"); }
    if (turn.afterCommit) {
      // The previous turn (the last counted one the trigger needs) fired it; its process only starts
      // the commit, the next process's bootstrap follows the task to its checkpoint.
      const w0 = Date.now();
      const committed = await waitFor(async () => (await client.getSession(OV_SESSION)).commit_count >= 1, 30_000);
      assert.ok(committed, `counted turn ${COMPACT_AFTER} fired the turn trigger: an OpenViking commit`);
      const memory = await waitFor(async () => {
        const r = await client.find({ query: "billing database Postgres", targetUri: `viking://user/${ov.env.userId}/memories`, limit: 5, scoreThreshold: 0 });
        return (r.memories ?? []).some((m) => /postgres/i.test(`${m.abstract} ${m.uri}`));
      }, 60_000);
      assert.ok(memory, "the decision was extracted into long-term memory");
      t.diagnostic(`commit + memory extraction visible after ${Date.now() - w0} ms`);
    }
    const message = `${turn.marker} ${turn.text}`;
    const n0 = fm.requests.length;
    const r = await runTurn({ dir, sessionId: SESSION, message, timeoutMs: TURN_MS, version: VERSION });
    const reqs = fm.requests.slice(n0);
    requestsOf[turn.marker] = reqs;
    t.diagnostic(`turn ${turn.marker} exit=${r.code} wall=${r.ms}ms requests=${reqs.length}${turn.down ? " (OpenViking down)" : ""}`);
    for (const line of `${r.stdout}\n${r.stderr}`.split("\n").filter((l) => l.includes("[openviking]"))) t.diagnostic(`  ${line.slice(0, 300)}`);
    assert.equal(r.code, 0, `turn ${turn.marker}: exit ${r.code}; stderr tail:\n${r.stderr.slice(-3000)}`);
    assert.ok(reqs.length >= 1, `turn ${turn.marker} reached the model`);
    if (isTool(turn)) assert.ok(reqs.length >= 2, `turn ${turn.marker}: a tool loop (several model calls) happened`);
    const rec = await createStateStore(stateDir).loadState(`session/${OV_SESSION}`).catch(() => null);
    const summaryIn = reqs.filter((q) => q.body.messages.some((m) => m.role === "user" && textOf(m.content).includes("<conversation-summary"))).length;
    t.diagnostic(`  checkpoints recorded: ${rec?.checkpoints?.checkpoints?.length ?? "?"}; requests with the summary: ${summaryIn}/${reqs.length}; with the recall pair: ${reqs.filter(hasRecallPair).length}`);
  }

  // Continuity after the compaction: the question after the commit sees the engine's summary
  // of the archived turns (the first message, before the question) and the recall pair.
  const last = requestsOf[TURNS.find((x) => x.continuity).marker];
  for (const req of last) {
    const msgs = req.body.messages;
    const shape = `model request:\n${msgs.map((m) => `${m.role}: ${JSON.stringify(textOf(m.content).slice(0, 300))}${(m.tool_calls ?? []).map((c) => ` call:${c.function?.name}`).join("")}`).join("\n")}`;
    const sumIdx = msgs.findIndex((m) => m.role === "user" && textOf(m.content).includes("<conversation-summary"));
    assert.ok(sumIdx >= 0, `the model request after the compaction carries the engine's summary\n${shape}`);
    const askIdx = msgs.findIndex((m) => m.role === "user" && textOf(m.content).includes(TURNS.find((x) => x.continuity).marker));
    assert.ok(askIdx > sumIdx, "the summary comes before the current question");
    // (the summary and a recalled memory may quote archived turns; raw turns are user messages)
    const rawUsers = msgs.filter((m, i) => i !== sumIdx && m.role === "user").map((m) => textOf(m.content));
    for (const marker of ARCHIVED) assert.ok(!rawUsers.some((x) => x.includes(marker)), `archived turn ${marker} is not replayed raw (the summary stands for it)\n${shape}`);
    assert.ok(!msgs.some((m) => (m.tool_calls ?? []).some((c) => c.function?.name === "memory_recall")), `the archived tool turns' calls are not replayed raw\n${shape}`);
    assert.ok(rawUsers.some((x) => x.includes(TURNS.at(-2).marker)), `the newest prior turn stays raw (recentRawTurnCount 1)\n${shape}`);
    assert.equal(msgs.filter((m) => (m.tool_calls ?? []).some((c) => c.function?.name === "memory_recall_auto")).length, 1, "exactly one synthetic recall pair");
    const callIdx = msgs.findIndex((m) => (m.tool_calls ?? []).some((c) => c.function?.name === "memory_recall_auto"));
    assert.equal(msgs[callIdx + 1]?.role, "tool");
    assert.match(textOf(msgs[callIdx + 1].content), /postgres/i, "the recalled decision is in the synthetic tool result");
    assert.ok(callIdx < askIdx, "the recall pair sits before the current turn");
  }
  assert.ok(fm.requests.some(hasRecallPair), "the recall pair reached the model");

  const stored = await storedMessages();
  const dump = describe(stored);
  for (const line of dump) t.diagnostic(`  stored ${line}`);
  const seen = `OpenViking ${OV_SESSION} stored messages (archives, then live):\n${dump.join("\n")}`;
  assert.ok(stored.some((m) => m.from !== "live"), `the commit archived turns\n${seen}`);

  // Each user message exactly once, in the order of the turns.
  const userMarkers = stored
    .filter((m) => m.role === "user" && textOfParts(m).trim())
    .map((m) => TURNS.find((x) => textOfParts(m).includes(x.marker))?.marker ?? `? ${textOfParts(m).slice(0, 40)}`);
  assert.deepEqual(userMarkers, TURNS.map((x) => x.marker), `each user message stored exactly once, in order\n${seen}`);

  // Each turn is exactly [user, assistant]: the checkpoints wrote nothing, the finished turn
  // was written whole (a tool turn's call, result and answer in its one assistant message).
  assert.equal(stored.length, TURNS.length * 2, `two stored messages per turn\n${seen}`);
  TURNS.forEach((turn, i) => {
    const [u, a] = [stored[2 * i], stored[2 * i + 1]];
    assert.equal(u.role, "user", `${turn.marker} opens with its user message\n${seen}`);
    assert.ok(textOfParts(u).includes(turn.marker), `${turn.marker} in order\n${seen}`);
    assert.equal(a.role, "assistant", `${turn.marker}: one assistant message follows\n${seen}`);
    const tools = (a.parts ?? []).filter((p) => p.type === "tool").map((p) => p.tool_name);
    if (isTool(turn)) {
      assert.deepEqual(tools, ["memory_recall"], `${turn.marker}: the model's tool call in the turn's assistant message\n${seen}`);
      assert.equal(textOfParts(a).split("FAKE-TOOL-DONE").length - 1, 1, `${turn.marker}: the answer after the tool call, once, in the same message\n${seen}`);
    } else {
      assert.deepEqual(tools, [], `${turn.marker}: no tool part\n${seen}`);
      assert.equal(textOfParts(a).split(`FAKE-ANSWER: ${turn.marker}`).length - 1, 1, `${turn.marker}: its answer once\n${seen}`);
    }
  });
  const toolParts = stored.flatMap((m) => m.parts ?? []).filter((p) => p.type === "tool");
  assert.ok(!toolParts.some((p) => p.tool_name === "memory_recall_auto"), "the synthetic recall pair is never stored");

  const outbox = await createStateStore(stateDir).outboxRead(`outbox/${OV_SESSION}`);
  assert.equal(outbox.length, 0, `the outbox drained (left: ${JSON.stringify(outbox).slice(0, 500)})`);
  t.diagnostic(`wall ${Math.round((Date.now() - t0) / 1000)} s for ${TURNS.length} turns`);
});
