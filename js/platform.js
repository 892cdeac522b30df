// Where the package runs.  Node has no Worker global and no OPFS; the
// browser build reads its .wasm with fetch, Node from the file system.
export const isNode = typeof process === 'object' && !!process.versions?.node && typeof window === 'undefined';
// Node's AsyncLocalStorage (no import of a node: module, so that bundlers
// for the browser see none); undefined elsewhere.
export const AsyncLocalStorage = isNode ? globalThis.process.getBuiltinModule?.('node:async_hooks')?.AsyncLocalStorage : undefined;
