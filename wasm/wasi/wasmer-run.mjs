#!/usr/bin/env node
// Runs a WASI preview1 command module under @wasmer/wasi (Wasmer's own WASI
// implementation, compiled to wasm: independent of Node's uvwasi) with the
// same command line as wasmtime:
//
//   node wasm/wasi/wasmer-run.mjs [--dir HOST[::GUEST]]... [--env NAME[=VALUE]]... \
//        module.wasm [args...]
//
// @wasmer/wasi keeps its files in memory: each preopened host directory is
// copied in before the run and copied back after it (a file the module
// deleted is deleted on the host), so from outside a run looks like one
// under wasmtime, except that nothing reaches the host before the module
// exits.  stdin is read whole first; stdout and stderr are written at the
// end.  The exit code is the module's; a trap exits with 134.
import { init, WASI, MemFS } from '@wasmer/wasi';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from './run.mjs';

const isDir = (meta) => meta.filetype?.dir === true;

function copyIn(mfs, host, mem) {
  mfs.createDir(mem);
  for (const e of fs.readdirSync(host, { withFileTypes: true })) {
    const h = path.join(host, e.name), m = `${mem}/${e.name}`;
    if (e.isDirectory()) copyIn(mfs, h, m);
    else if (e.isFile()) mfs.open(m, { read: true, write: true, create: true }).write(fs.readFileSync(h));
  }
}

function copyOut(mfs, mem, host) {
  const seen = new Set();
  for (const e of mfs.readDir(mem)) {
    const name = e.path.slice(e.path.lastIndexOf('/') + 1);
    seen.add(name);
    const h = path.join(host, name);
    if (isDir(e.metadata)) { fs.mkdirSync(h, { recursive: true }); copyOut(mfs, e.path, h); }
    else fs.writeFileSync(h, mfs.open(e.path, { read: true }).read());
  }
  for (const e of fs.readdirSync(host)) if (!seen.has(e)) fs.rmSync(path.join(host, e), { recursive: true, force: true });
}

// @wasmer/wasi reports stdin, stdout and stderr as character devices, so
// a module takes them for a terminal (the shell prints prompts); here they
// are buffers, as pipes are under wasmtime: report them as unknown files.
function stdioNotTty(p1, memory) {
  const fdstat = p1.fd_fdstat_get;
  p1.fd_fdstat_get = (fd, ptr) => {
    const r = fdstat(fd, ptr);
    if (r === 0 && fd <= 2) new DataView(memory().buffer).setUint8(ptr, 0);
    return r;
  };
  return p1;
}

// wrap (tests only), as in run.mjs: gets the wasi_snapshot_preview1
// import table and a function returning the instance's memory, and returns
// the table to use.
export async function runWasmer({ preopens, env, module, args }, stdin = new Uint8Array(0), wrap = null) {
  await init();
  const mfs = new MemFS();
  const dirs = Object.entries(preopens).map(([guest, host], i) => ({ guest, host, mem: `/preopen${i}` }));
  for (const d of dirs) copyIn(mfs, d.host, d.mem);
  const wasi = new WASI({ args: [module, ...args], env, preopens: Object.fromEntries(dirs.map((d) => [d.guest, d.mem])), fs: mfs });
  const mod = await WebAssembly.compile(fs.readFileSync(module));
  const imports = wasi.getImports(mod);
  let inst;
  const memory = () => inst.exports.memory;
  const p1 = stdioNotTty({ ...imports.wasi_snapshot_preview1 }, memory);
  imports.wasi_snapshot_preview1 = wrap ? wrap(p1, memory) : p1;
  inst = await WebAssembly.instantiate(mod, imports);
  wasi.instantiate(inst);
  wasi.setStdinBuffer(stdin);
  let code, trap = null;
  try { code = wasi.start(); } catch (e) { trap = e; code = 134; }
  const out = { code, trap, stdout: wasi.getStdoutBuffer(), stderr: wasi.getStderrBuffer() };
  for (const d of dirs) copyOut(wasi.fs, d.mem, d.host);
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.removeAllListeners('warning');   // run.mjs's node:wasi import warns
  const opts = parseArgs(process.argv.slice(2));
  const stdin = process.stdin.isTTY ? new Uint8Array(0) : fs.readFileSync(0);
  const r = await runWasmer(opts, stdin);
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  if (r.trap) process.stderr.write(`Error: failed to run main module \`${opts.module}\`\n${r.trap && r.trap.stack || r.trap}\n`);
  process.exitCode = r.code;
}
