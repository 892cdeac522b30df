// sqlite-tempcrypt/worker: the synchronous API, for code that already runs
// in a Worker (or in Node).  Opening is async (it loads the wasm and opens
// the storage); every call after that is sync.  The classes are in
// ./engine/sync-database.js, the types in ./worker.d.ts.
//
//   import { open } from 'sqlite-tempcrypt/worker';
//   const db = await open('app.db', { storage: 'opfs' });
//   db.exec('CREATE TABLE IF NOT EXISTS t(x)');
//   const rows = db.query('SELECT * FROM t WHERE x > ?', [1]);

import { createEngine, STATS_FIELDS } from './engine/engine.js';
import { SqliteError, storageError } from './shared/errors.js';
import { SQLITE_CANTOPEN } from './shared/constants.js';
import { openStorage } from './storage/storage.js';
import { SyncDatabase } from './engine/sync-database.js';
import { isStagingOf } from './engine/transfer.js';
import { POOL_HEADER_SIZE as HEADER_SIZE, POOL_ROOT, opfsAvailable } from './storage/opfs-pool.js';
import { openName, resolveOpenOptions, defaultOf, SYNC } from './shared/methods.js';

export { SqliteError, STATS_FIELDS, opfsAvailable, HEADER_SIZE, POOL_ROOT };
export * from './shared/constants.js';
export { SyncDatabase, SyncStatement } from './engine/sync-database.js';
export { poolNameOf, probeOpfs, listOpfs, deletePool } from './storage/opfs-backend.js';
export const LOCK_TIMEOUT_MS = defaultOf('lockTimeoutMs');

// Open a database: a fresh SQLite instance with tempcrypt over its own
// storage (./storage/storage.js: an OPFS pool named after the database, memory,
// or files in Node).
export async function open(name, options = {}) {
  name = openName(name);
  options = resolveOpenOptions(options, SYNC);
  const { storage, backend } = await openStorage(name, options);
  let conn;
  try {
    const engine = await createEngine(backend, { wasm: options.wasm, tempBudget: options.tempBudget });
    if (options.observer) engine.setObserver(options.observer);
    conn = engine.open(name);
    // An import's staging file left by a process or tab that died mid-way
    // (the storage is ours now: no import of another can be running).
    const main = engine.bridge.fullPathname(name);
    for (const f of backend.list()) if (f.path && isStagingOf(f.path, main)) backend.xDelete(f.path);
    // The main database took a pool file.
    try { await backend.reserve(); } catch (e) { throw storageError(e, SQLITE_CANTOPEN, 'open: the storage cannot make room'); }
  } catch (e) {
    await backend.close();
    throw e;
  }
  const db = new SyncDatabase(conn, storage);
  // A storage whose locks other processes hold (xLock): SQLite's busy
  // handler waits for them up to busyTimeoutMs, as better-sqlite3's.
  if (backend.xLock) db.exec(`PRAGMA busy_timeout = ${Math.min(options.busyTimeoutMs, 0x7fffffff)}`);
  db.timeoutMs = options.timeoutMs;
  if (options.import !== undefined) {
    try {
      await db.import(options.import);
    } catch (e) {
      await db.close();
      throw e;
    }
  }
  return db;
}
