// Import and export, for both APIs: the sources an import reads, the one
// import driver (importFrom) and the one export pager (pageStream), and
// the staging file an import goes through (ImportStaging).  No wasm here
// but through a Connection.
import { SqliteError, storageError } from '../shared/errors.js';
import {
  SQLITE_CANTOPEN, SQLITE_MISUSE, SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_IOERR_WRITE, SQLITE_IOERR_CLOSE,
  SQLITE_IOERR_DELETE, SQLITE_OPEN_READWRITE, SQLITE_OPEN_CREATE, SQLITE_OPEN_MAIN_DB,
} from '../shared/constants.js';

export const IMPORT_CHUNK = 1 << 20;

// The SQL that reads the main database page by page (exportStream).
export const EXPORT_PAGES_SQL = 'SELECT data FROM sqlite_dbpage ORDER BY pgno';

// Whether the chunks of source are read into buffers made for us (a Blob's
// or a Response's stream), so ours to hand on; a ReadableStream passed in
// may hand out buffers its maker still uses.
function streamed(source) {
  return (typeof Blob === 'function' && source instanceof Blob) || (typeof Response === 'function' && source instanceof Response);
}

const SOURCES = 'a Uint8Array, ArrayBuffer, Blob, Response, ReadableStream or (async) iterable of Uint8Array';

// A chunk of a stream or an iterable as bytes: a Uint8Array, ArrayBuffer
// or other view; anything else (a string, a number) is a TypeError, never
// bytes made up from it.
function bytesOf(c) {
  if (c instanceof Uint8Array) return c;
  if (c instanceof ArrayBuffer) return new Uint8Array(c);
  if (ArrayBuffer.isView(c)) return new Uint8Array(c.buffer, c.byteOffset, c.byteLength);
  throw new TypeError(`import: a chunk of the source is ${c === null ? 'null' : typeof c}, not bytes: the source must be ${SOURCES}`);
}

// The chunks of an import source: Uint8Array, ArrayBuffer, Blob, Response,
// ReadableStream or (async) iterable of Uint8Array.  Chunks cut from a
// Uint8Array are views of it (copy them before a transfer).
export async function* importChunks(source) {
  if (typeof source === 'string' || source instanceof String) {
    throw new TypeError(`import: the source is a string, not bytes: it must be ${SOURCES} (fetch a URL first: db.import(await fetch(url)))`);
  }
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
        yield bytesOf(value);
      }
    } finally {
      reader.releaseLock();
    }
  }
  if (source && (typeof source[Symbol.asyncIterator] === 'function' || typeof source[Symbol.iterator] === 'function')) {
    for await (const c of source) yield bytesOf(c);
    return;
  }
  throw new TypeError(`import: the source must be ${SOURCES}`);
}

// The import driver: every chunk of source to sink.write(chunk, owned)
// (owned: read from a stream, not the caller's own bytes), then
// sink.finish(); when reading the source or a write fails, sink.abort()
// and the error.  The sink's methods may return promises.
export async function importFrom(source, sink) {
  const owned = streamed(source);
  try {
    for await (const chunk of importChunks(source)) await sink.write(chunk, owned);
  } catch (e) {
    try { await sink.abort(); } catch { /* the first error says more */ }
    throw e;
  }
  await sink.finish();
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

// The export pager: a cursor over EXPORT_PAGES_SQL ({ open(), page(n) ->
// { rows, done }, close(early) }, each may return a promise) as a
// ReadableStream of chunks of pagesPerChunk pages, read when asked for.
// close(false) once every page was read, close(true) when the stream ends
// early (an error, a cancel).
export function pageStream(cursor, pagesPerChunk) {
  return new ReadableStream({
    start: () => cursor.open(),
    pull: async (controller) => {
      try {
        const { rows, done } = await cursor.page(pagesPerChunk);
        if (rows.length) controller.enqueue(concatPages(rows));
        if (done) { await cursor.close(false); controller.close(); }
      } catch (e) { await cursor.close(true); throw e; }
    },
    cancel: () => cursor.close(true),
  }, { highWaterMark: 0 });
}

const MAGIC = 'SQLite format 3\0';
const decoder = new TextDecoder();

// Check the 100-byte header of an SQLite file of `size` bytes; returns the
// page size, or throws SQLITE_NOTADB / SQLITE_CORRUPT saying what is wrong.
export function checkSqliteHeader(head, size) {
  if (size < 100 || decoder.decode(head.subarray(0, 16)) !== MAGIC) {
    throw new SqliteError(`import: not an SQLite database (${size} bytes; it does not start with "SQLite format 3")`, SQLITE_NOTADB);
  }
  const dv = new DataView(head.buffer, head.byteOffset, 100);
  let pageSize = dv.getUint16(16);
  if (pageSize === 1) pageSize = 65536;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) {
    throw new SqliteError(`import: not an SQLite database (page size ${pageSize} in the header)`, SQLITE_NOTADB);
  }
  if (size % pageSize !== 0) {
    throw new SqliteError(`import: damaged database: ${size} bytes is not a whole number of ${pageSize}-byte pages (truncated?)`, SQLITE_CORRUPT);
  }
  const nPage = dv.getUint32(28);
  if (nPage !== 0 && dv.getUint32(24) === dv.getUint32(92) && nPage * pageSize > size) {
    throw new SqliteError(`import: damaged database: its header says ${nPage} pages but the file holds ${size / pageSize} (truncated?)`, SQLITE_CORRUPT);
  }
  return pageSize;
}

