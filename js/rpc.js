// The Worker's side of the main-thread API: the messages { method, args }
// of ./methods.js, answered with the synchronous API (./sync-database.js)
// and nothing below it.  One Session per client of an open database holds
// what outlives a message (prepared statements and cursors by id, the
// import in progress); createDispatcher() adds opening and closing, for
// the dedicated Worker (./worker-script.js) and index.js's in-process
// client.
import { open } from './worker.js';
import { SqliteError, closedError } from './errors.js';
import { SQLITE_MISUSE } from './constants.js';
import { METHODS, CALL, STATEMENT, TEMPCRYPT, messageOf } from './methods.js';

// The handlers of the messages the hand-written main-thread methods send
// (their names are in the rows' `async` lists): (session, ...args) -> result.
const CUSTOM = {
  prepare: (s, sql) => {
    const st = s.db.prepare(sql);
    return { id: s.keep(s.stmts, st), columns: st.columns(), readonly: st.readonly };
  },
  finalize: (s, id) => {
    const st = s.stmts.get(id);
    if (st) { st.finalize(); s.stmts.delete(id); }
  },
  cursorOpen: (s, sql, params, options) => s.keep(s.cursors, s.db.cursor(sql, params, options)),
  stmtOpen: (s, id, params, options) => s.keep(s.cursors, s.stmt(id).cursor(params, options)),
  // Up to n rows; a cursor is gone once done.
  page: (s, id, n) => {
    const c = s.cursors.get(id);
    if (!c) throw new SqliteError(`cursor ${id} is closed`, SQLITE_MISUSE);
    const res = c.page(n);
    if (res.done) s.cursors.delete(id);
    return res;
  },
  cursorClose: (s, id) => {
    const c = s.cursors.get(id);
    if (c) { s.cursors.delete(id); c.close(); }
  },
  txBegin: (s) => s.db.txBegin(),
  txEnd: (s, commit) => s.db.txEnd(commit),
  importBegin: async (s) => {
    s.endImport(false);
    s.staging = await s.db.importBegin();
  },
  importChunk: (s, bytes) => {
    if (!s.staging) throw new SqliteError('no import in progress', SQLITE_MISUSE);
    try { s.staging.write(bytes); } catch (e) { s.endImport(false); throw e; }
  },
  importEnd: (s, ok) => {
    if (!s.staging) throw new SqliteError('no import in progress', SQLITE_MISUSE);
    s.endImport(ok);
  },
  files: (s) => ({ list: s.db.files.list(), wipedAtOpen: s.db.files.wipedAtOpen }),
};

// Every message: the CALL rows' (the sync method of the same name) and
// the hand-written ones.  Exported for the layers' test.
export const HANDLERS = { ...CUSTOM };
for (const m of METHODS) {
  if (m.async !== CALL) continue;
  HANDLERS[messageOf(m)] = m.layer === STATEMENT ? (s, id, ...args) => s.stmt(id)[m.name](...args)
    : m.layer === TEMPCRYPT ? (s, ...args) => s.db.tempcrypt[m.name](...args)
      : (s, ...args) => s.db[m.name](...args);
}

export class Session {
  constructor(db) {
    this.db = db;             // a SyncDatabase
    this.stmts = new Map();   // id -> SyncStatement
    this.cursors = new Map(); // id -> cursor (rows paged across messages)
    this.nextId = 1;
    this.staging = null;      // the import in progress
  }

  keep(map, x) { const id = this.nextId++; map.set(id, x); return id; }

  stmt(id) {
    const st = this.stmts.get(id);
    if (!st) throw new SqliteError(`statement ${id} is finalized`, SQLITE_MISUSE);
    return st;
  }

  // Finish (ok) or drop the import in progress, if there is one.
  endImport(ok) {
    const s = this.staging;
    this.staging = null;
    if (s) { if (ok) s.finish(); else s.abort(); }
  }

  // One message; resolves once the storage is idle again (so the next
  // call finds the OPFS pool topped up).
  async handle(method, args) {
    this.db.assertOpen();
    const result = await HANDLERS[method](this, ...args);
    await this.db.idle();
    return result;
  }

  // Drop what the session holds (the database closes its statements).
  end() {
    this.endImport(false);
    this.stmts.clear();
    this.cursors.clear();
  }
}

// A fresh dispatcher: call(method, ...args) for one database, which 'open'
// opens first.  After close the database is kept, so that every later
// call meets its "database is closed" check.
export const LIFECYCLE = ['open', 'close'];

export function createDispatcher() {
  let db = null, session = null;
  const lifecycle = {
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
      session = new Session(db);
      return { storage: db.storage };
    },
    async close() {
      if (!db) return;
      session.end();
      await db.idle();
      await db.close();
    },
  };
  return {
    async call(method, ...args) {
      const has = (o) => Object.prototype.hasOwnProperty.call(o, method);
      if (has(lifecycle)) return lifecycle[method](...args);
      if (!has(HANDLERS)) throw new Error(`unknown method ${method}`);
      if (!session) throw closedError();   // a failed open left none
      return session.handle(method, args);
    },
  };
}
