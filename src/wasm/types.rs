//! TypeScript declarations for the JSON shapes that cross the boundary, so the published
//! `.d.ts` has no `any`. Kept next to the Rust types they mirror: `config::Config`,
//! `recall::*`, `messages::synthetic::RecalledMemory`, `auto_recall::*`.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** The plugin configuration as a user writes it (`plugins.entries.openviking.config`). */
export interface PluginConfig {
  mode?: "local" | "remote";
  configPath?: string;
  port?: number;
  baseUrl?: string;
  apiKey?: string;
  agentId?: string;
  timeoutMs?: number;
  autoRecall?: boolean;
  autoCapture?: boolean;
  recallLimit?: number;
  recallScoreThreshold?: number;
  recallMaxContentChars?: number;
  recallPreferAbstract?: boolean;
  recallTokenBudget?: number;
  targetUri?: string;
  captureMode?: "semantic" | "keyword";
  captureMaxLength?: number;
  recentRawTurnCount?: number;
  assembleRecallWindow?: number;
  compactCommitThreshold?: number;
  memoryExpandMaxResults?: number;
  compactTokensAddedThreshold?: number;
  compactTurnThreshold?: number;
  compactMaxIntervalMinutes?: number;
  hookFallback?: boolean;
  stateDir?: string;
  [ingestReplyAssist: `ingestReplyAssist${string}`]: unknown;
}

/** Every key resolved and within bounds. `targetUri: null` = the caller's own user memories. */
export interface ResolvedConfig {
  mode: "local" | "remote";
  configPath: string;
  port: number;
  baseUrl: string;
  apiKey: string;
  agentId: string;
  timeoutMs: number;
  autoRecall: boolean;
  autoCapture: boolean;
  recallLimit: number;
  recallScoreThreshold: number;
  recallMaxContentChars: number;
  recallPreferAbstract: boolean;
  recallTokenBudget: number;
  targetUri: string | null;
  captureMode: "semantic" | "keyword";
  captureMaxLength: number;
  recentRawTurnCount: number;
  assembleRecallWindow: number;
  compactCommitThreshold: number;
  memoryExpandMaxResults: number;
  compactTokensAddedThreshold: number;
  compactTurnThreshold: number;
  compactMaxIntervalMinutes: number;
  hookFallback: boolean;
  stateDir: string | null;
}

export interface ParsedConfig {
  config: ResolvedConfig;
  warnings: string[];
}

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

export interface RecallRequest {
  /** The current user input (OpenClaw 2026.9.x passes it apart from `messages`). */
  prompt?: string;
  /** The messages `assemble` received. */
  messages?: AgentMessage[];
  /** Overrides the query built from prompt + messages (explicit recall). */
  query?: string;
  search?: { user?: FindResult | null; agent?: FindResult | null };
  /** Full texts read for picked items, by uri. */
  contents?: Record<string, string>;
  nowMs?: number;
  /** The user's stable profile (profile.md), always a recall candidate. */
  profile?: { uri: string; text?: string } | null;
}

export type SkipReason = "empty" | "greeting" | "command" | "too_short" | "injected_only";

export interface QueryPart {
  text: string;
  source: "prompt" | "history";
  skipped: SkipReason | null;
}

export interface RecallQuery {
  query: string | null;
  parts: QueryPart[];
}

export interface QueryProfile {
  tokens: string[];
  wantsTemporal: boolean;
  wantsPreference: boolean;
}

export interface RankParts {
  score: number;
  levelBoost: number;
  temporalBoost: number;
  preferenceBoost: number;
  lexicalBoost: number;
  matchedTokens: number;
  total: number;
}

export type CutReason = "malformed" | "not_level_2" | "below_threshold" | "duplicate" | "over_limit" | "over_budget";

export interface ExplainRecord {
  uri: string;
  scope: "user" | "agent";
  inputIndex: number;
  level: number | null;
  category: string | null;
  rank: RankParts;
  decision: "kept" | "cut";
  reason: CutReason | null;
  duplicateOf: string | null;
  detail: string | null;
  position: number | null;
  tokens: number | null;
}

export interface RecalledMemory {
  uri: string;
  category: string;
  content: string;
  score: number;
}

export interface RecallOutcome {
  query: string;
  queryProfile: QueryProfile;
  memories: RecalledMemory[];
  messages: AgentMessage[];
  tokens: number;
  budget: number;
  explain: ExplainRecord[];
}

export interface AutoRecall {
  query: RecallQuery;
  recall: RecallOutcome | null;
  messages: AgentMessage[];
}

/** The I/O the lifecycle engine asks of its host. Async methods may reject with an Error
 *  whose `kind` is one of HostErrorKind (or whose `code` is an OpenViking client code). */
