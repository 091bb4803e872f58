// helpers.mjs — shared fixtures for the OpenViking tests: start/stop the Python harness
// (a real openviking-server + loopback model stand-in) in a temp dir, and small loopback
// servers that refuse, hang, or answer badly. Everything binds to 127.0.0.1.

import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer as createTcpServer } from "node:net";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO = resolve(HERE, "../../..");
const HARNESS = join(REPO, "tests/openviking/harness.py");
export const SERVER_BIN = process.env.OPENVIKING_SERVER_BIN
  || join(homedir(), ".cache/openviking-context-engine/openviking-0.5.2/bin/openviking-server");

/** These suites never skip: without the server they fail, saying how to install it
 *  (`.ci/install-tools.sh openviking`, run by `make test`). */
export const skipReason = false;
if (!existsSync(SERVER_BIN) || !existsSync(HARNESS)) {
  throw new Error(`openviking-server not found at ${SERVER_BIN}: run .ci/install-tools.sh openviking (or set OPENVIKING_SERVER_BIN)`);
}

/** Start the harness in a fresh temp dir; resolves to {env, dir, stop()}. */
export async function startHarness() {
  const dir = mkdtempSync(join(tmpdir(), "ov-js-"));
  const python = process.env.PYTHON || "python3";
  try {
    await run(python, [HARNESS, "start", "--workdir", dir], { timeout: 150000, cwd: REPO });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`harness start failed: ${err.stderr || err.message}`);
  }
  const env = JSON.parse(readFileSync(join(dir, "env.json"), "utf8"));
  return {
    env,
    dir,
    async stop() {
      await run(python, [HARNESS, "stop", "--workdir", dir], { timeout: 60000 }).catch(() => {});
      if (process.env.OV_TEST_KEEP !== "1") rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A port on 127.0.0.1 that was free a moment ago (nothing listens on it now). */
/** Runs a harness command on a started harness: "kill-server" (SIGKILL, a crash) or
 *  "restart-server" (same config, port, data and keys). */
export function harnessCommand(h, cmd) {
  return execFileSync(process.env.PYTHON || "python3", [join(REPO, "tests/openviking/harness.py"), cmd, "--workdir", h.dir], { timeout: 120_000 });
}

export async function freePort() {
  const srv = createTcpServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

/** A TCP server that accepts connections and never writes a byte. */
export async function hangingTcpServer() {
  const sockets = new Set();
  const srv = createTcpServer((s) => {
    sockets.add(s);
    s.on("error", () => {});
    s.on("close", () => sockets.delete(s));
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  return {
    port: srv.address().port,
    close: () => new Promise((r) => {
      for (const s of sockets) s.destroy();
      srv.close(r);
    }),
  };
}

/** An HTTP server answering with handler(req, res, body); records requests (headers + url). */
export async function httpServer(handler) {
  const requests = [];
  const srv = createHttpServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      requests.push({ method: req.method, url: req.url, headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  return {
    port: srv.address().port,
    baseUrl: `http://127.0.0.1:${srv.address().port}`,
    requests,
    close: () => new Promise((r) => {
      srv.closeAllConnections?.();
      srv.close(r);
    }),
  };
}

export const uid = (prefix) => `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
