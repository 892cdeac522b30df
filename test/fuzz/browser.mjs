// The API fuzzer in browsers (./fuzz-api.mjs --browsers=chromium,firefox):
// the subject (./runner.js) runs in a page over the package's main-thread
// API, so every database has its own module Worker, on OPFS (where the
// engine has sync access handles) and on memory; the oracle stays in Node
// and the programs cross as JSON text.
import path from 'node:path';
import fs from 'node:fs';
import { serve } from '../browser/server.mjs';
import { selectEngines, launchEngine, freshProfile } from '../browser/engines.mjs';
import { toJson, fromJson } from './program.js';

// How long a call waits for a transaction (open()'s busyTimeoutMs): a
// call on db awaited inside fn fails after it (no AsyncLocalStorage in a
// page to fail it at once); short, so that such programs stay quick.
const BUSY_TIMEOUT_MS = 2000;

class PageSubject {
  constructor(page, watchdogMs) { this.page = page; this.watchdogMs = watchdogMs; }
  async call(msg) {
    let timer;
    const late = new Promise((r) => { timer = setTimeout(() => r({ blocked: true }), this.watchdogMs + 15000); });
    try {
      const ans = await Promise.race([this.page.evaluate((t) => window.fz.handle(t), toJson(msg)), late]);
      return typeof ans === 'string' ? fromJson(ans) : ans;
    } catch (e) {
      return { crash: String(e && e.stack || e) };
    } finally { clearTimeout(timer); }
  }
  // After a hang: stop the database's Worker (its OPFS handles go with it).
  async kill() { await this.call({ cmd: 'kill' }); }
}

async function preparePage(page, base, watchdogMs) {
  await page.goto(`${base}/test/browser/index.html`);
  await page.evaluate(async (w) => {
    const { open } = await import('/dist/index.js');
    const { createRunner } = await import('/test/fuzz/runner.js');
    window.fz = createRunner({ open, watchdogMs: w });
    return true;
  }, watchdogMs);
}

export async function browserRuns(names, { ROOT, fuzzOn, n, watchdogMs }) {
  const server = await serve(ROOT);
  const BUILD = path.join(ROOT, 'build', 'fuzz-api');
  try {
    const { run } = await selectEngines(names.join(','));
    for (const engine of run) {
      const profile = freshProfile(BUILD, `${engine.name}-fuzz`);
      const browser = await launchEngine(engine, profile);
      try {
        const page = await browser.newPage();
        page.on('pageerror', (e) => console.log(`  [${engine.name} page error]`, e.message));
        await preparePage(page, server.url, watchdogMs);
        const subject = new PageSubject(page, watchdogMs);
        const setup = `${server.url}/test/fuzz/functions.js`;
        const storages = engine.caps.opfs === true ? ['opfs', 'memory'] : ['memory'];
        for (const storage of storages) {
          const persistent = storage === 'opfs';
          await fuzzOn({
            label: `${engine.name} ${storage}`, storage, persistent, subject, inFn: 'busy',
            storageFor: (tag, name) => ({
              options: { storage, setup, busyTimeoutMs: BUSY_TIMEOUT_MS }, persistent,
              dispose: () => (persistent ? page.evaluate(async (nm) => {
                const { deletePool, poolNameOf } = await import('/dist/worker.js');
                await deletePool(await poolNameOf(nm));
                return true;
              }, name).catch((e) => console.log(`  (could not delete the pool of ${name}: ${e.message})`)) : undefined),
            }),
          }, n);
        }
        console.log(`  ${engine.name}: ${browser.version}`);
      } finally {
        await browser.close();
        fs.rmSync(profile, { recursive: true, force: true });
      }
    }
  } finally {
    await server.close();
  }
}
