// Types of sqlite-tempcrypt/kysely (needs the kysely package).
import type { Dialect, Driver, Kysely, DatabaseIntrospector, DialectAdapter, QueryCompiler } from 'kysely';
import type { Database } from './index.js';

export interface SqliteTempcryptDialectConfig {
  /** An open Database, or a function opening one (closed again by Kysely's destroy()). */
  database: Database | (() => Promise<Database>);
}

/** Kysely dialect over a sqlite-tempcrypt Database; its transactions run in db.transaction(). */
export declare class SqliteTempcryptDialect implements Dialect {
  constructor(config: SqliteTempcryptDialectConfig);
  createDriver(): Driver;
  createQueryCompiler(): QueryCompiler;
  createAdapter(): DialectAdapter;
  createIntrospector(db: Kysely<any>): DatabaseIntrospector;
}
