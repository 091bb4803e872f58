#!/usr/bin/env node
// The recall-quality benchmark's data: a deterministic generator — a seeded
// PRNG over the templates in content-en.mjs and content-zh.mjs, no downloaded data. Four
// personas (English work + life, Chinese work + life), each:
//
//   memories     what OpenViking would hold about the user, one file each (`<type>/<id>.md`,
//                type = entities | preferences | events): facts about entities (a service's
//                database, a relative's city …), the user's preferences, decisions that a later
//                session revises (each step dated, e.g. "On March 2, 2026 the team switched
//                the session cache from Redis to Memcached."), dated events, and distractors
//                (the same words about other things, other topics). A fact is stated 1–5
//                times in different words (near-duplicates: 3–5 variants for ~45 % of facts),
//                each variant its own memory, as repeated extraction leaves them.
//   conversation 7–10 sessions of 8–15 turns (user + assistant), a session every ~9 days from
//                early 2026; each memory is stated in one user turn (the variants of a fact in
//                the same or later sessions, a decision's steps in increasing sessions), the
//                rest of the turns are small talk and tasks.
//   questions    with evidence labels: single-hop (one fact), multi-hop (two facts chained,
//                e.g. "Where is the owner of the billing service based?"), temporal (when did X
//                happen / switch, what was used before, what changed), decision ("what did we
//                decide for X": only the LATEST step is evidence; the earlier steps are listed
//                as `stale`), and unrelated (nothing stored is about it: the right recall is
//                nothing).
//
// Evidence: `evidence` is a list of groups of memory ids; a group is one fact needed for the
// answer and any of its variants answers it. Hit = at least one group reached the model; all =
// every group did (differs only for multi-hop and "what changed"). `evidenceTurns` is the same
// in turn ids (the turns that stated the memories), for the history search.
//
//   import { generate } from "./generate.mjs";  generate({ seed }) → { seed, personas: [...] }
//   node tests/bench/quality/generate.mjs [--seed N] [--stats] [--dump FILE] [--sample N]
//
// Spec format (content-*.mjs): entities {kind: {pool, pick}}; attributes [{key, of (an entity
// kind or "user"), type, values (a list, or {entity: kind}), unique, variants [(entity, value)
// → memory text | [memory text, what the user says]], ask [(entity) → question]}] — an
// attribute of "user" has `facets`, each its own preference; multihop [{from (an entity kind,
// or "value:<attr>"), hops (attribute keys, "~key" to go from a value back to its entity),
// ask}]; decisions [{key, topic, options}] (+ decisionText to override the language's; its
// templates, like the distractors, may give [memory text, what the user says]);
// events [{key, type, count, vars, variants [(vars, date)], ask {when, what}}]; distractors
// [(r) → text]; filler [[user, assistant]]; unrelated (a question pool's name).

import { writeFileSync } from "node:fs";
import { mulberry32 } from "../inputs.mjs";
import { WORK_EN, LIFE_EN, UNRELATED_EN } from "./content-en.mjs";
import { WORK_ZH, LIFE_ZH, UNRELATED_ZH } from "./content-zh.mjs";

export const DEFAULT_SEED = 22;
const POOLS = { UNRELATED_EN, UNRELATED_ZH };
export const PERSONAS = [
  { tag: "en1", spec: WORK_EN },
  { tag: "en2", spec: LIFE_EN },
  { tag: "zh1", spec: WORK_ZH },
  { tag: "zh2", spec: LIFE_ZH },
];
/** Questions per type and persona (decision: one per decision topic). */
export const QUESTIONS_PER_PERSONA = { single: 32, multi: 14, temporal: 14, decision: 8, unrelated: 12 };
export const TYPES = ["single", "multi", "temporal", "decision", "unrelated"];
const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 5, 9, 0, 0); // Monday 5 January 2026, 09:00 UTC

