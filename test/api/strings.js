// Strings for the API tests: a seeded generator of awkward JS strings
// (lone surrogates of both halves, pairs, NULs, quotes, ASCII, 2- and 3-byte
// characters) and what each must become in SQLite: the string TextEncoder
// encodes, i.e. every lone surrogate replaced by U+FFFD and nothing else
// changed.

// mulberry32: a small seeded PRNG, so that a failure can be replayed.
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  () => '\uD800', () => '\uDBFF', () => '\uDC00', () => '\uDFFF',      // lone halves
  () => '\uD83D\uDE00', () => '\uDBFF\uDFFF',                          // valid pairs
  () => '\uDC00\uD800',                                                // halves in the wrong order
  () => '\0', () => "'", () => '"', () => ';', () => '--',
  (r) => String.fromCharCode(32 + Math.floor(r() * 95)),              // ASCII
  (r) => String.fromCharCode(0x80 + Math.floor(r() * 0x780)),         // 2-byte
  (r) => String.fromCharCode(0x800 + Math.floor(r() * 0xd000)),       // 3-byte below the surrogates
  (r) => String.fromCharCode(0xe000 + Math.floor(r() * 0x1ffe)),      // 3-byte above them
];

// A random string of up to maxLen pieces; noNul leaves NULs out.
export function randomString(r, maxLen = 12, { noNul = false } = {}) {
  let s = '';
  const n = Math.floor(r() * (maxLen + 1));
  for (let i = 0; i < n; i++) {
    const piece = PIECES[Math.floor(r() * PIECES.length)](r);
    if (noNul && piece === '\0') continue;
    s += piece;
  }
  return s;
}

// s as TextEncoder encodes it (lone surrogates -> U+FFFD), decoded again:
// what SQLite must store for s.
export function wellFormed(s) {
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(new TextEncoder().encode(s));
}

// The UTF-8 bytes of s in upper-case hex (SQLite's hex()).
export function hexUtf8(s) {
  return Array.from(new TextEncoder().encode(s), (b) => b.toString(16).padStart(2, '0')).join('').toUpperCase();
}

// s as an SQL string literal (quotes doubled).
export const sqlLiteral = (s) => `'${s.replace(/'/g, "''")}'`;

// A readable form of s for failure messages.
export const showString = (s) => JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
