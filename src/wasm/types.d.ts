// TypeScript declarations of the JSON shapes that cross the wasm boundary.
// Generated from the Rust types (ts-rs, src/typescript/) by
// `UPDATE_TS=1 cargo test --features typescript --test typescript_declarations`;
// do not edit: change the Rust type, or the hand-written sections in src/typescript/*.d.ts.

// Hand-written: shapes that come from OpenClaw and OpenViking, which the engine reads
// leniently without a Rust type of its own, and the errors it throws. Not generated: edit
// here (src/typescript/external.d.ts), then run `UPDATE_TS=1 cargo test --features typescript --test typescript_declarations`.

/** An OpenClaw AgentMessage (user, assistant or toolResult); unknown fields pass through. */
export interface AgentMessage {
  role: "user" | "assistant" | "toolResult" | string;
  content?: string | Array<{ type: string; [key: string]: unknown }>;
  timestamp?: number;
  [key: string]: unknown;
}

/** One hit of OpenViking `POST /api/v1/search/find`. */
export interface FindItem {
  uri: string;
  level?: number;
  score?: number;
  abstract?: string | null;
  overview?: string | null;
  category?: string | null;
  context_type?: string;
  tags?: string[];
  [key: string]: unknown;
}

/** The `result` of a find call, or just its items. */
export type FindResult = { memories?: FindItem[]; [key: string]: unknown } | FindItem[];

/** Errors thrown by the engine. */
export interface EngineErrorShape extends Error {
  code: "INVALID_CONFIG" | "INVALID_INPUT" | "HOST_FAILED" | "HOST_TIMEOUT" | "INTERNAL";
  field: string | null;
}

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

// Generated from the Rust types.

/**
 * The resolved configuration: every key present, every value within bounds.
 */
export type ResolvedConfig = {
  mode: "local" | "remote",
  configPath: string,
  port: number,
  baseUrl: string,
  apiKey: string,
  agentId: string,
  timeoutMs: number,
  autoRecall: boolean,
  autoCapture: boolean,
  recallLimit: number,
  recallScoreThreshold: number,
  /**
   * Only candidates scoring within this of the best one (1 = no window).
   */
  recallScoreWindow: number,
  /**
   * A memory whose abstract shares no word with the query is not injected.
   */
  recallRequireQueryWord: boolean,
  /**
   * Near-duplicate cut: a candidate whose words are at least this share found in a
   * higher-scored one (and that matches the same query words) is a duplicate (0 = off).
   */
  recallNearDuplicateOverlap: number,
  recallMaxContentChars: number,
  /**
   * Lexical candidates beside the vector ones: OpenViking's grep over the user scope for the
   * query's words, fused with the find (`recall::lexical`).
   */
  recallLexical: boolean,
  recallPreferAbstract: boolean,
  recallTokenBudget: number,
  /**
   * `null` = the caller's own user memories (`viking://user/<uid>/memories`), resolved once
   * the user id is known. The legacy literal `viking://user/memories` also maps to `null`.
   */
  targetUri: string | null,
  captureMode: "semantic" | "keyword",
  captureMaxLength: number,
  recentRawTurnCount: number,
  assembleRecallWindow: number,
  compactCommitThreshold: number,
  memoryExpandMaxResults: number,
  compactTokensAddedThreshold: number,
  compactTurnThreshold: number,
  compactMaxIntervalMinutes: number,
  /**
   * A tool output above this many tokens is assembled as a stand-in (`tools::output_standin`).
   */
  largeToolResultTokens: number,
  hookFallback: boolean,
  /**
   * At the first contact with a session whose transcript holds earlier turns, import them
   * in the background (`engine::import`); otherwise the log says how to.
   */
  importOnBootstrap: boolean,
  /**
   * List the skills relevant to a turn in the recall pair (`recall::skills`).
   */
  skillRecall: boolean,
  /**
   * Skills listed per turn at most.
   */
  skillLimit: number,
  /**
   * The map of the user's and this agent's folders in the system prompt addition (`map`).
   */
  memoryMap: boolean,
  /**
   * The map never exceeds this many tokens.
   */
  memoryMapTokenBudget: number,
  stateDir: string | null,
};

/**
 * One problem with the plugin configuration: the key, the value given, what the engine does
 * about it, and what to change.
 */
export type ConfigProblem = {
  /**
   * The key (`(config)` for the object itself).
   */
  key: string,
  /**
   * `error`: the engine does not run until it is fixed; `warning`: it runs with the value
   * the message names.
   */
  severity: "error" | "warning",
  /**
   * The value as given, without secrets: `null` for `apiKey`; `"***"` for a field that may
   * hold one (a misspelled key field, `headers`), in an object at any depth too; a URL's
   * user info as `***`; the configured key, wherever it appears, as `[redacted]`.
   */
  value: unknown,
  /**
   * What is wrong and what the engine does instead, e.g. `recallLimit=500 is above the
   * maximum 100; using 100`.
   */
  message: string,
  /**
   * What to change, e.g. `set recallLimit to a whole number from 1 to 100 (default 6)`.
   */
  fix: string,
};

/**
 * A parsed configuration and the warnings parsing produced (clamped values, defaults used,
 * ignored keys), as lines and as problems.
 */
export type ParsedConfig = {
  config: ResolvedConfig,
  /**
   * Each warning as one line: what was wrong, the value used, the fix.
   */
  warnings: Array<string>,
  problems: Array<ConfigProblem>,
};

