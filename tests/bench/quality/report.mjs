// The recall-quality benchmark's scoring and tables: what one question's recall and history
// search count as (evidence reached, precision, the newest version only, R@k), and the summary
// per language and category, the engine beside OpenViking's own order and BM25.

/** The memory id a benchmark uri names (`…/<type>/<tag>-m<id>.md`), or null. */
export function idOf(uri) {
  return /\/([a-z0-9-]+-m[0-9a-z]+)\.md$/.exec(uri ?? "")?.[1] ?? null;
}

// =============================================================================================
export function score(uris, q, memOf) {
  const ids = uris.map(idOf);
  const evidence = new Set(q.evidence.flat());
  const groupsHit = q.evidence.map((g) => g.some((id) => ids.includes(id)));
  const facts = new Set(ids.filter(Boolean).map((id) => memOf.get(id)?.fact ?? id));
  const staleAt = ids.findIndex((id) => (q.stale ?? []).includes(id));
  const latestAt = ids.findIndex((id) => evidence.has(id));
  return {
    injected: ids.map((id, i) => id ?? uris[i]),
    n: ids.length,
    evidenceInjected: ids.filter((id) => evidence.has(id)).length,
    hit: q.evidence.length ? groupsHit.some(Boolean) : null,
    all: q.evidence.length ? groupsHit.every(Boolean) : null,
    dupSlots: ids.filter(Boolean).length - facts.size,
    staleInjected: ids.filter((id) => (q.stale ?? []).includes(id)).length,
    staleFirst: q.stale?.length ? staleAt >= 0 && (latestAt < 0 || staleAt < latestAt) : null,
    // an update question answered right: the newest fact injected, no older one before it
    newestFirst: q.stale?.length ? latestAt >= 0 && (staleAt < 0 || latestAt < staleAt) : null,
    newestOnly: q.stale?.length ? latestAt >= 0 && staleAt < 0 : null,
  };
}

export function historyScore(q, turnIds, answer) {
  const groups = q.evidenceTurns;
  const at = (k) => (groups.length ? groups.filter((g) => g.some((t) => turnIds.slice(0, k).includes(t))).length / groups.length : null);
  // with no hits, the rest of the tool's answer (what it scanned, why nothing matched; not its timing)
  const rest = answer && !turnIds.length ? Object.fromEntries(Object.entries(answer).filter(([k]) => k !== "hits" && k !== "elapsedMs")) : undefined;
  return { hits: turnIds, scores: answer?.hits?.map((h) => h.score), r5: at(5), r10: at(10), matched: answer?.matched ?? null, answer: rest };
}

export function summarise(records, categories) {
  const groups = {};
  for (const lang of ["en", "zh", "all"]) {
    groups[lang] = {};
    for (const type of [...categories, "answerable"]) {
      const rs = records.filter((r) => (lang === "all" || r.lang === lang) && (type === "answerable" ? r.type !== "unrelated" : r.type === type));
      if (rs.length) groups[lang][type] = aggregate(rs);
    }
  }
  return groups;
}

