// Storage 'file' (Node, its default storage): the backend contract of
// ./backend.d.ts over node:fs.  A database name is a path: an absolute one
// is used as given, a relative one is relative to `dir` (default: the
// working directory), as better-sqlite3 and node:sqlite take it; missing
// parent directories are created.  Symbolic links on the way are resolved
// (physicalPath in ./file-lock.js): the database, its journal and its lock
// live at one physical path whatever name opened it.
//
// Connections take turns per transaction, as with SQLite's unix VFS:
// SQLite's lock levels reach the backend (xLock, xUnlock,
// xCheckReservedLock) and ./file-tx-lock.js takes them with files next to
// the database, in one process and across processes; a connection that
// must wait sleeps in xSleep (SQLite's busy handler, busy_timeout).  An
// import's staging file is held whole by its connection (./file-lock.js).
//
// A temp file is a real file `.sqlite-tempcrypt-tmp-<pid>-<tag>-<n>` next to the
// main database (the directory of `dir` for ':memory:'): ciphertext, as
// tempcrypt encrypts every temp file, deleted when SQLite closes it.  Next
// to the database, not in os.tmpdir(): that directory is writable already
// (the journal is written there), sits on the volume sized for this
// database (a VACUUM or a big sort needs about its size; /tmp is often a
// small tmpfs), and the next open of the database finds what a crashed
// process left (its key died with it) and removes it (wipedAtOpen), once
// the owner file next to it names an owner dead for sure (tempMade).

import { SQLITE_BUSY, SQLITE_CANTOPEN, SQLITE_FULL, SQLITE_OPEN_READONLY, SQLITE_OPEN_CREATE, SQLITE_OPEN_DELETEONCLOSE, SQLITE_OPEN_MAIN_DB, SQLITE_LOCK_NONE } from '../shared/constants.js';
import { backendError } from '../shared/errors.js';
import { isNode } from '../shared/platform.js';
import { FileLock, lockedMessage, ownerGone, ownerText, thisOwner, physicalPath, LOCK_SUFFIX, UNWRITABLE } from './file-lock.js';
import { TxLock } from './file-tx-lock.js';
import { isStagingOf } from '../engine/transfer.js';
import { resolveOpenOptions, SYNC } from '../shared/methods.js';

export const TEMP_PREFIX = '.sqlite-tempcrypt-tmp-';
// A temp file, "<prefix><owner tag>-<n>", and its owner's owner file,
// "<prefix><owner tag>.owner" (the tag: pid and nonce of this thread).
const TEMP_NAME = /^\.sqlite-tempcrypt-tmp-(\d+-[0-9a-f]{8})-\d+$/;
const OWNER_NAME = /^\.sqlite-tempcrypt-tmp-(\d+-[0-9a-f]{8})\.owner$/;
// Numbers the temp files of this thread.  Each is created with O_EXCL
// (trying the next number while one exists), so two backends over the same
// directory (two databases, or two copies of this module) never share one.
let nextTemp = 0;
// Directory -> how many temp files this thread has open there.  The owner
// file (a lock file's owner record: ./file-lock.js) exists while that is
// more than 0, so that another process removes them only once this owner
// is dead for sure (ownerGone), as it takes over a lock.
const tempsIn = new Map();

// node:fs, node:path and node:os, loaded when needed, so that this module
// itself imports nothing Node-only.
async function nodeModules() {
  const names = ['node:fs', 'node:path', 'node:os'];
  const [fs, path, os] = await Promise.all(names.map((n) => import(/* @vite-ignore */ n)));
  return { fs, path, os };
}

// A failed create: SQLITE_FULL when the disk is, else SQLITE_CANTOPEN.
const createError = (e) => backendError(e.code === 'ENOSPC' || e.code === 'EDQUOT' ? SQLITE_FULL : SQLITE_CANTOPEN, e);

// Whether this process may make files in directory dir (a missing one:
// yes, it is made or the open fails).
function writable(fs, dir) {
  try { fs.accessSync(dir, fs.constants.W_OK); return true; } catch (e) { return !UNWRITABLE.has(e.code); }
}

// This thread's temp file tag and the path of its owner file in dir.
function tempOwner(fs, os, pathMod, dir) {
  const me = thisOwner(fs, os);
  const tag = `${me.pid}-${me.nonce.slice(0, 8)}`;
  return { me, tag, file: pathMod.join(dir, `${TEMP_PREFIX}${tag}.owner`) };
}

export class FileBackend {
  // base: the directory relative names are in; main: the main database's
  // full path (null for ':memory:'); mods: node:fs, node:path, node:os.
  constructor(base, main, { fs, path, os }) {
    this.kind = 'file';
    this.headerSize = 0;
    this.fs = fs;
    this.pathMod = path;
    this.os = os;
    this.base = base;
    this.main = main;
    this.tempDir = main ? path.dirname(main) : base;
    this.readOnly = false;       // every file opened read-only (readOnly, or an unwritable directory)
    this.open = new Set();       // handles
    this.unwritable = false;     // nothing can be written next to the main database
    this.locks = new Map();      // full path -> { lock, refs }: import staging files held whole
    this.nap = null;             // xSleep's Int32Array
    this.written = new Set();    // every path written to (inspection)
    this.wipedAtOpen = [];
  }

