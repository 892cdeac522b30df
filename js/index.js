// sqlite-tempcrypt: the main-thread API.  Each open() starts a dedicated
// module Worker that runs SQLite + tempcrypt synchronously (the sync API of
// ./worker.js behind ./rpc.js) and talks to it by postMessage.  Where there
// is no Worker (Node), the same engine runs in-process behind the same
// async API.  The classes are in ./async-database.js, the types in
// ./index.d.ts.
//
//   import { open } from 'sqlite-tempcrypt';
//   const db = await open('app.db', { storage: 'opfs' });
//   const rows = await db.query('SELECT ?1 AS x', [42]);

import { SqliteError } from './errors.js';
import { AsyncDatabase } from './async-database.js';
import { connect } from './client.js';

export { SqliteError };
export { Queryable, Transaction, AsyncDatabase as Database, AsyncStatement as Statement } from './async-database.js';

// Open a database.  storage: 'opfs' (default in a browser; an error where
// OPFS is unusable), 'memory' (default in Node), 'file' (Node) or 'auto'
// (OPFS, else memory); db.storage says which.  Rejects with an SqliteError
// (code SQLITE_BUSY) when another tab holds the same database.  import: a
// source to replace the database with (see Database.import).
export async function open(name, options = {}) {
  const { worker = typeof Worker === 'function', import: source, ...rest } = options;
  if (rest.wasm instanceof URL) rest.wasm = rest.wasm.href;
  if (rest.setup instanceof URL) rest.setup = rest.setup.href;
  const client = connect(name, worker);
  try {
    const { storage } = await client.call('open', [name, rest]);
    const db = new AsyncDatabase(client, name, storage);
    if (source !== undefined) {
      try { await db.import(source); } catch (e) { await db.close().catch(() => {}); throw e; }
    }
    return db;
  } catch (e) {
    client.terminate();
    throw e;
  }
}
