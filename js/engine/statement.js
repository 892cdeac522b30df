// A prepared statement of one Connection (./connection.js): bind, step,
// rows as objects or arrays, and a cursor held across calls (open, page).
import { SqliteError } from '../shared/errors.js';
import { SQLITE_ROW, SQLITE_MISUSE } from '../shared/constants.js';
import { fromSqlite, COLUMN, cstringAt } from './values.js';

const ROW_MODES = ['object', 'array'];

// The rowMode of an options object ('object' unless said otherwise).
export function rowModeOf(options) {
  const mode = options?.rowMode ?? 'object';
  if (!ROW_MODES.includes(mode)) throw new TypeError(`rowMode must be 'object' or 'array', not ${String(mode)}`);
  return mode;
}

export class Statement {
  constructor(conn, ptr) {
    this.conn = conn;
    this.M = conn.M;
    this.ptr = ptr;
    this.names = null;
    this.busy = false;       // stepping through rows (iterate / a cursor)
    conn.stmts.add(this);
  }

  assertLive() {
    if (!this.ptr) throw new SqliteError('statement is finalized', SQLITE_MISUSE);
    this.conn.assertOpen();
  }

  // The result column names (empty for a statement that returns no rows).
  columns() {
    this.assertLive();
    if (!this.names) {
      const M = this.M;
      const n = M._sqlite3_column_count(this.ptr);
      this.names = [];
      for (let i = 0; i < n; i++) this.names.push(cstringAt(M, M._sqlite3_column_name(this.ptr, i)));
    }
    return this.names;
  }

  get readonly() {
    this.assertLive();
    return this.M._sqlite3_stmt_readonly(this.ptr) !== 0;
  }

  // Reset, clear the old bindings and bind params for a new execution
  // (refused once the API's transaction is gone: see Connection.assertTx).
  start(params) {
    this.assertLive();
    if (this.busy) throw new SqliteError('statement is busy (an iteration over its rows is still open)', SQLITE_MISUSE);
    this.conn.assertTx();
    this.M._sqlite3_reset(this.ptr);
    this.M._sqlite3_clear_bindings(this.ptr);
    this.conn.bind(this.ptr, params);
  }

  // One step: true when a row is ready.
  step() {
    return this.conn.step(this.ptr) === SQLITE_ROW;
  }

  row(mode) {
    const names = this.columns();
    const { M, ptr } = this;
    if (mode === 'array') {
      const out = new Array(names.length);
      for (let i = 0; i < names.length; i++) out[i] = fromSqlite(M, COLUMN, ptr, i);
      return out;
    }
    const out = {};
    for (let i = 0; i < names.length; i++) out[names[i]] = fromSqlite(M, COLUMN, ptr, i);
    return out;
  }

  reset() {
    this.busy = false;
    if (this.ptr) this.M._sqlite3_reset(this.ptr);
  }

  all(params, options) {
    const mode = rowModeOf(options);
    this.start(params);
    const rows = [];
    try {
      while (this.step()) rows.push(this.row(mode));
    } finally { this.reset(); }
    return rows;
  }

  get(params, options) {
    const mode = rowModeOf(options);
    this.start(params);
    try {
      return this.step() ? this.row(mode) : undefined;
    } finally { this.reset(); }
  }

  run(params) {
    const before = this.conn.totalChanges();
    this.start(params);
    try {
      while (this.step()) { /* discard rows */ }
    } finally { this.reset(); }
    return this.conn.runResult(before);
  }

  // Rows one at a time; the statement is busy until the loop ends.
  * iterate(params, options) {
    const mode = rowModeOf(options);
    this.start(params);
    this.busy = true;
    try {
      while (this.step()) yield this.row(mode);
    } finally { this.reset(); }
  }

  // Page through the rows (a cursor held across calls): open(params), then
  // page(n) until done.
  open(params, options) {
    const mode = rowModeOf(options);
    this.start(params);
    this.busy = true;
    this.mode = mode;
  }

  page(n) {
    this.assertLive();
    if (!this.busy) throw new SqliteError('statement has no open cursor', SQLITE_MISUSE);
    const rows = [];
    try {
      while (rows.length < n) {
        if (!this.step()) { this.reset(); return { rows, done: true }; }
        rows.push(this.row(this.mode));
      }
    } catch (e) { this.reset(); throw e; }
    return { rows, done: false };
  }

  finalize() {
    if (!this.ptr) return;
    this.M._sqlite3_finalize(this.ptr);
    this.ptr = 0;
    this.busy = false;
    this.conn.stmts.delete(this);
  }
}
