// Faults below the JS layer in a browser (test/faults/node.mjs
// --browsers=...): a module Worker that runs ./faults.js over OPFS.
//   postMessage({ stride }) -> { ok, results: [{ ok, name, detail }], log: [lines] }
import { faultSuite, faultTable } from './faults.js';

self.onmessage = async ({ data }) => {
  const results = [], log = [];
  const check = (ok, name, detail = '') => { results.push({ ok: !!ok, name, detail }); return !!ok; };
  try {
    const at = (f) => import(`/dist/${f}`);
    const [{ createEngine }, { SyncDatabase }, { Session }, { AsyncDatabase }, { toWire, fromWire, storageError }, { BACKENDS }] =
      await Promise.all(['engine/engine.js', 'engine/sync-database.js', 'dispatch/rpc.js', 'page/async-database.js', 'shared/errors.js', 'storage/storage.js'].map(at));
    const lib = { createEngine, SyncDatabase, Session, AsyncDatabase, toWire, fromWire, storageError };
    const why = await BACKENDS.opfs.unavailable();
    if (why) throw new Error(why);
    const t0 = Date.now();
    const { perFault, tally } = await faultSuite(lib, BACKENDS.opfs, `opfs (${data.engine})`, check, { stride: data.stride, log: (l) => log.push(l) });
    log.push(faultTable(`opfs (${data.engine})`, perFault));
    log.push(`  opfs: ${tally.runs} runs in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    self.postMessage({ ok: true, results, log });
  } catch (e) {
    self.postMessage({ ok: false, error: `${e.name}: ${e.message}\n${e.stack}`, results, log });
  }
};
