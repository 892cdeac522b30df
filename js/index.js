// sqlite-tempcrypt: the main-thread API.  Each open() starts a dedicated
// module Worker (the package's, or the app's own entry calling ./serve.js's
// serve(): options.worker) that runs SQLite + tempcrypt synchronously (the sync API of
// ./worker.js behind ./dispatch/rpc.js) and talks to it by postMessage.  Where there
// is no Worker (Node), the same engine runs in-process behind the same
// async API.  The classes are in ./page/async-database.js, the types in
// ./index.d.ts.
//
//   import { open } from 'sqlite-tempcrypt';
//   const db = await open('app.db', { storage: 'opfs' });
//   const rows = await db.query('SELECT ?1 AS x', [42]);

import { SqliteError } from './shared/errors.js';
import { AsyncDatabase } from './page/async-database.js';
import { connect } from './page/client.js';
import { openName, resolveOpenOptions, ASYNC } from './shared/methods.js';

export { SqliteError };
export * from './shared/constants.js';
export { Queryable, Transaction, AsyncDatabase as Database, AsyncStatement as Statement } from './page/async-database.js';

// Open a database.  storage: 'opfs' (default in a browser; an error where
// OPFS is unusable), 'file' (default in Node; ':memory:' is 'memory'),
// 'memory' or 'auto' (OPFS, else memory); db.storage says which.  An OPFS database is shared
// by the tabs that open it (./tabs/tabs.js; db.owner says which tab runs it);
// with tabs: 'exclusive', or while a worker holds it without sharing, it
// rejects with an SqliteError (code SQLITE_BUSY) after lockTimeoutMs.
// import: a source to replace the database with (see Database.import).
export async function open(name, options = {}) {
  name = openName(name);
  const { worker, workerStartMs, import: source, ...rest } = resolveOpenOptions(options, ASYNC);
  if (rest.wasm instanceof URL) rest.wasm = rest.wasm.href;
  if (rest.setup instanceof URL) rest.setup = rest.setup.href;
  const client = connect(name, worker, workerStartMs);
  try {
    const info = await client.call('open', [name, rest]);
    const db = new AsyncDatabase(client, name, info, rest);
    if (source !== undefined) {
      try { await db.import(source); } catch (e) { await db.close().catch(() => {}); throw e; }
    }
    return db;
  } catch (e) {
    client.terminate();
    throw e;
  }
}
