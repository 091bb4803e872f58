// state-modes.test.mjs — the state store holds whole turns (private text): every file it
// writes is 0600, every folder it creates 0700 — temp files before their rename included —
// whatever the umask, and a state dir left by an older version (0644 files, 0755 folders) is
// tightened when the store first opens it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { promises as fsp, chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createStateStore } from "../state-store.js";

const mode = (p) => statSync(p).mode & 0o777;
const oct = (m) => `0${m.toString(8)}`;

/** Every entry under `root` with its mode, "name: 0NNN". */
function walk(root, out = []) {
  out.push({ path: root, dir: true, mode: mode(root) });
  for (const e of readdirSync(root, { withFileTypes: true })) {
    const p = join(root, e.name);
    if (e.isDirectory()) walk(p, out);
    else out.push({ path: p, dir: false, mode: mode(p) });
  }
  return out;
}

/** Every file under `root` 0600 and every folder 0700 — `root` itself too unless `rootMode`
 *  says what it must have kept. */
function assertPrivate(root, rootMode = "0700") {
  for (const e of walk(root)) assert.equal(oct(e.mode), e.path === root ? rootMode : e.dir ? "0700" : "0600", `${e.path} is ${oct(e.mode)}`);
}

/** Run `fn` with process umask `u`, restoring it after. */
async function withUmask(u, fn) {
  const old = process.umask(u);
  try {
    return await fn();
  } finally {
    process.umask(old);
  }
}

const TURN = { turnId: "t1", text: "my bank PIN is 4711, please remember" };

async function exercise(store) {
  await store.saveState("session/agent--s1", { nextSequence: 3, note: TURN.text });
  await store.saveState("session/agent--s1", { nextSequence: 4, note: TURN.text }); // replace
  await store.outboxAppend("agent--s1", TURN);
  await store.outboxAppend("agent--s1", { ...TURN, turnId: "t2" });
  await store.outboxAppend("agent--s1", { ...TURN, turnId: "t3" });
  await store.outboxDrop("agent--s1", 1); // rewrites the outbox through a temp file
  assert.deepEqual((await store.outboxRead("agent--s1")).map((e) => e.turnId), ["t2", "t3"]);
  assert.equal((await store.loadState("session/agent--s1")).nextSequence, 4);
}

