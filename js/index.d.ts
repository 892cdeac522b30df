// Types of sqlite-tempcrypt's main-thread API (hand-written; checked by tsc).

export * from './shared/constants.js';

/** A value SQLite can store or return. Integers beyond 2^53 are BigInt. */
export type SqlValue = number | bigint | string | Uint8Array | null;
/** What a parameter may be bound to (booleans become 0/1). */
export type BindValue = SqlValue | boolean | undefined | ArrayBuffer | ArrayBufferView;
/** Positional parameters (?, ?NNN) or named ones (:name, @name, $name). */
export type Params = readonly BindValue[] | { readonly [name: string]: BindValue };
export type Row = Record<string, SqlValue>;
/**
 * What a row type R must be: every column a SqlValue.  Interfaces qualify as well as type aliases
 * (`interface Note { id: number; body: string }`, `db.query<Note>(...)`).
 */
export type RowShape<R> = { [K in keyof R]: SqlValue };
/** A row with rowMode 'array': the values in column order. */
export type ArrayRow = SqlValue[];
/** The storage used by an open database ('file': real files, Node only). */
export type Storage = 'opfs' | 'memory' | 'file';
/** The storage asked for: 'auto' is OPFS where usable, else memory. */
export type StorageChoice = Storage | 'auto';

/** Options of one call (any other name is a TypeError). */
export interface CallOptions {
  /** Time limit of this call in ms (0: none), instead of the database's timeoutMs. */
  timeoutMs?: number;
}
/** rowMode 'object' (default): rows as { column: value }; 'array': values in column order. */
export interface QueryOptions extends CallOptions { rowMode?: 'object' | 'array'; }
export interface ObjectRowOptions extends CallOptions { rowMode?: 'object'; }
export interface ArrayRowOptions extends CallOptions { rowMode: 'array'; }
export interface IterateOptions extends QueryOptions {
  /** Rows fetched from the Worker per message (default 256). */
  pageSize?: number;
}
/** One entry of batch(): SQL alone, or SQL and its parameters. */
export type BatchEntry = string | readonly [sql: string, params?: Params];
export interface BatchResult<R = Row> extends RunResult {
  /** Rows the statement returned (empty for most writes). */
  rows: R[];
  /** Its result columns' names: empty for a statement that returns no rows (better-sqlite3's `reader` is false). */
  columns: string[];
}
/** What import() and open({ import }) accept. */
export type ImportSource = Uint8Array | ArrayBuffer | Blob | Response | ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/**
 * An error from SQLite: `code` is the extended result code.  `cause`, when set, is what failed underneath
 * (a storage backend's exception, in the same shape on the main thread as in the Worker).  The Kysely and
 * Drizzle adapters throw it shaped as better-sqlite3's (`PeerShapedSqliteError`).
 */
export declare class SqliteError extends Error {
  constructor(message: string, code: number);
  readonly name: 'SqliteError';
  /** Extended result code, e.g. 5 (SQLITE_BUSY), 13 (SQLITE_FULL), 2067. */
  readonly code: number;
  /** code & 0xff, e.g. 19 for every SQLITE_CONSTRAINT_*. */
  readonly primaryCode: number;
  /** The name of code, extended names included: 'SQLITE_BUSY', 'SQLITE_CONSTRAINT_UNIQUE' (the exported constants). */
  readonly codeName: string;
}

/** An SqliteError from sqlite-tempcrypt/kysely or /drizzle: `code` is the name, as better-sqlite3's; `errcode` the number. */
export interface PeerShapedSqliteError extends Omit<SqliteError, 'code'> {
  /** The name of the extended result code, e.g. 'SQLITE_CONSTRAINT_UNIQUE' (= codeName). */
  readonly code: string;
  /** Extended result code, e.g. 2067. */
  readonly errcode: number;
}

/**
 * tempcrypt's statistics for this database's SQLite instance (SQLITE_TEMPCRYPT_STATS in src/tempcrypt.h;
 * test/unit/methods.test.mjs holds this list to it).  Counters count since the last reset; the two gauges
 * (nMemBytes, nMemPeak) say how things are now.
 */
