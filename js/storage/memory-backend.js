// Storage 'memory' (any environment, Node included): a backend (contract:
// ./backend.d.ts) that keeps every file in a growable Uint8Array; nothing
// persists past the backend, the Worker or the process.
import { SQLITE_CANTOPEN, SQLITE_OPEN_CREATE, SQLITE_OPEN_DELETEONCLOSE } from '../shared/constants.js';
import { backendError } from '../shared/errors.js';

export class MemoryBackend {
  constructor() {
    this.kind = 'memory';
    this.headerSize = 0;
    this.files = new Map();   // name -> { data, size }
    this.nextTemp = 0;
  }

  // A handle per open: { file, name, flags, temp }; file ({ data, size })
  // is shared by every open of a named file.  A temp file (no name) lives
  // only in its handle: its "/tmp/N" is a label for the observer, not a
  // key, since a user may name a database /tmp/N.
  xOpen(name, flags) {
    if (name === null) {
      return { file: { data: new Uint8Array(0), size: 0 }, name: `/tmp/${++this.nextTemp}`, flags, temp: true };
    }
    let file = this.files.get(name);
    if (!file) {
      if (!(flags & SQLITE_OPEN_CREATE)) throw backendError(SQLITE_CANTOPEN, `no such file: ${name}`);
      file = { name, data: new Uint8Array(0), size: 0, flags };
      this.files.set(name, file);
    }
    return { file, name, flags, temp: false };
  }

  // Free by handle: a temp file's bytes go with it; a named file deleted on
  // close goes only if its name still maps to this very file.
  xClose(h) {
    if (h.temp) {
      h.file.data = new Uint8Array(0);
      h.file.size = 0;
    } else if (h.flags & SQLITE_OPEN_DELETEONCLOSE && this.files.get(h.name) === h.file) {
      this.xDelete(h.name);
    }
  }

  xRead({ file }, buf, offset) {
    if (offset >= file.size) return 0;
    const n = Math.min(buf.length, file.size - offset);
    buf.set(file.data.subarray(offset, offset + n));
    return n;
  }

  xWrite({ file }, buf, offset) {
    const end = offset + buf.length;
    if (end > file.data.length) {
      const grown = new Uint8Array(Math.max(end, Math.min(file.data.length * 2, end + (64 << 20))));
      grown.set(file.data.subarray(0, file.size));
      file.data = grown;
    }
    file.data.set(buf, offset);
    if (end > file.size) file.size = end;
  }

  xTruncate({ file }, size) {
    if (size < file.size) file.data.fill(0, size, file.size);
    file.size = size;
    if (size > file.data.length) {
      const grown = new Uint8Array(size);
      grown.set(file.data);
      file.data = grown;
    }
  }

  xSync() {}

  xSize({ file }) {
    return file.size;
  }

  xDelete(name) {
    const file = this.files.get(name);
    if (!file) return false;
    file.data = new Uint8Array(0);
    file.size = 0;
    this.files.delete(name);
    return true;
  }

  xAccess(name) {
    return this.files.has(name);
  }

  // What is stored now: the named files (temp files have no entry).
  list() {
    return [...this.files.values()].map((f) => ({ path: f.name, flags: f.flags, size: f.size }));
  }

  async reserve() {}
  close() {}
}

// The storage kind (./backend.d.ts).
export default {
  name: 'memory',
  persistent: false,
  options: [],
  unavailable: () => null,
  open: async () => new MemoryBackend(),
  scratch: async () => ({ options: {}, dispose() {} }),
};
