// The main-thread API's classes (types in index.d.ts): AsyncDatabase
// (exported as Database), Transaction and AsyncStatement (exported as
// Statement).  Every call is a message to the synchronous API behind a
// client (./client.js).  The methods that are one message each (CALL in
// ./methods.js) are made below from the table; the others are written
// here and send the messages their rows name.
import { SqliteError, closedError } from './errors.js';
import { SQLITE_MISUSE } from './constants.js';
import { importFrom, pageStream, EXPORT_PAGES_SQL } from './transfer.js';
import { rows, messageOf, wireArgs, QUERYABLE, DATABASE, STATEMENT, TEMPCRYPT, CALL } from './methods.js';

// Rows fetched per message by iterate() unless its pageSize says otherwise.
const ROWS_PER_MESSAGE = 256;

// What Database and Transaction share: the calls, queued behind whatever
// holds this object (a transaction, an import, a streamed export).
export class Queryable {
  constructor() { this.held = null; }

  // Send now, bypassing the queue (only the holder does that).
  send(method, args, transfer) { throw new Error('abstract'); }

  call(method, ...args) {
    if (this.held) return this.held.then(() => this.call(method, ...args));
    return this.send(method, args);
  }

  // Wait until nothing holds this object, hold it; resolves to release().
  async lock() {
    while (this.held) await this.held;
    let release;
    this.held = new Promise((r) => { release = r; });
    return () => { this.held = null; release(); };
  }

  async prepare(sql) {
    const info = await this.call('prepare', sql);
    return new AsyncStatement(this, info);
  }

  // Rows fetched pageSize at a time from a cursor held in the Worker.
  async * iterate(sql, params, options = {}) {
    const id = await this.call('cursorOpen', sql, params, { rowMode: options.rowMode });
    yield* pages(this, id, options.pageSize);
  }

  // fn(tx) with only tx running statements until it settles (other calls
  // wait); committed when fn resolves, rolled back when it throws.
  async transaction(fn) {
    const release = await this.lock();
    const tx = new Transaction(this);
    try {
      await this.send('txBegin', []);
      let result;
      try {
        result = await fn(tx);
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
  async * iterate(params, options = {}) {
    const cursor = await this.call('stmtOpen', params, { rowMode: options.rowMode });
    yield* pages(this.owner, cursor, options.pageSize);
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
  send(method, args, transfer) {
    if (!this.active) return Promise.reject(new SqliteError('this transaction has ended', SQLITE_MISUSE));
    return this.parent.send(method, args, transfer);
  }
}

// Once fn has settled: wait for tx's own calls, finalize its statements,
// and make it unusable.
async function endTransaction(tx) {
  while (tx.held) await tx.held;
  for (const st of [...tx.stmts]) await st.finalize().catch(() => {});
  tx.active = false;
}

export class AsyncDatabase extends Queryable {
  constructor(client, name, storage) {
    super();
    this.client = client;
    this.name = name;
    this.storage = storage;
    this.closed = false;
    this.tempcrypt = {};
    for (const m of rows({ layer: TEMPCRYPT, async: CALL })) {
      this.tempcrypt[m.name] = (...args) => this.call(messageOf(m), ...wireArgs(m, args));
    }
  }

  send(method, args, transfer) {
    if (this.closed) return Promise.reject(closedError());
    return this.client.call(method, args, transfer);
  }

  files() { return this.call('files'); }

  // Replace the database by an SQLite file, sent in chunks; checked and
  // copied in one transaction by the Worker (on error nothing changes).
  async import(source) {
    const release = await this.lock();
    try {
      await this.send('importBegin', []);
      await importFrom(source, {
        write: (chunk, owned) => {
          // Hand over a chunk read from a stream; send a copy of the
          // caller's bytes, and of a view (which would clone its whole buffer).
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
  exportStream({ pagesPerChunk = 256 } = {}) {
    let release = null, id = null, aborted = false;
    const streamClosed = () => new SqliteError('exportStream: the database was closed', SQLITE_MISUSE);
    const finish = async (early) => {
      if (early && id !== null) await this.send('cursorClose', [id]).catch(() => {});
      id = null;
      if (release) { release(); release = null; }
      if (this.exportAbort === abort) this.exportAbort = null;
    };
    // close() ends a stream nobody reads to the end (else it would wait for
    // it for ever).
    const abort = async () => { aborted = true; await finish(true); };
    this.exportAbort = abort;
    return pageStream({
      open: async () => {
        release = await this.lock();
        if (aborted) { await finish(false); throw streamClosed(); }
        try { id = await this.send('cursorOpen', [EXPORT_PAGES_SQL, null, { rowMode: 'array' }]); }
        catch (e) { await finish(false); throw e; }
      },
      page: (n) => {
        if (aborted) throw streamClosed();
        return this.send('page', [id, n]);
      },
      close: (early) => finish(early),
    }, pagesPerChunk);
  }

  // Waits for a transaction or import in progress; ends an export stream
  // that is still open.
  async close() {
    if (this.closed) return;
    if (this.exportAbort) await this.exportAbort();
    const release = await this.lock();
    try {
      await this.client.call('close', []);
    } finally {
      this.closed = true;
      this.client.terminate();
      release();
    }
  }
}

// The CALL rows: one message each, answered by the sync method of the
// same name (./rpc.js).
const PROTOTYPES = { [QUERYABLE]: Queryable.prototype, [DATABASE]: AsyncDatabase.prototype, [STATEMENT]: AsyncStatement.prototype };
for (const [layer, proto] of Object.entries(PROTOTYPES)) {
  for (const m of rows({ layer, async: CALL })) {
    proto[m.name] = function (...args) { return this.call(messageOf(m), ...wireArgs(m, args)); };
  }
}
