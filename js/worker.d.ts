// Types of sqlite-tempcrypt/worker: the synchronous API for Workers (and
// Node with storage 'memory').  Only open() is async.

import type { SqlValue, Params, Row, Storage, RunResult, TempcryptStats, StoredFile } from './index.js';
export type { SqlValue, BindValue, Params, Row, Storage, RunResult, TempcryptStats, StoredFile } from './index.js';
export { SqliteError } from './index.js';

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
  storage?: Storage;
  wasm?: string | URL | ArrayBuffer | Uint8Array | WebAssembly.Module;
  minFree?: number;
  pool?: string;
  /** Observer installed before the database is opened. */
  observer?: StorageObserver;
}

export interface RawPoolFile {
  file: string;
  path: string | null;
  flags: number;
  /** Everything in the OPFS file, the pool header included. */
  bytes: Uint8Array;
}

export declare class SyncDatabase {
  readonly name: string;
  readonly storage: Storage;
  readonly inTransaction: boolean;
  exec(sql: string): void;
  query<R extends Row = Row>(sql: string, params?: Params): R[];
  run(sql: string, params?: Params): RunResult;
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
  };
  readonly files: {
    list(): StoredFile[];
    /** Raw bytes of every OPFS pool file (empty for memory storage). */
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
export declare const STATS_FIELDS: readonly (keyof TempcryptStats)[];
