// The before_prompt_build fallback (design §3.1, §7.3): recall for turns where the
// engine's assemble() does not run — an older host, or the engine not in the
// context-engine slot. When the engine assembled this turn, the hook injects nothing, so
// recall never reaches the model twice. The same core pipeline and budget apply; the only
// difference is the form: a hook can only prepend text, so the recall document (JSON, data)
// goes inside a <relevant-memories> block — the block the engine strips from stored turns.
// The block and the decision are the engine's (ContextEngine.hookFallback): markup inside is
// escaped, so no memory text can close it and reach the model as loose prompt text.

export function registerHookFallback(api, runtime) {
  if (!runtime.config.hookFallback || typeof api.on !== "function") return;
  api.on("before_prompt_build", async (event, ctx) => {
    try {
      const sessionId = ctx?.sessionId ?? event?.sessionId;
      const sessionKey = ctx?.sessionKey ?? event?.sessionKey;
      const agent = runtime.agent(sessionKey ?? (ctx?.agentId ? `agent:${ctx.agentId}:hook` : undefined));
      // null when the engine assembled this turn (it is active), recall is off, or nothing was recalled
      const block = await agent.engine.hookFallback({ sessionId, prompt: event?.prompt, messages: event?.messages ?? [] });
      return block ? { prependContext: block } : undefined;
    } catch (err) {
      runtime.warnOnce("hook", `before_prompt_build recall skipped: ${err.message}`);
      return undefined;
    }
  });
}
