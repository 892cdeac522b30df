// The SQL functions, aggregate and collations of the fuzzer's programs,
// written once: the subject registers them through open(name, { setup })
// (the default export, run in the Worker on the sync database), the oracle
// (./oracle.mjs) registers the same JS in better-sqlite3, whose arguments
// and results it converts to the package's conventions first.
//   fzf(x)       x through the value conversions both ways; throws on a
//                string holding '!'
//   fzcount(x)   aggregate: total length of its strings; throws on '!'
//   fzrev        collation: code-point order reversed (the oracle: DESC)
//   fzthrow      collation: code-point order; throws on '!' (the oracle:
//                the function fzeq(a, b), which throws the same way)
export class FzBoom extends Error {
  constructor() { super('fz boom'); this.name = 'FzBoom'; }
}

const bang = (x) => typeof x === 'string' && x.includes('!');

export function fzf(x) {
  if (bang(x)) throw new FzBoom();
  if (typeof x === 'string') return `${x}|${x.length}`;
  if (typeof x === 'number') return Number.isInteger(x) ? x + 1 : x * 2;
  if (x instanceof Uint8Array) return x.slice().reverse();
  return x;
}

export const fzcount = {
  start: () => 0,
  step: (acc, x) => {
    if (bang(x)) throw new FzBoom();
    return acc + (typeof x === 'string' ? x.length : 0);
  },
  result: (acc) => acc,
};

// Code-point order (SQLite's BINARY order of UTF-8 text).
export function codePointCompare(a, b) {
  const x = [...a], y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (d) return d < 0 ? -1 : 1;
  }
  return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
}

export const fzrev = (a, b) => codePointCompare(b, a);
export function fzthrow(a, b) {
  if (bang(a) || bang(b)) throw new FzBoom();
  return codePointCompare(a, b);
}
// The oracle's stand-in for `a COLLATE fzthrow = b`.
export function fzeq(a, b) {
  if (bang(a) || bang(b)) throw new FzBoom();
  return codePointCompare(a, b) === 0 ? 1 : 0;
}

// The subject's setup module (open(name, { setup })).
export default function setup(db) {
  db.function('fzf', fzf, { deterministic: true });
  db.aggregate('fzcount', fzcount);
  db.collation('fzrev', fzrev);
  db.collation('fzthrow', fzthrow);
}
