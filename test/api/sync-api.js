// Tests of the synchronous API (sqlite-tempcrypt/worker): in a dedicated
// Worker in a browser (sync-worker.js), in-process in Node.
import { open } from '../../dist/worker.js';
import { SQLITE_MISUSE, SQLITE_NOTADB, SQLITE_CONSTRAINT_UNIQUE } from '../../dist/constants.js';
import { eq, ok, rejects, sameBytes, readAll } from './assert.js';

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
      await rejects(() => sel.all([1]), SQLITE_MISUSE, 'busy while an iteration is open');
      it.return();
      eq(sel.all([4]).length, 1, 'free again after the iteration ended');
      eq(db.query('SELECT 1 AS a, 2 AS a', [], { rowMode: 'array' }), [[1, 2]], 'query rowMode array');
      eq([...db.iterate('WITH RECURSIVE c(v) AS (SELECT 1 UNION ALL SELECT v+1 FROM c WHERE v<5) SELECT v FROM c', [], { rowMode: 'array' })].flat(), [1, 2, 3, 4, 5], 'db.iterate');
      ins.finalize();
      await rejects(() => ins.run(['x']), SQLITE_MISUSE, 'finalized');
      db.close();
      await rejects(() => sel.all([1]), SQLITE_MISUSE, 'close finalizes statements');
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
      await rejects(() => db.batch([['INSERT INTO t VALUES (?)', [20]], ['INSERT INTO t VALUES (?)', [1]]]), SQLITE_CONSTRAINT_UNIQUE, 'failing batch');
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
      await rejects(db.import(bad), SQLITE_NOTADB, 'bad header');
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

  async functions(storage) {
    const db = await open(`sync-fn-${storage}.db`, { storage });
    try {
      db.function('plus', (a, b) => a + b, { deterministic: true });
      db.function('join_all', (...xs) => xs.join('|'), { varargs: true });
      db.function('echo', (x) => x);
      db.function('boom', () => { throw new Error('no luck'); });
      eq(db.query('SELECT plus(2, 3) AS s, plus(1.5, 1) AS f'), [{ s: 5, f: 2.5 }], 'scalar function');
      eq(db.query("SELECT join_all(1, 'b', NULL) AS j, join_all() AS e"), [{ j: '1|b|', e: '' }], 'varargs');
      eq(db.query("SELECT echo(x'00ff') AS b, echo(9007199254740993) AS i, echo('é') AS t, echo(NULL) AS n"),
        [{ b: new Uint8Array([0, 255]), i: 9007199254740993n, t: 'é', n: null }], 'values both ways');
      let e = await rejects(() => db.query('SELECT boom()'), 1, 'a throwing function');
      ok(/no luck/.test(e.message), e.message);
      await rejects(() => db.query('SELECT plus(1)'), 1, 'wrong argument count');
      db.exec('DROP TABLE IF EXISTS v; CREATE TABLE v(g, x); INSERT INTO v VALUES (1, 2), (1, 3), (2, 5), (2, 7), (2, 1)');
      db.aggregate('median', {
        start: () => [],
        step: (acc, x) => { acc.push(x); },
        result: (acc) => { acc.sort((a, b) => a - b); return acc.length ? acc[(acc.length - 1) >> 1] : null; },
      });
      eq(db.query('SELECT g, median(x) AS m FROM v GROUP BY g ORDER BY g'), [{ g: 1, m: 2 }, { g: 2, m: 5 }], 'aggregate per group');
      eq(db.query('SELECT median(x) AS m FROM v WHERE 0'), [{ m: null }], 'aggregate over no rows');
      db.aggregate('total_sum', { start: 0, step: (acc, x) => acc + x });
      eq(db.query('SELECT total_sum(x) AS s FROM v'), [{ s: 18 }], 'aggregate with a start value');
      db.collation('nocase_rev', (a, b) => b.toLowerCase().localeCompare(a.toLowerCase()));
      db.exec("DROP TABLE IF EXISTS w; CREATE TABLE w(s); INSERT INTO w VALUES ('b'), ('A'), ('c')");
      eq(db.query('SELECT s FROM w ORDER BY s COLLATE nocase_rev').map((r) => r.s), ['c', 'b', 'A'], 'collation');
      db.collation('bad', () => { throw new Error('cannot compare'); });
      e = null;
      try { db.query('SELECT s FROM w ORDER BY s COLLATE bad'); } catch (err) { e = err; }
      ok(e && /cannot compare/.test(e.message), 'a throwing collation fails the statement');
      eq(db.query('SELECT 1 AS ok'), [{ ok: 1 }], 'usable after');
    } finally { db.close(); }
  },

  async timeout(storage) {
    const db = await open(`sync-timeout-${storage}.db`, { storage, timeoutMs: 50 });
    try {
      const spin = 'WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c) SELECT count(*) FROM c';
      const t0 = Date.now();
      const e = await rejects(() => db.query(spin), 9, 'a runaway query is interrupted');
      ok(/timeoutMs 50/.test(e.message), e.message);
      ok(Date.now() - t0 < 5000, `stopped soon (${Date.now() - t0} ms)`);
      const hang = 'WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n < 20000000) SELECT n FROM c WHERE n < 0';   // seconds without a limit
      let e2 = null, rows = 0;
      try { for (const r of db.iterate(hang)) { rows++; void r; } } catch (err) { e2 = err; }
      ok(e2 && e2.code === 9 && rows === 0, `a sync iterate() step is limited too (${e2 && e2.code})`);
      const st = db.prepare(hang);
      e2 = null;
      try { for (const r of st.iterate()) void r; } catch (err) { e2 = err; }
      ok(e2 && e2.code === 9, 'and a statement\'s iterate()');
      st.finalize();
      db.exec('DROP TABLE IF EXISTS t; CREATE TABLE t(x); INSERT INTO t VALUES (1)');
      eq(db.query('SELECT x FROM t'), [{ x: 1 }], 'usable afterwards');
      db.timeoutMs = 0;
      eq(db.query('WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n < 300000) SELECT count(*) AS n FROM c'), [{ n: 300000 }], 'no limit once timeoutMs is 0');
    } finally { db.close(); }
  },

  // An import and a streamed export spill nothing in plaintext: no write to
  // a temp file and no free or temp pool file holds the rows' marker.
  async importLeak(storage) {
    const marker = `TCLEAK-${Math.random().toString(36).slice(2)}-${Date.now()}-MARK`;
    const needle = new TextEncoder().encode(marker);
    const count = (buf) => {
      let n = 0;
      outer: for (let i = 0; i + needle.length <= buf.length; i++) {
        for (let j = 0; j < needle.length; j++) if (buf[i + j] !== needle[j]) continue outer;
        n++;
      }
      return n;
    };
    let tempHits = 0, mainWrites = 0;
    const db = await open(`sync-leak-${storage}.db`, { storage, observer: (ev) => {
      if (ev.op !== 'write') return;
      if (ev.temp) tempHits += count(ev.data); else mainWrites++;
    } });
    try {
      db.exec(`DROP TABLE IF EXISTS k; CREATE TABLE k(v);
        INSERT INTO k WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<2000) SELECT '${marker}' || n FROM c`);
      const image = db.export();
      db.exec('DELETE FROM k');
      mainWrites = 0;
      await db.import(image);
      await readAll(db.exportStream());
      eq(db.query('SELECT count(*) AS n FROM k'), [{ n: 2000 }], 'imported');
      ok(mainWrites > 0, 'the observer saw the import write');
      eq(tempHits, 0, 'no marker written to a temp file');
      const leftovers = db.files.scan().filter((f) => f.path === null || f.path.startsWith('/tmp/') || /tcimport/.test(f.path));
      eq(leftovers.reduce((n, f) => n + count(f.bytes), 0), 0, 'no marker in free, temp or staging pool files');
    } finally { db.close(); }
  },

  async storage(storage) {
    const db = await open(`sync-storage-${storage}.db`, { storage });
    try { eq(db.storage, storage, 'db.storage says what was used'); } finally { db.close(); }
  },
};
