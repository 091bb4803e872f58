// Automatic and explicit recall: the core builds the query, this searches both memory
// scopes in parallel (a failed or empty scope counts as empty), reads full texts when the
// settings ask for them, and the core ranks, trims and builds the synthetic messages.

/** How long a search may be reused for the same query (one turn's assemble calls). */
export const SEARCH_REUSE_MS = 10_000;

/**
 * Both scopes' find results for a query; never throws. OpenClaw assembles more than once per
 * turn (before the attempt and again for it; again in a tool loop), each time with the same
 * query: a successful search is reused for SEARCH_REUSE_MS, so a turn asks OpenViking once.
 * Memory writes through the tools drop it (forgetSearch).
 */
export async function searchScopes(runtime, agent, query, { signal, now = Date.now } = {}) {
  const limit = Math.max(runtime.config.recallLimit * 4, 20);
  const key = JSON.stringify([query, limit, runtime.config.targetUri ?? null]);
  const last = agent.lastSearch;
  if (last && last.key === key && now() - last.at < SEARCH_REUSE_MS) return last.result;
  const result = await searchBoth(runtime, agent, query, limit, signal);
  agent.lastSearch = result.failed.length ? null : { key, at: now(), result };
  return result;
}

/** Drops the reusable search (after a memory was stored or deleted). */
export function forgetSearch(agent) {
  agent.lastSearch = null;
}

async function searchBoth(runtime, agent, query, limit, signal) {
  const { config } = runtime;
  const userId = await agent.identity().catch(() => null);
  const userScope = config.targetUri ?? (userId ? `viking://user/${userId}/memories` : "viking://~/memories");
  const find = (targetUri) =>
    agent.client.find({ query, targetUri, limit, scoreThreshold: 0, signal }).catch((err) => ({ error: err }));
  const [user, agentScope] = await Promise.all([find(userScope), find("viking://agent/memories")]);
  const failed = [user, agentScope].filter((r) => r?.error).map((r) => r.error);
  return { search: { user: user?.error ? null : user, agent: agentScope?.error ? null : agentScope }, failed };
}

/** The user's stable profile (profile.md): read once per process, cached in the state dir
 *  so it still applies while OpenViking is down. */
export async function stableProfile(runtime, agent) {
  if (agent.profile !== undefined) return agent.profile;
  const key = `profile/${agent.agentId}`;
  try {
    const uid = await agent.identity();
    const uri = `viking://user/${uid}/memories/profile.md`;
    const text = await agent.client.readContent(uri, { timeoutMs: Math.min(runtime.config.timeoutMs, 3000) });
    agent.profile = typeof text === "string" && text.trim() ? { uri, text: text.trim() } : null;
    await runtime.store.saveState(key, agent.profile).catch(() => {});
  } catch (err) {
    agent.profile = err?.code === "NOT_FOUND" ? null : await runtime.store.loadState(key).catch(() => null);
  }
  return agent.profile;
}

/** The whole assemble in the core (recall + composition). */
export async function assembleWith(runtime, agent, request) {
  const { recall: engine, config } = runtime;
  const q = engine.buildRecallQuery({ prompt: request.prompt, messages: request.messages }).query;
  const [{ search, failed }, profile] = await Promise.all([
    q && config.autoRecall ? searchScopes(runtime, agent, q) : { search: {}, failed: [] },
    q && config.autoRecall && runtime.store ? stableProfile(runtime, agent) : null,
  ]);
  const out = await withContents(runtime, agent, (contents) => engine.assemble({ ...request, profile, search, contents }));
  return { out, failed };
}

/** Runs a core pass; with recallPreferAbstract off, reads the full texts of the memories it
 *  picked and runs it again with them. */
async function withContents(runtime, agent, pass) {
  const out = pass(undefined);
  if (runtime.config.recallPreferAbstract || !out.recall?.memories.length) return out;
  const contents = {};
  await Promise.all(
    out.recall.memories.map(async (m) => {
      const text = await agent.client.readContent(m.uri).catch(() => null);
      if (typeof text === "string") contents[m.uri] = text;
    }),
  );
  return pass(contents);
}

/** Explicit or fallback recall through the core (no composition). */
export async function recallWith(runtime, agent, request) {
  const { recall: engine } = runtime;
  const q = request.query ?? engine.buildRecallQuery({ prompt: request.prompt, messages: request.messages }).query;
  if (!q) return { out: engine.autoRecall({ ...request, search: {} }), failed: [] };
  const { search, failed } = await searchScopes(runtime, agent, q);
  const out = await withContents(runtime, agent, (contents) => engine.autoRecall({ ...request, search, contents }));
  return { out, failed };
}
