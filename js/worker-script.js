// The script of the dedicated Worker the main-thread API starts for one
// database (index.js): it answers postMessage calls { id, method, args }
// with { id, result } or { id, error } (error: js/errors.js's wire shape).
// It also posts { event } for what the main thread hears unasked: a new
// owner of a database shared by tabs, and at start the Web Lock it holds
// for its life ({ type: 'life', lock }), which frees when it ends, so
// that ./client.js learns that it ended by itself (self.close()).  The calls themselves are in
// ./rpc.js, opening and the tabs in ./tabs.js (shared with index.js's
// in-process client).

import { createDispatcher } from './tabs.js';
import { toWire } from './errors.js';
import { holdLock, newId, WORKER_LOCK } from './locks.js';

if (globalThis.navigator?.locks?.request) {
  const lock = WORKER_LOCK + newId();
  holdLock(lock).then(() => self.postMessage({ event: { type: 'life', lock } }), () => { /* no lock: no watch */ });
}

const dispatcher = createDispatcher((event) => self.postMessage({ event }));

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
