// Self time per function of a V8 CPU profile (node --cpu-prof), the top N,
// with wasm functions named when the build kept their names (a link with
// --profiling-funcs).  How docs/performance.md's profiles were read:
//   node --cpu-prof --cpu-prof-dir=build/prof test/bench/engine-node.mjs \
//       --dist=build/prof/dist --no-official --only=distinct
//   node test/bench/profile-summary.mjs build/prof/*.cpuprofile [N]
import fs from 'node:fs';

const files = process.argv.slice(2).filter((a) => a.endsWith('.cpuprofile'));
const top = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 30);
const self = new Map();
let total = 0;
for (const f of files) {
  const p = JSON.parse(fs.readFileSync(f, 'utf8'));
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  // Sample i lasted timeDeltas[i + 1] microseconds (the last one: unknown).
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i + 1] ?? 0;
    const n = byId.get(id);
    const fn = n.callFrame.functionName || `(${n.callFrame.url ? 'anonymous' : 'program'})`;
    const where = n.callFrame.url ? n.callFrame.url.replace(/^.*\//, '') : '';
    const key = `${fn}${where && !where.endsWith('.wasm') && !/wasm-function/.test(where) ? ` [${where}]` : ''}`;
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  });
}
const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, top);
console.log(`${files.length} profile(s), ${(total / 1e6).toFixed(2)} s sampled; self time:`);
for (const [k, us] of rows) console.log(`${(100 * us / total).toFixed(1).padStart(6)} %  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`);
