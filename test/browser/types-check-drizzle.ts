// Compiled by tsc (never run), as types-check.ts, for sqlite-tempcrypt/drizzle
// (tsconfig.drizzle.json: drizzle-orm's own .d.ts files need skipLibCheck,
// so drizzle.d.ts is held to its use here: a type it lost would make one of
// the expected errors below go missing, which tsc reports).
import { open, type RunResult } from 'sqlite-tempcrypt';
import { drizzle, migrate, type SqliteTempcryptDatabase } from 'sqlite-tempcrypt/drizzle';
import { sqliteTable, integer, text } from 'drizzle-orm/sqlite-core';
import { eq } from 'drizzle-orm';

const notes = sqliteTable('notes', { id: integer('id').primaryKey(), body: text('body').notNull() });
async function drizzleDriver(): Promise<void> {
  const d: SqliteTempcryptDatabase<{ notes: typeof notes }> = drizzle(await open('d.db'), { schema: { notes } });
  const rows: { id: number; body: string }[] = await d.select().from(notes).where(eq(notes.id, 1));
  const res: RunResult = await d.insert(notes).values({ id: 2, body: 'x' });
  const n: number = await d.transaction(async (tx) => (await tx.select().from(notes)).length);
  const [ins, all] = await d.batch([d.insert(notes).values({ id: 3, body: 'y' }), d.select().from(notes)]);
  const many = await d.query.notes.findMany();
  await migrate(d, { migrationsFolder: './drizzle' });
  await migrate(d, { journal: { entries: [{ idx: 0, when: 1, tag: '0000_x', breakpoints: true }] }, migrations: { '0000_x': 'CREATE TABLE x(y)' } });
  // @ts-expect-error: no such column
  await d.select({ t: notes.title }).from(notes);
  // @ts-expect-error: a Database is needed, not a name
  drizzle('d.db');
  void [rows, res, n, ins, all, many];
}
void drizzleDriver;
