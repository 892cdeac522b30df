// The dedicated Worker the main-thread API starts: it runs the synchronous
// engine and answers postMessage calls { id, method, args } with
// { id, result } or { id, error: { name, message, code } }.  The calls
// themselves are in ./methods.js (shared with index.js's LocalClient).

import { createDispatcher } from './methods.js';

const dispatcher = createDispatcher();

self.onmessage = async ({ data }) => {
  const { id, method, args } = data;
  try {
    const result = await dispatcher.call(method, ...args);
    const transfer = result instanceof Uint8Array ? [result.buffer] : [];
    self.postMessage({ id, result }, transfer);
  } catch (e) {
    const code = e?.name === 'SqliteError' ? e.code : undefined;
    self.postMessage({ id, error: { name: e?.name ?? 'Error', message: e?.message ?? String(e), code } });
  }
};
