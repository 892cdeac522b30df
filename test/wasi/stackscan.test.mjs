// Dead-stack scan in wasm (test/c/stackscan.c): after a ChaCha20 call no
// keystream, round state or key word is left in linear memory below the
// stack pointer, on every cipher path of the build.  Built by clang for
// WASI (every runtime) and by emscripten as for the browser (Node); each
// control must find what a deliberately leaky function leaves.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { RUNTIMES, runners, wasiBuild, requireBuilt } from './lib.mjs';

const wasi = join(wasiBuild, 'ctest', 'stackscan.wasm');
const emcc = join(wasiBuild, 'emcc', 'stackscan.cjs');
const runs = {
  ...Object.fromEntries(RUNTIMES.map((rt) =>
    [`clang wasm32-wasi, ${rt}`, (args) => { requireBuilt(wasi); return runners[rt](wasi, args); }])),
  'emscripten, Node': (args) => {
    requireBuilt(emcc);
    const r = spawnSync(process.execPath, [emcc, ...args], { encoding: 'utf8' });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  },
};

for (const [what, run] of Object.entries(runs)) {
  test(`no keystream left in the dead stack (${what})`, (t) => {
    const r = run([]);
    for (const l of r.stdout.split('\n')) if (/skipped|passed/.test(l)) t.diagnostic(l);
    assert.equal(r.code, 0, r.stdout.slice(-3000) + r.stderr.slice(-3000));
    assert.match(r.stdout, /stackscan: [1-9]\d* passed, 0 failed/);
    assert.match(r.stdout, /stackscan: vec128 +n=4096 +0 secret words/);
  });

  test(`the dead-stack scan finds a leak (control, ${what})`, () => {
    const r = run(['-control']);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /control: [1-9]\d* keystream words left in the stack/);
  });
}
