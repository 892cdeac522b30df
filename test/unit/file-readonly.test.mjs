// Storage 'file' (Node): databases this process may read but not write
// open read-only, as SQLite's unix VFS opens them (reads work, writes are
// SQLITE_READONLY, nothing is written), and the readOnly option.  Root
// ignores file permission bits, so "may not write" is made real: a child
// process run as user nobody (setpriv), and a tmpfs this test mounts and
// remounts read-only.  A mechanism this machine lacks is a skip saying so.
//   node --test test/unit/file-readonly.test.mjs
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { open } from '../../dist/index.js';
import { open as openSync } from '../../dist/worker.js';
import * as C from '../../dist/shared/constants.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const WORKER = pathToUrl(path.join(ROOT, 'dist', 'worker.js'));

function pathToUrl(p) { return new URL(`file://${p}`).href; }

function freshDir(tag) {
  const dir = path.join(ROOT, 'build', 'node-unit', 'file-readonly', tag);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

// Make database dir/name with rows 1..n in t.
async function makeDb(dir, name, n) {
  const db = await openSync(name, { storage: 'file', dir });
  db.exec(`CREATE TABLE t(x); INSERT INTO t WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<${n}) SELECT n FROM c`);
  await db.close();
}

const listing = (dir) => fs.readdirSync(dir).sort();
const sum = (db) => db.query('SELECT sum(x) AS s FROM t')[0].s;

// What a read-only connection must do: read, refuse a write with
// SQLITE_READONLY, sort past the memory tier (temp files somewhere
// writable), and leave the file as it was.
async function checkReadOnly(db, file, n) {
  const before = fs.readFileSync(file);
  assert.equal(sum(db), n * (n + 1) / 2, 'reads work');
  const e = (() => { try { db.exec('INSERT INTO t VALUES (0)'); } catch (err) { return err; } return null; })();
  assert.equal(e && e.primaryCode, C.SQLITE_READONLY, `a write is SQLITE_READONLY: ${e}`);
  db.exec('PRAGMA temp_store=FILE');
  assert.equal(db.query('SELECT count(*) AS k FROM (SELECT x, randomblob(300) FROM t ORDER BY 2)')[0].k, n, 'a sort through temp files works');
  assert.deepEqual(fs.readFileSync(file), before, 'the database is unchanged');
}

test('readOnly: true: reads work, writes are SQLITE_READONLY, the file is unchanged; a missing database is SQLITE_CANTOPEN and nothing is made', async () => {
  const dir = freshDir('option');
  await makeDb(dir, 'a.db', 2000);
  const db = await openSync('a.db', { storage: 'file', dir, readOnly: true, tempBudget: 0 });
  try { await checkReadOnly(db, path.join(dir, 'a.db'), 2000); } finally { await db.close(); }
  const adb = await open(path.join(dir, 'a.db'), { readOnly: true });
  try {
    assert.equal((await adb.query('SELECT count(*) AS k FROM t'))[0].k, 2000);
    await assert.rejects(adb.exec('DELETE FROM t'), (err) => err.primaryCode === C.SQLITE_READONLY);
  } finally { await adb.close(); }
  assert.deepEqual(listing(dir), ['a.db']);
  const e = await openSync('sub/missing.db', { storage: 'file', dir, readOnly: true }).then(() => null, (err) => err);
  assert.equal(e && e.code, C.SQLITE_CANTOPEN, String(e));
  assert.deepEqual(listing(dir), ['a.db'], 'no directory, file or lock made');
  await assert.rejects(openSync('a.db', { storage: 'file', dir, readOnly: 'yes' }), /readOnly must be true or false/);
});

// A tmpfs of our own under dir, mounted (root only); null when this
// machine cannot.
function mountTmpfs(dir) {
  fs.mkdirSync(dir, { recursive: true });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', dir], { encoding: 'utf8' });
  return r.status === 0 ? dir : (r.stderr || r.error?.message || `mount exited ${r.status}`).trim();
}
const mounted = [];
after(() => { for (const m of mounted) spawnSync('umount', ['-l', m]); });

test('a database on a read-only mount (no lock file can be made there) opens read-only, writing nothing', async (t) => {
  // Regression: SQLITE_CANTOPEN (the lock's temp file cannot be made).
  const dir = path.join(freshDir('ro-mount'), 'mnt');
  const why = process.getuid?.() === 0 ? mountTmpfs(dir) : 'not root';
  if (why !== dir) return t.skip(`cannot mount a tmpfs here (${why})`);
  mounted.push(dir);
  await makeDb(dir, 'm.db', 3000);
  execFileSync('mount', ['-o', 'remount,ro', dir]);
  const before = listing(dir);
  const db = await openSync('m.db', { storage: 'file', dir, tempBudget: 0 });
  try { await checkReadOnly(db, path.join(dir, 'm.db'), 3000); } finally { await db.close(); }
  assert.deepEqual(listing(dir), before, 'nothing made on the mount');
});

// Run a script in a child process as user nobody: its stdout's JSON.
function asNobody(script, ...args) {
  const r = spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, '--input-type=module', '-e', script, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`child as nobody exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

test('a database this process may read but not write (mode 0444; another user\'s file, in a directory it may or may not write) opens read-only, as in SQLite\'s unix VFS', async (t) => {
  // Regression: SQLITE_CANTOPEN (open(O_RDWR) was refused).
  if (process.getuid?.() !== 0) return t.skip('not root: cannot run a child as another user');
  if (spawnSync('setpriv', ['--version']).status !== 0) return t.skip('no setpriv(1)');
  const base = freshDir('other-user');
  for (const p of [path.join(ROOT, 'build'), path.join(ROOT, 'build', 'node-unit'), path.dirname(base), base]) fs.chmodSync(p, fs.statSync(p).mode | 0o005);
  // A directory nobody may write in (the lock's file cannot be made), and
  // one it may (the lock is made as usual), each with root's 0444 database.
  const cases = { roDir: path.join(base, 'ro'), rwDir: path.join(base, 'rw') };
  for (const d of Object.values(cases)) {
    fs.mkdirSync(d);
    await makeDb(d, 'o.db', 1000);
    fs.chmodSync(path.join(d, 'o.db'), 0o444);
  }
  fs.chmodSync(cases.roDir, 0o755);
  fs.chmodSync(cases.rwDir, 0o777);
  const script = `
    const { open } = await import(${JSON.stringify(WORKER)});
    const db = await open('o.db', { storage: 'file', dir: process.argv[1], tempBudget: 0 });
    const out = { sum: db.query('SELECT sum(x) AS s FROM t')[0].s };
    try { db.exec('INSERT INTO t VALUES (0)'); out.write = 'ok'; } catch (e) { out.write = e.primaryCode; }
    db.exec('PRAGMA temp_store=FILE');
    out.sorted = db.query('SELECT count(*) AS k FROM (SELECT x, randomblob(300) FROM t ORDER BY 2)')[0].k;
    await db.close();
    console.log(JSON.stringify(out));`;
  for (const [what, d] of Object.entries(cases)) {
    const before = fs.readFileSync(path.join(d, 'o.db'));
    assert.deepEqual(asNobody(script, d), { sum: 500500, write: C.SQLITE_READONLY, sorted: 1000 }, what);
    assert.deepEqual(fs.readFileSync(path.join(d, 'o.db')), before, `${what}: unchanged`);
    assert.deepEqual(listing(d), ['o.db'], `${what}: no lock or temp file left`);
  }
});