test("umask 000: a new state dir (and parents it creates) is 0700, every file 0600", async () => {
  const base = mkdtempSync(join(tmpdir(), "ov-modes-"));
  try {
    const stateDir = join(base, "openclaw", "plugins", "openviking"); // none of these exist yet
    await withUmask(0o000, () => exercise(createStateStore(stateDir)));
    assertPrivate(join(base, "openclaw"));
    assert.equal(oct(mode(join(stateDir, "state"))), "0700");
    assert.equal(oct(mode(join(stateDir, "outbox"))), "0700");
    assert.ok(readdirSync(join(stateDir, "outbox")).length === 1, "no temp file left behind");
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test("temp files are 0600 before they are renamed into place (umask 000)", async () => {
  const base = mkdtempSync(join(tmpdir(), "ov-modes-"));
  const realRename = fsp.rename;
  const seen = [];
  fsp.rename = async (from, to) => {
    seen.push({ from: String(from), mode: mode(from) });
    return realRename.call(fsp, from, to);
  };
  try {
    await withUmask(0o000, () => exercise(createStateStore(join(base, "sd"))));
  } finally {
    fsp.rename = realRename;
  }
  try {
    assert.ok(seen.length >= 3, `renames seen: ${seen.length}`);
    for (const s of seen) {
      assert.match(s.from, /\.tmp$/);
      assert.equal(oct(s.mode), "0600", `${s.from} was ${oct(s.mode)} before its rename`);
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test("a strict umask (0277) neither narrows the modes nor breaks later writes", async () => {
  const base = mkdtempSync(join(tmpdir(), "ov-modes-"));
  try {
    const stateDir = join(base, "sd");
    await withUmask(0o277, async () => {
      const store = createStateStore(stateDir);
      await exercise(store);
      await store.outboxAppend("agent--s1", { ...TURN, turnId: "t4" }); // the existing file stays writable
    });
    assertPrivate(stateDir);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test("a state dir from an older version (0755 folders, 0644 files) is tightened on first open", async () => {
  const base = mkdtempSync(join(tmpdir(), "ov-modes-"));
  try {
    const stateDir = join(base, "sd");
    await withUmask(0o022, () => {
      for (const d of [stateDir, join(stateDir, "state"), join(stateDir, "outbox")]) mkdirSync(d, { recursive: true, mode: 0o755 });
      writeFileSync(join(stateDir, "state", "session%2Fold.json"), JSON.stringify({ note: TURN.text }), { mode: 0o644 });
      writeFileSync(join(stateDir, "state", "identity%2Fabc.json"), JSON.stringify({ userId: "u" }), { mode: 0o664 });
      writeFileSync(join(stateDir, "outbox", "old.jsonl"), `${JSON.stringify(TURN)}\n`, { mode: 0o644 });
      writeFileSync(join(stateDir, "outbox", "old.jsonl.1.2.tmp"), "torn", { mode: 0o666 }); // a crash's leftover
      chmodSync(join(stateDir, "outbox", "old.jsonl.1.2.tmp"), 0o666);
    });
    assert.equal(oct(mode(join(stateDir, "state", "session%2Fold.json"))), "0644"); // precondition
    // a read-only use (what an assemble does first) is enough to tighten everything the
    // plugin owns; the state dir itself may be someone's shared folder: it keeps its mode,
    // with a warning that it is open
    const warnings = [];
    const store = createStateStore(stateDir, { warn: (m) => warnings.push(m) });
    assert.deepEqual(await store.loadState("session/old"), { note: TURN.text });
    assertPrivate(stateDir, "0755");
    assert.ok(warnings.some((w) => w.includes(`the state dir ${stateDir} can be opened by other users (mode 0755)`) && w.includes(`chmod 700 ${stateDir}`)), JSON.stringify(warnings));
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test("an existing state dir keeps its mode (0750, shared with a group) and one already private gives no warning", async () => {
  const base = mkdtempSync(join(tmpdir(), "ov-modes-"));
  try {
    const shared = join(base, "shared");
    mkdirSync(shared, { mode: 0o750 });
    chmodSync(shared, 0o750);
    const warnings = [];
    const store = createStateStore(shared, { warn: (m) => warnings.push(m) });
    await store.saveState("session/a", { n: 1 });
    assert.equal(oct(mode(shared)), "0750", "the folder the user made keeps its mode");
    assertPrivate(shared, "0750");
    assert.equal(warnings.filter((w) => w.includes("can be opened by other users")).length, 1);
    const own = join(base, "own");
    mkdirSync(own, { mode: 0o700 });
    chmodSync(own, 0o700);
    const quiet = [];
    await createStateStore(own, { warn: (m) => quiet.push(m) }).saveState("session/a", { n: 1 });
    assert.deepEqual(quiet, []);
    // a state dir the store creates itself is 0700
    const made = join(base, "made", "sd");
    await withUmask(0o022, () => createStateStore(made).saveState("session/a", { n: 1 }));
    assertPrivate(join(base, "made"));
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test("the first outbox read or key listing also tightens an older state dir", async () => {
  for (const op of [(s) => s.outboxRead("old"), (s) => s.listStateKeys("session/")]) {
    const base = mkdtempSync(join(tmpdir(), "ov-modes-"));
    try {
      const stateDir = join(base, "sd");
      await withUmask(0o022, () => {
        for (const d of [join(stateDir, "state"), join(stateDir, "outbox")]) mkdirSync(d, { recursive: true, mode: 0o755 });
        writeFileSync(join(stateDir, "state", "session%2Fold.json"), "{}", { mode: 0o644 });
        writeFileSync(join(stateDir, "outbox", "old.jsonl"), `${JSON.stringify(TURN)}\n`, { mode: 0o644 });
      });
      await op(createStateStore(stateDir, { warn: () => {} }));
      assertPrivate(stateDir, "0755"); // made here before the store: not the plugin's to change
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  }
});

test("an existing outbox file with a wide mode is made 0600 when appended to", async () => {
  const base = mkdtempSync(join(tmpdir(), "ov-modes-"));
  try {
    const stateDir = join(base, "sd");
    const store = createStateStore(stateDir);
    await store.outboxAppend("k", TURN);
    chmodSync(join(stateDir, "outbox", "k.jsonl"), 0o644); // widened after the store opened the dir
    await store.outboxAppend("k", { ...TURN, turnId: "t2" });
    assert.equal(oct(mode(join(stateDir, "outbox", "k.jsonl"))), "0600");
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});

test("a folder it cannot tighten is a warning, not a failure", async () => {
  const base = mkdtempSync(join(tmpdir(), "ov-modes-"));
  const warnings = [];
  try {
    const stateDir = join(base, "sd");
    mkdirSync(join(stateDir, "state"), { recursive: true });
    const realChmod = fsp.chmod;
    fsp.chmod = async () => {
      const e = new Error("operation not permitted");
      e.code = "EPERM";
      throw e;
    };
    try {
      chmodSync(join(stateDir, "state"), 0o755);
      chmodSync(stateDir, 0o700); // (a state dir open to others would be a warning of its own)
      const store = createStateStore(stateDir, { warn: (m) => warnings.push(m) });
      assert.equal(await store.loadState("nothing"), null);
    } finally {
      fsp.chmod = realChmod;
    }
    assert.equal(warnings.length, 1, warnings.join("\n"));
    assert.match(warnings[0], /EPERM/);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
