// memory_store, memory_forget and memory_expand. Every URI a caller hands in is checked
// against the caller's own scopes: its user memories, its agent's memories, and its agent's
// OpenViking sessions (ids prefixed by the agent) — the server itself would let an agent of
// the same user reach another agent's sessions. Errors are tool results naming the field.
import { isWithinScope } from "../openviking/client.js";
import { forgetSearch } from "./recall.js";

function result(doc) {
  return { content: [{ type: "text", text: JSON.stringify(doc) }], details: doc };
}
function fail(text) {
  return { content: [{ type: "text", text }], details: { error: text }, isError: true };
}
function unknownKeys(params, allowed) {
  if (params === null || typeof params !== "object") return "input must be an object";
  const bad = Object.keys(params).find((k) => !allowed.includes(k));
  return bad ? `${bad}: unknown parameter` : null;
}

const slug = (text) =>
  (text.toLowerCase().normalize("NFKD").replace(/[^a-z0-9\u4e00-\u9fff]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 48) || "note") +
  `-${Date.now().toString(36)}`;

async function scopes(runtime, agent) {
  const uid = await agent.identity();
  if (!uid) throw new Error("OpenViking is unavailable (could not resolve the user)");
  return {
    uid,
    userMemories: runtime.config.targetUri ?? `viking://user/${uid}/memories`,
    agentMemories: `viking://agent/${agent.agentId}/memories`,
    sessions: `viking://user/${uid}/sessions`,
  };
}

export function memoryStoreTool(runtime, toolContext) {
  return {
    name: "memory_store",
    label: "Remember",
    description: "Store something the user explicitly asked to remember (a preference, fact or decision) in long-term memory, immediately.",
    parameters: {
      type: "object",
      additionalProperties: false,
      required: ["text"],
      properties: {
        text: { type: "string", minLength: 1, maxLength: 4000, description: "What to remember, as one self-contained statement." },
        category: { type: "string", enum: ["preferences", "entities", "events", "profile"], description: "Kind of memory (default preferences)." },
      },
    },
    async execute(_id, params) {
      const bad = unknownKeys(params, ["text", "category", "role", "sessionId", "sessionKey"]);
      if (bad) return fail(bad);
      if (typeof params.text !== "string" || !params.text.trim()) return fail("text: must be a non-empty string");
      if (params.category !== undefined && !["preferences", "entities", "events", "profile"].includes(params.category)) {
        return fail("category: must be one of preferences, entities, events, profile");
      }
      try {
        const agent = runtime.agent(toolContext?.sessionKey);
        const s = await scopes(runtime, agent);
        const uri = `${s.userMemories}/${params.category ?? "preferences"}/${slug(params.text)}.md`;
        // wait:true — findable by the very next recall; a file write never races a commit
        await agent.client.writeContent({ uri, content: params.text.trim(), mode: "create", wait: true });
        forgetSearch(agent);
        return result({ stored: true, uri, content: params.text.trim() });
      } catch (err) {
        return fail(`memory_store failed: ${err.message}`);
      }
    },
  };
}

/**
 * Why `uri` cannot be handed to a delete (an error text naming `field`), or null. It must be
 * the uri exactly as OpenViking lists it (what memory_recall shows): nothing that a URL parser
 * or the server could read as another uri — no percent-escapes (%2F, %2E, …), no "." or ".."
 * segments, no empty segments ("//", a trailing "/": the server collapses them), no
 * backslashes, queries, fragments, control or invisible characters, no outer spaces, and no
 * look-alike characters that Unicode normalisation (NFKC) turns into a dot, slash, backslash or
 * percent sign ("．", "․", "／", "％"…). Other non-ASCII text (CJK, fullwidth "：") stays: the
 * server names memory files after their topics.
 */
