// Tool experience in real turns: OpenClaw 2026.9.6 (`openclaw agent
// --local`, one process per turn) with js-glue in the context-engine slot, a real OpenViking
// 0.5.2 with agent evolution switched on through its admin API, the loopback stand-in
// answering the trajectory and experience extraction, and the fake model.
//
// Session "first": the user asks for a task; the scripted model calls OpenClaw's `read` tool
// on the deploy notes, then answers. The turn trigger (compactTurnThreshold 1) commits it and
// OpenViking extracts a case, a trajectory (the read call) and an experience. Session
// "again" asks for the same task: the model's first request already carries the experience,
// as a `- [experience] …` line of the memory_recall_auto result, and `trace --json` names why
// it was included and its tokens. Prints `# experiences: …`. OV_E2E_KEEP=1 keeps the dirs.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeModel, lastQuestion, endsWithToolResult, textOf } from "./fake-model.mjs";
import { writeConfig, runTurn, runCli, scratchDir } from "./openclaw.mjs";
import { startHarness } from "../../js-glue/test/openviking/helpers.mjs";
import { createClient } from "../inspect/client.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const TURN_MS = 150_000;
const TASK = "Please read the deploy notes and summarize the deploy steps for me.";
let fm, ov, client, dir;

// The task makes the model read the notes once, then answer; anything else is acknowledged.
function script(req) {
  if (!lastQuestion(req).includes("deploy notes")) return { text: "Noted." };
  if (!endsWithToolResult(req.messages)) return { toolCalls: [{ name: "read", arguments: { path: "deploy-notes.txt" } }] };
  const last = req.messages.filter((m) => m.role === "tool").at(-1);
  return { text: `Deploy steps: ${textOf(last?.content).slice(0, 120)}` };
}

before(async () => {
  ov = await startHarness();
  client = createClient({ baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, agentId: "main", timeoutMs: 60000 });
  const on = await client.patchAccountConfiguration(ov.env.accountId, { agent_evolution: { enabled: true } });
  assert.equal(on.settings.agent_evolution.enabled, true, "agent evolution switched on");
  fm = await startFakeModel({ script });
  dir = scratchDir("oc-experiences-");
  writeConfig({
    dir, modelUrl: `${fm.url}/v1`,
    plugin: {
      path: path.join(ROOT, "js-glue"), id: "openviking",
      config: {
        mode: "remote", baseUrl: ov.env.baseUrl, apiKey: ov.env.userKey, timeoutMs: 15000, hookFallback: false,
        stateDir: path.join(dir, "plugin-state"), compactTurnThreshold: 1, compactTokensAddedThreshold: 10_000_000,
      },
    },
  });
  fs.writeFileSync(path.join(dir, "workspace", "deploy-notes.txt"), "1. export KUBECONFIG first 2. make deploy ENV=staging 3. check /health\n");
});
after(async () => {
  await fm?.close?.();
  await ov?.stop();
  if (dir && process.env.OV_E2E_KEEP === "1") console.log(`# kept ${dir}`);
  else if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

async function turn(t, sessionId, message) {
  const n0 = fm.requests.length;
  const r = await runTurn({ dir, sessionId, message, timeoutMs: TURN_MS });
  const reqs = fm.requests.slice(n0);
  t.diagnostic(`turn ${sessionId} exit=${r.code} wall=${r.ms}ms requests=${reqs.length}`);
  assert.equal(r.code, 0, `exit ${r.code}; stderr tail:\n${r.stderr.slice(-3000)}`);
  return { ...r, reqs };
}

/** The memory_recall_auto result text in one model request ("" when there is none). */
function recallText(req) {
  const msgs = req?.body?.messages ?? [];
  const call = msgs.flatMap((m) => m.tool_calls ?? []).find((c) => c.function?.name === "memory_recall_auto");
  const res = call && msgs.find((m) => m.role === "tool" && m.tool_call_id === call.id);
  return textOf(res?.content ?? "");
}

async function waitFor(fn, ms) {
  for (const end = Date.now() + ms; ;) {
    const v = await fn().catch(() => null);
    if (v || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

test("a tool-using task recurs: the second time, the experience OpenViking extracted is in the model's request", { timeout: 900_000 }, async (t) => {
  const first = await turn(t, "first", TASK);
  assert.equal(first.reqs.length, 2, "the read call, then the answer");
  assert.ok(!recallText(first.reqs[0]).includes("[experience]"), "nothing learned yet");

  // the turn trigger committed the session; OpenViking's agent evolution writes the experience
  const root = `viking://user/${ov.env.userId}/memories/experiences`;
  const files = await waitFor(async () => {
    const list = (await client.ls(root)).filter((e) => !e.isDir && e.name.endsWith(".md") && !e.name.startsWith("."));
    return list.length ? list : null;
  }, 180_000);
  assert.ok(files, "an experience was extracted from the read trajectory");
  const raw = await client.readRaw(files[0].uri);
  assert.match(raw, /Call read in this order/, "derived from the turn's tool call");
  assert.match(raw, /derived_from/);
  t.diagnostic(`experience ${files[0].name}`);

  const again = await turn(t, "again", TASK);
  const text = recallText(again.reqs[0]);
  const line = text.split("\n").find((l) => l.startsWith("- [experience] "));
  assert.ok(line, `the first request of the recurring task carries the experience: ${text}`);
  assert.match(line, /## Approach - Call read in this order/);
  assert.ok(!/Task Signature|- Domain: tool use/.test(text), `no case or trajectory as a memory line: ${text}`);
  console.log(`# experiences: ${line.slice(0, 160)}`);

  // the trace names why it was included and what it cost
  const tr = await runCli({ dir, args: ["openviking", "trace", "--json"] });
  assert.equal(tr.code, 0, tr.stderr.slice(-2000));
  assert.equal(tr.json?.ovSessionId, "main--again", "the session assembled last");
  const trace = tr.json.trace;
  const rec = trace.recall?.experiences?.find((x) => x.decision === "kept");
  assert.ok(rec && rec.tokens > 0 && rec.why.some((w) => w.startsWith("same_task:")), JSON.stringify(trace.recall?.experiences));
  assert.ok(trace.recall.experienceTokens > 0);
  console.log(`# experiences: why ${JSON.stringify(rec.why)}, ${rec.tokens} tokens of ${trace.recall.tokens} in the pair`);
});
