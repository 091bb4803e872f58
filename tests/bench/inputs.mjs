// Deterministic inputs shared by the benchmarks (no engine, no I/O): import, don't copy.
//
//   recallTurns(n)      eight recall turns at n OpenViking `find` hits per scope (two scopes),
//                       each a 40-message conversation with the current user turn last and its
//                       own result order; used by recall-legacy.mjs and scale.mjs.
//   assembleSession(n)  an n-turn transcript (user, every third turn a tool call + result,
//                       assistant); used by assemble-scale.mjs and scale.mjs.
//
// recallTurns' inputs: seeded PRNG. Per size N, each scope gets N find hits shaped like
// OpenViking 0.5 `find` items (uri under viking://user/<id>/memories/<category>/ or
// viking://agent/memories/<category>/, level, score, abstract, overview, category,
// context_type, match_reason, relations): ~1 in 9 a level-0/1 directory hit (repeating the
// directory uri), ~3 % exact duplicate uris, ~8 % near-duplicates (case/whitespace variants,
// the same text under another category or in the other scope, light rewordings), ~2 % with an
// empty abstract (full text supplied as `contents`), ~15 % Chinese. Each of the eight turns'
// queries gets its own result order (hits sharing the query's words score higher, scores decay
// with rank as a search engine's do).

export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const V = {
  service: ["orders", "billing", "search", "auth", "notifications", "payments", "inventory", "analytics", "checkout", "ledger"],
  db: ["Postgres 16", "MySQL 8", "Redis 7", "ClickHouse", "MongoDB 7", "DynamoDB"],
  env: ["staging", "production", "dev", "eu-west staging", "the load-test cluster"],
  person: ["Alice", "Bob", "Chen Wei", "Priya", "Marco", "Yuki", "Fatima", "Lars"],
  tool: ["Neovim", "VS Code", "IntelliJ", "tmux", "Docker", "Podman", "Helm", "Terraform", "Argo Rollouts", "k9s"],
  theme: ["dark", "solarized dark", "high-contrast", "light", "gruvbox"],
  drink: ["flat white", "espresso", "oolong tea", "matcha latte", "cold brew"],
  strategy: ["blue-green with Argo Rollouts", "canary releases at 5/25/100 %", "rolling updates with a 2-pod surge", "feature flags behind LaunchDarkly"],
  failure: ["timed out acquiring a pooled connection", "ran out of memory during the nightly backfill", "lost its leader after a network partition", "returned 502s behind the ingress", "filled its disk with WAL files"],
  fix: ["raising the pool max from 10 to 40", "adding a composite index on (user_id, created_at)", "moving the backfill to a separate worker pool", "pinning the client library to 2.3.1", "turning on WAL archiving to S3"],
  month: ["January", "February", "March", "April", "May", "June", "September", "October"],
  lang: ["Rust", "TypeScript", "Go", "Python", "Kotlin"],
  kafka: ["7 days", "72 hours", "30 days with tiered storage", "14 days"],
};
const ZH = {
  service: ["订单", "支付", "搜索", "库存", "账单"],
  person: ["王伟", "李娜", "张敏", "陈杰"],
  time: ["凌晨低峰期", "周五下午", "每周一上午", "发版窗口"],
};

