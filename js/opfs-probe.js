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
import { POOL_ROOT } from './opfs-pool.js';

const UNSUPPORTED = new Set(['NotSupportedError', 'TypeError']);
let probe = null;

export function probeOpfs() {
  if (!probe) probe = check();
  return probe;
}

async function check() {
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
    return null;
  } catch (e) {
    return UNSUPPORTED.has(e?.name) ? `createSyncAccessHandle() failed (${e.name}: ${e.message})` : null;
  } finally {
    try { ah?.close(); } catch { /* closed */ }
    try { await dir?.removeEntry(name); } catch { /* not created */ }
  }
}
