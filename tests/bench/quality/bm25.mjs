// The history-search baseline of the recall-quality benchmark: plain Okapi BM25 (k1 1.2,
// b 0.75) over the same turns the engine indexes (a turn = its user and assistant text).
// Tokens: lowercased (NFKC) text split on whitespace and punctuation; a run of CJK
// characters becomes its character bigrams (a lone character stays a unigram). No stop
// words, no stemming — the plain baseline the engine's ranking must beat.

const CJK = /[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]/u;
const SPLIT = /[\s\p{P}\p{S}]+/u;

/** The BM25 tokens of a text. */
export function tokenize(text) {
  const out = [];
  for (const chunk of String(text ?? "").normalize("NFKC").toLowerCase().split(SPLIT)) {
    if (!chunk) continue;
    // split each chunk into CJK runs and other runs
    let run = "";
    let cjk = false;
    const flush = () => {
      if (!run) return;
      if (cjk) {
        const chars = [...run];
        if (chars.length === 1) out.push(chars[0]);
        for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
      } else {
        out.push(run);
      }
      run = "";
    };
    for (const ch of chunk) {
      const isCjk = CJK.test(ch);
      if (run && isCjk !== cjk) flush();
      cjk = isCjk;
      run += ch;
    }
    flush();
  }
  return out;
}

/** An index over `docs` ([{id, text}]); `search(query, k)` → [{id, score}] best first
 *  (documents scoring 0 are left out; ties keep the documents' order). */
export function bm25Index(docs, { k1 = 1.2, b = 0.75 } = {}) {
  const tf = docs.map((d) => {
    const m = new Map();
    for (const t of tokenize(d.text)) m.set(t, (m.get(t) ?? 0) + 1);
    return m;
  });
  const len = tf.map((m) => [...m.values()].reduce((a, x) => a + x, 0));
  const avg = len.reduce((a, x) => a + x, 0) / Math.max(1, docs.length);
  const df = new Map();
  for (const m of tf) for (const t of m.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const N = docs.length;
  const idf = (t) => Math.log(1 + (N - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5));
  return {
    size: N,
    search(query, k = 10) {
      const q = [...new Set(tokenize(query))];
      const scored = [];
      tf.forEach((m, i) => {
        let s = 0;
        for (const t of q) {
          const f = m.get(t);
          if (!f) continue;
          s += idf(t) * ((f * (k1 + 1)) / (f + k1 * (1 - b + (b * len[i]) / avg)));
        }
        if (s > 0) scored.push({ id: docs[i].id, score: s, i });
      });
      scored.sort((x, y) => y.score - x.score || x.i - y.i);
      return scored.slice(0, k).map(({ id, score }) => ({ id, score }));
    },
  };
}