/**
 * `checkConfig`: every problem of a configuration at once (never thrown), and the
 * configuration the engine runs with — `null` when a problem is an error.
 */
export type ConfigCheck = {
  config: ResolvedConfig | null,
  problems: Array<ConfigProblem>,
  /**
   * When a problem is an error: the configuration with each key in error left at its
   * default — what `doctor` checks and `setup` starts a local server with while the errors
   * keep the engine off (e.g. `apiKey` naming a variable not set yet). `null` otherwise,
   * or when even that is not a configuration.
   */
  degraded: ResolvedConfig | null,
};

/**
 * A numeric plugin key's default and bounds (a value outside them is clamped, with a warning).
 */
export type KeyBounds = {
  key: string,
  default: number,
  min: number,
  max: number,
  /**
   * Only whole numbers are accepted.
   */
  integer: boolean,
};

export type SkipReason = "empty" | "greeting" | "command" | "too_short" | "injected_only";

export type QueryPart = {
  /**
   * The sanitised text (cut to 200 units when skipped, for display).
   */
  text: string,
  /**
   * "prompt" for the current input, "history" for an earlier user turn.
   */
  source: "prompt" | "history",
  skipped: SkipReason | null,
};

export type RecallQuery = {
  /**
   * `null` when every turn in the window was skipped: no recall this turn.
   */
  query: string | null,
  /**
   * Every turn looked at, newest first, with why it was skipped if it was.
   */
  parts: Array<QueryPart>,
};

/**
 * A kind of memory a question is about (OpenViking's memory folders: `preferences`,
 * `events`, `entities`, `cases`, `experiences`).
 */
export type MemoryType = "preference" | "event" | "entity" | "case_pattern" | "experience";

/**
 * The time span a turn names: `[startMs, endMs)`, and the words that named it.
 */
export type TimeWindow = { startMs: number, endMs: number, phrase: string, };

/**
 * What the intent analysis decided for one turn (shown in `trace` and the explain output).
 */
export type RecallIntent = {
  /**
   * `false`: the turn is not searched.
   */
  needsRecall: boolean,
  /**
   * Why, in one word: `acknowledgement`, `greeting`, `command`, `empty`,
   * `general_knowledge` (no recall), or `about_the_user`, `no_cue` (recall).
   */
  reason: string,
  /**
   * The memory types the turn is about, by cue words; empty when none is named.
   */
  types: Array<MemoryType>,
  window: TimeWindow | null,
  /**
   * The user-scope folder searched instead of the whole scope (when one type is named).
   */
  narrowedTo: string | null,
};

/**
 * What the rerank needs to know about the query, computed once per recall.
 */
export type QueryProfile = {
  /**
   * The first distinct lexical tokens, 8 tokens' worth (a CJK bigram weighs ½).
   */
  tokens: Array<string>,
  wantsTemporal: boolean,
  wantsPreference: boolean,
  /**
   * The query asks for the present state or the last decision ("now", "currently",
   * "still", "these days", "recently", "decided", "settled", "现在", "目前", "最近", "最后"):
   * of two versions of a fact, only the newest is wanted.
   */
  wantsRecent: boolean,
  /**
   * The query asks about the past or a change ("before", "originally", "first", "used
   * to", "switched", "之前", "原来", "换"): older versions of a fact stay.
   */
  wantsHistory: boolean,
  /**
   * The query's words written with a capital (lowercased): the names it mentions.
   */
  names: Array<string>,
  /**
   * The calendar span the query names with its year ("in March 2024", "2023年底"),
   * `[startMs, endMs)` in UTC days.
   */
  window: [number, number] | null,
};

/**
 * The components of one candidate's rank, shown in explain records.
 */
export type RankParts = {
  score: number,
  levelBoost: number,
  temporalBoost: number,
  preferenceBoost: number,
  lexicalBoost: number,
  /**
   * How many query tokens the candidate's uri + abstract contain.
   */
  matchedTokens: number,
  total: number,
};

export type CutReason = "malformed" | "not_level_2" | "below_threshold" | "agent_evolution" | "no_query_word" | "far_below_best" | "duplicate" | "superseded" | "over_limit" | "over_budget";

export type ExplainRecord = {
  uri: string,
  scope: "user" | "agent",
  /**
   * Position in the merged input (user results first, then agent results).
   */
  inputIndex: number,
  level: number | null,
  category: string | null,
  rank: RankParts,
  decision: "kept" | "cut",
  reason: CutReason | null,
  /**
   * For duplicates: the uri of the candidate this one duplicates.
   */
  duplicateOf: string | null,
  /**
   * For malformed items: what was wrong.
   */
  detail: string | null,
  /**
   * 1-based position among the injected memories.
   */
  position: number | null,
  /**
   * Estimated tokens of this memory's entry in the injected document (when it got that far).
   */
  tokens: number | null,
};

/**
 * One memory as the model sees it.
 */
export type RecalledMemory = { uri: string, category: string, content: string, score: number, };

/**
 * An experience of this agent's, as the engine hands it to the pipeline: from the find
 * answer (uri, score) and its stored text (the `MEMORY_FIELDS` comment removed).
 */
export type ExperienceCandidate = { uri: string, content: string, score: number, };

export type ExperienceCut = "below_threshold" | "unrelated" | "weaker_match" | "over_limit" | "over_budget";

