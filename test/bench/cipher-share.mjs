// What the cipher costs in the 1 GiB runs' two workloads, without OPFS or
// a browser's load: ours in Node over storage 'memory' with the memory
// tier off, each run encrypted and then plaintext (setEnabled), the
// process's CPU time per run; the medians, the bytes enciphered, and the
// extra time per enciphered byte (docs/performance.md, "Where the time
// goes now").  Rows as the big run's (about 1.1 KB).  Printed, never
// asserted; a result that differs between the modes exits 1.
//   node test/bench/cipher-share.mjs [--rows=200000] [--reps=5] [--dist=dist]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const arg = (name, dflt) => (process.argv.find((a) => a.startsWith(`--${name}=`)) || '').slice(name.length + 3) || dflt;
const ROWS = Number(arg('rows', '200000'));
const REPS = Math.max(1, Number(arg('reps', '5')));
const DIST = arg('dist', 'dist');

const WORK = fs.readFileSync(path.join(ROOT, 'test/bench/workloads.txt'), 'utf8').split('\n')
  .filter((l) => l && !l.startsWith('#') && l.includes('\t')).map((l) => l.split('\t'));
const sqlOf = (name) => WORK.find(([n]) => n === name)[1].replaceAll('$ROWS', String(ROWS));
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

const { open } = await import(pathToFileURL(path.resolve(ROOT, DIST, 'worker.js')).href);
const db = await open('cipher-share.db', { storage: 'memory', tempBudget: 0 });
db.exec('PRAGMA journal_mode=OFF');
db.exec(sqlOf('big.setup'));
let failed = false;
console.log(`cipher share: ${ROWS} rows of about 1.1 KB, storage 'memory', tier off, CPU ms, median of ${REPS}`);
for (const wl of ['big.sort', 'big.vacuum']) {
  const parts = sqlOf(wl).split(';').map((s) => s.trim()).filter(Boolean);
  const last = parts.pop();
  const ms = { enc: [], plain: [] };
  const results = new Set();
  let enciphered = 0;
  for (let r = -1; r < REPS; r++) {          // r = -1: warm-up, not kept
    for (const mode of ['enc', 'plain']) {
      db.tempcrypt.setEnabled(mode === 'enc');
      db.tempcrypt.stats(true);
      const t = cpuMs();
      if (parts.length) db.exec(parts.join('; '));
      results.add(String(Object.values(db.query(last)[0])[0]));
      const dt = cpuMs() - t;
      if (r >= 0) ms[mode].push(dt);
      if (mode === 'enc') enciphered = Number(db.tempcrypt.stats(false).nEnciphered);
    }
  }
  if (results.size !== 1) { console.log(`  ${wl}: results differ: ${[...results].join(' / ')}`); failed = true; }
  const [e, p] = [median(ms.enc), median(ms.plain)];
  console.log(`  ${wl.padEnd(11)} enc ${e.toFixed(0)} ms, plain ${p.toFixed(0)} ms, enc / plain ${(e / p).toFixed(2)};`
    + ` ${(enciphered / 1048576).toFixed(0)} MiB enciphered: ${((e - p) / (enciphered / 1048576)).toFixed(2)} ms per MiB,`
    + ` ${(enciphered / 1e6 / ((e - p) / 1000)).toFixed(0)} MB/s`);
}
db.close();
process.exit(failed ? 1 : 0);
