// The storage backend contract (js/backend.d.ts), the same checks for every
// backend: memory, file (node:fs) and the OPFS pool over fake access
// handles (make test-node-unit).  The VFS bridge relies on what is checked
// here, e.g. each handle's name, flags and temp for the storage observer.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryBackend } from '../../dist/memory-backend.js';
import { FileBackend } from '../../dist/file-backend.js';
import { OpfsPool } from '../../dist/opfs-pool.js';
import {
  SQLITE_CANTOPEN, SQLITE_OPEN_READWRITE, SQLITE_OPEN_CREATE, SQLITE_OPEN_DELETEONCLOSE, SQLITE_OPEN_MAIN_DB,
  SQLITE_OPEN_MAIN_JOURNAL, SQLITE_OPEN_TEMP_JOURNAL,
} from '../../dist/constants.js';
import { fakeHandle } from '../conformance/regressions.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DB = SQLITE_OPEN_READWRITE | SQLITE_OPEN_MAIN_DB;
const NEW_DB = DB | SQLITE_OPEN_CREATE;
const TEMP = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_DELETEONCLOSE | SQLITE_OPEN_TEMP_JOURNAL;

const BACKENDS = {
  memory: async () => new MemoryBackend(),
  file: async () => {
    const dir = path.join(ROOT, 'build', 'node-unit', 'backend-contract');
    fs.rmSync(dir, { recursive: true, force: true });
    return FileBackend.create(dir);
  },
  opfs: async () => {
    const pool = new OpfsPool('contract', { getFileHandle: async () => ({ createSyncAccessHandle: async () => fakeHandle() }) }, 8);
    await pool.reserve();
    return pool;
  },
};

const bytes = (...v) => new Uint8Array(v);

for (const [kind, make] of Object.entries(BACKENDS)) {
  describe(`backend contract: ${kind}`, () => {
    let b;
    before(async () => { b = await make(); });
    after(() => b.close());

    test('kind names the backend', () => {
      assert.equal(b.kind, kind);
    });

    test('a missing file without SQLITE_OPEN_CREATE is SQLITE_CANTOPEN', () => {
      assert.equal(b.xAccess('/missing.db'), false);
      assert.throws(() => b.xOpen('/missing.db', DB), (e) => e.sqliteCode === SQLITE_CANTOPEN);
      assert.equal(b.xAccess('/missing.db'), false);
    });

    test("a named file's handle carries SQLite's name, this open's flags and temp false", () => {
      const h = b.xOpen('/named.db', NEW_DB);
      assert.deepEqual({ name: h.name, flags: h.flags, temp: h.temp }, { name: '/named.db', flags: NEW_DB, temp: false });
      assert.equal(b.xAccess('/named.db'), true);
      const again = b.xOpen('/named.db', DB);
      assert.equal(again.flags, DB, 'the flags of the second open');
      b.xClose(again);
      b.xClose(h);
    });

    test('reads give what was written; a read past the end returns fewer bytes', () => {
      const h = b.xOpen('/rw.db', NEW_DB);
      b.xWrite(h, bytes(1, 2, 3, 4), 0);
      b.xWrite(h, bytes(9, 9), 10);
      b.xSync(h, 0);
      assert.equal(b.xSize(h), 12);
      const buf = new Uint8Array(12);
      assert.equal(b.xRead(h, buf, 0), 12);
      assert.deepEqual([...buf], [1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 9, 9]);
      assert.equal(b.xRead(h, new Uint8Array(8), 8), 4, 'short read at the end');
      assert.equal(b.xRead(h, new Uint8Array(8), 100), 0, 'read past the end');
      b.xClose(h);
      const h2 = b.xOpen('/rw.db', DB);
      const buf2 = new Uint8Array(4);
      b.xRead(h2, buf2, 0);
      assert.deepEqual([...buf2], [1, 2, 3, 4], 'a later open sees the bytes');
      b.xClose(h2);
    });

    test('truncate shrinks the file', () => {
      const h = b.xOpen('/trunc.db', NEW_DB);
      b.xWrite(h, new Uint8Array(100).fill(7), 0);
      b.xTruncate(h, 10);
      assert.equal(b.xSize(h), 10);
      assert.equal(b.xRead(h, new Uint8Array(100), 0), 10);
      b.xClose(h);
    });

    test('xDelete removes a named file and says whether there was one', () => {
      const h = b.xOpen('/del.db-journal', SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_MAIN_JOURNAL);
      b.xWrite(h, bytes(1), 0);
      b.xClose(h);
      assert.equal(b.xDelete('/del.db-journal'), true);
      assert.equal(b.xAccess('/del.db-journal'), false);
      assert.equal(b.xDelete('/del.db-journal'), false);
    });

    test('a temp file gets a name of its own, temp true, and goes at close', () => {
      const t1 = b.xOpen(null, TEMP);
      const t2 = b.xOpen(null, TEMP);
      assert.equal(typeof t1.name, 'string');
      assert.notEqual(t1.name, t2.name);
      assert.deepEqual({ flags: t1.flags, temp: t1.temp }, { flags: TEMP, temp: true });
      b.xWrite(t1, new Uint8Array(64).fill(5), 0);
      assert.equal(b.xSize(t1), 64);
      b.xClose(t1);
      b.xClose(t2);
      const names = b.list().map((f) => f.path);
      assert.ok(!names.includes(t1.name) && !names.includes(t2.name), JSON.stringify(names));
    });

    test('a named file opened with SQLITE_OPEN_DELETEONCLOSE goes at close', () => {
      const h = b.xOpen('/doc.db', NEW_DB | SQLITE_OPEN_DELETEONCLOSE);
      b.xWrite(h, bytes(1, 2), 0);
      b.xClose(h);
      assert.equal(b.xAccess('/doc.db'), false);
    });
  });
}

// The pool's on-disk header is a file format: databases written by earlier
// versions must still be found.  These bytes are written out by hand, not
// from js/constants.js, so a changed layout fails here (the checksum was
// computed apart, with a separate FNV-1a).
test('OPFS pool: the header bytes of a named file are the pinned format', async () => {
  const handles = [];
  const pool = new OpfsPool('format', { getFileHandle: async () => ({ createSyncAccessHandle: async () => { const h = fakeHandle(); handles.push(h); return h; } }) }, 2);
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
  const { accessHandles } = await import('../../dist/opfs-pool.js');
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