/**
 * One experience candidate's fate, for `explain` and `trace`.
 */
export type ExperienceRecord = {
  uri: string,
  /**
   * The experience's name (its file name without `.md`).
   */
  name: string,
  score: number,
  decision: "kept" | "cut",
  reason: ExperienceCut | null,
  /**
   * Why it was a match: `same_tools: exec, web_fetch`, `same_task: deploy, billing`.
   */
  why: Array<string>,
  /**
   * Tokens its line added to the recall pair (when it got that far).
   */
  tokens: number | null,
  /**
   * 1-based position among the injected experiences.
   */
  position: number | null,
};

/**
 * What recall produced for one turn.
 */
export type RecallOutcome = {
  query: string,
  queryProfile: QueryProfile,
  /**
   * The injected memories, best first.
   */
  memories: Array<RecalledMemory>,
  /**
   * The synthetic `memory_recall_auto` call + result (empty when nothing is injected).
   */
  messages: AgentMessage[],
  /**
   * Estimated tokens of `messages`; never above `budget`.
   */
  tokens: number,
  budget: number,
  /**
   * One record per candidate: kept ones first in injection order, then cut ones by rank.
   */
  explain: Array<ExplainRecord>,
  /**
   * This agent's experiences considered for the turn (`recall::experience`): kept ones with
   * their position and tokens, cut ones and why; empty when none was searched.
   */
  experiences: ExperienceRecord[],
  /**
   * Tokens the injected experiences' lines added to the pair (part of `tokens`).
   */
  experienceTokens: number,
};

export type AutoRecall = {
  /**
   * How the query was built (turns used and skipped).
   */
  query: RecallQuery,
  /**
   * `null` when there was nothing to search for (every turn skipped) or recall is off.
   */
  recall: RecallOutcome | null,
  /**
   * The host's messages with earlier synthetic pairs removed and the new pair inserted.
   */
  messages: AgentMessage[],
};

/**
 * `Engine.recall`'s answer: [`AutoRecall`] without the message list (the pair is
 * `recall.messages`; the host places it).
 */
export type RecallAnswer = { query: RecallQuery, recall: RecallOutcome | null, };

/**
 * Whether a turn counts toward the compaction triggers, and why not (`capture::CaptureReason`).
 */
export type CaptureReason = "accepted" | "empty" | "injected_memory_context_only" | "too_short" | "too_long" | "command" | "punctuation_only" | "subagent_context" | "unanswered_question" | "no_keyword";

/**
 * A compaction trigger that fired (`triggers::Trigger`).
 */
export type Trigger = {
  "kind": "budget",
  tokens: number,
  threshold: number,
} | {
  "kind": "tokens_added",
  tokens: number,
  threshold: number,
} | {
  "kind": "turns",
  turns: number,
  threshold: number,
} | {
  "kind": "interval",
  minutes: number,
  threshold: number,
};

/**
 * What a replay did, and what stayed queued and why.
 */
export type FlushReport = {
  /**
   * Turns that reached OpenViking during this replay (including ones found already
   * stored after an unacknowledged write).
   */
  written: number,
  /**
   * Turns still waiting in the outbox.
   */
  queued: number,
  /**
   * Why the replay stopped with turns still queued (`null` when the outbox is empty, or
   * when another replay of the session was still under way).
   */
  reason: string | null,
  /**
   * Another replay of this session was under way: it takes the queued turns.
   */
  inProgress: boolean,
  /**
   * Queued memory changes (`memory_store`, `memory_forget` during an outage) this replay
   * applied, before the turns.
   */
  memoryApplied: number,
  /**
   * Memory changes still waiting.
   */
  memoryQueued: number,
};

export type WriteOutcome = {
  status: "committed" | "duplicate",
  /**
   * The turn's content had already been written (by the other of commitTurn/afterTurn):
   * acknowledged, not written again.
   */
  alreadyStored: boolean,
  ovSessionId: string,
  sequence: number | null,
  /**
   * The turn is in the outbox (OpenViking unreachable, or a commit is archiving).
   */
  queued: boolean,
  /**
   * Turns still waiting in the outbox after this call.
   */
  outboxLen: number,
  counted: boolean,
  captureReason: CaptureReason | null,
  /**
   * The trigger that fired, if one did.
   */
  trigger: Trigger | null,
  /**
   * A commit should start now (trigger fired and protection admits it); the host runs
   * `runCommit` without awaiting it.
   */
  commitDue: boolean,
  /**
   * `/new` or `/reset` moved this `sessionKey` to a new transcript: the previous
   * OpenViking session that should get its final commit.
   */
  previousOvSessionId: string | null,
};

export type CompactCheckpoint = {
  checkpointId: string,
  sessionId: string,
  committedAt: string,
  archiveIndex: number,
  sourceTurnRange: { startSequence: number, endSequence: number, },
  summaryUri?: string,
  extractedMemoryUris: Array<string>,
  archiveUri: string,
  taskId?: string,
  /**
   * Why the compaction ran (a trigger's reason, or "compact()").
   */
  reason: string,
  /**
   * The archive's summary (working memory overview) at compaction time, when it had one.
   */
  summary?: string,
  /**
   * Why the summary is not used (`summary_check`): empty, a placeholder, the empty
   * template, far shorter than the turns. `null`: trusted (or recorded by an earlier
   * release, then checked when read).
   */
  summaryProblem?: string,
  /**
   * The ids of the turns in the archive, in sequence order (`start_sequence` first):
   * archive message → turn, memory → archive → turns.
   */
  turnIds: Array<string>,
};

