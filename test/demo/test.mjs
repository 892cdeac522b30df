// The browser test of the demo page (make test-demo): drives the page like
// a user in every browser engine (BROWSERS=chromium,firefox,webkit; default:
// every engine installed, see test/browser/engines.mjs), and checks what it
// displays.  Where an engine has no OPFS sync access handles, the page must
// say so; the workload checks are skipped there with the reason.
//   node test/demo/test.mjs [--workloads=temp-table,order-by] [--rows=5000]
// Every check asserts; any failure makes the run exit 1.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { serveDemo } from './serve.mjs';
import { launchBrowser, runWorkload, formatTable, OUT, ROOT } from './drive.mjs';
import { selectEngines } from '../browser/engines.mjs';
import { decodePng, colourStats } from './png.mjs';
import { checks } from '../browser/checks.mjs';
import { parseWorkloads, workloadsFor, BUDGET_START } from '../../js/demo/workloads.js';
import { makeSpy, entropy, countIn, markAll, sampleRows } from '../../js/demo/analysis.js';
import { SQLITE_OPEN_TEMP_JOURNAL, SQLITE_OPEN_MAIN_DB, SQLITE_OPEN_READWRITE, SQLITE_OPEN_CREATE, SQLITE_OPEN_TEMP_DB } from '../../js/shared/constants.js';

const arg = (k, d) => (process.argv.find((a) => a.startsWith(`--${k}=`)) || `--${k}=${d}`).slice(k.length + 3);
const ROWS = Number(arg('rows', '5000'));
// The first workload gets the full check and the screenshot; the others
// the leak assertions.
const TABLE = 'dist/workloads.txt';
const WORKLOADS = workloadsFor(parseWorkloads(fs.readFileSync(path.join(ROOT, TABLE), 'utf8'), TABLE), 'demo');
const LIST = arg('workloads', WORKLOADS.map((w) => w.id).join(',')).split(',').filter(Boolean);

const { check, skip, section, finish } = checks('demo tests');

// The page's own analysis, in Node: the spy finds a secret split across
// writes, counts each write that carries it, ignores named files; entropy
// and the byte-map sampling.
function testAnalysis() {
  const enc = new TextEncoder();
  const needle = enc.encode('SECRET-123');
  const spy = makeSpy(needle);
  const ev = (op, fileId, more = {}) => spy.observer({ op, fileId, name: `/tmp/${fileId}`, kind: 'temp-journal', flags: SQLITE_OPEN_TEMP_JOURNAL, temp: true, ...more });
  ev('open', 1);
  ev('write', 1, { offset: 0, length: 5, data: enc.encode('xxSEC') });
  ev('write', 1, { offset: 5, length: 9, data: enc.encode('RET-123yy') });
  ev('write', 1, { offset: 100, length: 12, data: enc.encode('#SECRET-123#') });
  ev('write', 1, { offset: 100, length: 12, data: enc.encode('#SECRET-123#') });
  ev('read', 1, { offset: 0, length: 14, got: 14 });
  spy.observer({ op: 'open', fileId: 2, name: '/demo.db', kind: 'main-db', flags: SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, temp: false });
  spy.observer({ op: 'write', fileId: 2, name: '/demo.db', kind: 'main-db', offset: 0, length: 10, data: needle });
  ev('close', 1);
  const [t, m] = spy.all;
  check(t.hits === 3 && t.written === 38 && t.read === 14 && t.size === 112 && !t.open,
    'analysis: spy finds a secret split across two writes and counts every write that carries one', JSON.stringify({ hits: t.hits, written: t.written, read: t.read, size: t.size }));
  check(m.hits === 0 && m.written === 10 && !m.temp, 'analysis: named files are counted, not searched (not temp files)');
  const dropping = makeSpy(needle, { dropClosed: true });
  dropping.observer({ op: 'open', fileId: 3, name: '/tmp/3', kind: 'temp-db', flags: SQLITE_OPEN_TEMP_DB, temp: true });
  dropping.observer({ op: 'write', fileId: 3, name: '/tmp/3', kind: 'temp-db', temp: true, offset: 0, length: 10, data: needle });
  dropping.observer({ op: 'close', fileId: 3, name: '/tmp/3', kind: 'temp-db', temp: true });
  const [d] = dropping.all;
  check(d.hits === 1 && d.written === 10 && d.size === 10 && d.image.length === 0, 'analysis: dropClosed lets go of a closed file\'s image and keeps its counts');
  const uniform = new Float64Array(256).fill(10), constant = new Float64Array(256); constant[65] = 99;
  check(Math.abs(entropy(uniform) - 8) < 1e-9 && entropy(constant) === 0 && entropy(new Float64Array(256)) === null, 'analysis: entropy 8 for uniform bytes, 0 for one value, none for no bytes');
  const hay = enc.encode('aSECRET-123SECRET-123b');
  const mask = markAll(hay, hay.length, needle);
  check(countIn(hay, needle) === 2 && countIn(hay, needle, 2) === 1 && mask.reduce((a, b) => a + b, 0) === 20, 'analysis: marker count and mask');
  const big = new Uint8Array(256 * 1000).map((_, i) => i & 255);
  const sm = sampleRows(big, new Uint8Array(big.length), big.length - 10);
  check(sm.rows === 40 && sm.partial && sm.offsets[39] === 256 * 999 && sm.marks[40 * 256 - 1] === 2 && sm.bytes[5] === 5, 'analysis: byte map samples lines evenly, marks the end of the file');
}

