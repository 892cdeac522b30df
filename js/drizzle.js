// sqlite-tempcrypt/drizzle: a Drizzle ORM driver over the main-thread API.
//
//   import { open } from 'sqlite-tempcrypt';
//   import { drizzle, migrate } from 'sqlite-tempcrypt/drizzle';
//   const db = drizzle(await open('app.db'), { schema });
//
// Each query is one call of the Database (rows as arrays where Drizzle maps
// them to its fields, so that two columns of one name both arrive).
// db.transaction(fn) is the Database's transaction(): other callers (and
// other tabs) wait for it, and a nested one is a savepoint.  db.batch([...])
// is one batch() message: one transaction, all or nothing.  migrate() runs
// Drizzle's migrations (a migrations folder in Node, or the journal and SQL
// bundled into the app) in one transaction.  Results and errors are those
// of Drizzle's better-sqlite3 driver (docs/api.md, "ORMs", lists where
// they differ).  drizzle-orm is an optional peer dependency; the types are
// in ./drizzle.d.ts.

import { entityKind, DrizzleError, fillPlaceholders, NoopLogger, DefaultLogger, mapResultRow, extractTablesRelationalConfig, createTableRelationsHelpers } from 'drizzle-orm';
import { BaseSQLiteDatabase, SQLiteAsyncDialect, SQLiteSession, SQLitePreparedQuery, SQLiteTransaction } from 'drizzle-orm/sqlite-core';
import { peerShaped } from './shared/errors.js';

// A call's failure as better-sqlite3 shapes it (errors.js), thrown as it
// is, as Drizzle's better-sqlite3 driver throws better-sqlite3's (no
// DrizzleQueryError around it).
const shaped = (p) => p.catch((e) => { throw peerShaped(e); });

// What a query runs on: the Database, or the transaction's tx.
class TempcryptSession extends SQLiteSession {
  static [entityKind] = 'SqliteTempcryptSession';

  constructor(target, dialect, schema, options) {
    super(dialect);
    this.target = target;
    this.schema = schema;
    this.options = options;
    this.logger = options.logger ?? new NoopLogger();
  }

  prepareQuery(query, fields, executeMethod, isResponseInArrayMode, customResultMapper) {
    return new TempcryptPreparedQuery(this.target, query, this.logger, fields, executeMethod, isResponseInArrayMode, customResultMapper);
  }

  // One batch() message (one transaction), rows as arrays.  A query whose
  // rows Drizzle does not map (db.all(sql`...`), db.get(...)) wants them
  // as objects: then one transaction of one call per query.
  async batch(queries) {
    const prepared = queries.map((q) => q._prepare());
    const query = (p) => p.getQuery();
    if (prepared.some((p) => (p instanceof TempcryptPreparedQuery ? p.wantsObjects() && p.method !== 'run' : ['all', 'get'].includes(query(p).method)))) {
      return shaped(this.target.transaction(async (tx) => {
        const out = [];
        for (const p of prepared) out.push(p instanceof TempcryptPreparedQuery ? await p.on(tx).execute() : await raw(tx, query(p)));
        return out;
      }));
    }
    const entries = prepared.map((p) => {
      const { sql, params } = query(p);
      this.logger.logQuery(sql, params);
      return [sql, params];
    });
    const results = await shaped(this.target.batch(entries, { rowMode: 'array' }));
    return results.map((res, i) => prepared[i].mapResult(res, true));
  }

  // The Database's transaction (a savepoint when the target is a tx).
  // config.behavior (immediate, exclusive) changes nothing here: one
  // connection runs every call, and other callers wait for the transaction.
  transaction(fn) {
    return shaped(this.target.transaction((tx) => {
      const session = new TempcryptSession(tx, this.dialect, this.schema, this.options);
      return fn(new TempcryptTransaction('async', this.dialect, session, this.schema));
    }));
  }

  // db.run(sql`...`): a failure wrapped as Drizzle's session wraps a
  // synchronous driver's (a DrizzleError naming the SQL, ours its cause),
  // as over better-sqlite3.
  async run(query) {
    const { sql } = this.dialect.sqlToQuery(query);
    try {
      return await super.run(query);
    } catch (err) {
      throw new DrizzleError({ cause: err, message: `Failed to run the query '${sql}'` });
    }
  }

  extractRawAllValueFromBatchResult(result) { return result.rows; }
  extractRawGetValueFromBatchResult(result) { return result.rows[0]; }
  extractRawValuesValueFromBatchResult(result) { return result.rows; }
}

// A raw query (db.run/all/get/values(sql`...`)) of a batch, on target.
async function raw(target, { sql, params, method }) {
  if (method === 'run') return shaped(target.run(sql, params));
  if (method === 'values') return shaped(target.query(sql, params, { rowMode: 'array' }));
  const rows = await shaped(target.query(sql, params));
  return method === 'get' ? rows[0] : rows;
}

class TempcryptTransaction extends SQLiteTransaction {
  static [entityKind] = 'SqliteTempcryptTransaction';
}

class TempcryptPreparedQuery extends SQLitePreparedQuery {
  static [entityKind] = 'SqliteTempcryptPreparedQuery';

  constructor(target, query, logger, fields, executeMethod, isResponseInArrayMode, customResultMapper) {
    super('async', executeMethod, query);
    Object.assign(this, { target, logger, fields, method: executeMethod, arrayMode: isResponseInArrayMode, customResultMapper });
  }

  // The same query on another target (a batch's transaction).
  on(target) {
    return new TempcryptPreparedQuery(target, this.query, this.logger, this.fields, this.method, this.arrayMode, this.customResultMapper);
  }

