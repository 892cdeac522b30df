// Faults below the JS layer in Node (make test-faults): every storage kind
// of js/storage/backends.js that works here (memory, file), each storage call
// failing at every position (./faults.js).
//   node test/faults/node.mjs [--stride=N] [--only=memory]
//        [--browsers=chromium,firefox --browser-stride=N]   (OPFS in a Worker)
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { checks } from '../browser/checks.mjs';
import { faultSuite, faultTable } from './faults.js';

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist');
const at = (f) => import(pathToFileURL(path.join(DIST, f)).href);
const [{ createEngine }, { SyncDatabase }, { Session }, { AsyncDatabase }, { toWire, fromWire, storageError }, { BACKENDS }] =
  await Promise.all(['engine/engine.js', 'engine/sync-database.js', 'dispatch/rpc.js', 'page/async-database.js', 'shared/errors.js', 'storage/storage.js'].map(at));
const lib = { createEngine, SyncDatabase, Session, AsyncDatabase, toWire, fromWire, storageError };
const arg = (k, d) => (process.argv.find((a) => a.startsWith(`--${k}=`)) || '').slice(k.length + 3) || d;
const stride = Number(arg('stride', process.env.FAULTS_STRIDE || 1));
const only = arg('only', '').split(',').filter(Boolean);

const { check, skip, finish } = checks('faults (node)');
for (const [name, kind] of Object.entries(BACKENDS)) {
  if (only.length && !only.includes(name)) continue;
  const why = await kind.unavailable();
  if (why) { skip(`faults over ${name}`, why); continue; }
  const t0 = Date.now();
  const { perFault, tally } = await faultSuite(lib, kind, `${name} (node)`, check, { stride });
  console.log(faultTable(`${name} (node)`, perFault));
  console.log(`  ${name}: ${tally.runs} runs in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
// The same over OPFS in each browser named (a Worker per engine).
const browsers = arg('browsers', process.env.FAULTS_BROWSERS || '').split(',').filter(Boolean);
if (browsers.length) {
  const { serve } = await import('../browser/server.mjs');
  const { selectEngines, launchEngine, freshProfile } = await import('../browser/engines.mjs');
  const fs = await import('node:fs');
  const ROOT = path.resolve(DIST, '..');
  const bstride = Number(arg('browser-stride', process.env.FAULTS_BROWSER_STRIDE || stride));
  const server = await serve(ROOT);
  try {
    for (const engine of (await selectEngines(browsers.join(','))).run) {
      if (engine.caps.opfs !== true) { skip(`faults over opfs (${engine.name})`, engine.caps.opfs); continue; }
      const profile = freshProfile(path.join(ROOT, 'build', 'faults'), engine.name);
      const b = await launchEngine(engine, profile);
      try {
        const page = await b.newPage();
        await page.goto(`${server.url}/test/browser/index.html`);
        const t0 = Date.now();
        const r = await page.evaluate((msg) => new Promise((resolve) => {
          const w = new Worker('/test/faults/worker.js', { type: 'module' });
          w.onmessage = (e) => { resolve(e.data); w.terminate(); };
          w.onerror = (e) => resolve({ ok: false, error: `worker error: ${e.message}`, results: [], log: [] });
          w.postMessage(msg);
        }), { stride: bstride, engine: engine.name });
        for (const l of r.log) console.log(l);
        for (const x of r.results) check(x.ok, x.name, x.detail);
        check(r.ok, `faults over opfs (${engine.name}): the suite ran`, r.error || `${((Date.now() - t0) / 1000).toFixed(1)} s`);
      } finally {
        await b.close();
        fs.rmSync(profile, { recursive: true, force: true });
      }
    }
  } finally { await server.close(); }
}
finish();
