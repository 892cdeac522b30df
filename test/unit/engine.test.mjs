// Unit tests of the engine (the wasm bindings, values, the VFS bridge) in
// Node (make test-node-unit: node --test test/unit/*.test.mjs).  They drive
// the built package (dist/) through its API and the exported classes.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { open } from '../../dist/index.js';
import { open as openSync } from '../../dist/worker.js';
import { createEngine } from '../../dist/engine/engine.js';
import { MemoryBackend } from '../../dist/storage/memory-backend.js';
import { ImportStaging, importFrom } from '../../dist/engine/transfer.js';
import * as C from '../../dist/shared/constants.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// An error thrown by fn (fails when fn does not throw).
function thrown(fn) {
  try { fn(); } catch (e) { return e; }
  assert.fail('expected an exception');
}

describe('the async API in Node (memory storage)', () => {
  let db;
  before(async () => { db = await open('node.db', { storage: 'memory' }); });
  after(() => db.close());

  test('opens in memory storage', () => {
    assert.equal(db.storage, 'memory');
  });

  test('query returns integers past 2^53 as BigInt', async () => {
    await db.exec('CREATE TABLE t(x); INSERT INTO t VALUES (1), (9223372036854775807)');
    const rows = await db.query('SELECT x FROM t ORDER BY x');
    assert.deepEqual(rows, [{ x: 1 }, { x: 9223372036854775807n }]);
  });

  test('temp files are encrypted in memory storage', async () => {
    await db.exec('PRAGMA temp_store=FILE; PRAGMA temp.cache_size=4; CREATE TEMP TABLE y AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<3000) SELECT n, randomblob(100) FROM c');
    const s = await db.tempcrypt.stats();
    assert.ok(s.nFileEncrypted >= 1, `nFileEncrypted=${s.nFileEncrypted}`);
  });

  test('an error carries the SQLite code and message', async () => {
    await assert.rejects(db.run('INSERT INTO nope VALUES (1)'), (e) => e.code === C.SQLITE_ERROR && /no such table/.test(e.message));
  });
});

test("storage 'opfs' is rejected in Node with a clear message", async () => {
  await assert.rejects(open('x.db', { storage: 'opfs' }), /OPFS/);
});

// A memory backend whose methods throw what fail(method, h) returns (or
// nothing, when it returns null).
function failing(fail) {
  const b = new MemoryBackend();
  for (const m of ['xOpen', 'xClose', 'xRead', 'xWrite', 'xTruncate', 'xSync', 'xSize', 'xDelete', 'xAccess']) {
    const orig = b[m].bind(b);
    b[m] = (...a) => { const e = fail.on && fail(m, a[0]); if (e) throw e; return orig(...a); };
  }
  return b;
}

describe('the bridge: a storage failure becomes an SQLite code and the cause of the error', () => {
  test("each kind of exception gets its code, and the API call's error keeps it as the cause", async () => {
    const cases = [
      ['a code it carries', Object.assign(new Error('no room'), { sqliteCode: C.SQLITE_FULL }), C.SQLITE_FULL],
      ['a quota error', new DOMException('quota test', 'QuotaExceededError'), C.SQLITE_FULL],
      ['anything else: the I/O error of the method', new TypeError('disk on fire'), C.SQLITE_IOERR_WRITE],
    ];
    for (const [what, thrownError, code] of cases) {
      const fail = (m, h) => (m === 'xWrite' && h && h.name === '/f.db' ? thrownError : null);
      const eng = await createEngine(failing(fail));
      const db = eng.open('f.db');
      db.exec('PRAGMA journal_mode=OFF; CREATE TABLE t(x)');
      fail.on = true;
      const e = thrown(() => db.run('INSERT INTO t VALUES (randomblob(100000))'));
      fail.on = false;
      assert.equal(e.code, code, what);
      assert.equal(e.cause, thrownError, `${what}: the cause`);
      assert.match(e.message, new RegExp(`\\(storage: .*${thrownError.message}\\)$`), what);
      db.close();
    }
  });

  test('a failure SQLite got over is not the cause of a later, unrelated error', async () => {
    // A temp file whose close fails: SQLite ignores it; the next error is a
    // syntax error, not an I/O error.
    let failed = 0;
    const fail = (m, h) => (m === 'xClose' && h.temp ? (failed++, new Error('close failed')) : null);
    const eng = await createEngine(failing(fail));
    eng.tempcrypt.budget(0);   // temp files in the storage, not in the memory tier
    const db = eng.open('g.db');
    fail.on = true;
    db.exec(`PRAGMA temp_store=FILE; PRAGMA temp.cache_size=2;
      CREATE TEMP TABLE t AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<2000) SELECT n, randomblob(200) FROM c`);
    db.close();
    assert.ok(failed > 0, 'a temp file failed to close');
    const d2 = eng.open('g2.db');
    const e = thrown(() => d2.exec('SELEC 1'));
    fail.on = false;
    assert.equal(e.code, C.SQLITE_ERROR);
    assert.equal(e.cause, undefined);
    assert.doesNotMatch(e.message, /storage/);
    d2.close();
  });
});

