// Kysely and Drizzle round trips over sqlite-tempcrypt, written once: run
// in Node (test/api/node.mjs) and in the consumer's Vite app
// (consumer.mjs copies this file into the app).  The modules come in as
// arguments, so each side imports them its own way.  Returns
// [{ name, ok, error }].
export async function ormRoundTrip({ open, storage, Kysely, SqliteTempcryptDialect, drizzle, sqliteTable, integer, text, eq }) {
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
