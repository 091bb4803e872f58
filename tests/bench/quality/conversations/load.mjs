// Loads a conversation set (README.md beside this file) and turns it into the personas
// ../run.mjs measures: memories with their folder path, turns as user/assistant pairs (speaker
// 0's line as the user's message, speaker 1's answer as the assistant's, each prefixed with the
// speaker's name), questions with evidence in memory ids and in turn ids, and the time the
// questions are asked.
//
//   import { loadSet, SET_CATEGORIES } from "./conversations/load.mjs";
//   const data = await loadSet("tune");   // { name, personas: [...] }
//
// A set that breaks the format fails here, naming the conversation and the field.

export const SET_CATEGORIES = ["single", "multi", "temporal", "update", "inference", "person", "misspelled", "unrelated"];
const TYPES = new Set(["entities", "preferences", "events"]);

export async function loadSet(name) {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`set name ${JSON.stringify(name)}: letters, digits and - only`);
  const mod = await import(new URL(`./${name}.mjs`, import.meta.url).href);
  const set = mod.default;
  if (!set || !Array.isArray(set.conversations)) throw new Error(`${name}.mjs: the default export has no conversations list`);
  const tags = new Set();
  const personas = set.conversations.map((c) => {
    if (tags.has(c.tag)) throw new Error(`${name}.mjs: tag ${c.tag} twice`);
    tags.add(c.tag);
    return persona(name, c);
  });
  return { name, personas };
}

function persona(set, c) {
  const where = (field) => `${set}.mjs ${c.tag}: ${field}`;
  const fail = (field, why) => {
    throw new Error(`${where(field)} ${why}`);
  };
  if (!/^[a-z0-9-]+$/.test(c.tag ?? "")) fail("tag", "must be letters, digits and -");
  if (c.lang !== "en" && c.lang !== "zh") fail("lang", "must be en or zh");
  if (!Array.isArray(c.speakers) || c.speakers.length !== 2) fail("speakers", "must name two people");
  const nowMs = Date.parse(c.askedAt);
  if (!Number.isFinite(nowMs)) fail("askedAt", "is not a date");

  // turns: utterance pairs
  let last = -Infinity;
  const sessions = c.sessions.map((s, si) => {
    const at = Date.parse(s.date);
    if (!Number.isFinite(at) || at <= last) fail(`sessions[${si}].date`, "must be a date after the previous session's");
    last = at;
    const turns = [];
    for (let k = 0; k < s.turns.length; k += 2) {
      const a = s.turns[k];
      const b = s.turns[k + 1];
      if (a.speaker !== 0 || (b && b.speaker !== 1)) fail(`sessions[${si}].turns[${k}]`, "speakers must alternate 0, 1, 0, 1 …");
      const id = `${c.tag}-s${String(si + 1).padStart(2, "0")}-t${String(k / 2 + 1).padStart(2, "0")}`;
      turns.push({
        id,
        ts: at + (k / 2) * 4 * 60_000,
        user: `${c.speakers[0]}: ${a.text}`,
        assistant: b ? `${c.speakers[1]}: ${b.text}` : "(no answer)",
        memoryIds: [],
      });
    }
    return { id: `${c.tag}-s${String(si + 1).padStart(2, "0")}`, date: new Date(at).toISOString().slice(0, 10), ms: at, turns };
  });
  if (nowMs <= last) fail("askedAt", "must come after the last session");

  // memories: ids made unique across sets by the tag
  const memId = (id) => `${c.tag}-${id}`;
  const byId = new Map();
  const memories = c.memories.map((m, mi) => {
    if (!TYPES.has(m.type)) fail(`memories[${mi}].type`, `must be one of ${[...TYPES].join(", ")}`);
    if (byId.has(m.id)) fail(`memories[${mi}].id`, `${m.id} twice`);
    const session = sessions[m.session];
    if (!session) fail(`memories[${mi}].session`, "is not a session index");
    const turn = session.turns[Math.floor(m.turn / 2)];
    if (!turn || m.turn >= c.sessions[m.session].turns.length) fail(`memories[${mi}].turn`, "is not a turn of its session");
    const id = memId(m.id);
    turn.memoryIds.push(id);
    const out = { id, type: m.type, path: `${m.type}/${id}.md`, text: m.text, fact: id, session: m.session, turn: turn.id, order: m.session * 1000 + m.turn };
    byId.set(m.id, out);
    return out;
  });
  // a memory is written after its session: in the order of session, then turn
  memories.sort((a, b) => a.order - b.order);

  const qids = new Set();
  const questions = c.questions.map((q, qi) => {
    if (qids.has(q.id)) fail(`questions[${qi}].id`, `${q.id} twice`);
    qids.add(q.id);
    if (!SET_CATEGORIES.includes(q.category)) fail(`questions[${qi}].category`, `must be one of ${SET_CATEGORIES.join(", ")}`);
    const groups = (q.evidence ?? []).map((g, gi) =>
      g.map((id) => byId.get(id)?.id ?? fail(`questions[${qi}].evidence[${gi}]`, `names ${id}, which is not a memory`)),
    );
    if (q.category === "unrelated" ? groups.length : !groups.length) fail(`questions[${qi}].evidence`, q.category === "unrelated" ? "must be empty" : "is empty");
    // the facts a group states share one fact key (restatements count once)
    for (const g of groups) for (const id of g) memories.find((m) => m.id === id).fact = g[0];
    const stale = (q.stale ?? []).map((id) => byId.get(id)?.id ?? fail(`questions[${qi}].stale`, `names ${id}, which is not a memory`));
    return {
      id: `${c.tag}-${q.id}`,
      persona: c.tag,
      lang: c.lang,
      type: q.category,
      subtype: q.category,
      text: q.text,
      evidence: groups,
      evidenceTurns: groups.map((g) => [...new Set(g.map((id) => memories.find((m) => m.id === id).turn))]),
      stale,
      nowMs,
    };
  });
  return { tag: c.tag, lang: c.lang, name: c.speakers[0], memories, sessions, questions, nowMs };
}

/** Counts per conversation, for the report's header. */
export function setStats(data) {
  return data.personas.map((p) => ({
    persona: p.tag,
    lang: p.lang,
    memories: p.memories.length,
    sessions: p.sessions.length,
    turns: p.sessions.reduce((n, s) => n + s.turns.length, 0),
    span: `${p.sessions[0].date}…${p.sessions.at(-1).date}`,
    questions: p.questions.length,
  }));
}
