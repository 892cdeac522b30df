// Syscall-level capture of what a process writes to files: runs a command
// under strace and returns, for every file it opened, the bytes written to
// it (write, pwrite64, writev, pwritev, pwritev2), matched by descriptor.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const SYSCALLS = 'open,openat,openat2,creat,close,dup,dup2,dup3,write,pwrite64,writev,pwritev,pwritev2';

export function haveStrace() {
  const r = spawnSync('strace', ['-V'], { encoding: 'utf8' });
  return !r.error && r.status === 0;
}

// strace -xx prints every byte of a string as \xHH.
function unhex(s) {
  return Buffer.from(s.replace(/\\x/g, ''), 'hex');
}
const STR = /"((?:\\x[0-9a-f]{2})*)"/g;

// Joins "<unfinished ...>" lines with their "<... name resumed>" rest.
function* calls(text) {
  const pending = new Map();
  for (const raw of text.split('\n')) {
    const m = /^(\d+)\s+(.*)$/.exec(raw);
    if (!m) continue;
    const [, pid, rest] = m;
    if (rest.endsWith('<unfinished ...>')) {
      pending.set(pid, rest.slice(0, -'<unfinished ...>'.length));
      continue;
    }
    const res = /^<\.\.\. \w+ resumed>(.*)$/.exec(rest);
    if (res) {
      const head = pending.get(pid);
      pending.delete(pid);
      if (head !== undefined) yield head + res[1];
      continue;
    }
    yield rest;
  }
}

// Returns { code, stdout, stderr, files: Map(path -> Buffer), other: Buffer }
// where other holds what went to descriptors not opened by path (pipes,
// eventfds) except 1 and 2.
export function traceWrites(cmd, args, { cwd, input, traceFile, env } = {}) {
  const out = traceFile || join(cwd, 'strace.out');
  const r = spawnSync('strace', ['-f', '-qq', '-e', `trace=${SYSCALLS}`, '-e', 'signal=none',
                                 '-xx', '-s', '4194304', '-o', out, cmd, ...args],
                      { cwd, input: input ?? '', encoding: 'utf8', env: env || process.env,
                        maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  const fdPath = new Map();
  const chunks = new Map();
  const other = [];
  const add = (fd, buf) => {
    const p = fdPath.get(fd);
    if (p === undefined) { if (fd !== '1' && fd !== '2') other.push(buf); return; }
    if (!chunks.has(p)) chunks.set(p, []);
    chunks.get(p).push(buf);
  };
  for (const c of calls(readFileSync(out, 'latin1'))) {
    const m = /^(\w+)\((.*)\)\s+=\s+(-?\d+)/.exec(c);
    if (!m) continue;
    const [, name, argstr, retStr] = m;
    const ret = retStr;
    if (/^(open|openat|openat2|creat)$/.test(name)) {
      if (Number(ret) < 0) continue;
      const s = [...argstr.matchAll(STR)];
      if (!s.length) continue;
      const path = unhex(s[0][1]).toString('utf8');
      fdPath.set(ret, path);
      if (!chunks.has(path)) chunks.set(path, []);
    } else if (name === 'close') {
      fdPath.delete(argstr.trim());
    } else if (/^dup[23]?$/.test(name)) {
      const src = argstr.split(',')[0].trim();
      if (Number(ret) >= 0 && fdPath.has(src)) fdPath.set(ret, fdPath.get(src));
    } else {
      // write/pwrite64/writev/pwritev/pwritev2: fd first, then the data.
      const fd = argstr.split(',')[0].trim();
      const bufs = [...argstr.matchAll(STR)].map((x) => unhex(x[1]));
      add(fd, Buffer.concat(bufs));
    }
  }
  const files = new Map();
  for (const [p, list] of chunks) files.set(p, Buffer.concat(list));
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, files, other: Buffer.concat(other) };
}

export function countOccurrences(buf, needle) {
  let n = 0;
  for (let i = buf.indexOf(needle); i >= 0; i = buf.indexOf(needle, i + 1)) n++;
  return n;
}
