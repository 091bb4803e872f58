// Pure formatting for the operator commands (commands.js): each report document — the same
// one `--json` prints — becomes lines a person reads in a terminal or a chat. Nothing here
// asks anything or decides anything; every value shown is one the engine (or OpenViking, or
// the host) reported. `now` is passed in so the output is deterministic under test.

/** "2026-12-01 13:24:22 UTC", or "–" for null. */
export function fmtTime(ms) {
  if (!Number.isFinite(ms)) return "–";
  return `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** A duration as "4 s", "5 min 3 s", "2 h 5 min", "3 d 4 h". */
export function fmtDuration(ms) {
  if (!Number.isFinite(ms)) return "–";
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min${s % 60 ? ` ${s % 60} s` : ""}`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h${m % 60 ? ` ${m % 60} min` : ""}`;
  const d = Math.floor(h / 24);
  return `${d} d${h % 24 ? ` ${h % 24} h` : ""}`;
}

/** "13:24:22 UTC (5 min ago)" / "(in 3 min)". */
export function fmtWhen(ms, now) {
  if (!Number.isFinite(ms)) return "–";
  const d = now - ms;
  return `${fmtTime(ms)} (${d >= 0 ? `${fmtDuration(d)} ago` : `in ${fmtDuration(-d)}`})`;
}

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const num = (x, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : "–");
const clip = (text, max = 160) => {
  const t = String(text ?? "").replace(/\s+/g, " ").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};
const pad = (s, n) => String(s).padEnd(n);

/** Two-column rows: label padded, then the value (continuation lines indented). */
function rows(list, indent = "  ") {
  const width = Math.max(0, ...list.map(([k]) => k.length)) + 2;
  return list.map(([k, v]) => `${indent}${pad(k, width)}${String(v).split("\n").join(`\n${indent}${" ".repeat(width)}`)}`);
}

function sessionTitle(s) {
  return s.sessionId && s.sessionId !== s.ovSessionId ? `${s.ovSessionId}  (session ${s.sessionId})` : s.ovSessionId;
}

/** One line per trigger: "turns         1 of 20 turns since the last commit" (the unit is
 *  the engine's: "since the first turn (no commit yet)" before the first commit). */
function triggerLines(triggers) {
  if (!triggers?.length) return "–";
  const w = Math.max(...triggers.map((t) => t.kind.length)) + 1;
  return triggers.map((t) => `${pad(t.kind, w)}${t.current} of ${t.threshold ?? "(off)"}${t.unit ? ` ${t.unit}` : ""}`).join("\n");
}

function outboxLine(s) {
  if (!s.outboxDepth) return "empty";
  const age = Number.isFinite(s.oldestQueuedAgeMs) ? `, oldest queued ${fmtDuration(s.oldestQueuedAgeMs)} ago` : "";
  return `${plural(s.outboxDepth, "turn")} waiting for OpenViking${age}`;
}

/** The turns acknowledged, and where they are: OpenViking, or the outbox on its way there. */
function storedLine(s) {
  const queued = s.outboxDepth ?? 0;
  if (!queued) return `${s.turnsStored} (in OpenViking)`;
  const sent = Math.max(0, s.turnsStored - queued);
  return `${s.turnsStored}: ${sent} in OpenViking, ${queued} in the outbox (below)`;
}

function checkpointLine(c) {
  if (!c) return "none";
  const range = Array.isArray(c.turns) ? `turns ${c.turns[0]}–${c.turns[1]}` : "";
  return [
    `${c.checkpointId}: ${range}, committed ${c.committedAt}`,
    `summary ${c.summaryProblem ? `NOT USED: ${c.summaryProblem}` : c.hasSummary ? "yes" : "not yet"}, ${plural(c.extractedMemories ?? 0, "memory", "memories")} extracted`,
    c.archiveUri ? `archive ${c.archiveUri}` : "archive: not named by the server",
  ].join("\n");
}

/** The per-session block of `status`. */
export function formatSessionStatus(s, now) {
  const out = [sessionTitle(s)];
  if (s.error) return [...out, `  error: ${s.error}`];
  const commit = Number.isFinite(s.lastCommitAtMs) ? `${fmtWhen(s.lastCommitAtMs, now)}${s.lastCommitReason ? `, ${s.lastCommitReason}` : ""}` : "never";
  const next = s.nextTrigger
    ? `due: ${s.nextTrigger}`
    : `nothing due${Number.isFinite(s.intervalDueAtMs) ? `; the interval trigger is due ${fmtWhen(s.intervalDueAtMs, now)}` : ""}`;
  out.push(
    ...rows([
      ["in state dir", s.known === false ? "no (nothing stored for this session yet)" : "yes"],
      ["turns stored", storedLine(s)],
      ["outbox", outboxLine(s)],
      ["last commit", commit],
      ["commit phase", s.commitPhase],
      [`checkpoints`, `${s.checkpoints}${s.distrustedSummaries ? ` (${s.distrustedSummaries} with a summary not used: their turns stay raw, the previous good summary stands)` : ""}${s.lastCheckpoint ? "; last:" : ""}`],
      ...(s.lastCheckpoint ? [["", checkpointLine(s.lastCheckpoint)]] : []),
      ["triggers", triggerLines(s.triggers)],
      ["next commit", next],
      ["last assembled", Number.isFinite(s.lastAssembledAtMs) ? `${fmtWhen(s.lastAssembledAtMs, now)} (this process)` : "not in this process"],
    ]),
  );
  return out;
}

/** A refused config, as every command shows it: each error (and warning) with its fix. */
export function formatRefused(doc) {
  const lines = [`OpenViking ${doc.command}: the plugin config has errors — the context engine is off until they are fixed`];
  const byWeight = [...(doc.problems ?? [])].sort((a, b) => (a.severity === "error" ? 0 : 1) - (b.severity === "error" ? 0 : 1));
  for (const p of byWeight) {
    lines.push(`  [${p.severity === "error" ? "error" : "warn "}] ${p.message}`, `          fix: ${p.fix}`);
  }
  lines.push("  (plugins.entries.openviking.config in openclaw.json; `openclaw openviking doctor` checks the rest)");
  return lines.join("\n");
}

/** The server's verdict as `status` shows it: reachable or not, the key accepted or refused. */
function reachLines(ov, identity) {
  const fix = ov.fix ? `\nfix: ${ov.fix}` : "";
  const health = ov.reachable
    ? `reachable${ov.version ? `, version ${ov.version}` : ""}${Number.isFinite(ov.latencyMs) ? `, ${ov.latencyMs} ms` : ""}`
    : ov.state === "server_starting" ? `STARTING: ${ov.message}${fix}` : `NOT reachable: ${ov.message ?? ov.error}${fix}`;
  let who;
  if (ov.state === "key_refused") who = `KEY REFUSED: ${ov.message}${fix}`;
  else if (identity.userId) who = `user ${identity.userId}`;
  else if (!ov.reachable) who = "unknown (the server is not reachable)";
  else who = `user unknown: ${ov.message ?? identity.error ?? "the server named no user"}${fix}`;
  return { health, who };
}

export function formatStatus(doc, { now = Date.now() } = {}) {
  if (doc.refused) return formatRefused(doc);
  const ov = doc.openviking;
  const { health, who } = reachLines(ov, doc.identity);
  const lines = [
    "OpenViking status",
    ...rows([
      ["server", `${ov.baseUrl} (${ov.mode} mode)`],
      ["health", health],
      ["identity", ov.state === "key_refused" ? `agent ${doc.identity.agentId}\n${who}` : `${who}, agent ${doc.identity.agentId}`],
      ["state dir", doc.stateDir],
      ["sessions", doc.session ? `the one asked for (${doc.session})` : `${doc.sessions.length} of agent ${doc.identity.agentId}`],
    ]),
  ];
  if (doc.error) lines.push(`  error: ${doc.error}`);
  if (doc.memoryQueued) lines.push(`  memory changes queued during an outage: ${doc.memoryQueued} (applied when OpenViking is back; \`flush\` tries now)`);
  const imp = doc.import;
  if (imp) {
    const where = `${imp.done} of ${imp.total} turns`;
    lines.push(imp.running ? `  import under way (pid ${imp.pid}, since ${fmtWhen(imp.startedAt, now)}): ${where}${imp.session ? `, now ${imp.session}` : ""}` : imp.finishedAt ? `  last import: ${where} written, finished ${fmtWhen(imp.finishedAt, now)}` : `  an import stopped at ${where} (pid ${imp.pid} is gone): run it again to go on`);
  }
  for (const s of doc.sessions) lines.push("", ...formatSessionStatus(s, now));
  if (!doc.sessions.length && !doc.error) lines.push("", "No sessions of this agent in the state dir yet.");
  return lines.join("\n");
}

