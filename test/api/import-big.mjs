// A 1 GiB import streamed from disk (make test-api-big): a database made by
// the native sqlite3 shell (1024 rows of 1 MiB) is imported through a
// ReadableStream into storage 'file', both APIs' engine, and the wasm heap
// must stay far below the file's size.  Exits 1 on failure.
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { open } from '../../dist/index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = path.join(ROOT, 'build', 'api-big');
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });
const src = path.join(dir, 'src.db');
const ROWS = 1024;
execFileSync(path.join(ROOT, 'build/native/sqlite3'), [src,
  `PRAGMA page_size=65536; CREATE TABLE t(n, b);
   WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<${ROWS}) INSERT INTO t SELECT n, randomblob(1048576) FROM c;`]);
const size = fs.statSync(src).size;

let failed = 0;
const check = (ok, name, detail) => {
  if (!ok) failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} big import: ${name}${detail ? ` — ${detail}` : ''}`);
};
const t0 = Date.now();
const db = await open('dst.db', { storage: 'file', dir });
try {
  await db.exec('CREATE TABLE old(x); INSERT INTO old VALUES (1)');
  const before = await db.heapSize();
  await db.import(Readable.toWeb(fs.createReadStream(src, { highWaterMark: 1 << 20 })));
  const after = await db.heapSize();
  const rows = await db.query('SELECT count(*) AS n, sum(length(b)) AS s FROM t');
  check(rows[0].n === ROWS && rows[0].s === ROWS * 1048576, 'all rows arrived', JSON.stringify(rows));
  check(fs.statSync(path.join(dir, 'dst.db')).size === size, `the database file is the source's size (${size} bytes)`);
  check(after < 64 << 20, `the wasm heap stayed small (${before} -> ${after} bytes for a ${size}-byte import)`);
  check(!fs.readdirSync(dir).some((f) => /tcimport|journal/.test(f)), 'no staging file or journal left', fs.readdirSync(dir).join(' '));
} finally {
  await db.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(`big import: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
if (failed) process.exit(1);
