// sqlite-tempcrypt/serve: the Worker side of the main-thread API, for the
// Worker the package starts (./worker-script.js) and for an app's own
// Worker entry, which its bundler builds (TypeScript, imports):
//
//   // db-worker.ts
//   import { serve } from 'sqlite-tempcrypt/serve';
//   serve({ setup: (db) => db.function('slugify', (s) => s.toLowerCase()) });
//
//   // main thread
//   const db = await open('app.db', {
//     worker: () => new Worker(new URL('./db-worker.ts', import.meta.url), { type: 'module' }),
//   });
//
// serve() answers postMessage calls { id, method, args } with { id, result }
// or { id, error } (error: ./shared/errors.js's wire shape), and posts { event }
// for what the main thread hears unasked (at once { type: 'serving' }, so
// that ./page/client.js knows the Worker serves; a new owner of a database
// shared by tabs; and at start the Web Lock it holds for its life:
// { type: 'life', lock }, which frees when it ends, so that ./page/client.js
// learns that it ended by itself, self.close()).  The calls are in
// ./dispatch/rpc.js, opening and the tabs in ./tabs/tabs.js.
// setup(db) runs on the sync database at each open in this Worker (each
// new owner, for a database shared by tabs), before open()'s own `setup`
// module if it has one (./dispatch/setup.js).
import { createDispatcher } from './tabs/tabs.js';
import { toWire } from './shared/errors.js';
import { hasWebLocks, holdLock, newId, WORKER_LOCK } from './shared/locks.js';

export function serve({ setup } = {}) {
  if (setup !== undefined && typeof setup !== 'function') throw new TypeError('serve({ setup }): setup must be a function (db) => void');
  self.postMessage({ event: { type: 'serving' } });
  if (hasWebLocks()) {
    const lock = WORKER_LOCK + newId();
    holdLock(lock).then(() => self.postMessage({ event: { type: 'life', lock } }), () => { /* no lock: no watch */ });
  }
  const dispatcher = createDispatcher((event) => self.postMessage({ event }), { setup });
  self.onmessage = async ({ data }) => {
    const { id, method, args } = data;
    try {
      const result = await dispatcher.call(method, ...args);
      const transfer = result instanceof Uint8Array ? [result.buffer] : [];
      try {
        self.postMessage({ id, result }, transfer);
      } catch (e) {   // a result that cannot cross (never expected): its error does
        self.postMessage({ id, error: toWire(e) });
      }
    } catch (e) {
      self.postMessage({ id, error: toWire(e) });
    }
  };
}
