// The project's C tests compiled for wasm32-wasi, run under a runtime
// with a preopened scratch directory for their databases and temp files.
// One test file per runtime (ctests-<runtime>.test.mjs) calls
// defineCTests(runtime), so that `make test-wasi` (node --test, two files
// at a time) runs the slowest runtime, jco, beside the others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { RUNTIMES, runners, wasiBuild, nativeBuild, testWasm, scratch, requireBuilt } from './lib.mjs';

const ctest = (name) => join(wasiBuild, 'ctest', `${name}.wasm`);
const STRESS_OPS = process.env.TEMPCRYPT_WASI_STRESS_OPS || '300000';
const STRESS_SEED = process.env.TEMPCRYPT_WASI_STRESS_SEED || String(Math.floor(Date.now() / 1000));

// Runs a test program in a fresh scratch directory; returns the result.
function runC(module, args, runtime) {
  requireBuilt(module);
  const s = scratch('ctest');
  try {
    return runners[runtime](module, args, {
      cwd: s.dir, dirs: ['.'], env: { TMPDIR: '.', PROOF_DIR: '.' }, timeout: 900000,
    });
  } finally { s.cleanup(); }
}

// The program must exit 0 and close with "N passed, 0 failed".
function expectPass(t, r, what) {
  const summary = (r.stdout + r.stderr).split('\n').filter((l) => /\d+ passed, \d+ failed/.test(l)).at(-1);
  t.diagnostic(`${what}: ${summary ?? '(no summary line)'}`);
  assert.equal(r.code, 0, `${what} exited ${r.code}\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`);
  assert.ok(summary, `${what}: no "N passed, N failed" line`);
  const m = /(\d+) passed, (\d+) failed/.exec(summary);
  assert.ok(Number(m[1]) > 0, `${what}: nothing passed`);
  assert.equal(Number(m[2]), 0, `${what}: failures`);
}

// How hard each runtime is pushed: the first (wasmtime, the runtime the
// build is made for) runs the stress, fault and recovery tests at full
// length, the others shorter, and jco shortest (preview2 in JavaScript
// behind an adapter: 5 to 50 times slower than node:wasi on these
// file-heavy tests; on an idle machine, 2026-12-02, its difftest at 1,500
// rows took 205 s, each conformance run about 105 s, recovery at every
// 512th position 107 s).  Under jco: the differential test on 300 rows,
// faults and recovery by a wider stride, the conformance transcript over
// one lower VFS (unix-none is the same C code as unix-dotfile without
// the lock), no tier conformance (the same C code as under the others).
const STRESS_OPS_EXTRA = process.env.TEMPCRYPT_WASI_STRESS_OPS_EXTRA || '60000';
const FAULT_STRIDE_EXTRA = process.env.TEMPCRYPT_WASI_FAULT_STRIDE_EXTRA || '7';
const ALL_VFS = ['unix-dotfile', 'unix-none'];
function depth(rt) {
  if (rt === RUNTIMES[0]) return { ops: STRESS_OPS, fault: '2', tierFault: FAULT_STRIDE_EXTRA, recovery: '16', diffRows: [], vfs: ALL_VFS, tierConformance: true };
  if (rt === 'jco') return { ops: STRESS_OPS_EXTRA, fault: '97', tierFault: '97', recovery: '2048', diffRows: ['300'], vfs: ['unix-dotfile'], tierConformance: false };
  return { ops: STRESS_OPS_EXTRA, fault: FAULT_STRIDE_EXTRA, tierFault: FAULT_STRIDE_EXTRA, recovery: '16', diffRows: [], vfs: ALL_VFS, tierConformance: true };
}
const nth = (k) => `${k}${k === '2' ? 'nd' : 'th'}`;

