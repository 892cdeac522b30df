// What the package does in browser versions the test browsers are not:
// behaviours MDN's compat data records (docs/browser.md, "Browser
// requirements"), played by stand-ins for navigator in Node.
import test from 'node:test';
import assert from 'node:assert/strict';
import { lockPool } from '../../dist/storage/opfs-pool.js';
import { checkOpfs } from '../../dist/storage/opfs-backend.js';
import { SQLITE_BUSY } from '../../dist/shared/constants.js';

// Run fn with globalThis[name] = value, then put back what was there.
async function withGlobal(name, value, fn) {
  const had = Object.getOwnPropertyDescriptor(globalThis, name);
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  try { return await fn(); } finally {
    if (had) Object.defineProperty(globalThis, name, had); else delete globalThis[name];
  }
}

// Chrome 103-123: a lock request given AbortSignal.timeout() rejects with
// an AbortError (not TimeoutError) when the time is up.
test('a Web Lock wait that times out is SQLITE_BUSY, whatever error the browser rejects with', async () => {
  for (const errorName of ['AbortError', 'TimeoutError']) {
    const locks = {
      request(name, options, cb) {
        return new Promise((_, reject) => {
          if (options.ifAvailable) { Promise.resolve(cb(null)).then(() => reject(new Error('unexpected'))); return; }
          options.signal.addEventListener('abort', () => reject(new DOMException('aborted', errorName)));
        });
      },
    };
    await withGlobal('navigator', { locks }, async () => {
      const t0 = Date.now();
      const keepAlive = setTimeout(() => {}, 2000);   // Node unrefs AbortSignal.timeout's timer
      const e = await lockPool('held.db', 50).then(() => null, (err) => err);
      assert.ok(e && e.sqliteCode === SQLITE_BUSY, `${errorName}: got ${e && `${e.name} ${e.sqliteCode} ${e.message}`}`);
      assert.match(e.message, /waited 50 ms/);
      assert.ok(Date.now() - t0 >= 45, 'it waited');
      clearTimeout(keepAlive);
    });
  }
});

// Chrome 102-107: FileSystemSyncAccessHandle exists but getSize(),
// truncate(), flush() and close() return promises: SQLite's VFS cannot use
// it, so storage 'opfs' is refused saying why (and 'auto' falls back).
test("sync access handles whose methods return promises (Chrome 102-107) make storage 'opfs' unavailable, saying why", async () => {
  const asyncHandle = () => ({
    getSize: async () => 0, truncate: async () => {}, flush: async () => {}, close: async () => {},
    read: () => 0, write: (b) => b.length,
  });
  const syncHandle = () => ({ getSize: () => 0, truncate() {}, flush() {}, close() {}, read: () => 0, write: (b) => b.length });
  const navWith = (makeAh) => ({
    storage: {
      getDirectory: async () => ({
        getDirectoryHandle: async () => ({
          getFileHandle: async () => ({ createSyncAccessHandle: async () => makeAh() }),
          removeEntry: async () => {},
        }),
      }),
    },
  });
  await withGlobal('FileSystemSyncAccessHandle', function FileSystemSyncAccessHandle() {}, async () => {
    const why = await withGlobal('navigator', navWith(asyncHandle), () => checkOpfs());
    assert.ok(typeof why === 'string' && /promise/.test(why) && /108/.test(why), `refused saying why: ${why}`);
    assert.equal(await withGlobal('navigator', navWith(syncHandle), () => checkOpfs()), null, 'synchronous handles are fine');
  });
});
