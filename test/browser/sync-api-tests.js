// Tests of the synchronous API (sqlite-tempcrypt/worker): in a dedicated
// Worker in a browser (sync-worker.js), in-process in Node.
import { open } from '../../dist/worker.js';
import { eq, ok, rejects, sameBytes } from './assert.js';

export const tests = {
  async statements(storage) {
    const db = await open(`sync-stmt-${storage}.db`, { storage });
    try {
      db.exec('DROP TABLE IF EXISTS s; CREATE TABLE s(id INTEGER PRIMARY KEY, name TEXT)');
      const ins = db.prepare('INSERT INTO s(name) VALUES (?)');
      for (const n of ['a', 'b', 'c']) ins.run([n]);
      const named = db.prepare('INSERT INTO s(name) VALUES (:name)');
      eq(named.run({ name: 'd' }), { changes: 1, lastInsertRowid: 4 }, 'named run result');
      const sel = db.prepare('SELECT id, name FROM s WHERE id >= ? ORDER BY id');
      eq(sel.columns(), ['id', 'name'], 'columns');
      eq(sel.all([3]), [{ id: 3, name: 'c' }, { id: 4, name: 'd' }], 'all');
      eq(sel.get([2], { rowMode: 'array' }), [2, 'b'], 'get as array');
      eq(sel.get([9]), undefined, 'get: no row');
      eq([...sel.iterate([1])].map((r) => r.name), ['a', 'b', 'c', 'd'], 'iterate');
      const it = sel.iterate([1]);
      it.next();
      await rejects(() => sel.all([1]), 21, 'busy while an iteration is open');
      it.return();
      eq(sel.all([4]).length, 1, 'free again after the iteration ended');
      eq(db.query('SELECT 1 AS a, 2 AS a', [], { rowMode: 'array' }), [[1, 2]], 'query rowMode array');
      eq([...db.iterate('WITH RECURSIVE c(v) AS (SELECT 1 UNION ALL SELECT v+1 FROM c WHERE v<5) SELECT v FROM c', [], { rowMode: 'array' })].flat(), [1, 2, 3, 4, 5], 'db.iterate');
      ins.finalize();
      await rejects(() => ins.run(['x']), 21, 'finalized');
      db.close();
      await rejects(() => sel.all([1]), 21, 'close finalizes statements');
    } finally { db.close(); }
  },

  async transactions(storage) {
    const db = await open(`sync-tx-${storage}.db`, { storage });
    try {
      db.exec('DROP TABLE IF EXISTS t; CREATE TABLE t(x UNIQUE)');
      eq(db.transaction(() => { db.run('INSERT INTO t VALUES (1)'); return 'done'; }), 'done', 'result');
      let e = null;
      try { db.transaction(() => { db.run('INSERT INTO t VALUES (2)'); throw new Error('boom'); }); } catch (err) { e = err; }
      ok(e && e.message === 'boom', 'rethrown');
      eq(db.query('SELECT x FROM t ORDER BY x'), [{ x: 1 }], 'rolled back on throw');
      db.transaction((d) => {
        d.run('INSERT INTO t VALUES (10)');
        try { d.transaction(() => { d.run('INSERT INTO t VALUES (11)'); throw new Error('inner'); }); } catch { /* expected */ }
        d.transaction(() => d.run('INSERT INTO t VALUES (12)'));
        ok(d.inTransaction, 'in a transaction');
      });
      ok(!db.inTransaction, 'committed');
      eq(db.query('SELECT x FROM t ORDER BY x').map((r) => r.x), [1, 10, 12], 'nested savepoints');
      e = null;
      try { db.transaction(async () => {}); } catch (err) { e = err; }
      ok(e instanceof TypeError && !db.inTransaction, 'an async fn is refused and rolled back');
      await rejects(() => db.batch([['INSERT INTO t VALUES (?)', [20]], ['INSERT INTO t VALUES (?)', [1]]]), 2067, 'failing batch');
      eq(db.query('SELECT count(*) AS n FROM t WHERE x = 20'), [{ n: 0 }], 'batch rolled back');
      eq(db.batch([['INSERT INTO t VALUES (?)', [20]], 'SELECT max(x) AS m FROM t'])[1].rows, [{ m: 20 }], 'batch');
    } finally { db.close(); }
  },

  async importExport(storage, ctx) {
    const db = await open(`sync-imp-${storage}.db`, { storage });
    try {
      db.exec(`DROP TABLE IF EXISTS k; CREATE TABLE k(v); INSERT INTO k WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<500) SELECT randomblob(300) FROM c`);
      const image = db.export();
      const parts = [];
      const reader = db.exportStream({ pagesPerChunk: 3 }).getReader();
      for (;;) { const { value, done } = await reader.read(); if (done) break; parts.push(value); }
      const joined = new Uint8Array(parts.reduce((n, c) => n + c.length, 0));
      let at = 0;
      for (const c of parts) { joined.set(c, at); at += c.length; }
      ok(parts.length > 1 && sameBytes(joined, image), `exportStream equals export() (${parts.length} chunks)`);
      db.exec('DROP TABLE k; CREATE TABLE old(x); INSERT INTO old VALUES (7)');
      const bad = image.slice();
      bad.set(new TextEncoder().encode('SQLite format 2'), 0);
      await rejects(db.import(bad), 26, 'bad header');
      eq(db.query('SELECT x FROM old'), [{ x: 7 }], 'intact after a failed import');
      await db.import(new Blob([image]));
      eq(db.query('SELECT count(*) AS n FROM k'), [{ n: 500 }], 'imported');
      if (ctx && ctx.nativeDb) {
        await db.import(ctx.nativeDb);
        eq(db.query('SELECT count(*) AS n FROM items'), [{ n: 2 }], 'native shell database');
      } else {
        throw new Error('no database from the native sqlite3 shell');
      }
    } finally { db.close(); }
  },

  async storage(storage) {
    const db = await open(`sync-storage-${storage}.db`, { storage });
    try { eq(db.storage, storage, 'db.storage says what was used'); } finally { db.close(); }
  },
};