// The C tests under runtime rt (nothing if rt is not one of RUNTIMES).
export function defineCTests(rt) {
  if (!RUNTIMES.includes(rt)) return;
  const d = depth(rt);
  test(`ChaCha20: RFC 8439 vectors and properties in wasm (${rt})`, (t) => {
    expectPass(t, runC(ctest('chacha20_test'), ['20000'], rt), 'chacha20_test');
  });

  test(`ChaCha20: wasm output (vector and scalar paths) is bit-identical to native (${rt})`, (t) => {
    const native = join(nativeBuild, 'wasi-twin', 'chacha_twin');
    requireBuilt(native);
    const n = spawnSync(native, ['4000'], { encoding: 'utf8' });
    assert.equal(n.status, 0, n.stderr);
    assert.match(n.stdout, /^bytes=\d+ digest=[0-9a-f]{16}$/m);
    t.diagnostic(`native: ${n.stdout.trim().split('\n').at(-1)}`);
    // The wasm build's own ChaCha20 (simd128 vector path when built with
    // -msimd128) and the scalar path, each against native.
    for (const name of ['chacha_twin', 'chacha_twin_scalar']) {
      const w = runC(testWasm(name), ['4000'], rt);
      assert.equal(w.code, 0, w.stderr);
      assert.equal(w.stdout, n.stdout, `${name}.wasm differs from native`);
    }
  });

  test(`stress test (model-based, checking VFS, faults) in wasm (${rt})`, (t) => {
    t.diagnostic(`stress -n ${d.ops} -s ${STRESS_SEED} -m all`);
    expectPass(t, runC(ctest('stress'), ['-n', d.ops, '-s', STRESS_SEED, '-m', 'all'], rt), 'stress');
  });

  test(`SQL leak check in wasm (${rt})`, (t) => {
    expectPass(t, runC(ctest('leakcheck'), ['-q'], rt), 'leakcheck');
  });

  test(`differential test in wasm (${rt})`, (t) => {
    expectPass(t, runC(ctest('difftest'), d.diffRows, rt), 'difftest');
  });

  test(`fault injection (every ${nth(d.fault)} position) in wasm (${rt})`, (t) => {
    expectPass(t, runC(ctest('faulttest'), ['-stride', d.fault], rt), 'faulttest');
  });

  // The memory tier with a budget so small that the temp files spill part-way.
  test(`fault injection with the memory tier (every ${nth(d.tierFault)} position) in wasm (${rt})`, (t) => {
    expectPass(t, runC(ctest('faulttest'), ['-budget', '12288', '-stride', d.tierFault], rt), 'faulttest -budget');
  });

  test(`key hygiene in wasm (${rt})`, (t) => {
    expectPass(t, runC(ctest('keyhygiene'), [], rt), 'keyhygiene');
  });

  test(`the TEMP database's free pages give their memory back, no data lost, in wasm (${rt})`, (t) => {
    expectPass(t, runC(ctest('tempfree'), ['-programs', '4'], rt), 'tempfree');
  });

  test(`the file list's needle search: exact across its chunks, each byte read once, only the asking connection's files, in wasm (${rt})`, (t) => {
    expectPass(t, runC(ctest('filelist'), [], rt), 'filelist');
  });

  test(`recovery after a fault clears (every ${nth(d.recovery)} position) in wasm (${rt})`, (t) => {
    expectPass(t, runC(ctest('recovery'), ['-stride', d.recovery], rt), 'recovery');
  });

  // WASI's lower VFSes have no shared memory: WAL only with the exclusive
  // lock, and a WAL database opens only that way (test/c/conformance.c).
  // Each also with the memory tier holding every temp file (-budget).
  for (const vfs of d.vfs) {
    for (const budget of d.tierConformance ? [[], ['-budget', '67108864']] : [[]]) {
      test(`conformance over ${vfs}${budget.length ? ' with the memory tier' : ''} in wasm (${rt}): same transcript with and without tempcrypt`, (t) => {
        const r = runC(ctest('conformance'), ['-dir', '.', ...budget, vfs], rt);
        t.diagnostic((r.stdout.split('\n').find((l) => l.startsWith('conformance over')) ?? '').trim());
        expectPass(t, r, `conformance ${vfs}`);
      });
    }
  }

  test(`no temp file key left in wasm linear memory after close (${rt})`, (t) => {
    const r = runC(testWasm('memscan'), [], rt);
    t.diagnostic(r.stdout.trim().split('\n').slice(1).join('; '));
    expectPass(t, r, 'memscan');
    assert.match(r.stdout, /files open: [1-9]\d* keys found/);
    assert.match(r.stdout, /all files closed: 0 of [1-9]\d* keys found whole, 0 in part/);
  });

  // The scan's control, once, under the first runtime.
  if (rt === RUNTIMES[0]) {
    test('the linear-memory scan finds a key left in freed memory (control)', () => {
      const r = runC(testWasm('memscan'), ['-control'], rt);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stderr, /left in (part in )?linear memory after close/);
    });
  }
}
