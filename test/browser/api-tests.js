// SQL through the main-thread API (runs in the page; used by run.mjs).
// Each test throws on failure; run() returns [{ name, ok, error }].
import { open, SqliteError } from '../../dist/index.js';

function eq(a, b, what) {
  const sa = JSON.stringify(a, (k, v) => (typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? [...v] : v));
  const sb = JSON.stringify(b, (k, v) => (typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? [...v] : v));
  if (sa !== sb) throw new Error(`${what}: expected ${sb}, got ${sa}`);
}
function ok(c, what) { if (!c) throw new Error(what); }
async function rejects(p, code, what) {
  try { await p; } catch (e) {
    ok(e instanceof SqliteError || e.name === 'SqliteError', `${what}: not an SqliteError (${e.name}: ${e.message})`);
    if (code !== undefined) eq(e.code, code, `${what}: code`);
    return e;
  }
  throw new Error(`${what}: did not reject`);
}

export const tests = {
  async types(storage) {
    const db = await open(`types-${storage}.db`, { storage });
    try {
      eq(db.storage, storage, 'storage used');
      await db.exec('DROP TABLE IF EXISTS v; CREATE TABLE v(x)');
      const big = 9007199254740993n, neg = -(2n ** 63n);
      const blob = new Uint8Array([0, 1, 2, 255]);
      for (const x of [null, 42, -7, 3.25, big, neg, 'héllo ✓', blob]) await db.run('INSERT INTO v VALUES (?)', [x]);
      const rows = await db.query('SELECT x, typeof(x) AS t FROM v ORDER BY rowid');
      eq(rows.map((r) => r.t), ['null', 'integer', 'integer', 'real', 'integer', 'integer', 'text', 'blob'], 'types');
      eq(rows[4].x, big, 'integer beyond 2^53 is a BigInt');
      eq(typeof rows[4].x, 'bigint', 'BigInt type');
      eq(rows[5].x, neg, 'min int64');
      eq(rows[1].x, 42, 'small integers are numbers');
      ok(rows[7].x instanceof Uint8Array, 'blob is a Uint8Array');
      eq(rows[7].x, blob, 'blob bytes');
      eq(rows[6].x, 'héllo ✓', 'UTF-8 text');
      eq((await db.query('SELECT 9007199254740991 AS a, 9007199254740992 AS b'))[0], { a: 9007199254740991, b: 9007199254740992n }, 'safe-integer boundary');
      eq((await db.query('SELECT ? AS t, ? AS f', [true, false]))[0], { t: 1, f: 0 }, 'booleans');
    } finally { await db.close(); }
  },

  async params(storage) {
    const db = await open(`params-${storage}.db`, { storage });
    try {
      eq(await db.query('SELECT ?1 + ?2 AS s, ?1 AS a', [2, 3]), [{ s: 5, a: 2 }], 'numbered');
      eq(await db.query('SELECT :a || @b || $c AS s', { a: 'x', b: 'y', c: 'z' }), [{ s: 'xyz' }], 'named without prefix');
      eq(await db.query('SELECT :a AS s', { ':a': 1 }), [{ s: 1 }], 'named with prefix');
      await rejects(db.query('SELECT ?, ?', [1]), 25, 'too few positional');
      await rejects(db.query('SELECT :missing', {}), 25, 'missing named');
      const r = await db.run('CREATE TABLE IF NOT EXISTS p(id INTEGER PRIMARY KEY, s)');
      eq(r.changes, 0, 'changes of DDL');
      const ins = await db.run('INSERT INTO p(id, s) VALUES (?, ?)', [2n ** 60n, 'big id']);
      eq(ins, { changes: 1, lastInsertRowid: 2n ** 60n }, 'run result with a BigInt rowid');
      const upd = await db.run('UPDATE p SET s = s || ?', ['!']);
      eq(upd.changes, 1, 'update changes');
    } finally { await db.close(); }
  },

  async errors(storage) {
    const db = await open(`errors-${storage}.db`, { storage });
    try {
      let e = await rejects(db.query('SELECT * FROM no_such_table'), 1, 'no such table');
      ok(/no such table/.test(e.message), 'message says why');
      await db.exec('CREATE TABLE IF NOT EXISTS u(x UNIQUE NOT NULL); DELETE FROM u; INSERT INTO u VALUES (1)');
      e = await rejects(db.run('INSERT INTO u VALUES (1)'), 2067, 'SQLITE_CONSTRAINT_UNIQUE');
      eq(e.primaryCode, 19, 'primary code');
      await rejects(db.run('INSERT INTO u VALUES (NULL)'), 1299, 'SQLITE_CONSTRAINT_NOTNULL');
      await rejects(db.exec('SELEC 1'), 1, 'syntax error');
      await rejects(db.query('SELECT 1; SELECT 2'), undefined, 'query takes one statement');
      eq(await db.query('SELECT 1 AS one'), [{ one: 1 }], 'usable after errors');
    } finally { await db.close(); }
    await rejects(db.query('SELECT 1'), 21, 'closed database');
  },

  async transactions(storage) {
    const db = await open(`tx-${storage}.db`, { storage });
    try {
      await db.exec('DROP TABLE IF EXISTS a; CREATE TABLE a(x)');
      await db.exec('BEGIN; INSERT INTO a VALUES (1); ROLLBACK');
      eq(await db.query('SELECT count(*) AS n FROM a'), [{ n: 0 }], 'rollback');
      await db.exec('BEGIN; INSERT INTO a VALUES (1); SAVEPOINT s; INSERT INTO a VALUES (2); ROLLBACK TO s; COMMIT');
      eq(await db.query('SELECT x FROM a'), [{ x: 1 }], 'savepoint');
      await rejects(db.exec('BEGIN; INSERT INTO a VALUES (3); INSERT INTO nope VALUES (1); COMMIT'), 1, 'failing script');
      await db.exec('ROLLBACK');
      eq(await db.query('SELECT count(*) AS n FROM a'), [{ n: 1 }], 'failed transaction rolled back');
      const img = await db.export();
      ok(img instanceof Uint8Array && img.length >= 512, 'export gives bytes');
      eq(new TextDecoder().decode(img.subarray(0, 15)), 'SQLite format 3', 'export is an SQLite file');
    } finally { await db.close(); }
  },

  async tempcrypt(storage) {
    const db = await open(`tc-${storage}.db`, { storage });
    try {
      await db.tempcrypt.stats(true);
      await db.exec(`PRAGMA temp_store=FILE; PRAGMA temp.cache_size=4;
        CREATE TEMP TABLE x AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<5000) SELECT n, randomblob(100) AS b FROM c`);
      const s = await db.tempcrypt.stats();
      ok(s.nFileEncrypted >= 1, `temp file encrypted (${JSON.stringify(s)})`);
      ok(s.nPhysicalWrite > s.nLogicalWrite && s.nLogicalWrite > 100000, 'counters move');
      eq(await db.tempcrypt.setEnabled(false), true, 'enabled by default');
      eq(await db.tempcrypt.setEnabled(true), false, 'previous setting returned');
      const f = await db.files();
      ok(Array.isArray(f.list), 'files() lists the storage');
    } finally { await db.close(); }
  },
};

// Memory storage without a Worker, on the page's main thread.
async function mainThread() {
  const db = await open('main-thread.db', { storage: 'memory', worker: false });
  try {
    eq(db.storage, 'memory', 'storage');
    await db.exec('CREATE TABLE m(x); INSERT INTO m VALUES (1), (2)');
    eq(await db.query('SELECT sum(x) AS s FROM m'), [{ s: 3 }], 'query on the main thread');
    let e = null;
    try { await open('x.db', { storage: 'opfs', worker: false }); } catch (err) { e = err; }
    ok(e && /OPFS/.test(e.message), 'opfs without a worker is refused with a clear message');
  } finally { await db.close(); }
}

export async function run(storages = ['opfs', 'memory']) {
  const out = [];
  try { await mainThread(); out.push({ name: 'memory on the main thread', ok: true }); }
  catch (e) { out.push({ name: 'memory on the main thread', ok: false, error: String(e && e.stack || e) }); }
  for (const storage of storages) {
    for (const [name, fn] of Object.entries(tests)) {
      try { await fn(storage); out.push({ name: `${name} (${storage})`, ok: true }); }
      catch (e) { out.push({ name: `${name} (${storage})`, ok: false, error: String(e && e.stack || e) }); }
    }
  }
  return out;
}
