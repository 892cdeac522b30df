// The storage backend of storage 'opfs' (contract: ./backend.d.ts; its
// options and names: ./opfs-backend.js): a pool of files in one OPFS
// directory, each opened once with a FileSystemSyncAccessHandle (these can
// only be created asynchronously, so they are created ahead of need: at
// open, and again after each call that took free files).
//
// Every pool file starts with a 4096-byte header saying which SQLite file
// it holds (path, open flags, checksum); the file's bytes follow.  A pool
// file that held a temporary file (no name, or deleted on close) is wiped
// when the pool opens, so leftovers of a crashed tab do not stay on disk.
// A file whose header is damaged (neither valid nor all zero) but which
// holds data may be the main database or its journal: the pool refuses to
// open (SQLITE_CORRUPT naming the file) and leaves every byte as it is.
// A pool is held by one tab or worker at a time: it takes the Web Lock
// 'sqlite-tempcrypt:<pool name>' at open (waiting up to lockTimeoutMs) and
// keeps it until close(); a second tab opening the same pool gets a
// SQLITE_BUSY error that says why once that time is up.  (Access handles are exclusive too.)
import {
  SQLITE_BUSY, SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_FULL, SQLITE_CANTOPEN,
  SQLITE_OPEN_CREATE, SQLITE_OPEN_DELETEONCLOSE, SQLITE_OPEN_MAIN_DB, SQLITE_OPEN_MAIN_JOURNAL,
  SQLITE_OPEN_SUPER_JOURNAL, SQLITE_OPEN_WAL,
} from '../shared/constants.js';
import { backendError } from '../shared/errors.js';
import { POOL_LOCK, hasWebLocks, holdLock } from '../shared/locks.js';

// The pool's file header: POOL_HEADER_SIZE bytes at the start of every
// pool file, little-endian u32 fields at these offsets, then the path's
// UTF-8 bytes; the SQLite file's bytes follow the header.
export const POOL_HEADER_SIZE = 4096;
export const POOL_MAGIC = 0x31504354;   // 'TCP1'
export const POOL_OFFSET_MAGIC = 0;
export const POOL_OFFSET_FLAGS = 4;
export const POOL_OFFSET_PATH_LENGTH = 8;
export const POOL_OFFSET_CHECKSUM = 12;
export const POOL_OFFSET_PATH = 16;

// A path's room in the header (after magic, flags, length, checksum).
// The longest path SQLite hands the VFS, plus a suffix, fits in it
// (test/unit/storage.test.mjs).
export const PATH_ROOM = POOL_HEADER_SIZE - POOL_OFFSET_PATH;
// Files that outlive a connection (never wiped as temp leftovers).
export const PERSISTENT = SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_SUPER_JOURNAL | SQLITE_OPEN_WAL;
export const POOL_ROOT = '.sqlite-tempcrypt';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });   // a leading U+FEFF is text, kept

// The UTF-8 bytes of a path for a pool file's header, or SQLITE_CANTOPEN.
function pathBytes(path) {
  const bytes = encoder.encode(path);
  if (bytes.length > PATH_ROOM) throw backendError(SQLITE_CANTOPEN, `file name too long for the OPFS pool: ${path}`);
  return bytes;
}

function fnv1a(bytes, n) {
  let h = 0x811c9dc5;
  for (let i = 0; i < n; i++) h = Math.imul(h ^ bytes[i], 0x01000193) >>> 0;
  return h;
}

// A slot is free when its header holds no path.
function isTempSlot(flags) {
  return (flags & SQLITE_OPEN_DELETEONCLOSE) !== 0 || (flags & PERSISTENT) === 0;
}

// Whether OPFS sync access handles exist here (a dedicated Worker).
export function opfsAvailable() {
  return typeof navigator === 'object' && !!navigator.storage?.getDirectory &&
    typeof FileSystemSyncAccessHandle !== 'undefined';
}

