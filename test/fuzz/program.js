// The API fuzzer's programs (test/fuzz/README in test/README.md): a seeded
// generator of random programs of API calls, the codec that carries their
// values (BigInt, bytes, NaN, -0, undefined, lone surrogates) as JSON to a
// browser or a Worker thread and back, and a printer that shows a program
// as the JavaScript a user would write.  Runs in Node and in browsers.
//
// A program is { seed, groups: [group...] }.  A group is a list of ops
// issued at once (all in flight together), then awaited; an op is
// { id, op, h, ... } with h the handle it is called on ('db', or a
// transaction's handle 'tx1'...).  Ops:
//   exec {sql}  run/query {sql, params, rowMode}  batch {entries, rowMode}
//   iterate {sql, params, rowMode, pageSize, stopAfter}
//   prepare {slot, sql}  srun/sget/sall {slot, params, rowMode}
//   siterate {slot, params, pageSize, stopAfter}  finalize {slot}
//   tx {txh, groups, end: 'commit' | 'throw'}   (fn's ops; nested: savepoint)
//   export {slot, stream}  import {from: slot | 'garbage', how}  close  reopen
//   into (VACUUM INTO a new file, then the copy's state: INTO below)
// An op may carry osql (the oracle's SQL where ours uses a collation the
// oracle lacks) and, for a call on db made inside a transaction's fn,
// awaitIt (false: not awaited there) and inFn: what the package does with
// it (docs/api.md, "Batches and transactions"): 'misuse' (Node, where
// AsyncLocalStorage tells: it fails at once with SQLITE_MISUSE, awaited or
// not), 'busy' (elsewhere, awaited: it waits for fn, which waits for it,
// and fails with SQLITE_BUSY after busyTimeoutMs) or 'after' (elsewhere,
// not awaited: it runs after the transaction).

// ---- seeded randomness (mulberry32)
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const r = {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (xs) => xs[Math.floor(next() * xs.length)],
    chance: (p) => next() < p,
    // One of { weight: value } pairs given as [[w, v], ...].
    weighted: (pairs) => {
      let total = 0;
      for (const [w] of pairs) total += w;
      let x = next() * total;
      for (const [w, v] of pairs) { x -= w; if (x < 0) return v; }
      return pairs[pairs.length - 1][1];
    },
  };
  return r;
}

// ---- the value codec: any value of the API as a JSON-safe tree
const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
const unhex = (s) => {
  const out = new Uint8Array(s.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(s.substr(i * 2, 2), 16);
  return out;
};

export function enc(v) {
  if (v === undefined) return { $u: 1 };
  if (typeof v === 'bigint') return { $b: v.toString() };
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return { $n: 'NaN' };
    if (v === Infinity) return { $n: 'Inf' };
    if (v === -Infinity) return { $n: '-Inf' };
    if (Object.is(v, -0)) return { $n: '-0' };
    return v;
  }
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
  if (v instanceof Uint8Array) return { $y: hex(v) };
  if (v instanceof ArrayBuffer) return { $ab: hex(new Uint8Array(v)) };
  if (v instanceof Int16Array) return { $i16: Array.from(v) };
  if (Array.isArray(v)) return v.map(enc);
  if (typeof v === 'object') return { $o: Object.entries(v).map(([k, x]) => [k, enc(x)]) };
  return { $x: String(v) };
}

export function dec(t) {
  if (t === null || typeof t !== 'object') return t;
  if (Array.isArray(t)) return t.map(dec);
  if ('$u' in t) return undefined;
  if ('$b' in t) return BigInt(t.$b);
  if ('$n' in t) return { NaN: NaN, Inf: Infinity, '-Inf': -Infinity, '-0': -0 }[t.$n];
  if ('$y' in t) return unhex(t.$y);
  if ('$ab' in t) return unhex(t.$ab).buffer;
  if ('$i16' in t) return new Int16Array(t.$i16);
  if ('$o' in t) return Object.fromEntries(t.$o.map(([k, x]) => [k, dec(x)]));
  throw new Error(`cannot decode ${JSON.stringify(t)}`);
}

