// stored.js — what OpenViking holds of a session, for the harnesses to compare with what
// happened: every stored message, oldest first — each archive's (archive_001, 002, …), then
// the live ones — each tagged with where it came from (`from`: the archive id, or "live").

/** @param {object} client  tests/inspect/client.js */
export async function storedMessages(client, ovSessionId) {
  const out = [];
  for (let n = 1; ; n++) {
    const id = `archive_${String(n).padStart(3, "0")}`;
    const archive = await client.getArchive(ovSessionId, id).catch((e) => (e.code === "NOT_FOUND" ? null : Promise.reject(e)));
    if (!archive) break;
    out.push(...(archive.messages ?? []).map((m) => ({ ...m, from: id })));
  }
  const ctx = await client.sessionContext(ovSessionId, { tokenBudget: 100_000_000 });
  out.push(...(ctx.messages ?? []).map((m) => ({ ...m, from: "live" })));
  return out;
}
