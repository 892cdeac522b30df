// Unit tests of the JS engine, the VFS bridge and the storage backends that
// need no browser (make test-node-unit: node --test test/node/*.test.mjs).
// They drive the built package (dist/) through its API and the exported
// classes; the OPFS pool runs over fake access handles.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { open } from '../../dist/index.js';
import { open as openSync } from '../../dist/worker.js';
import { createEngine } from '../../dist/engine.js';
import { MemoryBackend } from '../../dist/memory-backend.js';
import { OpfsPool } from '../../dist/opfs-pool.js';
import * as C from '../../dist/constants.js';
import { fakeHandle } from '../conformance/regressions.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NEW_DB = C.SQLITE_OPEN_READWRITE | C.SQLITE_OPEN_CREATE | C.SQLITE_OPEN_MAIN_DB;

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

describe('the bridge and the C result codes', () => {
  let eng;
  before(async () => { eng = await createEngine(new MemoryBackend()); });
  const codeAt = (i) => eng.M._tc_codes(i);

  test('the C enum and the JS names and values agree', () => {
    assert.equal(eng.bridge.RESULT_NAMES.length, eng.M._tc_code_count());
    eng.bridge.init(C, eng.M._tc_code_count(), codeAt);
  });

  test('a result-code mismatch is caught at start-up', () => {
    const e = thrown(() => eng.bridge.init({ ...C, SQLITE_NOMEM: 999 }, eng.M._tc_code_count(), codeAt));
    assert.match(e.message, /SQLITE_NOMEM differs/);
  });
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

// ---- the OPFS pool over fake access handles: a directory whose new files
// get the handles makeAh() returns.
function fakeDir(makeAh) {
  return { getFileHandle: async () => ({ createSyncAccessHandle: async () => makeAh() }) };
}

// A pool of one free file over ah.
async function onePool(name, ah) {
  const pool = new OpfsPool(name, fakeDir(() => ah), 1);
  await pool.reserve(1);
  return pool;
}

describe('the OPFS pool', () => {
  test('out of files after a quota error: SQLITE_FULL with the cause', async () => {
    const quota = new DOMException('quota test', 'QuotaExceededError');
    const pool = new OpfsPool('q', { getFileHandle: async () => { throw quota; } }, 1);
    await pool.reserve().catch(() => {});
    const e = thrown(() => pool.xOpen(null, C.SQLITE_OPEN_TEMP_DB));
    assert.equal(e.sqliteCode, C.SQLITE_FULL);
    assert.match(e.message, /QuotaExceededError: quota test/);
    assert.equal(e.cause, quota);
  });

  test("a too-long name leaves the pool's free files alone", async () => {
    const pool = await onePool('l', fakeHandle());
    const e = thrown(() => pool.xOpen('/' + 'x'.repeat(5000), NEW_DB));
    assert.equal(e.sqliteCode, C.SQLITE_CANTOPEN);
    assert.match(e.message, /too long/);
    assert.deepEqual(pool.list().map((f) => f.path), [null]);
    assert.equal(pool.xOpen('/ok.db', NEW_DB).name, '/ok.db', 'the one free file is still free');
  });

  test('a stale handle gets SQLITE_IOERR and writes nothing', async () => {
    // Its file was deleted while open: the pool file may hold another by now.
    const ah = fakeHandle();
    const pool = await onePool('s', ah);
    const stale = pool.xOpen('/a.db', NEW_DB);
    pool.xDelete('/a.db');
    pool.xOpen('/b.db', NEW_DB);
    const writes = ah.writes;
    const codes = [() => pool.xWrite(stale, new Uint8Array(4), 0), () => pool.xRead(stale, new Uint8Array(4), 0), () => pool.xTruncate(stale, 0)]
      .map((op) => thrown(op).sqliteCode);
    assert.deepEqual(codes, [C.SQLITE_IOERR, C.SQLITE_IOERR, C.SQLITE_IOERR]);
    assert.equal(ah.writes, writes);
  });

  test('a short write (Firefox over its quota) is SQLITE_FULL', async () => {
    const ah = fakeHandle();
    const write = ah.write;
    ah.write = (b, o) => (o.at === 0 ? write(b, o) : 0);   // headers only
    const pool = await onePool('f', ah);
    const h = pool.xOpen('/full.db', NEW_DB);
    const e = thrown(() => pool.xWrite(h, new Uint8Array(4096), 0));
    assert.equal(e.sqliteCode, C.SQLITE_FULL);
    assert.match(e.message, /short write/);
  });
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

test('the dispatcher refuses every call after close with the engine\'s error', async () => {
  // index.js's Database refuses these itself; the Worker's dispatcher must
  // too (it keeps the closed database, whose engine says why).
  const { createDispatcher } = await import('../../dist/methods.js');
  const d = createDispatcher();
  await d.call('open', 'closed.db', { storage: 'memory' });
  await d.call('exec', 'CREATE TABLE t(x)');
  await d.call('close');
  for (const [method, ...args] of [['query', 'SELECT 1'], ['stats', false], ['heapSize'], ['export']]) {
    await assert.rejects(d.call(method, ...args), (e) => e.code === C.SQLITE_MISUSE && e.message === 'database is closed', method);
  }
  await d.call('close');   // twice is fine
});

test('after an open whose setup module failed, calls get "database is closed" (was a TypeError)', async () => {
  const { createDispatcher } = await import('../../dist/methods.js');
  const d = createDispatcher();
  const setup = 'data:text/javascript,export default 1';
  await assert.rejects(d.call('open', 'setup-failed.db', { storage: 'memory', setup }), /has no default export function/);
  await assert.rejects(d.call('query', 'SELECT 1'), (e) => e.code === C.SQLITE_MISUSE && e.message === 'database is closed');
});
