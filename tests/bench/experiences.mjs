#!/usr/bin/env node
// What experiences (agent evolution) cost and which ones a turn gets:
//
//   node tests/bench/experiences.mjs [--json]
//
// Twelve tasks (8 English, 4 Chinese), each with the experience OpenViking 0.5.2's agent
// evolution writes for it (the stand-in's shape: `## Situation / ## Approach "Call <tools> in
// this order" / ## Reflect`, tests/openviking/standin.py). Every turn gets the same two
// memories and all twelve experiences as candidates, scored by a bag-of-words cosine mapped
// as OpenViking 0.5.2 maps its cosine, (1 + cos) / 2 — so an unrelated experience scores about
// 0.5, above the 0.15 threshold, as it would with a real embedding: the engine's match rules
// (same tools, a shared query word) decide, not the score. Three kinds of turn per task:
//   recurrence — the task asked again in other words ("please …", "帮我 …");
//   tool loop  — a short follow-up ("go on") after the turn called the task's first tool;
//   unrelated  — a request for work on nothing any experience covers.
// Through the wasm core (`Engine.assemble`, default config, recallTokenBudget 2000): the share
// of turns whose own experience was injected, the other experiences injected per turn, the
// tokens the experience lines add (`recall.experienceTokens`) and whether the memories were
// the same as without experiences (the budget rule: memories keep their place).
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { loadPackage } = await import(resolve(root, "tests", "support", "packages.mjs"));
const { Engine } = await loadPackage("page"); // the pure pipeline is the tuning page's

const TASKS = [
  ["deploy_billing_service", "Please deploy the billing service to staging and check its health.", ["exec", "web_fetch"], "Roll the billing service out to staging again, please.", true],
  ["rotate_nginx_logs", "Please rotate the nginx logs on the web host.", ["exec"], "Can you rotate the nginx logs once more?", true],
  ["draft_release_notes", "Please draft the release notes for the next version.", ["read", "exec", "write"], "Could you write release notes for 2.5?", true],
  ["backup_orders_database", "Please back up the orders database before the migration.", ["exec", "read"], "Help me take a backup of the orders database.", true],
  ["summarize_incident_report", "Please summarize the incident report in the docs folder.", ["read"], "Can you summarize the latest incident report?", true],
  ["triage_failing_tests", "Please triage the failing tests in the CI run.", ["exec", "read"], "Help me triage failing tests from last night's CI.", true],
  ["book_meeting_room", "Please book a meeting room for Thursday afternoon.", ["calendar_search", "calendar_book"], "Can you book a room for the planning meeting?", true],
  ["update_dependency_versions", "Please update the dependency versions in the web app.", ["exec", "write"], "Could you bump the dependency versions of the web app?", true],
  ["部署账单服务", "帮我把账单服务部署到预发环境并检查健康状态。", ["exec", "web_fetch"], "请再把账单服务部署到预发环境。", false],
  ["整理周报", "帮我整理本周的周报。", ["read", "write"], "请帮我写这周的周报。", false],
  ["备份订单数据库", "请备份订单数据库。", ["exec"], "帮我备份一下订单数据库。", false],
  ["翻译产品文档", "请把产品文档翻译成英文。", ["read", "write"], "帮我翻译产品文档。", false],
];
const UNRELATED = ["Please write a short poem about autumn leaves.", "Can you explain the rules of chess to me?", "帮我想一个生日派对的主题。"];

const words = (t) => {
  const out = new Map();
  const lower = t.toLowerCase();
  for (const w of lower.match(/[a-z0-9]+/g) ?? []) if (w.length > 2) out.set(w, (out.get(w) ?? 0) + 1);
  const cjk = [...lower].filter((c) => /[\u4e00-\u9fff]/.test(c));
  for (let i = 0; i + 1 < cjk.length; i++) out.set(cjk[i] + cjk[i + 1], (out.get(cjk[i] + cjk[i + 1]) ?? 0) + 1);
  return out;
};
const cosine = (a, b) => {
  let dot = 0, na = 0, nb = 0;
  for (const [k, v] of a) { na += v * v; if (b.has(k)) dot += v * b.get(k); }
  for (const v of b.values()) nb += v * v;
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
};

