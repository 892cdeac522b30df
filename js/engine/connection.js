// One SQLite connection (a sqlite3*) in one wasm instance: statements,
// exec/query/run, transactions, batches, the backup and serialize calls
// and the per-call time limit.  Made by Engine.open() (./engine.js); the
// synchronous API (./sync-database.js) wraps it.
import { SqliteError, closedError } from '../shared/errors.js';
import {
  SQLITE_OK, SQLITE_ROW, SQLITE_DONE, SQLITE_NOMEM, SQLITE_MISUSE, SQLITE_RANGE, SQLITE_INTERRUPT,
  SQLITE_ABORT_ROLLBACK, SQLITE_PREPARE_PERSISTENT,
} from '../shared/constants.js';
import { toSqlite, BIND, fromInt64, wellFormed, cstringAt } from './values.js';
import { Statement, rowModeOf } from './statement.js';

export class Connection {
  // watch: two ints of wasm memory the commit and rollback hooks of db
  // use (wasm/browser/glue.c, tc_watch_transactions): [0] counts the
  // transactions that ended, [1] vetoes commits while set.
  constructor(engine, db, name, watch) {
    this.engine = engine;
    this.M = engine.M;
    this.db = db;
    this.name = name;
    this.watch = watch;
    this.stmts = new Set();      // live prepared statements
    this.txStack = [];           // transactions begun by txBegin(): null (BEGIN) or a savepoint's name
    this.txMark = 0;             // txEnds() when the outermost of them began
    this.txLost = null;          // the error after which SQLite had ended it
    this.callbackError = null;   // a collation threw during the current step (see step())
    this.deadline = null;        // the time limit of the call running: { at, ms } (withDeadline)
    this.steps = 0;              // steps of every statement but `quiet` (withoutTemp)
    this.quiet = 0;
  }

  // rc, unless it is an error: then throw it.
  check(rc) {
    if (rc !== SQLITE_OK && rc !== SQLITE_ROW && rc !== SQLITE_DONE) throw this.engine.error(this.db, rc);
    return rc;
  }

  // One sqlite3_step(stmt): SQLITE_ROW or SQLITE_DONE, else it throws.
  // A collation that threw during the step (a comparison cannot fail in
  // SQLite: its commit was vetoed, see callbackFailed) fails it, and what
  // the statement did is undone: an autocommit write rolls back (at the
  // step, or at the reset here for one that stopped on a row), a write
  // inside a transaction rolls the transaction back, as SQLite itself does
  // when a write fails with SQLITE_INTERRUPT or SQLITE_IOERR.
  step(stmt) {
    const M = this.M;
    if (stmt !== this.quiet) this.steps++;
    const rc = M._sqlite3_step(stmt);
    if (this.callbackError) {
      const e = this.callbackError;
      this.callbackError = null;
      try { M._sqlite3_reset(stmt); } finally { this.vetoCommit(false); }
      if (!M._sqlite3_stmt_readonly(stmt) && !M._sqlite3_get_autocommit(this.db)) this.execRaw('ROLLBACK');
      throw this.noteFailure(e);
    }
    if (rc !== SQLITE_ROW && rc !== SQLITE_DONE) throw this.noteFailure(this.engine.error(this.db, rc));
    return rc;
  }

  // A callback failed in the statement being stepped (./functions.js):
  // veto its commit; step() throws e once SQLite returns.  The statement is
  // not interrupted (sqlite3_interrupt would stop every statement running
  // on the connection, an open cursor too): it runs to its end, each later
  // comparison answering 0 at once.
  callbackFailed(e) {
    if (this.callbackError) return;
    this.callbackError = e;
    this.vetoCommit(true);
  }

  // Transactions ended on this connection so far; while vetoed, a commit
  // becomes a rollback.
  txEnds() { return this.M.HEAP32[this.watch >> 2]; }
  vetoCommit(on) { this.M.HEAP32[(this.watch >> 2) + 1] = on ? 1 : 0; }

  assertOpen() {
    if (!this.db) throw closedError();
  }