const MARK = { ok: "ok  ", fail: "FAIL", warn: "warn", skip: "skip" };

/** Config values as `key = value` lines (the key itself never reaches this: see commands.js). */
function configLines(config) {
  return Object.entries(config).map(([k, v]) => `${k} = ${v === null ? "(unset)" : typeof v === "string" ? JSON.stringify(v) : String(v)}`);
}

export function formatDoctor(doc) {
  const failed = doc.checks.filter((c) => c.status === "fail").length;
  const warned = doc.checks.filter((c) => c.status === "warn").length;
  const lines = [
    `OpenViking doctor: ${failed ? `${plural(failed, "check")} failed` : "all checks passed"}${warned ? `, ${plural(warned, "warning")}` : ""}`,
    ...rows([
      ["plugin", `${doc.plugin.id} ${doc.plugin.version ?? ""}`.trim()],
      ["host", doc.host.version ? `OpenClaw ${doc.host.version}` : "OpenClaw (version not exposed by this host)"],
      ["engine", doc.plugin.engineVersion ? `wasm engine ${doc.plugin.engineVersion}` : "–"],
      ["agent", doc.agentId ?? "–"],
      ["API key", doc.config.apiKeySet ? "set (not shown)" : "not set"],
    ]),
    "",
    "Checks",
  ];
  for (const c of doc.checks) {
    lines.push(`  [${MARK[c.status] ?? c.status}] ${c.title}${c.detail ? `: ${c.detail}` : ""}`);
    if (c.fix && (c.status === "fail" || c.status === "warn")) lines.push(`         fix: ${c.fix}`);
  }
  lines.push("", "Config (resolved by the engine)");
  if (!doc.config.resolved) lines.push("  not resolved: the config has errors (see the checks above)");
  else lines.push(...configLines(doc.config.resolved).map((l) => `  ${l}`));
  return lines.join("\n");
}

