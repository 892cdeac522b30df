// Shared helpers of the WASI tests: where the build is, how to run a
// module under node:wasi (run.mjs), jco (jco-run.mjs), @wasmer/wasi
// (wasmer-run.mjs) and wasmtime, and scratch directories.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';

export const here = dirname(fileURLToPath(import.meta.url));
export const root = resolve(here, '../../..');
export const wasiBuild = resolve(root, process.env.TEMPCRYPT_WASI_BUILD || 'build/wasi');
export const nativeBuild = resolve(root, process.env.TEMPCRYPT_NATIVE_BUILD || 'build/native');
export const shellWasm = join(wasiBuild, 'sqlite3.wasm');
export const disabledWasm = join(wasiBuild, 'sqlite3-disabled.wasm');
export const testWasm = (name) => join(wasiBuild, 'test', `${name}.wasm`);

const runMjs = resolve(here, '../run.mjs');
const jcoRunMjs = resolve(here, '../jco-run.mjs');
const wasmerRunMjs = resolve(here, '../wasmer-run.mjs');
const wrappedRunMjs = resolve(here, 'wrapped-run.mjs');

// A fresh scratch directory (removed by the returned cleanup function).
export function scratch(tag = 'wasi') {
  const dir = mkdtempSync(join(tmpdir(), `tempcrypt-${tag}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

// A marker built at run time: it is in no file of the project or build.
export function makeMarker() {
  return ['tcMARK', randomBytes(6).toString('hex'), 'KRAM'].join('');
}

// Runtime command lines, all in wasmtime's syntax: [--dir D]... [--env E]...
function wasiFlags({ dirs = [], env = {} }) {
  const f = [];
  for (const d of dirs) f.push(`--dir=${d}`);
  for (const [k, v] of Object.entries(env)) f.push('--env', `${k}=${v}`);
  return f;
}

function spawn(cmd, argv, { cwd, input, hostEnv, timeout = 300000 }) {
  const r = spawnSync(cmd, argv, {
    cwd, input: input ?? '', encoding: 'utf8', timeout,
    env: { ...process.env, ...(hostEnv || {}) },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

// Runners: each takes (module, args, {dirs, env, cwd, input, hostEnv}).
export const runners = {
  node: (module, args, o = {}) =>
    spawn(process.execPath, [runMjs, ...wasiFlags(o), module, ...args], o),
  jco: (module, args, o = {}) =>
    spawn(process.execPath, [jcoRunMjs, ...wasiFlags(o), module, ...args], o),
  // @wasmer/wasi: Wasmer's WASI (not uvwasi), files in memory.
  wasmer: (module, args, o = {}) =>
    spawn(process.execPath, [wasmerRunMjs, ...wasiFlags(o), module, ...args], o),
  wasmtime: (module, args, o = {}) =>
    spawn('wasmtime', ['run', ...wasiFlags(o), module, ...args], o),
  // node:wasi with the test-only clock freeze / open log (hostEnv).
  wrapped: (module, args, o = {}) =>
    spawn(process.execPath, [wrappedRunMjs, ...wasiFlags(o), module, ...args], o),
};

export function haveWasmtime() {
  const r = spawnSync('wasmtime', ['--version'], { encoding: 'utf8' });
  return !r.error && r.status === 0;
}

// Why runtime `rt` cannot hold SQLite's files, or null: a pwrite() past the
// end of a file must land where it was aimed (test/wasi/pwrite_hole.c;
// @wasmer/wasi 1.2.2 appends instead, which corrupts any database whose
// cache spills).  Only the extra runtimes skip on it: under node:wasi a
// failure here is a failure.
const fileProblems = new Map();
export function fileProblem(rt) {
  if (!fileProblems.has(rt)) {
    requireBuilt(testWasm('pwrite_hole'));
    const s = scratch('pwrite');
    try {
      const r = runners[rt](testWasm('pwrite_hole'), [], { cwd: s.dir, dirs: ['.'] });
      fileProblems.set(rt, r.code === 0 ? null : `${rt} cannot hold SQLite's files: ${(r.stdout + r.stderr).trim().split('\n')[0]}`);
    } finally { s.cleanup(); }
  }
  return fileProblems.get(rt);
}

// Tests that @wasmer/wasi 1.2.2 cannot run for a fault of its own: it traps
// inside its fd_write (a Rust panic, "unreachable" in the runtime's code
// called from the module's fd_write import), in the memory scan, the
// embedding example and the shell without a temp directory.  Not
// diagnosed further; node:wasi, jco and wasmtime run them.
export const skipUnder = (rt) => ({
  skip: rt === 'wasmer' ? '@wasmer/wasi 1.2.2 traps inside its own fd_write (a panic in the runtime, not the module)' : false,
});

export function requireBuilt(...files) {
  for (const f of files) {
    if (!existsSync(f)) throw new Error(`${f} is missing: run \`make wasi-tests\` first`);
  }
}

export { mkdirSync, join };
