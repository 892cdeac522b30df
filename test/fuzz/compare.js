// The API fuzzer's verdict on one op: the subject's outcome against the
// oracle's (./oracle.mjs).  null when they agree, else why not.
import { toJson } from './program.js';

const SQLITE_MISUSE = 21, SQLITE_RANGE = 25;

export function verdict(expected, actual) {
  if (!actual) return 'no outcome (never settled)';
  if ('ok' in expected) {
    if (!('ok' in actual)) return `expected success, got ${actual.err.name} ${actual.err.code ?? ''}: ${actual.err.message}`;
    const je = toJson(expected.ok), ja = toJson(actual.ok);
    return je === ja ? null : `expected ${clip(je)}\n        got ${clip(ja)}`;
  }
  const x = expected.err;
  if (!('err' in actual)) return `expected an error (${toJson(x)}), got success ${clip(toJson(actual.ok))}`;
  const a = actual.err;
  if (x.name) return a.name === x.name ? null : `expected ${x.name}, got ${a.name} ${a.code ?? ''}: ${a.message}`;
  if (x.api) {
    const primary = (a.code ?? -1) & 0xff;
    return a.name === 'TypeError' || a.name === 'RangeError' || primary === SQLITE_RANGE || primary === SQLITE_MISUSE ? null
      : `expected a misuse error (${x.message}), got ${a.name} ${a.code ?? ''}: ${a.message}`;
  }
  return a.code === x.code ? null : `expected error code ${x.code}, got ${a.name} ${a.code ?? ''}: ${a.message}`;
}

function clip(s, n = 300) { return s.length > n ? `${s.slice(0, n)}... (${s.length} chars)` : s; }
