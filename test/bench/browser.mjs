// Browser benchmark of `make bench`: headless Chromium and Firefox over
// OPFS, ours (dist/, encrypted and plaintext temp files) against the
// official @sqlite.org/sqlite-wasm with its opfs-sahpool VFS, in the same
// browser run, on the SQL of test/bench/workloads.txt.  Appends JSON lines
// to --out, each with target: the engine's name.
//   node test/bench/browser.mjs --browsers=chromium,firefox --rows="200000 1000000" --reps=5 --out=F
//       --browsers: the engines, one after the other (test/browser/
//       engines.mjs; default: BROWSERS, else chromium,firefox);
//       each row count twice: settings "equal" (4096-byte pages, 2 MB
//       cache on main and temp, temp_store=FILE, on both engines) and
//       "default" (each build's defaults); per workload the variants
//       alternate and the median of --reps runs is kept.  --settings=default,
//       --variants=enc,memory (labels; the official build always runs) and
//       --workloads=distinct,vacuum keep only those.
//   node test/bench/browser.mjs --big=1024 [--cap=build/bench/capped/sqlite3.wasm] --out=F
//       the larger-than-memory run: a sort and a VACUUM of a --big MiB
//       database, ours encrypted (wasm heap capped by --cap's build; the
//       memory tier at its default) on a 10 MiB and a --big MiB table,
//       with --big-tier0 also without the tier, with --big-plain also
//       with plaintext temp files, then the official build's defaults.
// Timings are printed and recorded, never asserted; a wrong or differing
// result exits 1.
import { serve } from '../browser/server.mjs';
import { selectEngines, launchEngine, freshProfile } from '../browser/engines.mjs';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const arg = (name, dflt) => (process.argv.find((a) => a.startsWith(`--${name}=`)) || '').slice(name.length + 3) || dflt;
const OUT = arg('out', path.join(ROOT, 'build/bench/browser.jsonl'));
const REPS = Math.max(1, Number(arg('reps', '5')));
const ROWS = arg('rows', '200000').split(/[\s,]+/).filter(Boolean).map(Number);
const BIG = Number(arg('big', '0'));
const CAP = arg('cap', 'build/bench/capped/sqlite3.wasm');
// Another build of ours to measure (a directory under the repository, as dist/).
const DIST = arg('dist', 'dist');
const BROWSERS = arg('browsers', process.env.BROWSERS || 'chromium,firefox');
// Firefox's storage limit is set at launch: a site gets a fifth of it.
const QUOTA_MIB = 5 * Math.max(4096, 4 * BIG);

// The one workload list (see its header).
const WORK = fs.readFileSync(path.join(ROOT, 'test/bench/workloads.txt'), 'utf8').split('\n')
  .filter((l) => l && !l.startsWith('#') && l.includes('\t')).map((l) => l.split('\t'));
const sqlOf = (name, rows) => WORK.find(([n]) => n === name)[1].replaceAll('$ROWS', String(rows));
const ONLY = arg('workloads', '').split(',').filter(Boolean);
const workloads = WORK.map(([n]) => n).filter((n) => n !== 'setup' && !n.startsWith('big.') && (!ONLY.length || ONLY.includes(n)));

const SETTINGS = {
  equal: { setup: 'PRAGMA page_size=4096; PRAGMA journal_mode=OFF',
    run: 'PRAGMA temp_store=FILE; PRAGMA main.cache_size=-2000; PRAGMA temp.cache_size=-2000; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF' },
  default: { setup: 'PRAGMA journal_mode=OFF', run: '' },
};
// The memory tier's budget is an open() option: TIER_OPTION(n) is the
// option for a budget of n bytes.  The tier-0 variant runs in a Worker of
// its own, and plaintext runs there, without the tier.
const TIER_OPTION = (n) => ({ tempBudget: n });
const TIER = TIER_OPTION !== null;
const VARIANTS = [
  { engine: 'official', label: 'official', mode: 'plain', encrypt: false },
  { engine: 'ours', label: 'enc', mode: 'encrypted', tier: 'default', encrypt: true },
  ...(TIER ? [{ engine: 'ours', worker: 'oursTier0', label: 'enc tier 0', mode: 'encrypted', tier: 0, encrypt: true }] : []),
  { engine: 'ours', worker: TIER ? 'oursTier0' : 'ours', label: 'plain', mode: 'plain', tier: TIER ? 0 : 'default', encrypt: false },
];
// With each build's defaults the official build keeps temp data in memory
// (SQLITE_TEMP_STORE=2) and ours writes it, encrypted, to OPFS.  Ours with
// temp_store=MEMORY separates the two costs: memory against OPFS, and the
// builds themselves (what a user gets who has the heap to spare).
// Each Worker's heap only grows, so the heap recorded is the peak of its
// variants up to that workload: every setting of the tier and the memory
// variant have a Worker of their own.
const MEMORY = { engine: 'ours', worker: 'oursMemory', label: 'memory', mode: 'memory', tier: 'default', encrypt: true,
  pragmas: 'PRAGMA temp_store=MEMORY' };
