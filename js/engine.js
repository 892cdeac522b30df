// The synchronous engine: one wasm instance of SQLite + tempcrypt + the
// "opfs" VFS, over one storage backend, and the Database class on top.
// Used directly by the worker entry (./worker.js) and, behind postMessage,
// by the main-thread API (./index.js).

import createSqliteModule from './sqlite3.mjs';
import { SqliteError, closedError } from './errors.js';
import * as C from './constants.js';
import {
  SQLITE_OK, SQLITE_ROW, SQLITE_DONE, SQLITE_NOMEM, SQLITE_MISUSE, SQLITE_RANGE, SQLITE_CORRUPT, SQLITE_NOTADB,
  SQLITE_OPEN_READONLY, SQLITE_OPEN_READWRITE, SQLITE_OPEN_CREATE, SQLITE_OPEN_EXRESCODE, SQLITE_OPEN_MAIN_DB,
  SQLITE_PREPARE_PERSISTENT, SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB, SQLITE_TRANSIENT,
  SQLITE_DETERMINISTIC, SQLITE_DIRECTONLY, SQLITE_INTERRUPT,
} from './constants.js';
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER), MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const I64_MAX = (1n << 63n) - 1n, I64_MIN = -(1n << 63n);

export const STATS_FIELDS = ['nFileEncrypted', 'nFilePlain', 'nLogicalWrite', 'nLogicalRead',
  'nPhysicalWrite', 'nPhysicalRead', 'nEnciphered', 'nBlockRmw', 'nFailedBlockRead'];

const isNode = typeof process === 'object' && !!process.versions?.node && typeof window === 'undefined';

export { SqliteError };

let compiled = null;

// Compile the .wasm once per realm; `wasm` may be a URL, string, bytes or
// a WebAssembly.Module.
export function compileWasm(wasm) {
  if (wasm instanceof WebAssembly.Module) return Promise.resolve(wasm);
  if (wasm && typeof wasm === 'object' && (wasm instanceof ArrayBuffer || ArrayBuffer.isView(wasm))) {
    return WebAssembly.compile(wasm);
  }
  if (compiled && !wasm) return compiled;
  const url = wasm ? new URL(wasm, import.meta.url) : new URL('./sqlite3.wasm', import.meta.url);
  const p = (async () => {
    if (isNode && url.protocol === 'file:') {
      const fsName = 'node:fs/promises';
      const fs = await import(/* @vite-ignore */ fsName);
      return WebAssembly.compile(await fs.readFile(url));
    }
    const res = await fetch(url);
    if (!res.ok) throw new Error(`cannot load ${url}: HTTP ${res.status}`);
    return WebAssembly.compile(await res.arrayBuffer());
  })();
  if (!wasm) compiled = p;
  return p;
}

// A fresh wasm instance over `backend`, tempcrypt registered as default VFS.
export async function createEngine(backend, { wasm } = {}) {
  const module = await compileWasm(wasm);
  let fail;
  const failed = new Promise((resolve, reject) => { fail = reject; });
  const M = await Promise.race([failed, createSqliteModule({
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(module, imports).then((inst) => receive(inst, module), fail);
      return {};
    },
    print: (s) => console.log(s),
    printErr: (s) => console.warn(s),
  })]);
  const bridge = M.opfs;
  bridge.init(C, M._tc_code_count(), (i) => M._tc_codes(i));
  bridge.setBackend(backend);
  const rc = M._tc_init();
  if (rc !== SQLITE_OK) throw new SqliteError(`cannot initialize SQLite/tempcrypt: ${M.UTF8ToString(M._sqlite3_errstr(rc))}`, rc);
  return new Engine(M, backend);
}

const decoder = new TextDecoder();

// The entry points that may reach storage.  Engine.io holds each wrapped so
// that it first clears the bridge's last error: Engine.error() then appends
// only a storage error of this very call.
const IO_CALLS = ['_sqlite3_open_v2', '_sqlite3_close_v2', '_sqlite3_prepare_v3', '_sqlite3_step',
  '_sqlite3_backup_init', '_sqlite3_serialize', '_tc_stats', '_sqlite3_tempcrypt_set_enabled',
  '_tc_create_function', '_tc_create_collation'];

