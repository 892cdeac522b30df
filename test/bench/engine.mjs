// The engines alone, with no storage below them: the official
// @sqlite.org/sqlite-wasm against one or more builds of ours (dist/ or a
// directory like it), each on one in-memory database (":memory:") with
// temp_store=MEMORY, on the SQL of test/bench/workloads.txt.  What it
// measures is the compiled SQLite (compiler, wasm features, flags), not
// tempcrypt or OPFS: the build-settings table of docs/performance.md.
//
//   node test/bench/engine.mjs [--chromium] [--rows=200000] [--reps=5]
//       [--dist=dist,build/x/dist] [--only=order_by_limit,distinct]
//
// In Node (the default) each engine runs in this process and times are CPU
// time; with --chromium each runs in a Worker of one headless Chromium page
// (test/bench/browser-worker.js) and times are the clock's.  Per workload:
// one warm-up run of every engine, then --reps rounds of all engines in
// turn; medians, and each build of ours over the official one.  Run it
// with node --cpu-prof --cpu-prof-dir=DIR to profile (one engine: --dist=X
// --no-official).  Timings are printed, never asserted; a result that
// differs between engines exits 1.
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const arg = (name, dflt) => (process.argv.find((a) => a.startsWith(`--${name}=`)) || '').slice(name.length + 3) || dflt;
const ROWS = Number(arg('rows', '200000'));
const REPS = Math.max(1, Number(arg('reps', '5')));
const DISTS = arg('dist', 'dist').split(',').filter(Boolean);
const ONLY = arg('only', '').split(',').filter(Boolean);
const OFFICIAL = !process.argv.includes('--no-official');
const CHROMIUM = process.argv.includes('--chromium');

const WORK = fs.readFileSync(path.join(ROOT, 'test/bench/workloads.txt'), 'utf8').split('\n')
  .filter((l) => l && !l.startsWith('#') && l.includes('\t')).map((l) => l.split('\t'));
const sqlOf = (name) => WORK.find(([n]) => n === name)[1].replaceAll('$ROWS', String(ROWS));
const workloads = WORK.map(([n]) => n)
  .filter((n) => n !== 'setup' && !n.startsWith('big.') && (!ONLY.length || ONLY.includes(n)));

const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];

// { name, run(sql) -> { ms, result }, close() } over ":memory:".
async function official() {
  const { default: init } = await import('@sqlite.org/sqlite-wasm');
  const sqlite3 = await init({ print: () => {}, printErr: () => {} });
  const db = new sqlite3.oo1.DB(':memory:');
  return local(`official ${sqlite3.version.libVersion}`, (s) => db.exec(s), (s) => db.selectValue(s));
}
async function ours(dist) {
  const { open } = await import(pathToFileURL(path.resolve(ROOT, dist, 'worker.js')).href);
  const db = await open(':memory:', { storage: 'memory' });
  const v = db.query('SELECT sqlite_version() AS v')[0].v;
  return local(`ours ${v} ${dist}`, (s) => db.exec(s), (s) => Object.values(db.query(s)[0] ?? {})[0]);
}
const local = (name, exec, value) => ({
  name,
  run: async (sql) => run({ exec, value }, sql),
  setup: async (sql) => { exec('PRAGMA temp_store=MEMORY'); exec(sql); },
  close: async () => {},
});

// The same in Chromium: one Worker per engine.
async function chromiumEngines() {
  const { serve } = await import('../browser/server.mjs');
  const chromium = await import('../browser/chromium.mjs');
  const srv = await serve(ROOT);
  const profile = chromium.freshProfile(path.join(ROOT, 'build/bench'), 'engine');
  const ctx = await chromium.launch(profile);
  const page = await ctx.newPage();
  await page.goto(`${srv.base}/test/bench/index.html`);
  const call = (w, op, args) => page.evaluate(([w, op, args]) => window.bench.call(w, op, args), [w, op, args]);
  const engine = async (kind, dist) => {
    const w = await page.evaluate(() => window.bench.start());
    const o = await call(w, 'open', { kind, name: ':memory:', memory: true, dist: dist && `/${dist}`, options: { storage: 'memory' } });
    return {
      name: `${kind} ${o.version ?? ''} ${dist ?? ''} (Chromium ${ctx.browser()?.version() ?? ''})`,
      run: (sql) => call(w, 'run', { pragmas: '', sql, encrypt: true }),
      setup: (sql) => call(w, 'setup', { pragmas: 'PRAGMA temp_store=MEMORY', sql }),
      close: () => call(w, 'close'),
    };
  };
  const list = [...(OFFICIAL ? [await engine('official')] : []), ...await Promise.all(DISTS.map((d) => engine('ours', d)))];
  list.done = async () => { await ctx.close(); await srv.close(); fs.rmSync(profile, { recursive: true, force: true }); };
  return list;
}

// Times are the process's CPU time (user + system): on a shared machine
// far steadier than the clock, and there is no I/O to wait for.
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
function run(e, sql) {
  const parts = sql.split(';').map((s) => s.trim()).filter(Boolean);
  const last = parts.pop();
  const t = cpuMs();
  if (parts.length) e.exec(parts.join('; '));
  const v = e.value(last);
  return { ms: cpuMs() - t, result: String(v ?? 'NULL') };
}

const engines = CHROMIUM ? await chromiumEngines()
  : [...(OFFICIAL ? [await official()] : []), ...await Promise.all(DISTS.map(ours))];
for (const e of engines) await e.setup(sqlOf('setup'));
console.log(`${CHROMIUM ? 'Chromium, clock' : `Node ${process.version}, CPU`} ms, ${os.cpus()[0]?.model}, load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}; `
  + `${ROWS} rows in memory, temp_store=MEMORY, median of ${REPS}`);
engines.forEach((e, i) => console.log(`  [${i}] ${e.name}`));
let failed = false;
for (const w of workloads) {
  const sql = sqlOf(w);
  const ms = engines.map(() => []);
  const res = [];
  for (let r = -1; r < REPS; r++) {
    for (const [i, e] of engines.entries()) {
      const x = await e.run(sql);
      if (r >= 0) ms[i].push(x.ms);
      res[i] = x.result;
    }
  }
  if (new Set(res).size !== 1) { console.log(`  ${w}: results differ: ${res.join(' / ')}`); failed = true; }
  const med = ms.map(median);
  const base = OFFICIAL ? med[0] : null;
  console.log(`  ${w.padEnd(16)} ${med.map((m, i) => `[${i}] ${m.toFixed(1)} ms${base && i ? ` ${(m / base).toFixed(2)}x` : ''}`).join('   ')}`);
}
console.log(`load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
for (const e of engines) await e.close();
await engines.done?.();
process.exit(failed ? 1 : 0);