  // Prepare the statement starting at cur (< end); returns [stmt, tail],
  // stmt 0 for blanks or a comment.  pp: scratch for the two pointers.
  prepareAt(cur, end, flags, pp) {
    const rc = this.M._sqlite3_prepare_v3(this.db, cur, end - cur, flags, pp, pp + 4);
    const out = [this.engine.i32(pp), this.engine.i32(pp + 4)];
    this.check(rc);
    if (out[1] <= cur) {   // never loop in place (withSql keeps NULs out, the one known cause)
      if (out[0]) this.M._sqlite3_finalize(out[0]);
      throw new SqliteError('SQLite did not move past a point of the SQL text', SQLITE_MISUSE);
    }
    return out;
  }

  // fn(zSql, end, pp) over a C copy of sql and pointer scratch.  SQL text
  // with a NUL is refused: SQLite's SQL ends at the first NUL, and what
  // follows would be dropped without a word.
  withSql(sql, fn) {
    if (typeof sql !== 'string') throw new TypeError('sql must be a string');
    const nul = sql.indexOf('\0');
    if (nul >= 0) {
      throw new SqliteError(`SQL text contains a NUL character (U+0000, at index ${nul}), where SQLite's SQL would end; pass such text as a bound parameter`, SQLITE_MISUSE);
    }
    return this.engine.withCString(sql, (zSql, n) => this.engine.withScratch(8, (pp) => fn(zSql, zSql + n, pp)));
  }

  // Run sql through a callback per statement (each finalized after it).
  forEachStatement(sql, onStmt, raw = false) {
    this.assertOpen();
    this.withSql(sql, (zSql, end, pp) => {
      let cur = zSql;
      while (cur < end) {
        if (!raw) this.assertTx();
        const [stmt, tail] = this.prepareAt(cur, end, 0, pp);
        cur = tail;
        if (!stmt) continue;   // whitespace or comment
        try { onStmt(stmt); } finally { this.M._sqlite3_finalize(stmt); }
      }
    });
  }

  // A Statement for sql, which must hold exactly one statement (several:
  // what the error says to use instead).
  prepare(sql, { persistent = true, several = 'use exec() or batch() for several' } = {}) {
    this.assertOpen();
    const M = this.M;
    return this.withSql(sql, (zSql, end, pp) => {
      let [stmt, cur] = this.prepareAt(zSql, end, persistent ? SQLITE_PREPARE_PERSISTENT : 0, pp);
      try {
        if (!stmt) throw new SqliteError('no SQL statement to prepare', SQLITE_MISUSE);
        while (cur < end) {   // only blanks and comments may follow
          const [next, tail] = this.prepareAt(cur, end, 0, pp);
          if (next) {
            M._sqlite3_finalize(next);
            throw new SqliteError(`this call takes exactly one statement (${several})`, SQLITE_MISUSE);
          }
          cur = tail;
        }
        const st = new Statement(this, stmt);
        stmt = 0;
        return st;
      } finally {
        if (stmt) M._sqlite3_finalize(stmt);
      }
    });
  }

  // Run fn over a one-off statement for sql.
  withStatement(sql, fn, several) {
    const st = this.prepare(sql, { persistent: false, several });
    try { return fn(st); } finally { st.finalize(); }
  }

  // Bind params (an array for ?/?NNN, an object for named parameters).
  bind(stmt, params) {
    const M = this.M;
    const n = M._sqlite3_bind_parameter_count(stmt);
    if (params == null) {
      if (n > 0) throw new SqliteError(`statement has ${n} parameter(s) but none were given`, SQLITE_RANGE);
      return;
    }
    if (Array.isArray(params)) {
      if (params.length !== n) throw new SqliteError(`statement has ${n} parameter(s) but ${params.length} were given`, SQLITE_RANGE);
      for (let i = 0; i < n; i++) this.check(toSqlite(this.engine, BIND, stmt, i + 1, params[i]));
      return;
    }
    if (typeof params !== 'object') throw new TypeError('params must be an array or an object of named values');
    for (let i = 1; i <= n; i++) {
      const pName = M._sqlite3_bind_parameter_name(stmt, i);
      if (!pName) throw new SqliteError(`parameter ${i} is positional; pass params as an array`, SQLITE_RANGE);
      const full = cstringAt(M, pName);
      const key = keyOf(params, full);
      if (key === undefined) throw new SqliteError(`no value for parameter ${full}`, SQLITE_RANGE);
      this.check(toSqlite(this.engine, BIND, stmt, i, params[key]));
    }
  }