export class Engine {
  constructor(M, backend) {
    this.M = M;
    this.backend = backend;
    this.bridge = M.opfs;
    const bridge = this.bridge;
    this.io = {};
    for (const name of IO_CALLS) {
      // Fixed arity, no rest array: sqlite3_step is on this list, once per
      // row.  A wasm export ignores the arguments it does not take (builds
      // with emcc's ASSERTIONS, which count them, are not supported).
      this.io[name] = (a, b, c, d, e, f) => { bridge.lastError = null; return M[name](a, b, c, d, e, f); };
    }
    // db.tempcrypt of the synchronous API (worker.js hands this one out).
    this.tempcrypt = {
      stats: (reset = false) => this.stats(reset),
      setEnabled: (on) => this.io._sqlite3_tempcrypt_set_enabled(on ? 1 : 0) !== 0,
    };
  }

  // malloc(n), or SQLITE_NOMEM.
  malloc(n) {
    const p = this.M._malloc(n);
    if (!p) throw new SqliteError('out of memory', SQLITE_NOMEM);
    return p;
  }

  // Allocate a NUL-terminated UTF-8 copy of s; returns [ptr, nBytes].
  cstr(s) {
    const M = this.M;
    const n = M.lengthBytesUTF8(s);
    const p = this.malloc(n + 1);
    M.stringToUTF8(s, p, n + 1);
    return [p, n];
  }

  // Watch every VFS call (see the README's observation hook).
  setObserver(fn) { this.bridge.setObserver(fn); }

  // tempcrypt's counters, by name.
  stats(reset) {
    const M = this.M;
    // The names and their order come from tempcrypt.h (tc_stat_name);
    // STATS_FIELDS, the typed list, must match them.
    if (!this.statNames) {
      const names = Array.from({ length: M._tc_stat_count() }, (_, i) => M.UTF8ToString(M._tc_stat_name(i)));
      if (names.join() !== STATS_FIELDS.join()) throw new Error(`STATS_FIELDS (${STATS_FIELDS}) out of step with tempcrypt.h (${names})`);
      this.statNames = names;
    }
    const n = this.statNames.length;
    const p = this.malloc(8 * n);
    try {
      this.io._tc_stats(p, reset ? 1 : 0);
      const a = new Float64Array(M.HEAPU8.buffer, p, n);
      const out = {};
      this.statNames.forEach((k, i) => { out[k] = a[i]; });
      return out;
    } finally {
      M._free(p);
    }
  }

  open(name, { readOnly = false } = {}) {
    const M = this.M;
    const [zName] = this.cstr(name);
    let pDb;
    try { pDb = this.malloc(4); } catch (e) { M._free(zName); throw e; }
    try {
      const flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_EXRESCODE;
      const rc = this.io._sqlite3_open_v2(zName, pDb, flags, 0);
      const db = M.HEAP32 ? M.HEAP32[pDb >> 2] : new Int32Array(M.HEAPU8.buffer, pDb, 1)[0];
      if (rc !== SQLITE_OK) {
        const err = this.error(db, rc);
        if (db) M._sqlite3_close_v2(db);
        throw err;
      }
      return new Database(this, db, name);
    } finally {
      M._free(zName);
      M._free(pDb);
    }
  }

  // An SqliteError for rc, with SQLite's message and the VFS's last error.
  error(db, rc) {
    const M = this.M;
    const code = db ? M._sqlite3_extended_errcode(db) : rc;
    let msg = M.UTF8ToString(db ? M._sqlite3_errmsg(db) : M._sqlite3_errstr(rc));
    const e = this.bridge.lastError;
    if (e) {
      msg += ` (storage: ${e.name && e.name !== 'Error' ? e.name + ': ' : ''}${e.message || e})`;
      this.bridge.lastError = null;
    }
    const err = new SqliteError(msg, code || rc);
    if (e) err.cause = e;
    return err;
  }
}


const ROW_MODES = ['object', 'array'];
let nextHandlerId = 0;
// What a function handler is called for (TC_FUNC_* in glue.c).
const FUNC_STEP = 1;

// The rowMode of an options object ('object' unless said otherwise).
export function rowModeOf(options) {
  const mode = options?.rowMode ?? 'object';
  if (!ROW_MODES.includes(mode)) throw new TypeError(`rowMode must be 'object' or 'array', not ${String(mode)}`);
  return mode;
}

