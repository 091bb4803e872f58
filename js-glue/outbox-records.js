// The outbox's records on disk: one framed record per line, `#<crc32, 8 hex>:<byte
// length>:<JSON>\n`, so a torn or corrupt line (a crash or a full disk mid-append) is known
// and skipped on read; a line without the `#` frame is a plain JSON record from an earlier
// version. The state store (state-store.js) writes and reads them under its locks.

const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

const CRC_TABLE = Int32Array.from({ length: 256 }, (_, n) => {
  for (let k = 0; k < 8; k++) n = n & 1 ? 0xedb88320 ^ (n >>> 1) : n >>> 1;
  return n;
});

/** CRC-32 (IEEE) of `data`'s bytes (a string counts as its UTF-8 bytes), as an unsigned int. */
export function crc32(data) {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  let c = -1;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

/** One outbox record as its line: `#<crc32 hex>:<byte length>:<JSON>\n`, from the entry's JSON text. */
export function frameText(json) {
  const crc = crc32(json);
  return { crc, line: `#${crc.toString(16).padStart(8, "0")}:${Buffer.byteLength(json, "utf8")}:${json}\n` };
}

/** The object a record's JSON text holds, or null. */
function parseObject(json) {
  try {
    const v = JSON.parse(json);
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
}

/** A valid framed record: its text, checksum and (parsed when first asked for) object. */
function framed(json, crc) {
  let parsed;
  return {
    json,
    crc,
    get record() {
      return (parsed ??= parseObject(json));
    },
  };
}

/** The valid records of an outbox file's text, each with its JSON text, its checksum (null
 *  for a legacy plain-JSON line) and its object (`record`, parsed on first use: a read that
 *  hands the engine the texts parses nothing), and how many non-empty lines were skipped as
 *  torn or corrupt. A framed line is valid when its length and checksum match and it holds a
 *  JSON object's text; a plain line when it parses as an object. */
export function parseRecords(text) {
  const records = [];
  let skipped = 0;
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    if (line.startsWith("#")) {
      const m = /^#([0-9a-f]{8}):(\d+):/.exec(line);
      const json = m ? line.slice(m[0].length) : "";
      const bytes = Buffer.from(json, "utf8");
      const crc = m ? parseInt(m[1], 16) : -1;
      if (!m || bytes.length !== Number(m[2]) || crc32(bytes) !== crc || !json.startsWith("{") || !json.endsWith("}")) {
        skipped++; // torn (a crash or a full disk mid-append) or corrupt: never acknowledged
        continue;
      }
      records.push(framed(json, crc));
      continue;
    }
    const record = parseObject(line);
    if (record) records.push({ json: line, crc: null, record });
    else skipped++;
  }
  return { records, skipped };
}

/** Whether record `r` is the entry with this turn id (its text is searched first: only a
 *  record that names the id anywhere is parsed). */
export const hasTurnId = (r, turnId) => r.json.includes(JSON.stringify(turnId)) && r.record?.turnId === turnId;

/** The valid records (objects, in file order) of an outbox file's text, and how many
 *  non-empty lines were skipped as torn or corrupt. */
export function parseOutboxText(text) {
  const { records, skipped } = parseRecords(text);
  const objects = records.map((r) => r.record);
  return { records: objects.filter(Boolean), skipped: skipped + objects.filter((o) => !o).length };
}
