// Consumer test: `npm pack` the package, install the tarball into a scratch
// Vite app under build/, build it (once), load the built app in each
// browser engine, open a database and run a query - the package as users
// install it.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { serve } from './server.mjs';

const APP_MAIN = `
import { open } from 'sqlite-tempcrypt';
import { SqliteTempcryptDialect } from 'sqlite-tempcrypt/kysely';
import { drizzle, migrate } from 'sqlite-tempcrypt/drizzle';
import { Kysely, sql as ksql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { drizzle as proxyDrizzle } from 'drizzle-orm/sqlite-proxy';
import { sqliteTable, integer, text } from 'drizzle-orm/sqlite-core';
import { eq, sql, relations, TransactionRollbackError } from 'drizzle-orm';
import { ormRoundTrip } from './orm-roundtrip.js';
import * as migrations from './drizzle-migrations.js';
import { round, runMigrator, checkMigrated } from './migration-race.js';
const out = document.getElementById('out');
const role = new URLSearchParams(location.search).get('role') || 'main';

// The first tab: a query, a temp file spilled, the ORM round trips.
async function main() {
  const db = await open('consumer.db', { storage: 'auto' });   // OPFS where it works, else memory
  await db.exec('CREATE TABLE IF NOT EXISTS notes(id INTEGER PRIMARY KEY, body TEXT)');
  await db.run('INSERT INTO notes(body) VALUES (?)', ['hello from a bundled app']);
  await db.exec('PRAGMA temp_store=FILE; PRAGMA temp.cache_size=4; CREATE TEMP TABLE t AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<4000) SELECT n, randomblob(100) AS b FROM c');
  const rows = await db.query('SELECT body, sqlite_version() AS v FROM notes ORDER BY id DESC LIMIT 1');
  const stats = await db.tempcrypt.stats();
  const storage = db.storage;
  await db.close();
  const orm = await ormRoundTrip({
    open, storage, SqliteTempcryptDialect, kysely: { Kysely, Migrator, sql: ksql }, migrations,
    orm: { sql, eq, relations, TransactionRollbackError, sqliteTable, integer, text, proxyDrizzle, drizzle, migrate },
  });
  return { rows, stats, storage, orm };
}

// One of several tabs on one database: 10 rows through Drizzle, 5 in a
// Drizzle transaction, 1 through Kysely; the database stays open (window.db).
const tabNotes = sqliteTable('tab_notes', { id: integer('id').primaryKey(), tab: text('tab').notNull(), body: text('body') });
async function tab() {
  const db = await open('tabs.db', { storage: 'auto' });
  window.db = db;
  window.owners = [];
  db.onownerchange = (o) => window.owners.push(o);
  await db.exec('CREATE TABLE IF NOT EXISTS tab_notes(id INTEGER PRIMARY KEY, tab TEXT NOT NULL, body TEXT)');
  const d = drizzle(db);
  window.d = d;
  for (let i = 0; i < 10; i++) await d.insert(tabNotes).values({ tab: db.tab, body: 'drizzle ' + i });
  await d.transaction(async (tx) => { for (let i = 0; i < 5; i++) await tx.insert(tabNotes).values({ tab: db.tab, body: 'in a transaction ' + i }); });
  const k = new Kysely({ dialect: new SqliteTempcryptDialect({ database: db }) });
  await k.insertInto('tab_notes').values({ tab: db.tab, body: 'kysely' }).execute();
  const mine = await d.$count(tabNotes, eq(tabNotes.tab, db.tab));
  return { storage: db.storage, tab: db.tab, owner: db.owner, mine };
}

// One of several tabs running the migrators of a round of
// ./migration-race.js at once (?seed=&i=): its migrator over the shared
// database, started by window.start(), which stays open (window.db;
// window.checkMigrated()).
async function migrator() {
  const q = new URLSearchParams(location.search);
  const r = round(Number(q.get('seed')));
  const m = r.migrators[Number(q.get('i'))];
  const db = await open(\`migrate-\${r.seed}.db\`, { storage: 'auto' });
  window.db = db;
  window.checkMigrated = () => checkMigrated(db, r.orm, r.list, r.migrators.map((x) => x.upto));
  await new Promise((resolve) => { window.start = resolve; });   // once every tab has it open, as at a session restore
  await new Promise((resolve) => setTimeout(resolve, m.delay));
  const res = await runMigrator({ orm: r.orm, db, list: r.list, upto: m.upto, libs: { drizzle, migrate, Kysely, Migrator, sql: ksql, SqliteTempcryptDialect } });
  return { migrated: res, owner: db.owner };
}

// SQL functions registered in the app's own Worker entry (TypeScript, with
// an import), and open()'s setup option given a .ts module, which the
// build turns into an asset: its error must name it.
async function setup() {
  const db = await open('setup.db', { storage: 'auto', worker: () => new Worker(new URL('./db-worker.ts', import.meta.url), { type: 'module' }) });
  const rows = await db.query("SELECT slug('Hello, Bundled World') AS s, twice(21) AS t");
  await db.close();
  let refused = null;
  try {
    const bad = await open('setup-asset.db', { storage: 'auto', setup: new URL('./setup-asset.ts', import.meta.url) });
    await bad.close();
  } catch (e) {
    refused = e.message;
  }
  return { rows, refused };
}

({ tab, migrator, setup }[role] || main)().then(
  (r) => { window.__result = { ok: true, ...r }; },
  (e) => { window.__result = { ok: false, error: e.name + ': ' + e.message }; },
).then(() => { out.textContent = JSON.stringify(window.__result); });
`;