const fullPath = (name) => (name.startsWith('/') ? name : '/' + name);
const MAGIC = 'SQLite format 3\0';

// Check the 100-byte header of an SQLite file of `size` bytes; returns the
// page size, or throws SQLITE_NOTADB / SQLITE_CORRUPT saying what is wrong.
export function checkSqliteHeader(head, size) {
  if (size < 100 || decoder.decode(head.subarray(0, 16)) !== MAGIC) {
    throw new SqliteError(`import: not an SQLite database (${size} bytes; it does not start with "SQLite format 3")`, SQLITE_NOTADB);
  }
  const dv = new DataView(head.buffer, head.byteOffset, 100);
  let pageSize = dv.getUint16(16);
  if (pageSize === 1) pageSize = 65536;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) {
    throw new SqliteError(`import: not an SQLite database (page size ${pageSize} in the header)`, SQLITE_NOTADB);
  }
  if (size % pageSize !== 0) {
    throw new SqliteError(`import: damaged database: ${size} bytes is not a whole number of ${pageSize}-byte pages (truncated?)`, SQLITE_CORRUPT);
  }
  const nPage = dv.getUint32(28);
  if (nPage !== 0 && dv.getUint32(24) === dv.getUint32(92) && nPage * pageSize > size) {
    throw new SqliteError(`import: damaged database: its header says ${nPage} pages but the file holds ${size / pageSize} (truncated?)`, SQLITE_CORRUPT);
  }
  return pageSize;
}

// A prepared statement (one SQL statement), reusable until finalize().
export class Statement {
  constructor(database, ptr) {
    this.database = database;
    this.M = database.M;
    this.ptr = ptr;
    this.names = null;
    this.busy = false;       // stepping through rows (iterate / a cursor)
    database.stmts.add(this);
  }

  assertLive() {
    if (!this.ptr) throw new SqliteError('statement is finalized', SQLITE_MISUSE);
    this.database.assertOpen();
  }

  // The result column names (empty for a statement that returns no rows).
  columns() {
    this.assertLive();
    if (!this.names) {
      const M = this.M;
      const n = M._sqlite3_column_count(this.ptr);
      this.names = [];
      for (let i = 0; i < n; i++) this.names.push(M.UTF8ToString(M._sqlite3_column_name(this.ptr, i)));
    }
    return this.names;
  }

  get readonly() {
    this.assertLive();
    return this.M._sqlite3_stmt_readonly(this.ptr) !== 0;
  }

  // Reset, clear the old bindings and bind params for a new execution.
  start(params) {
    this.assertLive();
    if (this.busy) throw new SqliteError('statement is busy (an iteration over its rows is still open)', SQLITE_MISUSE);
    const M = this.M;
    M._sqlite3_reset(this.ptr);
    M._sqlite3_clear_bindings(this.ptr);
    this.database.bind(this.ptr, params);
  }

  // One step: true when a row is ready.
  step() {
    return this.database.check(this.database.io._sqlite3_step(this.ptr)) === SQLITE_ROW;
  }

  row(mode) {
    const names = this.columns();
    const db = this.database;
    if (mode === 'array') {
      const out = new Array(names.length);
      for (let i = 0; i < names.length; i++) out[i] = db.column(this.ptr, i);
      return out;
    }
    const out = {};
    for (let i = 0; i < names.length; i++) out[names[i]] = db.column(this.ptr, i);
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
    this.start(params);
    try {
      while (this.step()) { /* discard rows */ }
    } finally { this.reset(); }
    return this.database.runResult();
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
    this.database.stmts.delete(this);
  }
}

// A database being imported: the bytes go in chunks into a staging file in
// the same storage; finish() checks them and copies them over the database
// in one transaction (the backup API), so a failure leaves it as it was.
export class ImportSink {
  constructor(database) {
    this.database = database;
    this.backend = database.engine.backend;
    this.name = `${database.name}-tcimport`;
    this.path = fullPath(this.name);
    if (this.backend.xAccess(this.path)) this.backend.xDelete(this.path);
    this.handle = this.backend.xOpen(this.path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_MAIN_DB);
    this.head = new Uint8Array(100);
    this.size = 0;
  }

