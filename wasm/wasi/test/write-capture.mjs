#!/usr/bin/env node
// A WASI runner that records every byte the module hands to fd_write and
// fd_pwrite, by the path it opened the descriptor with (path_open): the
// WASI-call-level view of what reaches files, for runtimes where strace
// cannot see the writes (@wasmer/wasi keeps its files in memory).
//   TEMPCRYPT_CAPTURE_RUNTIME=node|wasmer   which runtime (default node)
//   TEMPCRYPT_CAPTURE_MARKER=M              count occurrences of M
//   TEMPCRYPT_CAPTURE_OUT=FILE              write { path: { bytes, hits } }
//   node write-capture.mjs [--dir ...] [--env ...] module.wasm [args...]
import fs from 'node:fs';
import process from 'node:process';
import { parseArgs, runWasi } from '../run.mjs';
import { runWasmer } from '../wasmer-run.mjs';

const files = new Map();   // path -> Buffer[]
const byFd = new Map();    // fd -> path

function wrap(p1, memory) {
  const open = p1.path_open;
  p1.path_open = (fd, dirflags, pathPtr, pathLen, oflags, rb, ri, fdflags, outPtr) => {
    const path = Buffer.from(memory().buffer, pathPtr, pathLen).toString('utf8');
    const r = open(fd, dirflags, pathPtr, pathLen, oflags, rb, ri, fdflags, outPtr);
    if (r === 0) byFd.set(new DataView(memory().buffer).getUint32(outPtr, true), path);
    return r;
  };
  const record = (fd, iovs, n) => {
    const path = byFd.get(fd);
    if (path === undefined) return;
    const dv = new DataView(memory().buffer);
    const list = files.get(path) || files.set(path, []).get(path);
    for (let i = 0; i < n; i++) {
      const ptr = dv.getUint32(iovs + 8 * i, true), len = dv.getUint32(iovs + 8 * i + 4, true);
      list.push(Buffer.from(memory().buffer.slice(ptr, ptr + len)));
    }
  };
  for (const name of ['fd_write', 'fd_pwrite']) {
    const f = p1[name];
    p1[name] = (fd, iovs, n, ...rest) => { record(fd, iovs, n); return f(fd, iovs, n, ...rest); };
  }
  return p1;
}

function count(hay, needle) {
  let n = 0;
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + 1)) n++;
  return n;
}

process.removeAllListeners('warning');
const opts = parseArgs(process.argv.slice(2));
let code;
if ((process.env.TEMPCRYPT_CAPTURE_RUNTIME || 'node') === 'wasmer') {
  const r = await runWasmer(opts, fs.readFileSync(0), wrap);
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  code = r.code;
} else {
  code = await runWasi(opts, wrap);
}
const marker = Buffer.from(process.env.TEMPCRYPT_CAPTURE_MARKER || '');
const out = {};
for (const [path, chunks] of files) {
  const bytes = Buffer.concat(chunks);
  out[path] = { bytes: bytes.length, hits: marker.length ? count(bytes, marker) : 0 };
}
if (process.env.TEMPCRYPT_CAPTURE_OUT) fs.writeFileSync(process.env.TEMPCRYPT_CAPTURE_OUT, JSON.stringify(out));
process.exit(code);
