// The OpenClaw context engine: adapts OpenClaw's lifecycle (both contract generations) to
// the wasm engine. No decision is made here. Every method catches its own failures: an
// engine that throws is quarantined by OpenClaw, and OpenViking being down must never
// break a turn. The one exception is a turn that could not be stored anywhere (not in
// OpenViking, not in the local outbox): commitTurn then fails so the host keeps it queued.

import { findSession, readLines } from "./openclaw-sessions.js";
import { SLICE_TURNS } from "./import.js";

export const ENGINE_ID = "openviking";

export function createContextEngine(runtime, { version = "0.1.0" } = {}) {
  const { logger, wasm } = runtime;
  const warn = (m) => logger.warn(`[openviking] ${m}`);

  /** Starts a due commit in the background; the host may exit only after drain(). */
  function startCommit(agent, ovSessionId, reason) {
    runtime.track(
      agent.engine.runCommit({ ovSessionId, reason, waitMs: 0 }).then((out) => {
        if (!out.compacted && out.reason && !out.reason.startsWith("not started")) warn(`commit of ${ovSessionId}: ${out.reason}`);
      }),
    );
  }

  /** Once per session (the engine keeps count): hands the transcript OpenClaw holds for it
   *  to the engine, which says in the log how many earlier turns OpenViking lacks and the
   *  command that brings them in — or, with importOnBootstrap, brings in a first slice. */
  async function earlierTurns(agent, sessionId) {
    try {
      if (!runtime.openclawStateDir || !(await agent.engine.pastCheckDue(sessionId))) return;
      const session = await findSession(runtime.openclawStateDir, agent.agentId, sessionId);
      if (!session) return;
      const lines = await readLines(session);
      const r = await agent.engine.importSession({ sessionId, lines, firstContact: true, limit: SLICE_TURNS, commitWaitMs: 0 });
      if (r.note) logger.info?.(`[openviking] ${r.note}`);
    } catch (err) {
      warn(`looking for earlier turns of session ${sessionId}: ${err.message}`);
    }
  }

  /** commitTurn → engine.writeTurn; afterTurn → engine.afterTurn (which decides whether the
   *  call is a tool-loop checkpoint or a finished turn, and what of it to write). */
  async function write(params, { advancementKey, afterTurn = false }) {
    const agent = runtime.agent(params.sessionKey);
    runtime.ensureServer();
    // the engine adds what it assembled for the turn (context size, injected memories)
    const request = {
      sessionId: params.sessionId,
      sessionKey: params.sessionKey,
      messages: params.messages ?? [],
      advancementKey,
      tokenBudget: params.tokenBudget,
      isHeartbeat: Boolean(params.isHeartbeat),
    };
    const out = afterTurn
      ? await agent.engine.afterTurn({ ...request, prePromptMessageCount: params.prePromptMessageCount })
      : await agent.engine.writeTurn(request);
    if (!out) return null; // a tool-loop checkpoint: the turn is written when it is finished
    runtime.touch(agent, out.ovSessionId);
    if (out.commitDue) startCommit(agent, out.ovSessionId, out.trigger?.kind ?? "trigger");
    if (out.previousOvSessionId) {
      // /new or /reset: the previous transcript gets its final commit
      runtime.track(agent.engine.runCommit({ ovSessionId: out.previousOvSessionId, forced: true, reason: "session ended (/new or /reset)", waitMs: 0 }));
    }
    return out;
  }

  return {
    info: {
      id: ENGINE_ID,
      name: "OpenViking",
      version,
      ownsCompaction: true,
      turnMaintenanceMode: "background",
      transcriptSemantics: {
        currentTurnFence: "before-current-turn-entry-v1",
        turnAdvancementIdempotency: "atomic-idempotent-v1",
      },
    },

    async bootstrap(params) {
      try {
        const agent = runtime.agent(params.sessionKey);
        runtime.ensureServer();
        const ov = agent.engine.ovSessionId(params.sessionId);
        // a commit task left running by an earlier process, and turns left in the outbox
        runtime.track(agent.engine.followTask(ov, 0).then(() => agent.engine.flush(ov)));
        // the first contact with a session that began before the engine: its earlier turns
        runtime.track(earlierTurns(agent, params.sessionId));
        return { bootstrapped: true };
      } catch (err) {
        warn(`bootstrap: ${err.message}`);
        return { bootstrapped: false, reason: err.message };
      }
    },

    async ingest() {
      // Turns are stored whole at commitTurn/afterTurn (lossless, idempotent).
      return { ingested: false };
    },

    async ingestBatch() {
      return { ingestedCount: 0 };
    },

    async assemble(params) {
      const messages = params.messages ?? [];
      try {
        const agent = runtime.agent(params.sessionKey);
        runtime.noteLocal?.(agent); // a local server another process is starting counts as starting
        const out = await agent.engine.assemble({ sessionId: params.sessionId, prompt: params.prompt, messages, tokenBudget: params.tokenBudget });
        return { messages: out.messages, estimatedTokens: out.estimatedTokens, systemPromptAddition: out.systemPromptAddition };
      } catch (err) {
        warn(`assemble fell back to the host's messages: ${err.message}`);
        const estimatedTokens = wasm.estimateMessageTokens(messages).reduce((a, b) => a + b, 0);
        return { messages, estimatedTokens };
      }
    },

    async commitTurn(params) {
      const out = await write(params, { advancementKey: params.advancementKey });
      return { status: out.status };
    },

    async afterTurn(params) {
      try {
        await write(params, { afterTurn: true });
      } catch (err) {
        warn(`afterTurn: ${err.message}`);
      }
    },

    async compact(params) {
      try {
        const agent = runtime.agent(params.sessionKey);
        return await agent.engine.compact({ sessionId: params.sessionId, currentTokenCount: params.currentTokenCount });
      } catch (err) {
        warn(`compact failed: ${err.message}`);
        return { ok: false, compacted: false, reason: err.message };
      }
    },

    async maintain() {
      return { changed: false, bytesFreed: 0, rewrittenEntries: 0 };
    },

    async dispose() {
      await runtime.drain();
    },
  };
}