// A sort that spills: about 12 MiB of keys past a 1 MiB sorter run (main's
// cache; the memory tier off, so the runs are SQLite's own), so several runs
// are written and merged back from one temp file.
// Its result, the same for every build and budget.
const expectedSort = 399827473948;
const SPILLING_SORT = {
  setup: `PRAGMA cache_size=-1000; CREATE TABLE s(k, v);
    INSERT INTO s WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 40000)
      SELECT (i * 2654435761) % 1000003, printf('%.300d', i) FROM c`,
  sql: 'SELECT sum(rn * (k % 1000)) AS h FROM (SELECT k, row_number() OVER (ORDER BY k, v) AS rn FROM s)',
};

describe('temp files in the storage: write-behind and read-ahead (wasm/browser/storage_buf.c)', () => {
  const expected = expectedSort;
  // An engine over `backend` with the memory tier off: every temp byte
  // goes to the storage.
  async function sorter(backend, name) {
    const eng = await createEngine(backend, { tempBudget: 0 });
    const db = eng.open(name);
    db.exec(SPILLING_SORT.setup);
    return db;
  }

  test('a spilling sort reaches the storage in few, large calls', async () => {
    const calls = { write: 0, read: 0, wbytes: 0, rbytes: 0 };
    class Counting extends MemoryBackend {
      xWrite(h, buf, off) { if (h.temp) { calls.write++; calls.wbytes += buf.length; } return super.xWrite(h, buf, off); }
      xRead(h, buf, off) { if (h.temp) { calls.read++; calls.rbytes += buf.length; } return super.xRead(h, buf, off); }
    }
    const db = await sorter(new Counting(), 'calls.db');
    assert.equal(db.query(SPILLING_SORT.sql)[0].h, expectedSort);
    db.close();
    const kib = (b, n) => Math.round(b / Math.max(n, 1) / 1024);
    const what = `${calls.write} writes of ${kib(calls.wbytes, calls.write)} KiB, ${calls.read} reads of ${kib(calls.rbytes, calls.read)} KiB on average`;
    assert.ok(calls.wbytes > 8 << 20, `the sort spilled: ${what}`);
    // One block (a page) per call would be 8 KiB.
    assert.ok(calls.wbytes / calls.write >= 256 << 10, what);
    assert.ok(calls.rbytes / calls.read >= 64 << 10, what);
  });

  // Every temp-file call of the sort failing once, at each position: the
  // query gives the right result or an SqliteError whose cause is the
  // storage failure (a write the buffer had reported done included);
  // afterwards the connection sorts right again and the database is intact.
  for (const method of ['xWrite', 'xRead']) {
    test(`a temp-file ${method} failing at each position fails the query, never its result`, async () => {
      let n = 0, at = 0, fired = 0, failedQueries = 0;
      const injected = new Error(`injected ${method} failure`);
      const fail = (m, h) => (m === method && h && h.temp && ++n === at ? (fired++, injected) : null);
      const db = await sorter(failing(fail), `fail-${method}.db`);
      fail.on = true;
      at = 0; n = 0;
      assert.equal(db.query(SPILLING_SORT.sql)[0].h, expected);
      const positions = n;
      // Few calls, each a buffer's worth (a position per block would be thousands).
      assert.ok(positions >= 4 && positions <= 300, `${positions} temp-file ${method} calls`);
      for (at = 1; at <= positions; at++) {
        n = 0;
        let r;
        try { r = db.query(SPILLING_SORT.sql)[0].h; } catch (e) {
          failedQueries++;
          assert.ok(e.name === 'SqliteError' && (e.code & 0xff) === C.SQLITE_IOERR, `${method} at ${at}: ${e.name} ${e.code} ${e.message}`);
          assert.equal(e.cause, injected, `${method} at ${at}: the cause`);
        }
        if (r !== undefined) assert.equal(r, expected, `${method} at ${at}: a result, and the wrong one`);
        n = -1e9;
        assert.equal(db.query(SPILLING_SORT.sql)[0].h, expected, `${method} at ${at}: the next sort`);
      }
      assert.ok(fired === positions && failedQueries > 0, `${fired} fired, ${failedQueries} queries failed`);
      assert.deepEqual(db.query('PRAGMA integrity_check'), [{ integrity_check: 'ok' }]);
      db.close();
    });
  }
});

