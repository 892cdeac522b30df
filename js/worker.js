// sqlite-tempcrypt/worker: the synchronous API, for code that already runs
// in a Worker (or in Node, with storage 'memory').  Opening is async (it
// loads the wasm and opens the OPFS pool); every call after that is sync.
//
//   import { open } from 'sqlite-tempcrypt/worker';
//   const db = await open('app.db', { storage: 'opfs' });
//   db.exec('CREATE TABLE IF NOT EXISTS t(x)');
//   const rows = db.query('SELECT * FROM t WHERE x > ?', [1]);

import { createEngine, SqliteError, STATS_FIELDS } from './engine.js';
import { MemoryBackend } from './memory-backend.js';
import { OpfsPool, opfsAvailable, listOpfs, deletePool, HEADER_SIZE, POOL_ROOT } from './opfs-pool.js';
import { probeOpfs } from './opfs-probe.js';

export { SqliteError, STATS_FIELDS, opfsAvailable, listOpfs, deletePool, HEADER_SIZE, POOL_ROOT };
export { probeOpfs } from './opfs-probe.js';

// The pool directory of a database name (one pool per database, and one
// Web Lock): the name percent-encoded ('.' too) when that fits in 200
// characters, as earlier builds named it; a longer name gets its first 100
// encoded characters, a '.' (never in the short form) and the SHA-256 of
// the name in hex, so two names never share a pool.
const POOL_NAME_MAX = 200;
export async function poolNameOf(name) {
  const enc = encodeURIComponent(name).replace(/\./g, '%2E');
  if (enc.length > 0 && enc.length <= POOL_NAME_MAX) return enc;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(name)));
  const prefix = enc.slice(0, 100).replace(/%[0-9A-F]?$/, '');   // no cut escape
  return `${prefix}.${Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

// The default is OPFS where its sync access handles work (a real call
// decides: probeOpfs()), else memory; 'opfs' where they do not is an error
// that says what is missing.
async function resolveStorage(storage) {
  if (storage !== undefined && storage !== null && storage !== 'opfs' && storage !== 'memory') {
    throw new TypeError(`storage must be 'opfs' or 'memory', not ${String(storage)}`);
  }
  if (storage === 'memory') return storage;
  const missing = await probeOpfs();
  if (!missing) return 'opfs';
  if (storage === 'opfs') throw new SqliteError(`storage 'opfs' is not available here: ${missing}. OPFS needs FileSystemSyncAccessHandle in a dedicated Worker; use storage 'memory'`, 14);
  return 'memory';
}

// Open a database: a fresh SQLite instance with tempcrypt over its own
// storage (an OPFS pool named after the database, or memory).
export async function open(name, options = {}) {
  if (typeof name !== 'string' || name === '') throw new TypeError('open(name): name must be a non-empty string');
  const storage = await resolveStorage(options.storage);
  let backend;
  try {
    backend = storage === 'opfs'
      ? await OpfsPool.open(options.pool ?? await poolNameOf(name), { minFree: options.minFree ?? 16 })
      : new MemoryBackend();
  } catch (e) {
    // The pool reports SQLite codes (SQLITE_BUSY for a second tab).
    if (e && typeof e.sqliteCode === 'number') throw Object.assign(new SqliteError(e.message, e.sqliteCode), { cause: e });
    if (e && e.name === 'QuotaExceededError') throw Object.assign(new SqliteError(`storage quota exceeded while opening the OPFS pool: ${e.message}`, 13), { cause: e });
    throw e;
  }
  let engine, db;
  try {
    engine = await createEngine(backend, { wasm: options.wasm });
    if (options.observer) engine.setObserver(options.observer);
    db = engine.open(name);
    await backend.reserve();   // the main database took a pool file
  } catch (e) {
    await backend.close();
    throw e;
  }
  return new SyncDatabase(db, engine, backend, storage);
}

// The synchronous database (see index.d.ts for the documentation).
export class SyncDatabase {
  constructor(db, engine, backend, storage) {
    this.db = db;
    this.engine = engine;
    this.backend = backend;
    this.storage = storage;
    this.name = db.name;
    this.tempcrypt = {
      stats: (reset = false) => engine.tempcryptStats(reset),
      setEnabled: (on) => engine.tempcryptSetEnabled(!!on),
    };
    // Inspection of the storage underneath, for tests and the demo page.
    this.files = {
      list: () => backend.list(),
      scan: () => (backend.scan ? backend.scan() : []),
      wipedAtOpen: backend.wipedAtOpen ?? [],
      headerSize: storage === 'opfs' ? HEADER_SIZE : 0,
    };
  }

  // Set (or clear, with null) the observer of every storage call.
  observe(fn) { this.engine.setObserver(fn); }

  exec(sql) { try { this.db.exec(sql); } finally { this.topUp(); } }
  query(sql, params) { try { return this.db.query(sql, params); } finally { this.topUp(); } }
  run(sql, params) { try { return this.db.run(sql, params); } finally { this.topUp(); } }
  export() { return this.db.export(); }
  get inTransaction() { return this.db.inTransaction; }

  // Grow the OPFS pool back to its free minimum (async; OPFS handles can
  // only be opened asynchronously).  Called after each call; await it
  // before a statement that opens many temp files at once.
  reserve(n) { return this.backend.reserve(n); }
  topUp() {
    if (this.db.db && this.backend.free && this.backend.free.length < this.backend.minFree) {
      // The pool keeps a failure (reserveError) and reports it when an open
      // finds no free file; nothing to do with it here.
      this.pending = this.backend.reserve().catch(() => {});
    }
  }

  // Resolves once the storage is closed, the OPFS pool's in-flight top-up
  // included (deletePool() may follow at once).
  close() {
    if (!this.closing) {
      this.engine.setObserver(null);
      this.db.close();
      this.closing = Promise.resolve(this.backend.close());
    }
    return this.closing;
  }
}