export type CommitOutcome = {
  /**
   * The session's live messages were archived (the working context changes).
   */
  compacted: boolean,
  /**
   * Why nothing was compacted, or what is still pending.
   */
  reason: string | null,
  /**
   * The checkpoint, once the task completed.
   */
  checkpoint: CompactCheckpoint | null,
  /**
   * The task is still running (followed later, also by a later process).
   */
  taskPending: boolean,
};

/**
 * What a transcript held that is not a turn, counted for the operator's report.
 */
export type Skipped = {
  /**
   * Lines that are not a JSON object (a truncated last line of a transcript cut by a crash).
   */
  unreadable: number,
  /**
   * Message events whose message has no role this engine stores.
   */
  unknownMessages: number,
  /**
   * Events of other branches (an edit or rewind left them behind).
   */
  otherBranches: number,
};

/**
 * What an import found and did for one transcript.
 */
export type ImportReport = {
  sessionId: string,
  /**
   * The live session of the transcript.
   */
  liveOvSessionId: string,
  /**
   * Where its past turns go.
   */
  ovSessionId: string,
  /**
   * Turns in the transcript (within since/until).
   */
  turns: number,
  toolCalls: number,
  /**
   * Estimated tokens of those turns.
   */
  tokens: number,
  /**
   * Time of the first and the last of them (ms), when the transcript says.
   */
  firstMs: number | null,
  lastMs: number | null,
  /**
   * Of them, already in OpenViking or this state dir's outbox (imported before, or
   * written live by the engine).
   */
  alreadyStored: number,
  /**
   * Written by this run (durable: in OpenViking or the outbox).
   */
  written: number,
  /**
   * Still to write (a dry run, `limit`, or a stop).
   */
  remaining: number,
  /**
   * Of the written turns, still in the outbox (OpenViking did not take them yet).
   */
  queued: number,
  /**
   * Commits this run started (each followed up to `commitWaitMs`).
   */
  commits: number,
  skipped: Skipped,
  /**
   * Why the run stopped before the end, if it did.
   */
  stopped: string | null,
  /**
   * At a first contact: the one line for the log (earlier turns found, and the command
   * that brings them in, or what was brought in); `null` when there is nothing to say.
   */
  note: string | null,
};

/**
 * What an export starts from: the header line and the agent's sessions in OpenViking.
 */
export type ExportStart = {
  header: string,
  /**
   * The agent's OpenViking sessions (ids), oldest first.
   */
  sessions: Array<string>,
};

/**
 * Lines of the file and what they hold.
 */
export type ExportLines = {
  lines: Array<string>,
  turns: number,
  memories: number,
  /**
   * What could not be exported, each with why.
   */
  problems: Array<string>,
};

export type ExportCounts = { sessions: number, turns: number, memories: number, };

export type IndexedSession = {
  sessionId: string,
  ovSessionId: string,
  archives: number,
  turns: number,
  /**
   * The lines (0-based) of its head, turns and checkpoints.
   */
  lines: Array<number>,
};

/**
 * What an export file holds, by line: which lines make each session and which are memories.
 */
export type ExportIndex = {
  agentId: string,
  exportedAt: string,
  sessions: Array<{ sessionId: string, ovSessionId: string, archives: number, turns: number, 
/**
 * The lines (0-based) of its head, turns and checkpoints.
 */
lines: Array<number>, }>,
  /**
   * The lines (0-based) of the memories.
   */
  memoryLines: Array<number>,
  /**
   * What the `end` line counted; `null`: the file has no end (cut short).
   */
  counted: ExportCounts | null,
  /**
   * The file ends with its `end` line and holds what it counted.
   */
  complete: boolean,
  /**
   * Lines left out, each with why (`line 7: …`).
   */
  problems: Array<string>,
};

/**
 * What a restore of one session found and did.
 */
export type RestoreReport = {
  sessionId: string,
  ovSessionId: string,
  /**
   * Turns in the file for it, and how many archives they were in.
   */
  turns: number,
  archives: number,
  alreadyStored: number,
  written: number,
  remaining: number,
  /**
   * Of the written turns, still in the outbox.
   */
  queued: number,
  /**
   * Commits this run made at the source's archive boundaries.
   */
  commits: number,
  /**
   * Archives the session has in OpenViking now.
   */
  archived: number,
  stopped: string | null,
};

/**
 * What a restore of the memories found and did.
 */
export type MemoryRestoreReport = {
  memories: number,
  /**
   * A memory at the same path is there already (it is kept, never overwritten).
   */
  alreadyStored: number,
  written: number,
  remaining: number,
  problems: Array<string>,
};