test('a commit syncs the journal before writing the database', async () => {
  // The VFS claims no SEQUENTIAL/SAFE_APPEND.
  const events = [];
  class SyncSpy extends MemoryBackend {
    xSync(h) { events.push(`sync ${h.name}`); }
    xWrite(h, buf, off) { events.push(`write ${h.name}`); return super.xWrite(h, buf, off); }
  }
  const eng = await createEngine(new SyncSpy());
  const db = eng.open('sync.db');
  db.exec('PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL; CREATE TABLE t(x); INSERT INTO t VALUES (1)');
  events.length = 0;
  db.exec('UPDATE t SET x = 2');
  db.close();
  const jSync = events.indexOf('sync /sync.db-journal');
  assert.ok(jSync >= 0 && events.indexOf('write /sync.db') > jSync, events.join(', '));
});

test('a short read survives an observer that grows memory', async () => {
  // The observer grows wasm memory, which detaches the read buffer's view;
  // the tail must still be zero-filled and the read reported short.
  const backend = new MemoryBackend();
  const eng = await createEngine(backend);
  const db = eng.open('short.db');
  db.exec('PRAGMA page_size=4096; CREATE TABLE t(x); INSERT INTO t VALUES (1)');
  db.close();
  const h = backend.xOpen('/short.db', C.SQLITE_OPEN_READWRITE | C.SQLITE_OPEN_MAIN_DB);
  backend.xTruncate(h, 4096 + 100);
  backend.xClose(h);
  let shortReads = 0;
  eng.setObserver((ev) => {
    if (ev.op === 'read' && ev.got < ev.length) { shortReads++; const p = eng.M._malloc(eng.M.HEAPU8.length); eng.M._free(p); }
  });
  const d = eng.open('short.db');
  const n = d.query('SELECT count(*) AS n FROM t')[0].n;
  d.close();
  assert.ok(shortReads >= 1, `${shortReads} short reads`);
  assert.equal(n, 1);
});

test('a failed malloc in the engine is SQLITE_NOMEM', async () => {
  const eng = await createEngine(new MemoryBackend());
  const db = eng.open('nomem.db');
  const realMalloc = eng.M._malloc;
  eng.M._malloc = () => 0;
  const codes = [];
  for (const op of [() => eng.tempcrypt.stats(), () => db.run('SELECT ?', [new Uint8Array(8)]), () => db.export()]) {
    try { op(); codes.push('ok'); } catch (e) { codes.push(e.code); }
  }
  eng.M._malloc = realMalloc;
  db.close();
  assert.deepEqual(codes, [C.SQLITE_NOMEM, C.SQLITE_NOMEM, C.SQLITE_NOMEM]);
});

