// Types of sqlite-tempcrypt/worker: the synchronous API for Workers (and
// Node).  Only open() and import() are async.

import type {
  SqlValue, BindValue, Params, Row, RowShape, ArrayRow, ArrayRowOptions, ObjectRowOptions, CallOptions, Storage, StorageChoice,
  RunResult, TempcryptStats, StoredFile, RawPoolFile, BatchEntry, BatchResult, ImportSource,
} from './index.js';
export type {
  SqlValue, BindValue, Params, Row, RowShape, ArrayRow, ArrayRowOptions, ObjectRowOptions, CallOptions, QueryOptions, Storage,
  StorageChoice, RunResult, TempcryptStats, StoredFile, RawPoolFile, BatchEntry, BatchResult, ImportSource,
} from './index.js';
export { SqliteError } from './index.js';
export * from './shared/constants.js';

/** What the observer sees: every storage call of the VFS under tempcrypt. */
export interface StorageEvent {
  op: 'open' | 'close' | 'read' | 'write' | 'truncate' | 'delete';
  /** Id of the open file (stable while it is open). */
  fileId?: number;
  /** SQLite's name, or the pool's "/tmp/N" for a temp file. */
  name: string;
  /** SQLite open flags and the kind derived from them. */
  flags?: number;
  kind?: 'main-db' | 'temp-db' | 'transient-db' | 'main-journal' | 'temp-journal' | 'subjournal' | 'super-journal' | 'wal' | 'other';
  /** True for files SQLite opened without a name (what tempcrypt encrypts). */
  temp?: boolean;
  offset?: number;
  length?: number;
  /** read: bytes actually read. */
  got?: number;
  /** truncate: the new size. */
  size?: number;
  /** write: the bytes on their way to storage; a view valid only during the call. */
  data?: Uint8Array;
}
export type StorageObserver = (event: StorageEvent) => void;

export interface WorkerOpenOptions {
  /** As in the main-thread API: default 'opfs' in a browser, 'file' in Node, 'memory' for ':memory:'; 'auto' may fall back. */
  storage?: StorageChoice;
  /** Replace the database by this SQLite file once open. */
  import?: ImportSource;
  /** storage 'file' (Node): the directory relative names are in (default: the working directory). */
  dir?: string;
  /** storage 'file' (Node): read-only (default false), as in the main-thread API. */
  readOnly?: boolean;
  /** Where to load sqlite3.wasm from, or its bytes or compiled module (default: next to the package's JS). */
  wasm?: string | URL | ArrayBuffer | Uint8Array | WebAssembly.Module;
  /** Free pool files kept ready (OPFS); default 16. */
  minFree?: number;
  /** OPFS pool directory name; default derived from the database name. */
  pool?: string;
  /** Time limit of each call in ms (default: none; settable later as db.timeoutMs). */
  timeoutMs?: number;
  /** How long open() waits for another tab (or worker) to close the database before SQLITE_BUSY (storage 'opfs'; default 5000 ms). */
  lockTimeoutMs?: number;
  /**
   * storage 'file': how long a statement waits for another connection's lock (a writer, in this process or
   * another) before SQLITE_BUSY (5), SQLite's busy_timeout, as better-sqlite3's (default 5000 ms).
   */
  busyTimeoutMs?: number;
  /** Observer installed before the database is opened. */
  observer?: StorageObserver;
  /** The memory tier's budget in bytes for this database: default 64 MiB, 0 for none (as in the main-thread API). */
  tempBudget?: number;
}

export interface FunctionOptions {
  /** Same result for the same arguments (usable in indexes, and SQLite may cache it). */
  deterministic?: boolean;
  /** Not callable from triggers and views. */
  directOnly?: boolean;
  /** Any number of arguments. */
  varargs?: boolean;
}
export interface AggregateSpec<A> extends FunctionOptions {
  start?: A | (() => A);
  step: (acc: A, ...args: SqlValue[]) => A | void;
  result?: (acc: A) => BindValue;
}

/**
 * A prepared statement (better-sqlite3's shape); reusable until finalize() or close().  Parameters come as an
 * array or an object of named values (then options may follow), or one per argument: `st.get(1)`.
 */
export declare class SyncStatement<R extends RowShape<R> = Row> {
  readonly readonly: boolean;
  columns(): string[];
  run(params?: Params, options?: CallOptions): RunResult;
  run(...params: BindValue[]): RunResult;
  get(params?: Params, options?: ObjectRowOptions): R | undefined;
  get<A extends ArrayRow = ArrayRow>(params: Params | undefined, options: ArrayRowOptions): A | undefined;
  get(...params: BindValue[]): R | undefined;
  all(params?: Params, options?: ObjectRowOptions): R[];
  all<A extends ArrayRow = ArrayRow>(params: Params | undefined, options: ArrayRowOptions): A[];
  all(...params: BindValue[]): R[];
  /** Rows one at a time; the statement is busy until the loop ends; timeoutMs limits each step. */
  iterate(params?: Params, options?: ObjectRowOptions): Generator<R, void, undefined>;
  iterate<A extends ArrayRow = ArrayRow>(params: Params | undefined, options: ArrayRowOptions): Generator<A, void, undefined>;
  iterate(...params: BindValue[]): Generator<R, void, undefined>;
  finalize(): void;
}

