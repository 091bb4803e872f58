// The token corpus and the estimator, checked live against the real o200k tokenizer:
// the stored reference counts are current, and the wasm estimator's held-out error is
// within 10 % for English, Chinese and code.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { measure } from "./tokens.mjs";

const here = dirname(fileURLToPath(import.meta.url));

test("stored o200k counts match the real tokenizer", () => {
  execFileSync(process.execPath, [join(here, "tokens-reference.mjs")], { stdio: "pipe" });
});

test("held-out mean absolute error ≤ 10 % for en, zh and code", async () => {
  const rows = await measure();
  for (const lang of ["en", "zh", "code"]) {
    const r = rows.find((x) => x.split === "holdout" && x.lang === lang);
    assert.ok(r && r.n >= 10, `${lang}: holdout samples`);
    assert.ok(r.meanAbsError <= 0.1, `${lang}: ${(r.meanAbsError * 100).toFixed(1)}%`);
    assert.ok(r.meanAbsError < r.charsOver4MeanAbsError || lang === "en", `${lang}: no better than chars/4`);
  }
});
