// Migrators started at once (tabs, in-process callers, processes) against
// a sequential model: random migration lists from a seed, one migrator
// (Drizzle's migrate() or Kysely's Migrator through this package) over an
// open Database, and the check of what the database holds afterwards.
// Runs in Node (./migration-race.mjs) and in the consumer's Vite app
// (test/browser/consumer.mjs copies this file and ../fuzz/program.js).
import { rng } from '../fuzz/program.js';

export const ORMS = ['drizzle', 'kysely'];

// The list of seed: n migrations, each creating its table m<i> (random
// columns, maybe an index) with one row, and maybe adding a column to an
// earlier table.  A migration applied twice fails ("already exists",
// "duplicate column") or leaves a second row.
export function migrationList(seed, n) {
  const r = rng(seed);
  const list = [];
  for (let i = 0; i < n; i++) {
    const table = `m${i}`;
    const cols = Array.from({ length: 1 + r.int(3) }, (_, c) => `c${c}`);
    const stmts = [
      `CREATE TABLE ${table} (id INTEGER PRIMARY KEY, ${cols.map((c) => `${c} TEXT`).join(', ')})`,
      `INSERT INTO ${table} (id, c0) VALUES (1, '${table}')`,
    ];
    if (r.chance(0.5)) stmts.push(`CREATE INDEX ${table}_c0 ON ${table} (c0)`);
    let alter = null;
    if (i > 0 && r.chance(0.5)) {
      alter = { table: `m${r.int(i)}`, col: `x${i}` };
      stmts.push(`ALTER TABLE ${alter.table} ADD COLUMN ${alter.col} TEXT`);
    }
    list.push({ tag: `${String(i).padStart(4, '0')}_${table}`, when: 1700000000000 + i * 1000, table, cols, alter, stmts });
  }
  return list;
}

// The first `upto` migrations as drizzle-kit writes them (bundled).
export function drizzleMigrations(list, upto) {
  const entries = list.slice(0, upto).map((m, idx) => ({ idx, version: '6', when: m.when, tag: m.tag, breakpoints: true }));
  const migrations = Object.fromEntries(list.slice(0, upto).map((m) => [m.tag, m.stmts.join(';\n--> statement-breakpoint\n')]));
  return { journal: { version: '7', dialect: 'sqlite', entries }, migrations };
}

// One migrator of the first `upto` migrations over db (an open Database):
// resolves to { ok } or { ok: false, error }, never rejects.  libs:
// { drizzle, migrate } (sqlite-tempcrypt/drizzle), { Kysely, Migrator, sql,
// SqliteTempcryptDialect }, and in Node folder(list, upto): drizzle-kit's
// migrations folder of them (used when `folder`: read synchronously, so
// that callers' queries interleave).
export async function runMigrator({ orm, db, list, upto, folder, libs }) {
  try {
    if (orm === 'drizzle') {
      const config = folder && libs.folder ? { migrationsFolder: libs.folder(list, upto) } : drizzleMigrations(list, upto);
      await libs.migrate(libs.drizzle(db), config);
    } else {
      const { Kysely, Migrator, sql, SqliteTempcryptDialect } = libs;
      const k = new Kysely({ dialect: new SqliteTempcryptDialect({ database: db }) });
      const steps = Object.fromEntries(list.slice(0, upto).map((m) => [m.tag, {
        up: async (trx) => { for (const s of m.stmts) await sql.raw(s).execute(trx); },
      }]));
      const res = await new Migrator({ db: k, provider: { getMigrations: async () => steps } }).migrateToLatest();
      if (res.error) throw res.error;
    }
    return { ok: true };
  } catch (e) {
    return { ok: false, error: `${e && e.name}: ${e && e.message}${e && e.cause ? ` (cause: ${e.cause.message})` : ''}` };
  }
}

// Whether a migrator's result is what the sequential model allows: success,
// or (Kysely only) "previously executed migration ... is missing" when a
// migrator of more migrations exists (its Migrator refuses a database newer
// than its list, whichever order they ran in).
export function allowed(orm, result, upto, uptos) {
  if (result.ok) return true;
  return orm === 'kysely' && /previously executed migration \S+ is missing/.test(result.error) && uptos.some((u) => u > upto);
}

// What the database must hold after migrators of these lists ran, each
// settled: the first max(uptos) migrations applied exactly once (one row
// each in the ORM's table, in order; each table with its columns and its
// one row) and nothing of the others.  Resolves to null or what differs.
export async function checkMigrated(db, orm, list, uptos) {
  const applied = Math.max(...uptos);
  const problems = [];
  const recorded = orm === 'drizzle'
    ? (await db.query('SELECT created_at FROM __drizzle_migrations ORDER BY created_at, rowid')).map((r) => list.findIndex((m) => m.when === Number(r.created_at)))
    : (await db.query('SELECT name FROM kysely_migration ORDER BY name')).map((r) => list.findIndex((m) => m.tag === r.name));
  const want = list.slice(0, applied).map((_, i) => i);
  if (JSON.stringify(recorded) !== JSON.stringify(want)) problems.push(`migrations table holds ${JSON.stringify(recorded)}, want ${JSON.stringify(want)}`);
  const tables = new Set((await db.query("SELECT name FROM sqlite_schema WHERE type = 'table' AND name GLOB 'm[0-9]*'")).map((r) => r.name));
  for (let i = 0; i < list.length; i++) {
    const m = list[i];
    if (i >= applied) {
      if (tables.has(m.table)) problems.push(`${m.table} exists, its migration was not in any list run`);
      continue;
    }
    if (!tables.has(m.table)) { problems.push(`${m.table} is missing`); continue; }
    const cols = ['id', ...m.cols, ...list.slice(0, applied).filter((x) => x.alter?.table === m.table).map((x) => x.alter.col)];
    const got = (await db.query(`SELECT name FROM pragma_table_info('${m.table}') ORDER BY cid`)).map((r) => r.name);
    if (JSON.stringify(got) !== JSON.stringify(cols)) problems.push(`${m.table} has columns ${got}, want ${cols}`);
    const rows = (await db.query(`SELECT count(*) AS n FROM ${m.table}`))[0].n;
    if (rows !== 1) problems.push(`${m.table} has ${rows} rows, want 1`);
  }
  return problems.length ? problems.join('; ') : null;
}

// A round of seed: the ORM, the list, and per migrator its prefix, start
// delay (ms) and whether Drizzle reads a folder (Node) or a bundle.
export function round(seed, { maxMigrators = 4, maxMigrations = 6 } = {}) {
  const r = rng(seed ^ 0x5eed);
  const orm = r.pick(ORMS);
  const n = 1 + r.int(maxMigrations);
  const count = 2 + r.int(maxMigrators - 1);
  const migrators = Array.from({ length: count }, () => ({ upto: 1 + r.int(n), delay: r.int(4), folder: r.chance(0.5) }));
  return { seed, orm, list: migrationList(seed, n), migrators };
}