// JSON text of any value (well-formed: lone surrogates are \u escapes).
export const toJson = (v) => JSON.stringify(enc(v));
export const fromJson = (s) => dec(JSON.parse(s));

// ---- known open defects: each switch stops the generator from making
// the programs that show one (KNOWN_OPEN in mk/fuzz.mk lists the ones
// still open; a switch is deleted once its fix is merged).  None is open
// now.
export const KNOWN = {};

// ---- values
const EDGE_INTS = [0, 1, -1, 2 ** 31 - 1, -(2 ** 31), 2 ** 32, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 42];
const EDGE_BIGS = [(1n << 63n) - 1n, -(1n << 63n), 2n ** 53n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 0n, 5n];
const FLOATS = [0.5, -0, NaN, Infinity, -Infinity, 1e308, 5e-324, Math.PI, -2.5, 2 ** 53, 1e20];
const CHARS = ['a', 'b', 'Z', ' ', "'", '"', ';', '%', 'é', '✓', '\u{1F600}', '\u00ff', '!', '\n', '\t', '?', ':x', '\\'];

// A random string: short, unicode, quotes, lone surrogates; nul: may hold
// NUL characters.
function randString(r, known, { nul = true, max = 12, bang = 0.08 } = {}) {
  const n = r.int(max + 1);
  let s = '';
  for (let i = 0; i < n; i++) {
    const k = r.int(100);
    if (k < 4) s += r.pick(['\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uD83D']);
    else if (k < 7 && nul) s += '\0';
    else s += r.pick(CHARS);
  }
  if (!r.chance(bang)) s = s.replace(/!/g, '.');
  return s;
}

function randBytes(r, n) {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = r.int(256);
  return b;
}

// A random value for a parameter.
export function randValue(r, known) {
  switch (r.weighted([[5, 'int'], [3, 'big'], [4, 'float'], [8, 'str'], [3, 'bytes'], [2, 'null'], [1, 'undef'], [1, 'bool'], [1, 'large'], [1, 'view'], [1, 'bigout']])) {
    case 'int': return r.chance(0.5) ? r.pick(EDGE_INTS) : r.int(1000) - 500;
    case 'big': return r.pick(EDGE_BIGS);
    case 'float': return r.pick(FLOATS);
    case 'str': return randString(r, known);
    case 'bytes': return randBytes(r, r.int(9));
    case 'null': return null;
    case 'undef': return undefined;
    case 'bool': return r.chance(0.5);
    case 'large': return r.chance(0.5) ? 'L'.repeat(50000 + r.int(100000)) + randString(r, known) : randBytes(r, 100000 + r.int(200000));
    case 'view': return r.chance(0.5) ? new Int16Array([r.int(65536) - 32768, -1]) : randBytes(r, 4).buffer;
    case 'bigout': return r.chance(0.5) ? 1n << 63n : -(1n << 63n) - 1n;
    default: return null;
  }
}

// A string for table w (never NULL): sometimes with '!', which makes the
// collation fzthrow and the function fzf throw.
const wString = (r, known) => randString(r, known, { max: 6, bang: 0.15, nul: false });

// A string literal for SQL text: quotes doubled, as users escape them (a
// NUL in it makes the SQL text SQLITE_MISUSE).
function literal(r, known) {
  const s = randString(r, known, { max: 10, bang: 0.05 });
  return `'${s.replace(/'/g, "''")}'`;
}

// ---- statements.  Each maker returns { sql, params?, osql? }.
// page_size first: the builds' defaults differ (docs/api.md, compile-time
// options), and the state compared below includes it.
export const SCHEMA = 'PRAGMA page_size=4096; CREATE TABLE t(id INTEGER PRIMARY KEY, a, b TEXT, c BLOB, n INTEGER DEFAULT 0);' +
  ' CREATE TABLE u(k TEXT PRIMARY KEY, v);' +
  ' CREATE TABLE w(s TEXT NOT NULL, n INTEGER DEFAULT 0)';