// The app's own Worker entry (TypeScript, importing a module of the app
// and the package's serve()), and a setup module in TypeScript given to
// open()'s setup option.
const SETUP_FILES = {
  'slug.ts': "export const slug = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');\n",
  'db-worker.ts': `import { serve } from 'sqlite-tempcrypt/serve';
import type { SyncDatabase } from 'sqlite-tempcrypt/worker';
import { slug } from './slug';
serve({
  setup(db: SyncDatabase) {
    db.function('slug', (s) => slug(String(s)), { deterministic: true });
    db.function('twice', (x) => Number(x) * 2);
  },
});
`,
  'setup-asset.ts': 'export default function setup(db: unknown): void { void db; }\n',
};

// Builds the app; resolves to { testConsumer({ check, withBrowser, engine }) }
// which loads it in one engine.
export async function buildConsumer({ check, ROOT, BUILD }) {
  const dir = path.join(BUILD, 'consumer');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'app', 'src'), { recursive: true });
  const npm = process.env.NPM || 'npm';
  const packed = JSON.parse(execFileSync(npm, ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8' }));
  const tgz = path.join(dir, packed[0].filename);
  const names = packed[0].files.map((f) => f.path).sort();
  check(['dist/sqlite3.wasm', 'dist/index.d.ts', 'dist/kysely.js', 'dist/kysely.d.ts', 'dist/drizzle.js', 'dist/drizzle.d.ts'].every((f) => names.includes(f)) &&
    !names.some((n) => n.startsWith('test/') || n.startsWith('src/')),
    'consumer: npm pack ships dist/ and no sources or tests', names.join(' '));
  const app = path.join(dir, 'app');
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'consumer-app', private: true, type: 'module' }, null, 2));
  fs.writeFileSync(path.join(app, 'index.html'), '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>consumer</title><pre id="out">loading</pre><script type="module" src="/src/main.js"></script>\n');
  fs.writeFileSync(path.join(app, 'src', 'main.js'), APP_MAIN);
  for (const f of ['orm-roundtrip.js', 'drizzle-migrations.js', 'migration-race.js']) fs.copyFileSync(path.join(ROOT, 'test/api', f), path.join(app, 'src', f));
  fs.mkdirSync(path.join(app, 'fuzz'));
  fs.copyFileSync(path.join(ROOT, 'test/fuzz/program.js'), path.join(app, 'fuzz', 'program.js'));   // migration-race.js imports ../fuzz/program.js
  for (const [f, text] of Object.entries(SETUP_FILES)) fs.writeFileSync(path.join(app, 'src', f), text);
  // No vite.config.js: the package must work with Vite's defaults.  The
  // ORMs at the versions pinned in our devDependencies.
  const dev = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).devDependencies;
  // --prefer-offline, not --offline: after `npm ci` npm's cache holds the
  // ORMs' tarballs but not always their registry metadata, which resolving
  // `name@version` needs (a fresh machine failed with ENOTCACHED).
  execFileSync(npm, ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tgz,
    `kysely@${dev.kysely}`, `drizzle-orm@${dev['drizzle-orm']}`], { cwd: app, stdio: 'pipe' });
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], { cwd: app, stdio: 'pipe' });
  const built = fs.readdirSync(path.join(app, 'dist', 'assets'));
  check(built.some((f) => f.endsWith('.wasm')), 'consumer: vite build emits the .wasm as an asset', built.join(' '));
  // Node's file storage stays out of the app (its lock file suffix marks it).
  const nodeOnly = built.filter((f) => f.endsWith('.js') && fs.readFileSync(path.join(app, 'dist', 'assets', f), 'utf8').includes('.tempcrypt-lock'));
  check(nodeOnly.length === 0, "consumer: the built app carries none of Node's file storage", nodeOnly.join(' '));
  return { testConsumer: (o) => testConsumer({ ...o, dist: path.join(app, 'dist') }) };
}

