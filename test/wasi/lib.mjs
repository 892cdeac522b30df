// Shared helpers of the WASI tests: where the build is, the runtimes every
// test runs under and how to run a module under each, scratch directories.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';

export const here = dirname(fileURLToPath(import.meta.url));
export const root = resolve(here, '../..');
export const wasiBuild = resolve(root, process.env.TEMPCRYPT_WASI_BUILD || 'build/wasi');
export const nativeBuild = resolve(root, process.env.TEMPCRYPT_NATIVE_BUILD || 'build/native');
export const shellWasm = join(wasiBuild, 'sqlite3.wasm');
export const disabledWasm = join(wasiBuild, 'sqlite3-disabled.wasm');
export const testWasm = (name) => join(wasiBuild, 'test', `${name}.wasm`);

// The runtimes, named once: every WASI test runs under each.
//   node      Node's node:wasi (uvwasi): wasm/wasi/run.mjs
//   jco       @bytecodealliance/jco (preview2 in JavaScript over Node's fs)
//             through its preview1 adapter: wasm/wasi/jco-run.mjs
//   wasmtime  the wasmtime CLI, `wasmtime run` (build/tools/bin/wasmtime,
//             from scripts/install-deps.sh; TEMPCRYPT_WASMTIME=/path/to/wasmtime
//             takes another)
// TEMPCRYPT_WASI_RUNTIMES=node,jco picks fewer.  The tests that hook WASI
// calls run node:wasi through hooked-run.mjs and wasmtime through its
// embedding API (hooked-run.py over wasm/wasi/wasmtime-run.py, the same
// release line's Python package).
export const RUNTIMES = (process.env.TEMPCRYPT_WASI_RUNTIMES || 'wasmtime,node,jco').split(',');
const wasmtimeCli = resolve(root, process.env.TEMPCRYPT_WASMTIME || 'build/tools/bin/wasmtime');
const toolsPython = resolve(root, 'build/tools/venv/bin/python3');

const runMjs = resolve(root, 'wasm/wasi/run.mjs');
const jcoRunMjs = resolve(root, 'wasm/wasi/jco-run.mjs');
const wasmerRunMjs = resolve(root, 'wasm/wasi/wasmer-run.mjs');
const wasmtimeRunPy = resolve(root, 'wasm/wasi/wasmtime-run.py');

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
// (an env value of undefined passes the host's: --env NAME).
function wasiFlags({ dirs = [], env = {} }) {
  const f = [];
  for (const d of dirs) f.push(`--dir=${d}`);
  for (const [k, v] of Object.entries(env)) f.push('--env', v === undefined ? k : `${k}=${v}`);
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

// The command line that runs a module under runtime rt: [command, argv].
// Besides RUNTIMES: wasmtime-api (wasm/wasi/wasmtime-run.py: wasmtime's
// embedding API with the CLI's command line) and wasmer (@wasmer/wasi, not
// a test runtime: a pwrite() past the end of a file lands at the end), for
// the runtime probe.
export function commandLine(rt, module, args, o = {}) {
  const flags = [...wasiFlags(o), module, ...args];
  const js = { node: runMjs, jco: jcoRunMjs, wasmer: wasmerRunMjs }[rt];
  if (js) return [process.execPath, [js, ...flags]];
  if (rt === 'wasmtime') return [wasmtimeCli, ['run', ...flags]];
  if (rt === 'wasmtime-api') return [toolsPython, [wasmtimeRunPy, ...flags]];
  throw new Error(`unknown WASI runtime ${rt}`);
}

// runners[rt](module, args, {dirs, env, cwd, input, hostEnv}).
export const runners = Object.fromEntries(['node', 'jco', 'wasmtime', 'wasmtime-api', 'wasmer'].map((rt) =>
  [rt, (module, args, o = {}) => spawn(...commandLine(rt, module, args, o), o)]));

// node:wasi and wasmtime with the test-only hooks of hooked-run.mjs (freeze
// the clock, log the opens, capture every byte written), set by hostEnv.
const hooks = {
  node: [process.execPath, resolve(here, 'hooked-run.mjs')],
  wasmtime: [toolsPython, resolve(here, 'hooked-run.py')],
};
export const HOOKED_RUNTIMES = RUNTIMES.filter((rt) => hooks[rt]);
export function hooked(rt) {
  const [cmd, script] = hooks[rt];
  return (module, args, o = {}) => spawn(cmd, [script, ...wasiFlags(o), module, ...args], o);
}

// The versions of wasmtime: { cli, api }, null where missing.
export function wasmtimeVersions() {
  const cli = spawnSync(wasmtimeCli, ['--version'], { encoding: 'utf8' });
  const api = spawnSync(toolsPython, ['-c', 'import importlib.metadata as m; print(m.version("wasmtime"))'], { encoding: 'utf8' });
  return {
    cli: cli.status === 0 ? cli.stdout.trim() : null,
    api: api.status === 0 ? `wasmtime ${api.stdout.trim()} (Python package)` : null,
  };
}
if (RUNTIMES.includes('wasmtime')) {
  const v = wasmtimeVersions();
  if (!v.cli || !v.api) {
    throw new Error(`wasmtime is missing (${!v.cli ? wasmtimeCli : toolsPython}): run scripts/install-deps.sh, `
      + 'or leave it out with TEMPCRYPT_WASI_RUNTIMES=node,jco');
  }
}

export function requireBuilt(...files) {
  for (const f of files) {
    if (!existsSync(f)) throw new Error(`${f} is missing: run \`make wasi-tests\` first`);
  }
}

export { mkdirSync, join };
