// sqlite-tempcrypt/worker: the synchronous API, for code that already runs
// in a Worker (or in Node).  Opening is async (it loads the wasm and opens
// the storage); every call after that is sync.  The classes are in
// ./sync-database.js, the types in ./worker.d.ts.
//
//   import { open } from 'sqlite-tempcrypt/worker';
//   const db = await open('app.db', { storage: 'opfs' });
//   db.exec('CREATE TABLE IF NOT EXISTS t(x)');
//   const rows = db.query('SELECT * FROM t WHERE x > ?', [1]);

import { createEngine, checkBudget, STATS_FIELDS } from './engine.js';
import { SqliteError } from './errors.js';
import { openStorage } from './storage.js';
import { SyncDatabase } from './sync-database.js';
import { DEFAULTS, HEADER_SIZE, POOL_ROOT, opfsAvailable } from './opfs-pool.js';

export { SqliteError, STATS_FIELDS, opfsAvailable, HEADER_SIZE, POOL_ROOT };
export { SyncDatabase, SyncStatement } from './sync-database.js';
export { poolNameOf, probeOpfs, listOpfs, deletePool } from './opfs-backend.js';
export const LOCK_TIMEOUT_MS = DEFAULTS.lockTimeoutMs;

// Open a database: a fresh SQLite instance with tempcrypt over its own
// storage (./storage.js: an OPFS pool named after the database, memory,
// or files in Node).
export async function open(name, options = {}) {
  if (typeof name !== 'string' || name === '') throw new TypeError('open(name): name must be a non-empty string');
  if (options.tempBudget !== undefined) checkBudget(options.tempBudget);
  const { storage, backend } = await openStorage(name, options);
  let conn;
  try {
    const engine = await createEngine(backend, { wasm: options.wasm });
    if (options.tempBudget !== undefined) engine.budget(options.tempBudget);
    if (options.observer) engine.setObserver(options.observer);
    conn = engine.open(name);
    await backend.reserve();   // the main database took a pool file
  } catch (e) {
    await backend.close();
    throw e;
  }
  const db = new SyncDatabase(conn, storage);
  if (options.timeoutMs !== undefined) db.timeoutMs = options.timeoutMs;
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
