// Transcript arithmetic shared by the main view and the replay: the text of a message, the
// turns of a transcript (a turn starts at a user message), the replay steps, and how the
// host's token budget splits into recall / summaries / raw turns / older turns / free.

/** The plain text of an AgentMessage (string content or its text blocks). */
export function textOf(message) {
  const c = message?.content;
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return "";
  return c.filter((b) => b && b.type === "text" && typeof b.text === "string").map((b) => b.text).join("\n");
}

/** Index ranges [start, end) of the turns; messages before the first user message join turn 1. */
export function splitTurns(messages) {
  const starts = [];
  messages.forEach((m, i) => { if (m.role === "user") starts.push(i); });
  if (!starts.length) return messages.length ? [{ start: 0, end: messages.length }] : [];
  starts[0] = 0;
  return starts.map((start, k) => ({ start, end: starts[k + 1] ?? messages.length }));
}

/**
 * One replay step per user message (its text is the prompt, everything before it the
 * history), plus the current prompt after the whole transcript when there is one.
 */
export function replaySteps(messages, currentPrompt, nowMs) {
  const users = [];
  messages.forEach((m, i) => { if (m.role === "user") users.push(i); });
  const steps = users.map((i, k) => ({
    prompt: textOf(messages[i]), history: recent(messages, users, k, i),
    nowMs: messages[i].timestamp ?? messages[i - 1]?.timestamp ?? nowMs, before: i, current: false,
  }));
  if (currentPrompt.trim()) steps.push({ prompt: currentPrompt, history: recent(messages, users, users.length, messages.length), nowMs, before: messages.length, current: true });
  return steps;
}

/** The recall query looks at 50 user turns at most (the assembleRecallWindow bound), so
 *  older history cannot change a step's recall; dropping it keeps long transcripts fast. */
const MAX_WINDOW = 50;
function recent(messages, users, k, end) {
  return messages.slice(k > MAX_WINDOW ? users[k - MAX_WINDOW] : 0, end);
}

/**
 * The budget split. estimate(messages) → tokens per message. The prompt and the newest
 * `rawTurns` turns of history are raw; older history would become summaries once the write
 * path exists and is counted raw until then.
 */
export function budgetSplit({ history, prompt, recallTokens, rawTurns, hostBudget, estimate }) {
  const perMessage = history.length ? estimate(history) : [];
  const turns = splitTurns(history);
  const rawFrom = rawTurns > 0 && turns.length ? turns[Math.max(0, turns.length - rawTurns)].start : history.length;
  const sum = (a, b) => perMessage.slice(a, b).reduce((x, y) => x + y, 0);
  const promptTokens = prompt.trim() ? estimate([{ role: "user", content: prompt }])[0] : 0;
  const raw = sum(rawFrom, history.length) + promptTokens;
  const older = sum(0, rawFrom);
  const used = recallTokens + raw + older;
  return {
    recall: recallTokens,
    summaries: 0,
    raw,
    older,
    free: Math.max(0, hostBudget - used),
    over: Math.max(0, used - hostBudget),
    total: hostBudget,
    rawTurnsKept: Math.min(rawTurns, turns.length),
    turns: turns.length,
  };
}