export interface TempcryptStats {
  /** Temp files opened with encryption. */
  nFileEncrypted: number;
  /** Temp files opened while encryption was off (setEnabled(false)). */
  nFilePlain: number;
  /** Bytes SQLite wrote to encrypted temp files (memory tier and storage). */
  nLogicalWrite: number;
  /** Bytes SQLite read from encrypted temp files. */
  nLogicalRead: number;
  /** Bytes tempcrypt wrote to the storage (encrypted). */
  nPhysicalWrite: number;
  /** Bytes tempcrypt read from the storage. */
  nPhysicalRead: number;
  /** Bytes run through ChaCha20, both ways. */
  nEnciphered: number;
  /** Blocks rewritten by read-modify-write. */
  nBlockRmw: number;
  /** Calls refused while a failed write was not yet repaired. */
  nFailedBlockRead: number;
  /** Encrypted temp files that outgrew the memory tier and opened a storage file. */
  nFileSpilled: number;
  /** Bytes SQLite wrote to encrypted temp files that went to the storage rather than the memory tier. */
  nSpilled: number;
  /** Gauge: bytes the memory tier holds now (a reset leaves it). */
  nMemBytes: number;
  /** Gauge: the most bytes the memory tier held at once since the last reset (a reset restarts it from nMemBytes). */
  nMemPeak: number;
}

export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

/** One file of the storage underneath as stored, from db.scanFiles(). */
export interface RawPoolFile {
  /** The OPFS pool file, or the path of storage 'file'. */
  file: string;
  /** The SQLite file it holds; null for a temp file or a free pool file. */
  path: string | null;
  flags: number;
  /** Everything in the file, the pool header included. */
  bytes: Uint8Array;
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
  /**
   * Where the database lives.  Default: 'opfs' in a browser (rejects with SQLITE_CANTOPEN where OPFS is
   * unusable), 'file' in Node (real files), 'memory' for the name ':memory:'.  'auto' falls back to memory;
   * `db.storage` says what was used.
   */
  storage?: StorageChoice;
  /** Replace the database by this SQLite file once open (see Database.import). */
  import?: ImportSource;
  /**
   * storage 'file' (Node): the directory relative names are in (default: the working directory); an absolute
   * name is used as given.  Missing parent directories are created.
   */
  dir?: string;
  /**
   * storage 'file' (Node): open the database read-only (default false): reads work, writes fail with
   * SQLITE_READONLY (8), nothing is created.  A database this process may read but not write, or one in a
   * directory where no lock can be made, opens read-only without it.
   */
  readOnly?: boolean;
  /** Where to load sqlite3.wasm from (default: next to the package's JS). */
  wasm?: string | URL;
  /** Free pool files kept ready (OPFS); default 16. */
  minFree?: number;
  /** OPFS pool directory name; default derived from the database name. */
  pool?: string;
  /**
   * Run in a dedicated Worker (true: the package's, the default where Worker exists), in-process (false), or in
   * the app's own Worker entry that calls serve() of sqlite-tempcrypt/serve (a function returning a new Worker,
   * or a Worker): the way to register functions from TypeScript or code that imports, since a bundler builds it.
   * A Worker serves one open() (given again: a TypeError); one that does not call serve() fails open() with
   * SQLITE_CANTOPEN after workerStartMs.
   */
  worker?: boolean | Worker | (() => Worker);
  /**
   * How long the Worker has to show that it serves (serve() answers as it starts, before the wasm is fetched)
   * before open() fails with SQLITE_CANTOPEN (14) and the Worker is terminated; default 60000 ms, 0: no limit.
   */
  workerStartMs?: number;
  /**
   * A module imported as it is (never bundled) in the Worker once the database is open; its default export gets
   * the synchronous database (sqlite-tempcrypt/worker's SyncDatabase) to register functions, aggregates and
   * collations. Fails to open, naming the module, if it cannot be loaded.
   */
  setup?: string | URL;
  /** Time limit of each call in ms (default: none); past it the statement fails with SQLITE_INTERRUPT (9). */
  timeoutMs?: number;
  /**
   * How long a call waits for a transaction, import or export stream that holds the database (of this tab or,
   * shared, of another) before it fails with SQLITE_BUSY (5); default 5000 ms, Infinity: no limit.  In Node a
   * call on the database made inside transaction(fn) fails at once with SQLITE_MISUSE (21).
   */
  busyTimeoutMs?: number;
  /**
   * Storage 'opfs' (default 'shared'): 'shared': every tab that opens the database uses it, run by one tab's Worker (see
   * Database.owner); 'exclusive': this tab alone, other tabs wait lockTimeoutMs and get SQLITE_BUSY.
   */
  tabs?: 'shared' | 'exclusive';
  /**
   * Storage 'opfs': how long open() waits for another holder to let go before SQLITE_BUSY (5) naming it (default
   * 5000 ms; 0: no wait): the tab (or worker) that has the database and does not share it, or the tab running a
   * shared one to answer (the first tab never waits).
   */
  lockTimeoutMs?: number;
  /**
   * The memory tier's budget in bytes: temp data stays in memory (as plaintext, like SQLite's page cache) up to
   * this much for all temp files of this database together, and goes to storage encrypted past it.  Default
   * 64 MiB (67108864); 0: no tier (every temp file in storage from its first byte).  Per database: each has
   * its own SQLite instance.  Settable later with `db.tempcrypt.budget(bytes)`.
   */
  tempBudget?: number;
}