  write(chunk) {
    if (!this.handle) throw new SqliteError('import: already finished', SQLITE_MISUSE);
    if (!(chunk instanceof Uint8Array)) throw new TypeError('import: chunks must be Uint8Array');
    if (chunk.length === 0) return;
    if (this.size < 100) this.head.set(chunk.subarray(0, 100 - this.size), this.size);
    this.backend.xWrite(this.handle, chunk, this.size);
    this.size += chunk.length;
  }

  finish() {
    const db = this.database;
    try {
      checkSqliteHeader(this.head, this.size);
      // A WAL-mode file comes in as a rollback-journal one (no WAL here).
      if (this.head[18] === 2 || this.head[19] === 2) this.backend.xWrite(this.handle, new Uint8Array([1, 1]), 18);
      this.backend.xClose(this.handle);
      this.handle = null;
      const src = db.engine.open(this.name, { readOnly: true });
      try {
        let check;
        try {
          check = src.query('PRAGMA quick_check', null, { rowMode: 'array' }).map((r) => r[0]);
        } catch (e) {
          throw Object.assign(new SqliteError(`import: damaged database: ${e.message}`, e.code), { cause: e });
        }
        if (check.length !== 1 || check[0] !== 'ok') {
          throw new SqliteError(`import: damaged database (quick_check: ${check.slice(0, 3).join('; ')})`, SQLITE_CORRUPT);
        }
        db.backupFrom(src);
      } finally {
        src.close();
      }
    } finally {
      this.abort();
    }
  }

  // Drop the staging file.
  abort() {
    if (this.handle) { this.backend.xClose(this.handle); this.handle = null; }
    if (this.backend.xAccess(this.path)) this.backend.xDelete(this.path);
  }
}

export class Database {
  constructor(engine, db, name) {
    this.engine = engine;
    this.M = engine.M;
    this.io = engine.io;
    this.db = db;
    this.name = name;
    this.stmts = new Set();      // live prepared statements
    this.txStack = [];           // transactions begun by txBegin()
    this.callbackError = null;   // thrown by a collation, reported by check()
  }

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
  // stmt 0 for blanks or a comment.
  prepareAt(cur, end, flags, pp) {
    const M = this.M;
    const rc = this.io._sqlite3_prepare_v3(this.db, cur, end - cur, flags, pp, pp + 4);
    const h32 = new Int32Array(M.HEAPU8.buffer, pp, 2);
    const out = [h32[0], h32[1]];
    this.check(rc);
    return out;
  }

  // Run sql through a callback per statement (each finalized after it).
  forEachStatement(sql, onStmt) {
    this.assertOpen();
    const M = this.M;
    const [zSql, n] = this.engine.cstr(sql);
    let pp;
    try { pp = this.engine.malloc(8); } catch (e) { M._free(zSql); throw e; }
    try {
      let cur = zSql;
      const end = zSql + n;
      while (cur < end) {
        const [stmt, tail] = this.prepareAt(cur, end, 0, pp);
        cur = tail;
        if (!stmt) continue;   // whitespace or comment
        try { onStmt(stmt); } finally { M._sqlite3_finalize(stmt); }
      }
    } finally {
      M._free(zSql);
      M._free(pp);
    }
  }

  // A Statement for sql, which must hold exactly one statement.
  prepare(sql, { persistent = true } = {}) {
    this.assertOpen();
    if (typeof sql !== 'string') throw new TypeError('sql must be a string');
    const M = this.M;
    const [zSql, n] = this.engine.cstr(sql);
    let pp;
    try { pp = this.engine.malloc(8); } catch (e) { M._free(zSql); throw e; }
    let stmt = 0;
    try {
      const end = zSql + n;
      let [first, cur] = this.prepareAt(zSql, end, persistent ? SQLITE_PREPARE_PERSISTENT : 0, pp);
      stmt = first;
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
      M._free(zSql);
      M._free(pp);
    }
  }

  // Run fn over a one-off statement for sql.
  withStatement(sql, fn) {
    const st = this.prepare(sql, { persistent: false });
    try { return fn(st); } finally { st.finalize(); }
  }