test('two file-storage databases in one directory keep their temp files apart', async () => {
  // Regression: both backends named their first temp file "...-<pid>-1"
  // and truncated each other's (SQLITE_CORRUPT).
  const dir = path.join(ROOT, 'build', 'node-unit', 'two-dbs');
  fs.rmSync(dir, { recursive: true, force: true });
  const dbs = [await openSync('a.db', { storage: 'file', dir }), await openSync('b.db', { storage: 'file', dir })];
  try {
    for (const db of dbs) db.exec('PRAGMA temp_store=FILE; PRAGMA temp.cache_size=2; CREATE TEMP TABLE t(x)');
    for (let i = 0; i < 200; i++) dbs.forEach((db, k) => db.run('INSERT INTO temp.t VALUES (?)', ['ab'[k].repeat(500) + i]));
    dbs.forEach((db, k) => {
      assert.deepEqual(db.query(`SELECT count(*) AS n, sum(substr(x, 1, 1) = '${'ab'[k]}') AS own FROM temp.t`), [{ n: 200, own: 200 }]);
    });
  } finally {
    for (const db of dbs) await db.close();
  }
});

// An import writes its staging file straight to the backend (not through
// SQLite): a failure there is an SqliteError with the backend's exception
// as the cause, as every other storage failure (it was the bare exception).
test("a failure writing an import's staging file is an SqliteError with the cause", async () => {
  const quota = new DOMException('quota test', 'QuotaExceededError');
  const fail = (m, h) => (m === 'xWrite' && h && /tcimport/.test(h.name) ? quota : null);
  const backend = failing(fail);
  const eng = await createEngine(backend);
  const db = eng.open('imp.db');
  db.exec('CREATE TABLE t(x); INSERT INTO t VALUES (1)');
  const image = db.export();
  fail.on = true;
  const e = await importFrom(image, new ImportStaging(db)).then(() => null, (err) => err);
  fail.on = false;
  assert.ok(e && e.name === 'SqliteError', `${e && e.name}: ${e && e.message}`);
  assert.equal(e.code, C.SQLITE_FULL);
  assert.equal(e.cause, quota);
  assert.deepEqual(db.query('SELECT x FROM t'), [{ x: 1 }], 'the database is as it was');
  assert.ok(!backend.xAccess('/imp.db-tcimport'), 'no staging file left');
  db.close();
});

// Regression: a NUL in SQL text made the prepare loop spin for ever (its
// position did not move past the NUL; timeoutMs did not stop it, and in
// Node the event loop was blocked).  Run in a child process with a time
// limit, so that the old behaviour fails here instead of hanging the run.
test('a NUL in SQL text is SQLITE_MISUSE at once, in every call that takes SQL', () => {
  const worker = pathToFileURL(path.join(ROOT, 'dist/worker.js')).href;
  const script = `
    import { open } from ${JSON.stringify(worker)};
    const db = await open('nul.db', { storage: 'memory', timeoutMs: 500 });
    const calls = [() => db.exec('SELECT 1;\\0 SELECT 2'), () => db.exec('SELECT 1;\\0'), () => db.query('SELECT 1\\0'),
      () => db.run('SELECT 1\\0'), () => db.prepare('SELECT\\0 1'), () => [...db.iterate('SELECT 1\\0')],
      () => db.batch(['SELECT 1\\0'])];
    for (const call of calls) { try { call(); console.log('no error'); } catch (e) { console.log(e.code); } }`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30000 });
  assert.equal(r.signal, null, `the child was stopped after 30 s (a call spun): ${r.stdout}`);
  assert.equal(r.stderr, '');
  assert.deepEqual(r.stdout.trim().split('\n'), Array(7).fill(String(C.SQLITE_MISUSE)));
});

