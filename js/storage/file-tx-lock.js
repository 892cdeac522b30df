// The locks of storage 'file' (Node) per transaction: SQLite's levels
// (SHARED, RESERVED, PENDING, EXCLUSIVE), which the VFS hands the backend
// through xLock, xUnlock and xCheckReservedLock, as SQLite's unix VFS
// takes them with fcntl() byte ranges: readers side by side, one writer,
// new readers held off while the writer waits for the old ones to finish.
// Node has no fcntl() locks, so each level is files next to the database,
// each holding its owner's record (./file-lock.js), so that a crashed
// owner's are taken over or removed, never waited for:
//
//   SHARED      a reader token "<db>.tempcrypt-read-<pid>-<tag>-<n>" of
//               its own (created with O_EXCL, removed at NONE)
//   RESERVED    the lock "<db>.tempcrypt-lock", published with link(2)
//               (one winner), the takeover of a dead one as FileLock does
//   PENDING     "<db>.tempcrypt-lock-pending": a second link(2) of the
//               RESERVED lock file (only its holder makes one, so one
//               found then is a dead holder's, removed)
//   EXCLUSIVE   PENDING held and no live reader token but its own
//
// A reader checks PENDING before and after making its token: a writer
// makes PENDING before it lists the tokens, so a reader either is listed
// (the writer waits) or sees PENDING (the reader backs off).  An owner is
// this handle: two connections of one process hold different tokens and
// exclude each other like two processes.
//
// Where nothing can be written (a read-only directory: the backend is
// read-only there) SHARED writes no token: it only checks that no live
// writer is at PENDING or above, and a writer cannot see such a reader.
import { SQLITE_CANTOPEN, SQLITE_LOCK_NONE, SQLITE_LOCK_SHARED, SQLITE_LOCK_RESERVED, SQLITE_LOCK_EXCLUSIVE } from '../shared/constants.js';
import { backendError } from '../shared/errors.js';
import { FileLock, LOCK_SUFFIX, ownerDead, ownerText, readLock, thisOwner, holdUntilExit, letGoAtExit } from './file-lock.js';

export const PENDING_SUFFIX = LOCK_SUFFIX + '-pending';
export const READER_INFIX = '.tempcrypt-read-';
const HALF_MADE_MS = 60 * 1000;   // a reader token without its owner record older than this is a crashed reader's
let nextToken = 0;

export class TxLock {
  // db: the database file's physical path; unwritable: take SHARED
  // without a token (nothing can be written next to db).
  constructor(fs, os, pathMod, db, unwritable = false) {
    Object.assign(this, { fs, os, pathMod, db, unwritable });
    this.level = SQLITE_LOCK_NONE;
    this.token = null;       // { path, release() } while SHARED or above
    this.reserved = null;    // FileLock while RESERVED or above
    this.pending = null;     // FileLock while PENDING (or EXCLUSIVE)
    this.dir = pathMod.dirname(db);
    this.readers = pathMod.basename(db) + READER_INFIX;
  }

  // Whether a live owner holds file `path` (a lock of FileLock's).
  heldByOther(path) {
    const owner = readLock(this.fs, path);
    if (!owner) return true;   // a file that is none of ours: as held (FileLock says so on take)
    return !owner.gone && !ownerDead(this.fs, this.os, owner);
  }

  // Raise to level: true when it holds it now, false when busy (SQLite's
  // SQLITE_BUSY; a PENDING taken on the way to EXCLUSIVE is kept).
  lock(level) {
    if (this.level >= level) return true;
    if (level === SQLITE_LOCK_SHARED) return this.share();
    if (!this.reserved && !this.take('reserved', this.db + LOCK_SUFFIX)) return false;
    if (level === SQLITE_LOCK_RESERVED) { this.level = level; return true; }
    if (!this.pending && !this.markPending()) return false;
    if (this.liveReaders()) return false;
    this.level = SQLITE_LOCK_EXCLUSIVE;
    return true;
  }

  share() {
    const pending = this.db + PENDING_SUFFIX;
    if (this.heldByOther(pending)) return false;
    if (!this.unwritable) {
      const me = thisOwner(this.fs, this.os);
      const path = `${this.db}${READER_INFIX}${me.pid}-${me.nonce.slice(0, 8)}-${++nextToken}`;
      this.fs.writeFileSync(path, ownerText({ ...me, since: new Date().toISOString() }), { flag: 'wx', mode: 0o644 });
      this.token = { path, release: () => this.fs.rmSync(path, { force: true }) };
      holdUntilExit(this.token);
      if (this.heldByOther(pending)) { this.dropToken(); return false; }
    }
    this.level = SQLITE_LOCK_SHARED;
    return true;
  }

  // Take FileLock `which` ('reserved') at path, at once or not at all.
  take(which, path) {
    const lock = new FileLock(this.fs, this.os, this.pathMod, path);
    if (lock.attempt({ wipe: false })) return false;
    this[which] = lock;
    return true;
  }

  // PENDING, while holding RESERVED: its lock file linked once more.
  markPending() {
    const { fs } = this;
    const path = this.db + PENDING_SUFFIX, mine = this.reserved.owner.nonce;
    for (let round = 0; round < 4; round++) {
      try {
        fs.linkSync(this.db + LOCK_SUFFIX, path);
      } catch (e) {
        if (e.code !== 'EEXIST') throw e;
        const owner = readLock(fs, path);
        if (!owner) throw backendError(SQLITE_CANTOPEN, `cannot lock ${this.db}: ${path} exists and is not a lock file of sqlite-tempcrypt (remove it if nothing uses it)`);
        if (!owner.gone && owner.nonce !== mine) {
          if (!ownerDead(fs, this.os, owner)) return false;
          fs.rmSync(path, { force: true });
          continue;
        }
        if (owner.gone) continue;
      }
      this.pending = { release: () => { if (readLock(fs, path)?.nonce === mine) fs.rmSync(path, { force: true }); } };
      holdUntilExit(this.pending);
      return true;
    }
    return false;
  }

  // Whether a live reader other than this handle holds a token; the
  // tokens of dead readers are removed on the way.
  liveReaders() {
    const { fs, pathMod } = this;
    for (const n of fs.readdirSync(this.dir)) {
      if (!n.startsWith(this.readers)) continue;
      const p = pathMod.join(this.dir, n);
      if (p === this.token?.path) continue;
      const owner = readLock(fs, p);
      if (owner?.gone) continue;
      const dead = owner ? ownerDead(fs, this.os, owner)
        : Date.now() - (fs.statSync(p, { throwIfNoEntry: false })?.mtimeMs ?? 0) > HALF_MADE_MS;
      if (!dead) return true;
      fs.rmSync(p, { force: true });
    }
    return false;
  }

  dropToken() {
    if (!this.token) return;
    letGoAtExit(this.token);
    this.token.release();
    this.token = null;
  }

  // Lower to level (SHARED or NONE).
  unlock(level) {
    if (level < SQLITE_LOCK_EXCLUSIVE && this.pending) { letGoAtExit(this.pending); this.pending.release(); this.pending = null; }
    if (level < SQLITE_LOCK_RESERVED && this.reserved) { this.reserved.release(); this.reserved = null; }
    if (level < SQLITE_LOCK_SHARED) this.dropToken();
    if (level < this.level) this.level = level;
  }

  // Whether any connection (this one too) holds RESERVED or above: a live
  // owner of the lock file.  A dead one's is not (its hot journal is for
  // the next writer to roll back).
  reservedLock() {
    return !!this.reserved || this.heldByOther(this.db + LOCK_SUFFIX);
  }
}