/** The tab whose Worker runs a database (the owner); self: this tab. */
export interface Owner {
  readonly id: string;
  readonly self: boolean;
}

/** The calls a Database and a Transaction both offer. */
export declare class Queryable {
  /** Run one or more statements; rows are discarded.  With params, sql is one statement and they are bound to it. */
  exec(sql: string, params?: Params, options?: CallOptions): Promise<void>;
  /** Rows of one statement: objects by default, arrays with { rowMode: 'array' }. */
  query<R extends RowShape<R> = Row>(sql: string, params?: Params, options?: ObjectRowOptions): Promise<R[]>;
  query<R extends ArrayRow = ArrayRow>(sql: string, params: Params | undefined, options: ArrayRowOptions): Promise<R[]>;
  /** Run one statement; the rows it changed (0 if none) and the last inserted rowid. */
  run(sql: string, params?: Params, options?: CallOptions): Promise<RunResult>;
  /** Several statements in one message and one transaction (all or nothing). */
  batch<R extends RowShape<R> = Row>(entries: readonly BatchEntry[], options?: ObjectRowOptions): Promise<BatchResult<R>[]>;
  batch<R extends ArrayRow = ArrayRow>(entries: readonly BatchEntry[], options: ArrayRowOptions): Promise<BatchResult<R>[]>;
  /** A statement prepared once in the Worker, run many times; finalize() it (close() does too). */
  prepare<R extends RowShape<R> = Row>(sql: string): Promise<Statement<R>>;
  /** Rows of one statement, fetched pageSize at a time (never all in one message); timeoutMs limits each page. */
  iterate<R extends RowShape<R> = Row>(sql: string, params?: Params, options?: ObjectRowOptions & { pageSize?: number }): AsyncGenerator<R, void, undefined>;
  iterate<R extends ArrayRow = ArrayRow>(sql: string, params: Params | undefined, options: ArrayRowOptions & { pageSize?: number }): AsyncGenerator<R, void, undefined>;
  /**
   * fn(tx) in a transaction (a savepoint when nested): until it settles only tx runs statements (other calls
   * wait); committed when fn resolves, rolled back when it throws (and the error rethrown).
   */
  transaction<T>(fn: (tx: Transaction) => Promise<T> | T): Promise<T>;
}

/**
 * A prepared statement held in the Worker.  Parameters come as an array or an object of named values
 * (then options may follow), or one per argument as in better-sqlite3: `st.get(1)`, `st.run(1, 'a')`.
 */
export declare class Statement<R extends RowShape<R> = Row> {
  readonly id: number;
  /** True when the statement does not write. */
  readonly readonly: boolean;
  readonly finalized: boolean;
  /** Result column names. */
  columns(): string[];
  run(params?: Params, options?: CallOptions): Promise<RunResult>;
  run(...params: BindValue[]): Promise<RunResult>;
  /** The first row, or undefined. */
  get(params?: Params, options?: ObjectRowOptions): Promise<R | undefined>;
  get<A extends ArrayRow = ArrayRow>(params: Params | undefined, options: ArrayRowOptions): Promise<A | undefined>;
  get(...params: BindValue[]): Promise<R | undefined>;
  all(params?: Params, options?: ObjectRowOptions): Promise<R[]>;
  all<A extends ArrayRow = ArrayRow>(params: Params | undefined, options: ArrayRowOptions): Promise<A[]>;
  all(...params: BindValue[]): Promise<R[]>;
  iterate(params?: Params, options?: ObjectRowOptions & { pageSize?: number }): AsyncGenerator<R, void, undefined>;
  iterate<A extends ArrayRow = ArrayRow>(params: Params | undefined, options: ArrayRowOptions & { pageSize?: number }): AsyncGenerator<A, void, undefined>;
  iterate(...params: BindValue[]): AsyncGenerator<R, void, undefined>;
  finalize(): Promise<void>;
}

