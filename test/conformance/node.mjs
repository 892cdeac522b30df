// The backend conformance suite in Node: every storage kind registered in
// js/storage/backends.js that works in Node (memory, file), and the OPFS pool over
// fake access handles: the backend contract (contract.js), then every SQL
// case of cases.js with tempcrypt on (without the memory tier, with it,
// and with it spilling part-way), off, and in the build without
// tempcrypt (build/conformance/baseline, made by `make
// conformance-baseline`), each compared with the baseline.  Then the
// storage regressions that need no browser.
//   node test/conformance/node.mjs [--only=<regexp on case names>]
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { checks } from '../browser/checks.mjs';
import { runVariant, compare } from './cases.js';
import { kindStores, VARIANTS, storeOptions } from './stores.js';
import { checkKind } from './contract.js';
import { fakeOpfsKind } from './fakes.js';
import { storageRegressions } from './regressions.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIRS = { dist: path.join(ROOT, 'dist'), baseline: path.join(ROOT, 'build/conformance/baseline') };
const onlyArg = process.argv.find((a) => a.startsWith('--only='));
const only = onlyArg ? new RegExp(onlyArg.slice(7)) : null;

const { check, skip, finish } = checks('conformance (node)');

// The modules of one build.
async function lib(build) {
  const at = (f) => import(pathToFileURL(path.join(DIRS[build], f)).href);
  const [{ createEngine }, { BACKENDS }, { MemoryBackend }, { OpfsPool }, { poolNameOf }] =
    await Promise.all(['engine/engine.js', 'storage/storage.js', 'storage/memory-backend.js', 'storage/opfs-pool.js', 'storage/opfs-backend.js'].map(at));
  return { createEngine, BACKENDS, MemoryBackend, OpfsPool, poolNameOf };
}

// The storage kinds to run here, by label: the registered ones that work
// in Node, and the pool over fake handles for 'opfs', which does not.
async function kinds(l) {
  const out = {};
  for (const [name, kind] of Object.entries(l.BACKENDS)) {
    const why = await kind.unavailable();
    if (!why) out[name] = kind;
    else if (name === 'opfs') out['opfs (fake handles)'] = fakeOpfsKind(l.OpfsPool);
    else out[name] = why;
  }
  return out;
}

const builds = { dist: await lib('dist'), baseline: await lib('baseline') };
for (const [label, kind] of Object.entries(await kinds(builds.dist))) {
  if (typeof kind === 'string') { skip(`${label} (node): contract and SQL cases`, kind); continue; }
  await checkKind(kind, `${label} (node)`, check);
  const results = {};
  for (const v of VARIANTS) {
    const k = (await kinds(builds[v.build]))[label];
    results[v.label] = await runVariant(kindStores(builds[v.build], k, `${label}-${v.label}`.replace(/\W+/g, '-'), storeOptions(v)), only);
  }
  let cases = 0, failed = 0;
  for (const v of VARIANTS) {
    for (const r of compare(`${label} (node) ${v.label}`, results[v.label], v.label === 'baseline' ? null : results.baseline)) {
      cases++;
      if (!check(r.ok, r.name, r.detail)) failed++;
    }
  }
  console.log(`conformance ${label} (node): ${cases} case runs, ${cases - failed} passed, ${failed} failed`);
}

await storageRegressions(builds.dist, check, { storage: 'memory (node)' });
finish();
