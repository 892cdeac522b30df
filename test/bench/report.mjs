// Collects the JSON lines of `make bench` (DIR/native.jsonl, wasi.jsonl,
// wasi-wasmtime.jsonl, browser.jsonl, big.jsonl) into DIR/results.json (with date, machine and
// versions) and prints DIR/results.md: one table per browser engine and
// row count, the native and WASI tables, the big run per engine (the
// tables of docs/performance.md).
//   node test/bench/report.mjs build/bench
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { wasmSizes } from './size.mjs';

const dir = process.argv[2] || 'build/bench';
const read = (f) => {
  const p = path.join(dir, f);
  return fs.existsSync(p) ? fs.readFileSync(p, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
};
const recs = [
  ...read('native.jsonl').map((r) => ({ target: 'native', ...r })),
  ...read('wasi.jsonl').map((r) => ({ target: 'wasi', ...r })),
  ...read('wasi-wasmtime.jsonl').map((r) => ({ target: 'wasi-wasmtime', ...r })),
  ...read('browser.jsonl'),
];
const big = read('big.jsonl');
const tryRun = (cmd, args) => { try { return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\n')[0].trim(); } catch { return null; } };
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const pkgVersion = (name) => { try { return JSON.parse(fs.readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')).version; } catch { return null; } };
const sqliteVersion = (() => { try { return /#define SQLITE_VERSION\s+"([^"]+)"/.exec(fs.readFileSync(path.join(root, 'build/sqlite/sqlite3.h'), 'utf8'))[1]; } catch { return null; } })();
const browserOf = (t) => recs.find((r) => r.target === t)?.browser ?? big.find((r) => r.target === t)?.browser ?? null;

const results = {
  date: new Date().toISOString(),
  machine: { cpu: os.cpus()[0]?.model, cores: os.cpus().length, os: `${os.type()} ${os.release()}`, loadavg: os.loadavg() },
  versions: { sqlite: sqliteVersion, official: pkgVersion('@sqlite.org/sqlite-wasm'),
    chromium: browserOf('chromium'), firefox: browserOf('firefox'), node: process.version,
    emcc: tryRun('emcc', ['--version']), clang: tryRun('clang-19', ['--version']),
    wasmtime: tryRun(path.join(root, 'build/tools/bin/wasmtime'), ['--version']) },
  sizes: wasmSizes(),
  records: recs,
  big,
};
fs.writeFileSync(path.join(dir, 'results.json'), JSON.stringify(results, null, 1) + '\n');

const find = (q) => recs.find((r) => Object.entries(q).every(([k, v]) => r[k] === v));
const ratio = (a, b) => (a && b ? (a.ms / b.ms).toFixed(2) : '-');
const MiB = (n) => (n == null ? '-' : (n / 1048576).toFixed(1));
const out = [];
out.push(`${results.date.slice(0, 10)}, ${results.machine.cpu} (${results.machine.cores} cores, load ${results.machine.loadavg[0].toFixed(1)}), `
  + `SQLite ${sqliteVersion} (ours), @sqlite.org/sqlite-wasm ${results.versions.official}, Chromium ${results.versions.chromium ?? '-'}, `
  + `Firefox ${results.versions.firefox ?? '-'}, Node ${process.version}.`, '');
const keys = [...new Set(recs.map((r) => `${r.rows}|${r.settings}`))];
const workloads = [...new Set(recs.map((r) => r.workload))];
// The memory tier: records carry tier 'default' or 0; "enc" is the
// default budget.
const hasTier0 = recs.some((r) => r.mode === 'encrypted' && r.tier === 0);
const enc = (q) => find({ ...q, mode: 'encrypted', ...(hasTier0 ? { tier: 'default' } : {}) });
const enc0 = (q) => (hasTier0 ? find({ ...q, mode: 'encrypted', tier: 0 }) : null);
const heap = (r) => (r?.heap == null ? '-' : MiB(r.heap));
// One table per browser engine and row count: each build's defaults
// (the targets), then equal settings.
const ENGINES = { chromium: 'Chromium', firefox: 'Firefox', webkit: 'WebKit' };
const browserTargets = Object.keys(ENGINES).filter((t) => recs.some((r) => r.target === t));
for (const t of browserTargets) {
  const version = recs.find((r) => r.target === t)?.browser;
  for (const rows of [...new Set(recs.filter((r) => r.target === t).map((r) => r.rows))]) {
    const q = (settings, w) => ({ target: t, rows, settings, workload: w });
    const has = (settings) => recs.some((r) => r.target === t && r.rows === rows && r.settings === settings);
    const cols = [];
    if (has('default')) {
      cols.push(['defaults: enc / official', (w) => ratio(enc({ ...q('default', w), engine: 'ours' }), find({ ...q('default', w), engine: 'official' }))]);
      if (hasTier0) cols.push(['defaults: enc tier 0 / official', (w) => ratio(enc0({ ...q('default', w), engine: 'ours' }), find({ ...q('default', w), engine: 'official' }))]);
      cols.push(['defaults: `temp_store=MEMORY` / official', (w) => ratio(find({ ...q('default', w), mode: 'memory' }), find({ ...q('default', w), engine: 'official' }))]);
      cols.push(['defaults: heap MiB official / enc / MEMORY', (w) => `${heap(find({ ...q('default', w), engine: 'official' }))} / ${heap(enc({ ...q('default', w), engine: 'ours' }))} / ${heap(find({ ...q('default', w), mode: 'memory' }))}`]);
      cols.push(['defaults: enc temp MiB below, OPFS calls, s in them', (w) => {
        const e = enc({ ...q('default', w), engine: 'ours' });
        return e ? `${MiB(e.tempBytesBelow)}, ${e.tempCalls ?? '-'}, ${e.tempIoMs == null ? '-' : (e.tempIoMs / 1000).toFixed(2)}` : '-';
      }]);
    }
    if (has('equal')) {
      cols.push(['equal: enc / official', (w) => ratio(enc({ ...q('equal', w), engine: 'ours' }), find({ ...q('equal', w), engine: 'official' }))]);
      if (hasTier0) cols.push(['equal: enc tier 0 / official', (w) => ratio(enc0({ ...q('equal', w), engine: 'ours' }), find({ ...q('equal', w), engine: 'official' }))]);
      cols.push(['equal: plain / official', (w) => ratio(find({ ...q('equal', w), engine: 'ours', mode: 'plain' }), find({ ...q('equal', w), engine: 'official' }))]);
    }
    const official = (settings, w) => find({ ...q(settings, w), engine: 'official' });
    const reps = recs.find((r) => r.target === t && r.rows === rows)?.reps;
    out.push(`${ENGINES[t]} ${version ?? ''}, ${rows} rows, over OPFS, medians of ${reps}: ours / official (official ms)`, '',
      `| workload | official ms (defaults) |${cols.map(([h]) => ` ${h} |`).join('')}`, `|${'---|'.repeat(cols.length + 2)}`);
    for (const w of workloads.filter((w) => recs.some((r) => r.target === t && r.rows === rows && r.workload === w))) {
      const o = official('default', w) ?? official('equal', w);
      out.push(`| ${w} | ${o ? o.ms.toFixed(0) : '-'} |${cols.map(([, f]) => ` ${f(w)} |`).join('')}`);
    }
    out.push('');
  }
}
// WASI under node:wasi and wasmtime: milliseconds (medians) and ratios.
if (recs.some((r) => r.target === 'wasi-wasmtime')) {
  out.push('', `| rows | settings | workload | node:wasi enc ms | wasmtime enc ms | wasmtime / node:wasi (enc) | node:wasi enc / plain | wasmtime enc / plain | node:wasi memory / plain | wasmtime memory / plain |`,
    '|---|---|---|---|---|---|---|---|---|---|');
  for (const k of keys) {
    const [rows, settings] = [Number(k.split('|')[0]), k.split('|')[1]];
    for (const w of workloads) {
      const get = (target, mode) => find({ rows, settings, workload: w, target, mode });
      const [ne, we] = [get('wasi', 'encrypted'), get('wasi-wasmtime', 'encrypted')];
      if (!ne && !we) continue;
      const ms = (r) => (r ? r.ms.toFixed(1) : '-');
      out.push(`| ${rows} | ${settings} | ${w} | ${ms(ne)} | ${ms(we)} | ${ratio(we, ne)} | ${ratio(ne, get('wasi', 'plain'))} | ${ratio(we, get('wasi-wasmtime', 'plain'))} | ${ratio(get('wasi', 'memory'), get('wasi', 'plain'))} | ${ratio(get('wasi-wasmtime', 'memory'), get('wasi-wasmtime', 'plain'))} |`);
    }
  }
}
// Native and WASI: what the cipher costs, encrypted / plaintext temp files
// (medians of alternating runs in one process), with the memory tier at its
// default budget and without it (tier 0).
const cTargets = [['native', 'native'], ['wasi', 'node:wasi'], ['wasi-wasmtime', 'wasmtime']]
  .filter(([t]) => recs.some((r) => r.target === t));
if (cTargets.length) {
  out.push('', `| rows | settings | workload |${cTargets.map(([, n]) => ` ${n} plain ms | ${n} enc / plain |${hasTier0 ? ` ${n} tier 0 / plain |` : ''}`).join('')}`,
    `|${'---|'.repeat(3 + cTargets.length * (hasTier0 ? 3 : 2))}`);
  for (const k of keys) {
    const [rows, settings] = [Number(k.split('|')[0]), k.split('|')[1]];
    for (const w of workloads) {
      const q = { rows, settings, workload: w };
      if (!cTargets.some(([t]) => find({ ...q, target: t }))) continue;
      out.push(`| ${rows} | ${settings} | ${w} |${cTargets.map(([t]) => {
        const pl = find({ ...q, target: t, mode: 'plain' });
        return ` ${pl ? pl.ms.toFixed(1) : '-'} | ${ratio(enc({ ...q, target: t }), pl)} |${hasTier0 ? ` ${ratio(enc0({ ...q, target: t }), pl)} |` : ''}`;
      }).join('')}`);
    }
  }
}
for (const t of Object.keys(ENGINES).filter((t) => big.some((b) => (b.target ?? 'chromium') === t))) {
  out.push('', `| larger than memory (${ENGINES[t]}, OPFS) | MiB | workload | seconds | x official | heap peak MiB | memory tier peak MiB | temp MiB below | OPFS calls (temp) | s in them | MiB enciphered | result |`,
    '|---|---|---|---|---|---|---|---|---|---|---|---|');
  const mine = big.filter((b) => (b.target ?? 'chromium') === t);
  for (const b of mine) {
    const off = mine.find((o) => o.engine === 'official' && o.workload === b.workload && o.mib === b.mib);
    out.push(`| ${b.engine} ${b.mode}${b.tier != null ? ` tier ${b.tier}` : ''}${b.heapCap ? ' (heap cap)' : ''} | ${b.mib} | ${b.workload} | ${b.error ? 'failed' : (b.ms / 1000).toFixed(2)} | ${b.error ? '-' : ratio(b, off)} | ${MiB(b.heap)} | ${MiB(b.tierPeak)}`
      + ` | ${MiB(b.tempBytesBelow)} | ${b.tempCalls ?? '-'} | ${b.tempIoMs == null ? '-' : (b.tempIoMs / 1000).toFixed(2)} | ${MiB(b.enciphered)} | ${b.error ?? b.result} |`);
  }
}
const { ours, official } = results.sizes;
out.push('', '| wasm | bytes | gzip -9 |', '|---|---|---|',
  `| ours (${ours.file}) | ${ours.bytes} | ${ours.gzip} |`,
  `| official @sqlite.org/sqlite-wasm ${results.versions.official} | ${official.bytes} | ${official.gzip} |`);
fs.writeFileSync(path.join(dir, 'results.md'), out.join('\n') + '\n');
console.log(out.join('\n'));
console.log(`\nwritten: ${path.join(dir, 'results.json')}, ${path.join(dir, 'results.md')}`);