export type SessionRecord = {
  ovSessionId: string,
  /**
   * OpenClaw's `sessionId` (a transcript).
   */
  sessionId: string,
  /**
   * OpenClaw's `sessionKey` (a conversation; survives `/new`).
   */
  sessionKey: string | null,
  /**
   * The OpenViking session has been created.
   */
  created: boolean,
  state: Record<string, unknown>,
  guard: Record<string, unknown>,
  /**
   * Advancement keys already written, oldest first.
   */
  appliedKeys: Array<string>,
  /**
   * Content keys of turns already written (see `write::content_key`), oldest first: hosts
   * that call both `commitTurn` and `afterTurn` for one turn get it written once.
   */
  contentKeys: Array<string>,
  checkpoints: { checkpoints: Array<CompactCheckpoint>, },
  /**
   * Turn ids of the archive whose commit task is being followed.
   */
  pendingTurnIds: Array<string>,
  /**
   * The session's live message count on OpenViking after this engine's last confirmed
   * write; `null` when unknown (nothing confirmed yet, or a commit since).
   */
  liveCount: number | null,
  /**
   * A turn whose write failed in a way that may still have reached OpenViking (timeout,
   * reset, 5xx, garbled answer): checked before it is sent again (see `write::flush`).
   * The durable copy is the mark's own document ([`mark_key`]).
   */
  unconfirmed: { sequence: number, 
/**
 * `live_count` before the send.
 */
liveBefore: number, messageCount: number, 
/**
 * When the send started (the host's wall clock); 0 in a mark saved before this field
 * existed. Read only as far as it is plausible (`host::clock::wall_elapsed_ms`).
 */
atMs: number, } | null,
  /**
   * OpenViking was asked whether it holds this session already (what another machine or
   * an earlier state dir wrote is adopted then, see `rebuild`). A record saved before
   * this field existed was made with the session: nothing to adopt.
   */
  openvikingChecked: boolean,
  /**
   * The session's transcript was looked at for turns from before the engine (once, at
   * the first contact: `import::past_check_due`).
   */
  pastChecked: boolean,
  /**
   * OpenViking's commit count for the session as this state dir last knew it (its own
   * commits, an adoption, a follow of another machine's: `follow`); `null` in a record
   * from before it was kept.
   */
  seenCommits: number | null,
  /**
   * The live message count up to which this state dir knows every message's turn: moved
   * by a send only when OpenViking's answer shows no other writer's messages came between;
   * `null`: unknown (a commit since). A count past it means another machine wrote (`follow`).
   */
  followedLive: number | null,
};

export type AssembleResult = {
  query: RecallQuery,
  recall: RecallOutcome | null,
  /**
   * `estimatedTokens` by part.
   */
  split: { summary: number, raw: number, recall: number, current: number, 
/**
 * The skills section of the recall pair (`recall::skills`); absent when none was listed.
 */
skills?: number, 
/**
 * The user message opening the recall pair in the context (outside `recallTokenBudget`);
 * absent when the pair is not in the context.
 */
recallOpening?: number, 
/**
 * The map of folders (`map`), counted against the budget; absent when there is none.
 */
map?: number, },
  /**
   * Tool outputs the model sees as stand-ins (`tools::output_standin`), oldest first.
   */
  standIns: Array<StandInRef>,
  /**
   * The skills listed in the recall pair (why: their search score; cost: `tokens` each).
   */
  skills: Array<SkillEntry>,
  /**
   * The map of the folders in the system prompt addition, when it was included.
   */
  map: MemoryMap | null,
  messages: AgentMessage[],
  estimatedTokens: number,
  systemPromptAddition: string | null,
  compactSummaries: Array<{ checkpointId: string, sessionUri: string, overview: string, turns: [number, number], }>,
  /**
   * How many prior turns stay raw.
   */
  recentRawTurns: number,
  /**
   * How many prior turns a summary stands for.
   */
  summarizedTurns: number,
  recallIncluded: boolean,
  trimmed: { recall: boolean, olderSummaries: number, rawTurns: number, latestSummary: boolean, },
  overBudget: boolean,
  budget: number | null,
};

/**
 * What `assemble` answers: the context for the model, and what went into it.
 */
export type Assembled = {
  /**
   * Why the memories could not be searched this turn (both scopes failed), if so.
   */
  recallUnavailable: string | null,
  /**
   * What recall did this turn (searched, skipped and why, off, nothing to search for).
   */
  recallStatus: RecallStatus,
  query: RecallQuery,
  recall: RecallOutcome | null,
  /**
   * `estimatedTokens` by part.
   */
  split: { summary: number, raw: number, recall: number, current: number, 
/**
 * The skills section of the recall pair (`recall::skills`); absent when none was listed.
 */
skills?: number, 
/**
 * The user message opening the recall pair in the context (outside `recallTokenBudget`);
 * absent when the pair is not in the context.
 */
recallOpening?: number, 
/**
 * The map of folders (`map`), counted against the budget; absent when there is none.
 */
map?: number, },
  /**
   * Tool outputs the model sees as stand-ins (`tools::output_standin`), oldest first.
   */
  standIns: Array<StandInRef>,
  /**
   * The skills listed in the recall pair (why: their search score; cost: `tokens` each).
   */
  skills: Array<SkillEntry>,
  /**
   * The map of the folders in the system prompt addition, when it was included.
   */
  map: MemoryMap | null,
  messages: AgentMessage[],
  estimatedTokens: number,
  systemPromptAddition: string | null,
  compactSummaries: Array<{ checkpointId: string, sessionUri: string, overview: string, turns: [number, number], }>,
  /**
   * How many prior turns stay raw.
   */
  recentRawTurns: number,
  /**
   * How many prior turns a summary stands for.
   */
  summarizedTurns: number,
  recallIncluded: boolean,
  trimmed: { recall: boolean, olderSummaries: number, rawTurns: number, latestSummary: boolean, },
  overBudget: boolean,
  budget: number | null,
};

/**
 * What `compact()` answers the host.
 */