  // The storage of database `name`: its directory made, then leftovers of
  // dead processes wiped.  readOnly: open every file read-only and make no
  // directory.  Where nothing can be written next to the database (a
  // read-only directory or mount) it is read-only too, its locks write
  // nothing, and temp files go to os.tmpdir().
  static async create(name, { dir, readOnly }) {
    const mods = await nodeModules();
    const base = mods.path.resolve(dir);
    let main = null;
    try {
      if (name !== ':memory:') main = physicalPath(mods.fs, mods.path, name, base);
    } catch (e) {
      throw backendError(SQLITE_CANTOPEN, e);
    }
    const b = new FileBackend(base, main, mods);
    b.readOnly = readOnly;
    try {
      if (!readOnly) mods.fs.mkdirSync(b.tempDir, { recursive: true });
    } catch (e) {
      throw backendError(SQLITE_CANTOPEN, `cannot create the directory ${b.tempDir} for ${main ?? 'temp files'}: ${e.message}`, { cause: e });
    }
    if (main && !writable(mods.fs, b.tempDir)) {
      b.readOnly = b.unwritable = true;
      b.tempDir = mods.os.tmpdir();
    }
    try {
      b.wipeLeftovers();
    } catch (e) {
      b.close();
      throw backendError(SQLITE_CANTOPEN, e);
    }
    return b;
  }

  // SQLite's name of a file (xFullPathname): its physical path, symbolic
  // links resolved, so that the journal SQLite names after it sits next
  // to the file itself.
  xFullPathname(name) {
    return physicalPath(this.fs, this.pathMod, name, this.base);
  }

  resolve(name) {
    if (typeof name !== 'string' || name === '') throw backendError(SQLITE_CANTOPEN, `bad file name: ${name}`);
    return this.pathMod.resolve(this.base, name);
  }

  // Left in the temp directory by owners that are dead for sure (the
  // ownerGone test of locks, ./file-lock.js): temp files, by their owner
  // file (one without is left alone), then the owner files; and an
  // import's staging file of the main database (we hold its lock: no
  // import into it runs) with its lock.
  wipeLeftovers() {
    const { fs, os, pathMod } = this;
    const dead = new Map();   // owner tag -> gone?
    const gone = (tag) => {
      if (!dead.has(tag)) dead.set(tag, ownerGone(fs, os, pathMod.join(this.tempDir, `${TEMP_PREFIX}${tag}.owner`)));
      return dead.get(tag);
    };
    const wipe = [], owners = [];
    for (const f of fs.readdirSync(this.tempDir)) {
      const p = pathMod.join(this.tempDir, f);
      const temp = TEMP_NAME.exec(f), owner = !temp && OWNER_NAME.exec(f);
      if (temp || owner) {
        if (gone((temp || owner)[1])) (temp ? wipe : owners).push({ p, temp: true });
        continue;
      }
      // A staging file and its lock: once the lock's owner is dead (or
      // there is no lock: it is made before the file, removed after).
      const lock = p.endsWith(LOCK_SUFFIX) ? p : p + LOCK_SUFFIX;
      const staging = this.main && isStagingOf(lock.slice(0, -LOCK_SUFFIX.length), this.main);
      if (staging && (ownerGone(fs, os, lock) || (lock !== p && !fs.existsSync(lock)))) wipe.push({ p, temp: false });
    }
    for (const { p, temp } of [...wipe, ...owners]) {
      let size = 0;
      try { size = fs.statSync(p).size; fs.rmSync(p, { force: true }); } catch { continue; }
      this.wipedAtOpen.push({ file: p, path: temp ? null : p, flags: 0, size });
    }
  }

  // A temp file of this thread is made in the temp directory (before) or
  // was removed (after): its owner file is made with the first, removed
  // after the last.
  tempMade() {
    const n = tempsIn.get(this.tempDir) ?? 0;
    if (n === 0) {
      const { me, file } = tempOwner(this.fs, this.os, this.pathMod, this.tempDir);
      this.fs.writeFileSync(file, ownerText(me), { mode: 0o644 });
    }
    tempsIn.set(this.tempDir, n + 1);
  }

  tempGone() {
    const n = tempsIn.get(this.tempDir) - 1;
    if (n > 0) { tempsIn.set(this.tempDir, n); return; }
    tempsIn.delete(this.tempDir);
    this.fs.rmSync(tempOwner(this.fs, this.os, this.pathMod, this.tempDir).file, { force: true });
  }

