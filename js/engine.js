// The synchronous engine: one wasm instance of SQLite + tempcrypt + the
// "opfs" VFS, over one storage backend, and the Database class on top.
// Used directly by the worker entry (./worker.js) and, behind postMessage,
// by the main-thread API (./index.js).

import createSqliteModule from './sqlite3.mjs';
import { SqliteError } from './errors.js';

const SQLITE_OK = 0, SQLITE_ROW = 100, SQLITE_DONE = 101;
const OPEN_READWRITE = 0x2, OPEN_CREATE = 0x4, OPEN_EXRESCODE = 0x02000000;
const SQLITE_TRANSIENT = -1;
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
  bridge.checkCodes(M._tc_code_count(), (i) => M._tc_codes(i));
  bridge.setBackend(backend);
  const rc = M._tc_init();
  if (rc !== SQLITE_OK) throw new SqliteError(`cannot initialize SQLite/tempcrypt: ${M.UTF8ToString(M._sqlite3_errstr(rc))}`, rc);
  return new Engine(M, backend);
}

const decoder = new TextDecoder();

export class Engine {
  constructor(M, backend) {
    this.M = M;
    this.backend = backend;
    this.bridge = M.opfs;
  }

  // malloc(n), or SQLITE_NOMEM.
  malloc(n) {
    const p = this.M._malloc(n);
    if (!p) throw new SqliteError('out of memory', 7);
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

  tempcryptStats(reset = false) {
    const M = this.M;
    this.bridge.lastError = null;
    const p = this.malloc(8 * 9);
    try {
      M._tc_stats(p, reset ? 1 : 0);
      const a = new Float64Array(M.HEAPU8.buffer, p, 9);
      const out = {};
      STATS_FIELDS.forEach((k, i) => { out[k] = a[i]; });
      return out;
    } finally {
      M._free(p);
    }
  }

  tempcryptSetEnabled(on) {
    this.bridge.lastError = null;
    return this.M._sqlite3_tempcrypt_set_enabled(on ? 1 : 0) !== 0;
  }

  open(name) {
    const M = this.M;
    this.bridge.lastError = null;
    const [zName] = this.cstr(name);
    let pDb;
    try { pDb = this.malloc(4); } catch (e) { M._free(zName); throw e; }
    try {
      const rc = M._sqlite3_open_v2(zName, pDb, OPEN_READWRITE | OPEN_CREATE | OPEN_EXRESCODE, 0);
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

export class Database {
  constructor(engine, db, name) {
    this.engine = engine;
    this.M = engine.M;
    this.db = db;
    this.name = name;
    this.tempcrypt = {
      stats: (reset) => engine.tempcryptStats(reset),
      setEnabled: (on) => engine.tempcryptSetEnabled(on),
    };
  }

  check(rc) {
    if (rc !== SQLITE_OK && rc !== SQLITE_ROW && rc !== SQLITE_DONE) throw this.engine.error(this.db, rc);
    return rc;
  }

  assertOpen() {
    if (!this.db) throw new SqliteError('database is closed', 21);
  }

  // Run each statement of sql in turn; call onStmt(stmt, isLast) for each
  // (isLast() says whether only blanks follow).  Returns what the last
  // onStmt returned.
  forEachStatement(sql, onStmt) {
    this.assertOpen();
    const M = this.M;
    this.engine.bridge.lastError = null;
    const [zSql, n] = this.engine.cstr(sql);
    let pp;
    try { pp = this.engine.malloc(8); } catch (e) { M._free(zSql); throw e; }
    let result;
    try {
      let cur = zSql;
      const end = zSql + n;
      while (cur < end) {
        this.engine.bridge.lastError = null;
        const rc = M._sqlite3_prepare_v3(this.db, cur, end - cur, 0, pp, pp + 4);
        const h32 = new Int32Array(M.HEAPU8.buffer, pp, 2);
        const stmt = h32[0];
        cur = h32[1];
        this.check(rc);
        if (!stmt) continue;   // whitespace or comment
        try {
          // Whether nothing but blanks and a ';' follow: computed only
          // when asked (query/run), not after every statement of exec().
          const rest = cur;
          result = onStmt(stmt, () => rest >= end || /^\s*;?\s*$/.test(M.UTF8ToString(rest, end - rest)));
        } finally {
          M._sqlite3_finalize(stmt);
        }
      }
    } finally {
      M._free(zSql);
      M._free(pp);
    }
    return result;
  }

  bind(stmt, params) {
    const M = this.M;
    const n = M._sqlite3_bind_parameter_count(stmt);
    if (params == null) {
      if (n > 0) throw new SqliteError(`statement has ${n} parameter(s) but none were given`, 25);
      return;
    }
    if (Array.isArray(params)) {
      if (params.length !== n) throw new SqliteError(`statement has ${n} parameter(s) but ${params.length} were given`, 25);
      for (let i = 0; i < n; i++) this.bindOne(stmt, i + 1, params[i]);
      return;
    }
    if (typeof params !== 'object') throw new TypeError('params must be an array or an object of named values');
    for (let i = 1; i <= n; i++) {
      const pName = M._sqlite3_bind_parameter_name(stmt, i);
      if (!pName) throw new SqliteError(`parameter ${i} is positional; pass params as an array`, 25);
      const full = M.UTF8ToString(pName);
      const key = Object.prototype.hasOwnProperty.call(params, full) ? full : full.slice(1);
      if (!Object.prototype.hasOwnProperty.call(params, key)) throw new SqliteError(`no value for parameter ${full}`, 25);
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
      if (v > I64_MAX || v < I64_MIN) throw new SqliteError(`BigInt ${v} does not fit in a 64-bit integer`, 25);
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
      case 1: {
        const v = M._sqlite3_column_int64(stmt, i);
        return v <= MAX_SAFE && v >= MIN_SAFE ? Number(v) : v;
      }
      case 2: return M._sqlite3_column_double(stmt, i);
      case 3: {
        const p = M._sqlite3_column_text(stmt, i);
        const n = M._sqlite3_column_bytes(stmt, i);
        return decoder.decode(M.HEAPU8.subarray(p, p + n));
      }
      case 4: {
        const p = M._sqlite3_column_blob(stmt, i);
        const n = M._sqlite3_column_bytes(stmt, i);
        return M.HEAPU8.slice(p, p + n);
      }
      default: return null;
    }
  }

  stepAll(stmt, wantRows) {
    const M = this.M;
    const rows = [];
    let names = null;
    for (;;) {
      this.engine.bridge.lastError = null;
      const rc = this.check(M._sqlite3_step(stmt));
      if (rc === SQLITE_DONE) break;
      if (!wantRows) continue;
      if (!names) {
        const nc = M._sqlite3_column_count(stmt);
        names = [];
        for (let i = 0; i < nc; i++) names.push(M.UTF8ToString(M._sqlite3_column_name(stmt, i)));
      }
      const row = {};
      for (let i = 0; i < names.length; i++) row[names[i]] = this.column(stmt, i);
      rows.push(row);
    }
    return rows;
  }

  exec(sql) {
    this.forEachStatement(sql, (stmt) => { this.stepAll(stmt, false); });
  }

  // Rows of a single statement, as plain objects.
  query(sql, params) {
    let count = 0;
    return this.forEachStatement(sql, (stmt, last) => {
      if (++count > 1 || !last()) throw new SqliteError('query() and run() take exactly one statement (use exec() for several)', 21);
      this.bind(stmt, params);
      return this.stepAll(stmt, true);
    });
  }

  run(sql, params) {
    this.query(sql, params);
    const M = this.M;
    const changes = Number(M._sqlite3_changes64(this.db));
    const id = M._sqlite3_last_insert_rowid(this.db);
    return { changes, lastInsertRowid: id <= MAX_SAFE && id >= MIN_SAFE ? Number(id) : id };
  }

  // The main database as bytes (sqlite3_serialize).
  export() {
    this.assertOpen();
    const M = this.M;
    this.engine.bridge.lastError = null;
    const [zMain] = this.engine.cstr('main');
    let pSize;
    try { pSize = this.engine.malloc(8); } catch (e) { M._free(zMain); throw e; }
    try {
      const p = M._sqlite3_serialize(this.db, zMain, pSize, 0);
      if (!p) throw this.engine.error(this.db, 7);
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

  close() {
    if (!this.db) return;
    this.engine.bridge.lastError = null;
    const rc = this.M._sqlite3_close_v2(this.db);
    if (rc !== SQLITE_OK) throw this.engine.error(this.db, rc);
    this.db = 0;
  }
}
