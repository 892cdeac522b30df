// Types of sqlite-tempcrypt/drizzle (needs the drizzle-orm package).
import type { DrizzleConfig } from 'drizzle-orm';
import type { BatchItem, BatchResponse } from 'drizzle-orm/batch';
import type { MigrationConfig } from 'drizzle-orm/migrator';
import type { BaseSQLiteDatabase } from 'drizzle-orm/sqlite-core';
import type { Database, RunResult } from './index.js';

/**
 * A Drizzle database over a sqlite-tempcrypt Database: transaction() is the Database's transaction() (other
 * callers and tabs wait for it; nested: a savepoint), batch() is one batch() call (one transaction).
 */
export declare class SqliteTempcryptDatabase<TSchema extends Record<string, unknown> = Record<string, never>>
  extends BaseSQLiteDatabase<'async', RunResult, TSchema> {
  /** The Database queries run on. */
  $client: Database;
  /** The queries in one transaction: all or nothing. */
  batch<U extends BatchItem<'sqlite'>, T extends Readonly<[U, ...U[]]>>(batch: T): Promise<BatchResponse<T>>;
}

/** A Drizzle database over an open Database (`await open(name)`). */
export declare function drizzle<TSchema extends Record<string, unknown> = Record<string, never>>(
  database: Database, config?: DrizzleConfig<TSchema>): SqliteTempcryptDatabase<TSchema>;

/** Migrations bundled into an app: drizzle-kit's journal (meta/_journal.json) and each migration's SQL. */
export interface BundledMigrations {
  journal: { entries: readonly { idx: number; when: number; tag: string; breakpoints: boolean }[] };
  /** SQL by tag ('0000_init') or as drizzle-kit's bundled output keys it ('m0000'). */
  migrations: Readonly<Record<string, string>>;
  migrationsTable?: string;
}

/**
 * Apply the migrations not yet applied, in one transaction: from a migrations folder (Node) or bundled
 * (any environment).
 */
export declare function migrate<TSchema extends Record<string, unknown>>(
  db: SqliteTempcryptDatabase<TSchema>, config: MigrationConfig | BundledMigrations): Promise<void>;
