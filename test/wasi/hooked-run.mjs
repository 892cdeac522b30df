#!/usr/bin/env node
// wasm/wasi/run.mjs (node:wasi) with test-only hooks on the module's WASI
// calls, chosen by environment variables of the host process (never passed
// to the module).  hooked-run.py does the same under wasmtime.
//   TEMPCRYPT_FREEZE_CLOCK=NS    clock_time_get always answers NS nanoseconds
//                                (SQLite's own seed is time() and pid 1)
//   TEMPCRYPT_OPEN_LOG=FILE      append every path the module opens
//                                (path_open) to FILE, one a line
//   TEMPCRYPT_CAPTURE_OUT=FILE   record every byte the module hands to
//                                fd_write and fd_pwrite, by the path it
//                                opened the descriptor with, and write
//                                { path: { bytes, hits } } to FILE at exit,
//                                hits counting TEMPCRYPT_CAPTURE_MARKER
//   node hooked-run.mjs [--dir ...] [--env ...] module.wasm [args...]
import { appendFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { parseArgs, runWasi } from '../../wasm/wasi/run.mjs';

const freeze = process.env.TEMPCRYPT_FREEZE_CLOCK;
const openLog = process.env.TEMPCRYPT_OPEN_LOG;
const captureOut = process.env.TEMPCRYPT_CAPTURE_OUT;

const files = new Map();   // path -> Buffer[] (capture)
const byFd = new Map();    // fd -> path (capture)

function wrap(p1, memory) {
  const bytes = (ptr, len) => Buffer.from(memory().buffer.slice(ptr, ptr + len));
  if (freeze !== undefined) {
    const t = BigInt(freeze);
    p1.clock_time_get = (id, precision, ptr) => {
      new DataView(memory().buffer).setBigUint64(ptr, t, true);
      return 0;
    };
  }
  if (openLog || captureOut) {
    const open = p1.path_open;
    p1.path_open = (fd, dirflags, pathPtr, pathLen, oflags, rb, ri, fdflags, outPtr) => {
      const path = bytes(pathPtr, pathLen).toString('utf8');
      if (openLog) appendFileSync(openLog, path + '\n');
      const r = open(fd, dirflags, pathPtr, pathLen, oflags, rb, ri, fdflags, outPtr);
      if (r === 0) byFd.set(new DataView(memory().buffer).getUint32(outPtr, true), path);
      return r;
    };
  }
  if (captureOut) {
    for (const name of ['fd_write', 'fd_pwrite']) {
      const f = p1[name];
      p1[name] = (fd, iovs, n, ...rest) => {
        const path = byFd.get(fd);
        if (path !== undefined) {
          const dv = new DataView(memory().buffer);
          const list = files.get(path) || files.set(path, []).get(path);
          for (let i = 0; i < n; i++) list.push(bytes(dv.getUint32(iovs + 8 * i, true), dv.getUint32(iovs + 8 * i + 4, true)));
        }
        return f(fd, iovs, n, ...rest);
      };
    }
  }
  return p1;
}

function count(hay, needle) {
  let n = 0;
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + 1)) n++;
  return n;
}

process.removeAllListeners('warning');
const code = await runWasi(parseArgs(process.argv.slice(2)), wrap);
if (captureOut) {
  const marker = Buffer.from(process.env.TEMPCRYPT_CAPTURE_MARKER || '');
  const out = {};
  for (const [path, chunks] of files) {
    const all = Buffer.concat(chunks);
    out[path] = { bytes: all.length, hits: marker.length ? count(all, marker) : 0 };
  }
  writeFileSync(captureOut, JSON.stringify(out));
}
process.exit(code);
