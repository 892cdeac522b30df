// A storage that cannot make room (the OPFS pool failing to create files:
// createSyncAccessHandle, a full quota) fails open() and import() with an
// SqliteError carrying a code and the storage's error as its cause, never
// a bare Error (make test-node-unit).  Found by the fault suite
// (test/faults/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { open } from '../../dist/worker.js';
import { MemoryBackend } from '../../dist/storage/memory-backend.js';
import { SQLITE_CANTOPEN, SQLITE_FULL } from '../../dist/shared/constants.js';

async function withFailingReserve(error, fn) {
  const orig = MemoryBackend.prototype.reserve;
  MemoryBackend.prototype.reserve = () => Promise.reject(error);
  try { await fn(); } finally { MemoryBackend.prototype.reserve = orig; }
}

test('open(): a storage that cannot make room rejects with an SqliteError and the cause', async () => {
  const cause = new Error('cannot create a pool file');
  await withFailingReserve(cause, async () => {
    await assert.rejects(open('reserve-open.db', { storage: 'memory' }), (e) => {
      assert.equal(e.name, 'SqliteError');
      assert.equal(e.code, SQLITE_CANTOPEN);
      assert.equal(e.cause, cause);
      return true;
    });
  });
});

test('import(): a storage that cannot make room for the staging file rejects with an SqliteError; the database is unchanged', async () => {
  const db = await open('reserve-import.db', { storage: 'memory' });
  try {
    db.exec('CREATE TABLE t(x); INSERT INTO t VALUES (1)');
    const image = db.export();
    db.exec('INSERT INTO t VALUES (2)');
    const quota = Object.assign(new Error('quota'), { name: 'QuotaExceededError' });
    db.backend.reserve = () => Promise.reject(quota);
    await assert.rejects(db.import(image), (e) => {
      assert.equal(e.name, 'SqliteError');
      assert.equal(e.code, SQLITE_FULL);
      assert.equal(e.cause, quota);
      return true;
    });
    delete db.backend.reserve;
    assert.deepEqual(db.query('SELECT x FROM t ORDER BY x', null, { rowMode: 'array' }), [[1], [2]]);
  } finally { await db.close(); }
});