  // A query Drizzle does not map (db.all(sql`...`)): rows as objects.
  wantsObjects() { return !this.fields && !this.customResultMapper; }

  params(placeholderValues) {
    const params = fillPlaceholders(this.query.params, placeholderValues ?? {});
    this.logger.logQuery(this.query.sql, params);
    return params;
  }

  run(placeholderValues) {
    const params = this.params(placeholderValues);
    return shaped(this.target.run(this.query.sql, params));
  }

  async all(placeholderValues) {
    if (this.wantsObjects()) {
      const params = this.params(placeholderValues);
      return shaped(this.target.query(this.query.sql, params));
    }
    return this.mapAllResult(await this.values(placeholderValues));
  }

  async get(placeholderValues) {
    if (this.wantsObjects()) {
      const params = this.params(placeholderValues);
      return (await shaped(this.target.query(this.query.sql, params)))[0];
    }
    return this.mapGetResult(await this.values(placeholderValues));
  }

  values(placeholderValues) {
    const params = this.params(placeholderValues);
    return shaped(this.target.query(this.query.sql, params, { rowMode: 'array' }));
  }

  // rows: arrays (or, from a batch, { rows, changes, lastInsertRowid }).
  mapAllResult(rows, isFromBatch) {
    if (isFromBatch) rows = rows.rows;
    if (this.customResultMapper) return this.customResultMapper(rows);
    if (!this.fields) return rows;
    return rows.map((row) => mapResultRow(this.fields, row, this.joinsNotNullableMap));
  }

  mapGetResult(rows, isFromBatch) {
    if (isFromBatch) rows = rows.rows;
    const row = rows[0];
    if (row === undefined) return undefined;
    if (this.customResultMapper) return this.customResultMapper([row]);
    if (!this.fields) return row;
    return mapResultRow(this.fields, row, this.joinsNotNullableMap);
  }

  mapRunResult(result, isFromBatch) {
    return isFromBatch ? { changes: result.changes, lastInsertRowid: result.lastInsertRowid } : result;
  }

  isResponseInArrayMode() { return this.arrayMode; }
}

export class SqliteTempcryptDatabase extends BaseSQLiteDatabase {
  static [entityKind] = 'SqliteTempcryptDatabase';
  batch(queries) { return this.session.batch(queries); }
}

// A Drizzle database over an open Database (sqlite-tempcrypt's open()).
// config: Drizzle's ({ schema, logger, casing }).
export function drizzle(database, config = {}) {
  if (!database || typeof database.transaction !== 'function' || typeof database.batch !== 'function') {
    throw new TypeError('drizzle(database): pass an open Database (await open(name))');
  }
  const dialect = new SQLiteAsyncDialect({ casing: config.casing });
  const logger = config.logger === true ? new DefaultLogger() : config.logger || undefined;
  let schema;
  if (config.schema) {
    const tables = extractTablesRelationalConfig(config.schema, createTableRelationsHelpers);
    schema = { fullSchema: config.schema, schema: tables.tables, tableNamesMap: tables.tableNamesMap };
  }
  const session = new TempcryptSession(database, dialect, schema, { logger });
  const db = new SqliteTempcryptDatabase('async', dialect, session, schema);
  db.$client = database;
  return db;
}

// The SHA-256 of text in hex (the hash Drizzle keeps per migration).
async function sha256(text) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

// Drizzle's migration list from what drizzle-kit writes: the journal
// (meta/_journal.json) and each migration's SQL, keyed by its tag
// ('0000_init') or as drizzle-kit's bundled output keys them ('m0000').
async function bundled({ journal, migrations }) {
  const out = [];
  for (const entry of journal.entries) {
    const text = migrations[entry.tag] ?? migrations[`m${String(entry.idx).padStart(4, '0')}`];
    if (typeof text !== 'string') throw new Error(`migrate(): no SQL for migration ${entry.tag}`);
    out.push({ sql: text.split('--> statement-breakpoint'), bps: entry.breakpoints, folderMillis: entry.when, hash: await sha256(text) });
  }
  return out;
}

// Run the migrations not yet applied, in one transaction that reads
// what is applied and applies the rest, so that migrators started at once
// (tabs, callers, processes) apply each migration once.  config:
// { migrationsFolder } (Node: the folder drizzle-kit writes), or
// { journal, migrations } (bundled: the journal object and the SQL texts);
// migrationsTable as in Drizzle.
export async function migrate(db, config) {
  if (!(db?.session instanceof TempcryptSession)) throw new TypeError('migrate(db, config): pass a database made by drizzle() of sqlite-tempcrypt/drizzle');
  let list;
  if (config.journal) list = await bundled(config);
  else {
    const name = 'drizzle-orm/migrator';   // node:fs inside: never bundled for a browser
    list = (await import(/* @vite-ignore */ name)).readMigrationFiles(config);
  }
  const database = db.session.target;
  const table = db.dialect.escapeName(config.migrationsTable ?? '__drizzle_migrations');
  // Drizzle's table (as its own migrators make it), created outside the
  // transaction (IF NOT EXISTS: any number may run it), so that the
  // transaction's first statement can be a write: it takes SQLite's write
  // lock before anything is read, as BEGIN IMMEDIATE does, and a second
  // connection (storage 'file') waits there instead of failing to upgrade.
  await database.run(`CREATE TABLE IF NOT EXISTS ${table} (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`);
  await database.transaction(async (tx) => {
    await tx.run(`UPDATE ${table} SET hash = hash WHERE 0`);
    // Drizzle's own steps (what is applied: the newest created_at; each
    // newer migration, then its row), every one of them on tx.
    await db.dialect.migrate(list, new TempcryptSession(tx, db.dialect, db.session.schema, db.session.options), config);
  });
}
