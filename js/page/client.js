// How the main-thread API (./async-database.js) reaches the synchronous
// engine: a client with call(method, args, transfer) -> Promise and
// terminate().  WorkerClient posts to the dedicated Worker the package
// starts (../worker-script.js); LocalClient runs the same dispatcher
// (../dispatch/rpc.js) in-process, where there is no Worker (Node, or { worker:
// false }).  Both reject with the error as the Worker sent it (fromWire).
import { fromWire, toWire, SqliteError, closedError, uncloneable } from '../shared/errors.js';
import { SQLITE_ABORT, SQLITE_MISUSE, SQLITE_CANTOPEN } from '../shared/constants.js';
import { watchLock } from '../shared/locks.js';
import { limitTimer } from '../shared/platform.js';
import { defaultOf } from '../shared/methods.js';

// How long a Worker has to show that it serves: open()'s workerStartMs
// (../shared/methods.js; 0: no limit).
const WORKER_START_MS = defaultOf('workerStartMs');
const noStart = (ms) => () => new SqliteError(`the database's Worker did not answer within ${ms} ms: ` +
  "an app's Worker entry must call serve() of sqlite-tempcrypt/serve", SQLITE_CANTOPEN);

// A Worker that ended without being told to (self.close() in it, or the
// browser stopped it): the calls it had not answered, and those after.
const ENDED = "the database's Worker ended (self.close() in it, or the browser stopped it)";
const endedUnanswered = () => new SqliteError(`outcome unknown: ${ENDED} before answering; it may or may not have been applied ` +
  '(read the database to know, after opening it again)', SQLITE_ABORT);
const endedBefore = () => new SqliteError(`${ENDED}: open the database again`, SQLITE_MISUSE);

export class WorkerClient {
  constructor(worker, { startMs = WORKER_START_MS } = {}) {
    this.worker = worker;
    this.transfers = true;   // buffers passed to call(..., transfer) are handed over
    this.nextId = 1;
    this.calls = new Map();
    this.ended = false;      // terminated: no call gets an answer any more
    this.died = false;       // ... because the Worker ended by itself
    this.unwatch = null;     // stops watching the Worker's life lock
    this.onevent = null;     // (event) for what the Worker says unasked (a new owner)
    this.failed = null;      // () -> the error of a Worker that never started
    this.startTimer = startMs > 0 ? limitTimer(() => this.end(false, noStart(startMs)), startMs) : null;
    worker.onmessage = ({ data }) => {
      clearTimeout(this.startTimer);
      if (data.event?.type === 'life') { this.unwatch = watchLock(data.event.lock, () => this.end(true)); return; }
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
    if (this.died) return method === 'close' ? Promise.resolve() : Promise.reject(endedBefore());
    if (this.failed) return Promise.reject(this.failed());
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
  terminate() { this.end(false); }

  // died: the Worker's life lock was freed (it ended by itself): its
  // unanswered calls' outcome is unknown, and later calls say why.
  // failed: () -> the error of a Worker that never started, for its calls
  // and every later one.
  end(died, failed = null) {
    if (this.ended) return;
    this.ended = true;
    this.died = died;
    this.failed = failed;
    clearTimeout(this.startTimer);
    this.unwatch?.();
    this.worker.terminate();
    for (const call of this.calls.values()) call.reject(failed ? failed() : died ? endedUnanswered() : closedError());
    this.calls.clear();
  }
}

// In-process stand-in for the Worker: the same dispatcher, loaded on first
// use, and errors in the same shape as from the Worker.
export class LocalClient {
  constructor() { this.dispatcher = null; this.transfers = false; this.onevent = null; }
  async call(method, args) {
    try {
      if (!this.dispatcher) this.dispatcher = (await import('../tabs/tabs.js')).createDispatcher((event) => this.onevent?.(event));
      return await this.dispatcher.call(method, ...(args || []));
    } catch (e) {
      throw fromWire(toWire(e));
    }
  }
  terminate() {}
}

// The Workers given to open(): each serves one database (a second client
// would take the first one's answers).
const given = new WeakSet();

// A client for database `name`: in-process when `worker` is false; else a
// dedicated module Worker: the package's (true), or the app's own Worker
// entry that calls serve() (../serve.js): a function returning a new
// Worker, or a Worker not given to open() before.
export function connect(name, worker, startMs = WORKER_START_MS) {
  if (!worker) return new LocalClient();
  if (worker === true) return new WorkerClient(new Worker(new URL('../worker-script.js', import.meta.url), { type: 'module', name: `sqlite-tempcrypt:${name}` }), { startMs });
  const w = typeof worker === 'function' ? worker() : worker;
  if (!w || typeof w.postMessage !== 'function') throw new TypeError('worker must be true, false, a Worker, or a function returning a new Worker (one that calls serve() of sqlite-tempcrypt/serve)');
  if (given.has(w)) throw new TypeError('this Worker already serves a database (or did): a Worker serves one open(); pass a function returning a new Worker');
  given.add(w);
  return new WorkerClient(w, { startMs });
}
