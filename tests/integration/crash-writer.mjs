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
// With `announceStore: true` in the args (two-writers.test.mjs), also the state store's
// outbox and lock calls, each before it starts (and a lock's answer):
//   HOST APPEND <key> <turnId> / HOST DROP <key> <turnIds> / HOST LOCK <name> / HOST LOCKED <name> <bool>
// Exports for the drivers: crashText, prng (a seeded mulberry32), spawnWriter.
import { spawn } from "node:child_process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { makeEngine } from "./engine-host.mjs";

export const crashText = (i) => `crash-kill turn ${i} (k-${i}): step ${i} of the migration runs after backup ${i % 7}`;
const line = (s) => process.stdout.write(`${s}\n`);

/** mulberry32: small, seeded, good enough to pick plans and delays. */
export function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const between = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = (weights) => {
    const total = Object.values(weights).reduce((s, w) => s + w, 0);
    let r = next() * total;
    for (const [k, w] of Object.entries(weights)) if ((r -= w) < 0) return k;
    return Object.keys(weights)[0];
  };
  return { next, between, pick, chance: (p) => next() < p };
}

/** Starts one writer process with `args`; onLine(line) gets each stdout line as it comes.
 *  Resolves `exited` to {code, signal, stderr} (the last 4000 characters of stderr). */
export function spawnWriter(args, onLine) {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url)], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, CRASH_WRITER_ARGS: JSON.stringify(args) } });
  let buf = "";
  let stderr = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (d) => {
    buf += d;
    for (let nl; (nl = buf.indexOf("\n")) >= 0; buf = buf.slice(nl + 1)) onLine(buf.slice(0, nl));
  });
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (d) => (stderr = (stderr + d).slice(-4000)));
  const exited = new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stderr })));
  return { child, exited };
}

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
  if (args.announceStore) {
    // the host calls the store's methods by name at each call: wrapping them here is seen
    // (the plugin's host appends through the text form: the entry's JSON text, its turn id beside it)
    const [append, drop, tryLock] = [store.outboxAppendText, store.outboxDrop, store.tryLock];
    store.outboxAppendText = (key, text, turnId) => (line(`HOST APPEND ${key} ${turnId}`), append(key, text, turnId));
    store.outboxDrop = (key, ids) => (line(`HOST DROP ${key} ${[ids].flat().join(",")}`), drop(key, ids));
    store.tryLock = async (name, ttl) => {
      line(`HOST LOCK ${name}`);
      const got = await tryLock(name, ttl);
      line(`HOST LOCKED ${name} ${got}`);
      return got;
    };
  }
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