const KEYS = ['k1', 'k2', 'k3', 'k4'];

// What the final dump compares besides the rows: the PRAGMAs that describe
// a database file and its schema, of main and of TEMP (whose page size and
// freelist follow the builds' different default page size, so they are left
// out, as TEMP is for programs that import, reopen or close: the oracle
// gets a new connection where the package keeps its own, or the reverse).
// [key, sql]; the value is the first column of the rows.
export function stateQueries(withTemp) {
  return schemaQueries(withTemp ? ['main', 'temp'] : ['main']);
}
export function schemaQueries(schemas) {
  const q = [];
  for (const s of schemas) {
    for (const p of ['auto_vacuum', 'page_size', 'journal_mode', 'user_version', 'application_id', 'freelist_count']) {
      if (s === 'temp' && (p === 'page_size' || p === 'freelist_count')) continue;
      q.push([`${s}.${p}`, `PRAGMA ${s}.${p}`]);
    }
    q.push([`${s}.schema`, `SELECT type || ' ' || name || ' ' || tbl_name || ': ' || coalesce(sql, '') FROM ${s}.sqlite_schema ORDER BY name`]);
  }
  return q;
}

// The op into: VACUUM INTO a new file (its name is the host's: the
// subject's storage and the oracle's directory differ), then that copy's
// state (schemaQueries) and its rows per table, read by attaching it as
// INTO, which is detached again.  [sql...] before the reads, and after.
export const INTO = 'fzinto';
export const intoSql = (file) => [`VACUUM INTO '${file}'`, `ATTACH '${file}' AS ${INTO}`];
export const INTO_TABLES = `SELECT name FROM ${INTO}.sqlite_schema WHERE type = 'table' ORDER BY name`;
export const INTO_END = `DETACH ${INTO}`;

function writeStmt(r, known, inTx) {
  const v = () => randValue(r, known);
  return r.weighted([
    [6, () => ({ sql: 'INSERT INTO t(a, b, c) VALUES (?, ?, ?)', params: [v(), v(), v()] })],
    [2, () => ({ sql: 'INSERT INTO t(id, a) VALUES (? % 1000, ?)', params: [r.pick([1, 2, 3, 2n ** 62n, -5, r.int(20)]), v()] })],
    [2, () => {
      const p = r.pick([':', '@', '$']);
      const key = r.chance(0.5) ? 'x' : `${p}x`;
      return { sql: `INSERT INTO t(a, b) VALUES (${p}x, ${p}x || ${literal(r, known)})`, params: { [key]: v() } };
    }],
    [3, () => ({ sql: 'UPDATE t SET a = ?, n = n + 1 WHERE id % 3 = ?', params: [v(), r.int(3)] })],
    [2, () => ({ sql: 'UPDATE t SET b = fzf(b) WHERE id % 2 = ?', params: [r.int(2)] })],
    [2, () => ({ sql: 'DELETE FROM t WHERE id = ?', params: [r.int(8)] })],
    [3, () => ({ sql: `INSERT ${r.pick(['', 'OR REPLACE ', 'OR IGNORE '])}INTO u VALUES (?, ?)`, params: [r.pick(KEYS), v()] })],
    [inTx ? 2 : 0, () => ({ sql: 'INSERT OR ROLLBACK INTO u VALUES (?, ?)', params: [r.pick(KEYS), v()] })],
    [3, () => ({ sql: 'INSERT INTO w(s) VALUES (?)', params: [wString(r, known)] })],
    [2, () => ({ sql: `INSERT INTO w(s) VALUES (${literal(r, known)})` })],
    [2, () => ({
      sql: 'UPDATE w SET n = n + 1 WHERE s COLLATE fzthrow = ?', osql: "UPDATE w SET n = n + 1 WHERE CASE WHEN typeof(s) = 'text' AND typeof(?1) IN ('text', 'integer', 'real') THEN fzeq(s, CAST(?1 AS TEXT)) ELSE s = ?1 END", params: [wString(r, known) + (r.chance(0.3) ? '!' : '')],
    })],
    [1, () => ({ sql: 'INSERT INTO t(c) VALUES (zeroblob(?))', params: [r.int(70000)] })],
    [1, () => ({ sql: `CREATE TABLE IF NOT EXISTS x${r.int(3)}(v)` })],
    [1, () => ({ sql: `DROP TABLE IF EXISTS x${r.int(3)}` })],
    [1, () => ({ sql: 'CREATE INDEX IF NOT EXISTS ta ON t(a)' })],
    [1, () => ({ sql: 'INSERT INTO nope VALUES (1)' })],
  ])();
}