// Take the pool's Web Lock (../shared/locks.js), waiting up to timeoutMs (0: not
// at all) for the tab or worker holding it to let go; resolves to the
// function that releases it, or rejects with SQLITE_BUSY.  Exported for
// the unit test.
export async function lockPool(name, timeoutMs = 0) {
  if (!hasWebLocks()) throw backendError(SQLITE_CANTOPEN, 'the Web Locks API (navigator.locks) is not available here; the OPFS pool needs it');
  const release = await holdLock(POOL_LOCK + name, timeoutMs > 0 ? { timeoutMs } : { ifAvailable: true });
  if (release) return () => release();
  throw backendError(SQLITE_BUSY, `database pool "${name}" is in use by another tab or worker (it holds the Web Lock "${POOL_LOCK}${name}"${timeoutMs > 0 ? `; waited ${timeoutMs} ms` : ''})`);
}

const isLockedError = (e) => !!e && (e.name === 'NoModificationAllowedError' || e.name === 'InvalidStateError');

// Every file's sync access handle, or none.  A tab that goes away releases
// the pool's Web Lock at once, but the browser may release its access
// handles a moment later (seen in Firefox): so, holding the lock, locked
// files are tried again until the open's deadline (lockTimeoutMs from its
// start; 0: one try).  Exported for the unit test.
export async function accessHandles(dir, deadline, pauseMs = 50) {
  for (;;) {
    const got = [];
    try {
      for await (const [fname, handle] of dir.entries()) {
        if (handle.kind !== 'file') continue;
        got.push([fname, await handle.createSyncAccessHandle()]);
      }
      return got;
    } catch (e) {
      for (const [, ah] of got) { try { ah.close(); } catch { /* closing anyway */ } }
      if (!isLockedError(e) || Date.now() >= deadline) throw e;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  }
}

export class OpfsPool {
  // Open (creating if needed) the pool in directory POOL_ROOT/<name>.
  static async open(name, { minFree, lockTimeoutMs }) {
    if (!opfsAvailable()) {
      throw backendError(SQLITE_CANTOPEN, 'OPFS with FileSystemSyncAccessHandle is not available here (it needs a dedicated Worker in a browser that supports OPFS)');
    }
    // The pool's Web Lock, held until close(): two tabs opening a new
    // (empty) pool at once would otherwise both succeed, as neither finds
    // a file the other holds.
    const deadline = Date.now() + lockTimeoutMs;
    const unlock = await lockPool(name, lockTimeoutMs);
    let pool;
    try {
      const root = await navigator.storage.getDirectory();
      const top = await root.getDirectoryHandle(POOL_ROOT, { create: true });
      const dir = await top.getDirectoryHandle(name, { create: true });
      pool = new OpfsPool(name, dir, minFree);
    } catch (e) {
      unlock();
      throw e;
    }
    pool.unlock = unlock;
    let handles = [];
    try {
      handles = await accessHandles(pool.dir, deadline);
      for (const [fname, ah] of handles) pool.adopt(fname, ah);
      pool.checkDamaged();
      await pool.reserve();
    } catch (e) {
      for (const [, ah] of handles) { try { ah.close(); } catch { /* adopted: closed by close() */ } }
      await pool.close();
      if (isLockedError(e)) {
        throw backendError(SQLITE_BUSY, `database pool "${name}" is in use by another tab or worker (its OPFS files are locked): ${e.message}`);
      }
      throw e;
    }
    return pool;
  }

  constructor(name, dir, minFree) {
    this.kind = 'opfs';
    this.headerSize = POOL_HEADER_SIZE;
    this.name = name;
    this.dir = dir;
    this.minFree = minFree;
    this.slots = [];             // { fname, ah, path, flags }
    this.byPath = new Map();     // path -> slot
    this.free = [];              // slots holding nothing
    this.wipedAtOpen = [];       // { file, path, flags, size } wiped by open
    this.damaged = [];           // { file, size, why }: refused by open
    this.inflight = new Set();   // reserve() calls still running
    this.nextTemp = 0;
    this.reserveError = null;    // why the last reserve() failed, if it did
    this.topping = null;         // the top-up after a call took free files
    this.headerBuf = new Uint8Array(POOL_HEADER_SIZE);
    this.at = { at: 0 };         // reused { at } of xRead/xWrite
  }

  // The header of a pool file: { flags, path }, null when it is all zero
  // (free, as writeHeader(null) leaves it), or { damaged: why }.
  readHeader(slot) {
    const h = this.headerBuf;
    h.fill(0);
    slot.ah.read(h, { at: 0 });
    const dv = new DataView(h.buffer);
    const n = dv.getUint32(POOL_OFFSET_PATH_LENGTH, true);
    if (dv.getUint32(POOL_OFFSET_MAGIC, true) !== POOL_MAGIC) return h.every((b) => b === 0) ? null : { damaged: 'no pool header' };
    if (n === 0 || n > PATH_ROOM) return { damaged: `path length ${n}` };
    const sum = dv.getUint32(POOL_OFFSET_CHECKSUM, true);
    dv.setUint32(POOL_OFFSET_CHECKSUM, 0, true);
    if (fnv1a(h, POOL_OFFSET_PATH + n) !== sum) return { damaged: 'checksum mismatch' };
    return { flags: dv.getUint32(POOL_OFFSET_FLAGS, true), path: decoder.decode(h.subarray(POOL_OFFSET_PATH, POOL_OFFSET_PATH + n)) };
  }

  // bytes: pathBytes() of the file's path, or null for a free file.
  writeHeader(slot, bytes, flags) {
    const h = this.headerBuf;
    h.fill(0);
    if (bytes !== null) {
      const dv = new DataView(h.buffer);
      dv.setUint32(POOL_OFFSET_MAGIC, POOL_MAGIC, true);
      dv.setUint32(POOL_OFFSET_FLAGS, flags, true);
      dv.setUint32(POOL_OFFSET_PATH_LENGTH, bytes.length, true);
      h.set(bytes, POOL_OFFSET_PATH);
      dv.setUint32(POOL_OFFSET_CHECKSUM, fnv1a(h, POOL_OFFSET_PATH + bytes.length), true);
    }
    slot.ah.write(h, { at: 0 });
  }

  adopt(fname, ah) {
    const slot = { fname, ah, path: null, flags: 0, gen: 0 };
    this.slots.push(slot);
    let hdr = this.readHeader(slot);
    const size = ah.getSize();
    if (hdr && hdr.damaged) {
      if (size > POOL_HEADER_SIZE) {
        // Not ours to judge: it may hold the database.  Touch nothing.
        this.damaged.push({ file: fname, size: size - POOL_HEADER_SIZE, why: hdr.damaged });
        return;
      }
      hdr = null;   // a torn header over no data holds nothing
    }
    if (hdr && !isTempSlot(hdr.flags)) {
      const other = this.byPath.get(hdr.path);
      if (other) {
        throw backendError(SQLITE_CORRUPT, `OPFS pool "${this.name}" is corrupt: files ${other.fname} and ${fname} both hold ${hdr.path}`);
      }
      slot.path = hdr.path;
      slot.flags = hdr.flags;
      this.byPath.set(slot.path, slot);
      return;
    }
    if (hdr || size > POOL_HEADER_SIZE) {
      this.wipedAtOpen.push({ file: fname, path: hdr ? hdr.path : null, flags: hdr ? hdr.flags : 0, size: Math.max(0, size - POOL_HEADER_SIZE) });
      // Overwrite the leftover before dropping it, so its bytes do not
      // linger in blocks the file system frees but does not clear.
      const zeros = new Uint8Array(Math.min(1 << 20, Math.max(0, size - POOL_HEADER_SIZE)));
      for (let at = POOL_HEADER_SIZE; at < size; at += zeros.length) {
        slot.ah.write(zeros.subarray(0, Math.min(zeros.length, size - at)), { at });
      }
      slot.ah.flush();
    }
    this.release(slot);
  }

  // Refuse the pool when a file with data has a damaged header (see the
  // top of this file): SQLITE_CORRUPT, saying which files and the way out.
  checkDamaged() {
    if (this.damaged.length === 0) return;
    const files = this.damaged.map((d) => `${d.file} (${d.size} bytes of data, ${d.why})`).join(', ');
    throw backendError(SQLITE_CORRUPT, `OPFS pool "${this.name}" has pool files with a damaged header: ${files}. ` +
      `They may hold the database or its journal, so the pool is not opened and nothing was changed; ` +
      `copy them out of OPFS ${POOL_ROOT}/${this.name}/ and remove them, or deletePool("${this.name}") to discard the database`);
  }

  // Empty a slot: drop its data, clear its header, put it on the free list.
  release(slot) {
    if (slot.path !== null && this.byPath.get(slot.path) === slot) this.byPath.delete(slot.path);
    slot.gen++;
    slot.path = null;
    slot.flags = 0;
    slot.ah.truncate(POOL_HEADER_SIZE);
    this.writeHeader(slot, null, 0);
    slot.ah.flush();
    this.free.push(slot);
  }

  // Create pool files until at least minFree and `want` are free.  A
  // failure is kept (reserveError) so that an open finding no free file
  // can say why (a quota error becomes SQLITE_FULL there).
  // Each call is tracked until it settles, so that close() can wait for it.
  // Grows run one after the other: two at once would each see the same
  // shortfall and both fill it.
  reserve(want = 0) {
    const grow = () => this.grow(Math.max(want, this.minFree));
    this.growing = (this.growing ?? Promise.resolve()).then(grow, grow);
    const p = this.growing.then(() => { this.reserveError = null; }, (e) => { this.reserveError = e; throw e; });
    const tracked = p.catch(() => {}).then(() => this.inflight.delete(tracked));
    this.inflight.add(tracked);
    return p;
  }

  // After an open took a free file: top the pool up again once the
  // synchronous call that opened it has returned (sync access handles can
  // only be created asynchronously).  A failure stays in reserveError.
  topUp() {
    if (this.topping || this.closed || this.free.length >= this.minFree) return;
    this.topping = Promise.resolve().then(() => this.reserve()).catch(() => {}).then(() => { this.topping = null; });
  }

  // Resolves once no top-up or reserve() is in flight.
  async settled() {
    while (this.topping || this.inflight.size) await Promise.all([this.topping, ...this.inflight]);
  }

  async grow(want) {
    while (this.free.length < want && !this.closed) {
      const fname = 'slot-' + Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('');
      const fh = await this.dir.getFileHandle(fname, { create: true });
      const ah = await fh.createSyncAccessHandle();
      if (this.closed) { ah.close(); return; }
      const slot = { fname, ah, path: null, flags: 0, gen: 0 };
      this.slots.push(slot);
      ah.truncate(POOL_HEADER_SIZE);
      this.writeHeader(slot, null, 0);
      this.free.push(slot);
    }
  }

  // ---- the typed backend interface used by the JS bridge
  xOpen(name, flags) {
    let slot = name !== null ? this.byPath.get(name) : undefined;
    if (!slot) {
      if (name !== null && !(flags & SQLITE_OPEN_CREATE)) throw backendError(SQLITE_CANTOPEN, `no such file in the OPFS pool: ${name}`);
      const path = name !== null ? name : `/tmp/${this.nextTemp + 1}`;
      const bytes = pathBytes(path);
      slot = this.free.pop();
      if (!slot) {
        const cause = this.reserveError;
        if (cause) {
          const quota = cause.name === 'QuotaExceededError';
          throw backendError(quota ? SQLITE_FULL : SQLITE_CANTOPEN, `the OPFS pool "${this.name}" has no free file (all ${this.slots.length} in use) because creating more failed: ${cause.name}: ${cause.message}`, { cause });
        }
        throw backendError(SQLITE_CANTOPEN, `the OPFS pool "${this.name}" has no free file (all ${this.slots.length} in use); open it with a larger minFree or await reserve(n) first`);
      }
      slot.gen++;
      slot.path = path;
      slot.flags = flags;
      this.topUp();
      try {
        this.writeHeader(slot, bytes, flags);
        if (name !== null) slot.ah.flush();
      } catch (e) {
        // The slot stays free (a torn header reads as free at next open).
        slot.path = null;
        slot.flags = 0;
        this.free.push(slot);
        throw e;
      }
      if (name === null) this.nextTemp++;
      else this.byPath.set(name, slot);
    }
    return { slot, gen: slot.gen, name: slot.path, flags, temp: name === null };
  }

  xClose(h) {
    // A temp file, or a file deleted on close, frees its slot (unless the
    // slot was already deleted and handed to another file meanwhile).
    if ((h.flags & SQLITE_OPEN_DELETEONCLOSE || h.temp) && h.slot.gen === h.gen) this.release(h.slot);
  }

  // The access handle of an open file, unless the file was deleted while
  // open (its pool file may hold another file by now).
  live(h) {
    if (h.slot.gen !== h.gen) throw backendError(SQLITE_IOERR, `${h.name} was deleted while open; its OPFS pool file is no longer its own`);
    return h.slot.ah;
  }

  // One options object for every read and write (the hot path).
  xRead(h, buf, offset) {
    const ah = this.live(h);
    this.at.at = POOL_HEADER_SIZE + offset;
    return ah.read(buf, this.at);
  }

  xWrite(h, buf, offset) {
    const ah = this.live(h);
    this.at.at = POOL_HEADER_SIZE + offset;
    const n = ah.write(buf, this.at);
    // A short write is a full disk or quota (Firefox returns one where
    // Chromium throws QuotaExceededError): SQLITE_FULL, as SQLite's unix VFS.
    if (n !== buf.length) throw backendError(SQLITE_FULL, `short write to ${h.name}: ${n} of ${buf.length} bytes (storage full or over its quota)`);
  }

  xTruncate(h, size) {
    this.live(h).truncate(POOL_HEADER_SIZE + size);
  }

  xSync(h) {
    this.live(h).flush();
  }

  xSize(h) {
    return this.live(h).getSize() - POOL_HEADER_SIZE;
  }

  xDelete(name) {
    const slot = this.byPath.get(name);
    if (!slot) return false;
    this.release(slot);
    return true;
  }

  xAccess(name) {
    return this.byPath.has(name);
  }

  // ---- inspection (tests, demo page)
  // Every pool file with what it holds (path null: free) and its data size.
  list() {
    return this.slots.map((s) => ({ file: s.fname, path: s.path, flags: s.flags, size: s.ah.getSize() - POOL_HEADER_SIZE }));
  }

  // The raw bytes of every pool file, header included, as stored in OPFS.
  scan() {
    return this.slots.map((s) => {
      const bytes = new Uint8Array(s.ah.getSize());
      s.ah.read(bytes, { at: 0 });
      return { file: s.fname, path: s.path, flags: s.flags, bytes };
    });
  }

  // Close every access handle and release the Web Lock.  Resolves once no
  // reserve() is in flight any more (each closes the handle it was creating
  // when it sees the pool closed): only then may the pool be deleted or
  // opened elsewhere.
  close() {
    if (this.closing) return this.closing;
    this.closed = true;
    for (const s of this.slots) {
      try { s.ah.close(); } catch { /* already closed */ }
    }
    this.slots = [];
    this.free = [];
    this.byPath.clear();
    this.closing = Promise.all([...this.inflight]).then(() => {
      if (this.unlock) { this.unlock(); this.unlock = null; }
    });
    return this.closing;
  }
}
