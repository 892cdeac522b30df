// The API fuzzer's oracle: better-sqlite3 (a native SQLite, trusted for
// values and strings) running the same program one call at a time, in
// the order the package promises (calls in flight at once run in the
// order they were issued; a call on db made inside a transaction's fn,
// not awaited there, runs after the transaction).  It converts values to
// the package's conventions (safe integers as numbers, blobs as
// Uint8Array) and strings as TextEncoder would send them (lone surrogates
// become U+FFFD), and mirrors the package's transaction, batch and import
// rules.  What the package promises beyond better-sqlite3 (docs/api.md):
//   - SQL text with a NUL character is SQLITE_MISUSE (nothing runs);
//   - once SQLite (or the SQL itself) ended a transaction inside fn, every
//     later call of fn fails with SQLITE_ABORT_ROLLBACK and transaction()
//     rejects;
//   - a collation that throws fails its statement with SQLITE_ERROR and
//     undoes it; a write inside a transaction rolls the transaction back
//     (the oracle's stand-in, the function fzeq, marks that it threw);
//   - a call outside transaction() that leaves one open (BEGIN) is rolled
//     back and fails with SQLITE_MISUSE (its own error if it failed);
//   - a call on db made inside fn fails at once with SQLITE_MISUSE (Node),
//     or, awaited there, with SQLITE_BUSY after busyTimeoutMs (elsewhere;
//     not awaited, it runs after the transaction): the op's inFn;
//   - changes is 0 for a statement that changed nothing;
//   - a call made after close() fails as on a closed database.
// Expected outcomes: { ok: value } or { err: { code } | { api } |
// { name } }; compare() in ./compare.js matches them.
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { fzf, fzcount, fzeq, FzBoom } from './functions.js';
import path from 'node:path';
import { dec, stateQueries, schemaQueries, intoSql, INTO, INTO_TABLES, INTO_END } from './program.js';