class Rng {
  constructor(seed) {
    this.next = mulberry32(seed);
  }
  int(lo, hi) {
    return lo + Math.floor(this.next() * (hi - lo + 1)); // inclusive
  }
  pick(arr) {
    return arr[Math.floor(this.next() * arr.length)];
  }
  shuffle(arr) {
    const a = arr.slice();
    for (let i = a.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [a[i], a[j]] = [a[j], a[i]];
    }
    return a;
  }
  sample(arr, n) {
    return this.shuffle(arr).slice(0, n);
  }
  chance(p) {
    return this.next() < p;
  }
  /** How many times a fact is stated: 1 (40 %), 2 (15 %), 3 (20 %), 4 (15 %), 5 (10 %). */
  variants(max) {
    const x = this.next();
    const n = x < 0.4 ? 1 : x < 0.55 ? 2 : x < 0.75 ? 3 : x < 0.9 ? 4 : 5;
    return Math.min(n, max);
  }
}

function hashString(s) {
  let h = 2166136261;
  for (const c of s) h = Math.imul(h ^ c.codePointAt(0), 16777619) >>> 0;
  return h;
}

/** The whole data set (deterministic in `seed`). */
export function generate({ seed = DEFAULT_SEED } = {}) {
  return { seed, personas: PERSONAS.map(({ tag, spec }) => persona(tag, spec, new Rng((seed * 7919) ^ hashString(spec.id)))) };
}

