// The main-thread API's classes (types in index.d.ts): AsyncDatabase
// (exported as Database), Transaction and AsyncStatement (exported as
// Statement).  Every call is a message to the synchronous API behind a
// client (./client.js).  The methods that are one message each (CALL in
// ../shared/methods.js) are made below from the table; the others are written
// here and send the messages their rows name.
import { SqliteError, closedError } from '../shared/errors.js';
import { SQLITE_MISUSE, SQLITE_BUSY } from '../shared/constants.js';
import { importFrom, pageStream } from '../engine/transfer.js';
import { AsyncLocalStorage, limitTimer } from '../shared/platform.js';
import {
  rows, rowOf, messageOf, wireArgs, callOptions, statementArgs, checkTimeoutMs, QUERYABLE, DATABASE, STATEMENT, TEMPCRYPT,
  CALL, ASYNC, resolveOpenOptions,
} from '../shared/methods.js';

// Rows fetched per message by iterate() unless its pageSize says otherwise.
const ROWS_PER_MESSAGE = 256;

// The transaction whose fn is running, where the runtime can tell (Node's
// AsyncLocalStorage): a call made from inside fn on the object that
// transaction holds would wait for fn, which waits for it.
const insideFn = AsyncLocalStorage ? new AsyncLocalStorage() : null;

// True when a call on q now comes from inside the fn of a transaction
// that holds q (directly, or through the transactions nested in it).
function fromInsideHolder(q) {
  for (let t = insideFn?.getStore(); t instanceof Transaction; t = t.parent) {
    if (t.parent === q && t.active) return true;
  }
  return false;
}

// What Database and Transaction share: the calls, queued behind whatever
// holds this object (a transaction, an import, a streamed export) for at
// most busyTimeoutMs.
export class Queryable {
  constructor() { this.held = null; this.heldBy = null; }

  // Send now, bypassing the queue (only the holder does that).
  send(method, args, transfer) { throw new Error('abstract'); }

  call(method, ...args) {
    if (this.closing) return Promise.reject(closedError());   // made after close()
    if (!this.held) return this.send(method, args);
    const deadline = Date.now() + this.busyTimeoutMs;
    const retry = () => (this.held ? this.whenFree(deadline).then(retry) : this.send(method, args));
    return this.whenFree(deadline).then(retry);
  }

  // Resolves once nothing holds this object.  Rejects with SQLITE_BUSY
  // once deadline has passed, and at once with SQLITE_MISUSE when called
  // from inside the fn of the transaction holding it (where that shows).
  async whenFree(deadline) {
    if (!this.held) return;
    if (fromInsideHolder(this)) {
      throw new SqliteError('a call on the database made inside transaction(fn) waits for fn, which waits for it: ' +
        "make it on fn's tx argument (tx.run(), tx.query()...)", SQLITE_MISUSE);
    }
    while (this.held) {
      const left = deadline - Date.now();
      const why = this.heldBy;
      let timer;
      const expired = left <= 0 || await Promise.race([
        this.held.then(() => false),
        new Promise((resolve) => { timer = limitTimer(() => resolve(true), left); }),
      ]).finally(() => clearTimeout(timer));
      if (expired && this.held) {
        throw new SqliteError(`database is busy: waited ${this.busyTimeoutMs} ms (busyTimeoutMs) for ${why} to end; ` +
          "a call on the database made inside transaction(fn) waits for fn: use fn's tx argument there", SQLITE_BUSY);
      }
    }
  }

  // Wait (as a call does) until nothing holds this object, and hold it for
  // `what` ('a transaction'...); resolves to release().
  async lock(what) {
    const deadline = Date.now() + this.busyTimeoutMs;
    while (this.held) await this.whenFree(deadline);
    let release;
    this.held = new Promise((r) => { release = r; });
    this.heldBy = what;
    return () => { this.held = null; this.heldBy = null; release(); };
  }

  async prepare(sql) {
    const info = await this.call('prepare', sql);
    return new AsyncStatement(this, info);
  }

  // Rows fetched pageSize at a time from a cursor held in the Worker.
  async * iterate(sql, params, options) {
    const { rowMode, timeoutMs, pageSize } = callOptions(rowOf(QUERYABLE, 'iterate'), options, ASYNC) ?? {};
    const id = await this.call('cursorOpen', sql, params, { rowMode, timeoutMs });
    yield* pages(this, id, pageSize);
  }

