// sqlite-tempcrypt: the main-thread API.  Each open() starts a dedicated
// module Worker that runs SQLite + tempcrypt synchronously (see
// ./worker.js) and talks to it by postMessage.  Where there is no Worker
// (Node), the same engine runs in-process behind the same async API.
//
//   import { open } from 'sqlite-tempcrypt';
//   const db = await open('app.db', { storage: 'opfs' });
//   const rows = await db.query('SELECT ?1 AS x', [42]);

import { SqliteError, closedError } from './errors.js';
import { SQLITE_MISUSE } from './constants.js';
import { importChunks, concatPages, EXPORT_PAGES_SQL } from './sources.js';

export { SqliteError };

const DEFAULT_PAGE_SIZE = 256;

function toError(e) {
  if (e.name === 'SqliteError') return new SqliteError(e.message, e.code);
  const err = new Error(e.message);
  err.name = e.name;
  return err;
}

class WorkerClient {
  constructor(worker) {
    this.worker = worker;
    this.nextId = 1;
    this.calls = new Map();
    worker.onmessage = ({ data }) => {
      const call = this.calls.get(data.id);
      if (!call) return;
      this.calls.delete(data.id);
      if (data.error) call.reject(toError(data.error));
      else call.resolve(data.result);
    };
    worker.onerror = (ev) => {
      const err = new Error(`sqlite-tempcrypt worker failed: ${ev.message || 'could not load the worker script'}`);
      for (const call of this.calls.values()) call.reject(err);
      this.calls.clear();
    };
  }

  // transfer: buffers handed to the Worker (gone from this side).
  call(method, args, transfer) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      this.worker.postMessage({ id, method, args }, transfer || []);
    });
  }

  terminate() { this.worker.terminate(); }
}

// In-process stand-in for the Worker (Node, or { worker: false }): the same
// dispatcher as the Worker's (./methods.js), loaded on first use.
class LocalClient {
  constructor() { this.dispatcher = null; }
  async call(method, args) {
    try {
      if (!this.dispatcher) this.dispatcher = (await import('./methods.js')).createDispatcher();
      return await this.dispatcher.call(method, ...(args || []));
    } catch (e) {
      throw toError(e);
    }
  }
  terminate() {}
}

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

  exec(sql) { return this.call('exec', sql).then(() => undefined); }
  query(sql, params, options) { return this.call('query', sql, params, options && { rowMode: options.rowMode }); }
  run(sql, params) { return this.call('run', sql, params); }
  batch(list, options) { return this.call('batch', list, options && { rowMode: options.rowMode }); }

  async prepare(sql) {
    const info = await this.call('prepare', sql);
    return new Statement(this, info);
  }

  // Rows fetched pageSize at a time from a cursor held in the Worker.
  async * iterate(sql, params, options = {}) {
    const id = await this.call('cursorOpen', sql, params, { rowMode: options.rowMode });
    yield* pages(this, id, options.pageSize, true);
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
        await tx.end();
        try { await this.send('txEnd', [false]); } catch { /* the first error says more */ }
        throw e;
      }
      await tx.end();
      await this.send('txEnd', [true]);
      return result;
    } finally {
      release();
    }
  }
}

// Page through cursor `id` of owner; a one-off cursor (own) is finalized
// by the Worker once done, here when the loop stops early.
async function* pages(owner, id, pageSize = DEFAULT_PAGE_SIZE, own) {
  let done = false;
  try {
    while (!done) {
      const res = await owner.call('page', id, pageSize, own);
      done = res.done;
      yield* res.rows;
    }
  } finally {
    if (!done) await owner.call(own ? 'finalize' : 'stmtReset', id).catch(() => {});
  }
}

// A prepared statement held in the Worker by id.
export class Statement {
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
  run(params) { return this.call('stmtRun', params); }
  get(params, options) { return this.call('stmtGet', params, options && { rowMode: options.rowMode }); }
  all(params, options) { return this.call('stmtAll', params, options && { rowMode: options.rowMode }); }
  async * iterate(params, options = {}) {
    await this.call('stmtOpen', params, { rowMode: options.rowMode });
    yield* pages(this.owner, this.id, options.pageSize, false);
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
  async end() {
    while (this.held) await this.held;
    for (const st of [...this.stmts]) await st.finalize().catch(() => {});
    this.active = false;
  }
}

export class Database extends Queryable {
  constructor(client, name, storage) {
    super();
    this.client = client;
    this.name = name;
    this.storage = storage;
    this.closed = false;
    this.tempcrypt = {
      stats: (reset = false) => this.call('stats', !!reset),
      setEnabled: (on) => this.call('setEnabled', !!on),
    };
  }

