#!/usr/bin/env node
// One OpenClaw-style turn in its own process (like `openclaw agent --local`): load the
// engine, write the turn, print the outcome as JSON, exit. Args: a JSON object
// {baseUrl, apiKey, userId, stateDir, config, sessionId, advancementKey, text}.
import { makeEngine } from "./engine-host.mjs";

const args = JSON.parse(process.argv[2]);
const { engine } = await makeEngine(args);
const out = await engine.writeTurn({
  sessionId: args.sessionId,
  advancementKey: args.advancementKey,
  messages: [
    { role: "user", content: args.text },
    { role: "assistant", content: [{ type: "text", text: `Noted: ${args.text}` }] },
  ],
});
process.stdout.write(JSON.stringify(out));
