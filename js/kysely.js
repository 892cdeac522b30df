// sqlite-tempcrypt/kysely: a Kysely dialect over the main-thread API.
//
//   import { Kysely } from 'kysely';
//   import { open } from 'sqlite-tempcrypt';
//   import { SqliteTempcryptDialect } from 'sqlite-tempcrypt/kysely';
//   const db = new Kysely({ dialect: new SqliteTempcryptDialect({ database: () => open('app.db') }) });
//
// One connection (the Database, which queues the calls).  Each query is
// one batch() of one statement, which runs it as it is (PRAGMAs take
// effect, VACUUM runs);
// Kysely's transactions run inside db.transaction(), so other callers of
// the same Database (and other tabs) wait for them, and its Migrator runs
// each migration in one (SQLite's DDL is transactional), which takes the
// write lock first.  Results and errors are those of Kysely's SqliteDialect
// over better-sqlite3 (a query that returns rows gives only its rows;
// errors carry better-sqlite3's string code); docs/api.md ("ORMs") lists
// where they differ.

import { SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, sql } from 'kysely';
import { peerShaped } from './shared/errors.js';

export class SqliteTempcryptDialect {
  // database: a Database, or a function resolving to one (called once).
  constructor({ database }) {
    if (!database) throw new TypeError('SqliteTempcryptDialect needs { database }');
    this.database = database;
  }
  createDriver() { return new SqliteTempcryptDriver(this.database); }
  createQueryCompiler() { return new SqliteQueryCompiler(); }
  createAdapter() { return new SqliteTempcryptAdapter(); }
  createIntrospector(db) { return new SqliteIntrospector(db); }
}

// SQLite's adapter, with transactional DDL (Kysely's says no, so its
// Migrator would run a migration outside a transaction and a failing one
// would leave half its changes), and with "multiple connections": the
// Database queues the calls itself (a Kysely mutex over it would make a
// query on the Kysely instance inside its own transaction wait for ever).
class SqliteTempcryptAdapter extends SqliteAdapter {
  get supportsTransactionalDdl() { return true; }
  get supportsMultipleConnections() { return true; }

  // The Migrator's lock: its transaction (which reads what is applied and
  // applies the rest) begins with a write, so it holds SQLite's write lock
  // before it reads, as BEGIN IMMEDIATE does: migrators of other
  // connections (storage 'file') wait for it instead of failing to
  // upgrade a read lock, and then see what it applied.  Kysely calls this
  // on the migration's connection just before its transaction (0.29), or
  // inside it before anything else (older versions): both are handled.
  async acquireMigrationLock(db, options) {
    if (db.isTransaction) await sql.raw(writeLockSql(options)).execute(db);
    else await db.getExecutor().provideConnection(async (conn) => { conn.migrationLock = options; });
  }

  async releaseMigrationLock(db) {
    if (!db.isTransaction) await db.getExecutor().provideConnection(async (conn) => { conn.migrationLock = null; });
  }
}

// A statement that writes nothing but takes the write lock (the lock
// table exists: the Migrator made it first).
function writeLockSql({ lockTable, lockTableSchema }) {
  const id = (name) => `"${name.replace(/"/g, '""')}"`;
  return `update ${lockTableSchema ? `${id(lockTableSchema)}.` : ''}${id(lockTable)} set is_locked = is_locked where 0`;
}

const ROLLBACK = Symbol('rollback');

class SqliteTempcryptDriver {
  constructor(database) {
    this.database = database;
    this.db = null;
  }

  async init() {
    this.db = typeof this.database === 'function' ? await this.database() : this.database;
  }

  // A handle per Kysely user, all over the one Database, which queues the
  // calls: a query outside a transaction waits for it as any call on the
  // Database does (at most busyTimeoutMs, then SQLITE_BUSY), so a query on
  // the Kysely instance made inside its own transaction fails instead of
  // waiting for ever for a connection that transaction holds.
  async acquireConnection() { return new Connection(this.db); }
  async releaseConnection() {}

  // A db.transaction() that stays open until commit or rollback.
  async beginTransaction(conn) {
    let finish, started;
    const done = new Promise((r) => { finish = r; });
    const ready = new Promise((r) => { started = r; });
    conn.tx = this.db.transaction(async (tx) => {
      conn.target = tx;
      started();
      if (!(await done)) throw ROLLBACK;
    });
    conn.finish = finish;
    await Promise.race([ready, conn.tx]);
    if (conn.migrationLock) {
      await conn.target.run(writeLockSql(conn.migrationLock));
      conn.migrationLock = null;
    }
  }

  async commitTransaction(conn) { await this.endTransaction(conn, true); }
  async rollbackTransaction(conn) { await this.endTransaction(conn, false); }

  async endTransaction(conn, commit) {
    conn.finish(commit);
    try {
      await conn.tx;
    } catch (e) {
      if (e !== ROLLBACK) throw peerShaped(e);
    } finally {
      conn.target = conn.db;
      conn.tx = null;
    }
  }

  // Savepoints inside a transaction (Kysely 0.28 and later), the name
  // quoted as an SQLite identifier.
  savepoint(conn, name) { return this.savepointCommand(conn, 'savepoint', name); }
  rollbackToSavepoint(conn, name) { return this.savepointCommand(conn, 'rollback to', name); }
  releaseSavepoint(conn, name) { return this.savepointCommand(conn, 'release', name); }
  async savepointCommand(conn, command, name) {
    await conn.target.exec(`${command} "${name.replaceAll('"', '""')}"`).catch((e) => { throw peerShaped(e); });
  }

  async destroy() {
    if (this.db && typeof this.database === 'function') await this.db.close();
  }
}

class Connection {
  constructor(db) {
    this.db = db;
    this.target = db;   // the Database, or the transaction's tx
  }

  // One statement, one message: rows, changes and columns together.  A
  // statement that returns rows (a SELECT, RETURNING) gives only them,
  // any other its changes and the last rowid, as better-sqlite3's
  // SqliteDriver (it asks stmt.reader) does.
  async executeQuery(compiled) {
    let res;
    try {
      [res] = await this.target.batch([[compiled.sql, [...compiled.parameters]]]);
    } catch (e) {
      throw peerShaped(e);
    }
    if (res.columns.length) return { rows: res.rows };
    return { rows: [], numAffectedRows: BigInt(res.changes), insertId: BigInt(res.lastInsertRowid) };
  }

  async * streamQuery(compiled, chunkSize) {
    try {
      for await (const row of this.target.iterate(compiled.sql, [...compiled.parameters], { pageSize: chunkSize || 256 })) {
        yield { rows: [row] };
      }
    } catch (e) {
      throw peerShaped(e);
    }
  }
}
