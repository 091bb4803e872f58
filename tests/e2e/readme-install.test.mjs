// The README's "Install into OpenClaw" section, run as written: every `sh` block in it, in
// order, from a fresh clone of this repository (only the environment differs: a scratch
// OpenClaw home, `openclaw` on PATH pointing at the cached 2026.9.6, and a cargo target dir
// of its own under target/, kept between runs), then its
// `json5` config block merged into that OpenClaw's config, then one real turn. A README whose
// commands drift from what works fails here.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openclawPaths, writeConfig, turnEnv, scratchDir, runTurn } from "./openclaw.mjs";
import { startFakeModel } from "./fake-model.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** The fenced blocks of one README section: [{lang, body}]. */
export function sectionBlocks(readme, heading) {
  const start = readme.indexOf(`\n## ${heading}\n`);
  assert.ok(start >= 0, `README has a "## ${heading}" section`);
  const rest = readme.slice(start + 4 + heading.length);
  const end = rest.search(/\n## /);
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], body: m[2] }));
}

/** JSON5 as the README writes it (comments, unquoted keys, trailing commas) → an object. */
export function json5(text) {
  const noComments = text.replace(/("(?:[^"\\]|\\.)*")|\/\/[^\n]*/g, (m, str) => str ?? "");
  const quoted = noComments.replace(/("(?:[^"\\]|\\.)*")|([A-Za-z_$][\w$]*)(\s*:)/g, (m, str, key, colon) => str ?? `"${key}"${colon}`);
  return JSON.parse(quoted.replace(/,(\s*[}\]])/g, "$1"));
}

function merge(a, b) {
  if (!b || typeof b !== "object" || Array.isArray(b)) return b;
  const out = { ...(a && typeof a === "object" ? a : {}) };
  for (const [k, v] of Object.entries(b)) out[k] = merge(out[k], v);
  return out;
}

test("the JSON5 reader handles what the README writes", () => {
  assert.deepEqual(json5('{ a: { b: "x//y", c: [1, 2,], }, // note\n d: true }'), { a: { b: "x//y", c: [1, 2] }, d: true });
});

test("README install section, as written, from a fresh clone: builds, installs, configures, runs a turn", { timeout: 900_000 }, async (t) => {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");
  const blocks = sectionBlocks(readme, "Install into OpenClaw");
  const sh = blocks.filter((b) => b.lang === "sh");
  const config = blocks.filter((b) => b.lang === "json5");
  assert.ok(sh.length >= 1 && sh[0].body.includes("make build"), "the section starts by building");
  assert.equal(config.length, 1, "one config block");

  const dir = scratchDir("oc-readme-");
  const clone = path.join(dir, "clone");
  const git = spawnSync("git", ["clone", "--quiet", ROOT, clone], { encoding: "utf8" });
  assert.equal(git.status, 0, git.stderr);
  // the working tree's README and sources as they are now (a fresh clone has the last commit)
  for (const f of ["README.md", "Makefile"]) fs.copyFileSync(path.join(ROOT, f), path.join(clone, f));

  const fm = await startFakeModel();
  t.after(() => fm.close?.());
  const { node, cli } = openclawPaths();
  const bin = path.join(dir, "bin");
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, "openclaw"), `#!/bin/sh\nexec "${node}" "${cli}" "$@"\n`, { mode: 0o755 });
  /** The README's commands see a scratch OpenClaw home `home` and `openclaw` on PATH. */
  const envFor = (home) => ({
    ...turnEnv(home),
    PATH: `${bin}:${process.env.PATH}`,
    HOME: process.env.HOME, // cargo, rustup and npm's caches live there
    // a target dir of its own: sharing the checkout's would leave the clone's build outputs
    // where the checkout's next build picks them up (cargo sees its own unit as fresh)
    CARGO_TARGET_DIR: path.join(ROOT, "target", "readme-install"),
    HTTP_PROXY: "", HTTPS_PROXY: "", http_proxy: "", https_proxy: "", // the build may reach the registries
  });
  const run = (i, body, home) => {
    const t0 = Date.now();
    const r = spawnSync("bash", ["--noprofile", "--norc", "-euo", "pipefail", "-c", body], { cwd: clone, env: envFor(home), encoding: "utf8", timeout: 780_000 });
    t.diagnostic(`README sh block ${i + 1} (${body.trim().split("\n")[0]}…): exit ${r.status} in ${Date.now() - t0} ms`);
    assert.equal(r.status, 0, `README block ${i + 1} failed:\n${body}\n--- stdout\n${r.stdout.slice(-3000)}\n--- stderr\n${r.stderr.slice(-3000)}`);
  };
  // the first block builds and links; the others are alternatives ("instead of a link"),
  // each run in an OpenClaw home of its own
  writeConfig({ dir, modelUrl: `${fm.url}/v1` });
  run(0, sh[0].body, dir);
  for (const [i, b] of sh.entries()) {
    if (i === 0) continue;
    const alt = path.join(dir, `alt-${i}`);
    writeConfig({ dir: alt, modelUrl: `${fm.url}/v1` });
    run(i, b.body, alt);
    const list = spawnSync(node, [cli, "plugins", "list", "--json"], { env: turnEnv(alt), encoding: "utf8", timeout: 120_000 });
    const p = JSON.parse(list.stdout).plugins.find((x) => x.id === "openviking");
    assert.equal(p?.status, "loaded", `block ${i + 1}: the plugin loads (${list.stdout.slice(0, 500)})`);
  }
  // the config block, merged into the config the install wrote (the fake model stays)
  const file = path.join(dir, "openclaw.json");
  const written = JSON.parse(fs.readFileSync(file, "utf8"));
  const merged = merge(written, json5(config[0].body));
  fs.writeFileSync(file, JSON.stringify(merged, null, 2));
  assert.equal(merged.plugins.slots.contextEngine, "openviking");

  const inspect = spawnSync(node, [cli, "plugins", "inspect", "openviking", "--runtime", "--json"], { env: turnEnv(dir, { OPENVIKING_API_KEY: "readme-test-key" }), encoding: "utf8", timeout: 120_000 });
  assert.equal(inspect.status, 0, inspect.stderr.slice(-2000));
  assert.match(inspect.stdout, /memory_recall/, "the plugin registered its tools");

  // one turn with the README's config (remote mode at 127.0.0.1:1933, nothing listening
  // there): the engine assembles and keeps the turn in its outbox
  const r = await runTurn({ dir, sessionId: "readme", message: "We decided to use Postgres 16 for billing.", env: { OPENVIKING_API_KEY: "readme-test-key" }, timeoutMs: 240_000 });
  assert.equal(r.code, 0, r.stderr.slice(-3000));
  assert.doesNotMatch(`${r.stdout}\n${r.stderr}`, /context engine is not in use/, "the engine is the one assembling");
  const state = path.join(dir, "state", "plugins", "openviking");
  const files = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(d, e.name)) : [path.join(d, e.name)]));
  const all = fs.existsSync(state) ? files(state) : [];
  const outboxes = all.filter((f) => f.includes(`${path.sep}outbox${path.sep}`) && fs.readFileSync(f, "utf8").includes("Postgres 16"));
  assert.ok(outboxes.length >= 1, `the turn waits in the outbox under ${state}: ${all.map((f) => path.relative(state, f)).join(", ") || "no state dir"}`);
  assert.ok(!all.some((f) => fs.readFileSync(f, "utf8").includes("readme-test-key")), "the key is in no state file");
  fs.rmSync(dir, { recursive: true, force: true });
});