async function testEngine(engine, server) {
  let browser;
  try {
    browser = await launchBrowser(engine, 'test');
    const page = await browser.newPage();
    const opfs = engine.caps.opfs === true;

    // The page loads, finds OPFS (or says what is missing), and makes up a
    // secret at load time.
    await page.goto(server.url);
    await page.waitForSelector('body:not([data-state="loading"])', { timeout: 60000 });
    const state = await page.getAttribute('body', 'data-state');
    const ready = opfs ? 'ready' : 'no-opfs';
    check(state === ready, `page: loads and ends in state "${ready}"`, `state ${state}: ${await page.textContent('#status')}`);
    if (opfs) {
      check(await page.isHidden('#no-opfs'), 'page: no "OPFS missing" banner');
    } else {
        const banner = (await page.textContent('#no-opfs')).trim();
        check(await page.isVisible('#no-opfs') && /Origin Private File System/.test(banner) && /getDirectory\(\) failed|createSyncAccessHandle\(\) failed/.test(banner) && await page.isDisabled('#run'),
          'page: says what is missing (the failing call and its error), and the Run button stays off', banner.slice(0, 200));
      }
      check(await page.evaluate(() => !self.crossOriginIsolated && typeof SharedArrayBuffer === 'undefined'), 'page: runs without COOP/COEP (not cross-origin isolated, no SharedArrayBuffer)');
      const s1 = await page.inputValue('#secret');
      await page.reload();
      await page.waitForSelector(`body[data-state="${ready}"]`, { timeout: 60000 });
      const s2 = await page.inputValue('#secret');
      check(Buffer.byteLength(s1) >= 6 && s1 !== s2, 'page: a fresh default secret at every load', `${JSON.stringify(s1)} then ${JSON.stringify(s2)}`);
      const served = [...['index.html', 'demo.js', 'demo-worker.js', 'workloads.js', 'analysis.js'].map((f) => `js/demo/${f}`), TABLE].map((f) => fs.readFileSync(path.join(ROOT, f), 'utf8')).join('\n');
      check(!served.includes(s1) && !served.includes(s2), 'page: the default secret is in no served file');
      const startBudget = (await page.textContent('#budget-out')).trim();
      check(startBudget === '64.0 KiB' && BUDGET_START === 65536, 'page: the memory budget control starts at 64 KiB', startBudget);
  
      if (!opfs) skip(`workloads (${LIST.join(', ')}): leak checks, screenshot, byte maps`, engine.caps.opfs);
      for (const [i, workload] of (opfs ? LIST : []).entries()) {
        const secret = `demo-test ${crypto.randomBytes(6).toString('hex')}`;
        const r = await runWorkload(page, server.url, { workload, rows: ROWS, secret, budget: BUDGET_START });
        if (!check(r.state === 'done', `${workload}: runs both ways`, r.state !== 'done' ? `state ${r.state}: ${r.status}` : '')) continue;
        if (i === 0) console.log(`\n${formatTable(r)}\n`);
        const { plain, enc } = r;
        const spilled = plain.nFiles > 0;
        check(spilled, `${workload}: spilled to temp files at ${ROWS} rows`, `${plain.filesText} plaintext, ${enc.filesText} encrypted`);
        check(enc.opened === plain.opened && plain.opened > 0, `${workload}: SQLite opened the same temp files both ways`, `${plain.openedText} vs ${enc.openedText}`);
        // The page starts at a small memory budget: the temp files spill part-way.
        check(enc.nFiles >= 1 && enc.nFiles <= plain.nFiles && enc.memory > 0 && enc.memory <= BUDGET_START && enc.spilled > 0 && enc.enciphered >= enc.spilled,
          `${workload}: encrypted side at the page's budget (${r.budgetText}): some temp data in memory, the rest spilled to OPFS, enciphered`,
          `${enc.filesText} files in OPFS, memory ${enc.memoryText}, spilled ${enc.spilledText}, enciphered ${enc.encipheredText}`);
        check(plain.memoryText === '—' && plain.spilledText === '—' && plain.enciphered === 0, `${workload}: plaintext side: no memory tier, nothing enciphered`,
          `${plain.memoryText}, ${plain.spilledText}, ${plain.encipheredText}`);
        check(plain.hits > 0, `${workload}: plaintext side shows the secret found (> 0)`, plain.hitsText);
        check(enc.hits === 0 && enc.hitsText.trim() === '0', `${workload}: encrypted side shows the secret found 0 times`, enc.hitsText);
        check(enc.entropy > 7.9, `${workload}: encrypted side shows entropy > 7.9 bits/byte`, enc.entropyText);
        check(plain.entropy < 7, `${workload}: plaintext side shows the lower entropy of text`, plain.entropyText);
        check(enc.files.every((f) => f[3] === '0'), `${workload}: every encrypted temp file shows 0 hits`, enc.files.map((f) => f[3]).join(' '));
        const scanBad = await page.$$eval('#side-enc .scan.bad', (x) => x.length);
        check(scanBad === 0 && enc.scans.length === 2, `${workload}: encrypted side's OPFS scans find no secret outside the main database`, enc.scans.join(' / '));
        check(enc.scans.every((x) => /main database[^·]*secret found [1-9]/.test(x)), `${workload}: OPFS scans do find the secret in the main database (the scan works)`);
  
        if (i === 0) {
          // The screenshot is a picture of the page, not a blank.
          fs.mkdirSync(OUT, { recursive: true });
          const shot = path.join(OUT, `test-demo-${engine.name}.png`);
          fs.writeFileSync(shot, await page.screenshot());
          const png = decodePng(fs.readFileSync(shot));
          const c = colourStats(png);
          check(png.width >= 1000 && png.height >= 800, 'screenshot: full page size', `${png.width}x${png.height}`);
          check(c.distinct > 1000 && c.topShare < 0.9, 'screenshot: not blank (many distinct colours, no single colour dominating)',
            `${c.distinct} colours, most common ${(100 * c.topShare).toFixed(1)}% of pixels; ${path.relative(process.cwd(), shot)}`);
          const maps = await page.$$eval('canvas.bytemap', (cs) => cs.map((cv) => {
            const d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
            let yellow = 0;
            for (let k = 0; k < d.length; k += 4) if (d[k] === 255 && d[k + 1] === 212 && d[k + 2] === 0) yellow++;
            return { side: cv.closest('.side').dataset.side, yellow, px: d.length / 4 };
          }));
          check(maps.some((m) => m.side === 'plain' && m.yellow > 0) && maps.filter((m) => m.side === 'enc').every((m) => m.yellow === 0),
            'byte maps: the secret is painted on the plaintext side only', JSON.stringify(maps));

          // The budget control: at the package's default (64 MiB) these temp
          // files never reach OPFS; at 0 all of them do, encrypted.
          const big = await runWorkload(page, server.url, { workload, rows: ROWS, secret, budget: 64 * 1024 * 1024 });
          if (check(big.state === 'done', `${workload}: runs at the default budget`, big.status)) {
            const e = big.enc;
            check(/64 MiB \(the default\)/.test(big.budgetText) && /budget 64 MiB/.test(e.memoryLabel), `${workload}: the page shows the budget it ran with`, `${big.budgetText}; ${e.memoryLabel}`);
            check(e.nFiles === 0 && e.opened === big.plain.opened && e.memory > 0 && e.spilled === 0 && e.enciphered === 0 && e.hits === 0 && /never reached OPFS/.test(e.verdict),
              `${workload}: default budget: every temp file stays in memory, nothing reaches OPFS, and the page says so`,
              `${e.filesText} in OPFS of ${e.openedText}, memory ${e.memoryText}, spilled ${e.spilledText}: ${e.verdict}`);
          }
          const none = await runWorkload(page, server.url, { workload, rows: ROWS, secret, budget: 0 });
          if (check(none.state === 'done', `${workload}: runs at budget 0`, none.status)) {
            const e = none.enc;
            check(/no memory tier/.test(none.budgetText) && e.memory === 0 && e.nFiles === none.plain.nFiles && e.spilled > 0 && e.hits === 0 && e.entropy > 7.9,
              `${workload}: budget 0: no memory tier, every temp file in OPFS, encrypted`,
              `${none.budgetText}: memory ${e.memoryText}, ${e.filesText} of ${none.plain.filesText} files, spilled ${e.spilledText}, hits ${e.hitsText}`);
          }
        }
      }
  
      // Where OPFS is missing the page says so instead of failing.
      if (!engine.caps.initScript) {
        skip('no OPFS (simulated by an init script)', `${engine.name}: no init scripts over its driver${opfs ? '' : ' (the real page above has no OPFS)'}`);
      } else {
      const bare = await browser.newPage();
      await bare.addInitScript(() => { delete StorageManager.prototype.getDirectory; });
      await bare.goto(server.url);
      await bare.waitForSelector('body:not([data-state="loading"])', { timeout: 30000 });
      const bareState = await bare.getAttribute('body', 'data-state');
      const banner = (await bare.textContent('#no-opfs')).trim();
      check(bareState === 'no-opfs' && await bare.isVisible('#no-opfs') && /Origin Private File System/.test(banner) && await bare.isDisabled('#run'),
        'no OPFS: a clear message, and the Run button stays off', `${bareState}: ${banner.slice(0, 90)}…`);
      await bare.close();
    }

    if (engine.caps.events) check(browser.problems.length === 0, 'no page errors or console errors', browser.problems.join(' | '));
    else skip('no page errors or console errors', `${engine.name}: its driver reports no console or page errors`);
  } catch (e) {
    check(false, 'test run', e.stack);
  } finally {
    const profile = browser?.profile;
    if (browser) { console.log(`  ${browser.version}`); await browser.close(); }
    if (profile) check(!fs.existsSync(profile), 'cleanup: browser closed and its profile removed');
  }
}

section('node');
testAnalysis();
const server = await serveDemo();
try {
  const { run: engines, absent } = await selectEngines();
  for (const a of absent) { section(a.name); skip('every demo test', `not installed: ${a.why}`); }
  for (const engine of engines) { section(engine.name); await testEngine(engine, server); }
} catch (e) {
  check(false, 'test run', e.stack);
} finally {
  await server.close();
}
finish();
