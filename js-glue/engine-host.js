// The engine's host callbacks (HostCallbacks in pkg/*.d.ts): OpenViking I/O through the
// fetch client, durable state and outbox through the state store, the clock, logging.
// No decisions here — the wasm engine makes them; this only performs I/O.

/** @param {{client: object, store: object, userId?: () => Promise<string|null>, logger?: {warn: Function}, now?: () => number}} deps */
export function createEngineHost({ client, store, userId = async () => null, logger = console, now = () => Date.now() }) {
  return {
    async sessionMeta(id) {
      try {
        return await client.getSession(id, { autoCreate: false });
      } catch (err) {
        if (err.code === "NOT_FOUND") return null;
        throw err;
      }
    },
    createSession: (id, memoryPolicy) => client.createSession({ sessionId: id, memoryPolicy }),
    addMessages: (id, messages) => client.addMessages(id, messages),
    liveMessages: async (id) => (await client.sessionContext(id, { tokenBudget: 1_000_000_000 }))?.messages ?? [],
    commit: (id, body) => client.commit(id, body),
    task: (taskId) => client.getTask(taskId),
    archive: (id, archiveId) => client.getArchive(id, archiveId),
    readJson: (uri) => client.readJson(uri),
    find: (targetUri, query, limit) => client.find({ query, targetUri, limit, scoreThreshold: 0 }),
    readContent: async (uri) => {
      try {
        const text = await client.readContent(uri);
        return typeof text === "string" ? text : null;
      } catch (err) {
        if (err.code === "NOT_FOUND") return null;
        throw err;
      }
    },
    userId: () => userId(),
    writeText: (uri, content, mode, wait) => client.writeContent({ uri, content, mode, wait }),
    stat: async (uri) => {
      try {
        return await client.stat(uri);
      } catch (err) {
        if (err.code === "NOT_FOUND") return null;
        throw err;
      }
    },
    deleteUri: (uri) => client.deleteUri(uri),
    writeJson: (uri, value) => client.writeContent({ uri, content: JSON.stringify(value, null, 2), mode: "replace", wait: false }),
    loadState: (key) => store.loadState(key),
    saveState: (key, value) => store.saveState(key, value),
    listStateKeys: (prefix) => store.listStateKeys(prefix),
    outboxAppend: (key, entry) => store.outboxAppend(key, entry),
    outboxRead: (key) => store.outboxRead(key),
    outboxDrop: (key, count) => store.outboxDrop(key, count),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    nowMs: () => now(),
    warn: (message) => logger.warn(`[openviking] ${message}`),
  };
}