export interface HostCallbacks {
  sessionMeta(ovSessionId: string): Promise<{ message_count?: number; commit_count?: number; pending_tokens?: number } | null>;
  createSession(ovSessionId: string, memoryPolicy: Record<string, unknown>): Promise<unknown>;
  /** Resolves to the server's answer; its `message_count` (live messages after the append) is used. */
  addMessages(ovSessionId: string, messages: OpenVikingMessage[]): Promise<{ message_count?: number } | void>;
  /** The session's live (not yet archived) messages, oldest first. */
  liveMessages(ovSessionId: string): Promise<unknown[]>;
  commit(ovSessionId: string, body: Record<string, unknown>): Promise<{ status: string; task_id?: string | null; archive_uri?: string; reason?: string }>;
  task(taskId: string): Promise<{ status: string; result?: unknown; error?: unknown }>;
  archive(ovSessionId: string, archiveId: string): Promise<{ overview?: string; abstract?: string; messages?: unknown[] }>;
  readJson(uri: string): Promise<unknown>;
  writeJson(uri: string, value: unknown): Promise<unknown>;
  /** `POST /api/v1/search/find` with `score_threshold: 0`: the find result (`{memories: [...]}`). */
  find(targetUri: string, query: string, limit: number): Promise<unknown>;
  /** A file's text, or null when there is no such file (`GET /api/v1/content/read`). */
  readContent(uri: string): Promise<string | null>;
  /** `POST /api/v1/content/write {uri, content, mode, wait}`. */
  writeText(uri: string, content: string, mode: "create" | "replace", wait: boolean): Promise<unknown>;
  /** `GET /api/v1/fs/stat`: `{uri, isDir, ...}`, or null (or a NOT_FOUND rejection) when nothing is there. */
  stat(uri: string): Promise<{ uri?: string; isDir?: boolean } | null>;
  /** `DELETE /api/v1/fs?uri=…&recursive=false&wait=true`: `{uri, estimated_deleted_count}`. */
  deleteUri(uri: string): Promise<{ estimated_deleted_count?: number } | null>;
  /** The OpenViking user id behind the API key, or null when the server does not say. */
  userId(): Promise<string | null>;
  loadState(key: string): Promise<unknown | null>;
  saveState(key: string, value: unknown): Promise<unknown>;
  /** The state keys starting with `prefix`. */
  listStateKeys(prefix: string): Promise<string[]>;
  outboxAppend(key: string, entry: OutboxEntry): Promise<unknown>;
  outboxRead(key: string): Promise<OutboxEntry[]>;
  outboxDrop(key: string, count: number): Promise<unknown>;
  sleep(ms: number): Promise<unknown>;
  nowMs(): number;
  warn(message: string): void;
}

export type HostErrorKind = "unreachable" | "timeout" | "server_error" | "bad_response" | "not_found" | "conflict" | "rejected" | "local";

/** A message as OpenViking stores it: native parts. */
export interface OpenVikingMessage {
  role: "user" | "assistant";
  parts: Array<{ type: "text" | "tool" | "context"; [key: string]: unknown }>;
}

export interface OutboxEntry {
  sequence: number;
  turnId: string;
  messages: OpenVikingMessage[];
}

export interface TurnWrite {
  sessionId: string;
  sessionKey?: string;
  messages: AgentMessage[];
  advancementKey?: string;
  tokenBudget?: number;
  contextTokens?: number;
  usedContextUris?: string[];
  isHeartbeat?: boolean;
}

export type Trigger =
  | { kind: "budget"; tokens: number; threshold: number }
  | { kind: "tokens_added"; tokens: number; threshold: number }
  | { kind: "turns"; turns: number; threshold: number }
  | { kind: "interval"; minutes: number; threshold: number };

/** What a replay of the outbox did (`flush`). */
export interface FlushReport {
  /** Turns that reached OpenViking in this replay. */
  written: number;
  /** Turns still waiting in the outbox. */
  queued: number;
  /** Why turns stayed queued; null when the outbox is empty. */
  reason: string | null;
  /** Another replay of this session was under way; it takes the queued turns. */
  inProgress: boolean;
}

export interface WriteOutcome {
  status: "committed" | "duplicate";
  alreadyStored: boolean;
  ovSessionId: string;
  sequence: number | null;
  queued: boolean;
  outboxLen: number;
  counted: boolean;
  captureReason: string | null;
  trigger: Trigger | null;
  commitDue: boolean;
  previousOvSessionId: string | null;
}

export interface CompactCheckpoint {
  checkpoint_id: string;
  session_id: string;
  committed_at: string;
  archive_index: number;
  source_turn_range: { start_sequence: number; end_sequence: number };
  summary_uri?: string;
  extracted_memory_uris: string[];
  archive_uri: string;
  task_id?: string;
  reason: string;
  summary?: string;
}

export interface CommitOutcome {
  compacted: boolean;
  reason: string | null;
  checkpoint: CompactCheckpoint | null;
  taskPending: boolean;
}

