// SQL through the main-thread API, in every browser engine (in the page;
// test/browser/run.mjs) and in Node (./node.mjs).  Each test throws on
// failure; run() returns [{ name, ok, error }], the sync API's tests
// (./sync-api.js) included.
import { open, SQLITE_BUSY as EXPORTED_BUSY, RESULT_CODE_NAMES } from '../../dist/index.js';
import {
  SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_RANGE, SQLITE_MISUSE, SQLITE_CANTOPEN, SQLITE_CONSTRAINT, SQLITE_CONSTRAINT_UNIQUE,
  SQLITE_ABORT_ROLLBACK, SQLITE_INTERRUPT, SQLITE_BUSY, SQLITE_CONSTRAINT_PRIMARYKEY,
} from '../../dist/constants.js';
import { eq, ok, rejects, sameBytes, readAll, runTests, settles } from './assert.js';
import { rng, randomString, wellFormed, hexUtf8, sqlLiteral, showString } from './strings.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// Node tells a call made inside transaction(fn) from one made elsewhere
// (AsyncLocalStorage): there it fails at once; elsewhere after busyTimeoutMs.
const SEES_INSIDE = typeof window === 'undefined' && typeof process === 'object';
import { tests as syncTests } from './sync-api.js';
import { tests as evidenceTests } from './evidence.js';

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
      await rejects(db.query('SELECT ?, ?', [1]), SQLITE_RANGE, 'too few positional');
      await rejects(db.query('SELECT :missing', {}), SQLITE_RANGE, 'missing named');
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
      e = await rejects(db.run('INSERT INTO u VALUES (1)'), SQLITE_CONSTRAINT_UNIQUE, 'SQLITE_CONSTRAINT_UNIQUE');
      eq(e.primaryCode, SQLITE_CONSTRAINT, 'primary code');
      await rejects(db.run('INSERT INTO u VALUES (NULL)'), 1299, 'SQLITE_CONSTRAINT_NOTNULL');
      await rejects(db.exec('SELEC 1'), 1, 'syntax error');
      await rejects(db.query('SELECT 1; SELECT 2'), SQLITE_MISUSE, 'query takes one statement');
      eq(await db.query('SELECT 1 AS one; -- a comment'), [{ one: 1 }], 'a trailing comment is not a statement');
      eq(await db.query('SELECT 1 AS one'), [{ one: 1 }], 'usable after errors');
    } finally { await db.close(); }
    await rejects(db.query('SELECT 1'), SQLITE_MISUSE, 'closed database');
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
      let s = await db.tempcrypt.stats();
      ok(s.nFileEncrypted >= 1, `temp file encrypted (${JSON.stringify(s)})`);
      ok(s.nLogicalWrite > 100000 && s.nMemBytes > 100000 && s.nSpilled === 0 && s.nPhysicalWrite === 0,
        `the memory tier holds the temp table at the default budget (${JSON.stringify(s)})`);
      eq(await db.tempcrypt.budget(0), 64 * 1024 * 1024, 'the default budget is 64 MiB; budget(0) returns it');
      await db.tempcrypt.stats(true);
      await db.exec('CREATE TEMP TABLE x2 AS SELECT * FROM x');
      s = await db.tempcrypt.stats();
      ok(s.nSpilled > 100000 && s.nPhysicalWrite > s.nSpilled && s.nEnciphered >= s.nSpilled,
        `budget 0: new temp data goes to storage, encrypted (${JSON.stringify(s)})`);
      eq(await db.tempcrypt.setEnabled(false), true, 'enabled by default');
      eq(await db.tempcrypt.setEnabled(true), false, 'previous setting returned');
      const f = await db.files();
      ok(Array.isArray(f.list), 'files() lists the storage');
    } finally { await db.close(); }
  },

  async rowMode(storage) {
    const db = await open(`rowmode-${storage}.db`, { storage });
    try {
      eq(await db.query('SELECT 1 AS a, 2 AS a, ? AS b', ['x'], { rowMode: 'array' }), [[1, 2, 'x']], 'array rows keep both columns named a');
      eq(await db.query('SELECT 1 AS a, 2 AS b'), [{ a: 1, b: 2 }], 'objects by default');
      eq(await db.query('SELECT 1 AS a', [], { rowMode: 'object' }), [{ a: 1 }], 'explicit object');
      let e = null;
      try { await db.query('SELECT 1', [], { rowMode: 'columns' }); } catch (err) { e = err; }
      ok(e && /rowMode/.test(e.message), 'a bad rowMode is refused');
    } finally { await db.close(); }
  },

  async statements(storage) {
    const db = await open(`stmt-${storage}.db`, { storage });
    try {
      await db.exec('DROP TABLE IF EXISTS s; CREATE TABLE s(id INTEGER PRIMARY KEY, name TEXT, n)');
      const ins = await db.prepare('INSERT INTO s(name, n) VALUES (?, ?)');
      eq(ins.readonly, false, 'insert is not readonly');
      eq(ins.columns(), [], 'insert has no columns');
      for (let i = 1; i <= 5; i++) eq((await ins.run([`n${i}`, i])).lastInsertRowid, i, `reuse ${i}`);
      const named = await db.prepare('INSERT INTO s(name, n) VALUES (:name, $n)');
      eq((await named.run({ name: 'six', n: 6 })).changes, 1, 'named params');
      const sel = await db.prepare('SELECT id, name FROM s WHERE n >= ? ORDER BY id');
      eq(sel.columns(), ['id', 'name'], 'columns');
      eq(sel.readonly, true, 'select is readonly');
      eq((await sel.all([5])).map((r) => r.name), ['n5', 'six'], 'all');
      eq(await sel.all([6], { rowMode: 'array' }), [[6, 'six']], 'all as arrays');
      eq(await sel.get([2]), { id: 2, name: 'n2' }, 'get: first row');
      eq(await sel.get([99]), undefined, 'get: no row');
      const seen = [];
      for await (const r of sel.iterate([1], { pageSize: 2 })) seen.push(r.id);
      eq(seen, [1, 2, 3, 4, 5, 6], 'iterate in pages of 2');
      for await (const r of sel.iterate([1], { pageSize: 2 })) { if (r.id === 3) break; }
      eq((await sel.all([6])).length, 1, 'usable after an iteration stopped early');
      await rejects(ins.run(['x']), SQLITE_RANGE, 'wrong parameter count');
      await ins.finalize();
      await rejects(ins.run(['x', 1]), SQLITE_MISUSE, 'finalized statement');
      await rejects(db.prepare('SELECT 1; SELECT 2'), SQLITE_MISUSE, 'prepare takes one statement');
      await rejects(db.prepare('SELECT * FROM nope'), 1, 'prepare error');
    } finally { await db.close(); }
    await rejects(db.prepare('SELECT 1'), SQLITE_MISUSE, 'prepare after close');
  },

  async batch(storage) {
    const db = await open(`batch-${storage}.db`, { storage });
    try {
      await db.exec('DROP TABLE IF EXISTS b; CREATE TABLE b(x UNIQUE)');
      const res = await db.batch([['INSERT INTO b VALUES (?)', [1]], ['INSERT INTO b VALUES (:v)', { v: 2 }], 'SELECT x FROM b ORDER BY x']);
      eq(res.map((r) => r.changes), [1, 1, 0], 'changes per statement');
      eq(res[2].rows, [{ x: 1 }, { x: 2 }], 'rows of the select');
      eq((await db.batch(['SELECT x, x FROM b ORDER BY x'], { rowMode: 'array' }))[0].rows, [[1, 1], [2, 2]], 'batch rowMode array');
      const e = await rejects(db.batch([['INSERT INTO b VALUES (?)', [3]], ['INSERT INTO b VALUES (?)', [1]]]), SQLITE_CONSTRAINT_UNIQUE, 'a failing statement');
      ok(/batch statement 1/.test(e.message), `error names the statement: ${e.message}`);
      eq(await db.query('SELECT x FROM b ORDER BY x'), [{ x: 1 }, { x: 2 }], 'the whole batch rolled back');
      await db.exec('BEGIN; COMMIT');
    } finally { await db.close(); }
  },

  async transactionHelper(storage) {
    const db = await open(`txh-${storage}.db`, { storage });
    try {
      await db.exec('DROP TABLE IF EXISTS t; CREATE TABLE t(x)');
      const order = [];
      const tick = () => new Promise((r) => setTimeout(r, 5));
      const txDone = db.transaction(async (tx) => {
        await tx.run('INSERT INTO t VALUES (1)');
        await tick();
        order.push('tx middle');
        await tx.run('INSERT INTO t VALUES (2)');
        return 'result';
      });
      // Another caller while the transaction runs: waits, then sees both rows.
      const outside = db.query('SELECT count(*) AS n FROM t').then((r) => { order.push('outside'); return r[0].n; });
      eq(await txDone, 'result', 'transaction result');
      eq(await outside, 2, 'the other caller ran after the commit');
      eq(order, ['tx middle', 'outside'], 'order');
      // Rollback on throw; the error comes back.
      let thrown = null;
      try {
        await db.transaction(async (tx) => { await tx.run('INSERT INTO t VALUES (3)'); throw new Error('boom'); });
      } catch (e) { thrown = e; }
      ok(thrown && thrown.message === 'boom', 'the error is rethrown');
      eq(await db.query('SELECT count(*) AS n FROM t'), [{ n: 2 }], 'rolled back');
      // Nested: the inner savepoint rolls back, the outer commits.
      await db.transaction(async (tx) => {
        await tx.run('INSERT INTO t VALUES (10)');
        await tx.transaction(async (inner) => { await inner.run('INSERT INTO t VALUES (11)'); throw new Error('inner'); }).catch(() => {});
        await tx.transaction(async (inner) => { await inner.run('INSERT INTO t VALUES (12)'); });
        const st = await tx.prepare('SELECT x FROM t WHERE x >= ? ORDER BY x');
        eq((await st.all([10])).map((r) => r.x), [10, 12], 'inside: inner rolled back, second inner kept');
      });
      eq((await db.query('SELECT x FROM t WHERE x >= 10 ORDER BY x')).map((r) => r.x), [10, 12], 'nested result committed');
      let saved;
      await db.transaction(async (tx) => { saved = tx; });
      await rejects(saved.query('SELECT 1'), SQLITE_MISUSE, 'tx unusable after it ended');
      // Two transactions started together run one after the other.
      const both = await Promise.all([1, 2].map((k) => db.transaction(async (tx) => {
        const n = (await tx.query('SELECT count(*) AS n FROM t'))[0].n;
        await tick();
        await tx.run('INSERT INTO t VALUES (?)', [100 + k]);
        return n;
      })));
      eq(both[1] - both[0], 1, 'the second transaction saw the first one\'s row');
      await db.exec('BEGIN; COMMIT');   // no transaction left open
    } finally { await db.close(); }
  },

  // Once SQLite has rolled back the transaction of transaction(fn) (here an
  // OR ROLLBACK conflict that fn catches), every later call of tx fails and
  // transaction() rejects; nothing runs in autocommit.
  async transactionGone(storage) {
    const db = await open(`txgone-${storage}.db`, { storage });
    try {
      await db.exec('DROP TABLE IF EXISTS q; CREATE TABLE q(x UNIQUE)');
      let conflict = null, later = null, nested = null;
      const e = await rejects(db.transaction(async (tx) => {
        await tx.run('INSERT INTO q VALUES (1)');
        try { await tx.run('INSERT OR ROLLBACK INTO q VALUES (1)'); } catch (err) { conflict = err; }
        try { await tx.run('INSERT INTO q VALUES (2)'); } catch (err) { later = err; }
        try { await tx.transaction(async (inner) => { await inner.run('INSERT INTO q VALUES (3)'); }); } catch (err) { nested = err; }
      }), SQLITE_ABORT_ROLLBACK, 'transaction() after SQLite rolled it back');
      ok(conflict && conflict.code === SQLITE_CONSTRAINT_UNIQUE, `the conflict: ${conflict && conflict.code}`);
      ok(later && later.code === SQLITE_ABORT_ROLLBACK, `a later call of tx fails: ${later && later.message}`);
      ok(nested && nested.code === SQLITE_ABORT_ROLLBACK, `a nested transaction fails: ${nested && nested.message}`);
      ok(/rolled back/.test(e.message), e.message);
      eq(await db.query('SELECT x FROM q'), [], 'nothing committed');
      // Ended by SQL inside fn (COMMIT): what it committed stays, and the
      // error says so rather than "rolled back".
      let afterCommit = null;
      const c = await rejects(db.transaction(async (tx) => {
        await tx.run('INSERT INTO q VALUES (7)');
        await tx.exec('COMMIT');
        try { await tx.run('INSERT INTO q VALUES (8)'); } catch (err) { afterCommit = err; }
      }), SQLITE_ABORT_ROLLBACK, 'transaction() after a COMMIT inside fn');
      ok(afterCommit && afterCommit.code === SQLITE_ABORT_ROLLBACK, `a call of tx after the COMMIT fails: ${afterCommit && afterCommit.message}`);
      ok(/ended by SQL/.test(c.message) && /committed stays/.test(c.message) && !/rolled back/.test(c.message), `the error says what happened: ${c.message}`);
      eq(await db.query('SELECT x FROM q'), [{ x: 7 }], 'what the COMMIT committed stays');
      await db.run('DELETE FROM q');
      await db.transaction((tx) => tx.run('INSERT INTO q VALUES (5)'));
      eq(await db.query('SELECT x FROM q'), [{ x: 5 }], 'the next transaction() works');
    } finally { await db.close(); }
  },

  // Strings cross to the Worker and into SQLite as TextEncoder encodes
  // them (lone surrogates -> U+FFFD, nothing else changed).
  async strings(storage) {
    const seed = 0xa5e0 + storage.length;
    const r = rng(seed);
    const strs = Array.from({ length: 60 }, () => randomString(r));
    strs.push('a\uD800bc', "x\uD800'; DROP TABLE s; --", '\0a\0', '\uFEFFid,name', '\uFEFF', '\uFEFF\uFEFFx');
    const db = await open(`strings-${storage}.db`, { storage });
    try {
      await db.exec('DROP TABLE IF EXISTS s; CREATE TABLE s(i INTEGER PRIMARY KEY, v TEXT)');
      const ins = await db.prepare('INSERT INTO s(i, v) VALUES (?, ?)');
      for (const [i, s] of strs.entries()) {
        const want = wellFormed(s), what = `seed ${seed}, string ${i} ${showString(s)}`;
        await ins.run([i, s]);
        eq((await db.query('SELECT v, hex(v) AS h FROM s WHERE i = ?', [i]))[0], { v: want, h: hexUtf8(s) }, `bound value, ${what}`);
        if (!s.includes('\0')) eq((await db.query(`SELECT ${sqlLiteral(s)} AS v`))[0].v, want, `SQL literal, ${what}`);
      }
      eq(await db.query("SELECT count(*) AS n FROM sqlite_schema WHERE name = 's'"), [{ n: 1 }], 'no literal ran as SQL');
      // A leading U+FEFF (byte order mark) is text like any other: kept in values and column names.
      eq(await db.query('SELECT char(65279) || \'x\' AS "\uFEFFc"'), [{ '\uFEFFc': '\uFEFFx' }], 'a leading U+FEFF read back');
      const e = await rejects(db.query('SELECT 1;\0 SELECT 2'), SQLITE_MISUSE, 'a NUL in SQL text');
      ok(/NUL/.test(e.message), e.message);
    } finally { await db.close(); }
  },

  // Habits of better-sqlite3 and the official API through the Worker: a
  // statement's parameters as arguments, exec() binding its parameters,
  // timeoutMs for one call and db.timeoutMs (sent to the Worker), the
  // error's codeName, the constants exported by the package.
  async habits(storage) {
    eq([EXPORTED_BUSY, RESULT_CODE_NAMES.get(SQLITE_BUSY)], [5, 'SQLITE_BUSY'], 'constants exported by the package');
    const db = await open(`habits-${storage}.db`, { storage });
    try {
      await db.exec('DROP TABLE IF EXISTS h; CREATE TABLE h(id INTEGER PRIMARY KEY, s TEXT)');
      await db.exec('INSERT INTO h VALUES (?, ?)', [9, 'exec']);
      eq(await db.query('SELECT s FROM h WHERE id = 9'), [{ s: 'exec' }], 'exec(sql, params) binds them');
      const ins = await db.prepare('INSERT INTO h(id, s) VALUES (?, ?)');
      eq((await ins.run(1, 'a')).changes, 1, 'run(1, "a")');
      await ins.run([2, 'b']);
      const one = await db.prepare('SELECT s FROM h WHERE id = ?');
      eq(await one.get(1), { s: 'a' }, 'get(1)');
      eq(await one.all(2), [{ s: 'b' }], 'all(2)');
      const seen = [];
      for await (const r of one.iterate(2)) seen.push(r.s);
      eq(seen, ['b'], 'iterate(2)');
      eq(await one.get([1], { rowMode: 'array' }), ['a'], 'an array, then options');
      const spin = 'WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c) SELECT count(*) FROM c';
      let e = await rejects(db.query(spin, [], { timeoutMs: 30 }), SQLITE_INTERRUPT, 'timeoutMs for one query');
      ok(/timeoutMs 30/.test(e.message), e.message);
      eq(e.codeName, 'SQLITE_INTERRUPT', 'codeName across the Worker');
      await rejects(db.exec(spin, null, { timeoutMs: 30 }), SQLITE_INTERRUPT, 'timeoutMs for one exec');
      await rejects((await db.prepare(spin)).all(undefined, { timeoutMs: 30 }), SQLITE_INTERRUPT, 'timeoutMs for one stmt.all');
      e = null;
      try { for await (const r of db.iterate(spin, [], { timeoutMs: 30 })) void r; } catch (err) { e = err; }
      ok(e && e.code === SQLITE_INTERRUPT, `timeoutMs for one iterate: ${e && e.message}`);
      eq(db.timeoutMs, 0, 'no limit by default');
      db.timeoutMs = 30;
      eq(db.timeoutMs, 30, 'db.timeoutMs reads back');
      await rejects(db.query(spin), SQLITE_INTERRUPT, 'db.timeoutMs reaches the Worker');
      eq(await db.query('SELECT 1 AS x', [], { timeoutMs: 0 }), [{ x: 1 }], 'timeoutMs 0 for one call');
      db.timeoutMs = 0;
      e = await rejects(db.run('INSERT INTO h(id) VALUES (1)'), SQLITE_CONSTRAINT_PRIMARYKEY, 'a constraint');
      eq(e.codeName, 'SQLITE_CONSTRAINT_PRIMARYKEY', 'extended codeName across the Worker');
      let te = null;
      try { db.timeoutMs = -5; } catch (err) { te = err; }
      ok(te instanceof TypeError && db.timeoutMs === 0, `db.timeoutMs = -5 is refused: ${te && te.message}`);
      await db.transaction(async (tx) => {
        let txe = null;
        try { tx.timeoutMs = 5; } catch (err) { txe = err; }
        ok(txe instanceof TypeError && tx.timeoutMs === 0, `tx.timeoutMs = 5 is refused: ${txe && txe.message}`);
      });
      te = await db.query('SELECT 1', [], { timeout: 5 }).then(() => null, (err) => err);
      ok(te instanceof TypeError && /'timeout'/.test(te.message), `an unknown option of one call is refused: ${te && te.message}`);
      te = await db.run('SELECT 1', [], { rowMode: 'array' }).then(() => null, (err) => err);
      ok(te instanceof TypeError, `run() takes no rowMode: ${te && te.message}`);
    } finally { await db.close(); }
    const limited = await open(`habits2-${storage}.db`, { storage, timeoutMs: 30 });
    try {
      eq(limited.timeoutMs, 30, "open()'s timeoutMs reads back");
      await rejects(limited.query('WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c) SELECT count(*) FROM c'), SQLITE_INTERRUPT, "open()'s timeoutMs");
    } finally { await limited.close(); }
    let te = null;
    try { await open(`habits3-${storage}.db`, { storage, timeout: 30 }); } catch (err) { te = err; }
    ok(te instanceof TypeError && /timeoutMs/.test(te.message), `an unknown open() option is refused: ${te && te.message}`);
  },

  // db.timeoutMs set while a transaction holds the database takes effect
  // at once (its message used to queue behind the transaction and fail
  // quietly: the getter said 30, the Worker kept no limit).
  async timeoutSetDuringTransaction(storage) {
    const db = await open(`timeout-tx-${storage}.db`, { storage, busyTimeoutMs: 100 });
    const slow = 'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<3000000) SELECT count(*) AS n FROM c';
    const limited = async (q, what) => {
      const r = await settles(q.query(slow), 20000);
      ok(r.error && r.error.code === SQLITE_INTERRUPT, `${what}: the slow query is interrupted (${r.error ? r.error.message : JSON.stringify(r)})`);
    };
    try {
      await db.transaction(async (tx) => {
        db.timeoutMs = 30;   // inside fn
        await limited(tx, 'set inside fn, a call of tx after it');
      });
      await limited(db, 'set inside fn, a call after the transaction');
      db.timeoutMs = 0;
      eq((await db.query(slow))[0].n, 3000000, 'timeoutMs 0 again: the query runs to the end');
      const long = db.transaction(async (tx) => { await sleep(300); await tx.query('SELECT 1'); });
      await sleep(10);
      db.timeoutMs = 30;   // from outside, while the transaction holds the database longer than busyTimeoutMs
      await long;
      eq(db.timeoutMs, 30, 'db.timeoutMs reads back');
      await limited(db, 'set during a transaction from outside');
    } finally { await db.close(); }
  },

  // A call on db (not tx) inside db.transaction(fn) waits for fn, which
  // waits for it: it fails (at once where the runtime can tell, else after
  // busyTimeoutMs) and the database stays usable; it used to hang for ever.
  async deadlock(storage) {
    const db = await open(`deadlock-${storage}.db`, { storage, busyTimeoutMs: 300 });
    try {
      await db.exec('DROP TABLE IF EXISTS d; CREATE TABLE d(x)');
      let inner = null;
      const r = await settles(db.transaction(async (tx) => {
        await tx.run('INSERT INTO d VALUES (1)');
        try { await db.run('INSERT INTO d VALUES (2)'); } catch (e) { inner = e; throw e; }
      }), 10000);
      ok(!r.pending, 'transaction(fn) with a call on db inside settles');
      ok(inner && inner.name === 'SqliteError' && inner.code === (SEES_INSIDE ? SQLITE_MISUSE : SQLITE_BUSY),
        `the inner call fails with ${SEES_INSIDE ? 'SQLITE_MISUSE' : 'SQLITE_BUSY'}: ${inner && `${inner.code} ${inner.message}`}`);
      ok(/transaction/.test(inner.message) && /\btx\b/.test(inner.message), `the error names the cause and the way out: ${inner.message}`);
      ok(r.error === inner, 'transaction() rejects with it');
      const after = await settles(db.query('SELECT count(*) AS n FROM d'));
      eq(after.value, [{ n: 0 }], 'rolled back, and the database answers again');
      // A long transaction: another caller waits busyTimeoutMs, then SQLITE_BUSY.
      const long = db.transaction(async (tx) => { await sleep(1500); await tx.run('INSERT INTO d VALUES (3)'); });
      const other = await settles(db.query('SELECT 1 AS one'), 10000);
      ok(other.error && other.error.code === SQLITE_BUSY && /busyTimeoutMs/.test(other.error.message),
        `a caller waiting for a long transaction gets SQLITE_BUSY after busyTimeoutMs: ${JSON.stringify(other.error && other.error.message)}`);
      await long;
      eq(await db.query('SELECT x FROM d'), [{ x: 3 }], 'the long transaction committed');
    } finally { await db.close(); }
  },

  // busyTimeoutMs: Infinity is no limit: a call waits for a transaction as
  // long as it takes (it used to fail at once: setTimeout(fn, Infinity)
  // fires after 1 ms).
  async busyTimeoutInfinity(storage) {
    const db = await open(`busy-inf-${storage}.db`, { storage, busyTimeoutMs: Infinity });
    try {
      await db.exec('DROP TABLE IF EXISTS b; CREATE TABLE b(x)');
      const tx = db.transaction(async (t) => { await sleep(400); await t.run('INSERT INTO b VALUES (1)'); });
      const other = await settles(db.query('SELECT count(*) AS n FROM b'), 10000);
      await tx;
      ok(!other.pending && !other.error, `a call waiting for the transaction gets its answer: ${JSON.stringify(other.error ? other.error.message : other)}`);
      eq(other.value, [{ n: 1 }], 'after the commit');
    } finally { await db.close(); }
  },

  // A transaction left open by a call (raw BEGIN, as Drizzle's sqlite-proxy
  // sends it) would capture every other caller's writes until it ends: the
  // call is rolled back and refused.
  async rawTransactionAcrossCalls(storage) {
    const db = await open(`rawtx-${storage}.db`, { storage });
    try {
      await db.exec('DROP TABLE IF EXISTS g; CREATE TABLE g(who)');
      const begin = await settles(db.exec('BEGIN'));
      const other = await settles(db.run("INSERT INTO g VALUES ('other caller')"));
      await settles(db.exec('ROLLBACK'));
      eq(other.value && other.value.changes, 1, "another caller's write");
      eq(await db.query('SELECT who FROM g'), [{ who: 'other caller' }], "another caller's write survives the first caller's ROLLBACK");
      ok(begin.error && begin.error.code === SQLITE_MISUSE && /transaction\(/.test(begin.error.message),
        `a call that leaves a transaction open is refused with SQLITE_MISUSE pointing to transaction(): ${JSON.stringify(begin.error && begin.error.message)}`);
      const failed = await settles(db.exec("BEGIN; INSERT INTO g VALUES ('half'); INSERT INTO nope VALUES (1)"));
      ok(failed.error && failed.error.code === 1, `a failed script's own error comes back: ${JSON.stringify(failed.error && failed.error.message)}`);
      eq(await db.query('SELECT count(*) AS n FROM g'), [{ n: 1 }], 'and what it began is rolled back');
      await db.exec("BEGIN; INSERT INTO g VALUES ('whole'); COMMIT");
      eq(await db.query('SELECT count(*) AS n FROM g'), [{ n: 2 }], 'a script that commits is fine');
    } finally { await db.close(); }
  },

  async closeTwice(storage) {
    const db = await open(`close2-${storage}.db`, { storage });
    await db.exec('CREATE TABLE IF NOT EXISTS c(x)');
    const [a, b] = await Promise.all([settles(db.close()), settles(db.close())]);
    ok(!a.pending && !b.pending && !a.error && !b.error, `two close() calls at once both resolve: ${JSON.stringify([a, b])}`);
    await rejects(db.query('SELECT 1'), SQLITE_MISUSE, 'closed');
  },

  // close() lets the calls made before it run (in Node, in-process, it
  // used to refuse all but the first with "database is closed"); a call
  // made after it fails with code 21.
  async closeRunsCallsMadeBefore(storage) {
    const name = `close-before-${storage}.db`;
    let db = await open(name, { storage });
    await db.exec('DROP TABLE IF EXISTS t; CREATE TABLE t(x)');
    const writes = [];
    for (let i = 0; i < 10; i++) writes.push(settles(db.run('INSERT INTO t VALUES (?)', [i])));
    const closing = db.close();
    const after = await settles(db.query('SELECT 1'));
    const c = await settles(closing);
    ok(!c.pending && !c.error, `close() resolves: ${JSON.stringify(c)}`);
    const results = await Promise.all(writes);
    eq(results.map((r) => (r.value ? r.value.changes : r.error ? `${r.error.code} ${r.error.message}` : 'pending')), Array(10).fill(1),
      'the ten calls made before close() ran');
    ok(after.error && after.error.code === SQLITE_MISUSE && /closed/.test(after.error.message),
      `a call made after close() fails with code 21: ${JSON.stringify(after.error ? after.error.message : after)}`);
    if (storage === 'memory') return;   // gone with the connection
    db = await open(name, { storage });
    try {
      eq(await db.query('SELECT count(*) AS n FROM t'), [{ n: 10 }], 'all ten are in the database');
    } finally { await db.close(); }
  },

  // A call made after close(), before it resolves, fails as on a closed
  // database: it never runs ahead of close() (its effects would stay).
  async callAfterClose(storage) {
    const db = await open(`close-then-${storage}.db`, { storage });
    await db.exec('DROP TABLE IF EXISTS c; CREATE TABLE c(x)');
    const closing = db.close();
    const [q, r] = await Promise.all([settles(db.query('SELECT 1 AS one')), settles(db.run('INSERT INTO c VALUES (1)'))]);
    await closing;
    ok(q.error && q.error.code === SQLITE_MISUSE, `a query made after close() fails with SQLITE_MISUSE: ${JSON.stringify(q)}`);
    ok(r.error && r.error.code === SQLITE_MISUSE, `an insert made after close() fails with SQLITE_MISUSE: ${JSON.stringify(r)}`);
    if (storage !== 'memory') {
      const again = await open(`close-then-${storage}.db`, { storage });
      try { eq(await again.query('SELECT count(*) AS n FROM c'), [{ n: 0 }], 'the insert made after close() did not run'); } finally { await again.close(); }
    }
  },

  async closeWithTwoExports(storage) {
    const db = await open(`close-exports-${storage}.db`, { storage });
    await db.exec(`DROP TABLE IF EXISTS e; CREATE TABLE e(b);
      INSERT INTO e WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<40) SELECT randomblob(3000) FROM c`);
    const r1 = db.exportStream({ pagesPerChunk: 1 }).getReader(), r2 = db.exportStream({ pagesPerChunk: 1 }).getReader();
    ok((await r1.read()).value.length > 0, 'the first stream gave a page');
    const c = await settles(db.close());
    ok(!c.pending && !c.error, `close() with two export streams open resolves: ${JSON.stringify(c)}`);
    const [e1, e2] = [await settles(r1.read()), await settles(r2.read())];
    ok(e1.error && e1.error.code === SQLITE_MISUSE && e2.error && e2.error.code === SQLITE_MISUSE,
      `both streams end with SQLITE_MISUSE: ${JSON.stringify([e1, e2].map((x) => x.error ? x.error.message : x))}`);
  },

  // import() from a ReadableStream of the caller's own chunks: they are
  // copied, never handed over (they used to end up empty, detached).
  async importKeepsCallerChunks(storage) {
    const db = await open(`import-chunks-${storage}.db`, { storage });
    try {
      await db.exec('DROP TABLE IF EXISTS k; CREATE TABLE k(v); INSERT INTO k VALUES (7)');
      const image = await db.export();
      const chunks = [image.slice(0, 512), image.slice(512)];
      await db.import(new ReadableStream({ start(c) { for (const x of chunks) c.enqueue(x); c.close(); } }));
      eq(chunks.map((c) => c.length), [512, image.length - 512], "the caller's chunks are intact");
      ok(sameBytes(chunks[0], image.subarray(0, 512)), "and hold the caller's bytes");
      eq(await db.query('SELECT v FROM k'), [{ v: 7 }], 'imported');
    } finally { await db.close(); }
  },

  // import() of what is not bytes is a TypeError naming the sources it
  // takes (a string or an array of numbers used to become zero bytes).
  async importRefusesNonBytes(storage) {
    const db = await open(`import-nonbytes-${storage}.db`, { storage });
    try {
      await db.exec('DROP TABLE IF EXISTS k; CREATE TABLE k(v); INSERT INTO k VALUES (7)');
      for (const [what, source] of [['a string', 'SQLite format 3\0'], ['an array of numbers', [83, 81, 76]], ['an iterable of strings', ['abc']]]) {
        const e = await db.import(source).then(() => null, (err) => err);
        ok(e instanceof TypeError && /Uint8Array/.test(e.message) && /Blob/.test(e.message), `${what}: a TypeError naming the sources: ${e && `${e.name}: ${e.message}`}`);
        eq(await db.query('SELECT v FROM k'), [{ v: 7 }], `${what}: the database is intact`);
      }
    } finally { await db.close(); }
  },

  // Arguments the Worker cannot receive (postMessage throws DataCloneError):
  // the call rejects and nothing is left pending.
  async unclonableArguments(storage) {
    const db = await open(`unclonable-${storage}.db`, { storage });
    try {
      const r = await settles(db.query('SELECT ?', [() => 1]));
      ok(r.error, `a function as a parameter is refused: ${JSON.stringify(r)}`);
      if (db.client.calls) eq(db.client.calls.size, 0, 'no call left waiting for an answer');
      eq(await db.query('SELECT 1 AS one'), [{ one: 1 }], 'usable after');
    } finally { await db.close(); }
  },

  async iterate(storage) {
    const db = await open(`iter-${storage}.db`, { storage });
    try {
      const N = 1000000;
      eq(await db.query('SELECT 1 AS warm'), [{ warm: 1 }], 'warm up');
      const before = await db.heapSize();
      let count = 0, sum = 0, textBytes = 0;
      for await (const [n, s] of db.iterate(`WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<${N})
          SELECT n, printf('row %08d padding padding', n) FROM c`, [], { rowMode: 'array', pageSize: 2000 })) {
        count++; sum += n; textBytes += s.length;
      }
      const after = await db.heapSize();
      eq(count, N, 'every row');
      eq(sum, N * (N + 1) / 2, 'sum of n');
      ok(textBytes > 25e6, `rows were big (${textBytes} bytes of text)`);
      ok(after - before < 4 << 20, `the Worker's heap stayed flat (${before} -> ${after} bytes)`);
      // Break out early: the cursor is finalized and the connection free.
      let k = 0;
      for await (const r of db.iterate('WITH RECURSIVE c(v) AS (SELECT 1 UNION ALL SELECT v+1 FROM c WHERE v<100) SELECT v FROM c', [], { pageSize: 10 })) { if (++k === 15) break; eq(r.v, k, 'value'); }
      await db.exec('DROP TABLE IF EXISTS it; CREATE TABLE it(x); INSERT INTO it VALUES (1)');
      eq(await db.query('SELECT x FROM it'), [{ x: 1 }], 'writes fine after a broken-off iteration');
      let e = null;
      try { for await (const r of db.iterate('SELECT * FROM nope')) void r; } catch (err) { e = err; }
      ok(e && e.code === 1, 'iterate reports errors');
    } finally { await db.close(); }
  },

  async importExport(storage, ctx) {
    const src = await open(`imp-src-${storage}.db`, { storage });
    let image;
    try {
      await src.exec(`DROP TABLE IF EXISTS k; CREATE TABLE k(id INTEGER PRIMARY KEY, v TEXT);
        INSERT INTO k(v) WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<3000) SELECT printf('value %d', n) FROM c`);
      image = await src.export();
      const parts = await readAll(src.exportStream({ pagesPerChunk: 7 }));
      ok(parts.length > 1, `exportStream gave several chunks (${parts.length})`);
      const joined = new Uint8Array(parts.reduce((n, c) => n + c.length, 0));
      let at = 0;
      for (const c of parts) { joined.set(c, at); at += c.length; }
      ok(sameBytes(joined, image), `exportStream equals export() (${joined.length} vs ${image.length} bytes)`);
      eq(await src.query('SELECT count(*) AS n FROM k'), [{ n: 3000 }], 'usable after a streamed export');
      // A stream nobody reads: close() ends it instead of waiting for ever.
      const unread = src.exportStream({ pagesPerChunk: 1 });
      const reader = unread.getReader();
      await reader.read();
      const closed = await Promise.race([src.close().then(() => 'closed'), new Promise((r) => setTimeout(() => r('still waiting'), 5000))]);
      eq(closed, 'closed', 'close() with an export stream left unread');
      const after = await reader.read().then(() => null, (e) => e);
      ok(after && after.code === SQLITE_MISUSE, `the unread stream ends with SQLITE_MISUSE: ${after && after.message}`);
    } finally { await src.close(); }

    const db = await open(`imp-dst-${storage}.db`, { storage });
    try {
      await db.exec('DROP TABLE IF EXISTS old; CREATE TABLE old(x); INSERT INTO old VALUES (42)');
      const intact = async (what) => {
        eq(await db.query('SELECT x FROM old'), [{ x: 42 }], `${what}: old database intact`);
        eq(await db.query('PRAGMA integrity_check'), [{ integrity_check: 'ok' }], `${what}: integrity`);
      };
      // Damaged inputs: each a clear error, the old database untouched.
      let e = await rejects(db.import(new TextEncoder().encode('this is not a database at all, not even close'.repeat(20))), SQLITE_NOTADB, 'garbage');
      ok(/not an SQLite database/.test(e.message), e.message);
      await intact('garbage');
      e = await rejects(db.import(image.slice(0, image.length - 1000)), SQLITE_CORRUPT, 'truncated');
      ok(/truncated/.test(e.message), e.message);
      await intact('truncated');
      const bad = image.slice();
      const pageSize = (bad[16] << 8) | bad[17];
      for (let i = 2 * pageSize; i < 2 * pageSize + 64; i++) bad[i] = 0xA5;   // page 3: a b-tree page of k
      e = await rejects(db.import(bad), undefined, 'damaged page');
      ok(e.primaryCode === SQLITE_CORRUPT || e.primaryCode === SQLITE_NOTADB, `damaged page: SQLITE_CORRUPT (${e.code}: ${e.message})`);
      await intact('damaged page');
      // One more page, counted in the header, that no b-tree uses: every
      // read succeeds, only quick_check tells.
      const extra = new Uint8Array(image.length + pageSize);
      extra.set(image);
      new DataView(extra.buffer).setUint32(28, image.length / pageSize + 1);
      e = await rejects(db.import(extra), SQLITE_CORRUPT, 'a page never used');
      ok(/quick_check: [^]*never used/.test(e.message), e.message);
      await intact('a page never used');
      // Good imports from every kind of source.
      const kinds = {
        Uint8Array: () => image, Blob: () => new Blob([image]), Response: () => new Response(image),
        ReadableStream: () => new Blob([image]).stream(), iterable: () => [image.subarray(0, 1000), image.subarray(1000)],
      };
      for (const [kind, source] of Object.entries(kinds)) {
        await db.exec('DROP TABLE IF EXISTS old; CREATE TABLE old(x); INSERT INTO old VALUES (42)');
        await db.import(source());
        eq(await db.query('SELECT count(*) AS n, max(v) AS m FROM k'), [{ n: 3000, m: 'value 999' }], `import from ${kind}`);
        eq((await db.query("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'old'"))[0].n, 0, `${kind}: replaced, not merged`);
      }
      eq(image.length > 0 && image[0], 83, 'the source bytes are still there after the imports');
      eq(await db.query('PRAGMA integrity_check'), [{ integrity_check: 'ok' }], 'integrity after imports');
      eq((await db.files()).list.filter((f) => f.path && /tcimport/.test(f.path)), [], 'no staging file left');
      if (ctx && ctx.nativeDb) {
        await db.import(ctx.nativeDb);
        eq(await db.query('SELECT name, qty FROM items ORDER BY id'), [{ name: 'apple', qty: 3 }, { name: 'pear', qty: 5 }], 'a database made by the native sqlite3 shell');
        eq(await db.query("SELECT id FROM items INDEXED BY items_name WHERE name = 'pear'"), [{ id: 2 }], 'its index');
        eq(await db.query('PRAGMA page_size'), [{ page_size: 8192 }], 'its page size');
        eq(await db.query('SELECT count(*) AS n, sum(length(b)) AS s FROM filler'), [{ n: 300, s: 300000 }], 'its data');
        eq(await db.query('PRAGMA integrity_check'), [{ integrity_check: 'ok' }], 'integrity after the native import');
      } else {
        throw new Error('no database from the native sqlite3 shell (make builds build/api-fixtures/native.db)');
      }
    } finally { await db.close(); }
    const reopened = await open(`imp-new-${storage}.db`, { storage, import: new Blob([image]) });
    try {
      eq(await reopened.query('SELECT count(*) AS n FROM k'), [{ n: 3000 }], 'open(name, { import })');
    } finally { await reopened.close(); }
  },

  async setupAndTimeout(storage) {
    const db = await open(`setup-${storage}.db`, { storage, setup: new URL('./setup-functions.js', import.meta.url), timeoutMs: 50 });
    try {
      await db.exec("DROP TABLE IF EXISTS f; CREATE TABLE f(x, s); INSERT INTO f VALUES (2, 'a'), (3, 'c'), (4, 'b')");
      eq(await db.query('SELECT twice(x) AS t FROM f ORDER BY x'), [{ t: 4 }, { t: 6 }, { t: 8 }], 'function from the setup module');
      eq(await db.query('SELECT product(x) AS p FROM f'), [{ p: 24 }], 'aggregate from the setup module');
      eq((await db.query('SELECT s FROM f ORDER BY s COLLATE backwards')).map((r) => r.s), ['c', 'b', 'a'], 'collation from the setup module');
      const e = await rejects(db.query('WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c) SELECT count(*) FROM c'), 9, 'timeoutMs interrupts');
      ok(/timeoutMs/.test(e.message), e.message);
      eq(await db.query('SELECT twice(21) AS t'), [{ t: 42 }], 'usable after the interrupt');
    } finally { await db.close(); }
    let bad = null;
    try { await open(`setup-bad-${storage}.db`, { storage, setup: new URL('./assert.js', import.meta.url) }); } catch (e) { bad = e; }
    ok(bad && /default export/.test(bad.message), `a setup module without a default function is refused: ${bad && bad.message}`);
    const missing = new URL('./no-such-setup.js', import.meta.url).href;
    bad = null;
    try { await open(`setup-missing-${storage}.db`, { storage, setup: missing }); } catch (e) { bad = e; }
    ok(bad && bad.message.startsWith(`setup module ${missing} failed to load`) && bad.cause, `a setup module that fails to load is named: ${bad && bad.message}`);
    bad = null;
    const asset = 'data:video/mp2t;base64,' + btoa('export default function setup(db: unknown) {}');
    try { await open(`setup-asset-${storage}.db`, { storage, setup: asset }); } catch (e) { bad = e; }
    ok(bad && /^setup module data:video\/mp2t;base64,\S+ failed to load \(a data: URL of type video\/mp2t: the bundler took the module for an asset\)/.test(bad.message) && /serve\(\)/.test(bad.message),
      `a setup module a bundler inlined as an asset is named, with the cause: ${bad && bad.message}`);
    bad = null;
    try { await open(`setup-worker-${storage}.db`, { storage, worker: 'db-worker.js' }); } catch (e) { bad = e; }
    ok(bad instanceof TypeError && /serve\(\)/.test(bad.message), `the worker option is true, false, a Worker or a function returning one: ${bad && bad.message}`);
  },

  async extensions(storage) {
    const db = await open(`ext-${storage}.db`, { storage });
    try {
      await db.exec(`DROP TABLE IF EXISTS docs; CREATE VIRTUAL TABLE docs USING fts5(title, body);
        INSERT INTO docs VALUES ('cats', 'cats purr and sleep'), ('temp files', 'temporary files are encrypted with ChaCha20'),
          ('dogs', 'dogs bark; some dogs sleep')`);
      eq((await db.query("SELECT title FROM docs WHERE docs MATCH 'sleep' ORDER BY title")).map((r) => r.title), ['cats', 'dogs'], 'fts5: two documents match');
      eq(await db.query("SELECT highlight(docs, 1, '[', ']') AS h FROM docs WHERE docs MATCH 'encrypt*'"), [{ h: 'temporary files are [encrypted] with ChaCha20' }], 'fts5 prefix query and highlight');
      eq((await db.query("SELECT title FROM docs WHERE docs MATCH 'dogs OR cats' ORDER BY bm25(docs) LIMIT 1"))[0], { title: 'dogs' }, 'fts5 bm25 ranks the doc saying dogs twice first');
      await db.exec(`DROP TABLE IF EXISTS boxes; CREATE VIRTUAL TABLE boxes USING rtree(id, minX, maxX, minY, maxY);
        INSERT INTO boxes VALUES (1, 0, 10, 0, 10), (2, 5, 15, 5, 15), (3, 20, 30, 20, 30)`);
      eq((await db.query('SELECT id FROM boxes WHERE maxX >= 8 AND minX <= 12 AND maxY >= 8 AND minY <= 12 ORDER BY id')).map((r) => r.id), [1, 2], 'rtree overlap query');
      eq(await db.query('SELECT count(*) AS n FROM boxes WHERE minX > 100'), [{ n: 0 }], 'rtree empty range');
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
  } finally { await db.close(); }
}

// Storage choice: never a silent fallback (in the page without a Worker, or
// in Node: no OPFS in either).
async function storageChoice() {
  const e = await rejects(open('x.db', { storage: 'opfs', worker: false }), SQLITE_CANTOPEN, 'opfs where OPFS is unusable');
  ok(/OPFS/.test(e.message) && /'auto'/.test(e.message), `the error says why and what to do: ${e.message}`);
  const db = await open('auto.db', { storage: 'auto', worker: false });
  try {
    eq(db.storage, 'memory', "'auto' falls back to memory and says so");
  } finally { await db.close(); }
  if (typeof window === 'object') {
    await rejects(open('x.db', { worker: false }), SQLITE_CANTOPEN, "the default in a browser is 'opfs', not a silent fallback");
  }
}

// The synchronous API's tests run in a dedicated Worker in a browser (OPFS
// needs one), in-process elsewhere.
function syncTestsInWorker(storages, ctx) {
  return new Promise((resolve) => {
    const w = new Worker(new URL('./sync-worker.js', import.meta.url), { type: 'module' });
    w.onmessage = (e) => { resolve(e.data); w.terminate(); };
    w.onerror = (e) => { resolve([{ name: 'sync API worker', ok: false, error: e.message }]); w.terminate(); };
    w.postMessage({ storages, ctx });
  });
}

// The database the native sqlite3 shell made (mk/browser.mk), or null.
async function nativeDb() {
  const url = new URL('../../build/api-fixtures/native.db', import.meta.url);
  try {
    if (url.protocol === 'file:') {
      const fsName = 'node:fs/promises';
      return new Uint8Array(await (await import(fsName)).readFile(url));
    }
    const res = await fetch(url);
    return res.ok ? new Uint8Array(await res.arrayBuffer()) : null;
  } catch { return null; }
}

// ctx.nativeDb: bytes of a database made by the native sqlite3 shell.
export async function run(storages = ['opfs', 'memory'], ctx = {}) {
  if (!ctx.nativeDb) ctx = { ...ctx, nativeDb: await nativeDb() };
  const out = [];
  for (const [name, fn] of [['memory on the main thread', mainThread], ['storage choice', storageChoice]]) {
    try { await fn(); out.push({ name, ok: true }); }
    catch (e) { out.push({ name, ok: false, error: String(e && e.stack || e) }); }
  }
  out.push(...await runTests(tests, storages, ctx));
  out.push(...await runTests(evidenceTests, storages, ctx));
  const inPage = typeof window === 'object' && typeof Worker === 'function';
  out.push(...(inPage ? await syncTestsInWorker(storages, ctx) : await runTests(syncTests, storages, ctx, ' [sync]')));
  return out;
}
