// The calls the main-thread API makes ({ method, args } -> result), for one
// database: answered by the dedicated Worker (./rpc-worker.js) and, where
// there is no Worker, in-process by index.js's LocalClient.  One table, so
// both behave the same.

import { open } from './worker.js';
import { SqliteError, closedError } from './errors.js';
import { ImportSink } from './engine.js';
import { SQLITE_MISUSE } from './constants.js';

// A fresh dispatcher: call(method, ...args) runs one call and resolves to
// its result once the pool's top-up (db.pending) is done.  index.js calls
// open first; after close the database is kept, so that every later call
// meets the engine's "database is closed" check (Database.assertOpen).
export function createDispatcher() {
  let db = null;
  // Prepared statements (by id) and the one import in progress.
  const stmts = new Map();
  let nextId = 1;
  let sink = null;
  const stmt = (id) => {
    const st = stmts.get(id);
    if (!st) throw new SqliteError(`statement ${id} is finalized`, SQLITE_MISUSE);
    return st;
  };
  const keep = (st) => { const id = nextId++; stmts.set(id, st); return id; };
  const drop = (id) => { const st = stmts.get(id); if (st) { st.finalize(); stmts.delete(id); } };
  const methods = {
    async open(name, options) {
      if (db) throw new Error('this worker already has a database open');
      const { setup, ...rest } = options || {};
      db = await open(name, rest);
      if (setup) {
        // The app's module registers its functions on the sync database.
        try {
          const mod = await import(/* @vite-ignore */ setup);
          if (typeof mod.default !== 'function') throw new TypeError(`setup module ${setup} has no default export function`);
          await mod.default(db);
        } catch (e) {
          db.close();
          db = null;
          throw e;
        }
      }
      return { storage: db.storage };
    },
    exec: (sql) => db.exec(sql),
    query: (sql, params, options) => db.query(sql, params, options),
    run: (sql, params) => db.run(sql, params),
    batch: (list, options) => db.batch(list, options),
    txBegin: () => db.guard(() => db.db.txBegin()),
    txEnd: (commit) => db.guard(() => db.db.txEnd(commit)),
    // Statements: prepare gives an id; a cursor (iterate) is a statement
    // whose rows are fetched page by page.
    prepare: (sql) => {
      const st = db.db.prepare(sql);
      return { id: keep(st), columns: st.columns(), readonly: st.readonly };
    },
    stmtRun: (id, params) => db.guard(() => stmt(id).run(params)),
    stmtGet: (id, params, options) => db.guard(() => stmt(id).get(params, options)),
    stmtAll: (id, params, options) => db.guard(() => stmt(id).all(params, options)),
    stmtOpen: (id, params, options) => db.guard(() => stmt(id).open(params, options)),
    stmtReset: (id) => stmt(id).reset(),
    finalize: (id) => drop(id),
    cursorOpen: (sql, params, options) => {
      const st = db.db.prepare(sql, { persistent: false });
      try { db.guard(() => st.open(params, options)); } catch (e) { st.finalize(); throw e; }
      return keep(st);
    },
    // Up to n rows; a one-off cursor is finalized once done.
    page: (id, n, own) => {
      const res = db.guard(() => stmt(id).page(n));
      if (res.done && own) drop(id);
      return res;
    },
    importBegin: async () => {
      if (sink) sink.abort();
      sink = null;
      await db.reserve(Math.max(db.backend.minFree ?? 0, 2));
      sink = new ImportSink(db.db);
    },
    importChunk: (bytes) => {
      if (!sink) throw new SqliteError('no import in progress', SQLITE_MISUSE);
      try { sink.write(bytes); } catch (e) { sink.abort(); sink = null; throw e; }
    },
    importEnd: (ok) => {
      if (!sink) throw new SqliteError('no import in progress', SQLITE_MISUSE);
      const s = sink;
      sink = null;
      if (!ok) { s.abort(); return; }
      db.guard(() => s.finish(), false);
    },
    export: () => db.export(),
    heapSize: () => db.heapSize(),
    stats: (reset) => db.tempcrypt.stats(reset),
    setEnabled: (on) => db.tempcrypt.setEnabled(on),
    files: () => ({ list: db.files.list(), wipedAtOpen: db.files.wipedAtOpen }),
    async close() {
      if (!db) return;
      if (sink) { sink.abort(); sink = null; }
      stmts.clear();   // db.close() finalizes them
      await db.pending;
      await db.close();
    },
  };
  return {
    async call(method, ...args) {
      if (!Object.prototype.hasOwnProperty.call(methods, method)) throw new Error(`unknown method ${method}`);
      if (method !== 'open' && method !== 'close') {
        if (!db) throw closedError();   // a failed open left none
        db.db.assertOpen();
      }
      const result = await methods[method](...args);
      if (db && db.pending) await db.pending;
      return result;
    },
  };
}
