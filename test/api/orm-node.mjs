// The ORM round trips (orm-roundtrip.js) in Node over memory and real
// files, with whichever Kysely and Drizzle 'kysely' and 'drizzle-orm'
// resolve to: node.mjs runs them with the devDependencies' versions, and
// `node --import ./test/api/lowest-peers.mjs test/api/orm-node.mjs` with
// the lowest supported ones (make test-api-node runs both).  Exits 1 on a
// failure when run by itself.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ormRoundTrip } from './orm-roundtrip.js';
import { versionOf } from './orm-diff.mjs';
import { open } from '../../dist/index.js';
import { SqliteTempcryptDialect } from '../../dist/kysely.js';
import { drizzle, migrate } from '../../dist/drizzle.js';
import * as kyselyMain from 'kysely';
import { drizzle as proxyDrizzle } from 'drizzle-orm/sqlite-proxy';
import { sqliteTable, integer, text } from 'drizzle-orm/sqlite-core';
import { eq, sql, relations, TransactionRollbackError } from 'drizzle-orm';
import * as migrations from './drizzle-migrations.js';

// Kysely's Migrator: in 'kysely' up to 0.28, in 'kysely/migration' since 0.29.
const { Migrator } = kyselyMain.Migrator ? kyselyMain : await import('kysely/migration');

// [{ name, ok, error, skipped }] of the round trips, their databases and
// the bundled Drizzle migrations (also written out as drizzle-kit's
// folder) under dir, which the caller has made its working directory.
export async function ormResults(dir) {
  const migrationsFolder = path.join(dir, 'drizzle');
  fs.mkdirSync(path.join(migrationsFolder, 'meta'), { recursive: true });
  fs.writeFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), JSON.stringify(migrations.journal, null, 2));
  for (const [tag, body] of Object.entries(migrations.migrations)) fs.writeFileSync(path.join(migrationsFolder, `${tag}.sql`), body);
  const orm = {
    open, SqliteTempcryptDialect, kysely: { Kysely: kyselyMain.Kysely, Migrator, sql: kyselyMain.sql }, migrations, migrationsFolder,
    orm: { sql, eq, relations, TransactionRollbackError, sqliteTable, integer, text, proxyDrizzle, drizzle, migrate },
  };
  const results = [];
  const versions = `kysely ${versionOf('kysely')}, drizzle-orm ${versionOf('drizzle-orm')}`;
  for (const storage of ['memory', 'file']) {
    for (const r of await ormRoundTrip({ ...orm, storage })) results.push({ ...r, name: `${r.name} (${storage}; ${versions})` });
  }
  return results;
}

// Print results as node.mjs does; the number that failed.
export function report(results) {
  let failed = 0;
  for (const r of results) {
    if (!r.ok) failed++;
    const mark = !r.ok ? 'FAIL' : r.skipped ? 'skip' : 'ok  ';
    console.log(`${mark} node: ${r.name}${!r.ok ? `\n     ${r.error}` : r.skipped ? ` (${r.skipped})` : ''}`);
  }
  return failed;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const dir = path.join(ROOT, 'build', 'api-node-orm');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  process.chdir(dir);
  const results = await ormResults(dir);
  const failed = report(results);
  console.log(`node ORM tests: ${results.length - failed} passed, ${failed} failed`);
  if (failed || results.length === 0) process.exit(1);
}
