// SIGTERM flushes: a plugin process holding a turn in its outbox (OpenViking was refusing
// connections when the turn was written) replays it to OpenViking when it is terminated.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startHarness } from "../../js-glue/test/openviking/helpers.mjs";
import { createClient } from "../inspect/client.js";
import { startFaultProxy } from "./fault-proxy.mjs";

const here = fileURLToPath(new URL(".", import.meta.url));
const cleanup = [];
after(async () => {
  for (const f of cleanup.reverse()) await f();
});

test("SIGTERM replays the outbox before the process exits", { timeout: 180000 }, async () => {
  const h = await startHarness();
  cleanup.push(() => h.stop());
  const proxy = await startFaultProxy({ upstream: h.env.baseUrl });
  cleanup.push(() => proxy.close());
  const stateDir = mkdtempSync(join(tmpdir(), "ove-sig-"));
  cleanup.push(() => rmSync(stateDir, { recursive: true, force: true }));
  await proxy.setMode("refuse");
  const child = spawn(process.execPath, [join(here, "sigterm-child.mjs"), proxy.url, h.env.userKey, stateDir], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  await new Promise((resolve, reject) => {
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("READY")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`child exited early (${code})`)));
    setTimeout(() => reject(new Error("child never got ready")), 60000);
  });
  assert.match(out, /"status":"committed"/);
  await proxy.setMode("pass");
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  child.kill("SIGTERM");
  const { signal } = await exited;
  assert.equal(signal, "SIGTERM", "the process still ends by the signal");
  const client = createClient({ baseUrl: h.env.baseUrl, apiKey: h.env.userKey, agentId: "main" });
  const ctx = await client.sessionContext("main--sig", { tokenBudget: 100000 });
  const texts = (ctx.messages ?? []).map((m) => m.parts?.find((p) => p.type === "text")?.text);
  assert.ok(texts.includes("We decided signals must flush the outbox."), "the queued turn reached OpenViking on SIGTERM");
});
