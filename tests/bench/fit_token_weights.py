#!/usr/bin/env python3
"""Refits the token estimator's weights (src/tokens.rs WEIGHTS) on the tune half of
tests/corpus/tokens.json. Pure Python, no dependencies.

    TOKENS_FEATURES_OUT=/tmp/feat.json cargo test --test token_estimation dump_features
    python3 tests/bench/fit_token_weights.py /tmp/feat.json

Non-negative least squares on the relative error (rows scaled by 1/o200k), each language
weighted equally, solved by coordinate descent. Prints the weights and the mean absolute
error per language on both halves.
"""
import json
import math
import sys

NAMES = "words word_overflow humps digit_groups punct newlines indents han kana hangul cjk_punct other".split()


def fit(rows):
    tune = [r for r in rows if r["split"] == "tune"]
    count = {}
    for r in tune:
        count[r["lang"]] = count.get(r["lang"], 0) + 1
    xs = [[f / r["o200k"] / math.sqrt(count[r["lang"]]) for f in r["features"]] for r in tune]
    ys = [1.0 / math.sqrt(count[r["lang"]]) for r in tune]
    k = len(NAMES)
    coef = [0.5] * k
    for _ in range(3000):
        for j in range(k):
            num = den = 0.0
            for xi, yi in zip(xs, ys):
                pred = sum(xi[t] * coef[t] for t in range(k))
                resid = yi - pred + xi[j] * coef[j]
                num += xi[j] * resid
                den += xi[j] * xi[j]
            coef[j] = max(0.0, num / den) if den > 0 else 0.0
    return coef


def report(rows, coef):
    for split in ("tune", "holdout"):
        for lang in ("en", "zh", "code", "ja", "ko", "mixed"):
            rs = [r for r in rows if r["split"] == split and r["lang"] == lang]
            if not rs:
                continue
            est = [max(1, math.ceil(sum(a * b for a, b in zip(r["features"], coef)))) for r in rs]
            errs = [abs(e - r["o200k"]) / r["o200k"] for e, r in zip(est, rs)]
            print(f"{split:8} {lang:6} n={len(rs):2} mean abs error {100 * sum(errs) / len(errs):5.1f}%")


if __name__ == "__main__":
    rows = json.load(open(sys.argv[1]))
    coef = fit(rows)
    for name, c in zip(NAMES, coef):
        print(f"    {name}: {c:.3f},")
    report(rows, coef)
