// The storage backend contract: what the VFS bridge (wasm/browser/
// opfs_library.js) calls, synchronously, for every file SQLite opens.
// Implemented by MemoryBackend (memory-backend.js), OpfsPool
// (opfs-pool.js) and FileBackend (file-backend.js, Node).  Written down
// once here; the implementations refer to it.
//
// Errors: a method throws; an error with a numeric `sqliteCode` becomes
// that SQLite result code, a QuotaExceededError SQLITE_FULL, anything else
// the SQLITE_IOERR_* code of the method.  The error is kept and appended to
// SQLite's message by the API.

/**
 * One open file (one per xOpen call), as the backend chose to represent it.
 * The bridge keeps only fileId -> handle and reads these fields for the
 * storage observer's events.
 */
export interface BackendHandle {
  /** SQLite's name of the file; a temp file gets one from the backend ("/tmp/N" or a path). */
  readonly name: string;
  /** The open flags SQLite passed to this xOpen. */
  readonly flags: number;
  /** True for a temp file (xOpen with name null). */
  readonly temp: boolean;
}

export interface StorageBackend<H extends BackendHandle = BackendHandle> {
  /** 'memory' | 'opfs' | 'file' */
  readonly kind: string;
  /**
   * Open `name` (SQLite's full path name, "/..."), or a new temp file when name is null.  flags are
   * SQLite's open flags: without SQLITE_OPEN_CREATE a missing file is an error (sqliteCode SQLITE_CANTOPEN).
   */
  xOpen(name: string | null, flags: number): H;
  /** Close; a temp file or one opened with SQLITE_OPEN_DELETEONCLOSE is deleted. */
  xClose(h: H): void;
  /** Read into buf from offset; returns the bytes read (fewer at end of file: the bridge zero-fills). */
  xRead(h: H, buf: Uint8Array, offset: number): number;
  /** Write all of buf at offset (a short write is an error). */
  xWrite(h: H, buf: Uint8Array, offset: number): void;
  xTruncate(h: H, size: number): void;
  xSync(h: H, flags: number): void;
  xSize(h: H): number;
  /** Delete a named file; false if there was none. */
  xDelete(name: string): boolean;
  xAccess(name: string, flags?: number): boolean;

  /** Make room ahead of need (the OPFS pool creates files; others resolve at once). */
  reserve(n?: number): Promise<void>;
  /** Release everything (handles, locks). */
  close(): void;
  /** The files stored now, for inspection. */
  list(): { file?: string; path: string | null; flags: number; size: number }[];
  /** Raw bytes of every file the backend holds (OPFS pool, file), for leak checks. */
  scan?(): { file: string; path: string | null; flags: number; bytes: Uint8Array }[];
}
