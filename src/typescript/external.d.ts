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