// A statement without parameters, for exec() scripts.
function scriptStmt(r, known, inTx) {
  return r.weighted([
    [3, () => `INSERT INTO w(s) VALUES (${literal(r, known)})`],
    [2, () => `INSERT INTO t(a, b) VALUES (${r.pick(['1', '-0.0', '9223372036854775807', "x'00ff'", 'NULL', '2.5e300'])}, ${literal(r, known)})`],
    [2, () => 'UPDATE t SET n = n + 1'],
    [1, () => `CREATE TABLE IF NOT EXISTS x${r.int(3)}(v)`],
    [1, () => `DROP TABLE IF EXISTS x${r.int(3)}`],
    [1, () => `SELECT ${literal(r, known)}`],
    [1, () => 'SELEC 1'],
    [1, () => 'INSERT INTO nope VALUES (1)'],
    [1, () => "INSERT INTO u VALUES ('k1', 1)"],
    [!inTx ? 1 : 0, () => r.pick(['BEGIN', 'COMMIT', 'ROLLBACK'])],
    [1, () => '-- just a comment'],
    // The database's own state (compared at the end: stateQueries).
    [1, () => 'VACUUM'],
    [1, () => 'CREATE TEMP TABLE IF NOT EXISTS tt(v)'],
    [1, () => `INSERT INTO tt SELECT zeroblob(${r.pick([10, 3000])}) FROM t`],
    [1, () => 'DROP TABLE IF EXISTS temp.tt'],
    [0.5, () => `PRAGMA ${r.pick(['', 'temp.'])}auto_vacuum=${r.pick(['NONE', 'FULL', 'INCREMENTAL'])}`],
    [0.5, () => `PRAGMA ${r.pick(['user_version', 'application_id'])}=${r.int(4)}`],
    [0.5, () => r.pick(["ATTACH '' AS ax", 'DETACH ax', 'CREATE TABLE IF NOT EXISTS ax.q(v)'])],
  ])();
}

function readStmt(r, known) {
  const v = () => randValue(r, known);
  return r.weighted([
    [4, () => ({ sql: 'SELECT id, a, typeof(a) AS ta, b, c, n FROM t ORDER BY id' })],
    [5, () => ({ sql: 'SELECT ?1 AS v, typeof(?1) AS ty, length(?1) AS len, hex(?1) AS h', params: [v()] })],
    [2, () => ({ sql: 'SELECT id, a FROM t WHERE id > ? ORDER BY id LIMIT ?', params: [r.int(5), r.int(6)] })],
    [2, () => ({ sql: 'SELECT a, b AS a, n FROM t ORDER BY id' })],
    [2, () => ({ sql: 'SELECT count(*) AS n, total(n) AS s, fzcount(b) AS fc FROM t' })],
    [2, () => ({ sql: 'SELECT fzf(?) AS r', params: [v()] })],
    [2, () => ({ sql: `SELECT ${literal(r, known)} AS s, hex(${literal(r, known)}) AS h` })],
    [2, () => ({ sql: 'SELECT s, n FROM w ORDER BY s COLLATE fzrev, n', osql: "SELECT s, n FROM w ORDER BY typeof(s) = 'blob', CASE WHEN typeof(s) = 'text' THEN s END DESC, s, n" })],
    [2, () => ({ sql: 'SELECT k, v FROM u ORDER BY k' })],
    [1, () => ({ sql: 'SELECT length(c) AS len FROM t ORDER BY id' })],
    [1, () => ({ sql: 'SELEC 1' })],
    [1, () => ({ sql: 'SELECT 1 AS one; -- a comment' })],
    [1, () => ({ sql: 'SELECT ?, ? AS two', params: [v()] })],
    [1, () => ({ sql: 'SELECT :x AS x', params: {} })],
    [1, () => ({ sql: 'SELECT 1 AS one\0 junk' })],
  ])();
}

