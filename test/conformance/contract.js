// The storage backend contract (js/storage/backend.d.ts), checked the same way on
// every backend: what the VFS bridge relies on (each handle's name, flags
// and temp for the storage observer, short reads, delete semantics).  Run
// by node.mjs (Node: memory, file, the OPFS pool over fake handles) and
// worker.js (a browser: OPFS, memory).
//   contract(backend, label, check): check(ok, name, detail) per rule.
import {
  SQLITE_CANTOPEN, SQLITE_OPEN_READWRITE, SQLITE_OPEN_CREATE, SQLITE_OPEN_DELETEONCLOSE, SQLITE_OPEN_MAIN_DB,
  SQLITE_OPEN_MAIN_JOURNAL, SQLITE_OPEN_TEMP_JOURNAL,
} from '../../js/shared/constants.js';

const DB = SQLITE_OPEN_READWRITE | SQLITE_OPEN_MAIN_DB;
const NEW_DB = DB | SQLITE_OPEN_CREATE;
const TEMP = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_DELETEONCLOSE | SQLITE_OPEN_TEMP_JOURNAL;

const bytes = (...v) => new Uint8Array(v);
const show = (v) => JSON.stringify(v, (k, x) => (x instanceof Uint8Array ? [...x] : x));
function eq(a, b, what) { if (show(a) !== show(b)) throw new Error(`${what ? what + ': ' : ''}expected ${show(b)}, got ${show(a)}`); }
function ok(c, what) { if (!c) throw new Error(what); }
function throwsCode(fn, code) {
  try { fn(); } catch (e) { eq(e.sqliteCode, code, 'sqliteCode'); return; }
  throw new Error('did not throw');
}

// SQLite's full path name of file `name` in backend b: what its
// xFullPathname makes of it (storage 'file': a real path in its
// directory), else "/name".
const full = (b, name) => (b.xFullPathname ? b.xFullPathname(name) : '/' + name);