  // fn(tx) with only tx running statements until it settles (other calls
  // wait); committed when fn resolves, rolled back when it throws.
  async transaction(fn) {
    if (this.closing) throw closedError();
    const release = await this.lock('a transaction');
    const tx = new Transaction(this);
    try {
      await this.send('txBegin', []);
      let result;
      try {
        result = await (insideFn ? insideFn.run(tx, () => fn(tx)) : fn(tx));
      } catch (e) {
        await endTransaction(tx);
        try { await this.send('txEnd', [false]); } catch { /* the first error says more */ }
        throw e;
      }
      await endTransaction(tx);
      await this.send('txEnd', [true]);
      return result;
    } finally {
      release();
    }
  }
}

// The rows of cursor `id` (held by owner's Worker), a page per message;
// the cursor is closed when the loop stops early.
async function* pages(owner, id, pageSize = ROWS_PER_MESSAGE) {
  let done = false;
  try {
    while (!done) {
      const res = await owner.call('page', id, pageSize);
      done = res.done;
      yield* res.rows;
    }
  } finally {
    if (!done) await owner.call('cursorClose', id).catch(() => {});
  }
}

// A prepared statement held in the Worker by id.
export class AsyncStatement {
  constructor(owner, { id, columns, readonly }) {
    this.owner = owner;
    this.id = id;
    this.names = columns;
    this.readonly = readonly;
    this.finalized = false;
    if (owner.stmts) owner.stmts.add(this);
  }
  call(method, ...args) {
    if (this.finalized) return Promise.reject(new SqliteError('statement is finalized', SQLITE_MISUSE));
    return this.owner.call(method, this.id, ...args);
  }
  columns() { return this.names.slice(); }
  async * iterate(...args) {
    const [params, options] = statementArgs(args);
    const { rowMode, timeoutMs, pageSize } = callOptions(rowOf(STATEMENT, 'iterate'), options, ASYNC) ?? {};
    const cursor = await this.call('stmtOpen', params, { rowMode, timeoutMs });
    yield* pages(this.owner, cursor, pageSize);
  }
  async finalize() {
    if (this.finalized) return;
    this.finalized = true;
    if (this.owner.stmts) this.owner.stmts.delete(this);
    await this.owner.call('finalize', this.id);
  }
}

// The handle a transaction's fn gets: its calls go straight to the Worker
// while the transaction runs; nested transaction() is a savepoint.
export class Transaction extends Queryable {
  constructor(parent) {
    super();
    this.parent = parent;
    this.active = true;
    this.stmts = new Set();   // finalized when the transaction ends
  }
  get busyTimeoutMs() { return this.parent.busyTimeoutMs; }
  send(method, args, transfer) {
    if (!this.active) return Promise.reject(new SqliteError('this transaction has ended', SQLITE_MISUSE));
    return this.parent.send(method, args, transfer);
  }

  // The database's limit; it is set on the database (never silently here).
  get timeoutMs() { return this.parent.timeoutMs; }
  set timeoutMs(ms) { throw new TypeError('timeoutMs is set on the database (db.timeoutMs), or per call ({ timeoutMs })'); }
}

// Once fn has settled: wait for tx's own calls, finalize its statements,
// and make it unusable.
async function endTransaction(tx) {
  while (tx.held) await tx.held;
  for (const st of [...tx.stmts]) await st.finalize().catch(() => {});
  tx.active = false;
}

export class AsyncDatabase extends Queryable {
  // info: what the Worker said at open ({ storage, owner, tab }); options:
  // open()'s (its busyTimeoutMs and timeoutMs are read here).
  constructor(client, name, info, options = {}) {
    super();
    const { busyTimeoutMs, timeoutMs } = resolveOpenOptions(options, ASYNC);
    this.client = client;
    this.name = name;
    this.storage = info.storage;
    this.tab = info.tab;          // this tab's id among those sharing the database
    this.owner = info.owner;      // { id, self }: the tab whose Worker runs it
    this.onownerchange = null;    // called with the new owner when it changes
    this.busyTimeoutMs = busyTimeoutMs;
    this.ms = timeoutMs;          // db.timeoutMs
    this.closed = false;
    this.closing = null;
    this.exports = new Set();     // abort() of each export stream not yet ended
    this.tempcrypt = {};
    for (const m of rows({ layer: TEMPCRYPT, async: CALL })) {
      this.tempcrypt[m.name] = (...args) => this.call(messageOf(m), ...wireArgs(m, args));
    }
    client.onevent = (ev) => {
      if (ev.type !== 'owner') return;
      this.owner = ev.owner;
      if (typeof this.onownerchange === 'function') {
        try { this.onownerchange(ev.owner); } catch (e) { setTimeout(() => { throw e; }); }
      }
    };
  }

