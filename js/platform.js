// Where the package runs.  Node has no Worker global and no OPFS; the
// browser build reads its .wasm with fetch, Node from the file system.
export const isNode = typeof process === 'object' && !!process.versions?.node && typeof window === 'undefined';
