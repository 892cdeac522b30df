// The project's C tests compiled for wasm32-wasi, run under node:wasi with
// a preopened scratch directory for their databases and temp files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { runners, wasiBuild, nativeBuild, testWasm, scratch, requireBuilt, haveWasmtime, fileProblem, skipUnder } from './lib.mjs';

const ctest = (name) => join(wasiBuild, 'ctest', `${name}.wasm`);
const STRESS_OPS = process.env.TEMPCRYPT_WASI_STRESS_OPS || '300000';
const STRESS_SEED = process.env.TEMPCRYPT_WASI_STRESS_SEED || String(Math.floor(Date.now() / 1000));

// Runs a test program in a fresh scratch directory; returns the result.
function runC(module, args, runtime = 'node') {
  requireBuilt(module);
  const s = scratch('ctest');
  try {
    return runners[runtime](module, args, {
      cwd: s.dir, dirs: ['.'], env: { TMPDIR: '.', PROOF_DIR: '.' },
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

// The C tests under node:wasi, under @wasmer/wasi (Wasmer's own WASI, not
// Node's uvwasi), and under wasmtime when it is on PATH.  The runtimes
// after node:wasi run the stress and fault tests shorter.
const CTEST_RUNTIMES = ['node', 'wasmer', ...(haveWasmtime() ? ['wasmtime'] : [])];
const STRESS_OPS_EXTRA = process.env.TEMPCRYPT_WASI_STRESS_OPS_EXTRA || '60000';
const FAULT_STRIDE_EXTRA = process.env.TEMPCRYPT_WASI_FAULT_STRIDE_EXTRA || '7';

test('pwrite past the end of a file lands where it was aimed (node)', () => {
  assert.equal(fileProblem('node'), null);
});

for (const rt of CTEST_RUNTIMES) {
  // The tests that keep an SQLite database in files (an extra runtime that
  // cannot hold them skips them, saying why).
  const files = { skip: rt === 'node' ? false : (fileProblem(rt) ?? false) };
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
    const ops = rt === 'node' ? STRESS_OPS : STRESS_OPS_EXTRA;
    t.diagnostic(`stress -n ${ops} -s ${STRESS_SEED} -m all`);
    expectPass(t, runC(ctest('stress'), ['-n', ops, '-s', STRESS_SEED, '-m', 'all'], rt), 'stress');
  });

  test(`SQL leak check in wasm (${rt})`, files, (t) => {
    expectPass(t, runC(ctest('leakcheck'), ['-q'], rt), 'leakcheck');
  });

  test(`differential test in wasm (${rt})`, files, (t) => {
    expectPass(t, runC(ctest('difftest'), [], rt), 'difftest');
  });

  test(`fault injection (every ${rt === 'node' ? '2nd' : `${FAULT_STRIDE_EXTRA}th`} position) in wasm (${rt})`, files, (t) => {
    expectPass(t, runC(ctest('faulttest'), ['-stride', rt === 'node' ? '2' : FAULT_STRIDE_EXTRA], rt), 'faulttest');
  });

  // The memory tier with a budget so small that the temp files spill part-way.
  test(`fault injection with the memory tier (every ${FAULT_STRIDE_EXTRA}th position) in wasm (${rt})`, files, (t) => {
    expectPass(t, runC(ctest('faulttest'), ['-budget', '12288', '-stride', FAULT_STRIDE_EXTRA], rt), 'faulttest -budget');
  });

  test(`key hygiene in wasm (${rt})`, files, (t) => {
    expectPass(t, runC(ctest('keyhygiene'), [], rt), 'keyhygiene');
  });

  test(`recovery after a fault clears (every 16th position) in wasm (${rt})`, files, (t) => {
    expectPass(t, runC(ctest('recovery'), ['-stride', '16'], rt), 'recovery');
  });

  // WASI's lower VFSes have no shared memory: WAL only with the exclusive
  // lock, and a WAL database opens only that way (test/conformance.c).
  // Each also with the memory tier holding every temp file (-budget).
  for (const vfs of ['unix-dotfile', 'unix-none']) {
    for (const budget of [[], ['-budget', '67108864']]) {
      test(`conformance over ${vfs}${budget.length ? ' with the memory tier' : ''} in wasm (${rt}): same transcript with and without tempcrypt`, files, (t) => {
        const r = runC(ctest('conformance'), ['-dir', '.', ...budget, vfs], rt);
        t.diagnostic((r.stdout.split('\n').find((l) => l.startsWith('conformance over')) ?? '').trim());
        expectPass(t, r, `conformance ${vfs}`);
      });
    }
  }
}

for (const rt of ['node', 'jco', 'wasmer', ...(haveWasmtime() ? ['wasmtime'] : [])]) {
  test(`no temp file key left in wasm linear memory after close (${rt})`, skipUnder(rt), (t) => {
    const r = runC(testWasm('memscan'), [], rt);
    t.diagnostic(r.stdout.trim().split('\n').slice(1).join('; '));
    expectPass(t, r, 'memscan');
    assert.match(r.stdout, /files open: [1-9]\d* keys found/);
    assert.match(r.stdout, /all files closed: 0 of [1-9]\d* keys found whole, 0 in part/);
  });
}

test('the linear-memory scan finds a key left in freed memory (control)', () => {
  const r = runC(testWasm('memscan'), ['-control']);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /left in (part in )?linear memory after close/);
});
