// ChaCha20 in wasm against libsodium.js in every browser engine the tests
// run (test/browser/engines.mjs; BROWSERS picks them), one engine after the
// other, with the measurement of test/bench/chacha-core.mjs: V8 (Chromium),
// SpiderMonkey (Firefox), JavaScriptCore (WebKitGTK).  Wall-clock time in
// the page.  Speed is printed, never asserted; an output that differs from
// libsodium's, or an engine that cannot run the page, exits 1.
//
//   node test/bench/chacha-browser.mjs [--turns=N] [--turn-ms=MS] MODULE.wasm...
//       (MODULE paths inside the repository, as `make bench-chacha-wasm`
//       gives them)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../browser/server.mjs';
import { selectEngines, launchEngine, freshProfile } from '../browser/engines.mjs';
import { chachaLines } from './chacha-core.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const opt = (name, dflt) => Number((process.argv.find((a) => a.startsWith(`--${name}=`)) || '').split('=')[1] || dflt);
const turns = opt('turns', 9), turnS = opt('turn-ms', 100) / 1000;
const urls = process.argv.slice(2).filter((a) => !a.startsWith('--'))
  .map((f) => '/' + path.relative(ROOT, path.resolve(f)).split(path.sep).join('/'));

const { run, absent } = await selectEngines();
for (const a of absent) console.log(`ChaCha20 in wasm: ${a.name} skipped: ${a.why}`);
if (!run.length) { console.log('ChaCha20 in wasm: no browser engine can run here'); process.exit(1); }
const srv = await serve(ROOT);
let failed = false;
try {
  for (const E of run) {
    const profile = freshProfile(path.join(ROOT, 'build/bench'), `chacha-${E.name}`);
    const b = await launchEngine(E, profile);
    try {
      const page = await b.newPage();
      await page.goto(`${srv.base}/test/bench/chacha.html`);
      await page.waitForFunction(() => window.chachaReady === true, undefined, { what: 'the ChaCha20 page' });
      const r = await page.evaluate(([u, t, s]) => window.chacha(u, t, s), [urls, turns, turnS]);
      console.log(chachaLines(r, `${E.name} ${b.version}, wall clock`).join('\n'));
    } catch (e) {
      console.log(`ChaCha20 in wasm: ${E.name} failed: ${e.message}`);
      failed = true;
    } finally {
      await b.close();
      fs.rmSync(profile, { recursive: true, force: true });
    }
  }
} finally { await srv.close(); }
process.exit(failed ? 1 : 0);