export type CompactAnswer = {
  ok: boolean,
  compacted: boolean,
  reason?: string,
  result?: { summary: string, tokensBefore: number, tokensAfter: number, details: { checkpoint: CompactCheckpoint | null; taskPending: boolean }, },
};

/**
 * One tool as it is registered with the host.
 */
export type ToolDefinition = {
  name: "memory_recall" | "memory_store" | "memory_forget" | "memory_expand" | "memory_read_output" | "memory_search_history" | "memory_recall_auto",
  label: string,
  description: string,
  parameters: Record<string, unknown>,
};

/**
 * `ContextEngine.status`: one session, for an operator.
 */
export type SessionStatus = {
  ovSessionId: string,
  sessionId: string,
  /**
   * Turns acknowledged for this session (written to OpenViking or queued).
   */
  turnsStored: number,
  outboxDepth: number,
  /**
   * How long the oldest queued turn has waited (`null`: nothing queued, or queued by an
   * older release that did not stamp entries).
   */
  oldestQueuedAgeMs: number | null,
  lastCommitAtMs: number | null,
  lastCommitReason: string | null,
  /**
   * `idle`, `archiving` or `extracting` (a commit task being followed).
   */
  commitPhase: "idle" | "archiving" | "extracting",
  checkpoints: number,
  /**
   * Checkpoints whose summary is not used (`summary_check`): the turns behind them stay
   * raw where the host still holds them, the previous good summary stands for older ones.
   */
  distrustedSummaries: number,
  lastCheckpoint: { checkpointId: string, archiveUri: string, committedAt: string, turns: [number, number], hasSummary: boolean, 
/**
 * Why its summary is not used (empty, a placeholder, …), `null` when it is.
 */
summaryProblem: string | null, extractedMemories: number, } | null,
  triggers: Array<{ 
/**
 * `budget`, `tokens_added`, `turns` or `interval`.
 */
kind: "budget" | "tokens_added" | "turns" | "interval", current: number, 
/**
 * `null` for the budget trigger while the host has sent no budget.
 */
threshold: number | null, 
/**
 * What `current` counts, e.g. `turns since the last commit`, `min since the first turn
 * (no commit yet)`.
 */
unit: string, }>,
  /**
   * What would fire now, if anything (a reason a person can read, and when the commit
   * runs: a trigger is evaluated when a turn is written).
   */
  nextTrigger: string | null,
  /**
   * When the interval trigger fires at the latest (it needs a counted turn).
   */
  intervalDueAtMs: number | null,
  /**
   * When this process last assembled the session (`null`: not in this process).
   */
  lastAssembledAtMs: number | null,
};

/**
 * The intent of a turn as `trace` shows it: the decision, and the find it led to.
 */
export type IntentTrace = {
  needsRecall: boolean,
  reason: string,
  types: Array<string>,
  /**
   * The window's words and its start (ISO), sent as `since`.
   */
  window: string | null,
  since: string | null,
  /**
   * The user-scope folder searched instead of the whole scope.
   */
  narrowedTo: string | null,
  /**
   * The narrowed or windowed find returned no memory, so the whole user scope was searched.
   */
  fellBack: boolean,
};

/**
 * What recall did for one assembled turn, in one word, with a line a person reads:
 * `searched` (both scopes, or one, answered: `found` candidates, `injected` of them reached
 * the model — 0 and 0 is "searched, found nothing"), `skipped` (OpenViking could not be
 * searched: `reason` says why and how to fix it), `off` (`autoRecall: false`), `no_query`
 * (every user turn in the window was skipped, so nothing was searched), `not_needed` (the
 * intent analysis decided this turn needs no recall: `intent.reason` says why).
 */
export type RecallStatus = {
  state: "searched" | "skipped" | "off" | "no_query" | "not_needed",
  found: number,
  injected: number,
  /**
   * Why recall was skipped, or why one of the two scopes failed.
   */
  reason: Reachability | null,
  line: string,
  /**
   * What the intent analysis decided for the current turn (`recall::intent`), and how the
   * user scope was searched because of it; absent in traces of earlier releases.
   */
  intent?: IntentTrace,
  /**
   * How the intent shaped the search, as `line` ends with it (` (intent: …)`), or empty.
   */
  intentNote: string,
};

/**
 * The last assembled turn of a session, in full.
 */
export type Trace = {
  atMs: number,
  query: RecallQuery,
  /**
   * The scopes searched (`null`: recall off, or nothing to search for).
   */
  scopes: MemoryScopes | null,
  /**
   * Memories injected and every candidate's explain record (`RecallOutcome`).
   */
  recall: RecallOutcome | null,
  /**
   * What recall did: searched (and found nothing, or something), skipped and why (the key
   * refused, a local server still starting, unreachable), off, nothing to search for.
   * `null` in a trace kept by an earlier release.
   */
  recallStatus: RecallStatus | null,
  tokenBudget: number | null,
  estimatedTokens: number,
  /**
   * The token split of the composed context.
   */
  split: { recall: number, summaries: number, summarizedTurns: number, recentRawTurns: number, trimmed: unknown, overBudget: boolean, 
/**
 * Summaries not used because they cannot be trusted (`summary_check`).
 */
distrustedSummaries: number, 
/**
 * Tokens of the skills listed in the recall pair (inside `recall`'s pair, not in `recall`).
 */
skills: number, 
/**
 * Tokens of the map of folders in the system prompt addition.
 */
map: number, },
  /**
   * Set when this state dir never assembled the turn (another machine did, or the state
   * dir was lost): what OpenViking holds of the last stored turn. `null` otherwise.
   */
  rebuilt: { turnId: string, 
/**
 * `true`: read from the newest archive (nothing live since the last commit).
 */
archived: boolean, injectedUris: Array<string>, } | null,
  /**
   * The skills listed for the turn: why (their score for its query) and what each cost.
   */
  skills: Array<SkillEntry>,
  /**
   * The map of folders the turn's system prompt carried (`null`: none).
   */
  map: MemoryMap | null,
};