// The staging file of an import into database `name`: its name with
// STAGING and 32 random hex digits, so that it never is another file of
// the storage (an import only ever deletes the file it created).
const STAGING = '-tcimport-';
const STAGING_TAIL = /^[0-9a-f]{32}$/;
function stagingName(name) {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return name + STAGING + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

// Whether path (a storage's full path name) is the staging file of an
// import into the database whose full path name is main: one an import
// left behind when its process or tab died (storages remove them at open).
export function isStagingOf(path, main) {
  return path.startsWith(main + STAGING) && STAGING_TAIL.test(path.slice(main.length + STAGING.length));
}

// A database being imported into connection conn: the bytes go in chunks
// into a staging file in the same storage; finish() checks them and copies
// them over the database in one transaction (the backup API), so a
// failure leaves it as it was.  The staging file goes either way.
export class ImportStaging {
  constructor(conn) {
    this.conn = conn;
    this.backend = conn.engine.backend;
    const flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_MAIN_DB;
    this.handle = null;
    for (let tries = 0; !this.handle; tries++) {
      this.name = stagingName(conn.engine.bridge.fullPathname(conn.name));
      this.path = conn.engine.bridge.fullPathname(this.name);
      if (this.io(() => this.backend.xAccess(this.path), SQLITE_CANTOPEN, 'cannot create the staging file')) {
        if (tries < 3) continue;
        throw new SqliteError(`import: cannot create the staging file: ${this.path} exists`, SQLITE_CANTOPEN);
      }
      this.handle = this.io(() => this.backend.xOpen(this.path, flags), SQLITE_CANTOPEN, 'cannot create the staging file');
    }
    this.head = new Uint8Array(100);
    this.size = 0;
  }

  // fn(), a storage failure as an SqliteError (js/shared/errors.js).
  io(fn, dflt, what) {
    try { return fn(); } catch (e) { throw storageError(e, dflt, `import: ${what}`); }
  }

  write(chunk) {
    if (!this.handle) throw new SqliteError('import: already finished', SQLITE_MISUSE);
    if (!(chunk instanceof Uint8Array)) throw new TypeError('import: chunks must be Uint8Array');
    if (chunk.length === 0) return;
    if (this.size < 100) this.head.set(chunk.subarray(0, 100 - this.size), this.size);
    this.io(() => this.backend.xWrite(this.handle, chunk, this.size), SQLITE_IOERR_WRITE, 'writing the staging file');
    this.size += chunk.length;
  }

  finish() {
    const conn = this.conn;
    try {
      checkSqliteHeader(this.head, this.size);
      // A WAL-mode file comes in as a rollback-journal one (no WAL here).
      if (this.head[18] === 2 || this.head[19] === 2) {
        this.io(() => this.backend.xWrite(this.handle, new Uint8Array([1, 1]), 18), SQLITE_IOERR_WRITE, 'writing the staging file');
      }
      this.closeHandle();
      const src = conn.engine.open(this.name, { readOnly: true });
      try {
        let check;
        try {
          check = src.query('PRAGMA quick_check', null, { rowMode: 'array' }).map((r) => r[0]);
        } catch (e) {
          throw new SqliteError(`import: damaged database: ${e.message}`, e.code, { cause: e });
        }
        if (check.length !== 1 || check[0] !== 'ok') {
          throw new SqliteError(`import: damaged database (quick_check: ${check.slice(0, 3).join('; ')})`, SQLITE_CORRUPT);
        }
        conn.backupFrom(src);
      } finally {
        src.close();
      }
    } finally {
      this.abort();
    }
  }

  // Drop the staging file.
  abort() {
    this.closeHandle();
    this.drop();
  }

  closeHandle() {
    if (!this.handle) return;
    const h = this.handle;
    this.handle = null;
    this.io(() => this.backend.xClose(h), SQLITE_IOERR_CLOSE, 'closing the staging file');
  }

  drop() {
    this.io(() => this.backend.xDelete(this.path), SQLITE_IOERR_DELETE, 'removing the staging file');
  }
}