export declare class SyncDatabase {
  readonly name: string;
  readonly storage: Storage;
  readonly inTransaction: boolean;
  /** Run one or more statements; with params, sql is one statement and they are bound to it. */
  exec(sql: string, params?: Params, options?: CallOptions): void;
  query<R extends RowShape<R> = Row>(sql: string, params?: Params, options?: ObjectRowOptions): R[];
  query<R extends ArrayRow = ArrayRow>(sql: string, params: Params | undefined, options: ArrayRowOptions): R[];
  /** The rows the statement changed (0 if none) and the last inserted rowid. */
  run(sql: string, params?: Params, options?: CallOptions): RunResult;
  prepare<R extends RowShape<R> = Row>(sql: string): SyncStatement<R>;
  iterate<R extends RowShape<R> = Row>(sql: string, params?: Params, options?: ObjectRowOptions): Generator<R, void, undefined>;
  iterate<R extends ArrayRow = ArrayRow>(sql: string, params: Params | undefined, options: ArrayRowOptions): Generator<R, void, undefined>;
  batch<R extends RowShape<R> = Row>(entries: readonly BatchEntry[], options?: ObjectRowOptions): BatchResult<R>[];
  batch<R extends ArrayRow = ArrayRow>(entries: readonly BatchEntry[], options: ArrayRowOptions): BatchResult<R>[];
  /** fn(db) in a transaction (a savepoint when nested): committed when it returns, rolled back when it throws. */
  transaction<T>(fn: (db: SyncDatabase) => T): T;
  /** Replace the database by an SQLite file (checked first; on error nothing changes). */
  import(source: ImportSource): Promise<void>;
  /** The database file in chunks, read in one read transaction. */
  exportStream(options?: { pagesPerChunk?: number }): ReadableStream<Uint8Array>;
  /** Bytes of the wasm memory. */
  heapSize(): number;
  /** The raw bytes of every file in the storage underneath: files.scan(). */
  scanFiles(): RawPoolFile[];
  /** Time limit of each call in ms (0: none); past it the statement fails with SQLITE_INTERRUPT.  A bad value is a TypeError. */
  timeoutMs: number;
  /** fn(...args) as an SQL function (argument count: fn.length, or any with varargs). */
  function(name: string, fn: (...args: SqlValue[]) => BindValue, options?: FunctionOptions): this;
  /** An aggregate: acc starts as start (or start()), step returns the new acc (undefined keeps it). */
  aggregate<A>(name: string, spec: AggregateSpec<A>): this;
  /** A collating sequence: compare returns a negative number, 0 or a positive number. */
  collation(name: string, compare: (a: string, b: string) => number): this;
  export(): Uint8Array;
  /** Resolves once the storage is closed, nothing of the OPFS pool still in flight. */
  close(): Promise<void>;
  /** Set (or clear with null) the storage observer. */
  observe(fn: StorageObserver | null): void;
  /** Make at least n pool files free (OPFS) before a temp-heavy statement. */
  reserve(n?: number): Promise<void>;
  readonly tempcrypt: {
    stats(reset?: boolean): TempcryptStats;
    /** For demos and benchmarks only: with `false`, new temp files are written to OPFS in plaintext. */
    setEnabled(on: boolean): boolean;
    /** The memory tier's budget in bytes: sets it and returns the one it replaced; without an argument, returns it. */
    budget(bytes?: number): number;
  };
  readonly files: {
    list(): StoredFile[];
    /** Raw bytes of every OPFS pool file or storage 'file' file (empty for memory storage). */
    scan(): RawPoolFile[];
    /** Temp leftovers (of a crashed or closed tab) wiped when the pool opened. */
    readonly wipedAtOpen: StoredFile[];
    /** Bytes of pool header before each file's data (4096 for OPFS, else 0). */
    readonly headerSize: number;
  };
}

export declare function open(name: string, options?: WorkerOpenOptions): Promise<SyncDatabase>;
/** True where OPFS sync access handles exist (a dedicated Worker). */
export declare function opfsAvailable(): boolean;
/** Whether OPFS sync access handles work here, found by a real call (once
 * per Worker): null when they do, else why not.  `open()` uses it to pick
 * its default storage. */
export declare function probeOpfs(): Promise<string | null>;
/** Everything in OPFS, recursively (size null: locked by an access handle). */
export declare function listOpfs(): Promise<{ path: string; kind: 'file' | 'directory'; size: number | null }[]>;
/** Remove the pool directory of a database (must not be open anywhere). */
export declare function deletePool(pool: string): Promise<void>;
/** Pool directory name used for a database name (distinct for distinct names). */
export declare function poolNameOf(name: string): Promise<string>;
export declare const HEADER_SIZE: number;
export declare const POOL_ROOT: string;
/** tempcrypt's counter names in order, as the C library has them: filled when the first database opens (empty before). */
export declare const STATS_FIELDS: readonly (keyof TempcryptStats)[];
