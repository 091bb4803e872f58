// outbox-records.test.mjs — the outbox's records on disk (outbox-records.js, through the
// store): framed `#crc:len:json` lines round-trip; a torn tail, a flipped byte, a wrong length
// or a bad frame is never read as acknowledged; legacy plain-JSON lines still read.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createStateStore, crc32, parseOutboxText } from "../state-store.js";
import { KEY, turn, ids, outboxPath, inTempDir, frame } from "./support/state-dir.mjs";

test("crc32 is the IEEE CRC-32 (check value of '123456789'), over UTF-8 bytes", () => {
  assert.equal(crc32("123456789"), 0xcbf43926);
  assert.equal(crc32(Buffer.from("123456789")), 0xcbf43926);
  assert.equal(crc32(""), 0);
  assert.equal(crc32("é"), crc32(Buffer.from([0xc3, 0xa9])));
});

test("framing: records round-trip as `#crc:len:json` lines, in order, unicode included", async () => {
  await inTempDir(async (dir) => {
    const store = createStateStore(dir);
    const entries = [turn("t1"), turn("t2", "ünïcödé ✓ 🧪 and a \n newline"), turn("t3")];
    for (const e of entries) assert.equal(await store.outboxAppend(KEY, e), "appended");
    assert.deepEqual(await store.outboxRead(KEY), entries);
    const text = readFileSync(outboxPath(dir), "utf8");
    assert.equal(text, entries.map(frame).join(""));
    for (const line of text.split("\n").filter(Boolean)) assert.match(line, /^#[0-9a-f]{8}:\d+:\{/);
    assert.deepEqual(parseOutboxText(text), { records: entries, skipped: 0 });
  });
});

test("a torn tail is skipped, and the next append is not merged with it", async () => {
  await inTempDir(async (dir) => {
    const store = createStateStore(dir);
    await store.outboxAppend(KEY, turn("t1"));
    const half = frame(turn("t2", "x".repeat(200)));
    appendFileSync(outboxPath(dir), half.slice(0, half.length >> 1)); // a crash mid-append
    assert.deepEqual(ids(await store.outboxRead(KEY)), ["t1"]);
    assert.equal(parseOutboxText(readFileSync(outboxPath(dir), "utf8")).skipped, 1);
    // t2 was never acknowledged: appending it again is a new append, not "present"
    assert.equal(await store.outboxAppend(KEY, turn("t2")), "appended");
    assert.equal(await store.outboxAppend(KEY, turn("t3")), "appended");
    assert.deepEqual(ids(await store.outboxRead(KEY)), ["t1", "t2", "t3"]);
    const lines = readFileSync(outboxPath(dir), "utf8").split("\n");
    assert.equal(lines[1], half.slice(0, half.length >> 1), "the torn bytes stay on their own line");
    assert.equal(`${lines[2]}\n`, frame(turn("t2")));
  });
});

test("a record with a flipped byte, a wrong length or a bad frame is skipped", async () => {
  await inTempDir(async (dir) => {
    const store = createStateStore(dir);
    for (const t of ["t1", "t2", "t3"]) await store.outboxAppend(KEY, turn(t, "abcdefgh"));
    const file = outboxPath(dir);
    const bytes = readFileSync(file);
    const lines = bytes.toString().split("\n");
    const at = lines[0].length + 1 + lines[1].indexOf("abcdefgh") + 3; // inside t2's text
    bytes[at] ^= 0x01; // "d" -> "e": still valid JSON, still the same length
    writeFileSync(file, bytes);
    assert.deepEqual(ids(await store.outboxRead(KEY)), ["t1", "t3"]);
    // the same length, the checksum of other text; a non-numeric length; not an object
    const wrongLen = frame(turn("t4")).replace(/:(\d+):/, (_, n) => `:${Number(n) + 1}:`);
    const json = JSON.stringify([1, 2]);
    const arr = `#${crc32(json).toString(16).padStart(8, "0")}:${json.length}:${json}\n`;
    appendFileSync(file, `${wrongLen}#zzzzzzzz:3:{}\n${arr}#${frame(turn("t5")).slice(1, 10)}\n`);
    assert.deepEqual(parseOutboxText(readFileSync(file, "utf8")), { records: [turn("t1", "abcdefgh"), turn("t3", "abcdefgh")], skipped: 5 });
  });
});

test("legacy plain-JSON lines from an earlier version still read, mixed with framed ones", async () => {
  await inTempDir(async (dir) => {
    mkdirSync(join(dir, "outbox"), { recursive: true });
    writeFileSync(outboxPath(dir), `${JSON.stringify(turn("old1"))}\n\n${JSON.stringify(turn("old2"))}\n"a string"\n{"torn":`);
    const store = createStateStore(dir);
    assert.deepEqual(ids(await store.outboxRead(KEY)), ["old1", "old2"]);
    assert.equal(await store.outboxAppend(KEY, turn("old2")), "present", "a legacy record counts for dedupe");
    assert.equal(await store.outboxAppend(KEY, turn("new1")), "appended");
    assert.deepEqual(ids(await store.outboxRead(KEY)), ["old1", "old2", "new1"]);
  });
});
