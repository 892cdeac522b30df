// Where the package runs.  Node has no Worker global and no OPFS; the
// browser build reads its .wasm with fetch, Node from the file system.
export const isNode = typeof process === 'object' && !!process.versions?.node && typeof window === 'undefined';

// Node's AsyncLocalStorage (no import of a node: module, so that bundlers
// for the browser see none); undefined elsewhere.
export const AsyncLocalStorage = isNode ? globalThis.process.getBuiltinModule?.('node:async_hooks')?.AsyncLocalStorage : undefined;

// setTimeout(fn, ms) for a limit that may be Infinity or more than timers
// take (2^31-1 ms; setTimeout would fire at once): no timer then.  Returns
// what clearTimeout takes.
export const MAX_TIMER_MS = 2 ** 31 - 1;
export const limitTimer = (fn, ms) => (ms > MAX_TIMER_MS ? null : setTimeout(fn, ms));
