// The backend conformance suite in a browser engine with OPFS (registered
// in test/browser/run.mjs): in a Worker, over every storage kind that
// works there, the backend contract and cases.js, every variant compared
// with the build without tempcrypt; then the storage regressions that need
// real OPFS.  Prints the counts per storage.
import { compare } from './cases.js';
import { VARIANTS } from './stores.js';

function inWorker(page, msg) {
  return page.evaluate((msg) => new Promise((resolve) => {
    const w = new Worker('/test/conformance/worker.js', { type: 'module' });
    w.onmessage = (e) => { resolve(e.data); w.terminate(); };
    w.onerror = (e) => resolve({ ok: false, error: `worker error: ${e.message}` });
    w.postMessage(msg);
  }), msg);
}

export async function testConformance({ check, skip, withBrowser, base, engine = 'chromium', only = process.env.CONFORMANCE_ONLY }) {
  await withBrowser('conformance', async (ctx) => {
    const page = await ctx.newPage();
    page.on('console', (m) => { if (m.type() === 'error') console.log('  [console.error]', m.text()); });
    await page.goto(`${base}/test/browser/index.html`);
    const t0 = Date.now();
    const run = await inWorker(page, { cmd: 'conformance', only });
    if (!check(run.ok, `conformance (${engine}): the suite ran`, run.error || '')) return;
    for (const [storage, why] of Object.entries(run.result.unavailable)) skip(`conformance ${storage} (${engine}): contract and SQL cases`, why);
    for (const [storage, { contract, variants: byVariant }] of Object.entries(run.result.kinds)) {
      for (const r of contract) check(r.ok, `${r.name} (${engine})`, r.detail);
      let n = 0, failed = 0;
      for (const v of VARIANTS) {
        const rows = compare(`${storage} (${engine}) ${v.label}`, byVariant[v.label], v.label === 'baseline' ? null : byVariant.baseline);
        for (const r of rows) { n++; if (!check(r.ok, r.name, r.detail)) failed++; }
      }
      console.log(`conformance ${storage} (${engine}): ${n} case runs, ${n - failed} passed, ${failed} failed`);
    }
    console.log(`  conformance suite in ${engine}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const reg = await inWorker(page, { cmd: 'regressions' });
    if (!check(reg.ok, `storage regressions (${engine}): ran`, reg.error || '')) return;
    for (const r of reg.result) check(r.ok, r.name, r.detail);
  });
}