/**
 * What the plugin can see of its host (each part may be unknown).
 */
export type HostFacts = {
  /**
   * `plugins.slots.contextEngine` as configured (`null`: not set, or not visible).
   */
  slot?: string | null,
  /**
   * The host's version, e.g. `2026.9.6`.
   */
  hostVersion?: string | null,
};

/**
 * Why the engine is not (fully) in use, and what to change.
 */
export type Inert = {
  /**
   * `not_in_slot`, `host_too_old`, `host_untested`, `not_called`.
   */
  code: "not_in_slot" | "host_too_old" | "host_untested" | "not_called",
  cause: string,
  fix: string,
};

/**
 * The two memory scopes a recall searches.
 */
export type MemoryScopes = { user: string, agent: string, };

/**
 * What a URI given to `memory_expand` points at.
 */
export type ExpandTarget = {
  "kind": "archive",
  session_id: string,
  archive_id: string,
} | {
  "kind": "session",
  session_id: string,
} | {
  "kind": "memory",
  uri: string,
};

export type Expansion = {
  archiveUri: string,
  checkpointId: string | null,
  turnRange: [number, number] | null,
  excerpts: Array<{ turnId: string | null, sequence: number | null, 
/**
 * `[user] …` / `[assistant] …` / `[tool exec] …` lines, cut to a readable length.
 */
text: string, score: number, 
/**
 * Message ids in the archive, for reading further.
 */
messageIds: Array<string>, }>,
  totalTurns: number,
  /**
   * URIs the model can read further (archive messages, overview, checkpoint).
   */
  readable: Array<string>,
};

export type TimelineStep = {
  /**
   * 0-based index of the turn (a turn starts at a user message).
   */
  turn: number,
  counted: boolean,
  captureReason: CaptureReason,
  tokens: number,
  /**
   * Context tokens so far in the current window (what the budget trigger sees).
   */
  contextTokens: number,
  trigger: Trigger | null,
};

/**
 * What the model saw instead of an output (`Assembled.standIns`).
 */
export type StandInRef = {
  reference: string,
  toolName: string,
  callId: string,
  /**
   * Tokens of the whole output, and of the stand-in the model saw.
   */
  tokens: number,
  standInTokens: number,
  lines: number,
};

/**
 * One skill as listed for the model, with its search score and what it cost.
 */
export type SkillEntry = {
  name: string,
  description: string,
  /**
   * The skill's root (`…/skills/<name>`), what `memory_expand` reads.
   */
  uri: string,
  score: number,
  /**
   * Tokens its line added to the pair (0 when it did not fit).
   */
  tokens: number,
};

/**
 * The map as composed for a turn: its text, its tokens, how many entries it lists and how
 * many it left out, and when it was built (for `trace` and the tuning page).
 */
export type MemoryMap = {
  text: string,
  tokens: number,
  listed: number,
  leftOut: number,
  builtAtMs: number,
};

/**
 * One matching line of a query read.
 */
export type ReadMatch = { line: number, text: string, };

/**
 * What `memory_read_output` answers.
 */
export type OutputRead = {
  reference: string,
  totalLines: number,
  totalTokens: number,
  /**
   * The exact text of lines `fromLine..=toLine` (a line range read).
   */
  text?: string,
  fromLine?: number,
  toLine?: number,
  /**
   * The matching lines and their context, in order (a query read).
   */
  matches?: Array<ReadMatch>,
  /**
   * Lines containing the query in the whole output (a query read).
   */
  matchCount?: number,
  /**
   * The token bound cut the answer short: read on from `next`.
   */
  truncated: boolean,
  nextFromLine?: number,
};

/**
 * `GET /health`, sent without the key.
 */
export type HealthProbe = {
  reachable: boolean,
  version: string | null,
  latencyMs: number | null,
  error: string | null,
};

/**
 * `GET /api/v1/system/status`, with the key.
 */
export type AuthProbe = {
  /**
   * Whom the key belongs to; `null` when the server named no user or refused.
   */
  userId: string | null,
  /**
   * The server refused the key (401/403, `UNAUTHENTICATED`, `PERMISSION_DENIED`).
   */
  denied: boolean,
  error: string | null,
};

/**
 * A probe search of the user's memories.
 */
export type FindProbe = {
  /**
   * False when it was not tried (no user id to address the user's memories).
   */
  ran: boolean,
  scope: string | null,
  hits: number,
  error: string | null,
};

/**
 * What the plugin sees of the local server it manages (local mode), on disk and in this
 * process: the engine cannot see a start under way.
 */
export type LocalServerFacts = {
  /**
   * A start is under way: in this process, or by a live process holding the start lock, or
   * a server spawned for this state dir runs but does not answer yet.
   */
  starting?: boolean,
  /**
   * Why the last start in this process failed (`openviking-server not found …`).
   */
  failed?: string | null,
  /**
   * The server's log file.
   */
  logPath?: string | null,
};