/** The handle transaction(fn) passes to fn; unusable once the transaction ended. */
export declare class Transaction extends Queryable {
  readonly active: boolean;
  /** The database's timeoutMs (set it on the database, or per call). */
  readonly timeoutMs: number;
}

export declare class Database extends Queryable {
  readonly name: string;
  /** The storage actually used. */
  readonly storage: Storage;
  readonly closed: boolean;
  /**
   * Time limit of each call in ms (0: none; open()'s timeoutMs at first).  Setting it sends it to the Worker in
   * order with the calls: the calls made after it use it (set inside a transaction's fn: once the transaction
   * ended, like any call on the database).  A bad value is a TypeError.
   */
  timeoutMs: number;
  /** open()'s busyTimeoutMs. */
  readonly busyTimeoutMs: number;
  /** This tab's id (as Owner.id names tabs). */
  readonly tab: string;
  /**
   * The tab that runs the database: this one, or (storage 'opfs', shared) another tab whose Worker runs every
   * tab's calls.  When that tab closes the database or goes away, another takes over (onownerchange).
   */
  readonly owner: Owner;
  /** Called with the new owner when another tab takes the database over. */
  onownerchange: ((owner: Owner) => void) | null;
  /** The main database as an SQLite file image (in one piece: see exportStream). */
  export(): Promise<Uint8Array>;
  /** The database file in chunks, read in one read transaction; other calls wait until it is read or cancelled. */
  exportStream(options?: { pagesPerChunk?: number }): ReadableStream<Uint8Array>;
  /**
   * Replace the database by an SQLite file, streamed in chunks to the storage and checked (header, page
   * count, PRAGMA quick_check) before it is copied in one transaction: on any error (SQLITE_NOTADB,
   * SQLITE_CORRUPT, ...) the database is unchanged.
   */
  import(source: ImportSource): Promise<void>;
  /** Bytes of the Worker's wasm memory (it grows, never shrinks). */
  heapSize(): Promise<number>;
  /** Files in the storage underneath, and temp leftovers wiped at open. */
  files(): Promise<{ list: StoredFile[]; wipedAtOpen: StoredFile[] }>;
  /**
   * The raw bytes of every file in the storage underneath (OPFS pool files with their header, or the files of
   * storage 'file'; empty for memory storage), temp files included: run by the tab that runs the database.
   */
  scanFiles(): Promise<RawPoolFile[]>;
  /**
   * Close: ends the export streams still open, waits (at most busyTimeoutMs) for a transaction or import in
   * progress, then closes (what still holds the database is rolled back); finalizes every statement.  Every call
   * gets the same promise.  Shared: another tab takes the database over.
   */
  close(): Promise<void>;
  readonly tempcrypt: {
    stats(reset?: boolean): Promise<TempcryptStats>;
    /**
     * Switch encryption of temp files opened from now on; resolves to the previous setting.
     * For demos and benchmarks only: with `false`, new temp files are written to OPFS in plaintext.
     */
    setEnabled(on: boolean): Promise<boolean>;
    /**
     * The memory tier's budget in bytes for this database (see OpenOptions.tempBudget): sets it and resolves to
     * the one it replaced; without an argument, resolves to the budget in force.  A lower budget applies to
     * temp data written from then on (what the tier holds stays until its file shrinks or closes).
     */
    budget(bytes?: number): Promise<number>;
  };
}

/**
 * Open (or create) a database in a dedicated Worker started by the package.  Storage 'opfs' is shared by the
 * tabs that open it (tabs: 'shared'); rejects with SqliteError code 5 (SQLITE_BUSY) if a tab or worker holds it
 * without sharing it (tabs: 'exclusive', or the worker API).
 */
export declare function open(name: string, options?: OpenOptions): Promise<Database>;
