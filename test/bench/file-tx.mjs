// The cost of storage 'file''s per-transaction locks (js/storage/file-tx-lock.js),
// as a ratio to better-sqlite3 (SQLite's unix VFS, fcntl() locks) on the
// same directory in the same run: autocommit INSERTs (a write lock and
// the journal's syncs each) and small SELECTs (a read lock each).
// Part of make bench-file-lock; nothing is asserted.
//   node test/bench/file-tx.mjs [--writes=300] [--reads=3000]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { open } from '../../dist/worker.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const arg = (k, d) => Number((process.argv.find((a) => a.startsWith(`--${k}=`)) || `=${d}`).split('=')[1]);
const WRITES = arg('writes', 300), READS = arg('reads', 3000);
const dir = path.join(ROOT, 'build', 'bench', 'file-tx');
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });

// ms per call of fn, n calls.
function per(n, fn) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) fn(i);
  return (performance.now() - t0) / n;
}

const ours = await open('ours.db', { storage: 'file', dir });
ours.exec('CREATE TABLE t(x)');
const peer = new Database(path.join(dir, 'peer.db'));
peer.exec('CREATE TABLE t(x)');
const ins = peer.prepare('INSERT INTO t VALUES (?)'), sel = peer.prepare('SELECT count(*) FROM t');
const rows = [];
for (const [what, n, a, b] of [
  ['autocommit INSERT', WRITES, (i) => ours.run('INSERT INTO t VALUES (?)', [i]), (i) => ins.run(i)],
  ['SELECT count(*)', READS, () => ours.query('SELECT count(*) FROM t'), () => sel.get()],
]) {
  const ms = per(n, a), base = per(n, b);
  rows.push({ what, calls: n, 'storage file ms': +ms.toFixed(3), 'better-sqlite3 ms': +base.toFixed(3), ratio: +(ms / base).toFixed(2) });
}
await ours.close();
peer.close();
console.table(rows);
