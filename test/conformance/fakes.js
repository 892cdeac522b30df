// Stand-ins for OPFS where there is none (Node): access handles over a
// byte array, a directory that hands them out, and the storage kind
// 'opfs' as a pool over them.
// A fake FileSystemSyncAccessHandle over a byte array.
export function fakeHandle(bytes = new Uint8Array(0)) {
  const h = {
    bytes, closed: false, writes: 0,
    getSize: () => h.bytes.length,
    read(buf, { at }) { const n = Math.max(0, Math.min(buf.length, h.bytes.length - at)); buf.set(h.bytes.subarray(at, at + n)); return n; },
    write(buf, { at }) {
      h.writes++;
      if (at + buf.length > h.bytes.length) h.truncate(at + buf.length);
      h.bytes.set(buf, at);
      return buf.length;
    },
    truncate(n) { const b = new Uint8Array(n); b.set(h.bytes.subarray(0, Math.min(n, h.bytes.length))); h.bytes = b; },
    flush() {},
    close() { h.closed = true; },
  };
  return h;
}

// A directory whose new files get the handles makeAh() returns.
export function fakeDir(makeAh = () => fakeHandle()) {
  return { getFileHandle: async () => ({ createSyncAccessHandle: async () => makeAh() }) };
}

// Storage 'opfs' over fake handles (js/storage/backend.d.ts's StorageKind), for
// the conformance suite in Node.  Pool is the OpfsPool class of the build
// under test.  Not persistent here: the pool only adopts a directory's
// files through OPFS itself, which Node lacks.
export function fakeOpfsKind(Pool) {
  return {
    name: 'opfs',
    persistent: false,
    options: {},
    unavailable: () => null,
    async open(name, { minFree = 16 } = {}) {
      const pool = new Pool(name, fakeDir(), minFree);
      await pool.reserve();
      return pool;
    },
    scratch: async () => ({ options: {}, dispose() {} }),
  };
}