export function formatFlush(doc) {
  if (doc.refused) return formatRefused(doc);
  const lines = [
    `OpenViking flush (agent ${doc.agentId}): ${plural(doc.totals.written, "turn")} written, ${plural(doc.totals.queued, "turn")} still queued`,
  ];
  if (doc.error) lines.push(`  error: ${doc.error}`);
  const m = doc.memory;
  if (m && (m.applied || m.queued)) {
    lines.push(`  memory changes (queued during an outage): ${m.applied} applied, ${m.queued} still queued${m.queued && m.reason ? ` — ${m.reason}` : ""}`);
  }
  if (!doc.sessions.length && !doc.error) lines.push("  no sessions of this agent in the state dir");
  for (const s of doc.sessions) {
    const what = s.error
      ? `error: ${s.error}`
      : `${s.written} written, ${s.queued} still queued${s.reason ? ` — ${s.reason}` : ""}${s.inProgress ? " (another replay was under way)" : ""}`;
    lines.push(`  ${sessionTitle(s)}: ${what}`);
  }
  return lines.join("\n");
}

/** `setup`: each step with what it did, then the doctor's report. */
export function formatSetup(doc) {
  const mark = { done: "done", ok: "ok  ", skip: "skip", warn: "warn", fail: "FAIL" };
  const lines = [`OpenViking setup (local mode${doc.port ? `, 127.0.0.1:${doc.port}` : ""}): ${doc.ok ? "ready" : doc.error ? "stopped" : "done, with problems (below)"}`];
  for (const s of doc.steps ?? []) {
    lines.push(`  [${mark[s.status] ?? s.status}] ${s.id}: ${s.detail}`);
    if (s.fix) lines.push(`         fix: ${s.fix}`);
  }
  if (doc.error) lines.push(`  error: ${doc.error}`);
  if (doc.doctor) lines.push("", formatDoctor(doc.doctor));
  return lines.join("\n");
}

/** `export`: where the file went and what it holds. */
export function formatExport(doc) {
  if (doc.refused) return formatRefused(doc);
  const t = doc.totals ?? {};
  const lines = doc.error
    ? [`OpenViking export (agent ${doc.agentId ?? "?"}): nothing written`, `  error: ${doc.error}`]
    : [`OpenViking export (agent ${doc.agentId}): ${plural(t.sessions ?? 0, "session")}, ${plural(t.turns ?? 0, "turn")}, ${plural(t.memories ?? 0, "memory", "memories")} → ${doc.file} (${doc.bytes} bytes of JSON lines, ${fmtDuration(doc.elapsedMs)})`];
  for (const s of doc.sessions) lines.push(`  ${s.ovSessionId}: ${plural(s.turns, "turn")}`);
  for (const p of doc.problems ?? []) lines.push(`  not exported: ${p}`);
  if (!doc.error) lines.push(`  restore it with: openclaw openviking import --from ${doc.file} --apply`);
  return lines.join("\n");
}

