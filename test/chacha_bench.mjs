// ChaCha20 in wasm against libsodium.js, in one Node run: 4 KiB blocks,
// in place, turns of about 0.1 s of CPU time taken in rotation, medians
// printed.
// Speed is measured, never asserted.
//
//   node test/chacha_bench.mjs MODULE.wasm...
//
// Each MODULE is src/chacha20.c built with the test hooks (mk/wasi.mk,
// bench-chacha-wasm): clang's wasm32-wasi build and emscripten's.  Every
// cipher path it has is timed.  libsodium.js (libsodium-wrappers-sumo) is
// timed twice: through its JS API, which copies the data in and out, and
// through its raw wasm export on its own heap, in place, as ours.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import sodium from 'libsodium-wrappers-sumo';

const BLOCK = 4096;
const TURNS = 9;
const TURN_S = 0.1;

// MB/s of one turn of fn(), called in batches of 64 until TURN_S of CPU
// time passed (on a shared machine less noisy than the clock).
function turn(fn) {
  let n = 0;
  const t0 = process.cpuUsage().user;
  let t;
  do {
    for (let i = 0; i < 64; i++) fn();
    n += 64;
    t = (process.cpuUsage().user - t0) / 1e6;
  } while (t < TURN_S);
  return (n * BLOCK) / t / 1e6;
}

const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const cstr = (mem, p) => {
  const b = new Uint8Array(mem.buffer, p);
  return new TextDecoder().decode(b.subarray(0, b.indexOf(0)));
};

const key = new Uint8Array(32).map((_, i) => i * 7 + 1);
const nonce = new Uint8Array(12).map((_, i) => i + 2);
const data = new Uint8Array(BLOCK).map((_, i) => i * 31);

await sodium.ready;
const L = sodium.libsodium;
const sp = { c: L._malloc(BLOCK), n: L._malloc(12), k: L._malloc(32) };
L.HEAPU8.set(nonce, sp.n);
L.HEAPU8.set(key, sp.k);
L.HEAPU8.set(data, sp.c);
const reference = sodium.crypto_stream_chacha20_ietf_xor_ic(data, nonce, 0, key);

// Contenders: name -> fn, each checked against libsodium's output first.
const contenders = [];
const skipped = [];
for (const file of process.argv.slice(2)) {
  const { instance } = await WebAssembly.instantiate(readFileSync(file), {});
  const x = instance.exports;
  if (x._initialize) x._initialize();
  const mem = x.memory;
  const buf = x.malloc(BLOCK), k = x.malloc(32), n = x.malloc(12);
  new Uint8Array(mem.buffer).set(key, k);
  new Uint8Array(mem.buffer).set(nonce, n);
  for (let p = 0; ; p++) {
    const pName = x.tempcrypt_chacha20_path_name(p);
    if (!pName) break;
    const name = `${basename(file, '.wasm')} ${cstr(mem, pName)}`;
    if (x.tempcrypt_chacha20_use_path(p) !== 0) {
      skipped.push(`${name}: ${cstr(mem, x.tempcrypt_chacha20_path_missing(p))}`);
      continue;
    }
    const heap = () => new Uint8Array(mem.buffer);
    heap().set(data, buf);
    x.tempcrypt_chacha20_xor(buf, buf, BLOCK, k, n, 0);
    if (!heap().subarray(buf, buf + BLOCK).every((v, i) => v === reference[i])) {
      throw new Error(`${name}: output differs from libsodium`);
    }
    contenders.push({ name, fn: () => { x.tempcrypt_chacha20_use_path(p); },
      run: () => x.tempcrypt_chacha20_xor(buf, buf, BLOCK, k, n, 0) });
  }
}
contenders.push({ name: 'libsodium.js API (copies)', fn: () => {},
  run: () => sodium.crypto_stream_chacha20_ietf_xor_ic(data, nonce, 0, key) });
contenders.push({ name: 'libsodium.js raw export', fn: () => {},
  run: () => L._crypto_stream_chacha20_ietf_xor_ic(sp.c, sp.c, BLOCK, 0, sp.n, 0, sp.k) });

const times = contenders.map(() => []);
for (let r = 0; r < TURNS; r++) {
  contenders.forEach((c, i) => { c.fn(); times[i].push(turn(c.run)); });
}
const med = times.map(median);
const api = med[contenders.length - 2], raw = med[contenders.length - 1];
console.log(`ChaCha20 in wasm on 4 KiB blocks, Node ${process.version}, libsodium.js ${sodium.SODIUM_VERSION_STRING}, CPU time, median of ${TURNS} interleaved turns:`);
for (const s of skipped) console.log(`  skipped ${s}`);
contenders.forEach((c, i) => {
  const ratio = i < contenders.length - 2
    ? `  ${(med[i] / api).toFixed(2)}x libsodium.js API, ${(med[i] / raw).toFixed(2)}x its raw export` : '';
  console.log(`  ${c.name.padEnd(30)} ${med[i].toFixed(0).padStart(6)} MB/s${ratio}`);
});
