// The API fuzzer's verdict on one op: the subject's outcome against the
// oracle's (./oracle.mjs).  null when they agree, else why not.
import { toJson } from './program.js';

const SQLITE_MISUSE = 21, SQLITE_RANGE = 25;

// Drop the changes of run results the oracle marked stale (a statement
// that changed nothing, where SQLite's changes() still holds an older
// count), while that defect is known open.
function unstale(v) {
  if (Array.isArray(v)) return v.map(unstale);
  if (v && typeof v === 'object' && v.stale) { const { changes, ...rest } = v; return rest; }
  return v;
}
function dropChangesLike(expected, actual) {
  if (Array.isArray(expected) && Array.isArray(actual)) return actual.map((a, i) => dropChangesLike(expected[i], a));
  if (expected && typeof expected === 'object' && expected.stale && actual && typeof actual === 'object') { const { changes, ...rest } = actual; return rest; }
  return actual;
}

export function verdict(expected, actual, known) {
  if (!actual) return 'no outcome (never settled)';
  if ('ok' in expected) {
    if (!('ok' in actual)) return `expected success, got ${actual.err.name} ${actual.err.code ?? ''}: ${actual.err.message}`;
    let e = expected.ok, a = actual.ok;
    if (known.has('stale-changes')) { a = dropChangesLike(e, a); e = unstale(e); }
    const je = toJson(e), ja = toJson(a);
    return je === ja ? null : `expected ${clip(je)}\n        got ${clip(ja)}`;
  }
  const x = expected.err;
  if (!('err' in actual)) return `expected an error (${toJson(x)}), got success ${clip(toJson(actual.ok))}`;
  const a = actual.err;
  if (x.any) return null;
  if (x.name) return a.name === x.name ? null : `expected ${x.name}, got ${a.name} ${a.code ?? ''}: ${a.message}`;
  if (x.api) {
    const primary = (a.code ?? -1) & 0xff;
    return a.name === 'TypeError' || a.name === 'RangeError' || primary === SQLITE_RANGE || primary === SQLITE_MISUSE ? null
      : `expected a misuse error (${x.message}), got ${a.name} ${a.code ?? ''}: ${a.message}`;
  }
  return a.code === x.code ? null : `expected error code ${x.code}, got ${a.name} ${a.code ?? ''}: ${a.message}`;
}

function clip(s, n = 300) { return s.length > n ? `${s.slice(0, n)}... (${s.length} chars)` : s; }
