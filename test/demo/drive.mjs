// Drives the demo page in a headless browser (any engine of
// test/browser/engines.mjs, a fresh profile per run), for `make demo-check`
// and the test.
//   node test/demo/drive.mjs [--workload=order-by] [--rows=5000] [--out=build/demo] [--browser=chromium]
// prints the side-by-side table and saves build/demo/demo-check.png.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveDemo, ROOT } from './serve.mjs';
import { decodePng, toPalettePng } from './png.mjs';
import { adapter, freshProfile, launchEngine } from '../browser/engines.mjs';

export { ROOT };
export const OUT = path.join(ROOT, 'build', 'demo');

// A browser (an engine adapter of engines.mjs) with a fresh profile under
// build/demo/; close() also removes it.  problems: console errors and page
// errors, where the engine reports them (engine.caps.events).
export async function launchBrowser(engine, tag = 'demo', { viewport = { width: 1360, height: 900 } } = {}) {
  const profile = freshProfile(OUT, `${engine.name}-${tag}`);
  let ctx;
  try {
    ctx = await launchEngine(engine, profile, { viewport });
  } catch (e) {
    fs.rmSync(profile, { recursive: true, force: true });
    throw e;
  }
  const problems = [];
  return {
    ctx, profile, problems, version: ctx.version,
    async newPage() {
      const page = await ctx.newPage();
      page.on('console', (m) => { if (m.type() === 'error') problems.push(`console.error: ${m.text()}`); });
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      return page;
    },
    async close() {
      try { await ctx.close(); } finally { fs.rmSync(profile, { recursive: true, force: true }); }
    },
  };
}

const num = (s) => (s == null ? NaN : Number(String(s).replace(/[^0-9.\-]/g, '')));

// What one side of the page displays, as text and as numbers.
export function readSide(page, side) {
  return page.$eval(`#side-${side}`, (s) => {
    const m = (name) => s.querySelector(`[data-metric="${name}"] .value`)?.textContent ?? null;
    return {
      hitsText: m('hits'), entropyText: m('entropy'), filesText: m('files'), writtenText: m('written'),
      readText: m('read'), timeText: m('time'), openedText: m('opened'), memoryText: m('memory'),
      spilledText: m('spilled'), encipheredText: m('enciphered'),
      memoryLabel: s.querySelector('[data-metric="memory"] .label')?.textContent ?? '',
      verdict: s.querySelector('.verdict')?.textContent ?? '',
      files: [...s.querySelectorAll('table.files tbody tr.file')].map((tr) => [...tr.cells].slice(0, 5).map((td) => td.innerText.replace(/\s+/g, ' ').trim())),
      scans: [...s.querySelectorAll('.scan')].map((x) => x.innerText.replace(/\s+/g, ' ').trim()),
    };
  }).then((r) => ({ ...r, hits: num(r.hitsText), entropy: num(r.entropyText), nFiles: num(r.filesText), opened: num(r.openedText),
    memory: bytesOf(r.memoryText), spilled: bytesOf(r.spilledText), enciphered: bytesOf(r.encipheredText) }));
}

// A byte count as the page shows it ("1.50 MiB", "12.0 KiB", "512 B"); NaN for "—".
export function bytesOf(s) {
  const m = /^([\d,.]+) (B|KiB|MiB)$/.exec(String(s ?? '').trim());
  return m ? Number(m[1].replace(/,/g, '')) * { B: 1, KiB: 1024, MiB: 1024 * 1024 }[m[2]] : NaN;
}

// Load the page, pick a workload, size and memory budget (bytes, one of
// the page's steps), press "Run both", wait for the result and read both
// sides.  Returns { state, status, plain, enc, budgetText }.
export async function runWorkload(page, url, { workload, rows, secret, budget, timeout = 180000 } = {}) {
  if (page.url() !== url) {
    await page.goto(url);
    await page.waitForSelector('body:not([data-state="loading"])', { timeout: 60000 });
  }
  const ready = await page.getAttribute('body', 'data-state');
  if (ready !== 'ready' && ready !== 'done') {
    return { state: ready, status: await page.textContent('#status'), banner: await page.textContent('#no-opfs') };
  }
  if (workload) await page.selectOption('#workload', workload);
  if (rows) await page.$eval('#size', (e, v) => { e.value = String(v); e.dispatchEvent(new Event('input')); }, rows);
  if (secret) await page.fill('#secret', secret);
  if (budget !== undefined) {
    const ok = await page.$eval('#budget', (e, b) => {
      const i = e.dataset.budgets.split(',').map(Number).indexOf(b);
      if (i < 0) return false;
      e.value = String(i);
      e.dispatchEvent(new Event('input'));
      return true;
    }, budget);
    if (!ok) throw new Error(`the page offers no memory budget of ${budget} bytes`);
  }
  const budgetText = (await page.textContent('#budget-out')).trim();
  const usedSecret = await page.inputValue('#secret');
  // Forget the previous run's "done" before pressing the button.
  await page.$eval('body', (b) => { b.dataset.state = 'clicked'; });
  await page.click('#run');
  await page.waitForSelector('body[data-state="done"], body[data-state="error"]', { timeout });
  const state = await page.getAttribute('body', 'data-state');
  const status = (await page.textContent('#status')).trim();
  if (state !== 'done') return { state, status };
  return { state, status, secret: usedSecret, budgetText, workload: await page.inputValue('#workload'), plain: await readSide(page, 'plain'), enc: await readSide(page, 'enc') };
}

