#!/usr/bin/env node
// Which skills a turn gets listed, and what they cost:
//
//   node tests/bench/skills.mjs [--json] [--config JSON]   (e.g. '{"recallRequireQueryWord":false}')
//
// Twelve skills (8 English, 4 Chinese), named and described the way OpenClaw skills are
// (`SKILL.md` front matter: a kebab-case name, a one-sentence description), half under the
// user's skills and half under the account's agent skills. OpenViking 0.5.2's skill search
// ranks every skill for any query, so every turn gets all twelve as candidates, scored by a
// bag-of-words cosine mapped as OpenViking maps its cosine, (1 + cos) / 2: an unrelated skill
// scores about 0.5, as it would with a real embedding, and the engine's rules decide (a shared
// query word, `skillLimit`, the recall budget). Three kinds of turn per skill:
//   task      — a request the skill covers, in the user's words, not the skill's;
//   follow-up — "go on" after that request (the recall window still holds it);
//   paraphrase — the request in words the skill's name and description do not use (what the
//               shared-word rule costs: with a real embedding the search would rank it first);
//   unrelated — a request for work no skill covers, or small talk.
// Through the wasm core (`Engine.assemble`, default config): the share of turns whose own
// skill was listed, the other skills listed per turn, the tokens of the section
// (`split.skills`) and whether the memories were the same as without skills.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { loadPackage } = await import(resolve(root, "tests", "support", "packages.mjs"));
const { Engine } = await loadPackage("page"); // the pure pipeline is the tuning page's

// [name, description, a request in the user's words, English?, the same request sharing no word
// with the name or description]
const SKILLS = [
  ["release-notes", "Draft release notes from the git log between two tags", "Could you write up the release notes for version 2.5?", true, "What changed since the last version? Put it together for our customers."],
  ["deploy-staging", "Deploy a service to the staging cluster with kubectl and check its health", "Please deploy the billing service to staging.", true, "Ship the new build of billing to the test environment."],
  ["pdf-extract", "Extract text and tables from PDF files", "Pull the tables out of this PDF invoice for me.", true, "Get the numbers out of the scanned invoice document."],
  ["db-backup", "Back up a Postgres database with pg_dump before a migration", "Take a backup of the orders database first, please.", true, "Make a dump of the orders data before we change the schema."],
  ["weather", "Get the current weather and the forecast for a city", "What's the weather forecast for Lisbon tomorrow?", true, "Will it rain in Lisbon tomorrow?"],
  ["calendar-booking", "Find free slots and book meeting rooms in the team calendar", "Book a meeting room for Thursday afternoon.", true, "Find us a room for the planning meeting."],
  ["image-resize", "Resize, crop and convert images with ImageMagick", "Can you resize these screenshots to 800 pixels wide?", true, "Make these screenshots smaller."],
  ["github-issues", "Search, create and label GitHub issues for a repository", "Open a GitHub issue about the login timeout bug.", true, "File a bug about the login timeout on our repo."],
  ["周报生成", "根据本周的提交记录和会议纪要生成周报", "帮我写一下这周的周报。", false, "把这周做的事情总结一下发给老板。"],
  ["合同审阅", "审阅合同条款并标出风险", "请帮我看看这份合同有没有风险条款。", false, "这份协议里有没有对我们不利的地方？"],
  ["数据库备份", "用 pg_dump 备份数据库", "帮我备份一下订单数据库。", false, "改表之前先把订单数据导出存一份。"],
  ["文档翻译", "把中文产品文档翻译成英文", "请把产品文档翻译成英文。", false, "产品说明要出英文版。"],
];
const UNRELATED = [
  "Thanks, that's all for today.",
  "Can you explain the rules of chess to me?",
  "What did I say my sister's name was?",
  "Please write a short poem about autumn leaves.",
  "帮我想一个生日派对的主题。",
  "我上周说过喜欢什么茶？",
];

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

