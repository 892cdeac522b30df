// ChaCha20 in wasm against libsodium.js, in one Node run (the measurement:
// test/bench/chacha-core.mjs; the same in browsers:
// test/bench/chacha-browser.mjs).  Speed is measured, never asserted.
//
//   node test/bench/chacha-node.mjs [--turns=N] [--turn-ms=MS] MODULE.wasm...
//
// Each MODULE is src/chacha20.c built with the test hooks (mk/bench.mk,
// bench-chacha-wasm): clang's wasm32-wasi build and emscripten's.  Times
// are CPU time (on a shared machine less noisy than the clock).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import sodium from 'libsodium-wrappers-sumo';
import { chachaBench, chachaLines } from './chacha-core.mjs';

const opt = (name, dflt) => Number((process.argv.find((a) => a.startsWith(`--${name}=`)) || '').split('=')[1] || dflt);
const modules = process.argv.slice(2).filter((a) => !a.startsWith('--'))
  .map((f) => ({ name: basename(f, '.wasm'), bytes: readFileSync(f) }));
const r = await chachaBench({ modules, sodium, clock: () => process.cpuUsage().user / 1e6,
  turns: opt('turns', 9), turnS: opt('turn-ms', 100) / 1000 });
console.log(chachaLines(r, `Node ${process.version}, CPU time`).join('\n'));