// ---- programs
class Gen {
  constructor(seed, known, options) {
    this.r = rng(seed);
    this.known = known;
    this.o = options;
    this.nextId = 0;
    this.slots = 0;       // prepared statement slots made so far
    this.live = [];       // slots usable now: { slot, h }
    this.exports = [];    // export slots holding a database image
    this.nTx = 0;
    this.fresh = new Set();
  }

  op(fields) { return { id: ++this.nextId, ...fields }; }

  stmtOp(h, inTx) {
    const { r } = this;
    const s = r.chance(0.5) ? writeStmt(r, this.known, inTx) : readStmt(r, this.known);
    const kind = r.weighted([[3, 'run'], [4, 'query'], [1, 'exec']]);
    const out = this.op({ op: kind, h, sql: s.sql });
    if (s.osql) out.osql = s.osql;
    if (kind !== 'exec') out.params = enc(s.params);
    if (kind === 'query') out.rowMode = r.pick(['object', 'array']);
    if (kind === 'exec') {
      // exec takes SQL only: a script of one to three statements.
      out.sql = Array.from({ length: 1 + r.int(3) }, () => scriptStmt(r, this.known, inTx)).join('; ');
      delete out.osql;
    }
    return out;
  }

  // One op on handle h (inTx: inside a transaction's fn; depth of nesting).
  anyOp(h, inTx, depth, last) {
    const { r } = this;
    const mine = this.live.filter((s) => s.h === h && !this.fresh.has(s.slot));
    const images = this.exports.filter((e) => !this.fresh.has(e));
    const kind = r.weighted([
      [10, 'stmt'], [2, 'batch'], [2, 'iterate'], [3, 'prepare'], [mine.length ? 5 : 0, 'slot'],
      [depth < 2 ? 2 : 0, 'tx'], [!inTx ? 1 : 0, 'export'], [!inTx && images.length ? 1 : 0, 'import'],
      [!inTx && last ? 0.5 : 0, 'import-garbage'],
      [inTx ? 0.3 : 0, 'end-tx-by-sql'],
      [1, 'temp-store'],
      [!inTx ? 2 : 0, 'into'],
    ]);
    switch (kind) {
      case 'stmt': return this.stmtOp(h, inTx);
      case 'batch': {
        const n = 1 + r.int(3);
        const entries = [];
        for (let i = 0; i < n; i++) {
          const s = r.chance(0.6) ? writeStmt(r, this.known, false) : readStmt(r, this.known);
          entries.push([s.sql, enc(s.params), s.osql || null]);
        }
        return this.op({ op: 'batch', h, entries, rowMode: r.pick(['object', 'array']) });
      }
      case 'iterate':
        return this.op({ op: 'iterate', h, sql: 'SELECT id, a, b FROM t ORDER BY id', params: enc(undefined), rowMode: r.pick(['object', 'array']), pageSize: 1 + r.int(4), stopAfter: r.chance(0.5) ? r.int(4) : null });
      case 'prepare': {
        const s = r.chance(0.5) ? writeStmt(r, this.known, false) : readStmt(r, this.known);
        const slot = `s${++this.slots}`;
        this.live.push({ slot, h, sql: s.sql, params: s.params });
        this.fresh.add(slot);   // not usable in its own group (not prepared yet when the group is sent)
        const o = this.op({ op: 'prepare', h, slot, sql: s.sql });
        if (s.osql) o.osql = s.osql;
        return o;
      }
      case 'slot': {
        const s = r.pick(mine);
        const k = r.weighted([[4, 'srun'], [3, 'sget'], [3, 'sall'], [1, 'siterate'], [1, 'finalize']]);
        const params = r.chance(0.8) && s.params !== undefined ? this.reparam(s.params) : undefined;
        if (k === 'finalize') return this.op({ op: 'finalize', h, slot: s.slot });
        if (k === 'siterate') return this.op({ op: 'siterate', h, slot: s.slot, params: enc(params), pageSize: 1 + r.int(3), stopAfter: r.chance(0.5) ? r.int(3) : null });
        return this.op({ op: k, h, slot: s.slot, params: enc(params), rowMode: r.pick(['object', 'array']) });
      }
      case 'tx': return this.txOp(h, depth);
      case 'export': {
        const slot = `e${this.exports.length + 1}`;
        this.exports.push(slot);
        this.fresh.add(slot);
        return this.op({ op: 'export', h, slot, stream: r.chance(0.5) });
      }
      case 'import':
        return this.op({ op: 'import', h, from: r.pick(images), how: r.pick(['bytes', 'stream', 'chunks', 'blob']) });
      case 'import-garbage':
        return this.op({ op: 'import', h, from: 'garbage', how: r.pick(['bytes', 'stream', 'chunks', 'blob']) });
      case 'end-tx-by-sql':
        return this.op({ op: 'exec', h, sql: r.pick(['ROLLBACK', 'COMMIT']) });
      case 'temp-store':
        // Inside a transaction SQLite refuses it once the TEMP database
        // exists (exportStream's sqlite_dbpage opens it: the package closes
        // it again, docs/api.md).
        return this.op({ op: 'exec', h, sql: `PRAGMA temp_store=${r.pick(['FILE', 'MEMORY', 'DEFAULT'])}` });
      case 'into': return this.op({ op: 'into', h });
      default: throw new Error(kind);
    }
  }