const TEMPLATES = {
  preferences: [
    (p) => `User prefers ${p(V.theme)} editor themes and ${12 + Math.floor(p() * 8)}px fonts in ${p(V.tool)}`,
    (p) => `User likes ${p(V.drink)} in the morning, no sugar`,
    (p) => `Prefers ${p(V.tool)} over ${p(V.tool)} for day-to-day work on the ${p(V.service)} service`,
    (p) => `User prefers concise answers with code first, explanations after, in ${p(V.lang)}`,
    (p) => `Favorite language for services is ${p(V.lang)}; avoids ${p(V.lang)} for anything long-running`,
    (p) => `用户偏好在${p(ZH.time)}执行${p(ZH.service)}数据库变更`,
    (p) => `用户喜欢先看结论再看细节，回答尽量简短`,
  ],
  entities: [
    (p) => `The ${p(V.service)} service runs on ${p(V.db)} with ${1 + Math.floor(p() * 3)} read replicas in ${p(V.env)}`,
    (p) => `${p(V.person)} owns the ${p(V.service)} service and reviews its on-call runbook`,
    (p) => `The ${p(V.service)} connection pool is sized at ${[10, 20, 40, 64][Math.floor(p() * 4)]} per pod on ${p(V.env)}`,
    (p) => `Kafka topic ${p(V.service)}-events keeps ${p(V.kafka)} of retention`,
    (p) => `${p(V.service)} deploys go through ${p(V.strategy)}`,
    (p) => `${p(ZH.service)}服务在${["测试", "生产", "预发"][Math.floor(p() * 3)]}环境的连接池大小为 ${[16, 32, 64][Math.floor(p() * 3)]}`,
    (p) => `${p(ZH.person)} 负责${p(ZH.service)}服务的值班交接`,
  ],
  events: [
    (p) => `In ${p(V.month)} the team decided to move ${p(V.service)} deploys to ${p(V.strategy)}`,
    (p) => `Incident in ${p(V.month)}: the ${p(V.service)} service ${p(V.failure)}; fixed by ${p(V.fix)}`,
    (p) => `${p(V.person)} took over the ${p(V.service)} on-call rotation on a Monday in ${p(V.month)}`,
    (p) => `Last ${p(V.month)} we agreed to set Kafka retention for ${p(V.service)} events to ${p(V.kafka)}`,
    (p) => `${p(V.month)}: migrated ${p(V.service)} from ${p(V.db)} to ${p(V.db)}`,
    (p) => `上个月${p(ZH.service)}服务慢查询优化：给 ${p(V.service)} 表加联合索引`,
  ],
  cases: [
    (p) => `When ${p(V.service)} ${p(V.failure)}, ${p(V.fix)} fixed it`,
    (p) => `Case: the user asked why ${p(V.service)} was slow on ${p(V.env)}; the answer was ${p(V.fix)}`,
    (p) => `Debugging ${p(V.service)} on ${p(V.env)}: check the pool metrics in Grafana before restarting pods`,
    (p) => `排查${p(ZH.service)}服务超时：先看连接池指标，再看慢查询日志`,
  ],
  patterns: [
    (p) => `For ${p(V.service)} questions, answer with the runbook link and the exact kubectl command`,
    (p) => `The user wants ${p(V.lang)} examples with tests when asking about ${p(V.service)}`,
    (p) => `Before changing ${p(V.db)} settings, confirm the maintenance window with ${p(V.person)}`,
  ],
};
const DIR_ABSTRACT = {
  preferences: "The user's preferences: editors, themes, fonts, drinks, how answers should look",
  entities: "People, services, databases and environments the user works with",
  events: "Decisions, incidents and migrations, with dates",
  cases: "Problems the agent solved before and what fixed them",
  patterns: "How this agent should answer this user",
};

// The eight turns: the current user input (last message) and the words a search would score on.
export const TURNS = [
  { q: "What database did we pick for the orders service, and what is its connection pool size on staging?", kw: ["orders", "pool", "postgres", "mysql", "staging", "database"] },
  { q: "Which editor theme and font size do I prefer for long coding sessions?", kw: ["theme", "font", "editor", "prefer"] },
  { q: "When is the next on-call handoff for the billing service and who takes it?", kw: ["on-call", "billing", "handoff", "took over"] },
  { q: "之前给我的订单服务慢查询优化建议是什么？", kw: ["订单", "慢查询", "索引", "orders"] },
  { q: "Any update on how we roll out the payments service with Argo Rollouts?", kw: ["payments", "argo", "blue-green", "canary", "deploys"] },
  { q: "What did we decide last month about the Kafka retention for analytics events?", kw: ["kafka", "retention", "analytics"] },
  { q: "I like my coffee a certain way, do you remember how?", kw: ["flat white", "espresso", "coffee", "likes", "drink"] },
  { q: "Can you summarise the incident on the auth service and what fixed it?", kw: ["incident", "auth", "fixed", "timed out"] },
];
const HISTORY_USER = [
  "hey",
  "Can you help me plan the migration of the ledger service to the new cluster?",
  "What are the risks with the current replication setup?",
  "ok, and how long would the cutover take?",
  "/status",
  "Let's write the runbook for it. Start with the pre-checks.",
  "Add a rollback section too.",
  "thanks",
  "Which metrics should we alert on during the cutover?",
  "Can you turn that into a Grafana dashboard JSON?",
  "The p99 panel is wrong, it should use histogram_quantile.",
  "Looks better now.",
  "Now a short summary for the team channel please.",
  "Make it a bit more formal.",
  "ok",
  "Can you check why the nightly backup job on staging failed?",
  "It says 'pg_dump: error: connection to server lost'. Any idea?",
  "thanks, that works",
  "Great, the backup runs again.",
];