function experienceText([, request, tools, , en]) {
  const situation = en ? request.replace(/^(please|can you|could you|help me)\s+/i, "").replace(/[.?!]$/, "") : request.replace(/^(帮我|请)/, "");
  const reflect = tools.length > 1 ? `- NEVER call ${tools[1]} before ${tools[0]} succeeded` : "- NEVER skip reporting the result";
  return `## Situation\n- The user asks to ${situation}\n## Approach\n- Call ${tools.join(" then ")} in this order\n- Report the result to the user\n## Reflect\n${reflect}`;
}
const EXPERIENCES = TASKS.map((t) => ({ uri: `viking://user/alice/memories/experiences/${t[0]}.md`, content: experienceText(t) }));
const MEMORIES = [
  { uri: "viking://user/alice/memories/preferences/reports.md", level: 2, score: 0.62, abstract: "Prefers short bullet-point reports", category: "preferences" },
  { uri: "viking://user/alice/memories/entities/staging.md", level: 2, score: 0.6, abstract: "The staging cluster is called blue-2", category: "entities" },
];

function turnOf(kind, task, i) {
  const t0 = 1764000000000 + i * 1000;
  if (kind === "recurrence") return { prompt: task[3], messages: [{ role: "user", content: task[3], timestamp: t0 }] };
  if (kind === "unrelated") { const q = UNRELATED[i % UNRELATED.length]; return { prompt: q, messages: [{ role: "user", content: q, timestamp: t0 }] }; }
  const go = task[4] ? "Go on." : "继续。";
  return {
    prompt: go,
    messages: [
      { role: "user", content: task[1], timestamp: t0 },
      { role: "assistant", timestamp: t0 + 1, content: [{ type: "toolCall", id: `c${i}`, name: task[2][0], arguments: {} }] },
      { role: "toolResult", toolCallId: `c${i}`, toolName: task[2][0], isError: false, timestamp: t0 + 2, content: [{ type: "text", text: "done" }] },
      { role: "user", content: go, timestamp: t0 + 3 },
    ],
  };
}

const engine = new Engine({ agentId: "main" });
const rows = {};
for (const kind of ["recurrence", "tool loop", "unrelated"]) {
  const r = (rows[kind] = { turns: 0, own: 0, others: 0, withAny: 0, tokens: 0, injected: 0, memoriesSame: 0 });
  TASKS.forEach((task, i) => {
    const turn = turnOf(kind, task, i);
    const q = words(`${turn.messages.filter((m) => m.role === "user").map((m) => m.content).join(" ")} ${turn.messages.flatMap((m) => Array.isArray(m.content) ? m.content.filter((p) => p.type === "toolCall").map((p) => p.name) : []).join(" ")}`);
    const experiences = EXPERIENCES.map((e) => ({ ...e, score: (1 + cosine(q, words(e.content))) / 2 }));
    const base = { ...turn, search: { user: { memories: MEMORIES }, agent: { memories: [] } }, nowMs: 1764000000000, tokenBudget: 100000 };
    const withExp = engine.assemble({ ...base, experiences });
    const without = engine.assemble(base);
    const kept = (withExp.recall?.experiences ?? []).filter((x) => x.decision === "kept");
    r.turns++;
    if (kept.some((x) => x.name === task[0])) r.own++;
    r.others += kept.filter((x) => x.name !== task[0]).length;
    if (kept.length) r.withAny++;
    r.injected += kept.length;
    if (process.env.DEBUG && kind === "unrelated") for (const x of kept) console.error(kind, JSON.stringify(turn.prompt), x.name, x.why);
    r.tokens += withExp.recall?.experienceTokens ?? 0;
    const uris = (o) => JSON.stringify((o.recall?.memories ?? []).map((m) => m.uri));
    if (uris(withExp) === uris(without)) r.memoriesSame++;
  });
}

const pct = (a, b) => (b ? `${((100 * a) / b).toFixed(0)} %` : "—");
if (process.argv.includes("--json")) {
  console.log(JSON.stringify(rows, null, 2));
} else {
  console.log("| turn | turns | own experience injected | other experiences per turn | turns with any | experience tokens per turn (per injected) | memories unchanged |");
  console.log("|---|---|---|---|---|---|---|");
  for (const [kind, r] of Object.entries(rows)) {
    const per = r.injected ? (r.tokens / r.injected).toFixed(1) : "—";
    console.log(`| ${kind} | ${r.turns} | ${pct(r.own, r.turns)} | ${(r.others / r.turns).toFixed(2)} | ${pct(r.withAny, r.turns)} | ${(r.tokens / r.turns).toFixed(1)} (${per}) | ${pct(r.memoriesSame, r.turns)} |`);
  }
}