  // Hold an import's staging file for as long as it is open (by the
  // import, and by SQLite reading it).
  lockFile(path) {
    const held = this.locks.get(path);
    if (held) { held.refs++; return; }
    const lock = new FileLock(this.fs, this.os, this.pathMod, FileLock.pathOf(this.fs, this.pathMod, path));
    const holder = lock.attempt();
    if (holder) throw backendError(SQLITE_BUSY, lockedMessage(path, holder));
    this.locks.set(path, { lock, refs: 1 });
  }

  unlockFile(path) {
    const held = this.locks.get(path);
    if (!held || --held.refs > 0) return;
    this.locks.delete(path);
    held.lock.release();
  }

  xOpen(name, flags) {
    const { fs } = this;
    const temp = name === null;
    const C = fs.constants;
    let readOnly = !temp && (this.readOnly || (flags & SQLITE_OPEN_READONLY) !== 0);
    let mode = temp ? C.O_RDWR | C.O_CREAT | C.O_EXCL
      : readOnly ? C.O_RDONLY : C.O_RDWR | (flags & SQLITE_OPEN_CREATE ? C.O_CREAT : 0);
    const path = temp ? null : this.resolve(name);
    const main = !temp && (flags & SQLITE_OPEN_MAIN_DB) !== 0;
    const lock = main && !!this.main && isStagingOf(path, this.main);
    if (lock) this.lockFile(path);
    let fd, at = path, made = false;
    try {
      if (temp) {
        try { this.tempMade(); } catch (e) { throw createError(e); }
        made = true;
      }
      const tag = temp && tempOwner(fs, this.os, this.pathMod, this.tempDir).tag;
      for (;;) {
        if (temp) at = this.pathMod.join(this.tempDir, `${TEMP_PREFIX}${tag}-${++nextTemp}`);
        try {
          fd = fs.openSync(at, mode, 0o600);
          break;
        } catch (e) {
          if (temp && e.code === 'EEXIST') continue;
          // A file this process may read but not write (mode 0444, another
          // user's, a read-only mount): read-only, as SQLite's unix VFS.
          if (!temp && !readOnly && UNWRITABLE.has(e.code)) {
            readOnly = true;
            mode = C.O_RDONLY;
            continue;
          }
          throw createError(e);
        }
      }
    } catch (e) {
      if (lock) this.unlockFile(path);
      if (made) this.tempGone();
      throw e;
    }
    const h = { fd, name: temp ? at : name, path: at, flags, temp, locked: lock, readOnly };
    if (main && !lock) h.tx = new TxLock(fs, this.os, this.pathMod, path, this.unwritable);
    this.open.add(h);
    return h;
  }

  xClose(h) {
    if (!this.open.delete(h)) return;
    try {
      this.fs.closeSync(h.fd);
      if (h.temp || h.flags & SQLITE_OPEN_DELETEONCLOSE) this.fs.rmSync(h.path, { force: true });
    } finally {
      if (h.temp) this.tempGone();
      if (h.locked) this.unlockFile(h.path);
      h.tx?.unlock(SQLITE_LOCK_NONE);
    }
  }

  // SQLite's lock levels of a database file (./file-tx-lock.js): xLock
  // true when held, false when busy.
  xLock(h, level) { return h.tx ? h.tx.lock(level) : true; }
  xUnlock(h, level) { h.tx?.unlock(level); }
  xCheckReservedLock(h) { return h.tx ? h.tx.reservedLock() : false; }

  // Block for us microseconds: SQLite's busy handler waits so for a lock.
  xSleep(us) {
    this.nap ??= new Int32Array(new SharedArrayBuffer(4));
    Atomics.wait(this.nap, 0, 0, Math.max(1, Math.round(us / 1000)));
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
      if (e.code === 'ENOSPC' || e.code === 'EDQUOT') throw backendError(SQLITE_FULL, e);
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

  // Close every file and let go of every lock.
  close() {
    try {
      for (const h of [...this.open]) this.xClose(h);
    } finally {
      for (const { lock } of this.locks.values()) lock.release();
      this.locks.clear();
    }
  }
}

// The storage kind (./backend.d.ts).
export default {
  name: 'file',
  persistent: true,
  // dir: the directory relative names are in; readOnly: no writes
  // (SQLITE_READONLY), nothing made.
  options: ['dir', 'readOnly'],
  unavailable: () => (isNode ? null : "storage 'file' is for Node (node:fs); in a browser use 'opfs'"),
  open: (name, options = {}) => FileBackend.create(name, resolveOpenOptions(options, SYNC)),
  // A fresh directory of its own, for the conformance suite.
  async scratch(tag) {
    const { fs, path, os } = await nodeModules();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `sqlite-tempcrypt-${tag.replace(/\W+/g, '-')}-`));
    return { options: { dir }, dispose: () => fs.rmSync(dir, { recursive: true, force: true }) };
  },
};
