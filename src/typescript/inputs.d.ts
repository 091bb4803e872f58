// Hand-written: the inputs the engine reads by hand (`decode::fields` on a JSON object, with
// field paths in its errors), which have no Rust type to derive from. The test
// (tests/typescript_declarations.rs) proves each parser reads exactly the keys declared here.
// Edit here (src/typescript/inputs.d.ts), then run `UPDATE_TS=1 cargo test --features typescript --test typescript_declarations`.

/**
 * The plugin configuration as a user writes it (`plugins.entries.openviking.config`): every
 * key of the resolved configuration, each optional (`null` reads as absent), plus the retired
 * `ingestReplyAssist*` keys the parser accepts and ignores with a warning.
 */
export type PluginConfig = { [k in keyof ResolvedConfig]?: NonNullable<ResolvedConfig[k]> } & {
  [ingestReplyAssist: `ingestReplyAssist${string}`]: unknown;
};

/** What `Engine.autoRecall` takes (and `assemble` on top of it), as `from_value` reads it. */
export interface RecallRequest {
  /** The current user input (OpenClaw 2026.9.x passes it apart from `messages`). */
  prompt?: string;
  /** The messages `assemble` received. */
  messages?: AgentMessage[];
  /** Overrides the query built from prompt + messages (explicit recall). */
  query?: string;
  /**
   * Both scopes' find results: each the result object, or the text of OpenViking's answer to
   * `find` as it arrived (the HTTP body, `{"status":"ok","result":{…}}`), read without a
   * `JSON.parse` on the JS side.
   */
  search?: { user?: FindResult | string | null; agent?: FindResult | string | null };
  /** Full texts read for picked items, by uri. */
  contents?: Record<string, string>;
  nowMs?: number;
  /** The user's stable profile (profile.md), always a recall candidate. */
  profile?: { uri: string; text?: string } | null;
  /** This agent's experiences found for the turn, placed after the memories (assemble). */
  experiences?: ExperienceCandidate[];
}

/** `Engine.assemble`'s input: a recall request plus what the composition needs. */
export interface AssembleRequest extends RecallRequest {
  tokenBudget?: number;
  /** Compact summaries from the session's checkpoints, oldest first. */
  summaries?: Array<{ checkpointId?: string; archiveUri?: string; startSequence: number; endSequence: number; text?: string }>;
  /** The engine's next turn sequence for the session (turns written so far). */
  nextSequence?: number;
  /** The user id: which skill roots and map roots are the caller's own. */
  userId?: string;
  /** OpenViking's `skills/find` answer items (or `SkillEntry`s); the engine's rules pick. */
  skills?: Array<{ name?: string; description?: string; abstract?: string; uri?: string; root_uri?: string; score?: number }>;
  /** Each map root's `fs/tree` answer, by root uri (other keys are ignored). */
  map?: Record<string, Array<{ uri: string; isDir?: boolean }> | null>;
}

/** `ContextEngine.assemble`'s input. `explain: true` keeps the explain records. */
export interface AssembleCall {
  sessionId: string;
  /** Sent by OpenClaw; the engine does not use it for assembling. */
  sessionKey?: string;
  /** The current user input, when the host passes it apart from `messages`. */
  prompt?: string;
  messages?: AgentMessage[];
  tokenBudget?: number;
  explain?: boolean;
}

/**
 * One OpenClaw transcript to bring into OpenViking (`ContextEngine.importSession`): its
 * events in order, as JSONL lines or OpenClaw's `event_json` rows.
 */
export interface ImportRequest {
  sessionId: string;
  lines: string[];
  /** Write; otherwise only report what would be written. */
  apply?: boolean;
  /** Only turns at or after this time (ms since the epoch). */
  sinceMs?: number;
  /** Only turns before this time. */
  untilMs?: number;
  /** Write at most this many turns in this run. */
  limit?: number;
  /** How long to wait for each commit's task (default 120 s). */
  commitWaitMs?: number;
  /**
   * The host's bootstrap of a live session: the transcript's last turn, if it has no
   * answer yet, is the live write's; `apply` follows `importOnBootstrap`; the report's
   * `note` is the line for the log.
   */
  firstContact?: boolean;
}

/**
 * Lines of an export to restore (`ContextEngine.restoreSession` / `restoreMemories`): one
 * session's (`ExportIndex.sessions[i].lines`) or the memories' (`ExportIndex.memoryLines`).
 */
export interface RestoreRequest {
  lines: string[];
  /** Write; otherwise only report what would be written. */
  apply?: boolean;
  /** Write at most this many turns (or memories) in this run. */
  limit?: number;
  /** How long to wait for each commit's task (default 120 s). */
  commitWaitMs?: number;
}

/** One finished turn, as the host hands it over (`ContextEngine.writeTurn` / `afterTurn`). */
export interface TurnWrite {
  sessionId: string;
  sessionKey?: string;
  /** Exactly the turn's messages (the host's slice); synthetic pairs may be included. */
  messages?: AgentMessage[];
  /** `commitTurn`'s idempotency key; absent for `afterTurn`. */
  advancementKey?: string;
  tokenBudget?: number;
  /** Estimated tokens of the context the model saw this turn (from `assemble`). */
  contextTokens?: number;
  /** Memory URIs `assemble` injected for this turn. */
  usedContextUris?: string[];
  isHeartbeat?: boolean;
  /**
   * `afterTurn` only: how many of `messages` came before this turn's prompt (anything
   * but a non-negative integer reads as 0).
   */
  prePromptMessageCount?: number;
}