function aggregate(rs) {
  const changed = (xs) => {
    const ys = xs.filter((x, i) => rs[i].stale.length);
    return ys.length ? ys : null;
  };
  const side = (key) => {
    const xs = rs.map((r) => r[key]);
    const injected = sum(xs.map((x) => x.n));
    const withInj = xs.filter((x) => x.n > 0);
    const answerable = xs.filter((x) => x.hit !== null);
    return {
      evidenceRecall: answerable.length ? mean(answerable.map((x) => (x.hit ? 1 : 0))) : null,
      allEvidence: answerable.length ? mean(answerable.map((x) => (x.all ? 1 : 0))) : null,
      precision: injected ? sum(xs.map((x) => x.evidenceInjected)) / injected : null,
      injectedMean: mean(xs.map((x) => x.n)),
      anyInjected: mean(xs.map((x) => (x.n > 0 ? 1 : 0))),
      tokensMean: mean(xs.map((x) => x.tokens ?? 0)),
      tokensPerMemory: injected ? sum(xs.map((x) => x.tokens ?? 0)) / injected : null,
      legacyBlockTokensPerMemory: key === "engine" && injected ? sum(xs.map((x) => x.legacyBlockTokens ?? 0)) / injected : undefined,
      dupSlotsMean: mean(xs.map((x) => x.dupSlots)),
      recallsWithDuplicates: mean(xs.map((x) => (x.dupSlots > 0 ? 1 : 0))),
      withInjection: withInj.length,
      findsMean: key === "engine" ? mean(xs.map((x) => x.finds ?? 2)) : undefined,
      // over the questions with a superseded fact (decision and update questions)
      staleInjected: changed(xs) ? mean(changed(xs).map((x) => (x.staleInjected > 0 ? 1 : 0))) : undefined,
      staleFirst: changed(xs) ? mean(changed(xs).map((x) => (x.staleFirst ? 1 : 0))) : undefined,
      newestFirst: changed(xs) ? mean(changed(xs).map((x) => (x.newestFirst ? 1 : 0))) : undefined,
      newestOnly: changed(xs) ? mean(changed(xs).map((x) => (x.newestOnly ? 1 : 0))) : undefined,
    };
  };
  const hist = (key) => {
    const hs = rs.map((r) => r.history?.[key]).filter(Boolean);
    const scored = hs.filter((h) => h.r5 !== null);
    return hs.length ? { r5: scored.length ? mean(scored.map((h) => h.r5)) : null, r10: scored.length ? mean(scored.map((h) => h.r10)) : null, noHits: mean(hs.map((h) => (h.hits.length ? 0 : 1))) } : null;
  };
  const spread = (xs) => {
    const v = xs.filter((x) => typeof x === "number").sort((a, b) => a - b);
    return v.length ? { min: round(v[0]), median: round(v[Math.floor((v.length - 1) / 2)]), max: round(v[v.length - 1]) } : null;
  };
  return {
    n: rs.length,
    // OpenViking's scores ((1 + cosine) / 2): the best candidate, and the best evidence memory
    scores: { top: spread(rs.map((r) => r.scores?.top)), evidence: spread(rs.map((r) => r.scores?.evidence)) },
    evidenceInPool: rs.some((r) => r.evidence.length) ? mean(rs.filter((r) => r.evidence.length).map((r) => (r.evidenceInPool ? 1 : 0))) : null,
    engine: side("engine"),
    baseline: side("baseline"),
    history: { engine: hist("engine"), engineWords: hist("engineWords"), vectors: hist("vectors"), bm25: hist("bm25") },
  };
}