function persona(tag, spec, rng) {
  const L = spec.lang;
  const sessions = rng.int(7, 10);
  const offset = rng.int(0, 4);
  const sessionDates = Array.from({ length: sessions }, (_, i) => new Date(START + (offset + i * 9 + rng.int(0, 3)) * DAY));
  const facts = []; // {key, kind, type, texts: [[mem, say]], sessions: [idx per variant], date?, meta}
  const byKey = new Map();
  const addFact = (f) => {
    facts.push(f);
    byKey.set(f.key, f);
    return f;
  };
  const toPair = (x) => (Array.isArray(x) ? x : [x, null]);

  // entities
  const entities = { user: ["user"] };
  for (const [kind, { pool, pick }] of Object.entries(spec.entities)) entities[kind] = rng.sample(pool, pick);

  // attribute facts (+ the user's preferences as facets)
  const attrs = [];
  for (const a of spec.attributes) {
    if (a.facets) a.facets.forEach((f, i) => attrs.push({ ...f, key: `${a.key}${i}`, of: a.of, type: a.type, unique: false }));
    else attrs.push(a);
  }
  for (const a of attrs) {
    const holders = entities[a.of];
    const values = Array.isArray(a.values) ? a.values : entities[a.values.entity];
    const chosen = a.unique ? rng.sample(values, holders.length) : holders.map(() => rng.pick(values));
    holders.forEach((e, i) => {
      if (chosen[i] === undefined) return; // fewer unique values than holders
      const n = rng.variants(a.variants.length);
      const texts = rng.sample(a.variants, n).map((v) => toPair(v(e, chosen[i])));
      const first = rng.int(0, sessions - 1);
      addFact({ key: `${a.key}:${e}`, kind: a.of === "user" ? "preference" : "fact", type: a.type, attr: a.key, entity: e, value: chosen[i], texts, sessions: texts.map((_, k) => (k === 0 ? first : rng.int(first, sessions - 1))), ask: a.ask });
    });
  }

  // decisions: first + 0–2 revisions, in increasing sessions
  const D = spec.decisionText ?? L.decision;
  const decisions = [];
  for (const d of spec.decisions) {
    const x = rng.next();
    const steps = Math.min(d.options.length, x < 0.2 ? 1 : x < 0.7 ? 2 : 3);
    const options = rng.sample(d.options, steps);
    const at = rng.sample([...Array(sessions).keys()], steps).sort((p, q) => p - q);
    const chain = [];
    options.forEach((o, i) => {
      const date = L.date(sessionDates[at[i]]);
      const pool = (i === 0 ? D.first.map((f) => f(d.topic, o, date)) : D.revise.map((f) => f(d.topic, options[i - 1], o, date))).map(toPair);
      const n = rng.variants(Math.min(3, pool.length));
      const end = i + 1 < steps ? at[i + 1] - 1 : sessions - 1;
      const texts = rng.sample(pool, n).map(([m, say]) => [m, rng.pick(i === 0 ? L.decision.sayFirst : L.decision.sayRevise)(say ?? m)]);
      chain.push(addFact({ key: `decision:${d.key}:${i}`, kind: "decision", type: d.type ?? "events", topic: d.topic, option: o, previous: i ? options[i - 1] : null, step: i, date, texts, sessions: texts.map((_, k) => (k === 0 ? at[i] : rng.int(at[i], Math.max(at[i], end)))) }));
    });
    decisions.push({ spec: d, chain });
  }

  // dated events
  const events = [];
  for (const ev of spec.events) {
    const used = new Map();
    for (let c = 0; c < ev.count; c++) {
      const vars = {};
      for (const [name, src] of Object.entries(ev.vars)) {
        if (src.entity) {
          // a different entity per instance while there are enough
          const seen = used.get(name) ?? new Set();
          const free = entities[src.entity].filter((e) => !seen.has(e));
          vars[name] = rng.pick(free.length ? free : entities[src.entity]);
          seen.add(vars[name]);
          used.set(name, seen);
        } else {
          vars[name] = rng.pick(src);
        }
      }
      const s = rng.int(0, sessions - 1);
      const date = L.date(sessionDates[s]);
      const n = rng.variants(ev.variants.length);
      const texts = rng.sample(ev.variants, n).map((f) => toPair(f(vars, date)));
      events.push(addFact({ key: `event:${ev.key}:${c}`, kind: "event", type: ev.type, vars, date, texts, sessions: texts.map((_, k) => (k === 0 ? s : rng.int(s, sessions - 1))), ask: ev.ask }));
    }
  }

  // distractors: stated once, never asked about
  const r = { pick: (a) => rng.pick(a), entity: (k) => rng.pick(entities[k]) };
  spec.distractors.forEach((f, i) => {
    addFact({ key: `distractor:${i}`, kind: "distractor", type: i % 3 === 2 ? "events" : "entities", texts: [toPair(f(r))], sessions: [rng.int(0, sessions - 1)] });
  });

  // memories: one per variant
  const memories = [];
  for (const f of facts) {
    f.memoryIds = f.texts.map(([text, say], k) => {
      const id = `${tag}-m${String(memories.length + 1).padStart(3, "0")}`;
      memories.push({ id, type: f.type, path: `${f.type}/${id}.md`, text, fact: f.key, kind: f.kind, variant: k, variants: f.texts.length, session: f.sessions[k], say: say ?? rng.pick(L.say)(text) });
      return id;
    });
  }

  // conversation: statements into turns, small talk between
  const sessionList = [];
  const turnOf = new Map(); // memory id -> turn id
  for (let s = 0; s < sessions; s++) {
    const said = rng.shuffle(memories.filter((m) => m.session === s));
    // a decision's variants never precede... (each step is in its own session, so order within a
    // session does not matter); group 1–3 statements per turn
    const n = said.length;
    let fillers = rng.int(1, 3);
    let factTurns = Math.max(Math.ceil(n / 3), Math.min(n, Math.round(n / 1.4)));
    if (factTurns + fillers > 15) {
      fillers = Math.max(0, 15 - factTurns);
      factTurns = Math.max(Math.ceil(n / 3), 15 - fillers);
    }
    while (factTurns + fillers < 8) fillers++;
    const groups = Array.from({ length: factTurns }, () => []);
    said.forEach((m, i) => groups[i < factTurns ? i : rng.int(0, factTurns - 1)].push(m));
    const kinds = rng.shuffle([...groups.map((g) => ({ g })), ...Array.from({ length: fillers }, () => ({ filler: rng.pick(spec.filler) }))]);
    const date = sessionDates[s];
    const turns = kinds.map((k, t) => {
      const id = `${tag}-s${String(s + 1).padStart(2, "0")}-t${String(t + 1).padStart(2, "0")}`;
      const ts = date.getTime() + t * 4 * 60_000;
      if (k.filler) return { id, ts, user: k.filler[0], assistant: k.filler[1], memoryIds: [] };
      for (const m of k.g) turnOf.set(m.id, id);
      return { id, ts, user: k.g.map((m) => m.say).join(L.join), assistant: rng.pick(L.ack), memoryIds: k.g.map((m) => m.id) };
    });
    sessionList.push({ id: `${tag}-s${String(s + 1).padStart(2, "0")}`, date: date.toISOString().slice(0, 10), turns });
  }
  for (const m of memories) m.turn = turnOf.get(m.id);

  // questions
  const questions = [];
  const Q = QUESTIONS_PER_PERSONA;
  const ids = (key) => byKey.get(key).memoryIds;
  const addQ = (type, subtype, text, groups, extra = {}) => {
    questions.push({
      id: `${tag}-q${String(questions.length + 1).padStart(3, "0")}`,
      persona: tag,
      lang: L.lang,
      type,
      subtype,
      text,
      evidence: groups.map(ids),
      evidenceFacts: groups,
      evidenceTurns: groups.map((g) => [...new Set(ids(g).map((m) => turnOf.get(m)))]),
      ...extra,
    });
  };

  // single-hop: facts, preferences and what-questions about events
  const singles = rng.shuffle([
    ...facts.filter((f) => (f.kind === "fact" || f.kind === "preference") && f.ask).map((f) => ({ f, text: rng.pick(f.ask)(f.entity) })),
    ...events.filter((f) => f.ask?.what).map((f) => ({ f, text: rng.pick(f.ask.what)(f.vars) })),
  ]);
  for (const { f, text } of singles.slice(0, Q.single)) addQ("single", f.kind === "event" ? "event-what" : f.kind, text, [f.key]);

  // multi-hop: each generator in turn, over its possible starts
  const starts = spec.multihop.map((m) => ({ m, list: rng.shuffle(multihopStarts(m, entities, facts)) }));
  let made = 0;
  for (let round = 0; made < Q.multi && starts.some((s) => s.list.length); round++) {
    for (const s of starts) {
      if (made >= Q.multi) break;
      while (s.list.length) {
        const start = s.list.shift();
        const path = resolve(s.m.hops, start, facts);
        if (!path) continue;
        addQ("multi", s.m.hops.join(">"), rng.pick(s.m.ask)(start), path);
        made++;
        break;
      }
    }
  }

  // temporal: when an event happened; when a decision was made / switched; what came before;
  // what changed
  const temporal = [];
  for (const e of events) temporal.push({ sub: "event-when", text: rng.pick(e.ask.when)(e.vars), groups: [e.key] });
  for (const { chain } of decisions) {
    const topic = chain[0].topic;
    temporal.push({ sub: "decision-first", text: rng.pick(L.decision.ask.whenFirst)(topic), groups: [chain[0].key] });
    for (let i = 1; i < chain.length; i++) {
      temporal.push({ sub: "decision-switch", text: rng.pick(L.decision.ask.whenSwitch)(topic, chain[i].option), groups: [chain[i].key] });
      temporal.push({ sub: "decision-before", text: rng.pick(L.decision.ask.before)(topic, chain[i].option), groups: [chain[i - 1].key], also: chain[i].key });
    }
    if (chain.length > 1) temporal.push({ sub: "decision-changed", text: rng.pick(L.decision.ask.changed)(topic), groups: chain.slice(1).map((c) => c.key) });
  }
  // balanced over the sub-kinds, then shuffled
  const bySub = new Map();
  for (const t of rng.shuffle(temporal)) bySub.set(t.sub, [...(bySub.get(t.sub) ?? []), t]);
  const picked = [];
  while (picked.length < Q.temporal && [...bySub.values()].some((l) => l.length)) for (const l of bySub.values()) if (l.length && picked.length < Q.temporal) picked.push(l.shift());
  for (const t of picked) {
    // "what did we use before X": the revision that names X also says what it replaced
    if (t.also) addQ("temporal", t.sub, t.text, [t.groups[0]], { evidence: [[...ids(t.groups[0]), ...ids(t.also)]], evidenceFacts: [[t.groups[0], t.also]], evidenceTurns: [[...new Set([...ids(t.groups[0]), ...ids(t.also)].map((m) => turnOf.get(m)))]] });
    else addQ("temporal", t.sub, t.text, t.groups);
  }

  // decision: the latest step is the evidence; earlier steps are stale
  for (const { chain } of rng.sample(decisions, Q.decision)) {
    const latest = chain[chain.length - 1];
    addQ("decision", `steps-${chain.length}`, rng.pick(L.decision.ask.decide)(latest.topic), [latest.key], { stale: chain.slice(0, -1).flatMap((c) => c.memoryIds), latestOption: latest.option });
  }

  // unrelated: about nothing stored
  for (const text of rng.sample(POOLS[spec.unrelated], Q.unrelated)) addQ("unrelated", "none", text, []);

  return {
    tag,
    id: spec.id,
    name: spec.name,
    lang: L.lang,
    sessions: sessionList,
    memories: memories.map(({ say, ...m }) => m),
    facts: facts.map((f) => ({ key: f.key, kind: f.kind, type: f.type, memoryIds: f.memoryIds, date: f.date ?? null, option: f.option ?? null })),
    questions,
  };
}

