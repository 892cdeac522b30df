// The synchronous API's classes (sqlite-tempcrypt/worker; types in
// worker.d.ts): SyncDatabase over one Connection and its storage, and
// SyncStatement.  The methods marked DELEGATE in ./methods.js are made
// below from the table; the others are written here.  The Worker's
// dispatch (./rpc.js) drives the main-thread API's calls through this API
// only.
import { createFunction, createAggregate, createCollation } from './functions.js';
import { ImportStaging, importFrom, pageStream, EXPORT_PAGES_SQL } from './transfer.js';
import { rows, DATABASE, QUERYABLE, STATEMENT, DELEGATE } from './methods.js';

// A prepared statement of the synchronous API (better-sqlite3's shape).
export class SyncStatement {
  constructor(db, st) {
    this.db = db;
    this.st = st;
  }

  columns() { return this.st.columns(); }
  get readonly() { return this.st.readonly; }
  * iterate(params, options) { yield* this.db.limited(this.st.iterate(params, options)); }
  finalize() { this.st.finalize(); }

  // A cursor over this statement's rows (see Cursor).
  cursor(params, options) {
    this.db.guard(() => this.st.open(params, options));
    return new Cursor(this.db, this.st, false, true);
  }
}

// The rows of an engine statement fetched n at a time across calls (the
// main thread's iterate(), exportStream()): page(n) -> { rows, done };
// close() ends it early.  own: a one-off statement, finalized at the end
// (else it is reset); limited: each page under the time limit.
class Cursor {
  constructor(db, st, own, limited) {
    Object.assign(this, { db, st, own, limited });
  }

  page(n) {
    const res = this.limited ? this.db.guard(() => this.st.page(n)) : this.st.page(n);
    if (res.done && this.own) this.st.finalize();
    return res;
  }

  close() {
    if (this.own) this.st.finalize(); else this.st.reset();
  }
}

export class SyncDatabase {
  // conn: the Connection (./connection.js); storage: the backend's name.
  constructor(conn, storage) {
    const { engine } = conn;
    const backend = engine.backend;
    this.conn = conn;
    this.engine = engine;
    this.backend = backend;
    this.storage = storage;
    this.name = conn.name;
    this.timeoutMs = 0;   // time limit per call (0: none)
    this.tempcrypt = engine.tempcrypt;
    // Inspection of the storage underneath, for tests and the demo page.
    this.files = {
      list: () => backend.list(),
      scan: () => (backend.scan ? backend.scan() : []),
      wipedAtOpen: backend.wipedAtOpen ?? [],
      headerSize: backend.headerSize ?? 0,
    };
  }

  assertOpen() { this.conn.assertOpen(); }

  // fn() under the call's time limit.
  guard(fn) { return this.conn.withDeadline(this.timeoutMs, fn); }

  // The rows of gen, each step under the time limit.
  * limited(gen) {
    try {
      for (;;) {
        const r = this.guard(() => gen.next());
        if (r.done) return;
        yield r.value;
      }
    } finally { gen.return(); }
  }

  // Resolves once the storage's own work in flight is done (the OPFS
  // pool's top-up after a call took free files).
  idle() { return this.backend.settled ? this.backend.settled() : Promise.resolve(); }

  // Set (or clear, with null) the observer of every storage call.
  observe(fn) { this.engine.setObserver(fn); }

  // SQL functions (see worker.d.ts): fn(...args); an aggregate's
  // { start, step, result }; a collation's compare(a, b).
  function(name, fn, options) { createFunction(this.conn, name, fn, options); return this; }
  aggregate(name, spec) { createAggregate(this.conn, name, spec); return this; }
  collation(name, compare) { createCollation(this.conn, name, compare); return this; }

  prepare(sql) { return new SyncStatement(this, this.conn.prepare(sql)); }
  * iterate(sql, params, options) {
    const st = this.conn.prepare(sql, { persistent: false });
    try { yield* this.limited(st.iterate(params, options)); } finally { st.finalize(); }
  }

  // A transaction across calls (the main thread's transaction()):
  // txBegin(), then txEnd(commit); a savepoint when nested.
  txBegin() { this.guard(() => this.conn.txBegin()); }
  txEnd(commit) { this.guard(() => this.conn.txEnd(commit)); }
  transaction(fn) { return this.guard(() => this.conn.transaction(() => fn(this))); }

  // A cursor over the rows of sql (see Cursor).
  cursor(sql, params, options, limited = true) {
    const st = this.conn.prepare(sql, { persistent: false });
    try {
      if (limited) this.guard(() => st.open(params, options)); else st.open(params, options);
    } catch (e) { st.finalize(); throw e; }
    return new Cursor(this, st, true, limited);
  }

  // Replace the database by an SQLite file (see transfer.js for the
  // sources).  Checked and copied in one transaction: on any error the
  // database is as it was.  Not under the time limit.
  async import(source) {
    await importFrom(source, await this.importBegin());
  }

  // An import in steps (the main thread's import()): write(chunk) each
  // chunk, then finish() or abort().
  async importBegin() {
    this.assertOpen();
    await this.backend.reserve(2);   // the staging file and its journal
    return new ImportStaging(this.conn);
  }

  // The database file as a ReadableStream of page-sized chunks, read in a
  // read transaction.
  exportStream({ pagesPerChunk = 256 } = {}) {
    let c = null;
    return pageStream({
      open: () => { c = this.cursor(EXPORT_PAGES_SQL, null, { rowMode: 'array' }, false); },
      page: (n) => c.page(n),
      close: () => { if (c) { c.close(); c = null; } },
    }, pagesPerChunk);
  }

  export() { return this.conn.export(); }
  get inTransaction() { return this.conn.inTransaction; }
  // Bytes of the wasm instance's memory (it grows, never shrinks).
  heapSize() { return this.engine.M.HEAPU8.length; }

  // Make at least n storage files free ahead of a statement that opens
  // many temp files at once (OPFS handles can only be opened
  // asynchronously; the pool tops itself up after each call).
  reserve(n) { return this.backend.reserve(n); }

  // Resolves once the storage is closed, the OPFS pool's in-flight top-up
  // included (deletePool() may follow at once).
  close() {
    if (!this.closing) {
      this.engine.setObserver(null);
      this.conn.close();
      this.closing = Promise.resolve(this.backend.close());
    }
    return this.closing;
  }
}

// The DELEGATE rows: the Connection's (or engine Statement's) method of
// the same name, under the call's time limit.
for (const m of [...rows({ layer: QUERYABLE, sync: DELEGATE }), ...rows({ layer: DATABASE, sync: DELEGATE })]) {
  SyncDatabase.prototype[m.name] = function (...args) { return this.guard(() => this.conn[m.name](...args)); };
}
for (const m of rows({ layer: STATEMENT, sync: DELEGATE })) {
  SyncStatement.prototype[m.name] = function (...args) { return this.db.guard(() => this.st[m.name](...args)); };
}