export interface SessionRecord {
  ovSessionId: string;
  sessionId: string;
  sessionKey: string | null;
  created: boolean;
  state: Record<string, unknown>;
  guard: Record<string, unknown>;
  appliedKeys: string[];
  checkpoints: { checkpoints: CompactCheckpoint[] };
}

export interface AssembleRequest extends RecallRequest {
  tokenBudget?: number;
  /** Compact summaries from the session's checkpoints, oldest first. */
  summaries?: Array<{ checkpointId?: string; archiveUri?: string; startSequence: number; endSequence: number; text?: string }>;
  /** The engine's next turn sequence for the session (turns written so far). */
  nextSequence?: number;
}

export interface AssembleResult {
  query: RecallQuery;
  recall: RecallOutcome | null;
  messages: AgentMessage[];
  estimatedTokens: number;
  systemPromptAddition: string | null;
  compactSummaries: Array<{ checkpointId: string; sessionUri: string; overview: string; turns: [number, number] }>;
  recentRawTurns: number;
  summarizedTurns: number;
  recallIncluded: boolean;
  trimmed: { recall: boolean; olderSummaries: number; rawTurns: number; latestSummary: boolean };
  overBudget: boolean;
  budget: number | null;
  /** `estimatedTokens` by part: the summary message, raw turns, the recall pair, the current turn. */
  split: { summary: number; raw: number; recall: number; current: number };
}

/** `ContextEngine.assemble`'s input. `explain: true` keeps the explain records. */
export interface AssembleCall {
  sessionId: string;
  sessionKey?: string;
  prompt?: string;
  messages: AgentMessage[];
  tokenBudget?: number;
  explain?: boolean;
}

/** `ContextEngine.assemble`'s answer (`recall.messages` is empty: the pair is in `messages`). */
export interface Assembled extends AssembleResult {
  /** Why the memories could not be searched this turn (both scopes failed), if so. */
  recallUnavailable: string | null;
}

/** `ContextEngine.compact`'s answer, in OpenClaw's `compact()` result shape. */
export interface CompactAnswer {
  ok: boolean;
  compacted: boolean;
  reason?: string;
  result?: { summary: string; tokensBefore: number; tokensAfter: number; details: { checkpoint: CompactCheckpoint | null; taskPending: boolean } };
}

/** A memory tool as the host registers it (JSON-schema parameters). */
export interface ToolDefinition {
  name: "memory_recall" | "memory_store" | "memory_forget" | "memory_expand" | "memory_recall_auto";
  label: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** `ContextEngine.status`: one session, for an operator. */
export interface SessionStatus {
  ovSessionId: string;
  sessionId: string;
  turnsStored: number;
  outboxDepth: number;
  oldestQueuedAgeMs: number | null;
  lastCommitAtMs: number | null;
  lastCommitReason: string | null;
  commitPhase: "idle" | "archiving" | "extracting";
  checkpoints: number;
  lastCheckpoint: { checkpointId: string; archiveUri: string; committedAt: string; turns: [number, number]; hasSummary: boolean; extractedMemories: number } | null;
  triggers: Array<{ kind: "budget" | "tokens_added" | "turns" | "interval"; current: number; threshold: number | null }>;
  nextTrigger: string | null;
  intervalDueAtMs: number | null;
  lastAssembledAtMs: number | null;
}

/** `ContextEngine.trace`: the last assembled turn of a session. */
export interface Trace {
  atMs: number;
  query: RecallQuery;
  scopes: MemoryScopes | null;
  recall: RecallOutcome | null;
  tokenBudget: number | null;
  estimatedTokens: number;
  split: { recall: number; summaries: number; summarizedTurns: number; recentRawTurns: number; trimmed: unknown; overBudget: boolean };
}

/** What the plugin sees of its host. */
export interface HostFacts {
  slot?: string | null;
  hostVersion?: string | null;
}

/** Why the engine is not in use, and what to change. */
export interface Inert {
  code: "not_in_slot" | "host_too_old" | "host_untested" | "not_called";
  cause: string;
  fix: string;
}

export interface MemoryScopes {
  user: string;
  agent: string;
}

export type ExpandTarget =
  | { kind: "archive"; session_id: string; archive_id: string }
  | { kind: "session"; session_id: string }
  | { kind: "memory"; uri: string };

export interface Expansion {
  archiveUri: string;
  checkpointId: string | null;
  turnRange: [number, number] | null;
  excerpts: Array<{ turnId: string | null; sequence: number | null; text: string; score: number; messageIds: string[] }>;
  totalTurns: number;
  readable: string[];
}

export interface ReplayStep {
  turn: number;
  counted: boolean;
  captureReason: string;
  tokens: number;
  contextTokens: number;
  trigger: Trigger | null;
}

/** Errors thrown by the engine. */
export interface EngineErrorShape extends Error {
  code: "INVALID_CONFIG" | "INVALID_INPUT" | "HOST_FAILED" | "HOST_TIMEOUT" | "INTERNAL";
  field: string | null;
}
"#;