  // New parameters of the same shape as ps.
  reparam(ps) {
    if (Array.isArray(ps)) return ps.map(() => randValue(this.r, this.known));
    if (ps && typeof ps === 'object') return Object.fromEntries(Object.keys(ps).map((k) => [k, randValue(this.r, this.known)]));
    return ps;
  }

  txOp(h, depth) {
    const { r } = this;
    const txh = `tx${++this.nTx}`;
    const before = this.live.length;
    const groups = [];
    const n = 1 + r.int(4);
    for (let i = 0; i < n; i++) groups.push(this.group(txh, true, depth + 1, i === n - 1));
    // A call on db from inside fn (not through tx).
    if (depth === 0 && r.chance(0.25)) {
      const o = this.stmtOp('db', false);
      o.awaitIt = r.chance(0.5);
      o.inFn = this.o.inFn === 'misuse' ? 'misuse' : o.awaitIt ? 'busy' : 'after';
      groups.push([o]);
    }
    // Statements prepared on tx are finalized when it ends.
    this.live = this.live.filter((s, i) => i < before || s.h !== txh);
    const o = this.op({ op: 'tx', h, txh, groups, end: r.chance(0.3) ? 'throw' : 'commit' });
    o.propagate = r.chance(0.3);   // an error of fn's calls ends fn (else caught and ignored)
    return o;
  }