  // Run the statements of sql; with params, sql is one statement and they
  // are bound to it.
  exec(sql, params) {
    if (params !== undefined && params !== null) {
      this.withStatement(sql, (st) => st.run(params), 'exec() binds params to one statement; use batch() for several');
      return;
    }
    this.forEachStatement(sql, (stmt) => {
      while (this.step(stmt) !== SQLITE_DONE) { /* next row */ }
    });
  }

  // exec() of the API's own transaction control (no check that the API's
  // transaction is still there: these end it).
  execRaw(sql) {
    this.forEachStatement(sql, (stmt) => {
      while (this.step(stmt) !== SQLITE_DONE) { /* next row */ }
    }, true);
  }

  // Rows of a single statement (objects, or arrays with rowMode 'array').
  query(sql, params, options) {
    return this.withStatement(sql, (st) => st.all(params, options));
  }

  run(sql, params) {
    return this.withStatement(sql, (st) => st.run(params));
  }

  // Changes made so far by every statement (sqlite3_total_changes64): a
  // statement's run result is taken against this.
  totalChanges() { return this.M._sqlite3_total_changes64(this.db); }

  // What a statement did, given totalChanges() before it: the rows it
  // changed (0 when it changed none, as better-sqlite3 says: SQLite's
  // sqlite3_changes() keeps the count of the last statement that changed
  // rows) and the last rowid inserted.
  runResult(before) {
    const M = this.M;
    const changes = M._sqlite3_total_changes64(this.db) === before ? 0 : Number(M._sqlite3_changes64(this.db));
    return { changes, lastInsertRowid: fromInt64(M._sqlite3_last_insert_rowid(this.db)) };
  }

  // ---- Transactions across calls (the main thread's transaction(), and
  // the sync one): txBegin() then txEnd(commit).  SQLite may end the
  // transaction on its own (a rollback after OR ROLLBACK, SQLITE_FULL, an
  // interrupted write), and SQL run inside it may end it (COMMIT,
  // ROLLBACK); from then on every statement is refused until txEnd(),
  // since it would run in autocommit and stay whatever transaction()
  // reports.  The commit and rollback hooks count ended transactions
  // (txEnds), so a transaction ended and another begun by SQL is seen too.

  // Whether the outermost txBegin()'s transaction has ended.
  txGone() {
    return this.M._sqlite3_get_autocommit(this.db) !== 0 || this.txEnds() !== this.txMark;
  }

  // Refuse a statement while a txBegin()'s transaction is gone.
  assertTx() {
    if (this.txStack.length && this.txGone()) throw this.txGoneError();
  }

  // Gone without a failed statement: SQL run inside it (COMMIT, END,
  // ROLLBACK) ended it.
  txGoneError() {
    const what = this.txLost ? `the transaction was rolled back by SQLite after a statement failed (${this.txLost})`
      : 'the transaction was ended by SQL run inside it (COMMIT, END or ROLLBACK; what that committed stays committed)';
    return new SqliteError(`${what}: nothing more runs in it, and it cannot commit`, SQLITE_ABORT_ROLLBACK);
  }

  // e (a statement's error), noted when the transaction is gone after it.
  noteFailure(e) {
    if (this.txStack.length && this.txLost === null && this.txGone()) this.txLost = e.message;
    return e;
  }

  // Begin a transaction, or a savepoint inside one.
  txBegin() {
    this.assertOpen();
    this.assertTx();
    let name = null;
    if (this.M._sqlite3_get_autocommit(this.db)) {
      this.execRaw('BEGIN');
    } else {
      name = `tc_sp_${this.txStack.length}`;
      this.execRaw(`SAVEPOINT ${name}`);
    }
    if (this.txStack.length === 0) {
      this.txMark = this.txEnds();
      this.txLost = null;
    }
    this.txStack.push(name);
  }