export function uriProblem(field, uri, { trailingSlash = false } = {}) {
  if (typeof uri !== "string" || !uri) return `${field}: must be a non-empty viking:// uri`;
  if (uri.length > 4096) return `${field}: longer than 4096 characters`;
  if (!uri.startsWith("viking://")) return `${field}: must start with viking://`;
  if (/%[0-9A-Fa-f]{2}/.test(uri)) return `${field}: percent-encoded characters (such as %2F or %2E) are not allowed; give the uri exactly as memory_recall lists it`;
  if (uri.includes("\\")) return `${field}: backslashes are not allowed`;
  if (/[?#]/.test(uri)) return `${field}: a query (?) or fragment (#) is not allowed`;
  if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(uri)) return `${field}: control or invisible characters are not allowed`;
  if (uri.trim() !== uri) return `${field}: leading or trailing spaces are not allowed`;
  const lookAlike = [...uri].find((c) => c > "\x7f" && /[./\\%?#]|^$/.test(c.normalize("NFKC")));
  if (lookAlike) {
    return `${field}: "${lookAlike}" (U+${lookAlike.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}) normalises to "${lookAlike.normalize("NFKC")}"; look-alike dots, slashes or percent signs are not allowed — give the uri exactly as memory_recall lists it`;
  }
  const segs = uri.slice("viking://".length).split("/");
  if (trailingSlash && segs.length > 1 && segs.at(-1) === "") segs.pop();
  if (segs.some((sg) => sg === "")) return `${field}: empty path segments ("//" or a trailing "/") are not allowed`;
  if (segs.some((sg) => /^\.+$/.test(sg))) return `${field}: "." and ".." segments are not allowed`;
  return null;
}

const isNotFound = (err) => err?.code === "NOT_FOUND" || err?.status === 404;

/**
 * Delete one memory file and report only what the server really deleted: it must exist before
 * (fs/stat), the delete must count it, and it must be gone after. Resolves to the tool's
 * document, or {problem} for a uri the caller must change.
 */
async function verifiedDelete(agent, uri) {
  let before;
  try {
    before = await agent.client.stat(uri);
  } catch (err) {
    if (isNotFound(err)) return { deleted: [], notFound: [uri], reason: "OpenViking has no memory at this uri; nothing was deleted" };
    throw err;
  }
  if (before?.isDir) return { problem: "uri: names a folder, not a memory; give one memory's uri" };
  if (typeof before?.uri === "string" && before.uri !== uri) return { problem: `uri: OpenViking reads it as ${before.uri}; give that uri` };
  const res = await agent.client.deleteUri(uri);
  forgetSearch(agent);
  const count = res?.estimated_deleted_count;
  let stillThere;
  try {
    await agent.client.stat(uri);
    stillThere = true;
  } catch (err) {
    if (!isNotFound(err)) {
      return { deleted: [], unverified: [uri], reason: `OpenViking accepted the delete, but whether it is gone could not be checked: ${err.message}` };
    }
    stillThere = false;
  }
  if (stillThere) return { deleted: [], notDeleted: [uri], reason: "OpenViking still has this memory after the delete" };
  if (typeof count === "number" && count < 1) return { deleted: [], notFound: [uri], reason: "OpenViking deleted nothing (the memory was already gone)" };
  return { deleted: [uri] };
}

export function memoryForgetTool(runtime, toolContext) {
  return {
    name: "memory_forget",
    label: "Forget",
    description: "Delete a wrong or unwanted memory: by its uri, or by a query (deletes only a single clear match, otherwise lists candidates). Reports only what OpenViking really deleted.",
    parameters: {
      type: "object",
      additionalProperties: false,
      properties: {
        uri: { type: "string", description: "The memory's viking:// uri, exactly as memory_recall lists it." },
        query: { type: "string", description: "What the memory says." },
        limit: { type: "integer", minimum: 1, maximum: 20 },
        scoreThreshold: { type: "number", minimum: 0, maximum: 1 },
        targetUri: { type: "string", description: "A memory scope of the caller's own." },
      },
    },
    async execute(_id, params) {
      const bad = unknownKeys(params, ["uri", "query", "limit", "scoreThreshold", "targetUri"]);
      if (bad) return fail(bad);
      if (params.uri === "" && typeof params.query === "string" && params.query.trim()) params = { ...params, uri: undefined };
      if (params.uri === undefined && !(typeof params.query === "string" && params.query.trim())) return fail("uri: give a uri or a query");
      if (params.uri !== undefined) {
        const problem = uriProblem("uri", params.uri);
        if (problem) return fail(problem);
      }
      if (params.targetUri !== undefined) {
        const problem = uriProblem("targetUri", params.targetUri, { trailingSlash: true });
        if (problem) return fail(problem);
      }
      try {
        const agent = runtime.agent(toolContext?.sessionKey);
        const s = await scopes(runtime, agent);
        const own = [s.userMemories, s.agentMemories];
        if (params.targetUri !== undefined && !own.some((sc) => isWithinScope(params.targetUri, sc))) {
          return fail("targetUri: must be within your own memory scopes");
        }
        if (params.uri !== undefined) {
          if (!own.some((sc) => isWithinScope(params.uri, sc)) || own.includes(params.uri)) {
            return fail("uri: only a memory inside your own memory scopes can be deleted");
          }
          const out = await verifiedDelete(agent, params.uri);
          return out.problem ? fail(out.problem) : result(out);
        }
        const found = await agent.client.find({ query: params.query, targetUri: params.targetUri ?? s.userMemories, limit: params.limit ?? 5, scoreThreshold: params.scoreThreshold ?? 0 });
        const candidates = (found.memories ?? [])
          .filter((m) => m.level === 2 && typeof m.uri === "string" && !uriProblem("uri", m.uri) && own.some((sc) => isWithinScope(m.uri, sc)) && !own.includes(m.uri))
          .map((m) => ({ uri: m.uri, abstract: m.abstract, score: m.score }));
        if (candidates.length === 1 && candidates[0].score >= 0.85) {
          const out = await verifiedDelete(agent, candidates[0].uri);
          return result(out.problem ? { deleted: [], candidates, reason: out.problem.replace(/^uri: /, "") } : out);
        }
        return result({ deleted: [], candidates, note: "No single clear match; call memory_forget with the uri to delete one." });
      } catch (err) {
        return fail(`memory_forget failed: ${err.message}`);
      }
    },
  };
}


/** The checkpoint (from this agent's local session records) that extracted `memoryUri`. */
async function checkpointOfMemory(runtime, agent, memoryUri) {
  const keys = await runtime.store.listStateKeys("session/");
  for (const key of keys) {
    if (!agent.engine.ownsSession(key.slice("session/".length))) continue; // the engine decides
    const rec = await runtime.store.loadState(key);
    for (const c of rec?.checkpoints?.checkpoints ?? []) {
      if ((c.extracted_memory_uris ?? []).includes(memoryUri)) return c;
    }
  }
  return null;
}

export function memoryExpandTool(runtime, toolContext) {
  return {
    name: "memory_expand",
    label: "Expand memory",
    description: "From a conversation summary, an archive or a memory back to the raw turns behind it: related archive, matching turn excerpts, and uris to read further.",
    parameters: {
      type: "object",
      additionalProperties: false,
      required: ["summaryOrMemoryUri"],
      properties: {
        summaryOrMemoryUri: { type: "string", description: "A summary's archive uri, a session uri, or a memory uri." },
        query: { type: "string", description: "What to look for in the raw turns." },
        limit: { type: "integer", minimum: 1, maximum: 100 },
      },
    },
    async execute(_id, params) {
      const bad = unknownKeys(params, ["summaryOrMemoryUri", "query", "limit"]);
      if (bad) return fail(bad);
      if (typeof params.summaryOrMemoryUri !== "string" || !params.summaryOrMemoryUri.trim()) return fail("summaryOrMemoryUri: must be a non-empty string");
      if (params.limit !== undefined && !(Number.isInteger(params.limit) && params.limit >= 1)) return fail("limit: must be a positive integer");
      try {
        const agent = runtime.agent(toolContext?.sessionKey);
        const s = await scopes(runtime, agent);
        const target = runtime.recall.classifyExpandUri(params.summaryOrMemoryUri);
        if (!target) return fail("summaryOrMemoryUri: not a session, archive or memory uri");
        let sessionId;
        let archiveId;
        let checkpoint = null;
        if (target.kind === "memory") {
          if (![s.userMemories, s.agentMemories].some((sc) => isWithinScope(target.uri, sc))) return fail("summaryOrMemoryUri: not in your own memory scopes");
          checkpoint = await checkpointOfMemory(runtime, agent, target.uri);
          if (!checkpoint) return result({ uri: target.uri, excerpts: [], note: "This memory was not extracted from a conversation compacted by this agent (e.g. stored with memory_store)." });
          sessionId = checkpoint.session_id;
          archiveId = checkpoint.archive_uri.split("/").pop();
        } else {
          sessionId = target.session_id;
          if (!agent.engine.ownsSession(sessionId)) return fail("summaryOrMemoryUri: not one of your own sessions");
          const rec = await agent.engine.record(sessionId);
          const cps = rec?.checkpoints?.checkpoints ?? [];
          archiveId = target.kind === "archive" ? target.archive_id : cps.at(-1)?.archive_uri.split("/").pop();
          if (!archiveId) return result({ sessionUri: `${s.sessions}/${sessionId}`, excerpts: [], note: "This session has no archive yet." });
          checkpoint = cps.find((c) => c.archive_uri.endsWith(`/${archiveId}`)) ?? null;
        }
        const archive = await agent.client.getArchive(sessionId, archiveId);
        const out = runtime.recall.expand({
          archiveUri: `${s.sessions}/${sessionId}/history/${archiveId}`,
          messages: archive?.messages ?? [],
          checkpoint,
          query: params.query,
          limit: params.limit,
        });
        return result({ sessionUri: `${s.sessions}/${sessionId}`, ...out });
      } catch (err) {
        return fail(`memory_expand failed: ${err.message}`);
      }
    },
  };
}
