// sqlite-tempcrypt: the main-thread API.  Each open() starts a dedicated
// module Worker that runs SQLite + tempcrypt synchronously (see
// ./worker.js) and talks to it by postMessage.  Where there is no Worker
// (Node), the same engine runs in-process behind the same async API.
//
//   import { open } from 'sqlite-tempcrypt';
//   const db = await open('app.db', { storage: 'opfs' });
//   const rows = await db.query('SELECT ?1 AS x', [42]);

import { SqliteError } from './errors.js';

export { SqliteError };

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

  call(method, ...args) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.calls.set(id, { resolve, reject });
      this.worker.postMessage({ id, method, args });
    });
  }

  terminate() { this.worker.terminate(); }
}

// In-process stand-in for the Worker (Node, or { worker: false }): the same
// dispatcher as the Worker's (./methods.js), loaded on first use.
class LocalClient {
  constructor() { this.dispatcher = null; }
  async call(method, ...args) {
    try {
      if (!this.dispatcher) this.dispatcher = (await import('./methods.js')).createDispatcher();
      return await this.dispatcher.call(method, ...args);
    } catch (e) {
      throw toError(e);
    }
  }
  terminate() {}
}

export class Database {
  constructor(client, name, storage) {
    this.client = client;
    this.name = name;
    this.storage = storage;
    this.closed = false;
    this.tempcrypt = {
      stats: (reset = false) => this.call('stats', !!reset),
      setEnabled: (on) => this.call('setEnabled', !!on),
    };
  }

  call(method, ...args) {
    if (this.closed) return Promise.reject(new SqliteError('database is closed', 21));
    return this.client.call(method, ...args);
  }

  exec(sql) { return this.call('exec', sql).then(() => undefined); }
  query(sql, params) { return this.call('query', sql, params); }
  run(sql, params) { return this.call('run', sql, params); }
  export() { return this.call('export'); }
  files() { return this.call('files'); }

  async close() {
    if (this.closed) return;
    try {
      await this.client.call('close');
    } finally {
      this.closed = true;
      this.client.terminate();
    }
  }
}

// Open a database.  storage: 'opfs' (default where OPFS is usable) or
// 'memory'.  Rejects with an SqliteError (code 5, SQLITE_BUSY) when another
// tab holds the same database.
export async function open(name, options = {}) {
  const { worker = typeof Worker === 'function', ...rest } = options;
  if (rest.wasm instanceof URL) rest.wasm = rest.wasm.href;
  let client;
  if (worker) {
    const w = new Worker(new URL('./rpc-worker.js', import.meta.url), { type: 'module', name: `sqlite-tempcrypt:${name}` });
    client = new WorkerClient(w);
  } else {
    client = new LocalClient();
  }
  try {
    const { storage } = await client.call('open', name, rest);
    return new Database(client, name, storage);
  } catch (e) {
    client.terminate();
    throw e;
  }
}
