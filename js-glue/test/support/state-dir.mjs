// The state store's test helpers: a temp state dir, the outbox and lock paths the store
// uses, and a record framed as the store frames it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { crc32 } from "../../state-store.js";

export const STORE_URL = new URL("../../state-store.js", import.meta.url).href;
export const KEY = "outbox/main--s1";
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const turn = (turnId, text = `turn ${turnId}`) => ({ turnId, text });
export const ids = (records) => records.map((r) => r.turnId);
export const outboxPath = (stateDir, key = KEY) => join(stateDir, "outbox", `${encodeURIComponent(key).replace(/\./g, "%2E")}.jsonl`);
export const lockPath = (stateDir, name = KEY) => join(stateDir, "locks", `${encodeURIComponent(name).replace(/\./g, "%2E")}.lock`);
export const isLocal = (op) => (err) => err.kind === "local" && err.message.startsWith(`${op}: `);

/** Run `fn(dir)` in a fresh temp dir, removed after. */
export async function inTempDir(fn) {
  const dir = mkdtempSync(join(tmpdir(), "ov-store-"));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A framed record line, as the store writes it. */
export const frame = (entry) => {
  const json = JSON.stringify(entry);
  return `#${crc32(json).toString(16).padStart(8, "0")}:${Buffer.byteLength(json)}:${json}\n`;
};

/** A child process running `body` with a store on `dir` (`createStateStore`, `dir`, `sleep` in scope). */
export function child(dir, body) {
  const src = `import { createStateStore } from ${JSON.stringify(STORE_URL)};
const dir = ${JSON.stringify(dir)};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
${body}`;
  const p = spawn(process.execPath, ["--input-type=module", "-e", src], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  p.stderr.on("data", (d) => (err += d));
  const exited = new Promise((r) => p.on("exit", (code, signal) => r({ code, signal })));
  const firstLine = new Promise((res, rej) => {
    p.stdout.on("data", (d) => {
      out += d;
      if (out.includes("\n")) res(out.split("\n")[0]);
    });
    exited.then(({ code }) => rej(new Error(`child exited (${code}) before printing: ${err}`)));
  });
  return { p, firstLine, exited, stderr: () => err };
}
