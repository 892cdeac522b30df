// The storage backend contract, written down once: what the VFS bridge
// (wasm/browser/storage_library.js) calls, synchronously, for every file
// SQLite opens (StorageBackend), and what a backend file default-exports
// so that open(name, { storage }) can find it (StorageKind; the registry
// is js/storage/backends.js).  Implemented by memory-backend.js, opfs-pool.js (with
// opfs-backend.js) and file-backend.js (Node).  Every registered backend
// passes the conformance suite in test/conformance/ (the contract's checks
// in contract.js, the SQL cases in cases.js).
//
// Errors: a method throws; an error with a numeric `sqliteCode` becomes
// that SQLite result code, a QuotaExceededError SQLITE_FULL, anything else
// the SQLITE_IOERR_* code of the method (js/shared/errors.js: storageCode).  The
// error becomes the `cause` of the SqliteError the API call fails with.

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
  /**
   * True when the backend opened the file read-only though SQLite asked for read-write (it may be read,
   * not written: SQLite's unix VFS does the same); SQLite then treats the database as read-only.
   */
  readonly readOnly?: boolean;
}

export interface StorageBackend<H extends BackendHandle = BackendHandle> {
  /** The name of its StorageKind: 'memory' | 'opfs' | 'file' */
  readonly kind: string;
  /**
   * SQLite's full path name of a database name (the VFS's xFullPathname; every name xOpen, xDelete and
   * xAccess get comes from it, or from it plus a suffix such as -journal).  Optional: without it a name is
   * put under "/" ("app.db" -> "/app.db").  Storage 'file' gives real absolute paths.
   */
  xFullPathname?(name: string): string;
  /** Bytes the backend stores before each file's data (the OPFS pool's header; else 0). */
  readonly headerSize: number;
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
  /**
   * Optional, for a backend whose files other processes share (storage 'file'): SQLite's lock levels of a main
   * database file (SQLITE_LOCK_SHARED .. EXCLUSIVE), raised at once or not at all: true when held, false when
   * busy (SQLITE_BUSY; a PENDING taken on the way to EXCLUSIVE may be kept).  Without xLock the VFS keeps the
   * locks in memory, for the connections of one wasm instance.
   */
  xLock?(h: H, level: number): boolean;
  /** Lower a main database file's lock to level (SHARED or NONE); with xLock. */
  xUnlock?(h: H, level: number): void;
  /** Whether any connection holds RESERVED or more on the file (a dead holder's lock does not count); with xLock. */
  xCheckReservedLock?(h: H): boolean;
  /** Optional: block for us microseconds (SQLite's busy handler waiting for a lock); without it, no wait. */
  xSleep?(us: number): void;

  /**
   * Make room ahead of need: at least n files free, and the backend's own minimum (the OPFS pool
   * creates files; others resolve at once).
   */
  reserve(n?: number): Promise<void>;
  /** Resolves once the backend's own work in flight is done (the OPFS pool's top-up); optional. */
  settled?(): Promise<void>;
  /** Release everything (handles, locks); may return a promise that settles once nothing is in flight. */
  close(): void | Promise<void>;
  /** The files stored now, for inspection. */
  list(): { file?: string; path: string | null; flags: number; size: number }[];
  /** Old temp files removed when the backend opened (a crashed tab's or process's). */
  readonly wipedAtOpen?: { file?: string; path: string | null; flags: number; size: number }[];
  /** Raw bytes of every file the backend holds (OPFS pool, file), for leak checks. */
  scan?(): { file: string; path: string | null; flags: number; bytes: Uint8Array }[];
}

/** What a backend file default-exports, and js/storage/backends.js lists. */
export interface StorageKind<B extends StorageBackend = StorageBackend> {
  /** The name users pass as open(name, { storage }). */
  readonly name: string;
  /** True when the data outlives the backend object (closed and opened again, it is still there). */
  readonly persistent: boolean;
  /** The open() options this storage reads (their defaults: js/shared/methods.js's OPEN_OPTIONS). */
  readonly options: readonly string[];
  /** Why this storage cannot be used here (the user's error message, SQLITE_CANTOPEN), or null. */
  unavailable(): string | null | Promise<string | null>;
  /**
   * Storage that every tab of the origin sees (OPFS): the key that names database `name` among the tabs
   * sharing it (js/tabs/tabs.js; for OPFS its pool and full name).  Absent: each tab's database is its own.
   */
  shareKey?(name: string, options: Record<string, unknown>): Promise<string>;
  /** The storage of database `name` (options: open()'s). */
  open(name: string, options: Record<string, unknown>): Promise<B>;
  /** Open options for a fresh, empty storage of its own named by tag, and how to remove it (tests). */
  scratch(tag: string): Promise<{ options: Record<string, unknown>; dispose(): void | Promise<void> }>;
}