function conversation(current, rnd) {
  const messages = [];
  let ts = 1764000000000;
  HISTORY_USER.forEach((u, i) => {
    messages.push({ role: "user", content: i % 3 === 0 ? u : [{ type: "text", text: u }], timestamp: (ts += 60000) });
    if (i === 15) {
      messages.push({ role: "assistant", content: [{ type: "text", text: "Let me look at the job log." }, { type: "toolCall", id: `call_${i}`, name: "exec", arguments: { command: "kubectl -n staging logs job/nightly-backup --tail=80" } }], stopReason: "toolUse", timestamp: (ts += 2000) });
      messages.push({ role: "toolResult", toolCallId: `call_${i}`, toolName: "exec", content: [{ type: "text", text: "pg_dump: error: connection to server at \"10.0.3.12\", port 5432 failed: server closed the connection unexpectedly\n".repeat(6) }], isError: false, timestamp: (ts += 3000) });
    }
    const words = 40 + Math.floor(rnd() * 120);
    const reply = Array.from({ length: words }, () => ["the", "cutover", "replica", "lag", "we", "should", "check", "backup", "pool", "and", "then", "rollback", "if", "metrics", "alert", "window"][Math.floor(rnd() * 16)]).join(" ");
    messages.push({ role: "assistant", content: [{ type: "text", text: reply[0].toUpperCase() + reply.slice(1) + "." }], stopReason: "stop", timestamp: (ts += 5000) });
  });
  messages.push({ role: "user", content: current, timestamp: (ts += 60000) });
  return messages;
}

const recallCache = new Map();
/**
 * Eight turns at `n` hits per scope, each with its own search results; deterministic.
 * Each: `{ perScope, turn, request, alignedRequest, search }` — `request` is what
 * `Engine.autoRecall` takes (`{messages, search, contents, nowMs}`); `alignedRequest` carries
 * only the current user turn.
 */