/** Possible starts of a multi-hop generator. */
function multihopStarts(m, entities, facts) {
  if (m.from.startsWith("value:")) {
    const attr = m.from.slice(6);
    const vals = facts.filter((f) => f.attr === attr).map((f) => f.value);
    return vals.filter((v) => vals.indexOf(v) === vals.lastIndexOf(v)); // only unique values
  }
  return entities[m.from] ?? [];
}

/** The facts along `hops` from `start` (null when a hop has no unique answer). */
function resolve(hops, start, facts) {
  let cur = start;
  const keys = [];
  for (const h of hops) {
    const back = h.startsWith("~");
    const attr = back ? h.slice(1) : h;
    const found = facts.filter((f) => f.attr === attr && (back ? f.value === cur : f.entity === cur));
    if (found.length !== 1) return null;
    keys.push(found[0].key);
    cur = back ? found[0].entity : found[0].value;
  }
  return keys;
}

/** Counts per persona and type (for --stats and the runner's header). */
export function stats(data) {
  const out = [];
  for (const p of data.personas) {
    const turns = p.sessions.reduce((n, s) => n + s.turns.length, 0);
    const byType = Object.fromEntries(TYPES.map((t) => [t, p.questions.filter((q) => q.type === t).length]));
    const multiVariant = p.facts.filter((f) => f.memoryIds.length >= 3).length;
    out.push({ persona: p.tag, lang: p.lang, memories: p.memories.length, facts: p.facts.length, factsWith3to5Variants: multiVariant, sessions: p.sessions.length, turns, turnsPerSession: `${Math.min(...p.sessions.map((s) => s.turns.length))}–${Math.max(...p.sessions.map((s) => s.turns.length))}`, questions: p.questions.length, ...byType });
  }
  return out;
}

// CLI
if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const opt = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const data = generate({ seed: Number(opt("--seed") ?? DEFAULT_SEED) });
  if (args.includes("--stats") || !args.length) console.table(stats(data));
  if (opt("--dump")) writeFileSync(opt("--dump"), JSON.stringify(data, null, 1));
  const n = Number(opt("--sample") ?? 0);
  if (n) {
    for (const p of data.personas) {
      console.log(`\n== ${p.tag} (${p.name})`);
      for (const m of p.memories.slice(0, n)) console.log(`  ${m.id} [${m.type}] ${m.text}`);
      console.log(`  turn ${p.sessions[0].turns[0].id}: U: ${p.sessions[0].turns[0].user} | A: ${p.sessions[0].turns[0].assistant}`);
      for (const t of TYPES) for (const q of p.questions.filter((q) => q.type === t).slice(0, 2)) console.log(`  ${q.id} ${q.type}/${q.subtype}: ${q.text} → ${JSON.stringify(q.evidence)}${q.stale?.length ? ` stale ${JSON.stringify(q.stale)}` : ""}`);
    }
  }
}