  send(method, args, transfer) {
    if (this.closed) return Promise.reject(closedError());
    return this.client.call(method, args, transfer);
  }

  export() { return this.call('export'); }
  files() { return this.call('files'); }
  heapSize() { return this.call('heapSize'); }

  // Replace the database by an SQLite file, sent in chunks; checked and
  // copied in one transaction by the Worker (on error nothing changes).
  async import(source) {
    const release = await this.lock();
    try {
      await this.send('importBegin', []);
      // Chunks read from a stream are ours to hand over; the caller's are not.
      const streamed = typeof source?.getReader === 'function' || (typeof Blob === 'function' && source instanceof Blob) ||
        (typeof Response === 'function' && source instanceof Response);
      try {
        for await (const chunk of importChunks(source)) {
          // Send a copy of a view (a view would clone its whole buffer).
          const own = streamed && chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength;
          const bytes = own ? chunk : chunk.slice();
          await this.send('importChunk', [bytes], this.client instanceof WorkerClient ? [bytes.buffer] : undefined);
        }
      } catch (e) {
        try { await this.send('importEnd', [false]); } catch { /* keep the first error */ }
        throw e;
      }
      await this.send('importEnd', [true]);
    } finally {
      release();
    }
  }

  // The database file as a stream of chunks (pagesPerChunk pages each),
  // read in one read transaction; other calls wait until it is read to the
  // end or cancelled.
  exportStream({ pagesPerChunk = 256 } = {}) {
    let release = null, id = null, aborted = false;
    const finish = async (drop) => {
      if (drop && id !== null) await this.send('finalize', [id]).catch(() => {});
      id = null;
      if (release) { release(); release = null; }
      if (this.exportAbort === abort) this.exportAbort = null;
    };
    // close() ends a stream nobody reads to the end (else it would wait for
    // it for ever).
    const abort = async () => { aborted = true; await finish(true); };
    this.exportAbort = abort;
    const streamClosed = () => new SqliteError('exportStream: the database was closed', SQLITE_MISUSE);
    return new ReadableStream({
      start: async (controller) => {
        release = await this.lock();
        if (aborted) { await finish(false); controller.error(streamClosed()); return; }
        try { id = await this.send('cursorOpen', [EXPORT_PAGES_SQL, null, { rowMode: 'array' }]); }
        catch (e) { await finish(false); throw e; }
      },
      pull: async (controller) => {
        if (aborted) { controller.error(streamClosed()); return; }
        try {
          const { rows, done } = await this.send('page', [id, pagesPerChunk, true]);
          if (rows.length) controller.enqueue(concatPages(rows));
          if (done) { id = null; await finish(false); controller.close(); }
        } catch (e) { await finish(true); throw e; }
      },
      cancel: () => finish(true),
    }, { highWaterMark: 0 });
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

// Open a database.  storage: 'opfs' (default in a browser; an error where
// OPFS is unusable), 'memory' (default in Node) or 'auto' (OPFS, else
// memory); db.storage says which.  Rejects with an SqliteError (code
// SQLITE_BUSY) when another tab holds the same database.  import: a source
// to replace the database with (see Database.import).
export async function open(name, options = {}) {
  const { worker = typeof Worker === 'function', import: source, ...rest } = options;
  if (rest.wasm instanceof URL) rest.wasm = rest.wasm.href;
  if (rest.setup instanceof URL) rest.setup = rest.setup.href;
  let client;
  if (worker) {
    const w = new Worker(new URL('./rpc-worker.js', import.meta.url), { type: 'module', name: `sqlite-tempcrypt:${name}` });
    client = new WorkerClient(w);
  } else {
    client = new LocalClient();
  }
  try {
    const { storage } = await client.call('open', [name, rest]);
    const db = new Database(client, name, storage);
    if (source !== undefined) {
      try { await db.import(source); } catch (e) { await db.close().catch(() => {}); throw e; }
    }
    return db;
  } catch (e) {
    client.terminate();
    throw e;
  }
}
