// The dedicated Worker the main-thread API starts: it runs the synchronous
// engine and answers postMessage calls { id, method, args } with
// { id, result } or { id, error: { name, message, code } }.

import { open } from './worker.js';

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
      await db.pending;
      db.close();
    }
    db = null;
  },
};

self.onmessage = async ({ data }) => {
  const { id, method, args } = data;
  try {
    if (!Object.prototype.hasOwnProperty.call(methods, method)) throw new Error(`unknown method ${method}`);
    if (method !== 'open' && method !== 'close' && !db) throw Object.assign(new Error('database is closed'), { code: 21, name: 'SqliteError' });
    const result = await methods[method](...args);
    if (db && db.pending) await db.pending;
    const transfer = result instanceof Uint8Array ? [result.buffer] : [];
    self.postMessage({ id, result }, transfer);
  } catch (e) {
    const code = e?.name === 'SqliteError' ? e.code : undefined;
    self.postMessage({ id, error: { name: e?.name ?? 'Error', message: e?.message ?? String(e), code } });
  }
};