  // A group of ops on h: one, or several in flight at once (never an
  // iterate next to others: its pages would interleave).
  group(h, inTx, depth, last) {
    const { r } = this;
    const n = r.chance(0.35) ? 2 + r.int(4) : 1;
    const ops = [];
    const saved = this.fresh;
    this.fresh = new Set();
    for (let i = 0; i < n; i++) {
      const o = this.anyOp(h, inTx, depth, last && i === n - 1);
      // (Nor an into, whose several calls others would run between.)
      if ((o.op === 'iterate' || o.op === 'siterate' || o.op === 'into') && n > 1) { ops.push(this.stmtOp(h, inTx)); continue; }
      ops.push(o);
    }
    // A call on db left running by a transaction's fn starts after the
    // transaction; calls issued after the transaction in the same group
    // were queued before it: keep such a transaction last in its group.
    // One that waits busyTimeoutMs for fn makes every call queued with it
    // wait as long: keep such a transaction alone in its group.
    ops.forEach((o, i) => {
      if (o.op !== 'tx') return;
      const drop = (x) => (x.inFn === 'after' && i < ops.length - 1) || (x.inFn === 'busy' && ops.length > 1);
      o.groups = o.groups.filter((g) => !g.some(drop));
    });
    this.fresh = saved;
    return ops;
  }

  program(nGroups) {
    const groups = [];
    for (let i = 0; i < nGroups; i++) {
      groups.push(this.group('db', false, 0, i === nGroups - 1));
      if (this.o.persistent && this.r.chance(0.05)) groups.push([this.op({ op: 'reopen', h: 'db' })]);
    }
    if (this.r.chance(0.3)) {
      const g = [this.op({ op: 'close', h: 'db' })];
      if (this.r.chance(0.5)) g.push(this.op({ op: 'close', h: 'db' }));
      if (this.r.chance(0.5)) g.push(this.op({ op: 'query', h: 'db', sql: 'SELECT 1 AS one', params: enc(undefined), rowMode: 'object' }));
      groups.push(g);
    }
    return groups;
  }
}

// The program of seed: options.persistent (the storage keeps the file:
// reopen ops), options.groups (how many top-level groups), options.inFn
// ('misuse' in Node, 'busy' elsewhere: what a call on db made inside fn
// does, see the top of this file).
export function generate(seed, known = new Set(), options = {}) {
  const g = new Gen(seed, known, { ...options, inFn: options.inFn ?? 'misuse' });
  const r = rng(seed ^ 0x5bd1e995);
  const groups = g.program(options.groups ?? 4 + r.int(10));
  // PRAGMA auto_vacuum on a database with tables only sets what the
  // connection's next VACUUM (or VACUUM INTO) applies.  An import keeps the
  // package's connection, and that setting with it, where the oracle gets a
  // new one: a program that imports sets none.
  const ops = [...allOps(groups)];
  if (ops.some((o) => o.op === 'import')) {
    for (const o of ops) if (o.op === 'exec') o.sql = o.sql.replace(/PRAGMA (temp\.)?auto_vacuum=\w+/g, 'SELECT 1');
  }
  return { seed, groups };
}

