// The API tests (async-api.js and sync-api.js) in Node, over memory
// and real files (storage 'file', in a fresh directory under build/), then
// the leak check of the file backend and the ORM round trips (orm-node.mjs)
// (make test-api-node).  Exits 1 on any failure.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from './async-api.js';
import { leakCheck } from './file-leak.mjs';
import { ormResults, report } from './orm-node.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = path.join(ROOT, 'build', 'api-node-files');
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });
process.chdir(dir);   // storage 'file' puts databases under the current directory by default

const started = Date.now();
const results = [...await run(['memory', 'file']), ...await leakCheck(path.join(dir, 'leak')), ...await ormResults(dir)];
const failed = report(results);
console.log(`node API tests: ${results.length - failed} passed, ${failed} failed (${((Date.now() - started) / 1000).toFixed(1)} s)`);
if (failed || results.length === 0) process.exit(1);
