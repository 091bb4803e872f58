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

/** Errors thrown by the engine. */
export interface EngineErrorShape extends Error {
  code: "INVALID_CONFIG" | "INVALID_INPUT" | "HOST_FAILED" | "HOST_TIMEOUT" | "INTERNAL";
  field: string | null;
}
"#;
