// A loopback HTTP proxy in front of a real OpenViking server that injects faults on demand,
// so integration tests can drive the engine through outages in remote mode without touching
// the server itself:
//   pass     forward every request
//   refuse   stop listening (connection refused) until the mode changes
//   timeout  accept and never answer
//   reset    accept and destroy the socket
//   5xx      answer 503 with an OpenViking-style error envelope
//   garbage  answer 200 with a body that is not JSON
//   lost     forward the request (the server acts on it), then drop the answer: the
//            client sees a reset for a write that did happen
// Only ever binds 127.0.0.1. Every request is counted by outcome.
// Observers (crash-kill.test.mjs): `on("hold" | "lost" | "request", fn)` is called with
// {method, url} when a request is held (timeout), when an answer is dropped after the
// server acted (lost), and for every request; `inflight` counts requests forwarded to the
// server and not finished there yet, `idle()` resolves when none is.
import http from "node:http";
import { EventEmitter } from "node:events";

export async function startFaultProxy({ upstream, port = 0 }) {
  const target = new URL(upstream);
  let mode = "pass";
  const stats = { pass: 0, refuse: 0, timeout: 0, reset: 0, "5xx": 0, garbage: 0, lost: 0 };
  const hanging = new Set();
  const events = new EventEmitter();
  let inflight = 0;
  const idleWaiters = [];
  const settled = () => {
    inflight--;
    if (inflight === 0) for (const w of idleWaiters.splice(0)) w();
  };

  const server = http.createServer((req, res) => {
    const m = mode;
    const what = { method: req.method, url: req.url, mode: m };
    events.emit("request", what);
    if (m === "timeout") {
      stats.timeout++;
      hanging.add(res);
      res.on("close", () => hanging.delete(res));
      events.emit("hold", what);
      return;
    }
    if (m === "reset") {
      stats.reset++;
      req.socket.destroy();
      return;
    }
    if (m === "5xx") {
      stats["5xx"]++;
      res.writeHead(503, { "content-type": "application/json" });
      res.end(JSON.stringify({ status: "error", error: { code: "UNAVAILABLE", message: "injected 503" } }));
      return;
    }
    if (m === "garbage") {
      stats.garbage++;
      res.writeHead(200, { "content-type": "application/json" });
      res.end("<html>not json</html>");
      return;
    }
    stats[m === "lost" ? "lost" : "pass"]++;
    inflight++;
    const up = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (upRes) => {
        if (m === "lost") {
          upRes.resume();
          upRes.on("end", () => {
            req.socket.destroy();
            events.emit("lost", what);
          });
          return;
        }
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    up.on("error", () => {
      // the real server is down: the proxy refuses like a dead server would
      req.socket.destroy();
    });
    up.on("close", settled);
    // the client went away before its request was complete: abort it upstream too (it
    // would otherwise hang there, half sent)
    req.on("close", () => {
      if (!req.complete) up.destroy();
    });
    req.pipe(up);
  });
  server.keepAliveTimeout = 1;

  const listen = () =>
    new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        port = server.address().port;
        resolve();
      });
    });
  await listen();

  return {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    get mode() {
      return mode;
    },
    stats,
    get inflight() {
      return inflight;
    },
    /** Resolves when no forwarded request is still being handled by the server. */
    idle() {
      return inflight === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve));
    },
    on(event, fn) {
      events.on(event, fn);
      return () => events.off(event, fn);
    },
    async setMode(next) {
      if (next === mode) return;
      if (mode === "refuse") await listen();
      for (const res of hanging) res.destroy();
      mode = next;
      if (next === "refuse") {
        stats.refuse++;
        server.closeAllConnections?.();
        await new Promise((resolve) => server.close(() => resolve()));
      }
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections?.();
      if (mode !== "refuse") await new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
