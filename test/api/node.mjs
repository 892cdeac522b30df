// The API tests (async-api.js and sync-api.js) in Node, over memory
// and real files (storage 'file', in a fresh directory under build/), then
// the leak check of the file backend (make test-api-node).  Exits 1 on any
// failure.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from './async-api.js';
import { leakCheck } from './file-leak.mjs';
import { ormRoundTrip } from './orm-roundtrip.js';
import { open } from '../../dist/index.js';
import { SqliteTempcryptDialect } from '../../dist/kysely.js';
import { Kysely } from 'kysely';
import { drizzle } from 'drizzle-orm/sqlite-proxy';
import { sqliteTable, integer, text } from 'drizzle-orm/sqlite-core';
import { eq } from 'drizzle-orm';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = path.join(ROOT, 'build', 'api-node-files');
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });
process.chdir(dir);   // storage 'file' puts databases under the current directory by default

const started = Date.now();
const orm = { open, Kysely, SqliteTempcryptDialect, drizzle, sqliteTable, integer, text, eq };
const results = [...await run(['memory', 'file']), ...await leakCheck(path.join(dir, 'leak'))];
for (const storage of ['memory', 'file']) {
  for (const r of await ormRoundTrip({ ...orm, storage })) results.push({ ...r, name: `${r.name} (${storage})` });
}
let failed = 0;
for (const r of results) {
  if (!r.ok) failed++;
  console.log(`${r.ok ? 'ok  ' : 'FAIL'} node: ${r.name}${r.ok ? '' : `\n     ${r.error}`}`);
}
console.log(`node API tests: ${results.length - failed} passed, ${failed} failed (${((Date.now() - started) / 1000).toFixed(1)} s)`);
if (failed || results.length === 0) process.exit(1);