// ---- printing: the program as the calls a user would write.
const MAX_SHOWN = 60;
export function showValue(v) {
  if (v === undefined) return 'undefined';
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'number') return Object.is(v, -0) ? '-0' : String(v);
  if (typeof v === 'string') {
    const s = v.length > MAX_SHOWN ? v.slice(0, MAX_SHOWN) : v;
    return JSON.stringify(s) + (v.length > MAX_SHOWN ? `/* ...${v.length} chars */` : '');
  }
  if (v instanceof Uint8Array) return v.length > 16 ? `new Uint8Array(${v.length})/* random */` : `new Uint8Array([${v.join(', ')}])`;
  if (v instanceof ArrayBuffer) return `new Uint8Array([${new Uint8Array(v).join(', ')}]).buffer`;
  if (v instanceof Int16Array) return `new Int16Array([${v.join(', ')}])`;
  if (Array.isArray(v)) return `[${v.map(showValue).join(', ')}]`;
  if (v && typeof v === 'object') return `{ ${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${showValue(x)}`).join(', ')} }`;
  return String(v);
}

function showCall(o) {
  const p = (x) => (x === undefined ? '' : `, ${showValue(dec(x))}`);
  const ro = (m) => (m && m !== 'object' ? `, { rowMode: '${m}' }` : '');
  const q = (s) => showValue(s);
  switch (o.op) {
    case 'exec': return `${o.h}.exec(${q(o.sql)})`;
    case 'run': return `${o.h}.run(${q(o.sql)}${p(o.params)})`;
    case 'query': return `${o.h}.query(${q(o.sql)}${p(o.params) || (o.rowMode !== 'object' ? ', undefined' : '')}${ro(o.rowMode)})`;
    case 'batch': return `${o.h}.batch([${o.entries.map(([s, ps]) => `[${q(s)}${p(ps)}]`).join(', ')}]${ro(o.rowMode)})`;
    case 'iterate': return `take(${o.h}.iterate(${q(o.sql)}, undefined, { rowMode: '${o.rowMode}', pageSize: ${o.pageSize} }), ${o.stopAfter})`;
    case 'prepare': return `${o.slot} = await ${o.h}.prepare(${q(o.sql)})`;
    case 'srun': case 'sget': case 'sall': {
      const ps = dec(o.params);
      const mode = o.op === 'srun' ? '' : ro(o.rowMode);
      return `${o.slot}.${o.op.slice(1)}(${ps === undefined ? (mode ? 'undefined' : '') : showValue(ps)}${mode})`;
    }
    case 'siterate': return `take(${o.slot}.iterate(${showValue(dec(o.params))}, { pageSize: ${o.pageSize} }), ${o.stopAfter})`;
    case 'finalize': return `${o.slot}.finalize()`;
    case 'export': return `${o.slot} = ${o.stream ? `await readAll(${o.h}.exportStream())` : `await ${o.h}.export()`}`;
    case 'import': return `${o.h}.import(${o.from === 'garbage' ? 'garbageBytes' : o.from} as ${o.how})`;
    case 'close': return `${o.h}.close()`;
    case 'into': return `${o.h}.exec("${intoSql('copy.db').join('; ')}"); /* the copy's PRAGMAs, schema and rows */ ${o.h}.exec('${INTO_END}')`;
    case 'reopen': return `db = await open(sameName)`;
    default: return o.op;
  }
}

// Lines of JavaScript for a program (outcomes: id -> text to append).
export function show(groups, notes = {}, indent = '  ') {
  const lines = [];
  for (const g of groups) {
    const conc = g.length > 1;
    if (conc) lines.push(`${indent}await Promise.allSettled([   // in flight at once`);
    const ind = conc ? indent + '  ' : indent;
    for (const o of g) {
      const note = notes[o.id] ? `   // #${o.id}: ${notes[o.id]}` : `   // #${o.id}`;
      const lead = conc || o.awaitIt === false || o.op === 'prepare' || o.op === 'export' || o.op === 'reopen' ? '' : 'await ';
      if (o.op === 'tx') {
        lines.push(`${ind}${lead}${o.h}.transaction(async (${o.txh}) => {${note}`);
        lines.push(...show(o.groups, notes, ind + '  '));
        if (o.end === 'throw') lines.push(`${ind}  throw new Error('abort');`);
        lines.push(`${ind}})${conc ? ',' : ';'}${o.propagate ? '   // errors inside propagate' : '   // errors inside are caught'}`);
      } else {
        const extra = o.awaitIt === false ? '   /* not awaited */' : '';
        lines.push(`${ind}${lead}${showCall(o)}${conc ? ',' : ';'}${extra}${note}`);
      }
    }
    if (conc) lines.push(`${indent}]);`);
  }
  return lines;
}

// Every op of a list of groups, depth first.
export function* allOps(groups) {
  for (const g of groups) for (const o of g) { yield o; if (o.op === 'tx') yield* allOps(o.groups); }
}