  bind(stmt, params) {
    const M = this.M;
    const n = M._sqlite3_bind_parameter_count(stmt);
    if (params == null) {
      if (n > 0) throw new SqliteError(`statement has ${n} parameter(s) but none were given`, SQLITE_RANGE);
      return;
    }
    if (Array.isArray(params)) {
      if (params.length !== n) throw new SqliteError(`statement has ${n} parameter(s) but ${params.length} were given`, SQLITE_RANGE);
      for (let i = 0; i < n; i++) this.bindOne(stmt, i + 1, params[i]);
      return;
    }
    if (typeof params !== 'object') throw new TypeError('params must be an array or an object of named values');
    for (let i = 1; i <= n; i++) {
      const pName = M._sqlite3_bind_parameter_name(stmt, i);
      if (!pName) throw new SqliteError(`parameter ${i} is positional; pass params as an array`, SQLITE_RANGE);
      const full = M.UTF8ToString(pName);
      const key = Object.prototype.hasOwnProperty.call(params, full) ? full : full.slice(1);
      if (!Object.prototype.hasOwnProperty.call(params, key)) throw new SqliteError(`no value for parameter ${full}`, SQLITE_RANGE);
      this.bindOne(stmt, i, params[key]);
    }
  }

  bindOne(stmt, i, v) {
    const M = this.M;
    let rc;
    if (v === null || v === undefined) {
      rc = M._sqlite3_bind_null(stmt, i);
    } else if (typeof v === 'number') {
      rc = Number.isSafeInteger(v) ? M._sqlite3_bind_int64(stmt, i, BigInt(v)) : M._sqlite3_bind_double(stmt, i, v);
    } else if (typeof v === 'bigint') {
      if (v > I64_MAX || v < I64_MIN) throw new SqliteError(`BigInt ${v} does not fit in a 64-bit integer`, SQLITE_RANGE);
      rc = M._sqlite3_bind_int64(stmt, i, v);
    } else if (typeof v === 'boolean') {
      rc = M._sqlite3_bind_int64(stmt, i, v ? 1n : 0n);
    } else if (typeof v === 'string') {
      const [p, n] = this.engine.cstr(v);
      try { rc = M._sqlite3_bind_text(stmt, i, p, n, SQLITE_TRANSIENT); } finally { M._free(p); }
    } else if (v instanceof Uint8Array || v instanceof ArrayBuffer || ArrayBuffer.isView(v)) {
      const bytes = v instanceof Uint8Array ? v : v instanceof ArrayBuffer ? new Uint8Array(v) : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
      const p = this.engine.malloc(Math.max(1, bytes.length));
      try {
        M.HEAPU8.set(bytes, p);
        rc = M._sqlite3_bind_blob(stmt, i, p, bytes.length, SQLITE_TRANSIENT);
      } finally { M._free(p); }
    } else {
      throw new TypeError(`cannot bind a value of type ${typeof v} (parameter ${i})`);
    }
    this.check(rc);
  }

  column(stmt, i) {
    const M = this.M;
    switch (M._sqlite3_column_type(stmt, i)) {
      case SQLITE_INTEGER: {
        const v = M._sqlite3_column_int64(stmt, i);
        return v <= MAX_SAFE && v >= MIN_SAFE ? Number(v) : v;
      }
      case SQLITE_FLOAT: return M._sqlite3_column_double(stmt, i);
      case SQLITE_TEXT: {
        const p = M._sqlite3_column_text(stmt, i);
        const n = M._sqlite3_column_bytes(stmt, i);
        return decoder.decode(M.HEAPU8.subarray(p, p + n));
      }
      case SQLITE_BLOB: {
        const p = M._sqlite3_column_blob(stmt, i);
        const n = M._sqlite3_column_bytes(stmt, i);
        return M.HEAPU8.slice(p, p + n);
      }
      default: return null;
    }
  }

