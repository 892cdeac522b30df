// Types of sqlite-tempcrypt's main-thread API (hand-written; checked by tsc).

/** A value SQLite can store or return. Integers beyond 2^53 are BigInt. */
export type SqlValue = number | bigint | string | Uint8Array | null;
/** What a parameter may be bound to (booleans become 0/1). */
export type BindValue = SqlValue | boolean | undefined | ArrayBuffer | ArrayBufferView;
/** Positional parameters (?, ?NNN) or named ones (:name, @name, $name). */
export type Params = readonly BindValue[] | { readonly [name: string]: BindValue };
export type Row = Record<string, SqlValue>;
export type Storage = 'opfs' | 'memory';

/** An error from SQLite: `code` is the extended result code. */
export declare class SqliteError extends Error {
  constructor(message: string, code: number);
  readonly name: 'SqliteError';
  /** Extended result code, e.g. 5 (SQLITE_BUSY), 13 (SQLITE_FULL), 2067. */
  readonly code: number;
  /** code & 0xff, e.g. 19 for every SQLITE_CONSTRAINT_*. */
  readonly primaryCode: number;
}

/** tempcrypt's counters (see src/tempcrypt.h). */
export interface TempcryptStats {
  nFileEncrypted: number;
  nFilePlain: number;
  nLogicalWrite: number;
  nLogicalRead: number;
  nPhysicalWrite: number;
  nPhysicalRead: number;
  nEnciphered: number;
  nBlockRmw: number;
  nFailedBlockRead: number;
}

export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

/** One file of the storage underneath (OPFS pool file or memory file). */
export interface StoredFile {
  /** Pool file name in OPFS (storage 'opfs' only). */
  file?: string;
  /** The SQLite file it holds; null for a free pool file. */
  path: string | null;
  /** SQLite open flags of that file (0 for a free pool file). */
  flags: number;
  /** Bytes of data (the pool header not counted). */
  size: number;
}

export interface OpenOptions {
  /** Where the database lives; default 'opfs' where usable, else 'memory'. */
  storage?: Storage;
  /** Where to load sqlite3.wasm from (default: next to the package's JS). */
  wasm?: string | URL;
  /** Free pool files kept ready (OPFS); default 16. */
  minFree?: number;
  /** OPFS pool directory name; default derived from the database name. */
  pool?: string;
  /** Run in a dedicated Worker (default where Worker exists). */
  worker?: boolean;
}

export declare class Database {
  readonly name: string;
  /** The storage actually used. */
  readonly storage: Storage;
  readonly closed: boolean;
  /** Run one or more statements; rows are discarded. */
  exec(sql: string): Promise<void>;
  /** Rows of one statement as plain objects. */
  query<R extends Row = Row>(sql: string, params?: Params): Promise<R[]>;
  /** Run one statement; changes and the last inserted rowid. */
  run(sql: string, params?: Params): Promise<RunResult>;
  /** The main database as an SQLite file image. */
  export(): Promise<Uint8Array>;
  /** Files in the storage underneath, and temp leftovers wiped at open. */
  files(): Promise<{ list: StoredFile[]; wipedAtOpen: StoredFile[] }>;
  close(): Promise<void>;
  readonly tempcrypt: {
    stats(reset?: boolean): Promise<TempcryptStats>;
    /**
     * Switch encryption of temp files opened from now on; resolves to the previous setting.
     * For demos and benchmarks only: with `false`, new temp files are written to OPFS in plaintext.
     */
    setEnabled(on: boolean): Promise<boolean>;
  };
}

/**
 * Open (or create) a database in a dedicated Worker started by the package.
 * Rejects with SqliteError code 5 (SQLITE_BUSY) if another tab holds it.
 */
export declare function open(name: string, options?: OpenOptions): Promise<Database>;
