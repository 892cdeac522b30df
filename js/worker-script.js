// The script of the dedicated Worker the main-thread API starts for one
// database (index.js): it answers postMessage calls { id, method, args }
// with { id, result } or { id, error } (error: js/errors.js's wire shape).
// The calls themselves are in ./rpc.js (shared with index.js's in-process
// client).

import { createDispatcher } from './rpc.js';
import { toWire } from './errors.js';

const dispatcher = createDispatcher();

self.onmessage = async ({ data }) => {
  const { id, method, args } = data;
  try {
    const result = await dispatcher.call(method, ...args);
    const transfer = result instanceof Uint8Array ? [result.buffer] : [];
    self.postMessage({ id, result }, transfer);
  } catch (e) {
    self.postMessage({ id, error: toWire(e) });
  }
};
