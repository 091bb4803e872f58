#!/usr/bin/env node
// Tiny static server for the recall-tuning demo (Node 20, stdlib only).
// Serves www-demo/ at /, with the tuning page's wasm package (www-demo/pkg/, `make build`) at
// /pkg/, on 127.0.0.1 only.
//
//   node www-demo/serve.mjs [port]      (or PORT=…; default 8787; 0 = pick a free port)
//
// Prints "Demo: http://127.0.0.1:<port>/" once listening. GET/HEAD only; paths are resolved
// (symlinks included) and must stay inside one of the two folders.
import { createServer } from "node:http";
import { createReadStream } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { dirname, extname, join, resolve, sep } from "node:path";

const demoDir = dirname(fileURLToPath(import.meta.url));
const pkgDir = resolve(demoDir, "pkg");

const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".ts": "text/plain; charset=utf-8",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".txt": "text/plain; charset=utf-8",
};

function parsePort() {
  const raw = process.argv[2] ?? process.env.PORT ?? "8787";
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`serve.mjs: invalid port ${JSON.stringify(raw)} (0–65535, 0 = any free port)`);
    process.exit(2);
  }
  return port;
}

/** Maps a URL path to a file inside demoDir or pkgDir, or null when it is not allowed. */
async function locate(urlPath) {
  let path;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (path.includes("\0") || path.includes("\\")) return null;
  let root = demoDir;
  let rest = path;
  if (path === "/pkg" || path.startsWith("/pkg/")) {
    root = pkgDir;
    rest = path.slice(4);
  }
  if (rest === "" || rest.endsWith("/")) rest += "index.html";
  const target = resolve(root, "." + rest);
  let realRoot, realTarget;
  try {
    realRoot = await realpath(root);
    realTarget = await realpath(target);
  } catch {
    return null;
  }
  if (!realTarget.startsWith(realRoot + sep)) return null;
  const info = await stat(realTarget);
  return info.isFile() ? { file: realTarget, size: info.size } : null;
}

const server = createServer(async (req, res) => {
  const send = (code, text) => {
    res.writeHead(code, { "content-type": "text/plain; charset=utf-8" });
    res.end(req.method === "HEAD" ? undefined : text + "\n");
  };
  if (req.method !== "GET" && req.method !== "HEAD") return send(405, "method not allowed");
  const urlPath = new URL(req.url ?? "/", "http://localhost").pathname;
  let found;
  try {
    found = await locate(urlPath);
  } catch {
    found = null;
  }
  if (!found) {
    const hint = urlPath.startsWith("/pkg/") ? " (is pkg/ built? run `make build`)" : "";
    return send(404, `not found: ${urlPath}${hint}`);
  }
  res.writeHead(200, {
    "content-type": MIME[extname(found.file).toLowerCase()] ?? "application/octet-stream",
    "content-length": found.size,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  if (req.method === "HEAD") return res.end();
  createReadStream(found.file).on("error", () => res.destroy()).pipe(res);
});

server.listen(parsePort(), "127.0.0.1", () => {
  const { port } = server.address();
  console.log(`Demo: http://127.0.0.1:${port}/`);
});

for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.close(() => process.exit(0)));
