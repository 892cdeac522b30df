// Wasm sizes side by side: this package's dist/sqlite3.wasm against the
// official @sqlite.org/sqlite-wasm's (pinned devDependency), raw and
// gzip -9.  report.mjs records them with the benchmark; `make test-size`
// runs this file, which exits 1 when ours is not smaller on both counts
// (the same extension set, FTS5 and R*Tree, must cost less).
//   node test/bench/size.mjs [dist-dir]
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OFFICIAL = 'node_modules/@sqlite.org/sqlite-wasm/dist/sqlite3.wasm';

function sizeOf(file) {
  const bytes = fs.readFileSync(path.resolve(ROOT, file));
  return { file, bytes: bytes.length, gzip: zlib.gzipSync(bytes, { level: 9 }).length };
}

export function wasmSizes(dist = 'dist') {
  return { ours: sizeOf(path.join(dist, 'sqlite3.wasm')), official: sizeOf(OFFICIAL) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { ours, official } = wasmSizes(process.argv[2]);
  const row = (n, s) => `${n.padEnd(9)} ${String(s.bytes).padStart(9)} B  ${String(s.gzip).padStart(8)} B gzip -9  ${s.file}`;
  console.log(row('ours', ours));
  console.log(row('official', official));
  const bad = ['bytes', 'gzip'].filter((k) => ours[k] >= official[k]);
  if (bad.length) {
    console.log(`FAIL: ours is not smaller than the official wasm (${bad.join(', ')})`);
    process.exit(1);
  }
  console.log(`ok: ours / official = ${(ours.bytes / official.bytes).toFixed(3)} raw, ${(ours.gzip / official.gzip).toFixed(3)} gzip`);
}
