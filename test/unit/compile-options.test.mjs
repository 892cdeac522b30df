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

test('UPDATE/DELETE ... ORDER BY ... LIMIT: better-sqlite3 parses it, this build (the official amalgamation) does not yet', async () => {
  const sql = 'CREATE TABLE t(a); INSERT INTO t VALUES (3), (1), (2); DELETE FROM t ORDER BY a LIMIT 1';
  const b3 = new Database(':memory:');
  b3.exec(sql);
  assert.deepEqual(b3.prepare('SELECT a FROM t ORDER BY a').pluck().all(), [2, 3]);
  b3.close();
  const db = await openSync('udl.db', { storage: 'memory' });
  try {
    assert.throws(() => db.exec(sql), /near "ORDER": syntax error/);
  } finally { await db.close(); }
});
