// How the main-thread API (./async-database.js) reaches the synchronous
// engine: a client with call(method, args, transfer) -> Promise and
// terminate().  WorkerClient posts to the dedicated Worker the package
// starts (./worker-script.js); LocalClient runs the same dispatcher
// (./rpc.js) in-process, where there is no Worker (Node, or { worker:
// false }).  Both reject with the error as the Worker sent it (fromWire).
import { fromWire, toWire, SqliteError, closedError } from './errors.js';
import { SQLITE_MISUSE } from './constants.js';

export class WorkerClient {
  constructor(worker) {
    this.worker = worker;
    this.transfers = true;   // buffers passed to call(..., transfer) are handed over
    this.nextId = 1;
    this.calls = new Map();
    this.ended = false;      // terminated: no call gets an answer any more
    this.onevent = null;     // (event) for what the Worker says unasked (a new owner)
    worker.onmessage = ({ data }) => {
      if (data.event) { if (this.onevent) this.onevent(data.event); return; }
      const call = this.calls.get(data.id);
      if (!call) return;
      this.calls.delete(data.id);
      if (data.error) call.reject(fromWire(data.error));
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
    if (this.ended) return Promise.reject(closedError());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      try {
        this.worker.postMessage({ id, method, args }, transfer || []);
      } catch (e) {
        this.calls.delete(id);
        reject(uncloneable(e));
      }
    });
  }

  // Stop the Worker.  A call it had not answered (one sent while close()
  // was under way, such as a transaction's that close() stopped waiting
  // for) never will be: it rejects as closed.
  terminate() {
    this.ended = true;
    this.worker.terminate();
    for (const call of this.calls.values()) call.reject(closedError());
    this.calls.clear();
  }
}

// postMessage's DataCloneError as the API's error (the arguments hold what
// cannot cross to a Worker: a function, a Symbol...).
export function uncloneable(e) {
  if (!e || e.name !== 'DataCloneError') return e;
  return new SqliteError(`cannot send the call to the database's Worker (${e.message}): parameters are numbers, strings, ` +
    'bigints, booleans, null, Uint8Array or ArrayBuffer', SQLITE_MISUSE, { cause: e });
}

// In-process stand-in for the Worker: the same dispatcher, loaded on first
// use, and errors in the same shape as from the Worker.
export class LocalClient {
  constructor() { this.dispatcher = null; this.transfers = false; this.onevent = null; }
  async call(method, args) {
    try {
      if (!this.dispatcher) this.dispatcher = (await import('./tabs.js')).createDispatcher((event) => this.onevent?.(event));
      return await this.dispatcher.call(method, ...(args || []));
    } catch (e) {
      throw fromWire(toWire(e));
    }
  }
  terminate() {}
}

// A client for database `name`: in-process when `worker` is false; else a
// dedicated module Worker: the package's (true), or the app's own Worker
// entry that calls serve() (./serve.js): a function returning a new
// Worker, or a Worker.
export function connect(name, worker) {
  if (!worker) return new LocalClient();
  if (worker === true) return new WorkerClient(new Worker(new URL('./worker-script.js', import.meta.url), { type: 'module', name: `sqlite-tempcrypt:${name}` }));
  const w = typeof worker === 'function' ? worker() : worker;
  if (!w || typeof w.postMessage !== 'function') throw new TypeError('worker must be true, false, a Worker, or a function returning a new Worker (one that calls serve() of sqlite-tempcrypt/serve)');
  return new WorkerClient(w);
}