export function printTables(summary, meta) {
  console.log(`Recall quality — set ${meta.set === "personas" ? `personas (generate.mjs, seed ${meta.seed})` : meta.set}${meta.set.startsWith("heldout") ? " (HELD OUT: never tuned on)" : " (tuning)"} — OpenViking ${meta.openviking}, embedder ${meta.embedder}, ${meta.context ? `each question after ${meta.context} turns of small talk` : "each question alone"}, ${meta.configGiven ? "config" : "default config"} (recallLimit ${meta.config.recallLimit}, threshold ${meta.config.recallScoreThreshold}, budget ${meta.config.recallTokenBudget}), ${meta.searchLimit} per scope`);
  console.log(`data: ${meta.dataset.map((d) => `${d.persona} ${d.memories} memories/${d.turns} turns/${d.questions} q`).join(", ")}; wasm ${meta.wasm.sha256.slice(0, 12)}`);
  console.log(`E = the engine (Engine.autoRecall), B = OpenViking's top ${meta.config.recallLimit} by score (level-2 items; tokens: the legacy text block)`);
  for (const lang of ["en", "zh", "all"]) {
    const g = summary[lang];
    if (!g || !Object.keys(g).length) continue;
    console.log(`\n### Auto-recall — ${lang}: what reached the model\n`);
    const rows = [["type", "n", "evidence E", "B", "all-ev E", "B", "precision E", "B", "any inj. E", "B", "stale E", "B", "stale 1st E", "B", "newest only E", "B", "in pool"]];
    for (const [type, a] of Object.entries(g)) {
      const e = a.engine, b = a.baseline;
      rows.push([type, a.n, pct(e.evidenceRecall), pct(b.evidenceRecall), pct(e.allEvidence), pct(b.allEvidence), pct(e.precision), pct(b.precision), pct(e.anyInjected), pct(b.anyInjected), pct(e.staleInjected), pct(b.staleInjected), pct(e.staleFirst), pct(b.staleFirst), pct(e.newestOnly), pct(b.newestOnly), pct(a.evidenceInPool)]);
    }
    console.log(table(rows));
    console.log(`\n### Auto-recall — ${lang}: what it cost\n`);
    const cost = [["type", "n", "finds E", "injected E", "B", "tokens E", "B", "tok/mem E", "B", "E as legacy block", "dup slots E", "B", "recalls w/ dups E", "B"]];
    for (const [type, a] of Object.entries(g)) {
      const e = a.engine, b = a.baseline;
      cost.push([type, a.n, num(e.findsMean, 2), num(e.injectedMean, 2), num(b.injectedMean, 2), num(e.tokensMean, 0), num(b.tokensMean, 0), num(e.tokensPerMemory, 1), num(b.tokensPerMemory, 1), num(e.legacyBlockTokensPerMemory, 1), num(e.dupSlotsMean, 2), num(b.dupSlotsMean, 2), pct(e.recallsWithDuplicates), pct(b.recallsWithDuplicates)]);
    }
    console.log(table(cost));
    const sc = (x) => (x ? `${x.min.toFixed(3)} / ${x.median.toFixed(3)} / ${x.max.toFixed(3)}` : "—");
    if (g.unrelated && g.answerable) console.log(`\nOpenViking's best score (min / median / max): unrelated questions ${sc(g.unrelated.scores.top)}; answerable questions ${sc(g.answerable.scores.top)}, their best evidence memory ${sc(g.answerable.scores.evidence)}`);
    if (Object.values(g).some((a) => a.history?.engine)) {
      console.log(`\n### History search — ${lang} (memory_search_history, defaults: E = words fused with meaning after each session's commit, E words = before any commit; BM25 baseline)\n`);
      const hr = [["type", "n", "R@5 E", "E words", "vectors", "BM25", "R@10 E", "E words", "vectors", "BM25", "no hits E", "E words", "BM25"]];
      for (const [type, a] of Object.entries(g)) {
        const h = a.history;
        if (!h.engine) continue;
        hr.push([type, a.n, pct(h.engine.r5), pct(h.engineWords?.r5), pct(h.vectors?.r5), pct(h.bm25.r5), pct(h.engine.r10), pct(h.engineWords?.r10), pct(h.vectors?.r10), pct(h.bm25.r10), pct(h.engine.noHits), pct(h.engineWords?.noHits), pct(h.bm25.noHits)]);
      }
      console.log(table(hr));
    }
  }
  console.log(`\nevidence = ≥ 1 evidence memory injected; all-ev = every needed fact injected; precision = injected evidence / injected (pooled); any inj. = share of questions with ≥ 1 memory injected (unrelated: should be 0); stale = a superseded fact injected, stale 1st = ranked above the newest; newest only = the newest fact injected and no superseded one; in pool = an evidence memory among the ${meta.searchLimit}+${meta.searchLimit} candidates (the ceiling for both); tokens = what the recall adds to a request, per question (E: the opening message + tool pair, estimateMessageTokens; B: the legacy text block, estimateTokens); E as legacy block = the engine's memories costed in that block, per memory; dup slots = injected − distinct facts among them; recalls w/ dups = share of recalls with ≥ 2 variants of one fact. History: R@k = share of needed facts with a stating turn in the top k; no hits = nothing returned.`);
}

export function table(rows) {
  const w = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  const line = (r) => "| " + r.map((c, i) => (i === 0 ? String(c).padEnd(w[i]) : String(c).padStart(w[i]))).join(" | ") + " |";
  return [line(rows[0]), "|" + w.map((x, i) => (i === 0 ? "-".repeat(x + 2) : "-".repeat(x + 1) + ":")).join("|") + "|", ...rows.slice(1).map(line)].join("\n");
}

export function sum(xs) {
  return xs.reduce((a, x) => a + x, 0);
}
export function mean(xs) {
  return xs.length ? sum(xs) / xs.length : null;
}
export function round(x) {
  return typeof x === "number" ? Math.round(x * 1000) / 1000 : x;
}
export function pct(x) {
  return x === null || x === undefined ? "—" : `${(x * 100).toFixed(1)}%`;
}
export function num(x, d) {
  return x === null || x === undefined ? "—" : x.toFixed(d);
}
