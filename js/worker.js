// sqlite-tempcrypt/worker: the synchronous API, for code that already runs
// in a Worker (or in Node, with storage 'memory').  Opening is async (it
// loads the wasm and opens the OPFS pool); every call after that is sync.
//
//   import { open } from 'sqlite-tempcrypt/worker';
//   const db = await open('app.db', { storage: 'opfs' });
//   db.exec('CREATE TABLE IF NOT EXISTS t(x)');
//   const rows = db.query('SELECT * FROM t WHERE x > ?', [1]);

import { createEngine, SqliteError, STATS_FIELDS, ImportSink } from './engine.js';
import { importChunks, concatPages, EXPORT_PAGES_SQL } from './sources.js';
import { SQLITE_CANTOPEN, SQLITE_FULL } from './constants.js';
import { MemoryBackend } from './memory-backend.js';
import { FileBackend } from './file-backend.js';
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

// How long open() waits for another tab to close the same database: long
// enough for a reload or a closing tab to hand it over (its Worker lets go
// within a few hundred ms), short enough that a tab really holding it makes
// open() fail with SQLITE_BUSY instead of hanging.
export const LOCK_TIMEOUT_MS = 5000;

const isNode = typeof process === 'object' && !!process.versions?.node && typeof window === 'undefined';

// The storage to use: never a silent fallback.  Default: 'opfs' in a
// browser, 'memory' in Node (no OPFS there).  Whether OPFS works is
// decided by a real call (probeOpfs()); where it does not, 'opfs' is an
// error that says what is missing, and only an explicit 'auto' falls back
// to memory.
async function resolveStorage(storage) {
  if (storage === undefined || storage === null) storage = isNode ? 'memory' : 'opfs';
  if (storage !== 'opfs' && storage !== 'memory' && storage !== 'file' && storage !== 'auto') {
    throw new TypeError(`storage must be 'opfs', 'memory', 'file' or 'auto', not ${String(storage)}`);
  }
  if (storage === 'file' && !isNode) throw new SqliteError("storage 'file' is for Node (node:fs); in a browser use 'opfs'", SQLITE_CANTOPEN);
  if (storage === 'memory' || storage === 'file') return storage;
  const missing = isNode ? 'there is no OPFS in Node' : await probeOpfs();
  if (!missing) return 'opfs';
  if (storage === 'auto') return 'memory';
  throw new SqliteError(`storage 'opfs' is not available here: ${missing}. OPFS needs FileSystemSyncAccessHandle in a dedicated Worker; pass storage: 'auto' to fall back to memory, or 'memory'`, SQLITE_CANTOPEN);
}

