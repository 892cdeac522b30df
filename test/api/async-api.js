// SQL through the main-thread API, in every browser engine (in the page;
// test/browser/run.mjs) and in Node (./node.mjs).  Each test throws on
// failure; run() returns [{ name, ok, error }], the sync API's tests
// (./sync-api.js) included.
import { open } from '../../dist/index.js';
import {
  SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_RANGE, SQLITE_MISUSE, SQLITE_CANTOPEN, SQLITE_CONSTRAINT, SQLITE_CONSTRAINT_UNIQUE,
} from '../../dist/constants.js';
import { eq, ok, rejects, sameBytes, readAll, runTests } from './assert.js';
import { tests as syncTests } from './sync-api.js';

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
  const inPage = typeof window === 'object' && typeof Worker === 'function';
  out.push(...(inPage ? await syncTestsInWorker(storages, ctx) : await runTests(syncTests, storages, ctx, ' [sync]')));
  return out;
}