const USER = "alice";
const skillRoot = ([name], i) => (i % 2 ? `viking://agent/skills/${name}` : `viking://user/${USER}/skills/${name}`);
const MEMORIES = [
  { uri: `viking://user/${USER}/memories/preferences/reports.md`, level: 2, score: 0.62, abstract: "Prefers short bullet-point reports", category: "preferences" },
  { uri: `viking://user/${USER}/memories/entities/staging.md`, level: 2, score: 0.6, abstract: "The staging cluster is called blue-2", category: "entities" },
];

function turnOf(kind, skill, i) {
  const t0 = 1764000000000 + i * 1000;
  const user = (content, at) => ({ role: "user", content, timestamp: at });
  if (kind === "task") return { prompt: skill[2], messages: [user(skill[2], t0)] };
  if (kind === "paraphrase") return { prompt: skill[4], messages: [user(skill[4], t0)] };
  if (kind === "unrelated") { const q = UNRELATED[i % UNRELATED.length]; return { prompt: q, messages: [user(q, t0)] }; }
  const go = skill[3] ? "Go on." : "继续。";
  return { prompt: go, messages: [user(skill[2], t0), { role: "assistant", timestamp: t0 + 1, content: "On it." }, user(go, t0 + 2)] };
}

const at = process.argv.indexOf("--config");
const engine = new Engine({ agentId: "main", ...(at > 0 ? JSON.parse(process.argv[at + 1]) : {}) });
const rows = {};
for (const kind of ["task", "follow-up", "paraphrase", "unrelated"]) {
  const r = (rows[kind] = { turns: 0, own: 0, others: 0, withAny: 0, tokens: 0, listed: 0, memoriesSame: 0 });
  SKILLS.forEach((skill, i) => {
    const turn = turnOf(kind, skill, i);
    const q = words(turn.messages.filter((m) => m.role === "user").map((m) => m.content).join(" "));
    const skills = SKILLS.map((s, j) => ({ name: s[0], description: s[1], root_uri: skillRoot(s, j), uri: `${skillRoot(s, j)}/SKILL.md`, score: (1 + cosine(q, words(`${s[0].replace(/-/g, " ")} ${s[1]}`))) / 2 }));
    const base = { ...turn, userId: USER, search: { user: { memories: MEMORIES }, agent: { memories: [] } }, nowMs: 1764000000000, tokenBudget: 100000 };
    const withSkills = engine.assemble({ ...base, skills });
    const without = engine.assemble(base);
    const listed = withSkills.skills ?? [];
    r.turns++;
    if (listed.some((x) => x.name === skill[0])) r.own++;
    r.others += listed.filter((x) => x.name !== skill[0]).length;
    if (listed.length) r.withAny++;
    r.listed += listed.length;
    if (process.env.DEBUG) for (const x of listed) if (x.name !== skill[0] || kind === "unrelated") console.error(kind, JSON.stringify(turn.prompt), x.name);
    r.tokens += withSkills.split?.skills ?? 0;
    const uris = (o) => JSON.stringify((o.recall?.memories ?? []).map((m) => m.uri));
    if (uris(withSkills) === uris(without)) r.memoriesSame++;
  });
}

const pct = (a, b) => (b ? `${((100 * a) / b).toFixed(0)} %` : "—");
if (process.argv.includes("--json")) {
  console.log(JSON.stringify(rows, null, 2));
} else {
  console.log("| turn | turns | own skill listed | other skills per turn | turns with any | section tokens per turn (per listed skill, header shared) | memories unchanged |");
  console.log("|---|---|---|---|---|---|---|");
  for (const [kind, r] of Object.entries(rows)) {
    const per = r.listed ? (r.tokens / r.listed).toFixed(1) : "—";
    console.log(`| ${kind} | ${r.turns} | ${kind === "unrelated" ? "—" : pct(r.own, r.turns)} | ${(r.others / r.turns).toFixed(2)} | ${pct(r.withAny, r.turns)} | ${(r.tokens / r.turns).toFixed(1)} (${per}) | ${pct(r.memoriesSame, r.turns)} |`);
  }
}