  // End the innermost txBegin(): commit (release) or roll back.  A commit
  // that fails rolls back and throws; so does one of a transaction that is
  // gone (SQLITE_ABORT_ROLLBACK).
  txEnd(commit) {
    this.assertOpen();
    if (this.txStack.length === 0) throw new SqliteError('no transaction begun by the API is open', SQLITE_MISUSE);
    const gone = this.txGone() ? this.txGoneError() : null;
    const name = this.txStack.pop();
    if (this.txStack.length === 0) this.txLost = null;
    if (gone) {
      if (commit) throw gone;
      return;
    }
    if (name === null) {
      if (commit) {
        try { this.execRaw('COMMIT'); } catch (e) { if (this.inTransaction) this.execRaw('ROLLBACK'); throw e; }
      } else {
        this.execRaw('ROLLBACK');
      }
    } else {
      if (!commit) this.execRaw(`ROLLBACK TO ${name}`);
      this.execRaw(`RELEASE ${name}`);
    }
  }

  // fn() inside txBegin()/txEnd(): committed when it returns, rolled back
  // when it throws.
  transaction(fn) {
    this.txBegin();
    let result;
    try {
      result = fn();
      if (result && typeof result.then === 'function') {
        throw new TypeError('the synchronous transaction(fn) needs a synchronous fn (it returned a Promise)');
      }
    } catch (e) {
      this.txEnd(false);
      throw e;
    }
    this.txEnd(true);
    return result;
  }

  // Several statements in one transaction; [sql, params] or sql each.
  // Result per statement: its rows (if any), changes, and its result
  // columns (none for a statement that returns no rows).  A single
  // statement is all or nothing by itself: it runs as it is, with no
  // transaction around it (so that PRAGMA foreign_keys and VACUUM work),
  // and its error is the statement's own (of several, the message names
  // the one that failed).
  batch(list, options) {
    if (!Array.isArray(list)) throw new TypeError('batch() takes an array of [sql, params] entries');
    const mode = rowModeOf(options);
    const all = (fn) => (list.length === 1 ? fn() : this.transaction(fn));
    return all(() => list.map((entry, i) => {
      const [sql, params] = typeof entry === 'string' ? [entry, undefined] : entry;
      try {
        return this.withStatement(sql, (st) => {
          const before = this.totalChanges();
          const rows = st.all(params, { rowMode: mode });
          const res = st.readonly ? { changes: 0, lastInsertRowid: 0 } : this.runResult(before);
          return { rows, ...res, columns: [...st.columns()] };
        });
      } catch (e) {
        if (list.length > 1) e.message = `batch statement ${i}: ${e.message}`;
        throw e;
      }
    }));
  }

  // Copy the main database of src over ours, in one transaction.
  backupFrom(src) {
    this.assertOpen();
    const M = this.M;
    if (!M._sqlite3_get_autocommit(this.db)) throw new SqliteError('import: not possible inside a transaction', SQLITE_MISUSE);
    this.engine.withCString('main', (zMain) => {
      const b = M._sqlite3_backup_init(this.db, zMain, src.db, zMain);
      if (!b) throw this.engine.error(this.db, M._sqlite3_errcode(this.db));
      let rc;
      do { rc = M._sqlite3_backup_step(b, 256); } while (rc === SQLITE_OK);
      const rcFinish = M._sqlite3_backup_finish(b);
      if (rc !== SQLITE_DONE || rcFinish !== SQLITE_OK) throw this.engine.error(this.db, rc !== SQLITE_DONE ? rc : rcFinish);
    });
  }

  // The main database as bytes (sqlite3_serialize).
  export() {
    this.assertOpen();
    const M = this.M;
    return this.engine.withCString('main', (zMain) => this.engine.withScratch(8, (pSize) => {
      const p = M._sqlite3_serialize(this.db, zMain, pSize, 0);
      if (!p) throw this.engine.error(this.db, SQLITE_NOMEM);
      const n = Number(new BigInt64Array(M.HEAPU8.buffer, pSize, 1)[0]);
      const out = M.HEAPU8.slice(p, p + n);
      M._sqlite3_free(p);
      return out;
    }));
  }

