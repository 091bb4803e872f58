// View helpers for AgentMessages: their text, and a one-line preview for the composed-context
// list. Display only — which messages the model sees, and how many tokens they cost, is the
// engine's answer (Engine.assemble); nothing here decides or counts anything.

/** The plain text of an AgentMessage (string content or its text blocks). */
export function textOf(message) {
  const c = message?.content;
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return "";
  return c.filter((b) => b && b.type === "text" && typeof b.text === "string").map((b) => b.text).join("\n");
}

/** A short one-line preview: the text, plus the tool calls an assistant message makes. */
export function preview(message, max = 160) {
  const calls = Array.isArray(message?.content)
    ? message.content.filter((b) => b && b.type === "toolCall").map((b) => `→ ${b.name ?? "tool"}(${short(JSON.stringify(b.arguments ?? {}), 60)})`)
    : [];
  const text = [textOf(message), ...calls].filter(Boolean).join(" ");
  return short(text, max) || "(no text)";
}

const short = (s, max) => {
  const one = s.replace(/\s+/g, " ").trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
};
