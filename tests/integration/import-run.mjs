#!/usr/bin/env node
// One `openclaw openviking import --apply` of one transcript, as the plugin's importer runs it
// (slices of turns through ContextEngine.importSession) over the file state dir and a real
// OpenViking. Args: a JSON object {baseUrl, apiKey, userId, stateDir, sessionId, file, slice,
// config?}. Prints one JSON line per slice: what the engine reported, the slice's wall time
// and the time spent waiting for OpenViking's answers (every fetch the transport made).
import { readFileSync } from "node:fs";
import { makeEngine } from "./engine-host.mjs";

const args = JSON.parse(process.argv[2]);
let waitedMs = 0;
const timedFetch = async (...a) => {
  const t0 = performance.now();
  try {
    return await fetch(...a);
  } finally {
    waitedMs += performance.now() - t0;
  }
};
const { engine } = await makeEngine({ ...args, fetch: timedFetch });
const lines = readFileSync(args.file, "utf8").split("\n");
for (;;) {
  const t0 = performance.now();
  const before = waitedMs;
  const r = await engine.importSession({ sessionId: args.sessionId, lines, apply: true, limit: args.slice, ...(args.commitWaitMs === undefined ? {} : { commitWaitMs: args.commitWaitMs }) });
  process.stdout.write(`${JSON.stringify({ ...r, ms: performance.now() - t0, openvikingMs: waitedMs - before })}\n`);
  if (!r.remaining || r.stopped || !r.written) break;
}
