// The table "Compile-time options" of docs/api.md against the actual
// PRAGMA compile_options of this package's build (dist/), better-sqlite3
// and the official @sqlite.org/sqlite-wasm: every option on which the three
// differ has its row, every row says what the builds report, and why.
// make test-node-unit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import initOfficial from '@sqlite.org/sqlite-wasm';
import { open as openSync } from '../../dist/worker.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

// NAME or NAME=VALUE -> Map NAME -> VALUE ('yes' when there is none); the
// compiler's line differs by nature and is left out.
function optionsOf(list) {
  const m = new Map();
  for (const o of list) {
    const i = o.indexOf('=');
    const name = i < 0 ? o : o.slice(0, i);
    if (name !== 'COMPILER') m.set(name, i < 0 ? 'yes' : o.slice(i + 1));
  }
  return m;
}

// The rows of the table: NAME -> { ours, b3, official, why }.
function tableOf(md) {
  const at = md.indexOf('## Compile-time options');
  assert.ok(at >= 0, 'docs/api.md has the section');
  const rows = new Map();
  for (const line of md.slice(at, md.indexOf('\n## ', at + 1)).split('\n')) {
    const m = /^\| `([A-Z0-9_]+)` \| ([^|]+) \| ([^|]+) \| ([^|]+) \| (.*) \|$/.exec(line);
    if (m) rows.set(m[1], { ours: m[2].trim(), b3: m[3].trim(), official: m[4].trim(), why: m[5].trim() });
  }
  return rows;
}

test('docs/api.md lists every compile-time option that differs, with what each build reports', async () => {
  const b3 = new Database(':memory:');
  const theirs = optionsOf(b3.prepare('PRAGMA compile_options').pluck().all());
  b3.close();
  const sqlite3 = await initOfficial();
  const od = new sqlite3.oo1.DB(':memory:');
  const official = optionsOf(od.selectValues('PRAGMA compile_options'));
  od.close();
  const db = await openSync('compile-options.db', { storage: 'memory' });
  let ours;
  try { ours = optionsOf(db.query('PRAGMA compile_options').map((r) => r.compile_options)); } finally { await db.close(); }

  const value = (m, n) => m.get(n) ?? '-';
  const differ = [...new Set([...ours.keys(), ...theirs.keys(), ...official.keys()])]
    .filter((n) => !(value(ours, n) === value(theirs, n) && value(ours, n) === value(official, n))).sort();
  const rows = tableOf(fs.readFileSync(path.join(ROOT, 'docs/api.md'), 'utf8'));
  assert.deepEqual([...rows.keys()].sort(), differ, 'the rows are exactly the options that differ');
  for (const n of differ) {
    const r = rows.get(n);
    assert.deepEqual({ ours: r.ours, b3: r.b3, official: r.official },
      { ours: value(ours, n), b3: value(theirs, n), official: value(official, n) }, n);
    assert.ok(r.why.length >= 8, `${n}: the row says why`);
  }
});

// UPDATE/DELETE ... ORDER BY ... LIMIT (SQLITE_ENABLE_UPDATE_DELETE_LIMIT
// with a parser generated for it: the Makefile's SQLite rules): each
// statement does to the table what it does in better-sqlite3, and the
// misuses fail with the same error.
const UDL_STEPS = [
  'DELETE FROM t ORDER BY a LIMIT 1',
  "UPDATE t SET b = b || '+' ORDER BY a DESC LIMIT 2",
  "UPDATE t SET b = 'mid' WHERE a > 2 ORDER BY a LIMIT 1 OFFSET 1",
  'DELETE FROM t WHERE b IS NOT NULL ORDER BY b DESC, a LIMIT 2 OFFSET 1',
  "UPDATE t SET a = -a ORDER BY a LIMIT -1",
  'DELETE FROM t ORDER BY a',
  'UPDATE t SET a = 0 ORDER BY a',
  'DELETE FROM t ORDER BY a DESC LIMIT 0',
];
test('UPDATE/DELETE ... ORDER BY ... LIMIT does what it does in better-sqlite3', async () => {
  const setup = "CREATE TABLE t(a, b); INSERT INTO t VALUES (3, 'c'), (1, 'a'), (5, 'e'), (2, 'b'), (4, 'd'), (6, NULL)";
  const dump = 'SELECT a, b FROM t ORDER BY rowid';
  const b3 = new Database(':memory:');
  const db = await openSync('udl.db', { storage: 'memory' });
  const run = (exec) => { try { exec(); return 'ok'; } catch (e) { return e.message; } };
  try {
    b3.exec(setup);
    db.exec(setup);
    for (const sql of UDL_STEPS) {
      const theirs = run(() => b3.exec(sql));
      assert.equal(run(() => db.exec(sql)), theirs, sql);
      assert.deepEqual(db.query(dump).map((r) => ({ ...r })), b3.prepare(dump).all(), sql);
    }
    assert.equal(run(() => b3.exec('DELETE FROM t ORDER BY a')), 'ORDER BY without LIMIT on DELETE', 'a misuse is in the steps');
    assert.deepEqual(db.query(dump).map((r) => r.a), [-2, -4, -6], 'the steps changed the table');
  } finally {
    b3.close();
    await db.close();
  }
});
