#!/usr/bin/env node
// One writer process for crash-kill.test.mjs (like one `openclaw agent --local` run that
// may be killed at any moment): load the engine on the shared state dir, write the given
// turns in order, optionally flush, exit. Arg: a JSON object
//   {baseUrl, apiKey, userId, stateDir, timeoutMs, config, sessionId, turns: [i, …], flush}
// (turn i is the text crashText(i) with advancementKey `k-<i>`). One line per event on
// stdout, each written before the next step begins (stdout to a pipe is synchronous on
// Linux, so a line printed is a line the driver sees even if it kills us right after):
//   READY                 engine loaded
//   START k-7             about to call writeTurn for turn 7
//   SEND POST <path>      a request to OpenViking is about to go out (any, not only turns)
//   ACK k-7 <status> <q>  writeTurn resolved with committed/duplicate (q: queued 0/1)
//   FAIL k-7 <message>    writeTurn threw or answered another status (not acknowledged)
//   FLUSH / FLUSHED <n>   around engine.flush (n: turns written by it; number or object)
//   OUTBOX <n>            outbox length at the end (after flush)
//   DONE
import { pathToFileURL } from "node:url";
import { makeEngine } from "./engine-host.mjs";

export const crashText = (i) => `crash-kill turn ${i} (k-${i}): step ${i} of the migration runs after backup ${i % 7}`;
const line = (s) => process.stdout.write(`${s}\n`);

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // the arguments (with the API key) come in the environment, not argv: argv is visible to every user
  const args = JSON.parse(process.env.CRASH_WRITER_ARGS ?? "{}");
  // every OpenViking request the engine makes, announced before it leaves
  const realFetch = globalThis.fetch;
  globalThis.fetch = (input, init = {}) => {
    const url = input instanceof Request ? input.url : String(input);
    line(`SEND ${init.method ?? "GET"} ${new URL(url).pathname}`);
    return realFetch(input, init);
  };
  const { engine, store } = await makeEngine(args);
  const ovId = `main--${args.sessionId}`;
  line("READY");
  let ok = true;
  for (const i of args.turns) {
    const key = `k-${i}`;
    line(`START ${key}`);
    try {
      const text = crashText(i);
      const out = await engine.writeTurn({
        sessionId: args.sessionId,
        advancementKey: key,
        messages: [
          { role: "user", content: text },
          { role: "assistant", content: [{ type: "text", text: `Noted ${i}.` }] },
        ],
      });
      if (out.status === "committed" || out.status === "duplicate") {
        line(`ACK ${key} ${out.status} ${out.queued ? 1 : 0}`);
      } else {
        line(`FAIL ${key} status=${out.status}`);
        ok = false;
        break;
      }
    } catch (err) {
      line(`FAIL ${key} ${String(err?.code ?? "")} ${String(err?.message ?? err).replace(/\s+/g, " ")}`);
      ok = false;
      break; // OpenClaw retries this turn (and the rest) in the next run
    }
  }
  if (ok && args.flush) {
    for (let k = 0; k < (args.flushRounds ?? 1); k++) {
      line("FLUSH");
      // today: a number; after the write-path rework: {written, queued, reason}
      const r = await engine.flush(ovId).catch((err) => ({ error: String(err?.message ?? err) }));
      line(`FLUSHED ${JSON.stringify(r)}`);
      const left = (await store.outboxRead(`outbox/${ovId}`)).length;
      if (left === 0) break;
      await new Promise((res) => setTimeout(res, 200));
    }
  }
  line(`OUTBOX ${(await store.outboxRead(`outbox/${ovId}`)).length}`);
  line("DONE");
  process.exit(0);
}
