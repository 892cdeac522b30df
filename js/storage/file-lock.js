// The lock files of storage 'file' (Node): an exclusive lock a file
// system creates atomically, since Node has no flock() or fcntl() locks:
// the lock file "<name>.tempcrypt-lock", published with link(2), which
// fails with EEXIST when the name exists (POSIX, NTFS, NFS).  A database's
// writer lock (./file-tx-lock.js: RESERVED, per transaction) and an
// import's staging file (held while the import runs) are such locks; a
// process that exits removes its locks; one that crashed leaves them
// behind, and the next taker that finds the owner dead takes them over.
// test/bench/file-lock.mjs measured the candidates (O_EXCL create, link,
// mkdir); docs/api.md says why link.  The owner records (and ownerGone)
// also judge reader tokens and the temp files' owner files.
//
// The lock file's text is LOCK_MAGIC and a JSON line: the owner's pid,
// host name, boot id, pid namespace and process start time (Linux), when
// it took the lock, and a random nonce naming this acquisition.  link()
// publishes it whole (written and synced under a name of its own first),
// so a reader never sees it half written, and a file without LOCK_MAGIC is
// never taken for a lock (nor removed).
//
// Takeover of a dead owner's lock is itself locked, so that two takers
// never both win: a taker must first create "<lock>.takeover-<nonce of the
// dead lock>" the same way (one winner), then check that the lock still is
// that dead one, remove it, remove the marker, and try again like any
// opener.  The marker is a lock file too: a taker that died holding it is
// taken over the same way (a few levels deep at most).
//
// Whether an owner is dead: on the same host (same boot and pid namespace)
// its pid is gone (kill(pid, 0): ESRCH), is a zombie (killed, not reaped:
// /proc/<pid>/stat state Z) or now is another process (its start time
// differs).  A worker thread's lock (Linux) names its kernel thread id
// and start time too: it is dead when that thread of this process is gone
// from /proc/self/task (terminate() and an uncaught exception run no code
// of the thread, so it cannot let go itself).
// Anything uncertain (another host, another container) counts as alive:
// such a lock waits, then is SQLITE_BUSY naming its owner, and is removed
// by hand if that owner is gone.
import { SQLITE_BUSY, SQLITE_CANTOPEN } from '../shared/constants.js';
import { backendError } from '../shared/errors.js';

export const LOCK_SUFFIX = '.tempcrypt-lock';
export const LOCK_MAGIC = 'sqlite-tempcrypt lock 1\n';
const TAKEOVER = '.takeover-';
const MAX_DEPTH = 4;            // markers of markers: one level per taker that died mid-takeover
const NEW_AGE_MS = 60 * 1000;   // a "<lock>.<...>.new" file older than this is a dead writer's
const MAX_LINKS = 100;          // symbolic links on one path at most (SQLite's SQLITE_MAX_SYMLINK)

// The errors of a file that may not be written (mode, owner, read-only
// mount, immutable).
export const UNWRITABLE = new Set(['EACCES', 'EROFS', 'EPERM']);

const held = new Set();         // locks this process holds (released when it exits)
let exitHook = false;
// The holder when a lock changed hands too often to say whose it is.
const CONTENDED = { pid: 0, host: 'unknown', since: 'now', nonce: '' };

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

// The fields of /proc/<task>/stat after the command name: [0] the state,
// [19] the start time (clock ticks since boot).
const statFields = (stat) => stat.slice(stat.lastIndexOf(')') + 2).split(' ');