// The memory tier from JS: the budget at open() (tempBudget) and at run
// time (tempcrypt.budget), per database, and what the statistics say.
describe('the memory tier: tempBudget, tempcrypt.budget(), its statistics', () => {
  const DEFAULT = 64 * 1024 * 1024;   // SQLITE_TEMPCRYPT_DEFAULT_BUDGET
  // A temp table of about 1.2 MB through a 4-page cache: it leaves SQLite's
  // cache for its temp file.
  const TEMP_TABLE = `PRAGMA temp_store=FILE; PRAGMA temp.cache_size=4;
    CREATE TEMP TABLE y AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<3000) SELECT n, randomblob(400) AS b FROM c`;
  // Temp files the storage saw opened while fn ran.
  function storageTempOpens(db, fn) {
    let n = 0;
    db.observe((ev) => { if (ev.op === 'open' && ev.temp) n++; });
    try { fn(); } finally { db.observe(null); }
    return n;
  }

  test('the default budget is the C default; budget() reads it, budget(n) returns the previous one', async () => {
    const db = await openSync('tier-default.db', { storage: 'memory' });
    try {
      assert.equal(db.tempcrypt.budget(), DEFAULT);
      assert.equal(db.tempcrypt.budget(123456), DEFAULT);
      assert.equal(db.tempcrypt.budget(), 123456);
      assert.equal(db.tempcrypt.budget(0), 123456);
      assert.equal(db.tempcrypt.budget(), 0);
    } finally { await db.close(); }
  });

  test('default budget: the temp table stays in memory, nothing reaches the storage', async () => {
    const db = await openSync('tier-mem.db', { storage: 'memory' });
    try {
      db.tempcrypt.stats(true);
      const opens = storageTempOpens(db, () => db.exec(TEMP_TABLE));
      const s = db.tempcrypt.stats();
      assert.equal(opens, 0, 'temp files opened in the storage');
      assert.ok(s.nFileEncrypted >= 1 && s.nFileSpilled === 0 && s.nSpilled === 0, JSON.stringify(s));
      assert.ok(s.nMemBytes >= 1000000 && s.nMemPeak >= s.nMemBytes && s.nMemPeak <= DEFAULT, JSON.stringify(s));
      assert.equal(s.nPhysicalWrite, 0);
      db.exec('DROP TABLE temp.y');
      assert.deepEqual(db.query('SELECT count(*) AS n FROM sqlite_temp_master'), [{ n: 0 }]);
    } finally { await db.close(); }
  });

  test('tempBudget 0: every temp file in the storage, encrypted, nothing in memory', async () => {
    const db = await openSync('tier-zero.db', { storage: 'memory', tempBudget: 0 });
    try {
      assert.equal(db.tempcrypt.budget(), 0);
      db.tempcrypt.stats(true);
      const opens = storageTempOpens(db, () => db.exec(TEMP_TABLE));
      const s = db.tempcrypt.stats();
      assert.ok(opens >= 1, `temp files opened in the storage: ${opens}`);
      assert.ok(s.nMemPeak === 0 && s.nMemBytes === 0 && s.nSpilled >= 1000000, JSON.stringify(s));
      assert.ok(s.nPhysicalWrite >= s.nSpilled, 'every spilled byte went down');
    } finally { await db.close(); }
  });

  test("the sorter's runs are as large as the budget given at open (one run: no temp file)", async () => {
    // 4096-byte pages and a 1 MiB cache: SQLite's own runs are 1 MiB
    // (250 pages, at least the cache), so 12 MiB of keys make 12 runs.
    const written = async (tempBudget) => {
      const db = await openSync(`runs-${tempBudget}.db`, { storage: 'memory', tempBudget });
      try {
        db.exec(`PRAGMA page_size=4096; ${SPILLING_SORT.setup}`);
        db.tempcrypt.stats(true);
        assert.equal(db.query(SPILLING_SORT.sql)[0].h, expectedSort);
        return db.tempcrypt.stats().nLogicalWrite;
      } finally { await db.close(); }
    };
    const [tier0, tier32] = [await written(0), await written(32 << 20)];
    assert.ok(tier0 >= 10 << 20, `budget 0: ${tier0} bytes of runs`);
    assert.equal(tier32, 0, 'budget 32 MiB: the sort is one run, in memory');
  });

  test('a small budget: the temp file spills part-way, the memory tier stays within the budget', async () => {
    const budget = 256 * 1024;
    const db = await openSync('tier-small.db', { storage: 'memory', tempBudget: budget });
    try {
      db.tempcrypt.stats(true);
      const opens = storageTempOpens(db, () => db.exec(TEMP_TABLE));
      const s = db.tempcrypt.stats();
      assert.ok(opens >= 1 && s.nFileSpilled >= 1, `opens ${opens}, ${JSON.stringify(s)}`);
      assert.ok(s.nMemPeak > 0 && s.nMemPeak <= budget, `peak ${s.nMemPeak}`);
      assert.ok(s.nSpilled > 0 && s.nSpilled < s.nLogicalWrite, JSON.stringify(s));
      // The data is whole: every row, from memory and from storage.
      assert.deepEqual(db.query('SELECT count(*) AS n, sum(length(b)) AS b, sum(n) AS s FROM temp.y'), [{ n: 3000, b: 1200000, s: 4501500 }]);
    } finally { await db.close(); }
  });

  // A TEMP table dropped gives its blocks back: the TEMP database keeps no
  // freed pages (auto_vacuum), so they do not hold the budget for the
  // connection's lifetime and starve later temp files (a later sort used
  // to spill all of it).
  test('a dropped TEMP table gives the memory tier its budget back', async () => {
    const budget = 2 * 1024 * 1024;
    const db = await openSync('tier-drop.db', { storage: 'memory', tempBudget: budget });
    try {
      db.exec(`CREATE TABLE m(b BLOB); INSERT INTO m WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<3000) SELECT randomblob(400) FROM c`);
      db.exec(`PRAGMA temp_store=FILE; PRAGMA temp.cache_size=4; PRAGMA cache_size=4;
        CREATE TEMP TABLE y AS SELECT * FROM m; DROP TABLE y`);
      const after = db.tempcrypt.stats();
      assert.ok(after.nMemPeak >= 1000000, `the temp table was in the tier: ${after.nMemPeak}`);
      assert.ok(after.nMemBytes < 64 * 1024, `bytes still held after DROP TABLE: ${after.nMemBytes}`);
      db.exec('SELECT count(*) FROM (SELECT b FROM m ORDER BY b)');
      assert.equal(db.tempcrypt.stats().nSpilled - after.nSpilled, 0, 'a later sort of the same size spilled');
    } finally { await db.close(); }
  });

  test('the budget is per database (each has its own SQLite instance)', async () => {
    const a = await openSync('tier-a.db', { storage: 'memory', tempBudget: 4096 });
    const b = await openSync('tier-b.db', { storage: 'memory' });
    try {
      assert.equal(a.tempcrypt.budget(), 4096);
      assert.equal(b.tempcrypt.budget(), DEFAULT);
      b.tempcrypt.budget(8192);
      assert.equal(a.tempcrypt.budget(), 4096);
    } finally { await a.close(); await b.close(); }
  });

  test('the main-thread API: tempBudget at open(), tempcrypt.budget() across the call', async () => {
    const db = await open('tier-async.db', { storage: 'memory', tempBudget: 65536 });
    try {
      assert.equal(await db.tempcrypt.budget(), 65536);
      assert.equal(await db.tempcrypt.budget(1 << 20), 65536);
      assert.equal(await db.tempcrypt.budget(), 1 << 20);
      // (An error other than SqliteError crosses the Worker as an Error of the same name.)
      await assert.rejects(db.tempcrypt.budget(-1), (e) => e.name === 'TypeError' && /budget/.test(e.message));
      assert.equal(await db.tempcrypt.budget(), 1 << 20, 'a refused budget changes nothing');
      const s = await db.tempcrypt.stats();
      for (const k of ['nFileSpilled', 'nSpilled', 'nMemBytes', 'nMemPeak']) assert.equal(typeof s[k], 'number', k);
    } finally { await db.close(); }
  });

  test('a budget that is not a whole number of bytes >= 0 is a TypeError, at open() and later', async () => {
    for (const bad of [-1, 1.5, NaN, Infinity, '1024', 2 ** 60, null, 10n]) {
      await assert.rejects(openSync('tier-bad.db', { storage: 'memory', tempBudget: bad }), TypeError, String(bad));
      await assert.rejects(open('tier-bad.db', { storage: 'memory', tempBudget: bad }), (e) => e.name === 'TypeError', String(bad));
    }
    const db = await openSync('tier-bad.db', { storage: 'memory' });
    try {
      for (const bad of [-1, 0.5, '0', {}]) assert.throws(() => db.tempcrypt.budget(bad), TypeError, String(bad));
      assert.equal(db.tempcrypt.budget(), DEFAULT);
    } finally { await db.close(); }
  });
});
