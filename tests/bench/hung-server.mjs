// What a hung OpenViking (it accepts connections and never answers) costs the plugin's turns:
// `node tests/bench/hung-server.mjs [runs=3] [timeoutMs=1000]`. Each run registers the plugin
// (js-glue/index.js, the built package) on a fresh state dir against a local server that holds
// every request, runs 3 turns (bootstrap, assemble, commitTurn), disposes, then a 4th turn in
// a second engine on the same state dir (the next process of a one-process-per-turn host).
// Prints the median time of each step over the runs, and the requests the server got.
import http from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const runs = Number(process.argv[2] ?? 3);
const timeoutMs = Number(process.argv[3] ?? 1000);
const { default: plugin } = await import("../../js-glue/index.js");
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function run() {
  const held = [];
  const server = http.createServer((req, res) => held.push(res));
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const stateDir = mkdtempSync(join(tmpdir(), "ove-bench-hung-"));
  const start = () => {
    let factory;
    plugin.register({
      pluginConfig: { mode: "remote", baseUrl: `http://127.0.0.1:${server.address().port}`, apiKey: "k", stateDir, timeoutMs },
      logger: { warn() {}, info() {} },
      registerContextEngine: (_id, f) => (factory = f),
      registerTool() {},
      registerService() {},
      on() {},
    });
    return factory();
  };
  const sessionKey = "agent:main:main";
  const history = [{ role: "user", content: "we deploy blue-green", timestamp: 1764000100000 }, { role: "assistant", content: [{ type: "text", text: "noted" }], timestamp: 1764000100001 }];
  const steps = {};
  const time = async (name, fn) => {
    const t0 = performance.now();
    await fn();
    (steps[name] ??= []).push(performance.now() - t0);
  };
  const turn = async (engine, i, prefix) => {
    await time(`${prefix}assemble`, () => engine.assemble({ sessionId: "h", sessionKey, messages: history, prompt: "what did we decide about canaries last week? run the deploy", tokenBudget: 2000 }));
    await time(`${prefix}commitTurn`, () => engine.commitTurn({ sessionId: "h", sessionKey, advancementKey: `b-${i}`, messages: [{ role: "user", content: `turn ${i}`, timestamp: 1764000200000 + i }, { role: "assistant", content: [{ type: "text", text: "ok" }] }] }));
  };
  const first = start();
  for (let i = 0; i < 3; i++) {
    await first.bootstrap({ sessionId: "h", sessionKey });
    await turn(first, i, `turn ${i + 1} `);
  }
  await time("dispose", () => first.dispose());
  const next = start();
  await next.bootstrap({ sessionId: "h", sessionKey });
  await turn(next, 3, "next process ");
  await next.dispose();
  for (const r of held) r.destroy();
  server.close();
  rmSync(stateDir, { recursive: true, force: true });
  return { steps, requests: held.length };
}

const all = [];
for (let r = 0; r < runs; r++) all.push(await run());
console.log(`hung server, timeoutMs ${timeoutMs}, median of ${runs} runs (ms):`);
for (const name of Object.keys(all[0].steps)) console.log(`  ${name.padEnd(26)} ${median(all.map((a) => a.steps[name][0])).toFixed(0)}`);
console.log(`  requests the server got     ${median(all.map((a) => a.requests))}`);
process.exit(0);
