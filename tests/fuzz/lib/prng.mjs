// Seeded PRNG (sfc32, seeded through splitmix32). Case `k` of seed `s` always draws the same
// numbers, whichever worker runs it and whatever ran before it.

function splitmix32(a) {
  return () => {
    a = (a + 0x9e3779b9) | 0;
    let t = a ^ (a >>> 16);
    t = Math.imul(t, 0x21f0aaad);
    t ^= t >>> 15;
    t = Math.imul(t, 0x735a2d97);
    return (t ^ (t >>> 15)) >>> 0;
  };
}

/** A seed from a number or a string (FNV-1a of the text). */
export function parseSeed(s) {
  if (s === undefined || s === null || s === "") return (Date.now() ^ (process.pid << 8)) >>> 0;
  if (/^\d+$/.test(String(s))) return Number(BigInt(s) & 0xffffffffn);
  let h = 0x811c9dc5;
  for (const c of String(s)) h = Math.imul(h ^ c.codePointAt(0), 0x01000193) >>> 0;
  return h >>> 0;
}

export class Rng {
  constructor(seed, stream = 0) {
    const sm = splitmix32((seed ^ Math.imul(stream + 1, 0x85ebca6b)) >>> 0);
    this.a = sm();
    this.b = sm();
    this.c = sm();
    this.d = sm() | 1;
    for (let i = 0; i < 12; i++) this.u32();
  }
  u32() {
    let { a, b, c, d } = this;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    this.a = a; this.b = b; this.c = c; this.d = d;
    return t >>> 0;
  }
  /** [0, 1) */
  float() {
    return this.u32() / 4294967296;
  }
  /** integer in [0, n) */
  int(n) {
    return n <= 0 ? 0 : Math.floor(this.float() * n);
  }
  /** integer in [lo, hi] */
  range(lo, hi) {
    return lo + this.int(hi - lo + 1);
  }
  chance(p) {
    return this.float() < p;
  }
  pick(arr) {
    return arr[this.int(arr.length)];
  }
  /** [[weight, value], …] → value (functions are called with the rng) */
  weighted(table) {
    let total = 0;
    for (const [w] of table) total += w;
    let x = this.float() * total;
    for (const [w, v] of table) {
      x -= w;
      if (x < 0) return v;
    }
    return table[table.length - 1][1];
  }
  /** A child stream, so adding draws in one part does not shift another. */
  fork(tag) {
    return new Rng(this.u32() ^ tag, tag);
  }
}

/** The rng of case `k` of run `seed`. */
export function caseRng(seed, k) {
  return new Rng(seed >>> 0, k + 1);
}
