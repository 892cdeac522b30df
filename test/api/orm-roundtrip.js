// Kysely and Drizzle round trips over sqlite-tempcrypt, written once: run
// in Node (test/api/node.mjs) and in the consumer's Vite app
// (consumer.mjs copies this file into the app).  The modules come in as
// arguments, so each side imports them its own way.  Returns
// [{ name, ok, error }].
export async function ormRoundTrip({ open, storage, Kysely, SqliteTempcryptDialect, ksql, drizzle, sqliteTable, integer, text, eq }) {
  const out = [];
  const step = async (name, fn) => {
    try { await fn(); out.push({ name, ok: true }); } catch (e) { out.push({ name, ok: false, error: String(e && e.stack || e) }); }
  };
  const same = (a, b, what) => {
    const sa = JSON.stringify(a, (k, v) => (typeof v === 'bigint' ? `${v}n` : v)), sb = JSON.stringify(b, (k, v) => (typeof v === 'bigint' ? `${v}n` : v));
    if (sa !== sb) throw new Error(`${what}: expected ${sb}, got ${sa}`);
  };

  await step('kysely: insert, select, update, transaction, rollback, savepoint', async () => {
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
      // A controlled transaction with a savepoint rolled back.
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
      const streamed = [];
      for await (const r of db.selectFrom('person').select('age').orderBy('age').stream(2)) streamed.push(r.age);
      same(streamed, [37, 41, 85], 'stream');
      const tables = (await db.introspection.getTables()).map((t) => t.name);
      if (!tables.includes('person')) throw new Error(`introspection: ${tables}`);
    } finally {
      await db.destroy();
    }
  });

  // Each Kysely query runs as it is: a PRAGMA takes effect, VACUUM runs
  // (they used to run inside BEGIN/COMMIT: the PRAGMA was ignored, VACUUM failed).
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
      if (!err || err.code !== 787) throw new Error(`a row breaking the foreign key was inserted (${err ? `${err.code} ${err.message}` : 'no error'})`);
      await ksql`VACUUM`.execute(db);
    } finally {
      await db.destroy();
    }
  });

  // The hand-written sqlite-proxy glue sends BEGIN, the statements and
  // ROLLBACK as separate calls: that transaction must not swallow an
  // unrelated caller's write (the layer refuses a call that leaves a
  // transaction open).
  await step("drizzle sqlite-proxy glue: a raw transaction cannot take another caller's write with it", async () => {
    const db = await open('drizzle-glue.db', { storage });
    try {
      const orm = drizzle(async (sql, params, method) => {
        if (method === 'run') { await db.run(sql, params); return { rows: [] }; }
        const rows = await db.query(sql, params, { rowMode: 'array' });
        return { rows: method === 'get' ? rows[0] : rows };
      });
      const notes = sqliteTable('notes', { id: integer('id').primaryKey(), body: text('body') });
      await db.exec('DROP TABLE IF EXISTS notes; CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)');
      const ormTx = orm.transaction(async (tx) => {
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

  await step('drizzle sqlite-proxy: insert, select, update, join with clashing column names', async () => {
    const db = await open('drizzle.db', { storage });
    try {
      const orm = drizzle(async (sql, params, method) => {
        if (method === 'run') { await db.run(sql, params); return { rows: [] }; }
        const rows = await db.query(sql, params, { rowMode: 'array' });
        return { rows: method === 'get' ? rows[0] : rows };
      });
      const users = sqliteTable('users', { id: integer('id').primaryKey(), name: text('name').notNull() });
      const posts = sqliteTable('posts', { id: integer('id').primaryKey(), userId: integer('user_id').notNull(), title: text('title') });
      await db.exec(`DROP TABLE IF EXISTS users; DROP TABLE IF EXISTS posts;
        CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT NOT NULL); CREATE TABLE posts(id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL, title TEXT)`);
      await orm.insert(users).values([{ id: 1, name: 'Ada' }, { id: 2, name: 'Alan' }]);
      await orm.insert(posts).values([{ id: 10, userId: 2, title: 'On computable numbers' }]);
      same(await orm.select().from(users).where(eq(users.name, 'Ada')), [{ id: 1, name: 'Ada' }], 'select');
      await orm.update(users).set({ name: 'Ada L.' }).where(eq(users.id, 1));
      same(await orm.select({ name: users.name }).from(users).where(eq(users.id, 1)).get(), { name: 'Ada L.' }, 'get after update');
      // users.id and posts.id both come back (rowMode 'array').
      same(await orm.select().from(posts).innerJoin(users, eq(posts.userId, users.id)),
        [{ posts: { id: 10, userId: 2, title: 'On computable numbers' }, users: { id: 2, name: 'Alan' } }], 'join keeps both id columns');
    } finally {
      await db.close();
    }
  });
  return out;
}