  // open() -> a Statement on sqlite_dbpage (the export's reader), and the
  // call to make once it is finalized.  Such a statement makes SQLite open
  // the TEMP database (it reads under every schema), after which SQLite
  // refuses a temp_store change inside a transaction; so a TEMP database
  // that did not exist before and that no other statement ran with since
  // is closed again at the end, by a temp_store change to another value
  // and back (SQLite closes TEMP at such a change outside a transaction;
  // the setting ends as it was).  Otherwise, or inside a transaction, TEMP
  // stays as SQLite has it.
  withoutTemp(open) {
    const hasTemp = () => this.query('PRAGMA database_list', null, { rowMode: 'array' }).some((r) => r[1] === 'temp');
    if (hasTemp()) return [open(), () => {}];
    const st = open();
    const mark = this.steps;
    this.quiet = st.ptr;
    return [st, () => {
      this.quiet = 0;
      if (!this.db || this.steps !== mark || !this.M._sqlite3_get_autocommit(this.db) || !hasTemp()) return;
      const ts = this.query('PRAGMA temp_store', null, { rowMode: 'array' })[0][0];
      this.execRaw(`PRAGMA temp_store=${ts === 1 ? 2 : 1}; PRAGMA temp_store=${ts}`);
    }];
  }

  get inTransaction() {
    return this.db ? this.M._sqlite3_get_autocommit(this.db) === 0 : false;
  }

  // fn() under a time limit of ms (none if falsy): past it, the running
  // statement fails with SQLITE_INTERRUPT and the connection stays usable.
  // Inside another call's limit (a sync transaction(fn) and the calls of
  // fn), the nearer of the two applies, and the outer one again after.
  // After the outermost call, the memory tier gets back the blocks of the
  // TEMP database's free pages (a dropped TEMP table's), which SQLite's
  // page cache may not have told the file of yet (sqlite3_tempcrypt_reclaim
  // in src/tempcrypt.h: nothing to do inside a transaction or while a
  // statement runs, cheap without a TEMP commit since the last call, no
  // wait for a main database another connection holds: then a later call).
  withDeadline(ms, fn) {
    const outermost = this.deadline === null;
    try {
      return this.withLimit(ms, fn);
    } finally {
      if (outermost && this.db) this.M._sqlite3_tempcrypt_reclaim(this.db);
    }
  }

  withLimit(ms, fn) {
    const outer = this.deadline;   // { at, ms }, or null
    const mine = ms && this.db ? { at: performance.now() + ms, ms } : null;
    const limit = mine && (!outer || mine.at < outer.at) ? mine : outer;
    if (limit === outer) return fn();
    const set = (d) => { if (this.db) this.M._tc_set_deadline(this.db, d ? Math.max(d.at - performance.now(), 0.001) : 0); };
    this.deadline = limit;
    set(limit);
    try {
      return fn();
    } catch (e) {
      if (e && e.code === SQLITE_INTERRUPT) e.message = `interrupted: the call ran over its time limit (timeoutMs ${ms})`;
      throw e;
    } finally {
      this.deadline = outer;
      set(outer);
    }
  }

  close() {
    if (!this.db) return;
    for (const st of [...this.stmts]) st.finalize();
    this.txStack = [];
    const rc = this.M._sqlite3_close_v2(this.db);
    if (rc !== SQLITE_OK) throw this.engine.error(this.db, rc);
    this.db = 0;
    this.M._free(this.watch);
    this.watch = 0;
  }
}

// The key of params that holds the value of parameter name (':x', '@x' or
// '$x'): the name with or without its prefix, else a key that is one of
// these once encoded as SQLite has it (a lone surrogate becomes U+FFFD in
// the SQL as in the key).
function keyOf(params, name) {
  const names = [name, name.slice(1)];
  const own = names.find((n) => Object.prototype.hasOwnProperty.call(params, n));
  return own ?? Object.keys(params).find((k) => names.includes(wellFormed(k)));
}
