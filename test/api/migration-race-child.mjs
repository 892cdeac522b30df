// One migrator of a round of ./migration-race.mjs in a process of its own:
//   node migration-race-child.mjs <database file> <round seed> <migrator index> [<drizzle-kit folder>]
// prints its result ({ ok } or { ok: false, error }) as JSON.
import { open } from '../../dist/index.js';
import { SqliteTempcryptDialect } from '../../dist/kysely.js';
import { drizzle, migrate } from '../../dist/drizzle.js';
import * as kyselyMain from 'kysely';

const { Kysely, sql } = kyselyMain;
// Kysely's Migrator: in 'kysely' up to 0.28, in 'kysely/migration' since 0.29.
const { Migrator } = kyselyMain.Migrator ? kyselyMain : await import('kysely/migration');
import { round, runMigrator } from './migration-race.js';

const [file, seed, index, folder] = process.argv.slice(2);
const r = round(Number(seed));
const m = r.migrators[Number(index)];
await new Promise((resolve) => setTimeout(resolve, m.delay));
let result;
try {
  const db = await open(file, { storage: 'file', lockTimeoutMs: 60000 });
  try {
    const libs = { drizzle, migrate, Kysely, Migrator, sql, SqliteTempcryptDialect, folder: () => folder };
    result = await runMigrator({ orm: r.orm, db, list: r.list, upto: m.upto, folder: !!folder, libs });
  } finally {
    await db.close();
  }
} catch (e) {
  result = { ok: false, error: `open or close: ${e.name}: ${e.message}` };
}
process.stdout.write(JSON.stringify(result));
