// The engine's host callbacks (HostCallbacks in pkg/*.d.ts): OpenViking I/O through the
// fetch client, durable state and outbox through the state store, the clock, logging.
// No decisions here — the wasm engine makes them; this only performs I/O.

/** @param {{client: object, store: object, logger?: {warn: Function}, now?: () => number}} deps */
export function createEngineHost({ client, store, logger = console, now = () => Date.now() }) {
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
    writeJson: (uri, value) => client.writeContent({ uri, content: JSON.stringify(value, null, 2), mode: "replace", wait: false }),
    loadState: (key) => store.loadState(key),
    saveState: (key, value) => store.saveState(key, value),
    outboxAppend: (key, entry) => store.outboxAppend(key, entry),
    outboxRead: (key) => store.outboxRead(key),
    outboxDrop: (key, count) => store.outboxDrop(key, count),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    nowMs: () => now(),
    warn: (message) => logger.warn(`[openviking] ${message}`),
  };
}
