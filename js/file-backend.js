// Storage 'file' (Node): the backend contract of ./backend.d.ts over
// node:fs.  Database names are paths relative to
// `dir`; SQLite's journal sits next to its database.  A temp file is a real
// file `.sqlite-tempcrypt-tmp-<pid>-<n>` in `dir` (ciphertext, as tempcrypt
// encrypts every temp file), deleted when SQLite closes it; after a crash
// the leftovers stay (their key died with the process) and wipeLeftovers()
// removes them at the next open.

import { SQLITE_CANTOPEN, SQLITE_FULL, SQLITE_OPEN_READONLY, SQLITE_OPEN_CREATE, SQLITE_OPEN_DELETEONCLOSE } from './constants.js';
import { isNode } from './platform.js';

const TEMP_PREFIX = '.sqlite-tempcrypt-tmp-';
// Numbers the temp files of this process.  Each is created with O_EXCL
// (trying the next number while one exists), so two backends over the same
// directory (two databases, or two copies of this module) never share one.
let nextTemp = 0;

// node:fs, node:path and node:os, loaded when needed, so that this module
// itself imports nothing Node-only.
async function nodeModules() {
  const names = ['node:fs', 'node:path', 'node:os'];
  const [fs, path, os] = await Promise.all(names.map((n) => import(/* @vite-ignore */ n)));
  return { fs, path, os };
}

function withCode(e, code) {
  return Object.assign(e instanceof Error ? e : new Error(String(e)), { sqliteCode: code });
}

export class FileBackend {
  // fs and path: node:fs and node:path (loaded by create(), so that this
  // module itself imports nothing Node-only).
  constructor(dir, fs, path) {
    this.kind = 'file';
    this.headerSize = 0;
    this.fs = fs;
    this.pathMod = path;
    this.dir = path.resolve(dir);
    this.open = new Set();       // handles
    this.written = new Set();    // every path written to (inspection)
    this.wipedAtOpen = [];
  }

  static async create(dir = '.') {
    const { fs, path } = await nodeModules();
    fs.mkdirSync(path.resolve(dir), { recursive: true });
    const b = new FileBackend(dir, fs, path);
    b.wipeLeftovers();
    return b;
  }

  // SQLite's "/name" -> a path under dir (no way out of it).
  resolve(name) {
    const rel = name.replace(/^\/+/, '');
    if (rel === '' || rel.split(/[\\/]/).includes('..')) throw withCode(new Error(`bad file name: ${name}`), SQLITE_CANTOPEN);
    return this.pathMod.join(this.dir, rel);
  }

  // Temp files of a process that did not close them (crash): remove.
  wipeLeftovers() {
    for (const f of this.fs.readdirSync(this.dir)) {
      if (!f.startsWith(TEMP_PREFIX)) continue;
      const m = /^\.sqlite-tempcrypt-tmp-(\d+)-/.exec(f);
      if (m && Number(m[1]) === process.pid) continue;
      const p = this.pathMod.join(this.dir, f);
      this.wipedAtOpen.push({ path: p, flags: 0, size: this.fs.statSync(p).size });
      this.fs.rmSync(p, { force: true });
    }
  }

  xOpen(name, flags) {
    const { fs } = this;
    const temp = name === null;
    const C = fs.constants;
    const mode = temp ? C.O_RDWR | C.O_CREAT | C.O_EXCL
      : flags & SQLITE_OPEN_READONLY ? C.O_RDONLY : C.O_RDWR | (flags & SQLITE_OPEN_CREATE ? C.O_CREAT : 0);
    let fd, path;
    for (;;) {
      path = temp ? this.pathMod.join(this.dir, `${TEMP_PREFIX}${process.pid}-${++nextTemp}`) : this.resolve(name);
      try {
        fd = fs.openSync(path, mode, 0o600);
        break;
      } catch (e) {
        if (temp && e.code === 'EEXIST') continue;
        throw withCode(e, e.code === 'ENOSPC' || e.code === 'EDQUOT' ? SQLITE_FULL : SQLITE_CANTOPEN);
      }
    }
    const h = { fd, name: temp ? path : name, path, flags, temp };
    this.open.add(h);
    return h;
  }

  xClose(h) {
    if (!this.open.delete(h)) return;
    this.fs.closeSync(h.fd);
    if (h.temp || h.flags & SQLITE_OPEN_DELETEONCLOSE) this.fs.rmSync(h.path, { force: true });
  }

  xRead(h, buf, offset) {
    let n = 0;
    while (n < buf.length) {
      const got = this.fs.readSync(h.fd, buf, n, buf.length - n, offset + n);
      if (got === 0) break;
      n += got;
    }
    return n;
  }

  xWrite(h, buf, offset) {
    let n = 0;
    try {
      while (n < buf.length) n += this.fs.writeSync(h.fd, buf, n, buf.length - n, offset + n);
    } catch (e) {
      if (e.code === 'ENOSPC' || e.code === 'EDQUOT') throw withCode(e, SQLITE_FULL);
      throw e;
    }
    if (!this.written.has(h.path)) this.written.add(h.path);
  }

  xTruncate(h, size) { this.fs.ftruncateSync(h.fd, size); }
  xSync(h) { this.fs.fsyncSync(h.fd); }
  xSize(h) { return this.fs.fstatSync(h.fd).size; }

  xDelete(name) {
    try {
      this.fs.unlinkSync(this.resolve(name));
      return true;
    } catch (e) {
      if (e.code === 'ENOENT') return false;
      throw e;
    }
  }

  xAccess(name) { return this.fs.existsSync(this.resolve(name)); }

  // Open files, named ones by SQLite's name.
  list() {
    return [...this.open].map((h) => ({ file: h.path, path: h.temp ? null : h.name, flags: h.flags, size: this.fs.fstatSync(h.fd).size }));
  }

  // Raw bytes of every file written through this backend that still exists.
  scan() {
    const out = [];
    for (const p of this.written) {
      if (!this.fs.existsSync(p)) continue;
      const h = [...this.open].find((x) => x.path === p);
      out.push({ file: p, path: h && !h.temp ? h.name : null, flags: h ? h.flags : 0, bytes: new Uint8Array(this.fs.readFileSync(p)) });
    }
    return out;
  }

  async reserve() {}

  close() {
    for (const h of [...this.open]) this.xClose(h);
  }
}

// The storage kind (./backend.d.ts).
export default {
  name: 'file',
  persistent: true,
  // dir: the directory database names are relative to.
  options: { dir: '.' },
  unavailable: () => (isNode ? null : "storage 'file' is for Node (node:fs); in a browser use 'opfs'"),
  open: (name, options = {}) => FileBackend.create(options.dir ?? '.'),
  // A fresh directory of its own, for the conformance suite.
  async scratch(tag) {
    const { fs, path, os } = await nodeModules();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `sqlite-tempcrypt-${tag.replace(/\W+/g, '-')}-`));
    return { options: { dir }, dispose: () => fs.rmSync(dir, { recursive: true, force: true }) };
  },
};
