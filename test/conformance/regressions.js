// Regression tests of the JS storage layer that run anywhere (Node and a
// browser Worker): the backends driven directly, with fake OPFS access
// handles where the pool needs them.  check(cond, name, detail).
//   lib: { createEngine, MemoryBackend, OpfsPool, poolNameOf }

import {
  SQLITE_OPEN_READWRITE, SQLITE_OPEN_CREATE, SQLITE_OPEN_MAIN_DB as MAIN_DB, SQLITE_OPEN_TEMP_DB as TEMP_DB,
  SQLITE_OPEN_DELETEONCLOSE as DELETEONCLOSE, SQLITE_CORRUPT,
} from '../../js/shared/constants.js';
import {
  POOL_HEADER_SIZE as HEADER, POOL_MAGIC, POOL_OFFSET_MAGIC, POOL_OFFSET_FLAGS, POOL_OFFSET_PATH_LENGTH, POOL_OFFSET_CHECKSUM,
} from '../../js/storage/opfs-pool.js';
import { fakeHandle } from './fakes.js';

const OPEN_CREATE = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;

export async function storageRegressions(lib, check, { storage }) {
  // A temp file is freed by its handle, never by the name a user may also
  // give a database ("/tmp/1" is the first temp file's label).
  {
    const m = new lib.MemoryBackend();
    const user = m.xOpen('/tmp/1', OPEN_CREATE | MAIN_DB);
    m.xWrite(user, new Uint8Array([1, 2, 3]), 0);
    const temp = m.xOpen(null, OPEN_CREATE | TEMP_DB | DELETEONCLOSE);
    m.xWrite(temp, new Uint8Array(100), 0);
    m.xClose(temp);
    check(m.xAccess('/tmp/1') && m.xSize(m.xOpen('/tmp/1', MAIN_DB)) === 3,
      `${storage}: memory backend: closing temp file ${temp.name} leaves the database named /tmp/1 alone`, `size ${m.xAccess('/tmp/1') ? m.files.get('/tmp/1').size : 'deleted'}`);
    // The same through SQLite: a spilling sort opens and closes temp files.
    // (Over 250 pages of sort data, so that the sorter spills to files; 4096-
    // byte pages, as the build's default is 8192.)
    // Budget 0: temp files in the storage, not in the memory tier, and
    // SQLite's own sorter runs (the budget sizes them).
    const engine = await lib.createEngine(new lib.MemoryBackend(), { tempBudget: 0 });
    let n, temps = 0;
    engine.setObserver((ev) => { if (ev.op === 'open' && ev.temp) temps++; });
    try {
      let db = engine.open('tmp/1');
      db.exec(`PRAGMA page_size=4096; PRAGMA cache_size=10; CREATE TABLE t(x); INSERT INTO t SELECT randomblob(1000) FROM
        (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 2000) SELECT n FROM c)`);
      db.query('SELECT x FROM t ORDER BY x');
      db.close();
      db = engine.open('tmp/1');
      n = db.query('SELECT count(*) AS n FROM t')[0].n;
      db.close();
    } catch (e) { n = `${e.name}: ${e.message}`; }
    check(temps > 0 && n === 2000, `${storage}: memory backend: database tmp/1 keeps its rows across a spilling ORDER BY`, `${temps} temp files; count after reopen ${n}`);
  }

  // Pool names.  Short names keep the mapping of earlier builds
  // (their pools must still open); long ones must not share a pool.
  {
    const legacy = { 'app.db': 'app%2Edb', 'a/b c.db': 'a%2Fb%20c%2Edb', 'héllo': 'h%C3%A9llo', ['x'.repeat(200)]: 'x'.repeat(200) };
    const got = await Promise.all(Object.entries(legacy).map(async ([n, p]) => [n, await lib.poolNameOf(n), p]));
    const bad = got.filter(([, g, p]) => g !== p);
    check(bad.length === 0, `${storage}: poolNameOf keeps the pool names of earlier builds for short names`, JSON.stringify(bad));
    const base = 'd'.repeat(250);
    const names = [base, base + 'x', base + 'y', 'd'.repeat(201), 'd'.repeat(300), '\u00e9'.repeat(100), '\u00e9'.repeat(101)];
    const pools = await Promise.all(names.map((n) => lib.poolNameOf(n)));
    const distinct = new Set(pools).size === pools.length;
    const fits = pools.every((p) => p.length <= 200 && !/[/\\]/.test(p) && p !== '.' && p !== '..');
    const shortForms = await Promise.all(Object.keys(legacy).map((n) => lib.poolNameOf(n)));
    check(distinct && fits && !pools.some((p) => shortForms.includes(p)),
      `${storage}: poolNameOf gives long names distinct pools of at most 200 characters`, pools.map((p) => p.slice(0, 12) + '…' + p.slice(-8) + ` (${p.length})`).join(', '));
    check(pools.every((p, i) => p.startsWith(encodeURIComponent(names[i]).slice(0, 40))),
      `${storage}: a long name's pool starts with the readable name`, pools[0].slice(0, 50));
  }

  // A pool file whose header is damaged is refused, not wiped.
  {
    const damaged = new Uint8Array(HEADER + 8192);
    const dv = new DataView(damaged.buffer);   // magic, a main database's flags, bad checksum
    dv.setUint32(POOL_OFFSET_MAGIC, POOL_MAGIC, true);
    dv.setUint32(POOL_OFFSET_FLAGS, MAIN_DB, true);
    dv.setUint32(POOL_OFFSET_PATH_LENGTH, 7, true);
    dv.setUint32(POOL_OFFSET_CHECKSUM, 0xdeadbeef, true);
    damaged.fill(0x5a, HEADER);
    const before = damaged.slice();
    const pool = new lib.OpfsPool('damaged', null, 1);
    const ah = fakeHandle(damaged);
    let err = null;
    try { pool.adopt('slot-bad', ah); pool.checkDamaged(); } catch (e) { err = e; }
    check(err && err.sqliteCode === SQLITE_CORRUPT && /slot-bad/.test(err.message) && /damaged/.test(err.message),
      `${storage}: pool: a damaged header with data behind it is refused with SQLITE_CORRUPT naming the file`, err ? `${err.sqliteCode}: ${err.message}` : 'accepted');
    check(ah.writes === 0 && ah.bytes.length === before.length && ah.bytes.every((b, i) => b === before[i]),
      `${storage}: pool: the damaged file's bytes are left exactly as they were`, `${ah.writes} writes, ${ah.bytes.length} bytes`);
    // A free slot (zero header) with data is a temp file whose header never
    // reached the disk: still wiped, so no temp bytes stay behind.
    const leftover = new Uint8Array(HEADER + 4096).fill(0x77, HEADER);
    const pool2 = new lib.OpfsPool('leftover', null, 1);
    const ah2 = fakeHandle(leftover);
    pool2.adopt('slot-free', ah2);
    check(!(pool2.damaged?.length) && ah2.bytes.length === HEADER && pool2.wipedAtOpen.length === 1,
      `${storage}: pool: a zero header with data behind it is a temp leftover and is wiped`, `${ah2.bytes.length} bytes left`);
    // A damaged header with nothing behind it holds nothing: freed.
    const empty = damaged.slice(0, HEADER);
    const pool3 = new lib.OpfsPool('torn', null, 1);
    const ah3 = fakeHandle(empty);
    pool3.adopt('slot-torn', ah3);
    check(!(pool3.damaged?.length) && pool3.free.length === 1, `${storage}: pool: a damaged header with no data is freed`);
  }
}
