// The JS conformance suite in Node, over the memory backend: every case of
// cases.js with tempcrypt on, off, and in the build without tempcrypt
// (build/conformance/baseline, made by `make conformance-baseline`), each
// compared with the baseline.  Then the storage regressions that need no
// browser.
//   node test/conformance/node.mjs [--only=<regexp on case names>]
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { checks } from '../browser/checks.mjs';
import { runVariant, compare } from './cases.js';
import { memoryStores, VARIANTS } from './stores.js';
import { storageRegressions } from './regressions.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIRS = { dist: path.join(ROOT, 'dist'), baseline: path.join(ROOT, 'build/conformance/baseline') };
const onlyArg = process.argv.find((a) => a.startsWith('--only='));
const only = onlyArg ? new RegExp(onlyArg.slice(7)) : null;

const { check, finish } = checks('conformance (node)');

async function lib(build) {
  const at = (f) => import(pathToFileURL(path.join(DIRS[build], f)).href);
  const [{ createEngine }, { MemoryBackend }, { OpfsPool }, { poolNameOf }] =
    await Promise.all(['engine.js', 'memory-backend.js', 'opfs-pool.js', 'worker.js'].map(at));
  return { createEngine, MemoryBackend, OpfsPool, poolNameOf };
}

const results = {};
for (const v of VARIANTS) results[v.label] = await runVariant(memoryStores(await lib(v.build), { off: v.off }), only);
let cases = 0, failed = 0;
for (const v of VARIANTS) {
  for (const r of compare(`memory (node) ${v.label}`, results[v.label], v.label === 'baseline' ? null : results.baseline)) {
    cases++;
    if (!check(r.ok, r.name, r.detail)) failed++;
  }
}
console.log(`conformance memory (node): ${cases} case runs, ${cases - failed} passed, ${failed} failed`);

await storageRegressions(await lib('dist'), check, { storage: 'memory (node)' });
finish();