export function recallTurns(n) {
  if (recallCache.has(n)) return recallCache.get(n);
  const rnd = mulberry32(0x5eed0000 + n);
  const p = (arr) => (arr ? arr[Math.floor(rnd() * arr.length)] : rnd());
  const hex = () => Math.floor(rnd() * 0xffffffff).toString(16).padStart(8, "0");
  const contents = {};
  const scopeItems = (base, cats) => {
    const items = [];
    const leaves = [];
    for (let i = 0; i < n; i++) {
      const r = rnd();
      const cat = p(cats);
      if (r < 0.11) {
        const level = rnd() < 0.5 ? 0 : 1;
        items.push({ context_type: "memory", uri: `${base}/${cat}`, level, abstract: DIR_ABSTRACT[cat], overview: level === 1 ? `# ${cat}\n\n${DIR_ABSTRACT[cat]}.\n\n- ${leaves.slice(-4).map((l) => l.abstract).join("\n- ")}` : null, category: "", match_reason: "", relations: [] });
      } else if (r < 0.14 && leaves.length) {
        items.push({ ...p(leaves) }); // the same memory again
      } else if (r < 0.22 && leaves.length) {
        const src = p(leaves);
        const kind = Math.floor(rnd() * 3);
        const abstract = kind === 0 ? `  ${src.abstract.replace(/ /, "  ").toLowerCase()} ` : kind === 1 ? src.abstract : src.abstract.replace(/ (is|the|on) /, " $1 now ");
        const category = kind === 1 ? p(cats.filter((c) => c !== src.category)) ?? src.category : src.category;
        const leaf = { context_type: "memory", uri: `${base}/${category}/mem_${hex()}.md`, level: 2, abstract, overview: null, category, match_reason: "", relations: [] };
        items.push(leaf);
        leaves.push(leaf);
      } else {
        const abstract = rnd() < 0.02 ? "" : p(TEMPLATES[cat])(p);
        const leaf = { context_type: "memory", uri: `${base}/${cat}/mem_${hex()}.md`, level: 2, abstract, overview: rnd() < 0.3 ? `${abstract}\n\nDetails: noted during a conversation about the ${p(V.service)} service.` : null, category: cat, match_reason: "", relations: [] };
        if (!abstract) contents[leaf.uri] = `Full text of a memory without an abstract: the ${p(V.service)} service uses ${p(V.db)} on ${p(V.env)}.`;
        items.push(leaf);
        leaves.push(leaf);
      }
    }
    return items;
  };
  const user = scopeItems(`viking://user/8f2c1e7a/memories`, ["preferences", "entities", "events"]);
  const agent = scopeItems(`viking://agent/memories`, ["cases", "patterns"]);
  // a few cross-scope near-duplicates: an agent hit repeating a user memory's text
  for (let k = 0; k < Math.max(1, Math.floor(n / 50)); k++) {
    const src = user[Math.floor(rnd() * user.length)];
    if (src.level === 2 && src.abstract) agent[Math.floor(rnd() * agent.length)] = { ...src, uri: `viking://agent/memories/cases/mem_${hex()}.md`, category: "cases" };
  }
  const order = (items, kw) => {
    // relevance: query words in the text, plus noise; scores decay with rank like a search engine's
    const scored = items.map((it, i) => {
      const t = `${it.uri} ${it.abstract}`.toLowerCase();
      return { it, i, rel: kw.filter((k) => t.includes(k.toLowerCase())).length + rnd() * 1.6 };
    });
    scored.sort((a, b) => b.rel - a.rel || a.i - b.i);
    return scored.map(({ it }, pos) => ({ ...it, score: Math.min(0.99, Math.max(0.01, 0.86 / (1 + pos / 22) + (rnd() - 0.5) * 0.03)) }));
  };
  const out = TURNS.map((t, turn) => {
    const search = {
      user: { memories: order(user, t.kw), resources: [], skills: [], total: n },
      agent: { memories: order(agent, t.kw), resources: [], skills: [], total: n },
    };
    const messages = conversation(t.q, mulberry32(0xc0ffee + turn));
    const request = { messages, search, contents, nowMs: 1764003600000 };
    // aligned: only the current turn, so both pipelines rank against the same query text
    const alignedReq = { messages: [messages[messages.length - 1]], search, contents, nowMs: 1764003600000 };
    return { perScope: n, turn, request, alignedRequest: alignedReq, search };
  });
  recallCache.set(n, out);
  return out;
}

/** An `n`-turn transcript: user; every third turn an exec tool call and its result; assistant. */
export function assembleSession(n) {
  const messages = [];
  for (let i = 0; i < n; i++) {
    messages.push({ role: "user", content: `Turn ${i}: what about the staging pool and the deploy canary?`, timestamp: 1764000000000 + i });
    if (i % 3 === 0) {
      messages.push({ role: "assistant", content: [{ type: "toolCall", id: `c${i}`, name: "exec", arguments: { command: `grep -rn pool config/ # ${i}` } }], timestamp: 1764000000000 + i });
      messages.push({ role: "toolResult", toolCallId: `c${i}`, toolName: "exec", content: [{ type: "text", text: `config/db.yml:3: pool: ${10 + (i % 5)}` }], isError: false, timestamp: 1764000000000 + i });
    }
    messages.push({ role: "assistant", content: [{ type: "text", text: `Answer ${i}: ${"a detailed explanation with steps. ".repeat(6)}` }], timestamp: 1764000000000 + i });
  }
  return messages;
}
