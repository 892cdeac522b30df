// ChaCha20 in wasm against libsodium.js on 4 KiB blocks, in place: the
// measurement itself, the same in Node (test/bench/chacha-node.mjs) and in
// every browser engine (test/bench/chacha-browser.mjs).  Turns of about
// turnS seconds of each contender, taken in rotation; medians.  Speed is
// measured, never asserted; an output that differs from libsodium's
// throws.
//
//   chachaBench({ modules: [{ name, bytes }], sodium, clock, turns, turnS,
//                 allowInvalid })
//     modules  src/chacha20.c built with the test hooks (mk/bench.mk,
//              bench-chacha-wasm); every cipher path each has is timed
//     sodium   libsodium-wrappers-sumo, ready: timed through its JS API
//              (which copies the data in and out) and through its raw wasm
//              export on its own heap, in place, as ours
//     clock    seconds, monotonic (Node: CPU time; browsers: wall clock)
//     allowInvalid  a module the engine cannot compile is skipped with the
//              reason (browsers: an engine without wasm SIMD, say);
//              otherwise (Node, which runs first) it throws
//   Throws too when no path of any module ran: a run that timed only
//   libsodium would check nothing.
//   -> { rows: [{ name, mbps, vsApi, vsRaw }], skipped: [string], turns }
//   chachaLines(result, header) -> the lines to print

const BLOCK = 4096;

const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const cstr = (mem, p) => {
  const b = new Uint8Array(mem.buffer, p);
  return new TextDecoder().decode(b.subarray(0, b.indexOf(0)));
};

// MB/s of one turn of run(), called in batches of 64 until turnS passed.
function turn(run, clock, turnS) {
  let n = 0;
  const t0 = clock();
  let t;
  do {
    for (let i = 0; i < 64; i++) run();
    n += 64;
    t = clock() - t0;
  } while (t < turnS);
  return (n * BLOCK) / t / 1e6;
}

export async function chachaBench({ modules, sodium, clock, turns = 9, turnS = 0.1, allowInvalid = false }) {
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

  // Contenders, each checked against libsodium's output first.
  const contenders = [];
  const skipped = [];
  for (const { name: file, bytes } of modules) {
    if (!WebAssembly.validate(bytes)) {
      if (!allowInvalid) throw new Error(`${file}: not a module this engine can compile`);
      skipped.push(`${file}: this engine cannot compile it (WebAssembly.validate is false)`);
      continue;
    }
    const { instance } = await WebAssembly.instantiate(bytes, {});
    const x = instance.exports;
    if (x._initialize) x._initialize();
    const mem = x.memory;
    const buf = x.malloc(BLOCK), k = x.malloc(32), n = x.malloc(12);
    new Uint8Array(mem.buffer).set(key, k);
    new Uint8Array(mem.buffer).set(nonce, n);
    for (let p = 0; ; p++) {
      const pName = x.tempcrypt_chacha20_path_name(p);
      if (!pName) break;
      const name = `${file} ${cstr(mem, pName)}`;
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
      contenders.push({ name, select: () => { x.tempcrypt_chacha20_use_path(p); },
        run: () => x.tempcrypt_chacha20_xor(buf, buf, BLOCK, k, n, 0) });
    }
  }
  if (!contenders.length) throw new Error('no cipher path of any module ran');
  contenders.push({ name: 'libsodium.js API (copies)', select: () => {},
    run: () => sodium.crypto_stream_chacha20_ietf_xor_ic(data, nonce, 0, key) });
  contenders.push({ name: 'libsodium.js raw export', select: () => {},
    run: () => L._crypto_stream_chacha20_ietf_xor_ic(sp.c, sp.c, BLOCK, 0, sp.n, 0, sp.k) });

  const times = contenders.map(() => []);
  for (let r = 0; r < turns; r++) {
    contenders.forEach((c, i) => { c.select(); times[i].push(turn(c.run, clock, turnS)); });
  }
  const med = times.map(median);
  const api = med[contenders.length - 2], raw = med[contenders.length - 1];
  return {
    turns, skipped, sodiumVersion: sodium.SODIUM_VERSION_STRING,
    rows: contenders.map((c, i) => ({ name: c.name, mbps: med[i],
      vsApi: i < contenders.length - 2 ? med[i] / api : null,
      vsRaw: i < contenders.length - 2 ? med[i] / raw : null })),
  };
}

export function chachaLines(r, where) {
  const out = [`ChaCha20 in wasm on 4 KiB blocks, ${where}, libsodium.js ${r.sodiumVersion}, median of ${r.turns} interleaved turns:`];
  for (const s of r.skipped) out.push(`  skipped ${s}`);
  for (const x of r.rows) {
    const ratio = x.vsApi == null ? '' : `  ${x.vsApi.toFixed(2)}x libsodium.js API, ${x.vsRaw.toFixed(2)}x its raw export`;
    out.push(`  ${x.name.padEnd(30)} ${x.mbps.toFixed(0).padStart(6)} MB/s${ratio}`);
  }
  return out;
}
