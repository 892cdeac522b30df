// Types of sqlite-tempcrypt/serve (./serve.js): the Worker side of the main-thread API, for an app's own Worker entry.
import type { SyncDatabase } from './worker.js';

export interface ServeOptions {
  /** Run on the synchronous database at each open in this Worker (register functions, aggregates, collations). */
  setup?: (db: SyncDatabase) => void | Promise<void>;
}

/** Answer the main-thread API's calls in this Worker: open(name, { worker: () => new Worker(url of this module) }). */
export declare function serve(options?: ServeOptions): void;
