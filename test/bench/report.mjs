// Collects the JSON lines of `make bench` (DIR/native.jsonl, wasi.jsonl,
// wasi-wasmtime.jsonl, browser.jsonl, big.jsonl) into DIR/results.json (with date, machine and
// versions) and prints DIR/results.md: the ratio tables of the README's
// Performance section.
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
const browser = recs.find((r) => r.browser)?.browser ?? big.find((r) => r.browser)?.browser ?? null;

const results = {
  date: new Date().toISOString(),
  machine: { cpu: os.cpus()[0]?.model, cores: os.cpus().length, os: `${os.type()} ${os.release()}`, loadavg: os.loadavg() },
  versions: { sqlite: sqliteVersion, official: pkgVersion('@sqlite.org/sqlite-wasm'), chromium: browser, node: process.version,
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
  + `SQLite ${sqliteVersion} (ours), @sqlite.org/sqlite-wasm ${results.versions.official}, Chromium ${browser ?? '-'}, Node ${process.version}.`, '');
const keys = [...new Set(recs.map((r) => `${r.rows}|${r.settings}`))];
const workloads = [...new Set(recs.map((r) => r.workload))];
// The memory tier: records carry tier 'default' or 0; "enc" is the
// default budget.
const hasTier0 = recs.some((r) => r.mode === 'encrypted' && r.tier === 0);
const enc = (q) => find({ ...q, mode: 'encrypted', ...(hasTier0 ? { tier: 'default' } : {}) });
const enc0 = (q) => (hasTier0 ? find({ ...q, mode: 'encrypted', tier: 0 }) : null);
const heap = (r) => (r?.heap == null ? '-' : MiB(r.heap));
out.push(`| rows | settings | workload | Chromium ours enc / official |${hasTier0 ? ' enc tier 0 / official |' : ''} ours plain / official | enc / plain |`
  + ' ours temp_store=MEMORY / official | heap MiB: official / ours enc / MEMORY | temp MiB below: official / ours enc |'
  + ` WASI enc / plain |${hasTier0 ? ' WASI enc tier 0 / plain |' : ''} native enc / plain | native heap MiB: plain / enc |`);
out.push(`|${'---|'.repeat(hasTier0 ? 14 : 12)}`);
for (const k of keys) {
  const [rows, settings] = [Number(k.split('|')[0]), k.split('|')[1]];
  for (const w of workloads) {
    const q = { rows, settings, workload: w };
    const c = { ...q, target: 'chromium' };
    const off = find({ ...c, engine: 'official' });
    const pl = find({ ...c, engine: 'ours', mode: 'plain' });
    const mem = find({ ...c, engine: 'ours', mode: 'memory' });
    const e = enc({ ...c, engine: 'ours' });
    const r = (t, f = enc) => ratio(f({ ...q, target: t }), find({ ...q, target: t, mode: 'plain' }));
    const nat = { ...q, target: 'native' };
    out.push(`| ${rows} | ${settings} | ${w} | ${ratio(e, off)} |${hasTier0 ? ` ${ratio(enc0({ ...c, engine: 'ours' }), off)} |` : ''}`
      + ` ${ratio(pl, off)} | ${ratio(e, pl)} | ${ratio(mem, off)} | ${heap(off)} / ${heap(e)} / ${heap(mem)} |`
      + ` ${MiB(off?.tempBytesBelow)} / ${MiB(e?.tempBytesBelow)} | ${r('wasi')} |${hasTier0 ? ` ${r('wasi', enc0)} |` : ''}`
      + ` ${r('native')} | ${heap(find({ ...nat, mode: 'plain' }))} / ${heap(enc(nat))} |`);
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
if (big.length) {
  out.push('', '| larger than memory (Chromium, OPFS) | MiB | workload | seconds | heap peak MiB | memory tier peak MiB | temp MiB below | OPFS calls (temp) | s in them | MiB enciphered | result |',
    '|---|---|---|---|---|---|---|---|---|---|---|');
  for (const b of big) {
    out.push(`| ${b.engine} ${b.mode}${b.tier != null ? ` tier ${b.tier}` : ''}${b.heapCap ? ' (heap cap)' : ''} | ${b.mib} | ${b.workload} | ${b.error ? 'failed' : (b.ms / 1000).toFixed(2)} | ${MiB(b.heap)} | ${MiB(b.tierPeak)}`
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
