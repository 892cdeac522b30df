// The main-thread API's close and life: close twice, calls made before
// close, a call after close, close during exports, arguments that cannot be
// cloned.
// Part of the API tests (./async-api.js runs them); each throws on failure.
import { open } from '../../dist/index.js';
import { SQLITE_MISUSE } from '../../dist/shared/constants.js';
import { eq, ok, rejects, settles } from './assert.js';

export const tests = {
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
};
