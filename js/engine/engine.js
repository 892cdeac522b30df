// The wasm bindings: one instance of SQLite + tempcrypt + the "storage"
// VFS over one storage backend.  createEngine() compiles (once per realm)
// and instantiates the module, hands the backend to the VFS bridge
// (wasm/browser/storage_library.js) and registers tempcrypt as the default
// VFS; Engine.open() gives a Connection (./connection.js).
//
// Every C function of the module that js/ calls is written M._<name>(...):
// the build exports exactly those (mk/browser.mk reads them from js/).
import createSqliteModule from '../sqlite3.mjs';
import { SqliteError, storageCode } from '../shared/errors.js';
import * as C from '../shared/constants.js';
import { SQLITE_OK, SQLITE_NOMEM, SQLITE_OPEN_READONLY, SQLITE_OPEN_READWRITE, SQLITE_OPEN_CREATE, SQLITE_OPEN_EXRESCODE } from '../shared/constants.js';
import { isNode } from '../shared/platform.js';
import { Connection } from './connection.js';
import { utf8Length, utf8Into, cstringAt } from './values.js';
import { checkBudget } from '../shared/methods.js';

// tempcrypt's statistics (counters, then gauges), in order, as the C
// library has them (SQLITE_TEMPCRYPT_STATS in src/tempcrypt.h): filled by
// the first engine.
export const STATS_FIELDS = [];

let compiled = null;

// Compile the .wasm once per realm; `wasm` may be a URL, string, bytes or
// a WebAssembly.Module.
export function compileWasm(wasm) {
  if (wasm instanceof WebAssembly.Module) return Promise.resolve(wasm);
  if (wasm && typeof wasm === 'object' && (wasm instanceof ArrayBuffer || ArrayBuffer.isView(wasm))) {
    return WebAssembly.compile(wasm);
  }
  if (compiled && !wasm) return compiled;
  // The package's sqlite3.wasm, at its top (a bundler finds it by this
  // very expression); a relative `wasm` is relative to it.
  const own = new URL('../sqlite3.wasm', import.meta.url);
  const url = wasm ? new URL(wasm, own) : own;
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

// A fresh wasm instance over `backend`, tempcrypt registered as default
// VFS; tempBudget: the memory tier's budget (default: the C default),
// which also sizes the sorter's runs (glue.c, tc_init).
export async function createEngine(backend, { wasm, tempBudget } = {}) {
  const budget = tempBudget === undefined ? -1 : checkBudget(tempBudget);
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
  M.storage.init(backend, C, storageCode);
  const rc = M._tc_init(budget);
  if (rc !== SQLITE_OK) throw new SqliteError(`cannot initialize SQLite/tempcrypt: ${cstringAt(M, M._sqlite3_errstr(rc))}`, rc);
  if (STATS_FIELDS.length === 0) {
    for (let i = 0; i < M._tc_stat_count(); i++) STATS_FIELDS.push(cstringAt(M, M._tc_stat_name(i)));
  }
  return new Engine(M, backend);
}

export class Engine {
  constructor(M, backend) {
    this.M = M;
    this.backend = backend;
    this.bridge = M.storage;
    // db.tempcrypt of the synchronous API.
    this.tempcrypt = {
      stats: (reset = false) => this.stats(reset),
      setEnabled: (on) => M._sqlite3_tempcrypt_set_enabled(on ? 1 : 0) !== 0,
      budget: (bytes) => this.budget(bytes),
    };
  }

  // The memory tier's budget in bytes (sqlite3_tempcrypt_budget): sets it
  // to `bytes` (a whole number >= 0; 0: no tier) and returns the one it
  // replaced; without `bytes`, returns the budget in force.  The C budget
  // is per process, and each engine is a wasm instance of its own, so in
  // JS it is per database.
  budget(bytes) {
    return this.M._tc_budget(bytes === undefined ? -1 : checkBudget(bytes));
  }

  // malloc(n), or SQLITE_NOMEM.
  malloc(n) {
    const p = this.M._malloc(n);
    if (!p) throw new SqliteError('out of memory', SQLITE_NOMEM);
    return p;
  }

  // Allocate a NUL-terminated UTF-8 copy of s (./values.js: utf8Into);
  // returns [ptr, nBytes].
  cstr(s) {
    const n = utf8Length(s);
    const p = this.malloc(n + 1);
    utf8Into(this.M, s, p, n);
    return [p, n];
  }

  // fn(p) with p a scratch block of n bytes, freed afterwards.
  withScratch(n, fn) {
    const p = this.malloc(n);
    try { return fn(p); } finally { this.M._free(p); }
  }

  // fn(zS) with zS a C copy of s, freed afterwards.
  withCString(s, fn) {
    const [p, n] = this.cstr(s);
    try { return fn(p, n); } finally { this.M._free(p); }
  }

  // The 32-bit value at p.
  i32(p) { return this.M.HEAP32[p >> 2]; }

  // Watch every VFS call (the storage observer of the sync API).
  setObserver(fn) { this.bridge.setObserver(fn); }

  // tempcrypt's counters, by name.
  stats(reset) {
    const n = STATS_FIELDS.length;
    return this.withScratch(8 * n, (p) => {
      this.M._tc_stats(p, reset ? 1 : 0);
      const a = new Float64Array(this.M.HEAPU8.buffer, p, n);
      const out = {};
      STATS_FIELDS.forEach((k, i) => { out[k] = a[i]; });
      return out;
    });
  }

  // A Connection to database `name`, its transactions watched (the
  // commit and rollback hooks of glue.c, over two ints it owns).
  open(name, { readOnly = false } = {}) {
    const M = this.M;
    return this.withCString(name, (zName) => this.withScratch(4, (pDb) => {
      const flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_EXRESCODE;
      const rc = M._sqlite3_open_v2(zName, pDb, flags, 0);
      const db = this.i32(pDb);
      let watch = 0;
      try {
        if (rc !== SQLITE_OK) throw this.error(db, rc);
        watch = this.malloc(8);
        M.HEAP32.fill(0, watch >> 2, (watch >> 2) + 2);
        M._tc_watch_transactions(db, watch);
        return new Connection(this, db, name, watch);
      } catch (e) {
        if (db) M._sqlite3_close_v2(db);
        if (watch) M._free(watch);
        throw e;
      }
    }));
  }

  // An SqliteError for rc (of connection db, or 0): SQLite's code and
  // message, and the storage failure that caused it, if one did (see
  // storage_library.js), appended to the message and as the cause.
  error(db, rc) {
    const M = this.M;
    const code = (db ? M._sqlite3_extended_errcode(db) : rc) || rc;
    let msg = cstringAt(M, db ? M._sqlite3_errmsg(db) : M._sqlite3_errstr(rc));
    const e = this.bridge.takeFailure(code);
    if (e) msg += ` (storage: ${e.name && e.name !== 'Error' ? e.name + ': ' : ''}${e.message || e})`;
    return new SqliteError(msg, code, e ? { cause: e } : undefined);
  }
}
