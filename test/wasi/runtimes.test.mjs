// What each WASI runtime does with the file operations SQLite relies on
// (test/wasi/runtime_probe.c, one fact a line), and that every runner takes
// wasmtime's command line.  Under every test runtime, and under two that
// are not: wasm/wasi/wasmtime-run.py (wasmtime's embedding API, which the
// WASI-call tests use; it must see exactly what the CLI sees) and
// @wasmer/wasi (a pwrite() past the end of a file lands at the end: the
// reason it is not a test runtime).  docs/wasi.md quotes the facts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RUNTIMES, runners, testWasm, scratch, requireBuilt, mkdirSync, join } from './lib.mjs';

const probe = testWasm('runtime_probe');
requireBuilt(probe);

function facts(rt) {
  const s = scratch(`probe-${rt}`);
  try {
    mkdirSync(join(s.dir, 'db'));
    mkdirSync(join(s.dir, 'tmp'));
    const r = runners[rt](probe, [], { cwd: join(s.dir, 'db'), dirs: ['.', '../tmp::/tmp'] });
    const out = {};
    for (const l of r.stdout.split('\n')) {
      const m = /^(\w+): (.*)$/.exec(l);
      if (m) out[m[1]] = m[2];
    }
    return { code: r.code, out, stderr: r.stderr };
  } finally { s.cleanup(); }
}

// What SQLite and tempcrypt need from a runtime.
const NEEDED = {
  pwrite_past_eof: 'ok',
  unlinked_open: 'ok',
  st_ino_distinct: 'yes',
  st_ino_stable: 'yes',
  lock_dotfile_first: 'ok',
  lock_dotfile_second: 'EEXIST',
  open_relative: 'ok',
  open_dot_slash: 'ok',
  open_slash_tmp: 'ok',
  open_not_preopened: 'ENOENT',
  random: 'ok',
  stdin_tty: 'no',
};

const seen = {};
for (const rt of [...RUNTIMES, 'wasmtime-api']) {
  test(`runtime probe (${rt}): the file operations SQLite relies on`, (t) => {
    const f = facts(rt);
    seen[rt] = f.out;
    t.diagnostic(Object.entries(f.out).map(([k, v]) => `${k}=${v}`).join(' '));
    assert.equal(f.code, 0, f.stderr);
    for (const [k, v] of Object.entries(NEEDED)) assert.equal(f.out[k], v, k);
    // Leaving a preopened directory through ".." is refused (the errno
    // differs between runtimes).
    assert.notEqual(f.out.open_dotdot, 'ok');
    assert.notEqual(f.out.open_tmp_dotdot, 'ok');
    assert.match(f.out.st_blksize, /^\d+$/);
  });
}

if (RUNTIMES.includes('wasmtime')) {
  test('wasmtime-run.py (the embedding API) sees what `wasmtime run` sees', () => {
    assert.ok(seen.wasmtime && seen['wasmtime-api'], 'both probes ran');
    assert.deepEqual(seen['wasmtime-api'], seen.wasmtime);
  });
}

test('@wasmer/wasi: a pwrite() past the end of a file lands at the end (not a test runtime)', (t) => {
  const f = facts('wasmer');
  t.diagnostic(`pwrite_past_eof=${f.out.pwrite_past_eof}`);
  assert.match(f.out.pwrite_past_eof ?? '', /^wrong/);
});

// The runners' command line: exit status, a trap, --env.  jco's adapter
// maps every failure to 1.
for (const rt of [...RUNTIMES, 'wasmtime-api']) {
  test(`${rt} takes wasmtime's command line: exit status, trap, --env`, () => {
    const run = (args, o = {}) => runners[rt](probe, args, o);
    const failed = rt === 'jco' ? 1 : undefined;
    assert.equal(run(['exit', '7']).code, failed ?? 7);
    assert.equal(run(['exit', '0']).code, 0);
    const trap = run(['trap']);
    assert.equal(trap.code, failed ?? 134, trap.stderr);
    assert.match(trap.stderr, /unreachable/);
    assert.equal(run(['env', 'PROBE_SET'], { env: { PROBE_SET: 'a=b c' } }).stdout, 'PROBE_SET=a=b c\n');
    assert.equal(run(['env', 'PROBE_HOST'], { hostEnv: { PROBE_HOST: 'from host' } }).stdout, 'PROBE_HOST unset\n');
    assert.equal(run(['env', 'PROBE_HOST'], { env: { PROBE_HOST: undefined }, hostEnv: { PROBE_HOST: 'from host' } }).stdout,
                 'PROBE_HOST=from host\n');
  });
}