/** `import --from`: per session what the file holds, what OpenViking has, what was (or would be) written. */
function formatRestore(doc) {
  const t = doc.totals ?? {};
  const m = doc.memories;
  const mem = !m ? "" : m.error ? "; memories: error" : doc.apply ? `; ${plural(m.written, "memory", "memories")} written, ${m.alreadyStored} already there` : `; ${plural(m.remaining, "memory", "memories")} to write, ${m.alreadyStored} already there`;
  const head = doc.apply
    ? `OpenViking restore from ${doc.from} (agent ${doc.agentId}): ${plural(t.written ?? 0, "turn")} written, ${t.alreadyStored ?? 0} already there, ${t.remaining ?? 0} left; ${plural(t.commits ?? 0, "commit")}${mem}`
    : `OpenViking restore from ${doc.from}, dry run (agent ${doc.agentId}): ${plural(t.remaining ?? 0, "turn")} to write, ${t.alreadyStored ?? 0} already there${mem} — run again with --apply to write them`;
  const lines = [head];
  if (doc.fromAgentId && doc.fromAgentId !== doc.agentId) lines.push(`  the file is agent ${doc.fromAgentId}'s (exported ${doc.exportedAt})`);
  if (doc.error) lines.push(`  error: ${doc.error}`);
  for (const p of doc.problems ?? []) lines.push(`  file: ${p}`);
  for (const s of doc.sessions) {
    if (s.error) {
      lines.push(`  ${s.sessionId}: error: ${s.error}`);
      continue;
    }
    const left = doc.apply ? `${s.written} written, ${s.remaining} left` : `${s.remaining} to write`;
    lines.push(`  ${s.sessionId}: ${plural(s.turns, "turn")} in ${plural(s.archives, "archive")}; ${s.alreadyStored} already in OpenViking; ${left} → ${s.ovSessionId}`);
    if (s.stopped) lines.push(`    stopped: ${s.stopped}`);
  }
  if (m?.error) lines.push(`  memories: error: ${m.error}`);
  if (doc.apply && doc.turnsPerSecond !== null) lines.push(`  ${fmtDuration(doc.elapsedMs)}, ${doc.turnsPerSecond} turns/s`);
  return lines.join("\n");
}

/** `import`: per session what OpenClaw holds, what OpenViking has, what was (or would be) written. */
export function formatImport(doc) {
  if (doc.refused) return formatRefused(doc);
  if (doc.from) return formatRestore(doc);
  const t = doc.totals ?? {};
  const verb = doc.apply ? "written" : "to write";
  const head = doc.apply
    ? `OpenViking import (agent ${doc.agentId}): ${plural(t.written ?? 0, "turn")} written, ${t.alreadyStored ?? 0} already there, ${t.remaining ?? 0} left; ${plural(t.commits ?? 0, "commit")}`
    : `OpenViking import, dry run (agent ${doc.agentId}): ${plural(t.remaining ?? 0, "turn")} to write, ${t.alreadyStored ?? 0} already there — run again with --apply to write them`;
  const lines = [head];
  if (doc.error) lines.push(`  error: ${doc.error}`);
  if (!doc.sessions.length && !doc.error) lines.push(`  no OpenClaw sessions of this agent under ${doc.openclawStateDir}`);
  for (const s of doc.sessions) {
    if (s.error) {
      lines.push(`  ${s.sessionId}: error: ${s.error}`);
      continue;
    }
    const span = s.firstMs ? `${fmtTime(s.firstMs)} – ${fmtTime(s.lastMs)}` : "no times";
    const left = doc.apply ? `${s.written} ${verb}, ${s.remaining} left` : `${s.remaining} ${verb}`;
    lines.push(`  ${s.sessionId}${s.deleted ? " (deleted)" : ""}: ${plural(s.turns, "turn")}, ${plural(s.toolCalls, "tool call")}, ~${s.tokens} tokens, ${span}; ${s.alreadyStored} already in OpenViking; ${left} → ${s.ovSessionId}`);
    const sk = s.skipped ?? {};
    const skipped = [[sk.unreadable, "unreadable line"], [sk.unknownMessages, "message of an unknown kind"], [sk.otherBranches, "message of an abandoned branch"]].filter(([n]) => n).map(([n, what]) => plural(n, what));
    if (skipped.length) lines.push(`    left out: ${skipped.join(", ")}`);
    if (s.stopped) lines.push(`    stopped: ${s.stopped}`);
  }
  if (doc.apply && doc.turnsPerSecond !== null) lines.push(`  ${fmtDuration(doc.elapsedMs)}, ${doc.turnsPerSecond} turns/s`);
  return lines.join("\n");
}