// SQLite's result code names -> numbers, from sqlite3.h.
export function resultCodes(header) {
  const src = fs.readFileSync(header, 'utf8');
  const codes = {};
  for (const m of src.matchAll(/#define (SQLITE_[A-Z_]+)\s+(\d+)\b/g)) codes[m[1]] = Number(m[2]);
  for (const m of src.matchAll(/#define (SQLITE_[A-Z_]+)\s+\((SQLITE_[A-Z]+) \| \((\d+)<<8\)\)/g)) codes[m[1]] = codes[m[2]] | (Number(m[3]) << 8);
  return codes;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER), MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);

// A JS value as the package binds it, for better-sqlite3.
function toO(v) {
  if (v === undefined || v === null) return null;
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BigInt(v) : v;
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (typeof v === 'string') return v.toWellFormed();
  if (v instanceof Uint8Array) return Buffer.from(v);
  if (v instanceof ArrayBuffer) return Buffer.from(new Uint8Array(v));
  if (ArrayBuffer.isView(v)) return Buffer.from(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
  return v;
}

// A value from better-sqlite3 as the package returns it.
function fromO(v) {
  if (typeof v === 'bigint') return v <= MAX_SAFE && v >= MIN_SAFE ? Number(v) : v;
  if (Buffer.isBuffer(v)) return new Uint8Array(v);
  return v;
}
const rowFromO = (row) => (Array.isArray(row) ? row.map(fromO) : Object.fromEntries(Object.entries(row).map(([k, v]) => [k, fromO(v)])));

// Parameters for better-sqlite3's run(...args).
function paramsO(params) {
  if (params === undefined || params === null) return [];
  if (Array.isArray(params)) return params.map(toO);
  return [Object.fromEntries(Object.entries(params).map(([k, v]) => [k.replace(/^[:@$]/, ''), toO(v)]))];
}

const well = (s) => s.toWellFormed();
const num = (v) => (typeof v === 'bigint' ? Number(v) : v);
const err = (e) => ({ err: e });
const SQLITE_MISUSE = 21, SQLITE_BUSY = 5, SQLITE_ABORT_ROLLBACK = 516;
const expected = (code, what) => Object.assign(new Error(what), { expected: { code } });

// SQL text as the package sends it to SQLite: one with a NUL is refused.
function sqlText(sql) {
  if (sql.includes('\0')) throw expected(SQLITE_MISUSE, 'SQL text contains a NUL character');
  return well(sql);
}

let fileCounter = 0;

export class Oracle {
  // dir: where its database files go (a file, as the package's storages
  // have, so that journal_mode and the like compare).
  constructor(schema, codes, dir) {
    this.codes = codes;
    this.dir = dir;
    this.files = [];
    this.db = this.fresh();
    if (schema) this.db.exec(schema);
    this.slots = {};     // slot -> { sql, owner } (prepared anew on each use)
    this.images = {};    // export slot -> bytes
    this.closed = false;
    this.txs = [];       // transactions of the API in progress, innermost last
    this.calls = 0;
  }

  fresh(image) {
    const file = path.join(this.dir, `oracle-${process.pid}-${++fileCounter}.db`);
    if (image) fs.writeFileSync(file, image);
    this.files.push(file);
    const d = new Database(file);
    d.defaultSafeIntegers(true);
    d.function('fzf', { deterministic: true }, (x) => toO(fzf(fromO(x))));
    d.function('fzeq', (a, b) => {
      try { return BigInt(fzeq(fromO(a), fromO(b))); } catch (e) { this.collationThrew = true; throw e; }
    });
    d.aggregate('fzcount', { start: 0, step: (acc, x) => fzcount.step(acc, fromO(x)), result: (acc) => toO(fzcount.result(acc)) });
    return d;
  }

  // An exception as an expected error.
  expectError(e) {
    if (e instanceof Database.SqliteError) {
      const code = this.codes[e.code];
      if (code === undefined) throw new Error(`oracle: unknown result code ${e.code}`);
      return { code };
    }
    if (e instanceof FzBoom) return { code: 1 };
    if (e && (e.name === 'FzAbort' || e.name === 'NoSlot')) return { name: e.name };
    if (e && e.expected) return e.expected;
    if (e instanceof TypeError || e instanceof RangeError) return { api: true, message: e.message };
    throw e;
  }

  // { changes, lastInsertRowid } of the statement just run, changes 0 when
  // it changed nothing (where SQLite's changes() still holds an older
  // count).
  runInfo(before) {
    const { c, r, tc } = this.db.prepare('SELECT changes() AS c, last_insert_rowid() AS r, total_changes() AS tc').get();
    return { changes: tc !== before ? Number(c) : 0, lastInsertRowid: fromO(r) };
  }
  totalChanges() { return this.db.prepare('SELECT total_changes() AS tc').get().tc; }

  // Run one statement: { rows, row, info, readonly, columns }.  A
  // collation (fzeq) that throws in a write inside a transaction rolls the
  // transaction back.
  statement(sql, params, { rowMode = 'object', want = 'all', stopAfter = null } = {}) {
    // better-sqlite3 binds no array to ?NNN: each becomes a ? of its own.
    const numbered = [...sql.matchAll(/\?(\d+)/g)].map((m) => Number(m[1]));
    if (numbered.length && Array.isArray(params)) {
      if (params.length !== Math.max(...numbered)) throw new RangeError('wrong number of parameters');
      sql = sql.replace(/\?\d+/g, '?');
      params = numbered.map((n) => params[n - 1]);
    }
    const st = this.db.prepare(sqlText(sql));
    const args = paramsO(params);
    const before = this.totalChanges();
    let rows = [], row;
    this.collationThrew = false;
    try {
      if (st.reader) {
        st.raw(rowMode === 'array');
        if (want === 'get') row = st.get(...args);
        else if (want === 'iterate') {
          for (const r of st.iterate(...args)) { if (stopAfter !== null && rows.length >= stopAfter) break; rows.push(r); }
        } else if (want === 'run') st.run(...args);
        else rows = st.all(...args);
      } else {
        st.run(...args);
      }
    } catch (e) {
      if (this.collationThrew && !st.readonly && this.db.inTransaction) this.db.exec('ROLLBACK');
      throw e;
    }
    return {
      rows: rows.map(rowFromO), row: row === undefined ? undefined : rowFromO(row), info: this.runInfo(before),
      readonly: st.readonly, columns: st.reader ? st.columns().map((c) => c.name) : [],
    };
  }

  // The transaction of the API that handle h belongs to, or null for db.
  txOf(h) { return this.txs.find((t) => t.txh === h) || null; }

  gone() { return this.txs.length > 0 && !this.db.inTransaction; }

  // The outcome of one op.
  op(o) {
    this.calls++;
    if (this.closed && o.op !== 'close' && o.op !== 'reopen') return err({ code: SQLITE_MISUSE });
    if (o.inFn === 'misuse') return err({ code: SQLITE_MISUSE });
    if (o.inFn === 'busy') return err({ code: SQLITE_BUSY });
    const t = this.txOf(o.h);
    if (t && t.ended) return err({ code: SQLITE_MISUSE });
    if (t && (t.gone || this.gone())) {
      t.gone = true;
      const e = this.goneError(o);
      if (e) return err(e);
    }
    if (o.op === 'tx') return this.transaction(o);
    let out;
    try {
      out = { ok: this.perform(o) };
    } catch (e) {
      out = err(this.expectError(e));
    }
    // A call outside transaction() may not leave one open.
    if (this.txs.length === 0 && !this.closed && this.db.inTransaction) {
      this.db.exec('ROLLBACK');
      if ('ok' in out) out = err({ code: SQLITE_MISUSE });
    }
    return out;
  }

  // The error of a call of fn once its transaction is gone: a statement
  // is refused (SQLITE_ABORT_ROLLBACK) when it would start, after the SQL
  // was checked and prepared; prepare() and finalize() run no statement
  // (null: they run).
  goneError(o) {
    const refused = { code: SQLITE_ABORT_ROLLBACK };
    const prepared = (sql) => {
      try { this.db.prepare(sqlText(sql)); } catch (e) { return this.expectError(e); }
      return refused;
    };
    switch (o.op) {
      case 'prepare': case 'finalize': return null;
      case 'exec': return o.sql.includes('\0') ? { code: SQLITE_MISUSE } : refused;
      case 'batch': return o.entries.length === 1 ? prepared(o.entries[0][2] || o.entries[0][0]) : refused;
      case 'run': case 'query': case 'iterate': return prepared(o.osql || o.sql);
      case 'srun': case 'sget': case 'sall': case 'siterate':
        try { this.slotSql(o.slot); } catch (e) { return this.expectError(e); }
        return refused;
      default: return refused;
    }
  }

  slotSql(name) {
    const s = this.slots[name];
    if (!s) throw Object.assign(new Error('no slot'), { name: 'NoSlot' });
    if (s.dead) throw Object.assign(new Error(s.dead), { expected: { code: 21 } });
    return s.osql || s.sql;
  }

  perform(o) {
    const p = o.params === undefined ? undefined : dec(o.params);
    switch (o.op) {
      case 'exec': this.db.exec(sqlText(o.osql || o.sql)); return undefined;
      case 'run': return this.statement(o.osql || o.sql, p, { want: 'run' }).info;
      case 'query': return this.statement(o.osql || o.sql, p, { rowMode: o.rowMode }).rows;
      case 'iterate': return this.statement(o.osql || o.sql, p, { rowMode: o.rowMode, want: 'iterate', stopAfter: o.stopAfter }).rows;
      case 'batch': return this.batch(o);
      case 'prepare': {
        delete this.slots[o.slot];
        const st = this.db.prepare(sqlText(o.osql || o.sql));
        const t = this.txOf(o.h);
        this.slots[o.slot] = { sql: o.sql, osql: o.osql, owner: t };
        if (t) t.slots.push(o.slot);
        return st.reader ? st.columns().map((c) => c.name) : [];
      }
      case 'srun': return this.statement(this.slotSql(o.slot), p, { want: 'run' }).info;
      case 'sget': return this.statement(this.slotSql(o.slot), p, { rowMode: o.rowMode, want: 'get' }).row;
      case 'sall': return this.statement(this.slotSql(o.slot), p, { rowMode: o.rowMode }).rows;
      case 'siterate': return this.statement(this.slotSql(o.slot), p, { want: 'iterate', stopAfter: o.stopAfter }).rows;
      case 'finalize': {
        // Finalizing twice, or a statement its transaction finalized, is a
        // no-op; on a closed database the first finalize() fails.
        const s = this.slots[o.slot];
        if (!s) this.slotSql(o.slot);
        const wasClosed = s.dead === 'database is closed';
        s.dead = 'statement is finalized';
        if (wasClosed) throw Object.assign(new Error('closed'), { expected: { code: 21 } });
        return undefined;
      }
      case 'export': this.images[o.slot] = this.db.serialize(); return true;
      case 'import': {
        const image = o.from === 'garbage' ? null : this.images[o.from];
        if (o.from !== 'garbage' && !image) throw Object.assign(new Error('no slot'), { name: 'NoSlot' });
        if (!image) throw Object.assign(new Error('not a database'), { expected: { code: 26 } });
        if (this.db.inTransaction) throw Object.assign(new Error('import inside a transaction'), { expected: { code: 21 } });
        // The subject keeps its connection (the backup API): so does its
        // last_insert_rowid(), and its TEMP database stays open if it was
        // (what decides whether a temp_store change inside a transaction
        // is refused).
        const { r } = this.db.prepare('SELECT last_insert_rowid() AS r').get();
        const hadTemp = this.db.prepare('PRAGMA database_list').all().some((d) => d.name === 'temp');
        this.db.close();
        this.db = this.fresh(image);
        this.setRowid(r, hadTemp);
        return 'imported';
      }
      case 'into': {
        const file = path.join(this.dir, `oracle-${process.pid}-${++fileCounter}-into.db`);
        this.files.push(file);
        for (const sql of intoSql(file)) this.db.exec(sql);
        try {
          const column = (sql) => this.db.prepare(sql).raw(true).all().map((r) => num(r[0]));
          const out = {};
          for (const [k, sql] of schemaQueries([INTO])) out[k] = column(sql);
          for (const t of column(INTO_TABLES)) out[t] = this.db.prepare(`SELECT * FROM ${INTO}."${t}" ORDER BY rowid`).raw(true).all().map(rowFromO);
          return out;
        } finally { this.db.exec(INTO_END); }
      }
      case 'close': this.shut(); return undefined;
      case 'reopen':
        this.shut();
        this.closed = false;
        this.setRowid(0n);   // a new connection
        return null;
      default: throw new Error(`oracle: unknown op ${o.op}`);
    }
  }

  // Make last_insert_rowid() say r (an insert with that rowid) on a new
  // connection, and close the TEMP database that took again (a temp_store
  // change to another value and back) unless keepTemp: SQLite refuses a
  // temp_store change inside a transaction once TEMP exists.
  setRowid(r, keepTemp = false) {
    this.db.exec('CREATE TEMP TABLE fz_rowid(x)');
    this.db.prepare('INSERT INTO fz_rowid(rowid) VALUES (?)').run(r);
    this.db.exec('DROP TABLE fz_rowid');
    if (keepTemp) return;
    const ts = Number(this.db.pragma('temp_store', { simple: true }));
    this.db.exec(`PRAGMA temp_store=${ts === 1 ? 2 : 1}; PRAGMA temp_store=${ts}`);
  }

  // Closing rolls back an open transaction and kills every statement.
  shut() {
    if (this.closed) return;
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
    for (const s of Object.values(this.slots)) s.dead = s.dead || 'database is closed';
    this.closed = true;
  }

  // BEGIN, or a savepoint inside a transaction; returns how to end it.
  begin(name) {
    if (!this.db.inTransaction) {
      this.db.exec('BEGIN');
      return {
        commit: () => {
          try { this.db.exec('COMMIT'); } catch (e) { if (this.db.inTransaction) this.db.exec('ROLLBACK'); throw e; }
        },
        rollback: () => { if (this.db.inTransaction) this.db.exec('ROLLBACK'); },
      };
    }
    this.db.exec(`SAVEPOINT ${name}`);
    return {
      commit: () => this.db.exec(`RELEASE ${name}`),
      rollback: () => {
        if (!this.db.inTransaction) return;   // the whole transaction is gone
        this.db.exec(`ROLLBACK TO ${name}`);
        this.db.exec(`RELEASE ${name}`);
      },
    };
  }

  batch(o) {
    const end = this.begin(`fz_batch_${this.calls}`);
    const out = [];
    try {
      for (const [sql, params, osql] of o.entries.map(([a, b, c]) => [a, dec(b), c])) {
        const r = this.statement(osql || sql, params, { rowMode: o.rowMode });
        out.push({ rows: r.rows, ...(r.readonly ? { changes: 0, lastInsertRowid: 0 } : r.info), columns: r.columns });
      }
    } catch (e) {
      end.rollback();
      throw e;
    }
    end.commit();
    return out;
  }

  // The API's transaction(fn): fn's groups, then its end.
  transaction(o) {
    const t = { txh: o.txh, slots: [], gone: false, ended: false, deferred: [] };
    const end = this.begin(`fz_sp_${this.txs.length}`);
    this.txs.push(t);
    let error = null;
    try {
      for (const g of o.groups) {
        const e = this.runGroup(g, t.deferred);
        if (e && o.propagate) { error = e; break; }
      }
      if (!error && o.end === 'throw') error = { name: 'FzAbort' };
    } finally {
      this.txs.pop();
      t.ended = true;
      for (const s of t.slots) if (this.slots[s]) this.slots[s].dead = 'this transaction has ended';
    }
    const gone = t.gone || (!this.db.inTransaction);
    let result;
    if (gone) result = err(error || { code: SQLITE_ABORT_ROLLBACK });   // fn's own error, else the commit refused
    else if (error) { end.rollback(); result = err(error); } else {
      try { end.commit(); result = { ok: 'done' }; } catch (e) { result = err(this.expectError(e)); }
    }
    // Calls on db made inside fn and not awaited there run now.
    for (const d of t.deferred) this.record(d, this.op(d));
    return result;
  }

  // The ops of one group in issue order; returns the first error (as an
  // expected-error object) or null.
  runGroup(group, deferred) {
    let first = null;
    for (const o of group) {
      if (o.inFn === 'after' && deferred) { deferred.push(o); continue; }
      const out = this.op(o);
      this.record(o, out);
      if (out.err && !first && o.awaitIt !== false) first = out.err;   // fn does not see a call it did not await
    }
    return first;
  }

  record(o, out) { this.expected[o.id] = out; }

  // The expected outcomes of a top-level group.
  group(group) {
    this.expected = {};
    this.runGroup(group, null);
    return this.expected;
  }

  // The final database: every table's rows, integrity_check, the state
  // (stateQueries; TEMP's if withTemp).
  dump(withTemp) {
    if (this.closed) return null;
    const tables = {};
    for (const { name } of this.db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").all()) {
      tables[name] = this.db.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).raw(true).all().map(rowFromO);
    }
    const state = {};
    for (const [k, sql] of stateQueries(withTemp)) state[k] = this.db.prepare(sql).raw(true).all().map((r) => num(r[0]));
    return { tables, integrity: ['ok'], state };
  }

  close() {
    if (this.db.open) this.db.close();
    for (const f of this.files) for (const g of [f, `${f}-journal`]) fs.rmSync(g, { force: true });
  }
}