// The app asks for storage 'auto': OPFS where the engine has sync access
// handles, memory elsewhere, and db.storage says which.  Then three tabs of
// the app write to one database: over OPFS one tab runs it for all (then
// its tab is closed and another takes over, nothing lost); in memory each
// tab has its own.
async function testConsumer({ check, withBrowser, engine, dist }) {
  const storage = engine.caps.opfs === true ? 'opfs' : 'memory';
  const server = await serve(dist);
  const result = (page) => page.waitForFunction(() => window.__result, null, { timeout: 60000 });
  try {
    await withBrowser('consumer', async (ctx) => {
      const page = await ctx.newPage();
      await page.goto(`${server.url}/index.html`);
      const r = await result(page);
      check(r.ok && r.rows[0].body === 'hello from a bundled app' && r.storage === storage,
        `consumer: the built app opens a database (storage 'auto' gave ${storage}) and queries it`, JSON.stringify(r).slice(0, 2000));
      check(r.ok && r.stats.nFileEncrypted >= 1, 'consumer: temp files encrypted in the built app', r.ok ? `nFileEncrypted=${r.stats.nFileEncrypted}` : '');
      for (const o of (r.ok ? r.orm : [{ name: 'ORM round trips', ok: false, error: 'app failed' }])) check(o.ok, `consumer: ${o.name}`, o.error || '');

      const tabs = [];
      for (let i = 0; i < 3; i++) tabs.push(await ctx.newPage());
      await Promise.all(tabs.map((p) => p.goto(`${server.url}/index.html?role=tab`)));
      const got = await Promise.all(tabs.map(result));
      const shared = storage === 'opfs';
      const owners = new Set(got.map((g) => g.owner && g.owner.id));
      check(got.every((g) => g.ok && g.mine === 16) && (shared ? owners.size === 1 && got.filter((g) => g.owner.self).length === 1 : got.every((g) => g.owner.self)),
        `consumer: three tabs of the app write through Drizzle and Kysely (${shared ? 'one database, run by one of them' : 'memory: a database each'})`, JSON.stringify(got));
      if (!shared || !got.every((g) => g.ok)) return;
      const total = await tabs[1].evaluate(async () => (await db.query('SELECT count(*) AS n FROM tab_notes'))[0].n);
      const ownerAt = got.findIndex((g) => g.owner.self);
      await tabs[ownerAt].close({ runBeforeUnload: false });
      const rest = tabs.filter((p, i) => i !== ownerAt);
      // (A call sent in the moment before a tab notices that the owner went
      // away may have reached it: it fails with "outcome unknown"; here the
      // tabs write once they have a new owner.)
      for (const p of rest) await p.waitForFunction(() => window.owners.length >= 1, null, { timeout: 20000 });
      const after = await rest[0].evaluate(async () => {
        await db.run("INSERT INTO tab_notes(tab, body) VALUES (?, 'after the handover')", [db.tab]);
        await window.d.transaction(async (tx) => tx.run("INSERT INTO tab_notes(tab, body) VALUES ('drizzle', 'after the handover')"));
        return { n: (await db.query('SELECT count(*) AS n FROM tab_notes'))[0].n, owner: db.owner, changes: window.owners.length };
      });
      const other = await rest[1].evaluate(() => db.owner);
      check(total === 48 && after.n === 50 && after.owner.id === other.id && after.changes >= 1,
        "consumer: the owner's tab closed, another takes over with every row (Drizzle after the handover)", `${total} rows, then ${JSON.stringify(after)}; other tab's owner ${JSON.stringify(other)}`);
    });
    await withBrowser('consumer', (ctx) => testSetup({ check, ctx, server, result }));
    if (storage === 'opfs') await withBrowser('consumer', (ctx) => testMigrators({ check, ctx, server, result, engine }));
  } finally {
    await server.close();
  }
}

