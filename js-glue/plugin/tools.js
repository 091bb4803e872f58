// The memory tools, registered as the engine defines them (toolDefinitions: names,
// descriptions, JSON schemas) and run by the engine (ContextEngine.runTool: input checks,
// scopes, ownership, verified deletes). memory_recall_auto is registered so hosts keep the
// engine's synthetic call (2026.4.x drops calls to tools that are not registered). Here:
// only the mapping to OpenClaw's tool result shape.

function result(doc) {
  return { content: [{ type: "text", text: JSON.stringify(doc) }], details: doc };
}

function fail(text) {
  return { content: [{ type: "text", text }], details: { error: text }, isError: true };
}

function tool(runtime, def, toolContext) {
  return {
    ...def,
    async execute(_toolCallId, params) {
      try {
        const sessionKey = toolContext?.sessionKey ?? toolContext?.agentSessionKey;
        const agent = runtime.agent(sessionKey ?? (toolContext?.agentId ? `agent:${toolContext.agentId}:tool` : undefined));
        const context = typeof toolContext?.sessionId === "string" ? { sessionId: toolContext.sessionId } : undefined;
        return result(await agent.engine.runTool(def.name, params ?? {}, context));
      } catch (err) {
        // the engine's messages name the field or the tool already
        return fail(err.code === "INVALID_INPUT" || err.code === "HOST_FAILED" ? err.message : `${def.name} failed: ${err.message}`);
      }
    },
  };
}

export function registerTools(api, runtime) {
  for (const def of runtime.wasm.toolDefinitions()) {
    api.registerTool((toolContext) => tool(runtime, def, toolContext), { name: def.name });
  }
}
