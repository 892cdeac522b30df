// Import sources and export pages, shared by the main thread (index.js)
// and the Worker side (worker.js); no wasm here.

import { SqliteError } from './errors.js';
import { SQLITE_CANTOPEN } from './constants.js';

export const IMPORT_CHUNK = 1 << 20;

// The SQL that reads the main database page by page (exportStream).
export const EXPORT_PAGES_SQL = 'SELECT data FROM sqlite_dbpage ORDER BY pgno';

// The chunks of an import source: Uint8Array, ArrayBuffer, Blob, Response,
// ReadableStream or (async) iterable of Uint8Array.  Chunks cut from a
// Uint8Array are views of it (copy them before a transfer).
export async function* importChunks(source) {
  if (source instanceof ArrayBuffer) source = new Uint8Array(source);
  if (source instanceof Uint8Array) {
    for (let at = 0; at < source.length; at += IMPORT_CHUNK) yield source.subarray(at, at + IMPORT_CHUNK);
    return;
  }
  if (typeof Response === 'function' && source instanceof Response) {
    if (!source.ok) throw new SqliteError(`import: HTTP ${source.status} ${source.statusText}`.trim(), SQLITE_CANTOPEN);
    if (!source.body) return;
    source = source.body;
  } else if (typeof Blob === 'function' && source instanceof Blob) {
    source = source.stream();
  }
  if (source && typeof source.getReader === 'function') {
    const reader = source.getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        yield value instanceof Uint8Array ? value : new Uint8Array(value);
      }
    } finally {
      reader.releaseLock();
    }
  }
  if (source && (typeof source[Symbol.asyncIterator] === 'function' || typeof source[Symbol.iterator] === 'function')) {
    for await (const c of source) yield c instanceof Uint8Array ? c : new Uint8Array(c);
    return;
  }
  throw new TypeError('import: the source must be a Uint8Array, ArrayBuffer, Blob, Response, ReadableStream or iterable of Uint8Array');
}

// The pages of rows [[data], ...] as one Uint8Array.
export function concatPages(rows) {
  let n = 0;
  for (const r of rows) n += r[0].length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const r of rows) { out.set(r[0], at); at += r[0].length; }
  return out;
}