/**
 * Can OpenViking be used now? One word (`state`), the line a person reads, the fix.
 */
export type Reachability = {
  state: "ok" | "no_user" | "key_refused" | "server_starting" | "unreachable" | "server_error",
  message: string,
  /**
   * What to change (`null` when nothing is wrong).
   */
  fix: string | null,
};

/**
 * The operator's checks of the server (`ContextEngine.probe`), each reported, never thrown.
 */
export type Probe = {
  baseUrl: string,
  health: HealthProbe,
  auth: AuthProbe,
  find: FindProbe,
  /**
   * What it adds up to, with the fix (see [`verdict`]).
   */
  verdict: Reachability,
};

/**
 * A user key and how it was made.
 */
export type UserKey = {
  accountId: string,
  userId: string,
  userKey: string,
  /**
   * The account existed: the user's key was made anew (an older key no longer works).
   */
  regenerated: boolean,
};

// Hand-written: the host callbacks (the I/O the lifecycle engine asks of the plugin) and the
// records they carry. Not generated: edit here (src/typescript/host.d.ts), then run
// `UPDATE_TS=1 cargo test --features typescript --test typescript_declarations`.

/** One HTTP exchange, as the engine's OpenViking protocol code (src/openviking) asks for it:
 *  send it as given (no redirects followed) and answer the status and the body text. */
export interface HttpRequest {
  method: "GET" | "POST" | "DELETE";
  /** Absolute, path and query already encoded. */
  url: string;
  /** Includes `X-API-Key` when there is one: never log them. */
  headers: Record<string, string>;
  /** JSON text (with `Content-Type: application/json`), or undefined. */
  body?: string;
  /** Give up after this long and reject with `{kind: "timeout"}`. */
  timeoutMs: number;
}

export interface HttpAnswer {
  status: number;
  body: string;
}

/** The I/O the lifecycle engine asks of its host: the transport, durable storage, the clock
 *  and the log. Async methods may reject with an Error whose `kind` is one of HostErrorKind
 *  (`request`: "timeout", else the exchange counts as "unreachable"). */
export interface HostCallbacks {
  /** One exchange with OpenViking (the plugin: `fetch`, gated in local mode). */
  request(request: HttpRequest): Promise<HttpAnswer>;
  /** A document as its JSON text, as saved, or null. Documents and outbox entries cross as
   *  the engine's own JSON text, which the host stores and hands back as is. */
  loadStateText(key: string): Promise<string | null>;
  /** Saves durably (synced) the document's JSON text as given, replacing the previous one. */
  saveStateText(key: string, text: string): Promise<unknown>;
  /** Optional: saves a document the engine can rebuild (a cache) — replaced atomically, not
   *  synced to disk; without it the engine saves caches with `saveStateText`. */
  saveCacheText?(key: string, text: string): Promise<unknown>;
  /** The state keys starting with `prefix`. */
  listStateKeys(prefix: string): Promise<string[]>;
  /** Appends one entry (an object's JSON text, its `turnId` beside it) durably: resolves only
   *  once every byte is written, synced and readable back; an entry whose `turnId` is already
   *  queued is not appended again. */
  outboxAppendText(key: string, text: string, turnId: string | null): Promise<unknown>;
  /** The queued entries' JSON texts in order; entries torn by a crash or a full disk are never
   *  returned. */
  outboxReadText(key: string): Promise<string[]>;
  /** Removes the entries with these `turnId`s. */
  outboxDrop(key: string, turnIds: string[]): Promise<unknown>;
  /** Optional (hosts whose state dir two processes may share must have it): takes the lock
   *  `name` without waiting; a holder that died or outlived `ttlMs` loses it. Not re-entrant.
   *  Operations on the outbox `name` issued after it settle after it. */
  tryLock?(name: string, ttlMs: number): Promise<boolean>;
  /** Gives back this host's own lock `name`. */
  unlock?(name: string): Promise<unknown>;
  sleep(ms: number): Promise<unknown>;
  /** The wall clock, ms since the epoch. It may jump: the engine measures its waits on
   *  `monotonicMs` when there is one, and a wait stamped later than `nowMs` (or at no
   *  plausible time) is over. */
  nowMs(): number;
  /** Optional: a clock that never goes back and ignores changes to the wall clock, in ms
   *  (`performance.now()`); without it the engine's waits are measured on `nowMs`. */
  monotonicMs?(): number;
  warn(message: string): void;
}

export type HostErrorKind = "unreachable" | "timeout" | "server_error" | "bad_response" | "not_found" | "conflict" | "denied" | "rejected" | "local";

/** A message as OpenViking stores it: native parts. */
export interface OpenVikingMessage {
  role: "user" | "assistant";
  parts: Array<{ type: "text" | "tool" | "context"; [key: string]: unknown }>;
}

/** One turn waiting in a session's outbox (src/engine/write.rs builds it). */
export interface OutboxEntry {
  sequence: number;
  turnId: string;
  advancementKey: string | null;
  contentKey: string;
  /** Estimated tokens of the turn (for the token trigger). */
  tokens: number;
  /** Counts toward the triggers (not a heartbeat, not skipped by capture). */
  counts: boolean;
  queuedAtMs: number;
  messages: OpenVikingMessage[];
}
