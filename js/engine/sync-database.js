// The synchronous API's classes (sqlite-tempcrypt/worker; types in
// worker.d.ts): SyncDatabase over one Connection and its storage, and
// SyncStatement.  The methods marked DELEGATE in ../shared/methods.js are made
// below from the table; the others are written here.  The Worker's
// dispatch (../dispatch/rpc.js) drives the main-thread API's calls through this API
// only.
import { createFunction, createAggregate, createCollation } from './functions.js';
import { ImportStaging, importFrom, pageStream, EXPORT_PAGES_SQL } from './transfer.js';
import {
  rows, rowOf, callOptions, statementArgs, checkTimeoutMs, DATABASE, QUERYABLE, STATEMENT, DELEGATE, SYNC,
} from '../shared/methods.js';
import { storageError } from '../shared/errors.js';
import { SQLITE_CANTOPEN } from '../shared/constants.js';

// A prepared statement of the synchronous API (better-sqlite3's shape).
export class SyncStatement {
  constructor(db, st) {
    this.db = db;
    this.st = st;
  }

  columns() { return this.st.columns(); }
  get readonly() { return this.st.readonly; }
  * iterate(...args) {
    const [params, options] = statementArgs(args);
    callOptions(rowOf(STATEMENT, 'iterate'), options, SYNC);
    yield* this.db.limited(this.st.iterate(params, options), options);
  }
  finalize() { this.st.finalize(); }

  // A cursor over this statement's rows (see Cursor).
  cursor(params, options) {
    callOptions(rowOf(STATEMENT, 'iterate'), options, SYNC);
    this.db.guard(() => this.st.open(params, options), options);
    return new Cursor(this.db, this.st, false, options);
  }
}

// The rows of an engine statement fetched n at a time across calls (the
// main thread's iterate(), exportStream()): page(n) -> { rows, done };
// close() ends it early.  own: a one-off statement, finalized at the end
// (else it is reset); limit: each page under the time limit (the call's
// options: its timeoutMs, else db.timeoutMs), or false for none; ended:
// called once after the end.
class Cursor {
  constructor(db, st, own, limit, ended = null) {
    Object.assign(this, { db, st, own, limit, ended });
  }

  page(n) {
    const res = this.limit !== false ? this.db.guard(() => this.st.page(n), this.limit) : this.st.page(n);
    if (res.done) this.end();
    return res;
  }

  close() {
    if (this.own) this.end(); else this.st.reset();
  }

  end() {
    if (!this.own) return;
    this.st.finalize();
    const ended = this.ended;
    this.ended = null;
    if (ended) ended();
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
    this.ms = 0;          // time limit per call (0: none): timeoutMs
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

  // The time limit of each call in ms (0: none).
  get timeoutMs() { return this.ms; }
  set timeoutMs(ms) { this.ms = checkTimeoutMs(ms); }

  // fn() under the call's time limit: the timeoutMs of its options (checked
  // by callOptions), else db.timeoutMs.
  guard(fn, options) { return this.conn.withDeadline(options?.timeoutMs ?? this.ms, fn); }

  // The rows of gen, each step under the time limit.
  * limited(gen, options) {
    try {
      for (;;) {
        const r = this.guard(() => gen.next(), options);
        if (r.done) return;
        yield r.value;
      }
    } finally { gen.return(); }
  }

  // Resolves once the storage's own work in flight is done (the OPFS
  // pool's top-up after a call took free files).
  idle() { return this.backend.settled ? this.backend.settled() : Promise.resolve(); }

  // The raw bytes of every file in the storage underneath (files.scan()),
  // for the main-thread API: what reached storage, temp files included.
  scanFiles() { return this.files.scan(); }

  // Set (or clear, with null) the observer of every storage call.
  observe(fn) { this.engine.setObserver(fn); }

  // SQL functions (see worker.d.ts): fn(...args); an aggregate's
  // { start, step, result }; a collation's compare(a, b).
  function(name, fn, options) { createFunction(this.conn, name, fn, options); return this; }
  aggregate(name, spec) { createAggregate(this.conn, name, spec); return this; }
  collation(name, compare) { createCollation(this.conn, name, compare); return this; }

  prepare(sql) { return new SyncStatement(this, this.conn.prepare(sql)); }
  * iterate(sql, params, options) {
    callOptions(rowOf(QUERYABLE, 'iterate'), options, SYNC);
    const st = this.conn.prepare(sql, { persistent: false });
    try { yield* this.limited(st.iterate(params, options), options); } finally { st.finalize(); }
  }

  // A transaction across calls (the main thread's transaction()):
  // txBegin(), then txEnd(commit); a savepoint when nested.
  txBegin() { this.guard(() => this.conn.txBegin()); }
  txEnd(commit) { this.guard(() => this.conn.txEnd(commit)); }
  transaction(fn) { return this.guard(() => this.conn.transaction(() => fn(this))); }

  // A cursor over the rows of sql (see Cursor); limited: under the time
  // limit.
  cursor(sql, params, options, limited = true) {
    callOptions(rowOf(QUERYABLE, 'iterate'), options, SYNC);
    const st = this.conn.prepare(sql, { persistent: false });
    try {
      if (limited) this.guard(() => st.open(params, options), options); else st.open(params, options);
    } catch (e) { st.finalize(); throw e; }
    return new Cursor(this, st, true, limited ? options : false);
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
    try {
      await this.backend.reserve(2);   // the staging file and its journal
    } catch (e) { throw storageError(e, SQLITE_CANTOPEN, 'import: the storage cannot make room for the staging file'); }
    return new ImportStaging(this.conn);
  }

  // The database file as a ReadableStream of page-sized chunks, read in a
  // read transaction.
  exportStream(options) {
    const { pagesPerChunk } = callOptions(rowOf(DATABASE, 'exportStream'), options, SYNC);
    let c = null;
    return pageStream({
      open: () => { c = this.exportCursor(); },
      page: (n) => c.page(n),
      close: () => { if (c) { c.close(); c = null; } },
    }, pagesPerChunk);
  }

  // A cursor over the database's pages, in one read transaction
  // (exportStream here and on the main thread; limit as Cursor's); it
  // leaves no TEMP database behind (Connection.withoutTemp).
  exportCursor(limit = false) {
    this.assertOpen();
    const [st, ended] = this.conn.withoutTemp(() => this.conn.prepare(EXPORT_PAGES_SQL, { persistent: false }));
    try { st.open(null, { rowMode: 'array' }); } catch (e) { st.finalize(); ended(); throw e; }
    return new Cursor(this, st, true, limit, ended);
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
// the same name, its options checked, under the call's time limit.
for (const m of [...rows({ layer: QUERYABLE, sync: DELEGATE }), ...rows({ layer: DATABASE, sync: DELEGATE })]) {
  const at = m.args.indexOf('options');
  SyncDatabase.prototype[m.name] = function (...args) {
    const options = at >= 0 ? callOptions(m, args[at], SYNC) : undefined;
    return this.guard(() => this.conn[m.name](...args), options);
  };
}
for (const m of rows({ layer: STATEMENT, sync: DELEGATE })) {
  SyncStatement.prototype[m.name] = function (...args) {
    const [params, options] = statementArgs(args);
    callOptions(m, options, SYNC);
    return this.db.guard(() => this.st[m.name](params, options), options);
  };
}
