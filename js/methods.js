// The calls the main-thread API makes ({ method, args } -> result), for one
// database: answered by the dedicated Worker (./rpc-worker.js) and, where
// there is no Worker, in-process by index.js's LocalClient.  One table, so
// both behave the same.

import { open } from './worker.js';
import { SqliteError } from './errors.js';

// A fresh dispatcher: call(method, ...args) runs one call and resolves to
// its result once the pool's top-up (db.pending) is done.
export function createDispatcher() {
  let db = null;
  const methods = {
    async open(name, options) {
      if (db) throw new Error('this worker already has a database open');
      db = await open(name, options);
      return { storage: db.storage };
    },
    exec: (sql) => db.exec(sql),
    query: (sql, params) => db.query(sql, params),
    run: (sql, params) => db.run(sql, params),
    export: () => db.export(),
    stats: (reset) => db.tempcrypt.stats(reset),
    setEnabled: (on) => db.tempcrypt.setEnabled(on),
    files: () => ({ list: db.files.list(), wipedAtOpen: db.files.wipedAtOpen }),
    async close() {
      if (db) {
        await db.close();
      }
      db = null;
    },
  };
  return {
    async call(method, ...args) {
      if (!Object.prototype.hasOwnProperty.call(methods, method)) throw new Error(`unknown method ${method}`);
      if (method !== 'open' && method !== 'close' && !db) throw new SqliteError('database is closed', 21);
      const result = await methods[method](...args);
      if (db && db.pending) await db.pending;
      return result;
    },
  };
}
