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
