// One SQLite connection (a sqlite3*) in one wasm instance: statements,
// exec/query/run, transactions, batches, the backup and serialize calls
// and the per-call time limit.  Made by Engine.open() (./engine.js); the
// synchronous API (./sync-database.js) wraps it.
import { SqliteError, closedError } from './errors.js';
import {
  SQLITE_OK, SQLITE_ROW, SQLITE_DONE, SQLITE_NOMEM, SQLITE_MISUSE, SQLITE_RANGE, SQLITE_INTERRUPT,
  SQLITE_PREPARE_PERSISTENT,
} from './constants.js';
import { toSqlite, BIND, fromInt64 } from './values.js';
import { Statement, rowModeOf } from './statement.js';

export class Connection {
  constructor(engine, db, name) {
    this.engine = engine;
    this.M = engine.M;
    this.db = db;
    this.name = name;
    this.stmts = new Set();      // live prepared statements
    this.txStack = [];           // transactions begun by txBegin()
    this.callbackError = null;   // thrown by a collation, reported by check()
  }

  // rc, unless it is an error (or a callback failed): then throw it.
  check(rc) {
    if (this.callbackError) {
      const e = this.callbackError;
      this.callbackError = null;
      throw e;
    }
    if (rc !== SQLITE_OK && rc !== SQLITE_ROW && rc !== SQLITE_DONE) throw this.engine.error(this.db, rc);
    return rc;
  }

  assertOpen() {
    if (!this.db) throw closedError();
  }

  // Prepare the statement starting at cur (< end); returns [stmt, tail],
  // stmt 0 for blanks or a comment.  pp: scratch for the two pointers.
  prepareAt(cur, end, flags, pp) {
    const rc = this.M._sqlite3_prepare_v3(this.db, cur, end - cur, flags, pp, pp + 4);
    const out = [this.engine.i32(pp), this.engine.i32(pp + 4)];
    this.check(rc);
    return out;
  }

  // fn(zSql, end, pp) over a C copy of sql and pointer scratch.
  withSql(sql, fn) {
    return this.engine.withCString(sql, (zSql, n) => this.engine.withScratch(8, (pp) => fn(zSql, zSql + n, pp)));
  }

  // Run sql through a callback per statement (each finalized after it).
  forEachStatement(sql, onStmt) {
    this.assertOpen();
    this.withSql(sql, (zSql, end, pp) => {
      let cur = zSql;
      while (cur < end) {
        const [stmt, tail] = this.prepareAt(cur, end, 0, pp);
        cur = tail;
        if (!stmt) continue;   // whitespace or comment
        try { onStmt(stmt); } finally { this.M._sqlite3_finalize(stmt); }
      }
    });
  }

  // A Statement for sql, which must hold exactly one statement.
  prepare(sql, { persistent = true } = {}) {
    this.assertOpen();
    if (typeof sql !== 'string') throw new TypeError('sql must be a string');
    const M = this.M;
    return this.withSql(sql, (zSql, end, pp) => {
      let [stmt, cur] = this.prepareAt(zSql, end, persistent ? SQLITE_PREPARE_PERSISTENT : 0, pp);
      try {
        if (!stmt) throw new SqliteError('no SQL statement to prepare', SQLITE_MISUSE);
        while (cur < end) {   // only blanks and comments may follow
          const [next, tail] = this.prepareAt(cur, end, 0, pp);
          if (next) {
            M._sqlite3_finalize(next);
            throw new SqliteError('this call takes exactly one statement (use exec() or batch() for several)', SQLITE_MISUSE);
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
  withStatement(sql, fn) {
    const st = this.prepare(sql, { persistent: false });
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
      const full = M.UTF8ToString(pName);
      const key = Object.prototype.hasOwnProperty.call(params, full) ? full : full.slice(1);
      if (!Object.prototype.hasOwnProperty.call(params, key)) throw new SqliteError(`no value for parameter ${full}`, SQLITE_RANGE);
      this.check(toSqlite(this.engine, BIND, stmt, i, params[key]));
    }
  }

  exec(sql) {
    this.forEachStatement(sql, (stmt) => {
      while (this.check(this.M._sqlite3_step(stmt)) !== SQLITE_DONE) { /* next row */ }
    });
  }

  // Rows of a single statement (objects, or arrays with rowMode 'array').
  query(sql, params, options) {
    return this.withStatement(sql, (st) => st.all(params, options));
  }

  run(sql, params) {
    return this.withStatement(sql, (st) => st.run(params));
  }

  runResult() {
    const M = this.M;
    return { changes: Number(M._sqlite3_changes64(this.db)), lastInsertRowid: fromInt64(M._sqlite3_last_insert_rowid(this.db)) };
  }

  // Begin a transaction, or a savepoint inside one.
  txBegin() {
    this.assertOpen();
    if (this.M._sqlite3_get_autocommit(this.db)) {
      this.exec('BEGIN');
      this.txStack.push(null);
    } else {
      const name = `tc_sp_${this.txStack.length}`;
      this.exec(`SAVEPOINT ${name}`);
      this.txStack.push(name);
    }
  }

  // End the innermost txBegin(): commit (release) or roll back.  A commit
  // that fails rolls back and throws.
  txEnd(commit) {
    this.assertOpen();
    if (this.txStack.length === 0) throw new SqliteError('no transaction begun by the API is open', SQLITE_MISUSE);
    const name = this.txStack.pop();
    const open = () => this.M._sqlite3_get_autocommit(this.db) === 0;
    if (name === null) {
      if (commit) {
        try { this.exec('COMMIT'); } catch (e) { if (open()) this.exec('ROLLBACK'); throw e; }
      } else if (open()) {
        this.exec('ROLLBACK');
      }
    } else if (open()) {
      if (!commit) this.exec(`ROLLBACK TO ${name}`);
      this.exec(`RELEASE ${name}`);
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
  // Result per statement: its rows (if any) and changes.
  batch(list, options) {
    if (!Array.isArray(list)) throw new TypeError('batch() takes an array of [sql, params] entries');
    const mode = rowModeOf(options);
    return this.transaction(() => list.map((entry, i) => {
      const [sql, params] = typeof entry === 'string' ? [entry, undefined] : entry;
      try {
        return this.withStatement(sql, (st) => {
          const rows = st.all(params, { rowMode: mode });
          const res = st.readonly ? { changes: 0, lastInsertRowid: 0 } : this.runResult();
          return { rows, ...res };
        });
      } catch (e) {
        e.message = `batch statement ${i}: ${e.message}`;
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

  get inTransaction() {
    return this.db ? this.M._sqlite3_get_autocommit(this.db) === 0 : false;
  }

  // fn() under a time limit of ms (none if falsy): past it, the running
  // statement fails with SQLITE_INTERRUPT and the connection stays usable.
  withDeadline(ms, fn) {
    if (!ms || !this.db) return fn();
    this.M._tc_set_deadline(this.db, ms);
    try {
      return fn();
    } catch (e) {
      if (e && e.code === SQLITE_INTERRUPT) e.message = `interrupted: the call ran over its time limit (timeoutMs ${ms})`;
      throw e;
    } finally {
      if (this.db) this.M._tc_set_deadline(this.db, 0);
    }
  }

  close() {
    if (!this.db) return;
    for (const st of [...this.stmts]) st.finalize();
    this.txStack = [];
    const rc = this.M._sqlite3_close_v2(this.db);
    if (rc !== SQLITE_OK) throw this.engine.error(this.db, rc);
    this.db = 0;
  }
}
