// Reads the user's own data for the demo: OpenViking search results (JSON) and a transcript
// of OpenClaw AgentMessages (a JSON array, JSONL with one message per line, or a session
// object with the session's checkpoint summaries). Checks the
// size and the outer shapes and throws InputError with a message fit for the page; the
// engine checks the rest and names the offending field itself.

export const MAX_BYTES = 5 * 1024 * 1024;

export class InputError extends Error {}

/** The text of an uploaded file, refusing files over MAX_BYTES before reading them. */
export async function readFileText(file) {
  if (file.size > MAX_BYTES) throw new InputError(`${file.name} is ${mb(file.size)}; the demo accepts files up to ${mb(MAX_BYTES)}.`);
  return file.text();
}

function checkSize(text, what) {
  if (text.length > MAX_BYTES || (text.length > MAX_BYTES / 4 && new TextEncoder().encode(text).length > MAX_BYTES)) {
    throw new InputError(`${what} is larger than ${mb(MAX_BYTES)}.`);
  }
  if (!text.trim()) throw new InputError(`${what} is empty.`);
}

const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;
const kind = (v) => (v === null ? "null" : Array.isArray(v) ? "an array" : typeof v === "object" ? "an object" : `a ${typeof v}`);

function parseJson(text, what) {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new InputError(`${what} is not valid JSON: ${err.message}`);
  }
}

/**
 * `{user, agent, contents?}` → {search: {user, agent}, contents}. user/agent are each an
 * OpenViking find result ({memories: [...]}), its API envelope ({result: {...}}), an array of
 * items, or null.
 */
export function parseSearch(text) {
  const what = "Search results";
  checkSize(text, what);
  const value = parseJson(text, what);
  if (kind(value) !== "an object") throw new InputError(`${what}: expected an object {"user": …, "agent": …}, got ${kind(value)}.`);
  const extra = Object.keys(value).filter((k) => !["user", "agent", "contents"].includes(k));
  if (extra.length) throw new InputError(`${what}: unexpected key ${JSON.stringify(extra[0])}; expected "user", "agent" and optionally "contents".`);
  if (!("user" in value) && !("agent" in value)) throw new InputError(`${what}: needs at least one of "user" or "agent".`);
  const search = {};
  for (const scope of ["user", "agent"]) {
    let v = value[scope] ?? null;
    if (v && kind(v) === "an object" && !("memories" in v) && kind(v.result) === "an object") v = v.result;
    if (v !== null && kind(v) !== "an array" && kind(v) !== "an object") {
      throw new InputError(`${what}: "${scope}" must be a find result object or an array of items, got ${kind(v)}.`);
    }
    if (v && kind(v) === "an object" && "memories" in v && kind(v.memories) !== "an array") {
      throw new InputError(`${what}: "${scope}.memories" must be an array, got ${kind(v.memories)}.`);
    }
    search[scope] = v;
  }
  const contents = value.contents ?? {};
  if (kind(contents) !== "an object" || Object.values(contents).some((c) => typeof c !== "string")) {
    throw new InputError(`${what}: "contents" must map uris to strings.`);
  }
  return { search, contents };
}

/**
 * A transcript → {messages, summaries, nextSequence}: a JSON array or JSONL of AgentMessages
 * (no checkpoints), or a session object `{messages, summaries?, nextSequence?}` whose
 * summaries are the session's compact checkpoints as the engine takes them
 * (`[{checkpointId, archiveUri, startSequence, endSequence, text}]`; the engine checks them).
 */
export function parseTranscript(text) {
  const what = "Transcript";
  checkSize(text, what);
  const trimmed = text.trim();
  let messages;
  let where;
  let session = null;
  if (trimmed.startsWith("{")) {
    try {
      const whole = JSON.parse(trimmed);
      if (kind(whole) === "an object" && "messages" in whole) session = whole;
    } catch {
      // not one JSON value: JSONL
    }
  }
  if (session) {
    const extra = Object.keys(session).filter((k) => !["messages", "summaries", "nextSequence"].includes(k));
    if (extra.length) throw new InputError(`${what}: unexpected key ${JSON.stringify(extra[0])}; a session is {"messages": [...], "summaries"?: [...], "nextSequence"?: n}.`);
    messages = session.messages;
    if (!Array.isArray(messages)) throw new InputError(`${what}: "messages" must be an array of messages, got ${kind(messages)}.`);
    where = (i) => `messages[${i}]`;
  } else if (trimmed.startsWith("[")) {
    messages = parseJson(trimmed, what);
    where = (i) => `message [${i}]`;
  } else {
    messages = [];
    const lines = text.split(/\r?\n/);
    const lineOf = [];
    lines.forEach((line, i) => {
      if (!line.trim()) return;
      try {
        messages.push(JSON.parse(line));
      } catch (err) {
        throw new InputError(`${what}: line ${i + 1} is not valid JSON (${err.message}). Paste a JSON array or one message per line (JSONL).`);
      }
      lineOf.push(i + 1);
    });
    where = (i) => `line ${lineOf[i]}`;
  }
  if (!Array.isArray(messages)) throw new InputError(`${what}: expected an array of messages, got ${kind(messages)}.`);
  if (!messages.length) throw new InputError(`${what}: no messages.`);
  messages.forEach((m, i) => {
    if (kind(m) !== "an object" || typeof m.role !== "string") {
      throw new InputError(`${what}: ${where(i)} is not an AgentMessage (expected an object with a string "role", got ${kind(m)}).`);
    }
  });
  const summaries = session?.summaries ?? [];
  if (!Array.isArray(summaries) || summaries.some((x) => kind(x) !== "an object")) {
    throw new InputError(`${what}: "summaries" must be an array of checkpoint summaries {checkpointId, archiveUri, startSequence, endSequence, text}.`);
  }
  const nextSequence = session?.nextSequence ?? undefined;
  if (nextSequence !== undefined && !(Number.isInteger(nextSequence) && nextSequence >= 0)) {
    throw new InputError(`${what}: "nextSequence" must be a whole number ≥ 0 (the turns written before the current one), got ${JSON.stringify(nextSequence)}.`);
  }
  return { messages, summaries, nextSequence };
}
