// Syscall-level capture of what a process writes to files: runs a command
// under strace and returns, for every file it opened, the bytes written to
// it (write, pwrite64, writev, pwritev, pwritev2), matched by descriptor.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// -y names the file behind every descriptor (strace reads it from /proc at
// the call), so each write is matched to its file whichever directory
// descriptor or thread opened it.
const SYSCALLS = 'write,pwrite64,writev,pwritev,pwritev2';

export function haveStrace() {
  const r = spawnSync('strace', ['-V'], { encoding: 'utf8' });
  return !r.error && r.status === 0;
}

// strace -xx prints every byte of a string (and of a -y path) as \xHH.
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

// Returns { code, stdout, stderr, files: Map(path -> Buffer), other: Buffer }:
// files holds what went to each file (a file deleted while open keeps its
// path), other what went to descriptors that are not files (pipes,
// sockets, eventfds) except 1 and 2.
export function traceWrites(cmd, args, { cwd, input, traceFile, env } = {}) {
  const out = traceFile || join(cwd, 'strace.out');
  const r = spawnSync('strace', ['-f', '-qq', '-y', '-e', `trace=${SYSCALLS}`, '-e', 'signal=none',
                                 '-xx', '-s', '4194304', '-o', out, cmd, ...args],
                      { cwd, input: input ?? '', encoding: 'utf8', env: env || process.env,
                        maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw r.error;
  const chunks = new Map();
  const other = [];
  for (const c of calls(readFileSync(out, 'latin1'))) {
    // name(FD<PATH>[(deleted)], data...) = N
    // (no <PATH> when strace could not name it: counted as not a file).
    const m = /^\w+\((\d+)(?:<((?:\\x[0-9a-f]{2})*)>(?:\(deleted\))?)?,(.*)\)\s+=\s+-?\d+/.exec(c);
    if (!m) continue;
    const [, fd, hexPath = '', rest] = m;
    const data = Buffer.concat([...rest.matchAll(STR)].map((x) => unhex(x[1])));
    const path = unhex(hexPath).toString('utf8');
    if (path.startsWith('/')) {
      if (!chunks.has(path)) chunks.set(path, []);
      chunks.get(path).push(data);
    } else if (fd !== '1' && fd !== '2') {
      other.push(data);
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
