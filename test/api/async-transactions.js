// Transactions through the main-thread API: BEGIN and COMMIT, transaction(fn),
// a transaction SQLite ended, waiting for another session, busy timeouts, a
// raw transaction across calls.
// Part of the API tests (./async-api.js runs them); each throws on failure.
import { open } from '../../dist/index.js';
import { SQLITE_MISUSE, SQLITE_CONSTRAINT_UNIQUE, SQLITE_ABORT_ROLLBACK, SQLITE_INTERRUPT, SQLITE_BUSY } from '../../dist/shared/constants.js';
import { eq, ok, rejects, settles } from './assert.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// Node tells a call made inside transaction(fn) from one made elsewhere
// (AsyncLocalStorage): there it fails at once; elsewhere after busyTimeoutMs.
const SEES_INSIDE = typeof window === 'undefined' && typeof process === 'object';

export const tests = {
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
};
