#!/usr/bin/env node
// Live turns in a process of their own, the way OpenClaw's commitTurn hands them to the
// engine: each turn's messages as given, one after the other. Args: a JSON object {baseUrl,
// apiKey, userId, stateDir, config, sessionId, turns: [{key, messages}]}. Prints one JSON line
// per turn (the write's outcome).
import { makeEngine } from "./engine-host.mjs";

const args = JSON.parse(process.argv[2]);
const { engine } = await makeEngine(args);
for (const t of args.turns) {
  const out = await engine.writeTurn({ sessionId: args.sessionId, advancementKey: t.key, messages: t.messages });
  process.stdout.write(`${JSON.stringify({ key: t.key, status: out.status, alreadyStored: out.alreadyStored })}\n`);
}