const SKIP = { empty: "empty", greeting: "greeting / ack", command: "/command", too_short: "too short", injected_only: "injected only" };

function explainLine(e, i) {
  const r = e.rank ?? {};
  const boosts = [["level", r.levelBoost], ["temporal", r.temporalBoost], ["preference", r.preferenceBoost], ["lexical", r.lexicalBoost]]
    .filter(([, v]) => v)
    .map(([k, v]) => `${k} +${num(v)}`)
    .join(", ");
  const head = e.decision === "kept" ? `kept #${e.position}` : `cut: ${e.reason}`;
  const parts = [
    `${String(i + 1).padStart(2)}. ${pad(head, 20)} ${pad(e.scope, 5)} ${pad(e.category ?? "–", 12)} total ${num(r.total)} = score ${num(r.score)}${boosts ? ` + ${boosts}` : ""}` +
      `${Number.isFinite(e.tokens) ? `, ${e.tokens} tokens` : ""}`,
    `      ${e.uri || "(no uri)"}`,
  ];
  if (e.duplicateOf) parts.push(`      duplicate of ${e.duplicateOf}`);
  if (e.detail) parts.push(`      ${e.detail}`);
  return parts;
}

/** What recall did, as the trace's Memories heading says it (the engine's words). */
function recallHead(status, rec, cut, why) {
  const tokens = rec ? `; ${rec.tokens} of ${rec.budget} recall tokens` : "";
  if (!status) {
    // a trace kept by an earlier release: only the numbers
    return rec ? `Memories: ${rec.memories.length} injected, ${cut.length} cut${why ? ` (${why})` : ""}${tokens}` : "Memories: no recall this turn";
  }
  const fix = status.reason?.fix ? [`  fix: ${status.reason.fix}`] : [];
  switch (status.state) {
    case "skipped":
      return [`Memories: recall SKIPPED — ${status.reason?.message ?? "OpenViking could not be searched"}`, ...fix].join("\n");
    case "off":
      return "Memories: recall off (autoRecall is false): nothing searched";
    case "no_query":
      return "Memories: nothing searched (every user turn in the recall window was skipped)";
    case "not_needed":
      // the engine's intent analysis declined the turn; its line says why
      return `Memories: ${status.line}`;
    default: {
      const partial = status.reason ? [`  one scope failed: ${status.reason.message}`, ...fix] : [];
      const intent = status.intentNote ?? ""; // the engine's words: " (intent: …)" or empty
      const head = status.found === 0
        ? `Memories: searched${intent}, nothing found (0 candidates)${tokens}`
        : `Memories: searched${intent}, ${status.found} found: ${rec?.memories.length ?? status.injected} injected, ${cut.length} cut${why ? ` (${why})` : ""}${tokens}`;
      return [head, ...partial].join("\n");
    }
  }
}

/** The agent's experiences the engine considered (`RecallOutcome.experiences`), as it decided. */
function experienceLines(rec) {
  const kept = rec.experiences.filter((x) => x.decision === "kept").length;
  const out = [`Experiences (this agent's): ${kept} injected, ${rec.experienceTokens ?? 0} tokens of the pair`];
  for (const x of rec.experiences) {
    const why = x.why?.length ? ` · ${x.why.join("; ")}` : "";
    const head = x.decision === "kept" ? `#${x.position ?? "?"} kept` : `cut (${x.reason})`;
    out.push(`  ${head} ${x.name}${why}${Number.isFinite(x.tokens) ? ` · ${x.tokens} tokens` : ""}`);
  }
  return out;
}

