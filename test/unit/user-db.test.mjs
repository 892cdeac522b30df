// The user's database stays as they made it: VACUUM, VACUUM INTO and
// temp_store changes through the package leave main's and TEMP's settings
// and schema as better-sqlite3 leaves them for the same SQL, and the
// memory tier still gets a dropped TEMP table's memory back with SQLite's
// default page cache (sqlite3_tempcrypt_reclaim after each call).
// make test-node-unit.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { open as openSync } from '../../dist/worker.js';

// What describes a database file, and its schema.  (The text encoding is
// read from the file: the browser build has no PRAGMA encoding, see
// SQLITE_OMIT_UTF16 in docs/api.md.)
const STATE = ['auto_vacuum', 'page_size', 'journal_mode', 'user_version', 'application_id'];
const encodingOf = (file) => fs.readFileSync(file).readUInt32BE(56);
function stateOf(query, schema = 'main') {
  const out = {};
  for (const p of STATE) out[p] = Object.values(query(`PRAGMA ${schema}.${p}`)[0])[0];
  out.schema = query(`SELECT type, name, tbl_name, sql FROM ${schema}.sqlite_schema ORDER BY name`);
  return out;
}

// The file both start from, made by better-sqlite3: both then open the same
// bytes, whatever either build's defaults for a new database are.
const SETUP = `PRAGMA auto_vacuum=NONE; PRAGMA page_size=4096; PRAGMA user_version=7; PRAGMA application_id=1234;
  CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT); CREATE INDEX tb ON t(b);
  INSERT INTO t(b) SELECT printf('%0200d', value) FROM (WITH RECURSIVE c(value) AS (SELECT 1 UNION ALL SELECT value+1 FROM c WHERE value<500) SELECT value FROM c);
  DELETE FROM t WHERE a % 3 = 0`;

describe('the user database after VACUUM, VACUUM INTO and temp_store (as better-sqlite3)', () => {
  let dir;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-userdb-'));
    const seed = new Database(path.join(dir, 'seed.db'));
    seed.exec(SETUP);
    seed.close();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  // The same SQL on a copy of the seed in each; the states of main, the
  // VACUUM INTO copy and TEMP, side by side.
  async function both(tag, sql) {
    const mine = path.join(dir, `${tag}-ours.db`), theirs = path.join(dir, `${tag}-b3.db`);
    fs.copyFileSync(path.join(dir, 'seed.db'), mine);
    fs.copyFileSync(path.join(dir, 'seed.db'), theirs);
    const b3 = new Database(theirs);
    const db = await openSync(`${tag}-ours.db`, { storage: 'file', dir });
    try {
      b3.exec(sql(path.join(dir, `${tag}-b3-into.db`)));
      db.exec(sql(path.join(dir, `${tag}-ours-into.db`)));
      const q3 = (s) => b3.prepare(s).all(), q = (s) => db.query(s);
      const r = {
        ours: { main: stateOf(q), temp: stateOf(q, 'temp') },
        b3: { main: stateOf(q3), temp: stateOf(q3, 'temp') },
      };
      await db.close();
      b3.close();
      r.ours.main.encoding = encodingOf(mine);
      r.b3.main.encoding = encodingOf(theirs);
      return r;
    } finally { await db.close(); if (b3.open) b3.close(); }
  }

  function intoState(file) {
    const d = new Database(file, { readonly: true });
    try { return { ...stateOf((s) => d.prepare(s).all()), encoding: encodingOf(file) }; } finally { d.close(); }
  }

  test('VACUUM and VACUUM INTO keep main as it is', async () => {
    const r = await both('vac', (into) => `CREATE TEMP TABLE x(y); INSERT INTO x VALUES (1); VACUUM; VACUUM INTO '${into}'`);
    assert.deepEqual(r.ours.main, r.b3.main);
    assert.equal(r.ours.main.auto_vacuum, 0, 'main stays auto_vacuum NONE');
    assert.deepEqual(intoState(path.join(dir, 'vac-ours-into.db')), intoState(path.join(dir, 'vac-b3-into.db')));
  });

  test('VACUUM after SQL naming temp_store keeps main as it is', async () => {
    const r = await both('ts', (into) => `PRAGMA temp_store=FILE; CREATE TEMP TABLE x(y); PRAGMA temp_store=DEFAULT; VACUUM; VACUUM INTO '${into}'`);
    assert.deepEqual(r.ours.main, r.b3.main);
    assert.deepEqual(intoState(path.join(dir, 'ts-ours-into.db')), intoState(path.join(dir, 'ts-b3-into.db')));
  });

  test('a TEMP database the user made INCREMENTAL stays INCREMENTAL', async () => {
    const r = await both('inc', () => `PRAGMA temp_store=FILE; PRAGMA temp.auto_vacuum=INCREMENTAL; CREATE TEMP TABLE x(y); INSERT INTO x VALUES (1)`);
    assert.equal(r.b3.temp.auto_vacuum, 2);
    // A new TEMP database takes SQLITE_DEFAULT_PAGE_SIZE: 8192 here, 4096 there (docs/api.md).
    assert.deepEqual({ ...r.ours.temp, page_size: 0 }, { ...r.b3.temp, page_size: 0 });
    assert.deepEqual(r.ours.main, r.b3.main);
  });
});