// Open a database: a fresh SQLite instance with tempcrypt over its own
// storage (an OPFS pool named after the database, or memory).
export async function open(name, options = {}) {
  if (typeof name !== 'string' || name === '') throw new TypeError('open(name): name must be a non-empty string');
  const storage = await resolveStorage(options.storage);
  let backend;
  try {
    backend = storage === 'opfs'
      ? await OpfsPool.open(options.pool ?? await poolNameOf(name), { minFree: options.minFree ?? 16, lockTimeoutMs: options.lockTimeoutMs ?? LOCK_TIMEOUT_MS })
      : storage === 'file' ? await FileBackend.create(options.dir ?? '.') : new MemoryBackend();
  } catch (e) {
    // The pool reports SQLite codes (SQLITE_BUSY for a second tab).
    if (e && typeof e.sqliteCode === 'number') {
      const hint = e.sqliteCode === SQLITE_CANTOPEN && !opfsAvailable() ? " (storage 'opfs' was asked for; pass storage: 'auto' to fall back to memory, or 'memory')" : '';
      throw Object.assign(new SqliteError(e.message + hint, e.sqliteCode), { cause: e });
    }
    if (e && e.name === 'QuotaExceededError') throw Object.assign(new SqliteError(`storage quota exceeded while opening the OPFS pool: ${e.message}`, SQLITE_FULL), { cause: e });
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
  const sdb = new SyncDatabase(db, engine, backend, storage);
  if (options.timeoutMs !== undefined) sdb.timeoutMs = options.timeoutMs;
  if (options.import !== undefined) {
    try {
      await sdb.import(options.import);
    } catch (e) {
      await sdb.close();
      throw e;
    }
  }
  return sdb;
}

// A prepared statement of the synchronous API (see worker.d.ts).
export class SyncStatement {
  constructor(sdb, st) {
    this.db = sdb;
    this.st = st;
  }
  columns() { return this.st.columns(); }
  get readonly() { return this.st.readonly; }
  run(params) { return this.db.guard(() => this.st.run(params)); }
  get(params, options) { return this.db.guard(() => this.st.get(params, options)); }
  all(params, options) { return this.db.guard(() => this.st.all(params, options)); }
  * iterate(params, options) {
    try { yield* this.db.limited(this.st.iterate(params, options)); } finally { this.db.topUp(); }
  }

  finalize() { this.st.finalize(); }
}

// The synchronous database (see index.d.ts for the documentation).
export class SyncDatabase {
  constructor(db, engine, backend, storage) {
    this.db = db;
    this.engine = engine;
    this.backend = backend;
    this.storage = storage;
    this.name = db.name;
    this.timeoutMs = 0;   // time limit per call (0: none)
    this.tempcrypt = engine.tempcrypt;
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

  // fn() under the time limit, then top the pool up again.
  guard(fn, limit = true) {
    try { return limit ? this.db.withDeadline(this.timeoutMs, fn) : fn(); } finally { this.topUp(); }
  }

  // The rows of gen, each step under the time limit.
  * limited(gen) {
    try {
      for (;;) {
        const r = this.db.withDeadline(this.timeoutMs, () => gen.next());
        if (r.done) return;
        yield r.value;
      }
    } finally { gen.return(); }
  }

  // SQL functions (see worker.d.ts): fn(...args); an aggregate's
  // { start, step, result }; a collation's compare(a, b).
  function(name, fn, options) { this.db.createFunction(name, fn, options); return this; }
  aggregate(name, spec) { this.db.createAggregate(name, spec); return this; }
  collation(name, compare) { this.db.createCollation(name, compare); return this; }

  exec(sql) { this.guard(() => this.db.exec(sql)); }
  query(sql, params, options) { return this.guard(() => this.db.query(sql, params, options)); }
  run(sql, params) { return this.guard(() => this.db.run(sql, params)); }
  prepare(sql) { return new SyncStatement(this, this.db.prepare(sql)); }
  * iterate(sql, params, options) {
    const st = this.db.prepare(sql, { persistent: false });
    try { yield* this.limited(st.iterate(params, options)); } finally { st.finalize(); this.topUp(); }
  }
  batch(list, options) { return this.guard(() => this.db.batch(list, options)); }
  transaction(fn) { return this.guard(() => this.db.transaction(() => fn(this))); }

  // Replace the database by an SQLite file (see importChunks for the
  // sources).  Checked and copied in one transaction: on any error the
  // database is as it was.
  async import(source) {
    this.db.assertOpen();
    await this.reserve(Math.max(this.backend.minFree ?? 0, 2));
    const sink = new ImportSink(this.db);
    try {
      for await (const chunk of importChunks(source)) sink.write(chunk);
    } catch (e) {
      sink.abort();
      this.topUp();
      throw e;
    }
    this.guard(() => sink.finish(), false);
  }

  // The database file as a ReadableStream of page-sized chunks, read in a
  // read transaction.
  exportStream({ pagesPerChunk = 256 } = {}) {
    let st = null;
    const end = () => { if (st) { st.finalize(); st = null; } };
    return new ReadableStream({
      start: () => {
        st = this.db.prepare(EXPORT_PAGES_SQL, { persistent: false });
        st.open(null, { rowMode: 'array' });
      },
      pull: (controller) => {
        try {
          const { rows, done } = st.page(pagesPerChunk);
          if (rows.length) controller.enqueue(concatPages(rows));
          if (done) { end(); controller.close(); }
        } catch (e) { end(); throw e; }
      },
      cancel: end,
    }, { highWaterMark: 0 });
  }

  export() { return this.db.export(); }
  get inTransaction() { return this.db.inTransaction; }
  // Bytes of the wasm instance's memory (it grows, never shrinks).
  heapSize() { return this.engine.M.HEAPU8.length; }

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

