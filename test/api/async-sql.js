// SQL through the main-thread API: values, parameters, errors, statements,
// batches, row modes, strings, iteration, the options of each call, set-up
// and time limits, extensions.
// Part of the API tests (./async-api.js runs them); each throws on failure.
import { open, SQLITE_BUSY as EXPORTED_BUSY, RESULT_CODE_NAMES } from '../../dist/index.js';
import { SQLITE_RANGE, SQLITE_MISUSE, SQLITE_CONSTRAINT, SQLITE_CONSTRAINT_UNIQUE, SQLITE_INTERRUPT, SQLITE_BUSY, SQLITE_CONSTRAINT_PRIMARYKEY } from '../../dist/shared/constants.js';
import { eq, ok, rejects } from './assert.js';
import { rng, randomString, wellFormed, hexUtf8, sqlLiteral, showString } from './strings.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

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
      ok(s.nSpilled > 100000 && s.nPhysicalWrite >= s.nSpilled && s.nEnciphered >= s.nSpilled,
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
