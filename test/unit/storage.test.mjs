// Unit tests of the storage layer in Node (make test-node-unit): the OPFS
// pool over fake access handles (its file format, its error paths, its own
// top-up), the path limit it shares with the VFS, and the registry of
// storage kinds.  The contract every backend keeps is checked by the
// conformance suite (test/conformance/contract.js).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { OpfsPool, accessHandles, PATH_ROOM } from '../../dist/storage/opfs-pool.js';
import { MemoryBackend } from '../../dist/storage/memory-backend.js';
import { createEngine } from '../../dist/engine/engine.js';
import { BACKENDS, resolveStorage, DEFAULT_STORAGE } from '../../dist/storage/storage.js';
import * as C from '../../dist/shared/constants.js';
import { fakeHandle, fakeDir } from '../conformance/fakes.js';

const NEW_DB = C.SQLITE_OPEN_READWRITE | C.SQLITE_OPEN_CREATE | C.SQLITE_OPEN_MAIN_DB;

// An error thrown by fn (fails when fn does not throw).
function thrown(fn) {
  try { fn(); } catch (e) { return e; }
  assert.fail('expected an exception');
}

// A pool of n free files over fake handles (all ah, when given).
async function fakePool(name, n, ah) {
  const pool = new OpfsPool(name, fakeDir(ah ? () => ah : undefined), n);
  await pool.reserve();
  return pool;
}

// The pool's on-disk header is a file format: databases written by earlier
// versions must still be found.  These bytes are written out by hand, not
// from js/shared/constants.js, so a changed layout fails here (the checksum was
// computed apart, with a separate FNV-1a).
test('OPFS pool: the header bytes of a named file are the pinned format', async () => {
  const handles = [];
  const pool = new OpfsPool('format', fakeDir(() => { const h = fakeHandle(); handles.push(h); return h; }), 2);
  await pool.reserve();
  const h = pool.xOpen('/a.db', NEW_DB);
  const written = handles.find((x) => x.bytes.length >= 4096 && x.bytes[0] !== 0);
  const expect = Uint8Array.from([
    0x54, 0x43, 0x50, 0x31,   // magic 'TCP1' (0x31504354, little-endian)
    0x06, 0x01, 0x00, 0x00,   // open flags READWRITE|CREATE|MAIN_DB = 0x106
    0x05, 0x00, 0x00, 0x00,   // path length 5
    0x31, 0x06, 0xd7, 0xa9,   // 32-bit FNV-1a of bytes 0..20 with this field zero (0xa9d70631)
    0x2f, 0x61, 0x2e, 0x64, 0x62,   // "/a.db"
  ]);
  assert.ok(written, 'no header written');
  assert.deepEqual([...written.bytes.subarray(0, expect.length)], [...expect]);
  assert.ok(written.bytes.subarray(expect.length, 4096).every((b) => b === 0), 'the rest of the header is zero');
  pool.xClose(h);
  pool.close();
});

