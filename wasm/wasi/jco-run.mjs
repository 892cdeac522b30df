#!/usr/bin/env node
// Runs a WASI preview1 command module under @bytecodealliance/jco (WASI
// preview2 in JavaScript) with the same command line as wasmtime:
//
//   node wasm/wasi/jco-run.mjs [--dir HOST[::GUEST]]... [--env NAME[=VALUE]]... \
//        module.wasm [args...]
//
// The module is wrapped once into a component with jco's preview1 command
// adapter (`jco new --wasi-command`, cached next to it as
// NAME.component.wasm), then run with `jco run`, whose --jco-import hook
// (jco-preopens.mjs) installs the preopens and the environment.
// jco's exit codes are 0 or 1 (its adapter maps every failure to 1).
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import process from 'node:process';
import { parseArgs } from './run.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const jcoBin = resolve(root, 'node_modules/@bytecodealliance/jco/dist/jco.js');

function mtime(p) { try { return statSync(p).mtimeMs; } catch { return -1; } }

export function componentFor(module) {
  const comp = module.replace(/\.wasm$/, '') + '.component.wasm';
  if (mtime(comp) < mtime(module)) {
    const r = spawnSync(process.execPath, [jcoBin, 'new', module, '--wasi-command', '-o', comp],
                        { stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0) throw new Error(`jco new ${module} failed (${r.status})`);
  }
  return comp;
}

export function jcoArgs({ preopens, env, module, args }) {
  const dirs = {};
  for (const [guest, host] of Object.entries(preopens)) dirs[guest] = resolve(host);
  return {
    argv: [jcoBin, 'run', '--jco-import', resolve(here, 'jco-preopens.mjs'), componentFor(module), ...args],
    env: { ...process.env, NODE_NO_WARNINGS: '1', TEMPCRYPT_JCO_DIRS: JSON.stringify(dirs), TEMPCRYPT_JCO_ENV: JSON.stringify(env) },
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { argv, env } = jcoArgs(parseArgs(process.argv.slice(2)));
  const r = spawnSync(process.execPath, argv, { stdio: 'inherit', env });
  process.exitCode = r.status ?? 1;
}
