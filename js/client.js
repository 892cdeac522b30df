// How the main-thread API (./async-database.js) reaches the synchronous
// engine: a client with call(method, args, transfer) -> Promise and
// terminate().  WorkerClient posts to the dedicated Worker the package
// starts (./worker-script.js); LocalClient runs the same dispatcher
// (./rpc.js) in-process, where there is no Worker (Node, or { worker:
// false }).  Both reject with the error as the Worker sent it (fromWire).
import { fromWire, toWire } from './errors.js';

export class WorkerClient {
  constructor(worker) {
    this.worker = worker;
    this.transfers = true;   // buffers passed to call(..., transfer) are handed over
    this.nextId = 1;
    this.calls = new Map();
    worker.onmessage = ({ data }) => {
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
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      this.worker.postMessage({ id, method, args }, transfer || []);
    });
  }

  terminate() { this.worker.terminate(); }
}

// In-process stand-in for the Worker: the same dispatcher, loaded on first
// use, and errors in the same shape as from the Worker.
export class LocalClient {
  constructor() { this.dispatcher = null; this.transfers = false; }
  async call(method, args) {
    try {
      if (!this.dispatcher) this.dispatcher = (await import('./rpc.js')).createDispatcher();
      return await this.dispatcher.call(method, ...(args || []));
    } catch (e) {
      throw fromWire(toWire(e));
    }
  }
  terminate() {}
}

// A client for database `name`: a dedicated module Worker when `worker`.
export function connect(name, worker) {
  if (!worker) return new LocalClient();
  return new WorkerClient(new Worker(new URL('./worker-script.js', import.meta.url), { type: 'module', name: `sqlite-tempcrypt:${name}` }));
}
