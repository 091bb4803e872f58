// Runs the shared JSON vectors (tests/vectors/*.json, see its README) against the built
// wasm package, through the same JS surface the plugin and the demo use.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { loadPackage } from "../../tests/support/packages.mjs";

const dir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "tests", "vectors");
const { Engine, parseConfig } = await loadPackage("page");

function run(c) {
  const env = c.env ?? {};
  try {
    if (c.call === "parseConfig") return parseConfig(c.input ?? null, env);
    if (c.call === "autoRecall") {
      // the vectors hold the explain records: ask for them, as the tuning page does
      const input = c.input && typeof c.input === "object" && !Array.isArray(c.input) ? { explain: true, ...c.input } : c.input ?? null;
      return withDerived(new Engine(c.config ?? null, env).autoRecall(input));
    }
  } catch (e) {
    return { error: { code: e.code, field: e.field, message: e.message } };
  }
  throw new Error(`unknown call ${c.call}`);
}

function withDerived(out) {
  const byUri = {};
  for (const r of out.recall?.explain ?? []) {
    if (!(r.uri in byUri)) byUri[r.uri] = r.decision === "kept" ? "kept" : r.reason;
  }
  return { ...out, explainByUri: byUri, messageRoles: out.messages.map((m) => m.role) };
}

function matches(exp, act, path) {
  if (exp === "absent") {
    assert.ok(act === undefined || act === null, `${path}: expected absent, got ${JSON.stringify(act)}`);
  } else if (Array.isArray(exp)) {
    assert.ok(Array.isArray(act), `${path}: expected an array, got ${JSON.stringify(act)}`);
    assert.equal(act.length, exp.length, `${path}: length`);
    exp.forEach((e, i) => matches(e, act[i], `${path}[${i}]`));
  } else if (exp !== null && typeof exp === "object") {
    for (const [k, v] of Object.entries(exp)) matches(v, act?.[k] ?? null, `${path}.${k}`);
  } else if (typeof exp === "number") {
    assert.ok(typeof act === "number" && Math.abs(act - exp) < 1e-9, `${path}: expected ${exp}, got ${act}`);
  } else {
    assert.deepEqual(act, exp, path);
  }
}

const files = readdirSync(dir).filter((f) => f.endsWith(".json")).sort();
assert.ok(files.length >= 2);
for (const file of files) {
  for (const c of JSON.parse(readFileSync(join(dir, file), "utf8"))) {
    test(`${file}: ${c.name}`, () => {
      const out = run(c);
      matches(c.expect, out, "");
      for (const s of c.errorMessageExcludes ?? []) assert.ok(!out.error?.message?.includes(s), "error leaks a secret");
    });
  }
}

test("legacy-divergences.json, non-finite score: Infinity and NaN handed over from JS read as 0, as the vector's null does (the legacy clamped Infinity to 1)", () => {
  const c = JSON.parse(readFileSync(join(dir, "legacy-divergences.json"), "utf8")).find((v) => v.name.includes("not a finite number"));
  assert.ok(c, "the vector exists");
  for (const score of [Infinity, NaN, null]) {
    const input = structuredClone(c.input);
    input.search.user.memories[0].score = score;
    const out = run({ ...c, input });
    matches(c.expect, out, `score ${score}`);
  }
});
