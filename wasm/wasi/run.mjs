#!/usr/bin/env node
// Runs a WASI preview1 command module under Node's node:wasi with the same
// command line as wasmtime:
//
//   node wasm/wasi/run.mjs [--dir HOST[::GUEST]]... [--env NAME[=VALUE]]... \
//        module.wasm [args...]
//
// is the same as
//
//   wasmtime run [--dir HOST[::GUEST]]... [--env NAME[=VALUE]]... \
//        module.wasm [args...]
//
// --dir preopens a host directory under the guest path GUEST (default: the
// host path as written, so `--dir=.` is the guest's "."); --env sets a
// variable (without a value: copies the host's).  Nothing else is given to
// the module: no other directory, no other variable.  The exit code is the
// module's; a trap exits with 134 after printing the error, as wasmtime does.
import { WASI } from 'node:wasi';
import { readFile } from 'node:fs/promises';
import { statSync } from 'node:fs';
import process from 'node:process';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

function usage(msg) {
  if (msg) process.stderr.write(`run.mjs: ${msg}\n`);
  process.stderr.write('usage: node run.mjs [--dir HOST[::GUEST]]... [--env NAME[=VALUE]]... module.wasm [args...]\n');
  process.exit(2);
}

export function parseArgs(argv) {
  const preopens = {};
  const env = {};
  let i = 0;
  for (; i < argv.length; i++) {
    let a = argv[i];
    if (a === '--') { i++; break; }
    if (!a.startsWith('-')) break;
    let val;
    const eq = a.indexOf('=');
    if (a.startsWith('--') && eq > 0) { val = a.slice(eq + 1); a = a.slice(0, eq); }
    const need = () => {
      if (val !== undefined) return val;
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--dir') {
      const d = need();
      const sep = d.indexOf('::');
      const host = sep < 0 ? d : d.slice(0, sep);
      const guest = sep < 0 ? d : d.slice(sep + 2);
      if (!host || !guest) usage(`bad --dir ${d}`);
      let st;
      try { st = statSync(host); } catch (e) { usage(`--dir ${host}: ${e.code || e.message}`); }
      if (!st.isDirectory()) usage(`--dir ${host}: not a directory`);
      preopens[guest] = host;
    } else if (a === '--env') {
      const e = need();
      const k = e.indexOf('=');
      if (k === 0) usage(`bad --env ${e}`);
      if (k < 0) { if (process.env[e] !== undefined) env[e] = process.env[e]; }
      else env[e.slice(0, k)] = e.slice(k + 1);
    } else {
      usage(`unknown option ${a}`);
    }
  }
  if (i >= argv.length) usage('no module');
  return { preopens, env, module: argv[i], args: argv.slice(i + 1) };
}

// wrap (tests only) may replace WASI imports: it gets the
// wasi_snapshot_preview1 import table and a function returning the
// instance's memory, and returns the table to use.
export async function runWasi({ preopens, env, module, args }, wrap) {
  const wasi = new WASI({
    version: 'preview1',
    args: [module, ...args],
    env,
    preopens,
    returnOnExit: true,
  });
  const mod = await WebAssembly.compile(await readFile(module));
  const imports = wasi.getImportObject();
  let inst;
  // Every WASI function is called through a plain JS function: with
  // node:wasi's own functions imported directly, Node 20.20 segfaults at
  // the end of a long run with many files unlinked (the fault-injection
  // test, 18,000 path_unlink_file calls); through a wrapper it never
  // does, at no measurable cost.
  const p1 = {};
  for (const [name, f] of Object.entries(imports.wasi_snapshot_preview1)) {
    p1[name] = (...a) => f(...a);
  }
  imports.wasi_snapshot_preview1 = wrap ? wrap(p1, () => inst.exports.memory) : p1;
  inst = await WebAssembly.instantiate(mod, imports);
  return wasi.start(inst);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // node:wasi warns that it is experimental on every run; keep stderr for
  // the module.
  process.removeAllListeners('warning');
  process.on('warning', (w) => { if (w.name !== 'ExperimentalWarning') console.warn(w); });
  const opts = parseArgs(process.argv.slice(2));
  let code;
  try {
    code = await runWasi(opts);
  } catch (e) {
    process.stderr.write(`Error: failed to run main module \`${opts.module}\`\n${e && e.stack || e}\n`);
    code = 134;
  }
  process.exit(code);
}