// The fields of /proc/<pid>/stat (Linux), or null.
function procStat(fs, pid) {
  try { return statFields(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')); } catch { return null; }
}

// The start time of process pid (Linux), or null.
const startTime = (fs, pid) => procStat(fs, pid)?.[19] ?? null;

// This thread's kernel thread id and start time when it is a worker
// thread of this process (Linux: /proc/thread-self), else null: the main
// thread lives as long as the process.
function workerThread(fs) {
  const at = readOr(() => fs.readlinkSync('/proc/thread-self'));
  const m = at && /^(\d+)\/task\/(\d+)$/.exec(at);
  if (!m || Number(m[1]) !== process.pid || Number(m[2]) === process.pid) return null;
  const tstart = readOr(() => statFields(fs.readFileSync(`/proc/self/task/${m[2]}/stat`, 'utf8'))[19]);
  return tstart ? { tid: Number(m[2]), tstart } : null;
}

// Whether worker thread `tid` of this process, started at tstart, is gone:
// no such thread, one that is exiting (state Z or X), or another thread
// that took its id.  Anything else (unreadable) counts as alive.
function threadGone(fs, tid, tstart) {
  let f;
  try { f = statFields(fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')); } catch (e) { return e.code === 'ENOENT' || e.code === 'ESRCH'; }
  return f[0] === 'Z' || f[0] === 'X' || f[19] !== tstart;
}

function readOr(fn) {
  try { return fn(); } catch { return null; }
}

let self = null;
// This process, as its lock files name it.
function identity(fs, os) {
  if (!self) {
    self = {
      pid: process.pid,
      host: os.hostname(),
      boot: readOr(() => fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()),
      pidns: readOr(() => fs.readlinkSync('/proc/self/ns/pid')),
      start: startTime(fs, process.pid),
      ...workerThread(fs),
    };
  }
  return self;
}

// The physical path of file `name` (relative to directory base): every
// symbolic link on the way resolved, the file's own too, and a dangling
// one to the name it points at (the file is made there), each ".." taken
// from the directory reached so far, as the kernel's open() walks a path
// and as SQLite's unix VFS makes a database's full name (unixFullPathname).
// The database, its journal and its lock all live at this one path, so
// that two names of one file (a link and its target) share the lock and
// a crash's hot journal is found by whichever name opens it next.  More
// than MAX_LINKS links (a loop) is SQLITE_CANTOPEN, as ELOOP is.
export function physicalPath(fs, pathMod, name, base = '.') {
  const sep = pathMod.sep;
  const split = (p) => p.split(sep === '/' ? '/' : /[\\/]/);
  const abs = pathMod.isAbsolute(name) ? name : pathMod.resolve(base) + sep + name;
  let root = pathMod.parse(abs).root;
  const pending = split(abs.slice(root.length)).reverse();
  const done = [];
  for (let links = 0; pending.length;) {
    const part = pending.pop();
    if (part === '' || part === '.') continue;
    if (part === '..') { done.pop(); continue; }
    const here = root + [...done, part].join(sep);
    let target = null;
    try {
      if (fs.lstatSync(here).isSymbolicLink()) target = fs.readlinkSync(here);
    } catch { /* not there (yet), or not ours to look at: the open() says */ }
    if (target === null) { done.push(part); continue; }
    if (++links > MAX_LINKS) {
      throw backendError(SQLITE_CANTOPEN, `cannot open ${name}: more than ${MAX_LINKS} symbolic links on its path (a loop?)`);
    }
    if (pathMod.isAbsolute(target)) {
      root = pathMod.parse(target).root;
      done.length = 0;
      target = target.slice(root.length);
    }
    pending.push(...split(target).reverse());
  }
  return root + done.join(sep);
}

// Whether the owner of a lock (its parsed text) is dead for sure.
export function ownerDead(fs, os, owner) {
  const me = identity(fs, os);
  if (owner.host !== me.host) return false;
  if (owner.boot && me.boot && owner.boot !== me.boot) return true;   // the machine restarted since
  if ((owner.pidns ?? null) !== me.pidns) return false;
  try {
    process.kill(owner.pid, 0);
  } catch (e) {
    if (e.code === 'ESRCH') return true;
    if (e.code !== 'EPERM') return false;   // EPERM: alive, another user's
  }
  // A zombie (killed, not yet reaped by its parent: common under a PID 1
  // that reaps nothing) runs no code and holds nothing any more.
  const stat = procStat(fs, owner.pid);
  if (stat && (stat[0] === 'Z' || stat[0] === 'X')) return true;
  const now = owner.start && stat ? stat[19] ?? null : null;
  if (now !== null && now !== owner.start) return true;   // the pid is another process now
  // This very process: a lock of one of its worker threads (terminated, or
  // ended by an exception, without closing) dies with that thread.
  return owner.pid === me.pid && owner.start != null && owner.start === me.start &&
    typeof owner.tid === 'number' && owner.tid !== me.tid && threadGone(fs, owner.tid, owner.tstart);
}

// This thread's owner record, as lock files and the owner files of temp
// files name it: identity() and a nonce of its own.
let mine = null;
export function thisOwner(fs, os) {
  mine ??= { ...identity(fs, os), since: new Date().toISOString(), nonce: hex(crypto.getRandomValues(new Uint8Array(16))) };
  return mine;
}

// The text of a lock file (or owner file) naming owner.
export const ownerText = (owner) => LOCK_MAGIC + JSON.stringify(owner) + '\n';

// Whether the file at path is a lock (or owner file) whose owner is dead
// for sure: false for a missing file, one that is none of ours, and a
// live or uncertain owner.  The one test before removing what another
// process left (locks, takeover markers, temp files, staging files).
export function ownerGone(fs, os, path) {
  const owner = readOr(() => readLock(fs, path));
  return !!owner && !owner.gone && ownerDead(fs, os, owner);
}

// The owner written in a lock file, or null when it is none of ours.
export function readLock(fs, path) {
  let text;
  try { text = fs.readFileSync(path, 'utf8'); } catch (e) {
    if (e.code === 'ENOENT') return { gone: true };
    throw e;
  }
  if (!text.startsWith(LOCK_MAGIC)) return null;
  try {
    const owner = JSON.parse(text.slice(LOCK_MAGIC.length));
    return typeof owner.pid === 'number' && typeof owner.nonce === 'string' ? owner : null;
  } catch { return null; }
}

// "process 1234 on host h (since ...)", naming its worker thread if it
// is one.
function describeOwner(owner) {
  const thread = typeof owner.tid === 'number' ? `, worker thread ${owner.tid} (kernel thread id)` : '';
  return `process ${owner.pid} on host ${owner.host}${thread} (since ${owner.since})`;
}

// "database <db> is locked by <owner>: <who that is>".
export function lockedMessage(db, owner) {
  const us = owner.pid === process.pid && owner.host === self?.host && owner.start === self?.start;
  const who = !us ? 'another connection has it open'
    : typeof owner.tid === 'number' ? 'a live worker thread of this process has it open; close it there first'
      : 'this process has it open; close that connection first (a worker thread that ended without closing it, ' +
        'on a system without /proc/thread-self, holds it until the process exits)';
  return `database ${db} is locked by ${describeOwner(owner)}: ${who}`;
}

export class FileLock {
  // path: the lock file; fs, os, pathMod: node:fs, node:os, node:path.
  constructor(fs, os, pathMod, path) {
    Object.assign(this, { fs, os, pathMod, path, owner: null });
  }

  // The lock file of database file db: next to the file it names once
  // symbolic links are resolved (physicalPath), so that every name of one
  // file shares it.
  static pathOf(fs, pathMod, db) {
    return physicalPath(fs, pathMod, db) + LOCK_SUFFIX;
  }

  // Take the lock of database file db, waiting up to timeoutMs for its
  // holder; resolves to the FileLock or rejects with SQLITE_BUSY naming
  // the holder (SQLITE_CANTOPEN when the lock cannot be made at all).
  static async acquire(fs, os, pathMod, db, timeoutMs) {
    const lock = new FileLock(fs, os, pathMod, FileLock.pathOf(fs, pathMod, db));
    const deadline = Date.now() + timeoutMs;
    for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
      let holder;
      try { holder = lock.attempt(); } catch (e) {
        if (typeof e?.sqliteCode === 'number') throw e;
        throw backendError(SQLITE_CANTOPEN, `cannot lock database ${db}: ${e.message}`, { cause: e });
      }
      if (!holder) return lock;
      if (Date.now() >= deadline) {
        throw backendError(SQLITE_BUSY, `${lockedMessage(db, holder)}; waited ${timeoutMs} ms (lockTimeoutMs). ` +
          `Its lock file is ${lock.path}`);
      }
      await new Promise((r) => setTimeout(r, Math.min(pause, Math.max(1, deadline - Date.now()))));
    }
  }

  // Take the lock at once or not at all: null when taken, else the
  // holder's owner record.  Where no file can be made (a read-only
  // directory or mount: EACCES, EROFS, EPERM), the lock is `unwritable`:
  // null when no live owner holds it, written by nobody.  wipe: remove
  // what dead takers left next to it once taken (at open; not for the
  // locks of each transaction).
  attempt({ wipe = true } = {}) {
    const me = identity(this.fs, this.os);
    const owner = { ...me, since: new Date().toISOString(), nonce: hex(crypto.getRandomValues(new Uint8Array(16))) };
    let got;
    try { got = this.take(owner, 0); } catch (e) {
      if (!UNWRITABLE.has(e?.code)) throw e;
      this.unwritable = true;
      const holder = readLock(this.fs, this.path);
      return holder && !holder.gone && !ownerDead(this.fs, this.os, holder) ? holder : null;
    }
    if (got) return got;
    this.owner = owner;
    holdUntilExit(this);
    if (wipe) this.wipeLeftovers();
    return null;
  }

  // Make `path` (the lock, or a takeover marker at depth > 0) ours:
  // null when it is, else the live holder.
  take(owner, depth, path = this.path) {
    const { fs } = this;
    const text = ownerText(owner);
    const tmp = `${this.path}.${owner.pid}-${owner.nonce.slice(0, 8)}-${depth}.new`;
    fs.writeFileSync(tmp, text, { flag: 'wx', mode: 0o644 });
    try {
      const fd = fs.openSync(tmp, 'r+');
      try { fs.fsyncSync(fd); } finally { fs.closeSync(fd); }
      for (let round = 0; round < 8; round++) {
        if (this.link(tmp, path)) return null;
        const holder = readLock(fs, path);
        if (holder && holder.gone) continue;   // let go meanwhile: try again
        if (!holder) {
          throw backendError(SQLITE_CANTOPEN, `cannot lock ${this.path}: ${path} exists and is not a lock file of sqlite-tempcrypt (remove it if nothing uses it)`);
        }
        if (!ownerDead(fs, this.os, holder)) return holder;
        if (depth >= MAX_DEPTH) return holder;
        // Its owner is dead: take it over under the marker of that lock.
        const marker = `${path}${TAKEOVER}${holder.nonce}`;
        const other = this.take(owner, depth + 1, marker);
        if (other) return other;   // another taker is at it: as busy as the lock itself
        try {
          const now = readLock(fs, path);
          if (now && !now.gone && now.nonce === holder.nonce) fs.rmSync(path, { force: true });
        } finally {
          fs.rmSync(marker, { force: true });
        }
      }
      const last = readLock(fs, path);
      return last && !last.gone ? last : CONTENDED;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }

  // link(tmp, path): true when path is now tmp's file.  A link() whose
  // reply was lost (NFS) is found out by tmp's link count.
  link(tmp, path) {
    const { fs } = this;
    try {
      fs.linkSync(tmp, path);
      return true;
    } catch (e) {
      if (e.code === 'EEXIST') return fs.statSync(tmp).nlink === 2;
      if (e.code === 'EPERM' || e.code === 'ENOTSUP' || e.code === 'ENOSYS' || e.code === 'EOPNOTSUPP') {
        throw backendError(SQLITE_CANTOPEN, `cannot lock ${path}: this file system has no hard links (${e.code}), which storage 'file' locks with`);
      }
      throw backendError(SQLITE_CANTOPEN, e);
    }
  }

  // What dead takers and writers left next to the lock: markers of locks
  // long gone (never one of the lock held now) and stale ".new" files.
  wipeLeftovers() {
    const { fs, pathMod } = this;
    const dir = pathMod.dirname(this.path), base = pathMod.basename(this.path);
    let names;
    try { names = fs.readdirSync(dir); } catch { return; }
    for (const n of names) {
      if (!n.startsWith(base + '.')) continue;
      const p = pathMod.join(dir, n);
      const mine = n.includes(this.owner.nonce.slice(0, 8)) || n.endsWith(this.owner.nonce);
      const stale = n.endsWith('.new') ? readOr(() => Date.now() - fs.statSync(p).mtimeMs > NEW_AGE_MS) : n.includes(TAKEOVER);
      if (stale && !mine) fs.rmSync(p, { force: true });
    }
  }

  // Let go (only of a lock that still is ours).
  release() {
    if (!this.owner) return;
    const owner = this.owner;
    this.owner = null;
    letGoAtExit(this);
    const now = readOr(() => readLock(this.fs, this.path));
    if (now && !now.gone && now.nonce === owner.nonce) this.fs.rmSync(this.path, { force: true });
  }
}

// Release x (a lock: x.release()) when this process exits, if not before.
export function holdUntilExit(x) {
  held.add(x);
  if (!exitHook) { exitHook = true; process.on('exit', releaseAll); }
}
export const letGoAtExit = (x) => held.delete(x);

function releaseAll() {
  for (const lock of [...held]) {
    try { lock.release(); } catch { /* exiting */ }
  }
}