// name -> fn(b, kind): throws when the rule is broken.
export const RULES = {
  'kind names the backend': (b, kind) => eq(b.kind, kind),

  'headerSize is a number of bytes': (b) => ok(Number.isInteger(b.headerSize) && b.headerSize >= 0, `headerSize ${b.headerSize}`),

  'a missing file without SQLITE_OPEN_CREATE is SQLITE_CANTOPEN': (b) => {
    eq(b.xAccess(full(b, 'missing.db')), false, 'xAccess before');
    throwsCode(() => b.xOpen(full(b, 'missing.db'), DB), SQLITE_CANTOPEN);
    eq(b.xAccess(full(b, 'missing.db')), false, 'xAccess after');
  },

  "a named file's handle carries SQLite's name, this open's flags and temp false": (b) => {
    const h = b.xOpen(full(b, 'named.db'), NEW_DB);
    eq({ name: h.name, flags: h.flags, temp: h.temp }, { name: full(b, 'named.db'), flags: NEW_DB, temp: false });
    eq(b.xAccess(full(b, 'named.db')), true, 'xAccess');
    const again = b.xOpen(full(b, 'named.db'), DB);
    eq(again.flags, DB, 'the flags of the second open');
    b.xClose(again);
    b.xClose(h);
  },

  'reads give what was written; a read past the end returns fewer bytes': (b) => {
    const h = b.xOpen(full(b, 'rw.db'), NEW_DB);
    b.xWrite(h, bytes(1, 2, 3, 4), 0);
    b.xWrite(h, bytes(9, 9), 10);
    b.xSync(h, 0);
    eq(b.xSize(h), 12, 'size');
    const buf = new Uint8Array(12);
    eq(b.xRead(h, buf, 0), 12, 'read');
    eq([...buf], [1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 9, 9], 'bytes');
    eq(b.xRead(h, new Uint8Array(8), 8), 4, 'short read at the end');
    eq(b.xRead(h, new Uint8Array(8), 100), 0, 'read past the end');
    b.xClose(h);
    const h2 = b.xOpen(full(b, 'rw.db'), DB);
    const buf2 = new Uint8Array(4);
    b.xRead(h2, buf2, 0);
    eq([...buf2], [1, 2, 3, 4], 'a later open sees the bytes');
    b.xClose(h2);
  },

  'truncate shrinks the file': (b) => {
    const h = b.xOpen(full(b, 'trunc.db'), NEW_DB);
    b.xWrite(h, new Uint8Array(100).fill(7), 0);
    b.xTruncate(h, 10);
    eq(b.xSize(h), 10, 'size');
    eq(b.xRead(h, new Uint8Array(100), 0), 10, 'read');
    b.xClose(h);
  },

  'xDelete removes a named file and says whether there was one': (b) => {
    const h = b.xOpen(full(b, 'del.db-journal'), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_MAIN_JOURNAL);
    b.xWrite(h, bytes(1), 0);
    b.xClose(h);
    eq(b.xDelete(full(b, 'del.db-journal')), true, 'first delete');
    eq(b.xAccess(full(b, 'del.db-journal')), false, 'xAccess');
    eq(b.xDelete(full(b, 'del.db-journal')), false, 'second delete');
  },

  'a temp file gets a name of its own, temp true, and goes at close': (b) => {
    const t1 = b.xOpen(null, TEMP);
    const t2 = b.xOpen(null, TEMP);
    eq(typeof t1.name, 'string', 'name');
    ok(t1.name !== t2.name, 'two temp files, two names');
    eq({ flags: t1.flags, temp: t1.temp }, { flags: TEMP, temp: true });
    b.xWrite(t1, new Uint8Array(64).fill(5), 0);
    eq(b.xSize(t1), 64, 'size');
    b.xClose(t1);
    b.xClose(t2);
    const names = b.list().map((f) => f.path);
    ok(!names.includes(t1.name) && !names.includes(t2.name), JSON.stringify(names));
  },

  'a named file opened with SQLITE_OPEN_DELETEONCLOSE goes at close': (b) => {
    const h = b.xOpen(full(b, 'doc.db'), NEW_DB | SQLITE_OPEN_DELETEONCLOSE);
    b.xWrite(h, bytes(1, 2), 0);
    b.xClose(h);
    eq(b.xAccess(full(b, 'doc.db')), false, 'xAccess');
  },

  // SQLITE_LOCK_NONE 0, SHARED 1, RESERVED 2, EXCLUSIVE 4.
  'locks (a backend with xLock): readers side by side, one writer, EXCLUSIVE waits for the other reader, PENDING keeps new readers out': (b) => {
    if (!b.xLock) { ok(!b.xUnlock && !b.xCheckReservedLock, 'xUnlock and xCheckReservedLock come with xLock'); return; }
    const f = full(b, 'locks.db');
    const w = b.xOpen(f, NEW_DB), r = b.xOpen(f, NEW_DB);
    try {
      ok(b.xLock(w, 1) && b.xLock(r, 1), 'two SHARED');
      eq(b.xCheckReservedLock(r), false, 'no RESERVED yet');
      ok(b.xLock(w, 2), 'RESERVED beside a reader');
      eq(b.xCheckReservedLock(r), true, 'the RESERVED seen by the other');
      eq(b.xLock(r, 2), false, 'a second RESERVED is busy');
      eq(b.xLock(w, 4), false, 'EXCLUSIVE waits for the other reader');
      b.xUnlock(r, 0);
      eq(b.xLock(r, 1), false, 'the PENDING kept keeps a new reader out');
      ok(b.xLock(w, 4), 'EXCLUSIVE once the reader left');
      b.xUnlock(w, 1);
      ok(b.xLock(r, 1), 'SHARED again once the writer came down');
      eq(b.xCheckReservedLock(r), false, 'no RESERVED left');
    } finally {
      b.xUnlock(w, 0);
      b.xUnlock(r, 0);
      b.xClose(w);
      b.xClose(r);
      b.xDelete(f);
    }
  },
};

export function contract(b, kind, label, check) {
  for (const [name, rule] of Object.entries(RULES)) {
    try { rule(b, kind); check(true, `${label}: contract: ${name}`); }
    catch (e) { check(false, `${label}: contract: ${name}`, `${e.name}: ${e.message}`); }
  }
}

// The contract on a fresh storage of kind (a StorageKind), labelled label.
export async function checkKind(kind, label, check) {
  const scratch = await kind.scratch(`contract-${label.replace(/\W+/g, '-')}`);
  const b = await kind.open('contract.db', scratch.options);
  try {
    contract(b, kind.name, label, check);
  } finally {
    await b.close();
    await scratch.dispose();
  }
}