// The side-by-side table for the terminal.
export function formatTable(r) {
  const rows = [
    ['', 'plaintext (tempcrypt off)', 'encrypted (tempcrypt on)'],
    ['secret found in temp-file bytes', r.plain.hitsText, r.enc.hitsText],
    ['entropy, bits/byte', r.plain.entropyText, r.enc.entropyText],
    ['temp files SQLite opened', r.plain.openedText, r.enc.openedText],
    ['temp files in OPFS', r.plain.filesText, r.enc.filesText],
    ['written to temp files in OPFS', r.plain.writtenText, r.enc.writtenText],
    ['read back', r.plain.readText, r.enc.readText],
    [`in memory at most (budget ${r.budgetText})`, r.plain.memoryText, r.enc.memoryText],
    ['spilled to OPFS past the budget', r.plain.spilledText, r.enc.spilledText],
    ['through the cipher', r.plain.encipheredText, r.enc.encipheredText],
    ['run time', r.plain.timeText, r.enc.timeText],
  ];
  const n = Math.max(r.plain.files.length, r.enc.files.length);
  for (let i = 0; i < n; i++) {
    const f = (x) => (x ? `${x[0].replace(/ \/tmp\/.*/, '')}: ${x[1]}, secret ${x[3]}×, H ${x[4]}` : '');
    rows.push([`temp file ${i + 1}`, f(r.plain.files[i]), f(r.enc.files[i])]);
  }
  const w = [0, 1, 2].map((c) => Math.max(...rows.map((x) => String(x[c] ?? '').length)));
  const line = (x) => x.map((v, c) => String(v ?? '').padEnd(w[c])).join('  |  ');
  const out = [line(rows[0]), w.map((x) => '-'.repeat(x)).join('--+--'), ...rows.slice(1).map(line)];
  out.push('', `plaintext side: ${r.plain.verdict}`, `encrypted side: ${r.enc.verdict}`);
  for (const [side, s] of [['plaintext', r.plain], ['encrypted', r.enc]]) for (const x of s.scans) out.push(`${side}: ${x}`);
  return out.join('\n');
}

// make demo-check
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (k, d) => (process.argv.find((a) => a.startsWith(`--${k}=`)) || `--${k}=${d}`).slice(k.length + 3);
  const workload = arg('workload', 'temp-table');
  const rows = Number(arg('rows', '5000'));
  const out = path.resolve(arg('out', OUT));
  const t0 = Date.now();
  const server = await serveDemo();
  let browser, code = 1;
  try {
    const width = Number(arg('width', '1360'));
    browser = await launchBrowser(await adapter(arg('browser', 'chromium')), 'check', { viewport: { width, height: 900 } });
    const page = await browser.newPage();
    console.log(`demo-check: ${server.url}  workload ${workload}, ${rows} rows, ${browser.version}`);
    const r = await runWorkload(page, server.url, { workload, rows });
    fs.mkdirSync(out, { recursive: true });
    const shot = path.join(out, 'demo-check.png');
    const png = await page.screenshot();
    fs.writeFileSync(shot, png);
    // --docs=FILE: a smaller picture for the README (the page down to the
    // byte-map legend).
    const docs = arg('docs', '');
    if (docs && r.state === 'done') {
      const box = await page.$eval('.legend', (e) => { const b = e.getBoundingClientRect(); return b.bottom + window.scrollY + 8; });
      const full = decodePng(png);
      const height = Math.min(full.height, Math.ceil(box * full.width / width));
      const top = { ...full, height, pixels: full.pixels.subarray(0, height * full.width * full.bpp) };
      fs.writeFileSync(path.resolve(docs), toPalettePng(top));
      console.log(`docs screenshot: ${docs} (${fs.statSync(path.resolve(docs)).size} bytes)`);
    }
    if (r.state !== 'done') {
      console.log(`demo-check: the page ended in state "${r.state}": ${r.status} ${r.banner || ''}`);
    } else {
      console.log(`\n${formatTable(r)}\n`);
      code = 0;
    }
    if (browser.problems.length) console.log(`browser problems:\n  ${browser.problems.join('\n  ')}`);
    console.log(`screenshot: ${path.relative(process.cwd(), shot)}  (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  } finally {
    if (browser) await browser.close();
    await server.close();
  }
  process.exit(code);
}