  send(method, args, transfer) {
    if (this.closed) return Promise.reject(closedError());
    return this.client.call(method, args, transfer);
  }

  files() { return this.call('files'); }

  // The time limit of each call in ms (0: none).  Setting it sends it to
  // the Worker at once, not queued behind a transaction (../dispatch/hub.js applies
  // it on arrival): every call sent after it uses it, a transaction's too.
  get timeoutMs() { return this.ms; }
  set timeoutMs(ms) {
    checkTimeoutMs(ms);
    if (this.closing) throw closedError();
    this.ms = ms;
    this.send('timeoutMs', [ms]).catch(() => {});   // fails only once closed: nothing left to limit
  }

  // Replace the database by an SQLite file, sent in chunks; checked and
  // copied in one transaction by the Worker (on error nothing changes).
  async import(source) {
    if (this.closing) throw closedError();
    const release = await this.lock('an import');
    try {
      await this.send('importBegin', []);
      await importFrom(source, {
        write: (chunk, owned) => {
          // Hand over a chunk read from a Blob or Response (made for us);
          // send a copy of the caller's bytes, and of a view (which would
          // clone its whole buffer).
          const own = owned && chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength;
          const bytes = own ? chunk : chunk.slice();
          return this.send('importChunk', [bytes], this.client.transfers ? [bytes.buffer] : undefined);
        },
        abort: () => this.send('importEnd', [false]),
        finish: () => this.send('importEnd', [true]),
      });
    } finally {
      release();
    }
  }

  // The database file as a stream of chunks (pagesPerChunk pages each),
  // read in one read transaction; other calls wait until it is read to the
  // end or cancelled.
  exportStream(options) {
    const { pagesPerChunk } = callOptions(rowOf(DATABASE, 'exportStream'), options, ASYNC);
    let release = null, id = null, aborted = false;
    const streamClosed = () => new SqliteError('exportStream: the database was closed', SQLITE_MISUSE);
    const finish = async (early) => {
      this.exports.delete(abort);
      if (early && id !== null) await this.send('cursorClose', [id]).catch(() => {});
      id = null;
      if (release) { release(); release = null; }
    };
    // close() ends every stream nobody reads to the end (else it would
    // wait for them for ever).
    const abort = async () => { aborted = true; await finish(true); };
    this.exports.add(abort);
    return pageStream({
      open: async () => {
        try { release = await this.lock('an export stream'); } catch (e) { await finish(false); throw e; }
        if (aborted) { await finish(false); throw streamClosed(); }
        try { id = await this.send('exportOpen', []); }
        catch (e) { await finish(false); throw e; }
      },
      page: (n) => {
        if (aborted) throw streamClosed();
        return this.send('page', [id, n]);
      },
      close: (early) => finish(early),
    }, pagesPerChunk);
  }

  // Ends the export streams still open, waits (as a call does, at most
  // busyTimeoutMs) for a transaction or import in progress, then closes:
  // the calls made before close() run first; what still holds the database
  // then is rolled back, and its later calls, like every call made after
  // close(), fail with "database is closed".  Every call of close() gets
  // the same promise.
  close() {
    if (!this.closing) this.closing = closeDatabase(this);
    return this.closing;
  }
}

async function closeDatabase(db) {
  if (db.closed) return;
  await Promise.all([...db.exports].map((abort) => abort()));
  let release = null;
  try { release = await db.lock('close()'); } catch { /* busy, or called from inside fn: close anyway */ }
  try {
    await db.client.call('close', []);
  } finally {
    db.closed = true;
    db.client.terminate();
    if (release) release();
  }
}

// The CALL rows: one message each, answered by the sync method of the
// same name (../dispatch/rpc.js).
const PROTOTYPES = { [QUERYABLE]: Queryable.prototype, [DATABASE]: AsyncDatabase.prototype, [STATEMENT]: AsyncStatement.prototype };
for (const [layer, proto] of Object.entries(PROTOTYPES)) {
  for (const m of rows({ layer, async: CALL })) {
    proto[m.name] = function (...args) {
      let wire;
      try { wire = wireArgs(m, args); } catch (e) { return Promise.reject(e); }
      return this.call(messageOf(m), ...wire);
    };
  }
}
