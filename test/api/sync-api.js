// Tests of the synchronous API (sqlite-tempcrypt/worker): in a dedicated
// Worker in a browser (sync-worker.js), in-process in Node.
import { open } from '../../dist/worker.js';
import {
  SQLITE_MISUSE, SQLITE_NOTADB, SQLITE_CONSTRAINT, SQLITE_CONSTRAINT_UNIQUE, SQLITE_CONSTRAINT_PRIMARYKEY, SQLITE_ABORT_ROLLBACK,
  SQLITE_INTERRUPT, SQLITE_ERROR, SQLITE_RANGE, SQLITE_OPEN_MAIN_DB, SQLITE_OPEN_MAIN_JOURNAL, SQLITE_OPEN_WAL,
} from '../../dist/shared/constants.js';
import { eq, ok, rejects, sameBytes, readAll } from './assert.js';
import { rng, randomString, wellFormed, hexUtf8, sqlLiteral, showString } from './strings.js';

const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

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
      const res = db.batch([['INSERT INTO t VALUES (?)', [20]], 'SELECT max(x) AS m FROM t', 'INSERT INTO t VALUES (21) RETURNING x AS y']);
      eq(res.map((r) => [r.rows, r.columns]), [[[], []], [[{ m: 20 }], ['m']], [[{ y: 21 }], ['y']]], 'batch: rows and result columns');
      const one = await rejects(() => db.batch([['INSERT INTO t VALUES (?)', [1]]]), SQLITE_CONSTRAINT_UNIQUE, 'a batch of one statement');
      eq(one.message, 'UNIQUE constraint failed: t.x', "a batch of one statement: the statement's own message");
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
      // Everything but the database's own open files (known by their open
      // flags, not by their path: a checkout under /tmp is no temp file).
      const own = (f) => f.path !== null && !/tcimport/.test(f.path) &&
        (f.flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_WAL)) !== 0;
      const leftovers = db.files.scan().filter((f) => !own(f));
      eq(leftovers.reduce((n, f) => n + count(f.bytes), 0), 0, 'no marker in free, temp or staging pool files');
    } finally { db.close(); }
  },

  async storage(storage) {
    const db = await open(`sync-storage-${storage}.db`, { storage });
    try { eq(db.storage, storage, 'db.storage says what was used'); } finally { db.close(); }
  },

  // Every JS string that enters wasm is encoded as TextEncoder does (a
  // lone surrogate becomes U+FFFD, nothing else changes): bound values,
  // SQL text, named parameters, function results and arguments, collation
  // arguments, column names.  (A lone surrogate used to swallow the next
  // character, a closing quote included.)
  async strings(storage) {
    const seed = 0x5eed0 + storage.length;
    const r = rng(seed);
    const strs = Array.from({ length: 300 }, () => randomString(r));
    strs.push('a\uD800bc', "x\uD800'; DROP TABLE s; --", '\uDBFF', '\uDC00\uD800', '\0a\0', '');
    const db = await open(`sync-strings-${storage}.db`, { storage });
    const seen = new Set();
    try {
      db.exec('DROP TABLE IF EXISTS s; CREATE TABLE s(i INTEGER PRIMARY KEY, v TEXT)');
      db.function('pick', (i) => strs[i]);
      db.function('echo', (x) => x);
      db.collation('spy', (a, b) => { seen.add(a); seen.add(b); return cmp(a, b); });
      const ins = db.prepare('INSERT INTO s(i, v) VALUES (?, ?)');
      strs.forEach((s, i) => {
        const want = wellFormed(s), what = `seed ${seed}, string ${i} ${showString(s)}`;
        ins.run([i, s]);
        eq(db.query('SELECT v, hex(v) AS h FROM s WHERE i = ?', [i])[0], { v: want, h: hexUtf8(s) }, `bound value, ${what}`);
        eq(db.query('SELECT :v AS v', { v: s })[0].v, want, `named parameter, ${what}`);
        eq(db.query('SELECT pick(?) AS v', [i])[0].v, want, `function result, ${what}`);
        eq(db.query('SELECT echo(?) AS v', [s])[0].v, want, `function argument, ${what}`);
        if (s.includes('\0')) return;
        eq(db.query(`SELECT ${sqlLiteral(s)} AS v`)[0].v, want, `SQL literal, ${what}`);
        db.exec(`INSERT INTO s(i, v) VALUES (${100000 + i}, ${sqlLiteral(s)})`);
        eq(db.query('SELECT v FROM s WHERE i = ?', [100000 + i])[0].v, want, `SQL literal through exec, ${what}`);
        eq(Object.keys(db.query(`SELECT 1 AS "${s.replace(/"/g, '""')}"`)[0]), [want], `column name, ${what}`);
      });
      eq(db.query("SELECT count(*) AS n FROM sqlite_schema WHERE name = 's'"), [{ n: 1 }], 'no literal ran as SQL');
      db.query('SELECT v FROM s ORDER BY v COLLATE spy');
      const wanted = new Set(strs.map(wellFormed));
      const odd = [...seen].filter((x) => !wanted.has(x) && !x.includes('\0'));
      eq(odd.map(showString), [], 'collation arguments are the stored strings');
      ok(seen.size > 100, `the collation saw the strings (${seen.size})`);
      // Names: a function, a collation and a parameter name, each with a lone surrogate.
      db.function('f\uD800x', () => 'called');
      eq(db.query('SELECT "f\uFFFDx"() AS v'), [{ v: 'called' }], 'a function name is encoded like the SQL that calls it');
      eq(db.query('SELECT :p\uD800 AS v', { 'p\uD800': 7 }), [{ v: 7 }], 'a parameter name with a lone surrogate');
      db.collation('c\uDC00', (a, b) => cmp(b, a));
      eq(db.query("SELECT v FROM s WHERE i IN (300, 301) ORDER BY v COLLATE \"c\uFFFD\"").map((x) => x.v), ["x\uFFFD'; DROP TABLE s; --", 'a\uFFFDbc'], 'a collation name (reversed order)');
    } finally { db.close(); }
    // A database name: the same database as its TextEncoder encoding (and OPFS's pool name works).
    const named = await open(`sync-strings-\uD800-${storage}.db`, { storage });
    try {
      eq(named.name, `sync-strings-\uFFFD-${storage}.db`, 'db.name');
      named.exec('DROP TABLE IF EXISTS k; CREATE TABLE k(x); INSERT INTO k VALUES (1)');
    } finally { await named.close(); }
    if (storage !== 'memory') {
      const again = await open(`sync-strings-\uFFFD-${storage}.db`, { storage });
      try { eq(again.query('SELECT x FROM k'), [{ x: 1 }], 'the same database'); } finally { await again.close(); }
    }
  },

  // A NUL in SQL text is an error at once (it used to spin for ever: the
  // prepare loop did not move past it).
  async nulInSql(storage) {
    const db = await open(`sync-nul-${storage}.db`, { storage, timeoutMs: 1000 });
    try {
      db.exec('DROP TABLE IF EXISTS n; CREATE TABLE n(x)');
      const calls = {
        exec: () => db.exec('INSERT INTO n VALUES (1);\0 INSERT INTO n VALUES (2)'),
        execAfter: () => db.exec('SELECT 1;\0'),
        query: () => db.query('SELECT 1\0'),
        run: () => db.run('INSERT INTO n VALUES (3)\0'),
        prepare: () => db.prepare('SELECT\0 1'),
        iterate: () => [...db.iterate('SELECT 1\0')],
        batch: () => db.batch(['INSERT INTO n VALUES (4)', 'SELECT 1\0']),
      };
      for (const [name, call] of Object.entries(calls)) {
        const e = await rejects(call, SQLITE_MISUSE, name);
        ok(/NUL/.test(e.message), `${name}: the message says why: ${e.message}`);
      }
      eq(db.query('SELECT count(*) AS n FROM n'), [{ n: 0 }], 'nothing ran');
      eq(db.query('SELECT ? AS v', ['a\0b'])[0].v, 'a\0b', 'a NUL in a bound value is kept');
    } finally { db.close(); }
  },

  // Once SQLite has ended the transaction of transaction(fn) itself (an OR
  // ROLLBACK conflict, a write cut off by timeoutMs, SQL in fn that ends
  // it), every later statement of fn fails and transaction() rejects: none
  // of them may run in autocommit and stay.
  async transactionGone(storage) {
    const db = await open(`sync-txgone-${storage}.db`, { storage });
    try {
      db.exec('DROP TABLE IF EXISTS q; CREATE TABLE q(x UNIQUE)');
      let conflict = null, later = null, nested = null, reached = false;
      const e = await rejects(() => db.transaction(() => {
        db.run('INSERT INTO q VALUES (1)');
        try { db.run('INSERT OR ROLLBACK INTO q VALUES (1)'); } catch (err) { conflict = err; }
        try { db.run('INSERT INTO q VALUES (2)'); } catch (err) { later = err; }
        try { db.transaction(() => db.run('INSERT INTO q VALUES (3)')); } catch (err) { nested = err; }
        reached = true;
      }), SQLITE_ABORT_ROLLBACK, 'transaction() after SQLite rolled it back');
      ok(reached && conflict && conflict.code === SQLITE_CONSTRAINT_UNIQUE, `the conflict: ${conflict && conflict.code}`);
      ok(later && later.code === SQLITE_ABORT_ROLLBACK, `a later statement fails: ${later && later.message}`);
      ok(nested && nested.code === SQLITE_ABORT_ROLLBACK, `a nested transaction fails: ${nested && nested.message}`);
      ok(/rolled back/.test(e.message), e.message);
      eq(db.query('SELECT x FROM q'), [], 'nothing committed');
      ok(!db.inTransaction, 'no transaction left open');
      // A write cut off by the time limit.
      db.timeoutMs = 30;
      let cut = null;
      await rejects(() => db.transaction(() => {
        db.run('INSERT INTO q VALUES (10)');
        try {
          db.run('INSERT INTO q WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT 1000 + n FROM c');
        } catch (err) { cut = err; }
        db.run('INSERT INTO q VALUES (11)');
      }), SQLITE_ABORT_ROLLBACK, 'transaction() after a write cut off by timeoutMs');
      db.timeoutMs = 0;
      ok(cut && cut.code === SQLITE_INTERRUPT, `the write was cut off: ${cut && cut.code}`);
      eq(db.query('SELECT x FROM q'), [], 'nothing committed after the time limit');
      // SQL in fn that ends the transaction itself.
      await rejects(() => db.transaction(() => {
        db.run('INSERT INTO q VALUES (20)');
        db.exec('COMMIT');
        db.run('INSERT INTO q VALUES (21)');
      }), SQLITE_ABORT_ROLLBACK, 'a statement after fn committed by hand');
      eq(db.query('SELECT x FROM q'), [{ x: 20 }], 'what fn committed by hand stays; nothing after it ran');
      db.transaction(() => db.run('INSERT INTO q VALUES (30)'));
      eq(db.query('SELECT count(*) AS n FROM q'), [{ n: 2 }], 'the next transaction() works');
    } finally { db.close(); }
  },

  // A function, aggregate or collation that throws fails its statement and
  // undoes it (a throwing collation used to count as "equal" and leave the
  // statement's changes).
  async callbacksUndo(storage) {
    const db = await open(`sync-cbundo-${storage}.db`, { storage });
    try {
      db.exec("DROP TABLE IF EXISTS w; CREATE TABLE w(s TEXT); INSERT INTO w VALUES ('a'), ('b'), ('c')");
      const rows = () => db.query('SELECT s FROM w ORDER BY rowid').map((x) => x.s);
      db.collation('flaky', (a, b) => { if (a === 'c' || b === 'c') throw new Error('flaky collation'); return cmp(a, b); });
      db.collation('never', () => { throw new Error('never compares'); });
      db.function('boom', (s) => { if (s === 'c') throw new Error('boom on c'); return s + '?'; });
      db.aggregate('badagg', { start: 0, step: (acc, s) => { if (s === 'b') throw new Error('bad step'); return acc + 1; } });
      // The error of fn() (which must throw), checked after what must be undone.
      const failure = (fn) => { try { fn(); } catch (err) { return err; } throw new Error('did not throw'); };
      const isError = (err, re, what) => ok(err.name === 'SqliteError' && re.test(err.message), `${what}: ${err.name}: ${err.message}`);
      let e = failure(() => db.run("UPDATE w SET s = s || '!' WHERE s > 'a' COLLATE flaky"));
      eq(rows(), ['a', 'b', 'c'], 'a collation throwing mid-UPDATE: the UPDATE was undone');
      isError(e, /flaky collation/, 'a collation throwing mid-UPDATE');
      e = failure(() => db.run("INSERT INTO w SELECT 'z' WHERE 'a' < 'b' COLLATE never"));
      eq(rows(), ['a', 'b', 'c'], 'a collation throwing in a one-row INSERT: the INSERT was undone');
      isError(e, /never compares/, 'a collation throwing in a one-row INSERT');
      db.exec('DROP TABLE IF EXISTS u; CREATE TABLE u(s TEXT UNIQUE COLLATE never)');
      db.run("INSERT INTO u VALUES ('x')");
      e = failure(() => db.run("INSERT INTO u VALUES ('y')"));
      eq(db.query('SELECT s FROM u'), [{ s: 'x' }], 'a throwing collation in a UNIQUE index: the second row is not in the table');
      isError(e, /never compares/, 'a throwing collation in a UNIQUE index');
      e = failure(() => db.query("UPDATE w SET s = 'u' WHERE s = 'a' RETURNING (s < 'z' COLLATE never) AS r"));
      eq(rows(), ['a', 'b', 'c'], 'a throwing collation in RETURNING (after the rows changed): the UPDATE was undone');
      isError(e, /never compares/, 'a throwing collation in RETURNING');
      e = failure(() => db.run('UPDATE w SET s = boom(s)'));
      eq(rows(), ['a', 'b', 'c'], 'undone after a function threw');
      isError(e, /boom on c/, 'a throwing function');
      e = failure(() => db.run('INSERT INTO w SELECT badagg(s) FROM w'));
      eq(rows(), ['a', 'b', 'c'], 'undone after an aggregate threw');
      isError(e, /bad step/, 'a throwing aggregate');
      // Inside transaction(fn): the statement fails, and transaction() does too.
      e = failure(() => db.transaction(() => {
        db.run("INSERT INTO w VALUES ('d')");
        db.run("UPDATE w SET s = s || '!' WHERE s > 'a' COLLATE flaky");
      }));
      eq(rows(), ['a', 'b', 'c'], 'a throwing collation in a transaction: the transaction was undone');
      isError(e, /flaky collation/, 'a throwing collation in a transaction');
      ok(!db.inTransaction, 'no transaction left open');
      // fn catching that error and going on: the transaction is rolled back
      // all the same, fn's next statement is refused (nothing in autocommit).
      e = failure(() => db.transaction(() => {
        db.run("INSERT INTO w VALUES ('d')");
        try { db.run("UPDATE w SET s = s || '!' WHERE s > 'a' COLLATE flaky"); } catch { /* caught, fn goes on */ }
        db.run("INSERT INTO w VALUES ('e')");
      }));
      eq(rows(), ['a', 'b', 'c'], 'a throwing collation caught inside fn: the transaction was undone all the same');
      ok(e.code === SQLITE_ABORT_ROLLBACK, `fn's next statement is SQLITE_ABORT_ROLLBACK: ${e.code} ${e.message}`);
      ok(!db.inTransaction, 'no transaction left open');
      // Other statements running meanwhile are not disturbed (no sqlite3_interrupt).
      const open1 = db.prepare('SELECT s FROM w ORDER BY rowid').iterate();
      eq(open1.next().value, { s: 'a' }, 'an iteration is open');
      e = failure(() => db.query("SELECT s FROM w ORDER BY s COLLATE never"));
      isError(e, /never compares/, 'a throwing collation while an iteration is open');
      eq([...open1].map((r) => r.s), ['b', 'c'], 'the open iteration goes on');
      eq(db.query('SELECT s FROM w ORDER BY s COLLATE nocase'), [{ s: 'a' }, { s: 'b' }, { s: 'c' }], 'usable afterwards');
    } finally { db.close(); }
  },

  // changes counts what this statement changed (0 for DDL and SELECT), as
  // better-sqlite3 reports it; exec() binds its parameters; a statement
  // after an import finds the database named like the staging file intact;
  // open() refuses unknown options and names with NUL.
  async smallOnes(storage) {
    const db = await open(`sync-small-${storage}.db`, { storage });
    try {
      db.exec('DROP TABLE IF EXISTS t; CREATE TABLE t(x)');
      eq(db.run('INSERT INTO t VALUES (1)').changes, 1, 'insert');
      eq(db.run('CREATE TABLE IF NOT EXISTS t2(y)').changes, 0, 'DDL after an insert changes nothing');
      eq(db.run('SELECT 1').changes, 0, 'SELECT changes nothing');
      eq(db.prepare('UPDATE t SET x = x WHERE 0').run().changes, 0, 'an UPDATE of no row');
      eq(db.batch([['INSERT INTO t VALUES (2)'], 'CREATE TABLE IF NOT EXISTS t3(z)']).map((x) => x.changes), [1, 0], 'batch');
      db.exec('INSERT INTO t VALUES (?)', [5]);
      db.exec('INSERT INTO t VALUES (:v)', { v: 6 });
      eq(db.query('SELECT x FROM t ORDER BY rowid').map((x) => x.x), [1, 2, 5, 6], 'exec(sql, params) binds them');
      await rejects(() => db.exec('INSERT INTO t VALUES (?); INSERT INTO t VALUES (?)', [7]), SQLITE_MISUSE, 'exec with params and several statements');
      eq(db.query('SELECT count(*) AS n FROM t'), [{ n: 4 }], 'nothing ran');
    } finally { db.close(); }
    let e = null;
    try { await open(`sync-small-${storage}.db`, { storage, timeout: 100 }); } catch (err) { e = err; }
    ok(e instanceof TypeError && /timeout/.test(e.message) && /timeoutMs/.test(e.message), `unknown option refused with the known ones: ${e && e.message}`);
    e = null;
    try { await open(`sync-small-${storage}.db\0x`, { storage }); } catch (err) { e = err; }
    ok(e instanceof TypeError && /NUL/.test(e.message), `a name with NUL is refused: ${e && e.message}`);
  },

  // import() stages in a file of its own: a database of the storage named
  // like the old staging file ("<name>-tcimport") is left alone.
  async importStagingName(storage) {
    const db = await open(`sync-stage-${storage}.db`, { storage });
    try {
      db.exec(`DROP TABLE IF EXISTS k; CREATE TABLE k(v); INSERT INTO k VALUES ('imported')`);
      const image = db.export();
      db.exec(`ATTACH 'sync-stage-${storage}.db-tcimport' AS other; DROP TABLE IF EXISTS other.keep;
        CREATE TABLE other.keep(v); INSERT INTO other.keep VALUES ('precious'); DETACH other`);
      await db.import(image);
      db.exec(`ATTACH 'sync-stage-${storage}.db-tcimport' AS other`);
      eq(db.query('SELECT v FROM other.keep'), [{ v: 'precious' }], 'the other database is intact');
      db.exec('DETACH other');
      eq(db.query('SELECT v FROM k'), [{ v: 'imported' }], 'imported');
      eq(db.files.list().filter((f) => f.path && /tcimport-/.test(f.path)), [], 'no staging file left');
    } finally { db.close(); }
  },

  // Habits of better-sqlite3 and the official API: a statement's parameters
  // as arguments, per-call options (timeoutMs), err.codeName, exported
  // constants; unknown per-call options refused.
  async habits(storage) {
    const d2 = await open(`sync-habits-${storage}.db`, { storage });
    try {
      d2.exec('DROP TABLE IF EXISTS h; CREATE TABLE h(id INTEGER PRIMARY KEY, s TEXT, b BLOB)');
      const ins = d2.prepare('INSERT INTO h(id, s, b) VALUES (?, ?, ?)');
      eq(ins.run(1, 'a', new Uint8Array([1])).changes, 1, 'run(1, "a", blob)');
      eq(ins.run([2, 'b', null]).changes, 1, 'run([...])');
      eq(d2.query('SELECT b FROM h WHERE id = 1'), [{ b: new Uint8Array([1]) }], 'a blob given as an argument');
      const one = d2.prepare('SELECT s FROM h WHERE id = ?');
      eq(one.get(1), { s: 'a' }, 'get(1)');
      eq(one.get([2]), { s: 'b' }, 'get([2])');
      eq(one.all(1), [{ s: 'a' }], 'all(1)');
      eq([...one.iterate(2)], [{ s: 'b' }], 'iterate(2)');
      eq(one.get(null), undefined, 'get(null) binds NULL');
      await rejects(() => one.all(2, 'x'), SQLITE_RANGE, 'two arguments for one parameter');
      const named = d2.prepare('SELECT s FROM h WHERE id = :id');
      eq(named.get({ id: 1 }, { rowMode: 'array' }), ['a'], 'named object, then options');
      const spin = 'WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c) SELECT count(*) FROM c';
      eq(d2.timeoutMs, 0, 'no limit by default');
      let e = await rejects(() => d2.query(spin, [], { timeoutMs: 30 }), SQLITE_INTERRUPT, 'query with timeoutMs for one call');
      ok(/timeoutMs 30/.test(e.message), e.message);
      eq(e.codeName, 'SQLITE_INTERRUPT', 'codeName');
      await rejects(() => d2.exec(spin, null, { timeoutMs: 30 }), SQLITE_INTERRUPT, 'exec with timeoutMs');
      await rejects(() => d2.prepare(spin).get(undefined, { timeoutMs: 30 }), SQLITE_INTERRUPT, 'stmt.get with timeoutMs');
      e = null;
      try { for (const r of d2.iterate(spin, [], { timeoutMs: 30 })) void r; } catch (err) { e = err; }
      ok(e && e.code === SQLITE_INTERRUPT, 'iterate with timeoutMs');
      d2.timeoutMs = 20;
      eq(d2.query('SELECT 1 AS x', [], { timeoutMs: 0 }), [{ x: 1 }], 'timeoutMs 0 for one call');
      await rejects(() => d2.query(spin), SQLITE_INTERRUPT, 'db.timeoutMs');
      d2.timeoutMs = 0;
      e = await rejects(() => d2.run('INSERT INTO h(id) VALUES (1)'), SQLITE_CONSTRAINT_PRIMARYKEY, 'a constraint');
      eq([e.codeName, e.primaryCode, e.code], ['SQLITE_CONSTRAINT_PRIMARYKEY', SQLITE_CONSTRAINT, 1555], 'codeName of an extended code');
      for (const [what, call] of [['query', () => d2.query('SELECT 1', [], { timeout: 5 })], ['run', () => d2.run('SELECT 1', [], { rowMode: 'array' })],
        ['stmt.all', () => d2.prepare('SELECT 1').all([], { timout: 1 })], ['timeoutMs -1', () => d2.query('SELECT 1', [], { timeoutMs: -1 })],
        ['db.timeoutMs = "5"', () => { d2.timeoutMs = '5'; }]]) {
        let te = null;
        try { call(); } catch (err) { te = err; }
        ok(te instanceof TypeError, `${what}: a TypeError (${te && te.name}: ${te && te.message})`);
      }
      eq(d2.timeoutMs, 0, 'a refused value leaves the limit as it was');
    } finally { d2.close(); }
  },
};