// A tab that went away may hold its access handles a moment after its Web
// Lock is gone (Firefox): the open retries locked files until its deadline.
test('OPFS pool: locked files are tried again until the deadline, and nothing is left open', async () => {
  const locked = () => Object.assign(new Error('No modification allowed'), { name: 'NoModificationAllowedError' });
  const opened = [];
  const dirLockedFor = (n) => ({
    async *entries() {
      for (const f of ['a', 'b']) {
        yield [f, { kind: 'file', createSyncAccessHandle: async () => {
          if (f === 'b' && n-- > 0) throw locked();
          const h = fakeHandle(); opened.push(h); return h;
        } }];
      }
    },
  });
  const got = await accessHandles(dirLockedFor(2), Date.now() + 5000, 1);
  assert.deepEqual(got.map(([f]) => f), ['a', 'b']);
  assert.equal(opened.filter((h) => h.closed).length, 2, "the two tries' handles of 'a' are closed");
  opened.length = 0;
  await assert.rejects(accessHandles(dirLockedFor(Infinity), Date.now(), 1), (e) => e.name === 'NoModificationAllowedError');
  assert.ok(opened.every((h) => h.closed), 'a failed open leaves no handle open');
  await assert.rejects(accessHandles({ async *entries() { yield ['x', { kind: 'file', createSyncAccessHandle: async () => { throw new TypeError('other'); } }]; } }, Date.now() + 5000, 1), TypeError);
});

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
    const pool = await fakePool('l', 1);
    const e = thrown(() => pool.xOpen('/' + 'x'.repeat(5000), NEW_DB));
    assert.equal(e.sqliteCode, C.SQLITE_CANTOPEN);
    assert.match(e.message, /too long/);
    assert.deepEqual(pool.list().map((f) => f.path), [null]);
    assert.equal(pool.xOpen('/ok.db', NEW_DB).name, '/ok.db', 'the one free file is still free');
  });

  test('a stale handle gets SQLITE_IOERR and writes nothing', async () => {
    // Its file was deleted while open: the pool file may hold another by now.
    const ah = fakeHandle();
    const pool = await fakePool('s', 1, ah);
    const stale = pool.xOpen('/a.db', NEW_DB);
    pool.xDelete('/a.db');
    pool.xOpen('/b.db', NEW_DB);
    const writes = ah.writes;
    const codes = [() => pool.xWrite(stale, new Uint8Array(4), 0), () => pool.xRead(stale, new Uint8Array(4), 0), () => pool.xTruncate(stale, 0)]
      .map((op) => thrown(op).sqliteCode);
    assert.deepEqual(codes, [C.SQLITE_IOERR, C.SQLITE_IOERR, C.SQLITE_IOERR]);
    assert.equal(ah.writes, writes);
  });

  test('a header write that fails leaves the file free for the next open', async () => {
    const ah = fakeHandle();
    const write = ah.write;
    let fail = false;
    ah.write = (b, o) => {
      if (fail) { fail = false; throw new DOMException('quota test', 'QuotaExceededError'); }
      return write(b, o);
    };
    const pool = await fakePool('h', 1, ah);
    fail = true;
    thrown(() => pool.xOpen('/a.db', NEW_DB));
    assert.equal(pool.free.length, 1, 'the file is free again');
    assert.equal(pool.xOpen('/b.db', NEW_DB).name, '/b.db', 'and the next open gets it');
    await pool.close();
  });

  test('a short write (Firefox over its quota) is SQLITE_FULL', async () => {
    const ah = fakeHandle();
    const write = ah.write;
    ah.write = (b, o) => (o.at === 0 ? write(b, o) : 0);   // headers only
    const pool = await fakePool('f', 1, ah);
    const h = pool.xOpen('/full.db', NEW_DB);
    const e = thrown(() => pool.xWrite(h, new Uint8Array(4096), 0));
    assert.equal(e.sqliteCode, C.SQLITE_FULL);
    assert.match(e.message, /short write/);
  });

  // The top-up is the pool's own business: after an open took free files
  // it grows back to minFree once the synchronous call returned, and
  // settled() says when that is done.
  test('tops itself up after an open took free files, once the synchronous call returned', async () => {
    const pool = await fakePool('t', 3);
    const taken = [pool.xOpen(null, C.SQLITE_OPEN_TEMP_DB), pool.xOpen(null, C.SQLITE_OPEN_TEMP_DB)];
    assert.equal(pool.free.length, 1, 'nothing grows during the call');
    await pool.settled();
    assert.equal(pool.free.length, 3, 'back to minFree');
    taken.forEach((h) => pool.xClose(h));
    assert.equal(pool.free.length, 5);
    await pool.close();
  });

  // Regression: open() reserves while the top-up after its first file is
  // under way; the two grew at once and made more files than asked for
  // (and one still half made when the pool closed, a file of 0 bytes).
  test('reserve() calls run one after the other: no more files than asked for', async () => {
    const pool = await fakePool('r', 3);
    pool.xOpen(null, C.SQLITE_OPEN_TEMP_DB);
    await Promise.all([pool.reserve(), pool.reserve(2)]);
    await pool.settled();
    assert.equal(pool.free.length, 3);
    await pool.close();
  });
});

// The VFS's longest path (mxPathname in storage_vfs.c), measured through
// SQLite, plus the longest suffix SQLite adds (a super-journal's
// "-mjXXXXXX9XX"), must fit a pool file's header: a database with such a
// name and its journal work in the pool.
test('the longest name SQLite accepts, with a journal, fits the OPFS pool', async () => {
  const engine = await createEngine(new MemoryBackend());
  const opens = (n) => { try { engine.open('/' + 'x'.repeat(n - 1)).close(); return true; } catch { return false; } };
  let lo = 1, hi = 1 << 16;   // opens(lo), !opens(hi)
  assert.ok(opens(lo) && !opens(hi));
  while (hi - lo > 1) { const mid = (lo + hi) >> 1; if (opens(mid)) lo = mid; else hi = mid; }
  assert.ok(lo + '-mjXXXXXX9XX'.length <= PATH_ROOM, `longest path ${lo} + suffix > ${PATH_ROOM}`);
  const pooled = await createEngine(await fakePool('long', 4));
  const db = pooled.open('/' + 'y'.repeat(lo - 1));
  db.exec('PRAGMA journal_mode=DELETE; BEGIN; CREATE TABLE t(x); INSERT INTO t VALUES (1); COMMIT');
  assert.deepEqual(db.query('SELECT x FROM t'), [{ x: 1 }]);
  db.close();
});

describe('the registry of storage kinds (js/storage/backends.js)', () => {
  test('each kind is registered under its own name and has the StorageKind shape', () => {
    for (const k of ['file', 'memory', 'opfs']) assert.ok(k in BACKENDS, k);
    for (const [name, kind] of Object.entries(BACKENDS)) {
      assert.equal(kind.name, name);
      assert.equal(typeof kind.persistent, 'boolean', name);
      assert.ok(Array.isArray(kind.options), name);
      for (const f of ['unavailable', 'open', 'scratch']) assert.equal(typeof kind[f], 'function', `${name}.${f}`);
    }
  });

  test("the default is 'file' in Node ('memory' for ':memory:'), 'auto' falls back to memory, and an unknown name lists every kind", async () => {
    assert.equal(DEFAULT_STORAGE, 'file');
    assert.equal(await resolveStorage(undefined, 'app.db'), 'file');
    assert.equal(await resolveStorage(undefined, ':memory:'), 'memory');
    assert.equal(await resolveStorage('file', ':memory:'), 'file');
    assert.equal(await resolveStorage('auto'), 'memory');
    assert.equal(await resolveStorage('file'), 'file');
    await assert.rejects(resolveStorage('disk'), (e) => e instanceof TypeError && Object.keys(BACKENDS).every((k) => e.message.includes(`'${k}'`)));
    await assert.rejects(resolveStorage('opfs'), (e) => e.code === C.SQLITE_CANTOPEN && /no OPFS in Node/.test(e.message));
  });
});
