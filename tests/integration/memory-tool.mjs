#!/usr/bin/env node
// One process running memory tools as the plugin does (like `openclaw agent --local`): the
// engine over the file state dir and a real OpenViking. Args: a JSON object {baseUrl, apiKey,
// userId, stateDir, ops: [{tool, params}], turn?: {sessionId, advancementKey, text},
// flush?: ovSessionId, hold?: true}. Prints one JSON line per op (the tool's answer or
// {error}), then the turn's outcome and the flush report; with `hold` it stays alive
// afterwards (until it is killed).
import { makeEngine } from "./engine-host.mjs";

const args = JSON.parse(process.argv[2]);
const { engine } = await makeEngine(args);
const say = (doc) => process.stdout.write(`${JSON.stringify(doc)}\n`);
for (const { tool, params } of args.ops ?? []) {
  try {
    say(await engine.runTool(tool, params));
  } catch (err) {
    say({ error: String(err?.message ?? err), code: err?.code ?? null });
  }
}
if (args.turn) {
  const t = args.turn;
  say(await engine.writeTurn({ sessionId: t.sessionId, advancementKey: t.advancementKey, messages: [{ role: "user", content: t.text }, { role: "assistant", content: [{ type: "text", text: `Noted: ${t.text}` }] }] }));
}
if (args.flush) say(await engine.flush(args.flush));
if (args.hold) setInterval(() => {}, 1 << 30);