const workerOf = (v) => v.worker ?? v.engine;
const KEEP = arg('variants', '').split(',').filter(Boolean);
const variantsOf = (settings) => (settings === 'default' ? [...VARIANTS, MEMORY] : VARIANTS)
  .filter((v) => v.engine === 'official' || !KEEP.length || KEEP.includes(v.label));
const KEEP_SETTINGS = arg('settings', '').split(',').filter(Boolean);
const openOptionsOf = (worker) => (TIER && worker === 'oursTier0' ? TIER_OPTION(0) : {});

const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)]; };
const MiB = (n) => (n == null ? '-' : (n / 1048576).toFixed(1));

async function main() {
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  const srv = await serve(ROOT);
  let failed = false;
  try {
    for (const engine of (await selectEngines(BROWSERS)).run) {
      if (await benchIn(engine, srv)) failed = true;
    }
  } finally {
    await srv.close();
  }
  process.exit(failed ? 1 : 0);
}

// Every run of this invocation in one engine; true if a result was wrong.
async function benchIn(engine, srv) {
  const profile = freshProfile(path.join(ROOT, 'build/bench'), `bench-${engine.name}`);
  const b = await launchEngine(engine, profile, { quotaMiB: QUOTA_MIB });
  const record = (rec) => fs.appendFileSync(OUT, JSON.stringify({ target: engine.name, ...rec }) + '\n');
  const Name = engine.name[0].toUpperCase() + engine.name.slice(1);
  let failed = false;
  try {
    const page = await b.newPage();
    page.on('console', (m) => { if (m.type() === 'error') console.log('  [console.error]', m.text()); });
    await page.goto(`${srv.base}/test/bench/index.html`);
    const browserVersion = b.version;
    const start = () => page.evaluate(() => window.bench.start());
    const call = (w, op, args) => page.evaluate(([w, op, args]) => window.bench.call(w, op, args), [w, op, args]);
    const stop = (w) => page.evaluate((w) => window.bench.stop(w), w);
    if (BIG) failed = await big(start, call, stop, browserVersion, record, Name);
    for (const rows of BIG ? [] : ROWS) {
      for (const [settings, prag] of Object.entries(SETTINGS).filter(([k]) => !KEEP_SETTINGS.length || KEEP_SETTINGS.includes(k))) {
        const variants = variantsOf(settings);
        const workers = [...new Set(variants.map(workerOf))];
        const w = {};
        for (const k of workers) w[k] = await start();
        const name = `bench-${rows}-${settings}.db`;
        const version = (await call(w.official, 'open', { kind: 'official', name })).version;
        for (const k of workers.filter((k) => k !== 'official')) {
          await call(w[k], 'open', { kind: 'ours', name: k === 'ours' ? name : `${k}-${name}`, dist: `/${DIST}`, options: openOptionsOf(k) });
        }
        for (const k of workers) await call(w[k], 'setup', { pragmas: prag.setup, sql: sqlOf('setup', rows) });
        console.log(`${Name} ${browserVersion}, official ${version}: ${rows} rows, settings ${settings}, median of ${REPS}`);
        console.log(`  per variant: ms (x official), temp MiB below, heap MiB; variants: ${variants.map((v) => v.label).join(', ')}`);
        for (const wl of workloads) {
          const sql = sqlOf(wl, rows);
          const runs = variants.map(() => []);
          const last = [];
          for (let r = -1; r < REPS; r++) {          // r = -1: warm-up, not kept
            for (let v = 0; v < variants.length; v++) {
              const pragmas = [prag.run, variants[v].pragmas].filter(Boolean).join('; ');
              const x = await call(w[workerOf(variants[v])], 'run', { pragmas, sql, encrypt: variants[v].encrypt });
              if (r >= 0) runs[v].push(x.ms);
              last[v] = x;
            }
          }
          if (new Set(last.map((x) => x.result)).size !== 1) {
            console.log(`  ${wl}: results differ: ${last.map((x) => x.result).join(' / ')}`);
            failed = true;
          }
          const mem = variants.findIndex((v) => v.mode === 'memory');
          if (mem >= 0 && last[mem].tempBytesBelow !== 0) {
            console.log(`  ${wl}: temp_store=MEMORY still moved ${last[mem].tempBytesBelow} bytes through temp files`);
            failed = true;
          }
          const med = runs.map(median);
          variants.forEach((v, i) => record({ engine: v.engine, mode: v.mode, tier: v.tier ?? null, settings, rows, workload: wl, ms: med[i],
            reps: REPS, result: last[i].result, tempBytes: last[i].tempBytes, tempBytesBelow: last[i].tempBytesBelow,
            tempCalls: last[i].tempCalls, tempIoMs: last[i].tempIoMs, enciphered: last[i].enciphered, heap: last[i].heap,
            browser: browserVersion, officialVersion: version }));
          console.log(`  ${wl.padEnd(16)}${variants.map((v, i) => ` | ${v.label} ${med[i].toFixed(0)}${i ? ` (${(med[i] / med[0]).toFixed(2)})` : ''}`
            + ` ${MiB(last[i].tempBytesBelow)} ${MiB(last[i].heap)}`).join('')}`);
        }
        for (const k of workers) { await call(w[k], 'close'); await stop(w[k]); }
      }
    }
  } finally {
    await b.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  return failed;
}

// The larger-than-memory run.  Each case gets a fresh
// worker, so the heap it reports is that case's peak.
async function big(start, call, stop, browserVersion, record, Name) {
  const rowsOf = (mib) => Math.ceil(mib * 1048576 / 1100);
  const cases = [
    { engine: 'ours', mode: 'encrypted', tier: 'default', mib: 10, wasm: `/${CAP}` },
    { engine: 'ours', mode: 'encrypted', tier: 'default', mib: BIG, wasm: `/${CAP}` },
    // --big-tier0: also ours without the memory tier.
    ...(process.argv.includes('--big-tier0') ? [{ engine: 'ours', mode: 'encrypted', tier: 0, mib: BIG, wasm: `/${CAP}` }] : []),
    // --big-plain: also ours with plaintext temp files (what the cipher costs).
    ...(process.argv.includes('--big-plain') ? [{ engine: 'ours', mode: 'plain', tier: 0, mib: BIG, wasm: `/${CAP}` }] : []),
    { engine: 'official', mode: 'memory (its default)', mib: BIG },
  ].filter((c) => !process.argv.includes('--big-ours-only') || c.engine === 'ours');
  let failed = false;
  for (const c of cases) {
    const w = await start();
    const rows = rowsOf(c.mib);
    const label = `${c.mode}${c.tier !== undefined ? ` tier ${c.tier}` : ''}`;
    const name = `big-${c.engine}-${c.mode.split(' ')[0]}-${c.tier ?? ''}-${c.mib}.db`;
    try {
      const o = await call(w, 'open', { kind: c.engine, name, wasm: c.wasm, dist: `/${DIST}`, options: c.tier === 0 ? TIER_OPTION(0) : {} });
      let t = performance.now();
      const s = await call(w, 'setup', { pragmas: 'PRAGMA journal_mode=OFF', sql: sqlOf('big.setup', rows) });
      console.log(`${Name} big ${c.engine} ${label} ${c.mib} MiB (${rows} rows): setup ${((performance.now() - t) / 1000).toFixed(1)} s, heap ${MiB(s.heap)} MiB`);
      for (const wl of ['big.sort', 'big.vacuum']) {
        let x;
        try {
          x = await call(w, 'run', { pragmas: '', sql: sqlOf(wl, rows), encrypt: c.mode === 'encrypted' });
        } catch (e) {
          x = { error: e.message };
        }
        record({ engine: c.engine, mode: c.mode, tier: c.tier ?? null, settings: 'default', rows, mib: c.mib, workload: wl, heapCap: c.wasm ? CAP : null,
          browser: browserVersion, officialVersion: o.version, ...x });
        console.log(`  ${wl}: ${x.error ? `FAILED ${x.error}` : `${(x.ms / 1000).toFixed(1)} s, result ${x.result}, temp ${MiB(x.tempBytesBelow)} MiB below`
          + ` in ${x.tempCalls} OPFS calls taking ${(x.tempIoMs / 1000).toFixed(1)} s, ${MiB(x.enciphered)} MiB enciphered,`
          + ` memory tier peak ${MiB(x.tierPeak)} MiB, heap peak ${MiB(x.heap)} MiB`}`);
        if (x.error && c.engine === 'ours') failed = true;
      }
    } finally {
      await call(w, 'close').catch(() => {});
      await stop(w);
    }
  }
  return failed;
}

main().catch((e) => { console.error(e); process.exit(1); });