  exec(sql) {
    this.forEachStatement(sql, (stmt) => {
      while (this.check(this.io._sqlite3_step(stmt)) !== SQLITE_DONE) { /* next row */ }
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
    const changes = Number(M._sqlite3_changes64(this.db));
    const id = M._sqlite3_last_insert_rowid(this.db);
    return { changes, lastInsertRowid: id <= MAX_SAFE && id >= MIN_SAFE ? Number(id) : id };
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
    if (!this.M._sqlite3_get_autocommit(this.db)) throw new SqliteError('import: not possible inside a transaction', SQLITE_MISUSE);
    const M = this.M;
    const [zMain] = this.engine.cstr('main');
    try {
      const b = this.io._sqlite3_backup_init(this.db, zMain, src.db, zMain);
      if (!b) throw this.engine.error(this.db, M._sqlite3_errcode(this.db));
      let rc;
      do { rc = M._sqlite3_backup_step(b, 256); } while (rc === SQLITE_OK);
      const rcFinish = M._sqlite3_backup_finish(b);
      if (rc !== SQLITE_DONE || rcFinish !== SQLITE_OK) throw this.engine.error(this.db, rc !== SQLITE_DONE ? rc : rcFinish);
    } finally {
      M._free(zMain);
    }
  }

  // The main database as bytes (sqlite3_serialize).
  export() {
    this.assertOpen();
    const M = this.M;
    const [zMain] = this.engine.cstr('main');
    let pSize;
    try { pSize = this.engine.malloc(8); } catch (e) { M._free(zMain); throw e; }
    try {
      const p = this.io._sqlite3_serialize(this.db, zMain, pSize, 0);
      if (!p) throw this.engine.error(this.db, SQLITE_NOMEM);
      const n = Number(new BigInt64Array(M.HEAPU8.buffer, pSize, 1)[0]);
      const out = M.HEAPU8.slice(p, p + n);
      M._sqlite3_free(p);
      return out;
    } finally {
      M._free(zMain);
      M._free(pSize);
    }
  }

  get inTransaction() {
    return this.db ? this.M._sqlite3_get_autocommit(this.db) === 0 : false;
  }

  // ---- user-defined functions, aggregates, collations (C trampolines in
  // glue.c call the handlers registered in M.tcapi by id).
  register(handler, create) {
    this.assertOpen();
    const id = ++nextHandlerId;
    this.M.tcapi.handlers.set(id, handler);
    const rc = create(id);   // on failure SQLite drops the handler (xDestroy)
    if (rc !== SQLITE_OK) throw this.engine.error(this.db, rc);
  }

  // fn(...args) as an SQL function.  nArg: fn.length unless varargs.
  createFunction(name, fn, options = {}) {
    if (typeof fn !== 'function') throw new TypeError('function(name, fn): fn must be a function');
    const M = this.M;
    const handler = {
      call: (kind, ctx, argc, argv) => {
        try { this.result(ctx, fn(...this.args(argc, argv))); } catch (e) { this.resultError(ctx, e); }
      },
    };
    this.createAny(name, handler, options.varargs ? -1 : fn.length, options, false);
  }

  // An aggregate: start (a value or a function giving one), step(acc,
  // ...args) -> new acc (undefined keeps it), result(acc) -> the value.
  createAggregate(name, { start, step, result = (acc) => acc, ...options }) {
    if (typeof step !== 'function') throw new TypeError('aggregate(name, { step }): step must be a function');
    const M = this.M;
    const accs = new Map();
    let nextKey = 1;
    const init = () => (typeof start === 'function' ? start() : start ?? null);
    const handler = {
      call: (kind, ctx, argc, argv) => {
        let key = 0;
        try {
          const p = M._sqlite3_aggregate_context(ctx, kind === FUNC_STEP ? 4 : 0);
          if (kind === FUNC_STEP && !p) throw new SqliteError('out of memory', SQLITE_NOMEM);
          key = p ? M.HEAP32[p >> 2] : 0;
          if (kind === FUNC_STEP) {
            if (key === 0) { key = nextKey++; M.HEAP32[p >> 2] = key; accs.set(key, init()); }
            const next = step(accs.get(key), ...this.args(argc, argv));
            if (next !== undefined) accs.set(key, next);
          } else {
            const acc = key ? accs.get(key) : init();
            accs.delete(key);
            this.result(ctx, result(acc));
          }
        } catch (e) {
          if (kind !== FUNC_STEP) accs.delete(key);
          this.resultError(ctx, e);
        }
      },
    };
    this.createAny(name, handler, options.varargs ? -1 : Math.max(0, step.length - 1), options, true);
  }

  createAny(name, handler, nArg, options, aggregate) {
    if (typeof name !== 'string' || !name) throw new TypeError('a function needs a name');
    const flags = (options.deterministic ? SQLITE_DETERMINISTIC : 0) | (options.directOnly ? SQLITE_DIRECTONLY : 0);
    const [zName] = this.engine.cstr(name);
    try {
      this.register(handler, (id) => this.io._tc_create_function(this.db, zName, nArg, flags, id, aggregate ? 1 : 0));
    } finally { this.M._free(zName); }
  }

  // compare(a, b) -> negative, 0 or positive, as a collating sequence.
  createCollation(name, compare) {
    if (typeof compare !== 'function') throw new TypeError('collation(name, compare): compare must be a function');
    const M = this.M;
    const handler = {
      compare: (n1, p1, n2, p2) => {
        try {
          const r = compare(decoder.decode(M.HEAPU8.subarray(p1, p1 + n1)), decoder.decode(M.HEAPU8.subarray(p2, p2 + n2)));
          return r < 0 ? -1 : r > 0 ? 1 : 0;
        } catch (e) {
          this.callbackError = e;   // a comparison cannot fail in SQLite: check() throws it after the step
          return 0;
        }
      },
    };
    const [zName] = this.engine.cstr(name);
    try {
      this.register(handler, (id) => this.io._tc_create_collation(this.db, zName, id));
    } finally { M._free(zName); }
  }

  // The arguments of a function call as JS values (like column()).
  args(argc, argv) {
    const M = this.M;
    const out = new Array(argc);
    for (let i = 0; i < argc; i++) {
      const v = M.HEAP32[(argv >> 2) + i];
      switch (M._sqlite3_value_type(v)) {
        case SQLITE_INTEGER: {
          const x = M._sqlite3_value_int64(v);
          out[i] = x <= MAX_SAFE && x >= MIN_SAFE ? Number(x) : x;
          break;
        }
        case SQLITE_FLOAT: out[i] = M._sqlite3_value_double(v); break;
        case SQLITE_TEXT: {
          const p = M._sqlite3_value_text(v);
          out[i] = decoder.decode(M.HEAPU8.subarray(p, p + M._sqlite3_value_bytes(v)));
          break;
        }
        case SQLITE_BLOB: {
          const p = M._sqlite3_value_blob(v);
          out[i] = M.HEAPU8.slice(p, p + M._sqlite3_value_bytes(v));
          break;
        }
        default: out[i] = null;
      }
    }
    return out;
  }

  // Return v from a function call (the types bind() accepts).
  result(ctx, v) {
    const M = this.M;
    if (v === null || v === undefined) M._sqlite3_result_null(ctx);
    else if (typeof v === 'number') {
      if (Number.isSafeInteger(v)) M._sqlite3_result_int64(ctx, BigInt(v)); else M._sqlite3_result_double(ctx, v);
    } else if (typeof v === 'bigint') {
      if (v > I64_MAX || v < I64_MIN) throw new SqliteError(`BigInt ${v} does not fit in a 64-bit integer`, SQLITE_RANGE);
      M._sqlite3_result_int64(ctx, v);
    } else if (typeof v === 'boolean') M._sqlite3_result_int64(ctx, v ? 1n : 0n);
    else if (typeof v === 'string') {
      const [p, n] = this.engine.cstr(v);
      try { M._sqlite3_result_text(ctx, p, n, SQLITE_TRANSIENT); } finally { M._free(p); }
    } else if (v instanceof Uint8Array || v instanceof ArrayBuffer || ArrayBuffer.isView(v)) {
      const bytes = v instanceof Uint8Array ? v : v instanceof ArrayBuffer ? new Uint8Array(v) : new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
      const p = this.engine.malloc(Math.max(1, bytes.length));
      try { M.HEAPU8.set(bytes, p); M._sqlite3_result_blob(ctx, p, bytes.length, SQLITE_TRANSIENT); } finally { M._free(p); }
    } else {
      throw new TypeError(`a function cannot return a value of type ${typeof v}`);
    }
  }

  // A JS exception in a function: the statement fails with its message.
  resultError(ctx, e) {
    const msg = e && e.message ? e.message : String(e);
    try {
      const [p, n] = this.engine.cstr(msg);
      try { this.M._sqlite3_result_error(ctx, p, n); } finally { this.M._free(p); }
    } catch {
      this.M._sqlite3_result_error(ctx, 0, 0);
    }
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
    const rc = this.io._sqlite3_close_v2(this.db);
    if (rc !== SQLITE_OK) throw this.engine.error(this.db, rc);
    this.db = 0;
  }
}
