// The Worker's side of the main-thread API: the messages { method, args }
// of ../shared/methods.js, answered with the synchronous API (../engine/sync-database.js)
// and nothing below it.  One Session per client of an open database holds
// what outlives a message (prepared statements and cursors by id, the
// transaction and import in progress) and keeps the rule that a call
// leaves no transaction open behind it.  The queue that runs the sessions'
// calls one at a time is ./hub.js; opening, closing and the tabs sharing a
// database are ../tabs/tabs.js.
import { SqliteError, closedError } from '../shared/errors.js';
import { SQLITE_MISUSE, SQLITE_ABORT } from '../shared/constants.js';
import { METHODS, CALL, STATEMENT, TEMPCRYPT, messageOf, defaultOf } from '../shared/methods.js';

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
  // The database's pages in one read transaction (exportStream), held by
  // this session until the cursor ends.
  exportOpen: (s) => {
    s.exportCursor = s.keep(s.cursors, s.db.exportCursor({}));   // under the session's time limit
    return s.exportCursor;
  },
  // Up to n rows; a cursor is gone once done.
  page: (s, id, n) => {
    const c = s.cursors.get(id);
    if (!c) throw new SqliteError(`cursor ${id} is closed`, SQLITE_MISUSE);
    const res = c.page(n);
    if (res.done) s.dropCursor(id);
    return res;
  },
  cursorClose: (s, id) => {
    const c = s.cursors.get(id);
    if (c) { s.dropCursor(id); c.close(); }
  },
  txBegin: (s) => {
    s.db.txBegin();
    s.txDepth++;
  },
  txEnd: (s, commit) => {
    if (s.txDepth > 0) s.txDepth--;
    s.db.txEnd(commit);
  },
  // This session's time limit per call (db.timeoutMs, set on the main thread).
  timeoutMs: (s, ms) => { s.timeoutMs = ms; },
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

// The messages that set what a session's later calls run under: applied
// when they reach the queue (./hub.js), never queued behind a transaction
// or another tab's hold (else db.timeoutMs set meanwhile would be lost).
export const AT_ONCE = new Set(['timeoutMs']);

// What a message may do again when it may have run on an owner tab that
// went away before answering (../tabs/tabs.js): 'again' (it changes nothing, or
// sets what it sets again), 'if-readonly' (its statement runs again only
// if it cannot write).  Any other message's outcome is unknown then.
export const REPLAY = {
  files: 'again', scanFiles: 'again', heapSize: 'again', export: 'again', prepare: 'again', exportOpen: 'again',
  'tempcrypt.stats': 'again', 'tempcrypt.setEnabled': 'again', 'tempcrypt.budget': 'again', timeoutMs: 'again',
  query: 'if-readonly', run: 'if-readonly', cursorOpen: 'if-readonly',
  'stmt.run': 'if-readonly', 'stmt.get': 'if-readonly', 'stmt.all': 'if-readonly', stmtOpen: 'if-readonly',
};

// The error of a call that may or may not have run (its owner tab went
// away before answering): SQLITE_ABORT, "outcome unknown".
export function unknownOutcome(what) {
  return new SqliteError(`outcome unknown: the tab that ran the database went away before answering ${what}; ` +
    'it may or may not have been applied (read the database to know)', SQLITE_ABORT);
}

export class Session {
  constructor(db, id = 'local') {
    this.db = db;             // a SyncDatabase
    this.id = id;             // the client's id (../tabs/tabs.js)
    this.stmts = new Map();   // id -> SyncStatement
    this.cursors = new Map(); // id -> cursor (rows paged across messages)
    this.nextId = 1;
    this.staging = null;      // the import in progress
    this.exportCursor = null; // the cursor of the export in progress
    this.txDepth = 0;         // transactions (and savepoints) begun by txBegin
    this.busyTimeoutMs = defaultOf('busyTimeoutMs');
    this.timeoutMs = undefined;
    this.ended = false;
  }

  keep(map, x) { const id = this.nextId++; map.set(id, x); return id; }

  stmt(id) {
    const st = this.stmts.get(id);
    if (!st) throw new SqliteError(`statement ${id} is finalized`, SQLITE_MISUSE);
    return st;
  }

  dropCursor(id) {
    this.cursors.delete(id);
    if (this.exportCursor === id) this.exportCursor = null;
  }

  // Whether this session has the connection to itself (./hub.js), and why.
  holds() { return this.txDepth > 0 || !!this.staging || this.exportCursor !== null; }
  holding() { return this.txDepth > 0 ? 'a transaction' : this.staging ? 'an import' : 'an export stream'; }

  // Finish (ok) or drop the import in progress, if there is one.
  endImport(ok) {
    const s = this.staging;
    this.staging = null;
    if (s) { if (ok) s.finish(); else s.abort(); }
  }

  // One message, under this session's time limit.  replay: it may have
  // run on an owner that went away: only a call that cannot write runs.
  async handle(method, args, replay = false) {
    this.db.assertOpen();
    if (replay) this.mustNotWrite(method, args);
    const limit = this.db.timeoutMs;
    if (this.timeoutMs !== undefined) this.db.timeoutMs = this.timeoutMs;
    try {
      const result = await HANDLERS[method](this, ...args);
      this.closeStrayTransaction(null);
      return result;
    } catch (e) {
      this.closeStrayTransaction(e);
      throw e;
    } finally {
      this.db.timeoutMs = limit;
    }
  }

  // A call outside the API's transactions that leaves one open (a BEGIN or
  // SAVEPOINT without its end, as Drizzle's sqlite-proxy sends them) would
  // make every other caller's writes part of it: it is rolled back, and the
  // call refused (its own error, if it failed, says more).
  closeStrayTransaction(err) {
    if (this.txDepth > 0 || !this.db.inTransaction) return;
    try { this.db.exec('ROLLBACK'); } catch { /* rolled back by SQLite already */ }
    if (err) return;
    throw new SqliteError('this call left a transaction open (BEGIN or SAVEPOINT without its end): it was rolled back. ' +
      'A transaction across calls is db.transaction(fn); several statements in one transaction: batch(), or one exec() ' +
      'that ends with COMMIT', SQLITE_MISUSE);
  }

  mustNotWrite(method, args) {
    const how = REPLAY[method];
    if (how === 'again') return;
    let readonly = false;
    if (how === 'if-readonly' && method.startsWith('stmt')) readonly = this.stmt(args[0]).readonly;
    else if (how === 'if-readonly') {
      const st = this.db.prepare(args[0]);
      try { readonly = st.readonly; } finally { st.finalize(); }
    }
    if (!readonly) throw unknownOutcome(`${method}()`);
  }

  // Drop what the session holds: its transaction rolled back, its import,
  // statements and cursors gone (its client closed or went away).
  end() {
    const quietly = (fn) => { try { fn(); } catch { /* the database may be closed */ } };
    quietly(() => this.endImport(false));
    for (const c of this.cursors.values()) quietly(() => c.close());
    for (const st of this.stmts.values()) quietly(() => st.finalize());
    this.cursors.clear();
    this.stmts.clear();
    this.exportCursor = null;
    while (this.txDepth > 0) {
      this.txDepth--;
      quietly(() => this.db.txEnd(false));
    }
  }
}

// The messages of a database's lifetime, answered by ../tabs/tabs.js's dispatcher.
export const LIFECYCLE = ['open', 'close'];

export { closedError };