// With a TEMP page cache of 100 pages the DROP's commit keeps its changed
// pages in the cache (SQLite writes a temp database out at commit only once
// a quarter of its cache is dirty): the file learns nothing of the freed
// pages, and the reclaim after the call gives their memory back.
test('a dropped TEMP table gives the memory tier its budget back with a larger page cache', async () => {
  const db = await openSync('tier-drop-default.db', { storage: 'memory' });
  try {
    db.exec(`PRAGMA temp_store=FILE; PRAGMA temp.cache_size=100; CREATE TEMP TABLE y(b);
      INSERT INTO y WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<5000) SELECT printf('%0400d', n) FROM c`);
    const full = db.tempcrypt.stats().nMemBytes;
    assert.ok(full >= 2000000, `the temp table was in the tier: ${full}`);
    db.exec('DROP TABLE y');
    const after = db.tempcrypt.stats().nMemBytes;
    assert.ok(after < 128 * 1024, `bytes still held after DROP TABLE: ${after} of ${full}`);
    assert.equal(db.query('PRAGMA temp.auto_vacuum')[0].auto_vacuum, 0, 'the TEMP database keeps its auto_vacuum');
    db.exec(`CREATE TEMP TABLE z(b); INSERT INTO z WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<5000) SELECT printf('%0400d', n) FROM c`);
    assert.equal(db.query(`SELECT count(*) AS n FROM z WHERE b = printf('%0400d', rowid)`)[0].n, 5000);
  } finally { await db.close(); }
});

// The reclaim after a call reads TEMP's freelist through sqlite_dbpage,
// which takes main's read lock: while another connection holds main's
// write lock it must not wait busyTimeoutMs for it (a TEMP-only call), and
// it is tried again after a later call once main is free.
test('the reclaim after a TEMP-only call does not wait for a busy main database, and retries later', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tc-reclaim-'));
  const busyTimeoutMs = 10000;
  const b = await openSync('busy.db', { storage: 'file', dir, busyTimeoutMs });
  const a = await openSync('busy.db', { storage: 'file', dir, busyTimeoutMs });
  try {
    b.exec(`CREATE TABLE m(v); INSERT INTO m VALUES (1); PRAGMA temp_store=FILE; PRAGMA temp.cache_size=100; CREATE TEMP TABLE y(b);
      INSERT INTO y WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<5000) SELECT printf('%0400d', n) FROM c`);
    const full = b.tempcrypt.stats().nMemBytes;
    assert.ok(full >= 2000000, `the temp table was in the tier: ${full}`);
    a.exec('BEGIN EXCLUSIVE');
    const t0 = performance.now();
    b.exec('DROP TABLE y');
    const ms = performance.now() - t0;
    assert.ok(ms < busyTimeoutMs / 2, `DROP TABLE of a TEMP table waited ${ms.toFixed(0)} ms for main's lock (busyTimeoutMs ${busyTimeoutMs})`);
    assert.deepEqual(b.query('SELECT count(*) AS n FROM temp.sqlite_schema'), [{ n: 0 }]);
    a.exec('COMMIT');
    b.query('SELECT 1');
    const after = b.tempcrypt.stats().nMemBytes;
    assert.ok(after < 128 * 1024, `bytes still held once main was free again: ${after} of ${full}`);
    assert.deepEqual(b.query('SELECT v FROM m'), [{ v: 1 }]);
  } finally {
    b.close(); a.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// exportStream reads sqlite_dbpage, which makes SQLite open the TEMP
// database; once TEMP exists SQLite refuses a temp_store change inside a
// transaction.  After an export (read whole, cancelled, or several) the
// same SQL behaves as on better-sqlite3, which never exported.
test('exportStream leaves no TEMP database behind: temp_store changes inside a transaction as in better-sqlite3', async () => {
  const b3 = new Database(':memory:');
  const db = await openSync('export-temp.db', { storage: 'memory' });
  const outcome = (fn) => { try { fn(); return 'ok'; } catch (e) { return e.message; } };
  const drain = async (stream, upTo = Infinity) => {
    const reader = stream.getReader();
    for (let i = 0; i < upTo; i++) if ((await reader.read()).done) return;
    await reader.cancel();
  };
  try {
    for (const d of [b3, db]) d.exec('CREATE TABLE t(v); INSERT INTO t VALUES (1)');
    const steps = [
      ['read whole', (s) => drain(s)], ['cancelled', (s) => drain(s, 1)], ['never read', (s) => s.cancel()],
    ];
    for (const [how, read] of steps) {
      await read(db.exportStream({ pagesPerChunk: 1 }));
      for (const sql of ['BEGIN; PRAGMA temp_store=FILE; COMMIT', 'BEGIN; PRAGMA temp_store=MEMORY; CREATE TEMP TABLE x(y); COMMIT',
        'BEGIN; PRAGMA temp_store=DEFAULT; ROLLBACK', 'DROP TABLE temp.x']) {
        const mine = outcome(() => db.exec(sql)), theirs = outcome(() => b3.exec(sql));
        if (db.inTransaction) db.exec('ROLLBACK');
        if (b3.inTransaction) b3.exec('ROLLBACK');
        assert.equal(mine, theirs, `export ${how}, then ${sql}`);
      }
      assert.deepEqual(db.query('PRAGMA database_list').map((r) => r.name), b3.prepare('PRAGMA database_list').all().map((r) => r.name), `export ${how}: the databases`);
    }
    // A TEMP database that exists before the export is left as it is.
    for (const d of [b3, db]) d.exec('CREATE TEMP TABLE keep(v); INSERT INTO keep VALUES (2)');
    await drain(db.exportStream());
    assert.deepEqual(db.query('SELECT v FROM keep'), [{ v: 2 }]);
    assert.equal(outcome(() => db.exec('BEGIN; PRAGMA temp_store=FILE; COMMIT')), outcome(() => b3.exec('BEGIN; PRAGMA temp_store=FILE; COMMIT')));
  } finally { await db.close(); b3.close(); }
});
