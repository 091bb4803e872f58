// A loopback stand-in for OpenViking's HTTP API, for `liveSearch`: each path prefix
// `/b<k>/` answers in one (mis)behaviour — good, errors, garbage, slow, hung up, huge, deep.
import { createServer } from "node:http";

const ok = (result) => JSON.stringify({ status: "ok", result });
const find = { memories: [{ uri: "viking://user/ada/memories/preferences/theme.md", level: 2, score: 0.8, abstract: "dark theme", category: "preferences" }], resources: [], skills: [], total: 1 };
const BEHAVIOURS = [
  ["good", (req, res, status) => res.end(status ? ok({ user: "ada", status: "healthy" }) : ok(find))],
  ["500 envelope", (req, res) => { res.statusCode = 500; res.end(JSON.stringify({ status: "error", error: { code: "INTERNAL", message: "boom \uD800 fuzz-key-123" } })); }],
  ["404 html", (req, res) => { res.statusCode = 404; res.end("<html>not found</html>"); }],
  ["401", (req, res) => { res.statusCode = 401; res.end(JSON.stringify({ status: "error", error: { code: "UNAUTHENTICATED", message: "bad key fuzz-key-123" } })); }],
  ["not JSON", (req, res) => res.end("garbage \u0000 ".repeat(50))],
  ["not an envelope", (req, res) => res.end(JSON.stringify({ memories: [] }))],
  ["bad find result", (req, res, status) => res.end(status ? ok({ user: 5 }) : ok({ memories: 5 }))],
  ["slow 1500 ms", (req, res, status) => setTimeout(() => res.end(status ? ok({ user: "ada" }) : ok(find)), 1500)],
  ["hang up", (req, res) => req.socket.destroy()],
  ["huge 3 MB", (req, res, status) => res.end(status ? ok({ user: "ada" }) : ok({ memories: Array.from({ length: 6000 }, (_, i) => ({ uri: `viking://user/ada/memories/e/${i}.md`, level: 2, score: 0.5, abstract: "x".repeat(480) })) }))],
  ["deep JSON", (req, res) => res.end("[".repeat(20000) + "]".repeat(20000))],
  ["invalid UTF-8", (req, res) => res.end(Buffer.from([0x7b, 0x22, 0x73, 0xff, 0xfe, 0x22, 0x7d]))],
  ["empty 200", (req, res) => res.end("")],
  ["lone surrogate escape", (req, res, status) => res.end(status ? '{"status":"ok","result":{"user":"\\ud800"}}' : '{"status":"ok","result":{"memories":[{"uri":"viking://user/a/memories/x.md","level":2,"score":0.9,"abstract":"\\udc00 x"}]}}')],
  ["never answers", () => {}],
  ["redirect loop", (req, res) => { res.statusCode = 302; res.setHeader("location", req.url); res.end(); }],
  ["partial then close", (req, res) => { res.write('{"status":"ok","result":{"memo'); setTimeout(() => req.socket.destroy(), 20); }],
  ["204", (req, res) => { res.statusCode = 204; res.end(); }],
];

export async function startServer() {
  const sockets = new Set();
  const server = createServer((req, res) => {
    const m = /^\/b(\d+)(\/.*)$/.exec(req.url ?? "");
    const b = BEHAVIOURS[m ? Number(m[1]) : 0] ?? BEHAVIOURS[0];
    req.resume();
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      try {
        b[1](req, res, (m?.[2] ?? "").includes("/system/status"));
      } catch {
        req.socket.destroy();
      }
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.setTimeout(5000, () => s.destroy());
    s.on("close", () => sockets.delete(s));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    behaviours: BEHAVIOURS.length,
    names: BEHAVIOURS.map((b) => b[0]),
    close: () => { for (const s of sockets) s.destroy(); server.close(); },
  };
}
