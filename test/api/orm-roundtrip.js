// Kysely and Drizzle round trips over sqlite-tempcrypt, written once: run
// in Node (test/api/node.mjs) and in the consumer's Vite app
// (consumer.mjs copies this file and ./drizzle-migrations.js into the
// app).  The modules come in as arguments, so each side imports them its
// own way:
//   kysely    { Kysely, Migrator, sql } and SqliteTempcryptDialect
//   orm       drizzle-orm's { sql, eq, relations }, sqlite-core's
//             { sqliteTable, integer, text }, sqlite-proxy's drizzle as
//             proxyDrizzle, and sqlite-tempcrypt/drizzle's { drizzle, migrate }
//   migrations   ./drizzle-migrations.js; migrationsFolder (Node): the
//             same written out as drizzle-kit's folder
// Returns [{ name, ok, error, skipped }] (skipped: why a step could not run
// with this version of its ORM).  Errors from both adapters are shaped as
// better-sqlite3's (code: 'SQLITE_BUSY').  Runs against the lowest Kysely
// and Drizzle supported too (test/api/lowest-peers.mjs).
export async function ormRoundTrip({ open, storage, kysely, SqliteTempcryptDialect, orm, migrations, migrationsFolder }) {
  const { Kysely, Migrator, sql: ksql } = kysely;
  const { sql, eq, relations, TransactionRollbackError, sqliteTable, integer, text, proxyDrizzle, drizzle, migrate } = orm;
  const out = [];
  const step = async (name, fn) => {
    try { const skipped = await fn(); out.push({ name, ok: true, skipped }); } catch (e) { out.push({ name, ok: false, error: String(e && e.stack || e) }); }
  };
  const same = (a, b, what) => {
    const sa = JSON.stringify(a, (k, v) => (typeof v === 'bigint' ? `${v}n` : v)), sb = JSON.stringify(b, (k, v) => (typeof v === 'bigint' ? `${v}n` : v));
    if (sa !== sb) throw new Error(`${what}: expected ${sb}, got ${sa}`);
  };

  await step('kysely: insert, select, update, transaction, rollback', async () => {
    const db = new Kysely({ dialect: new SqliteTempcryptDialect({ database: () => open('kysely.db', { storage }) }) });
    try {
      await db.schema.dropTable('person').ifExists().execute();
      await db.schema.createTable('person').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('name', 'text')
        .addColumn('age', 'integer').execute();
      const ins = await db.insertInto('person').values([{ name: 'Ada', age: 36 }, { name: 'Alan', age: 41 }]).executeTakeFirst();
      same(ins.numInsertedOrUpdatedRows, 2n, 'rows inserted');
      same(await db.selectFrom('person').select(['name', 'age']).where('age', '>', 40).execute(), [{ name: 'Alan', age: 41 }], 'select');
      const upd = await db.updateTable('person').set({ age: 37 }).where('name', '=', 'Ada').executeTakeFirst();
      same(upd.numUpdatedRows, 1n, 'update');
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('person').values({ name: 'Grace', age: 85 }).execute();
      });
      let err = null;
      try {
        await db.transaction().execute(async (trx) => {
          await trx.insertInto('person').values({ name: 'Nobody', age: 0 }).execute();
          throw new Error('roll back');
        });
      } catch (e) { err = e; }
      if (!err || err.message !== 'roll back') throw new Error('the transaction error did not come back');
      same((await db.selectFrom('person').select('name').orderBy('id').execute()).map((r) => r.name), ['Ada', 'Alan', 'Grace'], 'committed one, rolled back the other');
      const streamed = [];
      for await (const r of db.selectFrom('person').select('age').orderBy('age').stream(2)) streamed.push(r.age);
      same(streamed, [37, 41, 85], 'stream');
      const tables = (await db.introspection.getTables()).map((t) => t.name);
      if (!tables.includes('person')) throw new Error(`introspection: ${tables}`);
    } finally {
      await db.destroy();
    }
  });

  await step('kysely: a controlled transaction with a savepoint rolled back', async () => {
    const db = new Kysely({ dialect: new SqliteTempcryptDialect({ database: () => open('kysely.db', { storage }) }) });
    if (typeof db.startTransaction !== 'function') {
      await db.destroy();
      return 'this Kysely has no startTransaction() (controlled transactions and savepoints came in 0.28)';
    }
    try {
      await db.schema.createTable('person').ifNotExists().addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('name', 'text')
        .addColumn('age', 'integer').execute();
      const trx = await db.startTransaction().execute();
      try {
        await trx.insertInto('person').values({ name: 'Kept', age: 1 }).execute();
        const sp = await trx.savepoint('sp1').execute();
        await sp.insertInto('person').values({ name: 'Dropped', age: 2 }).execute();
        const back = await sp.rollbackToSavepoint('sp1').execute();
        await back.releaseSavepoint('sp1').execute();
        await trx.commit().execute();
      } catch (e) {
        await trx.rollback().execute().catch(() => {});   // or destroy() would wait for the connection
        throw e;
      }
      same((await db.selectFrom('person').select('name').where('age', '<', 10).execute()).map((r) => r.name), ['Kept'], 'savepoint rolled back, transaction committed');
      await db.deleteFrom('person').where('age', '<', 10).execute();
    } finally {
      await db.destroy();
    }
  });

  // What Kysely's SqliteDialect over better-sqlite3 gives (orm-diff.mjs
  // compares the two side by side): a query that returns rows gives only
  // them (no numAffectedRows 0n or insertId), an error its statement's own
  // message (no "batch statement 0: " before it) and better-sqlite3's
  // string code.
  await step('kysely: results and errors as over better-sqlite3', async () => {
    const db = new Kysely({ dialect: new SqliteTempcryptDialect({ database: () => open('kysely-peer.db', { storage }) }) });
    try {
      await db.schema.dropTable('p').ifExists().execute();
      await db.schema.createTable('p').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('name', 'text').execute();
      const keys = (r) => Object.keys(r).filter((k) => r[k] !== undefined).sort();
      same(keys(await ksql`SELECT * FROM p`.execute(db)), ['rows'], 'a SELECT: rows only');
      const ret = await ksql`INSERT INTO p(name) VALUES ('a') RETURNING id`.execute(db);
      same([keys(ret), ret.rows], [['rows'], [{ id: 1 }]], 'INSERT ... RETURNING: rows only');
      same(await ksql`INSERT INTO p(name) VALUES ('b')`.execute(db), { rows: [], numAffectedRows: 1n, insertId: 2n }, 'an INSERT: changes and id');
      let err = null;
      try { await db.insertInto('p').values({ id: 1, name: 'again' }).execute(); } catch (e) { err = e; }
      same(err && [err.name, err.message, err.code, err.errcode], ['SqliteError', 'UNIQUE constraint failed: p.id', 'SQLITE_CONSTRAINT_PRIMARYKEY', 1555], 'the error');
    } finally {
      await db.destroy();
    }
  });

  // Each Kysely query runs as it is, not inside BEGIN/COMMIT (where the
  // PRAGMA would be ignored and VACUUM would fail): a PRAGMA takes effect,
  // VACUUM runs.
  await step('kysely: PRAGMA foreign_keys and VACUUM run outside a transaction', async () => {
    const db = new Kysely({ dialect: new SqliteTempcryptDialect({ database: () => open('kysely-pragma.db', { storage }) }) });
    try {
      await ksql`PRAGMA foreign_keys = ON`.execute(db);
      same((await ksql`PRAGMA foreign_keys`.execute(db)).rows, [{ foreign_keys: 1 }], 'foreign_keys after PRAGMA foreign_keys = ON');
      await db.schema.dropTable('child').ifExists().execute();
      await db.schema.dropTable('parent').ifExists().execute();
      await db.schema.createTable('parent').addColumn('id', 'integer', (c) => c.primaryKey()).execute();
      await db.schema.createTable('child').addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('parent_id', 'integer', (c) => c.references('parent.id')).execute();
      let err = null;
      try { await db.insertInto('child').values({ id: 1, parent_id: 99 }).execute(); } catch (e) { err = e; }
      if (!err || err.code !== 'SQLITE_CONSTRAINT_FOREIGNKEY' || err.errcode !== 787) throw new Error(`a row breaking the foreign key was inserted (${err ? `${err.code} ${err.message}` : 'no error'})`);
      await ksql`VACUUM`.execute(db);
    } finally {
      await db.destroy();
    }
  });

  // A query on the ORM's own instance (not on the transaction's handle)
  // inside its transaction waits for that transaction, which waits for it:
  // it fails as such a call on the Database does, and the transaction
  // settles (the transaction must not wait for ever for the connection).
  const outerInsideTx = (orm, fn) => step(`${orm}: a query on the outer instance inside its own transaction fails, nothing hangs`, async () => {
    const db = await open('orm-deadlock.db', { storage, busyTimeoutMs: 200 });
    try {
      await db.exec('DROP TABLE IF EXISTS d; CREATE TABLE d(id INTEGER PRIMARY KEY, name TEXT)');
      await fn(db);
    } finally {
      await db.close();
    }
  });
  const within = (p) => Promise.race([p.then((v) => ({ v }), (e) => ({ e })), new Promise((r) => setTimeout(() => r({ pending: true }), 10000))]);
  await outerInsideTx('kysely', async (db) => {
    const k = new Kysely({ dialect: new SqliteTempcryptDialect({ database: db }) });
    let inner = null;
    const kr = await within(k.transaction().execute(async (trx) => {
      await trx.insertInto('d').values({ name: 'a' }).execute();
      try { await k.selectFrom('d').selectAll().execute(); } catch (e) { inner = e; throw e; }
    }));
    if (kr.pending) throw new Error('kysely: the transaction never settled');
    if (!inner || inner.code !== 'SQLITE_BUSY' || kr.e !== inner) throw new Error(`kysely: the query on k fails with SQLITE_BUSY and the transaction with it: ${inner && `${inner.code} ${inner.message}`}`);
    same(await k.selectFrom('d').selectAll().execute(), [], 'kysely: rolled back, and k answers again');
  });
  await outerInsideTx('drizzle driver', async (db) => {
    // Node tells a call made inside the Database's transaction(fn) (AsyncLocalStorage): SQLITE_MISUSE at once there.
    const seesInside = typeof window === 'undefined' && typeof process === 'object';
    const d = drizzle(db);
    const t = sqliteTable('d', { id: integer('id').primaryKey(), name: text('name') });
    let inner = null;
    const dr = await within(d.transaction(async (tx) => {
      await tx.insert(t).values({ name: 'b' });
      try { await d.select().from(t); } catch (e) { inner = e; throw e; }
    }));
    if (dr.pending) throw new Error('drizzle: the transaction never settled');
    const want = seesInside ? 'SQLITE_MISUSE' : 'SQLITE_BUSY';
    const code = inner && inner.code;   // ours, as better-sqlite3's driver throws better-sqlite3's
    if (code !== want || dr.e !== inner) throw new Error(`drizzle: the query on the outer instance fails with ${want}: ${inner && `${code} ${inner.message}`}`);
    same(await d.select().from(t), [], 'drizzle: rolled back, and it answers again');
  });

  // The hand-written sqlite-proxy glue sends BEGIN, the statements and
  // ROLLBACK as separate calls: that transaction must not swallow an
  // unrelated caller's write (the layer refuses a call that leaves a
  // transaction open).
  await step("drizzle sqlite-proxy glue: a raw transaction cannot take another caller's write with it", async () => {
    const db = await open('drizzle-glue.db', { storage });
    try {
      const glue = proxyDrizzle(async (sql, params, method) => {
        if (method === 'run') { await db.run(sql, params); return { rows: [] }; }
        const rows = await db.query(sql, params, { rowMode: 'array' });
        return { rows: method === 'get' ? rows[0] : rows };
      });
      const notes = sqliteTable('notes', { id: integer('id').primaryKey(), body: text('body') });
      await db.exec('DROP TABLE IF EXISTS notes; CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)');
      const ormTx = glue.transaction(async (tx) => {
        await tx.insert(notes).values({ id: 1, body: 'in the ORM transaction' });
        await new Promise((r) => setTimeout(r, 100));
        throw new Error('roll the ORM transaction back');
      }).then(() => null, (e) => e);
      await new Promise((r) => setTimeout(r, 20));
      await db.run("INSERT INTO notes VALUES (2, 'an unrelated caller')");
      const err = await ormTx;
      if (!err) throw new Error('the ORM transaction did not fail');
      same(await db.query('SELECT id FROM notes ORDER BY id'), [{ id: 2 }], 'the unrelated write is kept, the ORM transaction is not');
    } finally {
      await db.close();
    }
  });

  const users = sqliteTable('users', { id: integer('id').primaryKey(), name: text('name').notNull() });
  const posts = sqliteTable('posts', { id: integer('id').primaryKey(), userId: integer('user_id').notNull(), title: text('title') });
  const freshTables = (db) => db.exec(`DROP TABLE IF EXISTS users; DROP TABLE IF EXISTS posts;
    CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT NOT NULL); CREATE TABLE posts(id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, title TEXT)`);

  await step('drizzle driver: query builder, join with clashing column names, raw SQL', async () => {
    const db = await open('drizzle.db', { storage });
    try {
      const d = drizzle(db);
      await freshTables(db);
      same(await d.insert(users).values([{ id: 1, name: 'Ada' }, { id: 2, name: 'Alan' }]), { changes: 2, lastInsertRowid: 2 }, 'insert run result');
      await d.insert(posts).values([{ id: 10, userId: 2, title: 'On computable numbers' }]);
      same(await d.select().from(users).where(eq(users.name, 'Ada')), [{ id: 1, name: 'Ada' }], 'select');
      same(await d.update(users).set({ name: 'Ada L.' }).where(eq(users.id, 1)).returning({ name: users.name }), [{ name: 'Ada L.' }], 'update returning');
      same(await d.select({ name: users.name }).from(users).where(eq(users.id, 1)).get(), { name: 'Ada L.' }, 'get');
      same(await d.select({ name: users.name }).from(users).where(eq(users.id, 99)).get(), undefined, 'get: no row');
      same(await d.select().from(posts).innerJoin(users, eq(posts.userId, users.id)),
        [{ posts: { id: 10, userId: 2, title: 'On computable numbers' }, users: { id: 2, name: 'Alan' } }], 'join keeps both id columns');
      same(await d.all(sql`SELECT id, name FROM users ORDER BY id`), [{ id: 1, name: 'Ada L.' }, { id: 2, name: 'Alan' }], 'raw all: objects');
      same(await d.get(sql`SELECT count(*) AS n FROM users`), { n: 2 }, 'raw get');
      same(await d.values(sql`SELECT id, name FROM users ORDER BY id`), [[1, 'Ada L.'], [2, 'Alan']], 'raw values: arrays');
      same((await d.run(sql`DELETE FROM users WHERE id = ${2}`)).changes, 1, 'raw run: changes');
      same(await d.$count(users), 1, '$count');
    } finally {
      await db.close();
    }
  });

  // Drizzle's better-sqlite3 driver throws better-sqlite3's error as it
  // is (ours came wrapped in a DrizzleQueryError), and db.run(sql`...`)
  // wraps it in a DrizzleError naming the SQL (ours did not).
  await step('drizzle driver: errors as over better-sqlite3', async () => {
    const db = await open('drizzle-peer.db', { storage });
    try {
      const d = drizzle(db);
      await freshTables(db);
      await d.insert(users).values({ id: 1, name: 'Ada' });
      const err = await d.insert(users).values({ id: 1, name: 'again' }).then(() => null, (e) => e);
      same(err && [err.name, err.message, err.code, err.errcode], ['SqliteError', 'UNIQUE constraint failed: users.id', 'SQLITE_CONSTRAINT_PRIMARYKEY', 1555], 'a query builder error');
      const raw = await d.run(sql`INSERT INTO users VALUES (1, 'raw')`).then(() => null, (e) => e);
      same(raw && [raw.name, raw.message, raw.cause?.code], ['DrizzleError', "Failed to run the query 'INSERT INTO users VALUES (1, 'raw')'", 'SQLITE_CONSTRAINT_PRIMARYKEY'], 'db.run() error');
    } finally {
      await db.close();
    }
  });

  await step('drizzle driver: transactions commit, roll back (throw, tx.rollback(), a savepoint), and hold other callers', async () => {
    const db = await open('drizzle-tx.db', { storage });
    try {
      const d = drizzle(db);
      await freshTables(db);
      same(await d.transaction(async (tx) => { await tx.insert(users).values({ id: 1, name: 'kept' }); return 'r'; }), 'r', 'result');
      await d.transaction(async (tx) => { await tx.insert(users).values({ id: 2, name: 'thrown' }); throw new Error('x'); }).catch(() => {});
      let rolled = null;
      await d.transaction(async (tx) => { await tx.insert(users).values({ id: 3, name: 'rolled' }); tx.rollback(); }).catch((e) => { rolled = e; });
      if (!(rolled instanceof TransactionRollbackError)) throw new Error(`tx.rollback(): ${rolled}`);
      await d.transaction(async (tx) => {
        await tx.insert(users).values({ id: 4, name: 'outer' });
        await tx.transaction(async (inner) => { await inner.insert(users).values({ id: 5, name: 'inner' }); throw new Error('inner'); }).catch(() => {});
        await tx.transaction(async (inner) => { await inner.insert(users).values({ id: 6, name: 'inner kept' }); });
      });
      same((await d.select({ id: users.id }).from(users).orderBy(users.id)).map((r) => r.id), [1, 4, 6], 'committed, rolled back, savepoints');
      // Another caller during a Drizzle transaction waits for it, and is not rolled back with it.
      const tx = d.transaction(async (t) => {
        await t.insert(users).values({ id: 7, name: 'in tx' });
        await new Promise((r) => setTimeout(r, 100));
        throw new Error('roll back');
      }).catch(() => 'rolled back');
      await new Promise((r) => setTimeout(r, 20));
      await db.run("INSERT INTO users VALUES (8, 'other caller')");
      same(await tx, 'rolled back', 'the transaction rolled back');
      same((await d.select({ id: users.id }).from(users).where(eq(users.id, 7))).length, 0, 'its row is gone');
      same((await d.select({ id: users.id }).from(users).where(eq(users.id, 8))).length, 1, "the other caller's row is there");
    } finally {
      await db.close();
    }
  });

  await step('drizzle driver: batch is one transaction (all or nothing)', async () => {
    const db = await open('drizzle-batch.db', { storage });
    try {
      const d = drizzle(db);
      await freshTables(db);
      const res = await d.batch([
        d.insert(users).values({ id: 1, name: 'Ada' }),
        d.insert(users).values({ id: 2, name: 'Alan' }).returning({ id: users.id }),
        d.select().from(users).orderBy(users.id),
        d.values(sql`SELECT name FROM users WHERE id = 2`),
      ]);
      same(res, [{ changes: 1, lastInsertRowid: 1 }, [{ id: 2 }], [{ id: 1, name: 'Ada' }, { id: 2, name: 'Alan' }], [['Alan']]], 'batch results');
      const mixed = await d.batch([d.insert(users).values({ id: 3, name: 'Grace' }), d.all(sql`SELECT count(*) AS n FROM users`), d.get(sql`SELECT max(id) AS m FROM users`)]);
      same(mixed.slice(1), [[{ n: 3 }], { m: 3 }], 'raw queries in a batch: objects');
      let err = null;
      await d.batch([d.insert(users).values({ id: 4, name: 'Kurt' }), d.insert(users).values({ id: 1, name: 'duplicate' })]).catch((e) => { err = e; });
      if (!err) throw new Error('a failing batch did not fail');
      same((await d.select({ id: users.id }).from(users).orderBy(users.id)).map((r) => r.id), [1, 2, 3], 'nothing of the failed batch is applied');
    } finally {
      await db.close();
    }
  });

  await step('drizzle driver: migrator (bundled migrations; a migrations folder in Node), relational queries', async () => {
    const authors = sqliteTable('authors', { id: integer('id').primaryKey(), name: text('name').notNull() });
    const books = sqliteTable('books', { id: integer('id').primaryKey(), authorId: integer('author_id').notNull(), title: text('title').notNull(), isbn: text('isbn') });
    const schema = {
      authors, books,
      authorsRelations: relations(authors, ({ many }) => ({ books: many(books) })),
      booksRelations: relations(books, ({ one }) => ({ author: one(authors, { fields: [books.authorId], references: [authors.id] }) })),
    };
    const db = await open('drizzle-migrate.db', { storage });
    const viaFolder = migrationsFolder ? await open('drizzle-migrate-folder.db', { storage }) : null;
    try {
      await db.exec('DROP TABLE IF EXISTS books; DROP TABLE IF EXISTS authors; DROP TABLE IF EXISTS __drizzle_migrations');
      const d = drizzle(db, { schema });
      await migrate(d, migrations);
      await migrate(d, migrations);   // nothing left to do
      const applied = await db.query('SELECT hash, created_at FROM __drizzle_migrations ORDER BY created_at');
      same(applied.length, 2, 'two migrations recorded once');
      await d.insert(authors).values({ id: 1, name: 'Ursula' });
      await d.insert(books).values([{ id: 1, authorId: 1, title: 'The Dispossessed', isbn: '0-06-012563-2' }, { id: 2, authorId: 1, title: 'Lathe of Heaven' }]);
      same(await d.query.authors.findMany({ with: { books: { columns: { title: true }, orderBy: (b, { asc }) => [asc(b.id)] } } }),
        [{ id: 1, name: 'Ursula', books: [{ title: 'The Dispossessed' }, { title: 'Lathe of Heaven' }] }], 'relational query');
      same(await d.query.books.findFirst({ where: (b, { eq: e }) => e(b.id, 2), with: { author: true } }),
        { id: 2, authorId: 1, title: 'Lathe of Heaven', isbn: null, author: { id: 1, name: 'Ursula' } }, 'relational findFirst');
      if (viaFolder) {
        await viaFolder.exec('DROP TABLE IF EXISTS books; DROP TABLE IF EXISTS authors; DROP TABLE IF EXISTS __drizzle_migrations');
        await migrate(drizzle(viaFolder), { migrationsFolder });
        same(await viaFolder.query('SELECT hash, created_at FROM __drizzle_migrations ORDER BY created_at'), applied, 'the folder and the bundle give the same migrations (hashes)');
        same((await viaFolder.query("SELECT name FROM pragma_table_info('books') ORDER BY cid")).map((r) => r.name), ['id', 'author_id', 'title', 'isbn'], 'schema from the folder');
      }
    } finally {
      await db.close();
      if (viaFolder) await viaFolder.close();
    }
  });

  await step("kysely: migrations with Kysely's Migrator (each in a transaction: a failing one leaves nothing)", async () => {
    const k = new Kysely({ dialect: new SqliteTempcryptDialect({ database: () => open('kysely-migrate.db', { storage }) }) });
    try {
      for (const t of ['pet', 'owner', 'kysely_migration', 'kysely_migration_lock']) await k.schema.dropTable(t).ifExists().execute();
      const steps = {
        '0001_owner': {
          up: (db) => db.schema.createTable('owner').addColumn('id', 'integer', (c) => c.primaryKey()).addColumn('name', 'text').execute(),
          down: (db) => db.schema.dropTable('owner').execute(),
        },
        '0002_pet': {
          up: (db) => db.schema.createTable('pet').addColumn('id', 'integer', (c) => c.primaryKey())
            .addColumn('owner_id', 'integer', (c) => c.references('owner.id')).execute(),
          down: (db) => db.schema.dropTable('pet').execute(),
        },
      };
      const migrator = (list) => new Migrator({ db: k, provider: { getMigrations: async () => list } });
      const up = await migrator(steps).migrateToLatest();
      if (up.error) throw up.error;
      same(up.results.map((r) => [r.migrationName, r.status]), [['0001_owner', 'Success'], ['0002_pet', 'Success']], 'migrated up');
      const bad = await migrator({
        ...steps,
        '0003_bad': {
          up: async (db) => {
            await db.schema.createTable('half').addColumn('id', 'integer').execute();
            await ksql`INSERT INTO no_such_table VALUES (1)`.execute(db);
          },
        },
      }).migrateToLatest();
      if (!bad.error) throw new Error('the failing migration did not fail');
      const tables = (await k.introspection.getTables()).map((t) => t.name);
      if (tables.includes('half')) throw new Error(`the failing migration left its table behind: ${tables}`);
      const down = await migrator(steps).migrateDown();
      if (down.error) throw down.error;
      same(down.results.map((r) => [r.migrationName, r.direction, r.status]), [['0002_pet', 'Down', 'Success']], 'migrated down one');
      same((await k.introspection.getTables()).map((t) => t.name).filter((n) => !n.startsWith('kysely_')).sort(), ['owner'], 'tables after down');
    } finally {
      await k.destroy();
    }
  });

  // The evidence table through each ORM: a marker only in a TEMP table is
  // not in what its temp file stored (tempcrypt_files(marker), ./evidence.js).
  const secretTable = (m) => `PRAGMA temp_store=FILE; PRAGMA temp.cache_size=2;
      CREATE TEMP TABLE secret AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000)
        SELECT '${m}' || n AS s FROM c;`;
  const marker = () => `ORMSEE-${Math.random().toString(36).slice(2)}`;
  await step('kysely: SELECT FROM tempcrypt_files(marker) finds nothing of a TEMP table', async () => {
    const m = marker();
    const kdb = new Kysely({ dialect: new SqliteTempcryptDialect({ database: async () => {
      const d = await open('kysely-evidence.db', { storage, tempBudget: 0 });
      await d.exec(secretTable(m));
      return d;
    } }) });
    try {
      const { rows } = await ksql`SELECT kind, encrypted, in_storage, found FROM tempcrypt_files(${m}) WHERE open AND kind = 'temp_db'`.execute(kdb);
      same(rows, [{ kind: 'temp_db', encrypted: 1, in_storage: 1, found: 0 }], 'kysely: tempcrypt_files');
    } finally { await kdb.destroy(); }
  });
  await step('drizzle driver: SELECT FROM tempcrypt_files(marker) finds nothing of a TEMP table', async () => {
    const m = marker();
    const db = await open('drizzle-evidence.db', { storage, tempBudget: 0 });
    try {
      await db.exec(secretTable(m));
      const rows = await drizzle(db).all(sql`SELECT kind, encrypted, in_storage, found FROM tempcrypt_files(${m}) WHERE open AND kind = 'temp_db'`);
      same(rows, [{ kind: 'temp_db', encrypted: 1, in_storage: 1, found: 0 }], 'drizzle: tempcrypt_files');
    } finally { await db.close(); }
  });

  return out;
}
