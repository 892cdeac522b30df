// Migrators started at once in Node against the sequential model of
// ./migration-race.js (make test-api-node): random rounds, each a random
// migration list, ORM (Drizzle's migrate() or Kysely's Migrator), number of
// migrators, their lists (prefixes of the round's) and start order, run
//   memory        as callers of one Database
//   file          as callers of one Database
//   processes     one process each on one file (./migration-race-child.mjs)
// Not as Databases of their own on one file in one thread: SQLite's busy
// handler blocks the thread, so a migrator waiting for another's write
// lock stops that one from finishing, and fails with SQLITE_BUSY after
// busyTimeoutMs (docs/api.md, "Migrations at once").
// Every migrator must settle as the model allows, and the database hold
// each migration of the longest list exactly once.  Seeds are printed;
//   MIGRATION_SEED=<seed> node test/api/migration-race.mjs
// replays one round in every mode; MIGRATION_ROUNDS sets the rounds per
// mode (processes run the first half of them).
import fs from 'node:fs';
import crypto from 'node:crypto';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { open } from '../../dist/index.js';
import { SqliteTempcryptDialect } from '../../dist/kysely.js';
import { drizzle, migrate } from '../../dist/drizzle.js';
import * as kyselyMain from 'kysely';

const { Kysely, sql } = kyselyMain;
// Kysely's Migrator: in 'kysely' up to 0.28, in 'kysely/migration' since 0.29.
const { Migrator } = kyselyMain.Migrator ? kyselyMain : await import('kysely/migration');
import { round, runMigrator, checkMigrated, allowed, drizzleMigrations } from './migration-race.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const dir = path.join(HERE, '../../build/migration-race');
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });
const libs = { drizzle, migrate, Kysely, Migrator, sql, SqliteTempcryptDialect, folder: writeFolder };
const OPEN = { lockTimeoutMs: 60000 };   // processes: wait for each other

const replay = process.env.MIGRATION_SEED;
const rounds = Number(process.env.MIGRATION_ROUNDS || 6);
const seeds = replay !== undefined ? [Number(replay)] : Array.from({ length: rounds }, () => (Math.random() * 2 ** 32) >>> 0);

// The first upto migrations of list as drizzle-kit's folder (made once).
function writeFolder(list, upto) {
  const { journal, migrations } = drizzleMigrations(list, upto);
  const folder = path.join(dir, 'folders', crypto.createHash('sha256').update(JSON.stringify(migrations)).digest('hex').slice(0, 16));
  if (fs.existsSync(folder)) return folder;
  fs.mkdirSync(path.join(folder, 'meta'), { recursive: true });
  for (const [tag, text] of Object.entries(migrations)) fs.writeFileSync(path.join(folder, `${tag}.sql`), text);
  fs.writeFileSync(path.join(folder, 'meta', '_journal.json'), JSON.stringify(journal));
  return folder;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The migrators of round r as callers of one Database.
async function inProcess(r, mode, file) {
  const db = await open(file, { storage: mode === 'memory' ? 'memory' : 'file' });
  try {
    const results = await Promise.all(r.migrators.map(async (m) => {
      await sleep(m.delay);
      return runMigrator({ orm: r.orm, db, list: r.list, upto: m.upto, folder: m.folder, libs });
    }));
    return { results, problem: await checkMigrated(db, r.orm, r.list, r.migrators.map((m) => m.upto)) };
  } finally {
    await db.close();
  }
}

// The migrators of round r, one process each.
async function inProcesses(r, file) {
  const child = path.join(HERE, 'migration-race-child.mjs');
  const results = await Promise.all(r.migrators.map((m, i) => new Promise((resolve) => {
    const folder = r.orm === 'drizzle' && m.folder ? writeFolder(r.list, m.upto) : '';
    // execArgv: under the parent's loader hooks (the lowest supported ORMs) too
    execFile(process.execPath, [...process.execArgv, child, file, String(r.seed), String(i), folder], { timeout: 120000 }, (err, stdout, stderr) => {
      try { resolve(JSON.parse(stdout)); } catch { resolve({ ok: false, error: `process ${i} ended: ${err && err.message} ${stderr}` }); }
    });
  })));
  const db = await open(file, { storage: 'file', ...OPEN });
  try {
    return { results, problem: await checkMigrated(db, r.orm, r.list, r.migrators.map((m) => m.upto)) };
  } finally {
    await db.close();
  }
}

let passed = 0, failed = 0;
const started = Date.now();
for (const mode of ['memory', 'shared file', 'processes']) {
  for (const seed of mode === 'processes' ? seeds.slice(0, Math.ceil(seeds.length / 2)) : seeds) {   // a process round takes seconds
    const r = round(seed);
    const file = path.join(dir, `${mode.replace(' ', '-')}-${seed}.db`);
    const { results, problem } = mode === 'processes' ? await inProcesses(r, file) : await inProcess(r, mode, file);
    const uptos = r.migrators.map((m) => m.upto);
    const bad = results.map((res, i) => (allowed(r.orm, res, uptos[i], uptos) ? null : `migrator ${i} (${uptos[i]} migrations): ${res.error}`)).filter(Boolean);
    const ok = !problem && bad.length === 0;
    if (ok) passed++; else failed++;
    console.log(`${ok ? 'ok  ' : 'FAIL'} migrations at once, ${mode}: seed ${seed}, ${r.orm}, ${r.list.length} migrations, ` +
      `${uptos.length} migrators with ${uptos.join(',')}${ok ? '' : `\n     ${[...bad, problem].filter(Boolean).join('\n     ')}`}`);
  }
}
fs.rmSync(dir, { recursive: true, force: true });
console.log(`migrations at once: ${passed} passed, ${failed} failed (${((Date.now() - started) / 1000).toFixed(1)} s); replay one: MIGRATION_SEED=<seed> node test/api/migration-race.mjs`);
if (failed || passed === 0) process.exit(1);
