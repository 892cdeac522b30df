// Storage 'opfs' (the default in a browser): one pool of OPFS files per
// database (./opfs-pool.js), in the directory POOL_ROOT/<pool name>, held
// by one tab or worker at a time.  This file: the storage kind the
// registry (./backends.js) lists, the pool name of a database, whether
// OPFS sync access handles work here, and the tools of the worker API
// (listOpfs, deletePool).
import { SqliteError, openError } from '../shared/errors.js';
import { SQLITE_CANTOPEN, SQLITE_FULL } from '../shared/constants.js';
import { isNode } from '../shared/platform.js';
import { OpfsPool, POOL_ROOT, opfsAvailable } from './opfs-pool.js';
import { resolveOpenOptions, SYNC } from '../shared/methods.js';

// The pool directory of a database name (one pool per database, and one
// Web Lock): the name percent-encoded ('.' too) when that fits in 200
// characters, as earlier builds named it; a longer name gets its first 100
// encoded characters, a '.' (never in the short form) and the SHA-256 of
// the name in hex, so two names never share a pool.
const POOL_NAME_MAX = 200;
export async function poolNameOf(name) {
  const enc = encodeURIComponent(name).replace(/\./g, '%2E');
  if (enc.length > 0 && enc.length <= POOL_NAME_MAX) return enc;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(name)));
  const prefix = enc.slice(0, 100).replace(/%[0-9A-F]?$/, '');   // no cut escape
  return `${prefix}.${Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

// Whether OPFS sync access handles really work here, found by a real call:
// a browser may define FileSystemSyncAccessHandle and still reject
// createSyncAccessHandle() (WebKit outside Apple's ports: NotSupportedError),
// or reject navigator.storage.getDirectory() (private or automated
// sessions).  probeOpfs() resolves to null when they work, else to the
// reason; it runs once per Worker.
//
// Only a missing feature counts as missing: any other failure (a full
// quota, say) resolves to null, so that opening the pool reports it as it
// is instead of the default storage quietly becoming memory.
const UNSUPPORTED = new Set(['NotSupportedError', 'TypeError']);
let probe = null;

export function probeOpfs() {
  if (!probe) probe = checkOpfs();
  return probe;
}

// The check itself, every time (exported for the unit test).
export async function checkOpfs() {
  if (typeof navigator !== 'object' || typeof navigator.storage?.getDirectory !== 'function') {
    return 'navigator.storage.getDirectory() is missing: this browser has no OPFS';
  }
  if (typeof FileSystemSyncAccessHandle === 'undefined') {
    return 'FileSystemSyncAccessHandle is missing (it exists only in a dedicated Worker)';
  }
  let root;
  try {
    root = await navigator.storage.getDirectory();
  } catch (e) {
    return `navigator.storage.getDirectory() failed (${e.name}: ${e.message})`;
  }
  const name = `.probe-${Math.random().toString(36).slice(2)}`;
  let dir = null, ah = null;
  try {
    dir = await root.getDirectoryHandle(POOL_ROOT, { create: true });
    const fh = await dir.getFileHandle(name, { create: true });
    ah = await fh.createSyncAccessHandle();
    // Chrome 102-107: getSize(), truncate(), flush() and close() return
    // promises there; the VFS needs them synchronous.
    const size = ah.getSize();
    if (typeof size !== 'number') {
      await size;
      return 'FileSystemSyncAccessHandle.getSize() returns a promise here: its methods became synchronous in Chrome 108';
    }
    return null;
  } catch (e) {
    return UNSUPPORTED.has(e?.name) ? `createSyncAccessHandle() failed (${e.name}: ${e.message})` : null;
  } finally {
    try { ah?.close(); } catch { /* closed */ }
    try { await dir?.removeEntry(name); } catch { /* not created */ }
  }
}

// List everything in OPFS (recursively): path, kind, size; files locked by
// an access handle elsewhere show size null.
export async function listOpfs() {
  const out = [];
  const root = await navigator.storage.getDirectory();
  async function walk(dir, prefix) {
    for await (const [name, h] of dir.entries()) {
      const path = prefix + '/' + name;
      if (h.kind === 'directory') {
        out.push({ path, kind: 'directory', size: null });
        await walk(h, path);
      } else {
        let size = null;
        try { size = (await h.getFile()).size; } catch { /* locked */ }
        out.push({ path, kind: 'file', size });
      }
    }
  }
  await walk(root, '');
  return out;
}

// Remove a pool directory (it must not be open anywhere).
export async function deletePool(name) {
  const root = await navigator.storage.getDirectory();
  const top = await root.getDirectoryHandle(POOL_ROOT, { create: true });
  try {
    await top.removeEntry(name, { recursive: true });
  } catch (e) {
    if (e.name !== 'NotFoundError') throw e;
  }
}

// The storage kind (./backend.d.ts).
export default {
  name: 'opfs',
  persistent: true,
  // pool: the pool directory (default: poolNameOf(the database name)).
  options: ['pool', 'minFree', 'lockTimeoutMs'],

  async unavailable() {
    const missing = isNode ? 'there is no OPFS in Node' : await probeOpfs();
    return missing && `storage 'opfs' is not available here: ${missing}. OPFS needs FileSystemSyncAccessHandle in a dedicated Worker; pass storage: 'auto' to fall back to memory, or 'memory'`;
  },

  // Every tab of the origin sees the same pool: the database's key among
  // the tabs that share it (../tabs/tabs.js) is its pool and its full name (as
  // JSON: no two pairs give one key, whatever the pool's name holds).
  async shareKey(name, options = {}) {
    const pool = options.pool ?? await poolNameOf(name);
    return JSON.stringify([pool, name.charAt(0) === '/' ? name : `/${name}`]);
  },

  // The pool reports SQLite codes (SQLITE_BUSY for a second tab).
  async open(name, options = {}) {
    const { pool, minFree, lockTimeoutMs } = resolveOpenOptions(options, SYNC);
    try {
      return await OpfsPool.open(pool ?? await poolNameOf(name), { minFree, lockTimeoutMs });
    } catch (e) {
      if (e && typeof e.sqliteCode === 'number') {
        const hint = e.sqliteCode === SQLITE_CANTOPEN && !opfsAvailable() ? " (storage 'opfs' was asked for; pass storage: 'auto' to fall back to memory, or 'memory')" : '';
        throw openError(e, name, hint);
      }
      if (e && e.name === 'QuotaExceededError') throw new SqliteError(`storage quota exceeded while opening the OPFS pool: ${e.message}`, SQLITE_FULL, { cause: e });
      throw e;
    }
  },

  // A pool of its own, empty, for the conformance suite (test/conformance/).
  async scratch(tag) {
    const pool = `scratch-${tag}`;
    await deletePool(pool);
    return { options: { pool }, dispose: () => deletePool(pool) };
  },
};
