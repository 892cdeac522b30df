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
import { Kysely } from 'kysely';
import { drizzle } from 'drizzle-orm/sqlite-proxy';
import { sqliteTable, integer, text } from 'drizzle-orm/sqlite-core';
import { eq } from 'drizzle-orm';
import { ormRoundTrip } from './orm-roundtrip.js';
const out = document.getElementById('out');
async function main() {
try {
  const db = await open('consumer.db', { storage: 'auto' });   // OPFS where it works, else memory
  await db.exec('CREATE TABLE IF NOT EXISTS notes(id INTEGER PRIMARY KEY, body TEXT)');
  await db.run('INSERT INTO notes(body) VALUES (?)', ['hello from a bundled app']);
  await db.exec('PRAGMA temp_store=FILE; PRAGMA temp.cache_size=4; CREATE TEMP TABLE t AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<4000) SELECT n, randomblob(100) AS b FROM c');
  const rows = await db.query('SELECT body, sqlite_version() AS v FROM notes ORDER BY id DESC LIMIT 1');
  const stats = await db.tempcrypt.stats();
  const storage = db.storage;
  await db.close();
  const orm = await ormRoundTrip({ open, storage: db.storage, Kysely, SqliteTempcryptDialect, drizzle, sqliteTable, integer, text, eq });
  window.__result = { ok: true, rows, stats, storage, orm };
} catch (e) {
  window.__result = { ok: false, error: e.name + ': ' + e.message };
}
out.textContent = JSON.stringify(window.__result);
}
main();
`;

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
  check(names.includes('dist/sqlite3.wasm') && names.includes('dist/index.d.ts') && names.includes('dist/kysely.js') && names.includes('dist/kysely.d.ts') && !names.some((n) => n.startsWith('test/') || n.startsWith('src/')),
    'consumer: npm pack ships dist/ and no sources or tests', names.join(' '));
  const app = path.join(dir, 'app');
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'consumer-app', private: true, type: 'module' }, null, 2));
  fs.writeFileSync(path.join(app, 'index.html'), '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>consumer</title><pre id="out">loading</pre><script type="module" src="/src/main.js"></script>\n');
  fs.writeFileSync(path.join(app, 'src', 'main.js'), APP_MAIN);
  fs.copyFileSync(path.join(ROOT, 'test/api/orm-roundtrip.js'), path.join(app, 'src', 'orm-roundtrip.js'));
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
  return { testConsumer: (o) => testConsumer({ ...o, dist: path.join(app, 'dist') }) };
}

// The app asks for storage 'auto': OPFS where the engine has sync access
// handles, memory elsewhere, and db.storage says which.
async function testConsumer({ check, withBrowser, engine, dist }) {
  const storage = engine.caps.opfs === true ? 'opfs' : 'memory';
  const server = await serve(dist);
  try {
    await withBrowser('consumer', async (ctx) => {
      const page = await ctx.newPage();
      await page.goto(`${server.url}/index.html`);
      await page.waitForFunction(() => window.__result !== undefined, null, { timeout: 30000 });
      const r = await page.evaluate(() => window.__result);
      check(r.ok && r.rows[0].body === 'hello from a bundled app' && r.storage === storage,
        `consumer: the built app opens a database (storage 'auto' gave ${storage}) and queries it`, JSON.stringify(r));
      check(r.ok && r.stats.nFileEncrypted >= 1, 'consumer: temp files encrypted in the built app', r.ok ? `nFileEncrypted=${r.stats.nFileEncrypted}` : '');
      for (const o of (r.ok ? r.orm : [{ name: 'ORM round trips', ok: false, error: 'app failed' }])) check(o.ok, `consumer: ${o.name}`, o.error || '');
    });
  } finally {
    await server.close();
  }
}
