// The before_prompt_build fallback (design §3.1, §7.3): recall for turns where the
// engine's assemble() does not run — an older host, or the engine not in the
// context-engine slot. When the engine assembled this turn, the hook injects nothing, so
// recall never reaches the model twice. The same core pipeline and budget apply; the only
// difference is the form: a hook can only prepend text, so the recall document (JSON, data)
// goes inside a <relevant-memories> block — the block the engine strips from stored turns.
// The block is the engine's (Engine.fallbackBlock): markup inside is escaped, so no memory
// text can close it and reach the model as loose prompt text.
import { recallWith } from "./recall.js";

/** How recent an assemble() must be to count as "this turn's". */
const SAME_TURN_MS = 120_000;

export function registerHookFallback(api, runtime) {
  if (!runtime.config.hookFallback || typeof api.on !== "function") return;
  api.on("before_prompt_build", async (event, ctx) => {
    try {
      const sessionId = ctx?.sessionId ?? event?.sessionId;
      const sessionKey = ctx?.sessionKey ?? event?.sessionKey;
      const assembled = sessionId ? runtime.lastAssembled.get(sessionId) : null;
      if (assembled && Date.now() - assembled.at < SAME_TURN_MS) return undefined; // the engine is active
      if (!runtime.config.autoRecall) return undefined;
      const agent = runtime.agent(sessionKey ?? (ctx?.agentId ? `agent:${ctx.agentId}:hook` : undefined));
      const { out } = await recallWith(runtime, agent, { prompt: event?.prompt, messages: event?.messages ?? [], nowMs: Date.now() });
      const block = runtime.recall.fallbackBlock(out.recall?.memories ?? []);
      return block ? { prependContext: block } : undefined;
    } catch (err) {
      runtime.warnOnce("hook", `before_prompt_build recall skipped: ${err.message}`);
      return undefined;
    }
  });
}