export function formatTrace(doc, { now = Date.now() } = {}) {
  if (doc.refused) return formatRefused(doc);
  if (doc.error) return `OpenViking trace: ${doc.error}`;
  const t = doc.trace;
  if (!t) return `OpenViking trace of ${sessionTitle(doc)}: no assembled turn known yet (the engine keeps the last one per session).`;
  if (t.rebuilt) return formatRebuilt(doc, t, now);
  const lines = [`OpenViking trace of ${sessionTitle(doc)}`, `  assembled ${fmtWhen(t.atMs, now)}`, "", "Query"];
  if (t.query?.query) lines.push(`  ${clip(t.query.query, 400)}`);
  else lines.push("  (none: every turn in the window was skipped, nothing was searched)");
  for (const p of t.query?.parts ?? []) lines.push(`    ${p.skipped ? `skipped (${SKIP[p.skipped] ?? p.skipped})` : "used"} · ${p.source}: ${clip(p.text || "(empty)", 100)}`);
  const status = t.recallStatus ?? null;
  const skipped = status?.state === "skipped";
  lines.push("", skipped ? "Scopes (not searched: recall was skipped)" : "Scopes searched");
  if (t.scopes) lines.push(`  user   ${t.scopes.user}`, `  agent  ${t.scopes.agent}`);
  else lines.push("  (none this turn)");
  lines.push("");
  const rec = t.recall;
  const cut = rec ? rec.explain.filter((e) => e.decision === "cut") : [];
  const reasons = {};
  for (const e of cut) reasons[e.reason] = (reasons[e.reason] ?? 0) + 1;
  const why = Object.entries(reasons).map(([k, v]) => `${k} ${v}`).join(", ");
  lines.push(recallHead(status, rec, cut, why));
  if (rec && !skipped) rec.explain.forEach((e, i) => lines.push(...explainLine(e, i)));
  if (rec?.experiences?.length && !skipped) lines.push("", ...experienceLines(rec));
  const s = t.split ?? {};
  const trimmed = s.trimmed && typeof s.trimmed === "object"
    ? Object.entries(s.trimmed).filter(([, v]) => v).map(([k, v]) => (v === true ? k : `${k} ${v}`)).join(", ")
    : "";
  lines.push(
    "",
    "Tokens",
    ...rows([
      ["total", `${t.estimatedTokens}${Number.isFinite(t.tokenBudget) ? ` of ${t.tokenBudget} (host budget)` : " (no host budget given)"}${s.overBudget ? " — OVER BUDGET" : ""}`],
      ["recall", s.recall ?? 0],
      ["summaries", `${s.summaries ?? 0} (${plural(s.summarizedTurns ?? 0, "turn")} summarized)${s.distrustedSummaries ? `; ${s.distrustedSummaries} not used (cannot be trusted)` : ""}`],
      ["raw turns", `${plural(s.recentRawTurns ?? 0, "recent turn")} kept raw`],
      ["trimmed", trimmed || "nothing"],
    ]),
  );
  return lines.join("\n");
}

/** A trace the engine rebuilt from OpenViking: this state dir did not assemble the turn. */
function formatRebuilt(doc, t, now) {
  const r = t.rebuilt;
  const lines = [
    `OpenViking trace of ${sessionTitle(doc)} — rebuilt from OpenViking`,
    `  the last stored turn (${r.turnId || "no turn id"}${r.archived ? ", in the newest archive" : ""}), ${fmtWhen(t.atMs, now)}`,
    "  this state dir did not assemble it (another machine or process did, or the state dir was new):",
    "  the candidates cut and the token split are known only where it was assembled",
    "",
    "Question",
    `  ${clip(t.query?.query || "(no text)", 400)}`,
    "",
    `Memories shown with the turn: ${r.injectedUris.length}`,
    ...r.injectedUris.map((u) => `  ${u}`),
  ];
  return lines.join("\n");
}

/** The usage text of the chat command and of `openclaw openviking --help`-like errors. */
export function usage(prefix) {
  return [
    `${prefix} status [--session <sessionId>] [json]   OpenViking, identity, and each session's turns, outbox, commits, triggers`,
    `${prefix} doctor [json]                          config, host slot, OpenViking endpoints, local server — each with a fix`,
    `${prefix} flush [--session <sessionId>] [json]    replay the outbox of each session now`,
    `${prefix} trace [--session <sessionId>] [json]    what the last assembled turn searched, injected, cut and spent`,
    `openclaw openviking import [--apply] [--session <id>] [--since/--until <date>] [--limit <n>]   bring past OpenClaw sessions into OpenViking (CLI only)`,
    `openclaw openviking export --out <file>[.gz]   the agent's past in OpenViking to one file (CLI only)`,
    `openclaw openviking import --from <file> [--apply]   restore such a file here (CLI only)`,
    `openclaw openviking setup [--embedding-url <url> --vlm-url <url> …]   local mode in one command (CLI only)`,
  ].join("\n");
}
