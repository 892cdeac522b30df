// Values across the wasm boundary: one conversion each way.
//
//   toSqlite(engine, to, h, i, v)   a JS value into SQLite, through one of
//                                   two setter tables: BIND (parameter i
//                                   of statement h) or RESULT (the result
//                                   of function call h; i unused)
//   fromSqlite(M, from, h, i)       an SQLite value as JS, through one of
//                                   two getter tables: COLUMN (column i of
//                                   statement h) or VALUE (the
//                                   sqlite3_value h; i unused)
//
// JS -> SQLite: null and undefined are NULL; a safe integer is an INTEGER,
// any other number a REAL; a BigInt an INTEGER (SQLITE_RANGE outside
// int64); a boolean 0 or 1; a string TEXT (UTF-8); Uint8Array, ArrayBuffer
// and other views a BLOB.
//
// Every JS string enters wasm through utf8Into(): encoded as TextEncoder
// does (a lone surrogate becomes U+FFFD, nothing else changes), whatever it
// is (SQL text, a bound value, a name, a function's result, a message);
// text comes back through TextDecoder (textAt, cstringAt), a leading U+FEFF
// kept.  SQLite -> JS: an INTEGER is a number when it is
// a safe integer, else a BigInt; REAL a number; TEXT a string; BLOB a
// Uint8Array copied out of the wasm memory; NULL null.
import { SqliteError } from '../shared/errors.js';
import { SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_TRANSIENT, SQLITE_RANGE } from '../shared/constants.js';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER), MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const I64_MAX = (1n << 63n) - 1n, I64_MIN = -(1n << 63n);
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });   // a leading U+FEFF is text, kept
const encoder = new TextEncoder();

// An int64 from SQLite: a number when that is exact, else the BigInt.
export const fromInt64 = (v) => (v <= MAX_SAFE && v >= MIN_SAFE ? Number(v) : v);

// The UTF-8 text at p, n bytes long, as a string.
export const textAt = (M, p, n) => decoder.decode(M.HEAPU8.subarray(p, p + n));

// The NUL-terminated UTF-8 text at p (a name or message from SQLite).
export function cstringAt(M, p) {
  const heap = M.HEAPU8;
  let end = p;
  while (heap[end] !== 0) end++;
  return decoder.decode(heap.subarray(p, end));
}

// The bytes TextEncoder writes for s: a surrogate pair 4, a lone surrogate
// 3 (U+FFFD).
export function utf8Length(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00 && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { n += 4; i++; } else n += 3;
  }
  return n;
}

// Write s as UTF-8 at p, where n = utf8Length(s) bytes and a NUL fit.
export function utf8Into(M, s, p, n) {
  const { written } = encoder.encodeInto(s, M.HEAPU8.subarray(p, p + n));
  if (written !== n) throw new Error(`utf8Into: wrote ${written} bytes, expected ${n}`);
  M.HEAPU8[p + n] = 0;
}

// s as SQLite stores it: TextEncoder's encoding, decoded (lone surrogates
// become U+FFFD).
export const wellFormed = (s) => (typeof s.toWellFormed === 'function' ? s.toWellFormed() : decoder.decode(encoder.encode(s)));

// ---- JS -> SQLite.  Each setter returns what SQLite returned.
export const BIND = {
  null: (M, s, i) => M._sqlite3_bind_null(s, i),
  int64: (M, s, i, v) => M._sqlite3_bind_int64(s, i, v),
  double: (M, s, i, v) => M._sqlite3_bind_double(s, i, v),
  text: (M, s, i, p, n) => M._sqlite3_bind_text(s, i, p, n, SQLITE_TRANSIENT),
  blob: (M, s, i, p, n) => M._sqlite3_bind_blob(s, i, p, n, SQLITE_TRANSIENT),
  unsupported: (v, i) => `cannot bind a value of type ${typeof v} (parameter ${i})`,
};

export const RESULT = {
  null: (M, c) => M._sqlite3_result_null(c),
  int64: (M, c, i, v) => M._sqlite3_result_int64(c, v),
  double: (M, c, i, v) => M._sqlite3_result_double(c, v),
  text: (M, c, i, p, n) => M._sqlite3_result_text(c, p, n, SQLITE_TRANSIENT),
  blob: (M, c, i, p, n) => M._sqlite3_result_blob(c, p, n, SQLITE_TRANSIENT),
  unsupported: (v) => `a function cannot return a value of type ${typeof v}`,
};

export function toSqlite(engine, to, h, i, v) {
  const M = engine.M;
  if (v === null || v === undefined) return to.null(M, h, i);
  switch (typeof v) {
    case 'number': return Number.isSafeInteger(v) ? to.int64(M, h, i, BigInt(v)) : to.double(M, h, i, v);
    case 'bigint':
      if (v > I64_MAX || v < I64_MIN) throw new SqliteError(`BigInt ${v} does not fit in a 64-bit integer`, SQLITE_RANGE);
      return to.int64(M, h, i, v);
    case 'boolean': return to.int64(M, h, i, v ? 1n : 0n);
    case 'string': return engine.withCString(v, (p, n) => to.text(M, h, i, p, n));
    default:
  }
  if (v instanceof Uint8Array || v instanceof ArrayBuffer || ArrayBuffer.isView(v)) {
    const bytes = v instanceof Uint8Array ? v : v instanceof ArrayBuffer ? new Uint8Array(v) : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
    const p = engine.malloc(Math.max(1, bytes.length));
    try {
      M.HEAPU8.set(bytes, p);
      return to.blob(M, h, i, p, bytes.length);
    } finally { M._free(p); }
  }
  throw new TypeError(to.unsupported(v, i));
}

// ---- SQLite -> JS.  (text and blob before bytes: SQLite's rule.)
export const COLUMN = {
  type: (M, s, i) => M._sqlite3_column_type(s, i),
  int64: (M, s, i) => M._sqlite3_column_int64(s, i),
  double: (M, s, i) => M._sqlite3_column_double(s, i),
  text: (M, s, i) => M._sqlite3_column_text(s, i),
  blob: (M, s, i) => M._sqlite3_column_blob(s, i),
  bytes: (M, s, i) => M._sqlite3_column_bytes(s, i),
};

export const VALUE = {
  type: (M, v) => M._sqlite3_value_type(v),
  int64: (M, v) => M._sqlite3_value_int64(v),
  double: (M, v) => M._sqlite3_value_double(v),
  text: (M, v) => M._sqlite3_value_text(v),
  blob: (M, v) => M._sqlite3_value_blob(v),
  bytes: (M, v) => M._sqlite3_value_bytes(v),
};

export function fromSqlite(M, from, h, i) {
  switch (from.type(M, h, i)) {
    case SQLITE_INTEGER: return fromInt64(from.int64(M, h, i));
    case SQLITE_FLOAT: return from.double(M, h, i);
    case SQLITE_TEXT: {
      const p = from.text(M, h, i);
      return textAt(M, p, from.bytes(M, h, i));
    }
    case SQLITE_BLOB: {
      const p = from.blob(M, h, i);
      return M.HEAPU8.slice(p, p + from.bytes(M, h, i));
    }
    default: return null;
  }
}