// The app's own Worker entry registers its functions; a .ts module given
// to the setup option fails to open, naming it.
async function testSetup({ check, ctx, server, result }) {
  const page = await ctx.newPage();
  await page.goto(`${server.url}/index.html?role=setup`);
  const r = await result(page);
  check(r.ok && r.rows[0].s === 'hello-bundled-world' && r.rows[0].t === 42,
    "consumer: SQL functions registered by serve({ setup }) in the app's own Worker entry (TypeScript, with an import), built by vite", JSON.stringify(r));
  check(r.ok && /^setup module (data:video\/mp2t|\S*setup-asset)\S* failed to load/.test(r.refused || ''),
    "consumer: a .ts module given to open()'s setup option (an asset after vite build) fails to open, naming the module and the cause", JSON.stringify(r).slice(0, 600));
}

// Tabs of the app run migrators at once (./migration-race.js: random
// rounds; MIGRATION_SEED=<seed> replays one), over one shared database.
async function testMigrators({ check, ctx, server, result, engine }) {
  const { round, allowed } = await import('../api/migration-race.js');
  const seeds = process.env.MIGRATION_SEED !== undefined ? [Number(process.env.MIGRATION_SEED)]
    : Array.from({ length: Number(process.env.MIGRATION_ROUNDS || 4) }, () => (Math.random() * 2 ** 32) >>> 0);
  for (const seed of seeds) {
    const r = round(seed);
    const uptos = r.migrators.map((m) => m.upto);
    const pages = [];
    for (let i = 0; i < uptos.length; i++) pages.push(await ctx.newPage());
    await Promise.all(pages.map((p, i) => p.goto(`${server.url}/index.html?role=migrator&seed=${seed}&i=${i}`)));
    await Promise.all(pages.map((p) => p.waitForFunction(() => !!(window.start || window.__result), null, { timeout: 60000 })));
    await Promise.all(pages.map((p) => p.evaluate(() => window.start && window.start())));
    const got = await Promise.all(pages.map(result));
    const bad = got.map((g, i) => (g.ok && allowed(r.orm, g.migrated, uptos[i], uptos) ? null : `tab ${i}: ${g.error || g.migrated.error}`)).filter(Boolean);
    const problem = got.every((g) => g.ok) ? await pages[0].evaluate(() => window.checkMigrated()) : 'a tab failed to open';
    check(bad.length === 0 && !problem,
      `consumer: ${uptos.length} tabs migrate one database at once (${r.orm}, ${r.list.length} migrations, lists of ${uptos.join(',')}; seed ${seed}, MIGRATION_SEED=${seed} replays)`,
      [...bad, problem].filter(Boolean).join('; '));
    for (const p of pages) await p.close({ runBeforeUnload: false });
  }
}
