// The browser side of the backend conformance suite: a module Worker that
// runs, over every storage kind of js/storage/backends.js that works here (OPFS,
// memory), the backend contract (contract.js) and cases.js in every
// variant, then the storage regressions that need real OPFS.  Driven by
// browser.mjs.
//   postMessage({ cmd: 'conformance', only }) -> { kinds: { kind: { contract, variants: { variant: results } } }, unavailable: { kind: why } }
//   postMessage({ cmd: 'regressions' })       -> [{ name, ok, detail }]
import { runVariant } from './cases.js';
import { kindStores, VARIANTS, storeOptions } from './stores.js';
import { checkKind } from './contract.js';
import { storageRegressions } from './regressions.js';
import { SQLITE_CORRUPT } from '../../js/shared/constants.js';
import { POOL_HEADER_SIZE, POOL_OFFSET_CHECKSUM } from '../../js/storage/opfs-pool.js';

const DIRS = { dist: '/dist/', baseline: '/build/conformance/baseline/' };

async function lib(build) {
  const [{ createEngine }, { BACKENDS }, { MemoryBackend }, { OpfsPool }, opfs, worker] = await Promise.all(
    ['engine/engine.js', 'storage/storage.js', 'storage/memory-backend.js', 'storage/opfs-pool.js', 'storage/opfs-backend.js', 'worker.js'].map((f) => import(DIRS[build] + f)));
  return { createEngine, BACKENDS, MemoryBackend, OpfsPool, deletePool: opfs.deletePool, poolNameOf: opfs.poolNameOf, worker };
}

async function conformance(only) {
  const re = only ? new RegExp(only) : null;
  const out = { kinds: {}, unavailable: {} };
  const builds = { dist: await lib('dist'), baseline: await lib('baseline') };
  for (const [name, kind] of Object.entries(builds.dist.BACKENDS)) {
    const why = await kind.unavailable();
    if (why) { out.unavailable[name] = why; continue; }
    const contract = [];
    await checkKind(kind, name, (ok, n, detail) => contract.push({ ok, name: n, detail }));
    const variants = {};
    for (const v of VARIANTS) {
      variants[v.label] = await runVariant(kindStores(builds[v.build], builds[v.build].BACKENDS[name], `${name}-${v.label}`.replace(/\W+/g, '-'), storeOptions(v)), re);
    }
    out.kinds[name] = { contract, variants };
  }
  return out;
}

// The pool file (and its access-handle-free File) holding `path`.
async function poolDir(poolName) {
  const root = await navigator.storage.getDirectory();
  const top = await root.getDirectoryHandle('.sqlite-tempcrypt');
  return top.getDirectoryHandle(poolName);
}
async function fileHolding(dir, path) {
  for await (const [name, h] of dir.entries()) {
    const bytes = new Uint8Array(await (await h.getFile()).arrayBuffer());
    if (bytes.length < 16) continue;   // a pool file never finished (its header not written)
    const n = new DataView(bytes.buffer).getUint32(8, true);
    if (new TextDecoder().decode(bytes.subarray(16, 16 + n)) === path) return { name, handle: h, bytes };
  }
  return null;
}
async function poolExists(poolName) {
  const root = await navigator.storage.getDirectory();
  const top = await root.getDirectoryHandle('.sqlite-tempcrypt', { create: true });
  try { await top.getDirectoryHandle(poolName); return true; } catch { return false; }
}

async function regressions() {
  const results = [];
  const check = (ok, name, detail = '') => { results.push({ ok: !!ok, name, detail }); return !!ok; };
  const l = await lib('dist');
  const { open, poolNameOf, deletePool } = l.worker;
  // Each block on its own: an exception fails that block only.
  const block = async (what, fn) => {
    try { await fn(); } catch (e) { check(false, `chromium: ${what}`, `${e.name}: ${e.message}`); }
  };
  await block('regressions without OPFS', () => storageRegressions(l, check, { storage: 'chromium' }));

  // A damaged pool header: open refuses with SQLITE_CORRUPT, the file is
  // left as it was, and the database opens again once the header is back.
  await block('damaged pool header', async () => {
    const name = 'damaged.db', pool = await poolNameOf(name);
    await deletePool(pool);
    let db = await open(name, { storage: 'opfs' });
    db.exec('CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)');
    await db.close();
    const dir = await poolDir(pool);
    const f = await fileHolding(dir, '/' + name);
    const ah = await f.handle.createSyncAccessHandle();
    const orig = new Uint8Array(1);
    ah.read(orig, { at: POOL_OFFSET_CHECKSUM });
    ah.write(new Uint8Array([orig[0] ^ 0xff]), { at: POOL_OFFSET_CHECKSUM });
    ah.flush();
    ah.close();
    const before = new Uint8Array(await (await f.handle.getFile()).arrayBuffer());
    let err = null;
    try { db = await open(name, { storage: 'opfs' }); await db.close(); } catch (e) { err = e; }
    const after = new Uint8Array(await (await f.handle.getFile()).arrayBuffer());
    check(err && err.code === SQLITE_CORRUPT && err.message.includes(f.name), 'chromium: pool: open refuses a pool with a damaged header (SQLITE_CORRUPT naming the file)', err ? `${err.code}: ${err.message}` : 'opened');
    check(after.length === before.length && after.every((b, i) => b === before[i]) && after.length > POOL_HEADER_SIZE,
      'chromium: pool: the damaged pool file keeps every byte', `${before.length} -> ${after.length} bytes`);
    const fix = await f.handle.createSyncAccessHandle();
    fix.write(orig, { at: POOL_OFFSET_CHECKSUM });
    fix.close();
    let n;
    try { db = await open(name, { storage: 'opfs' }); n = db.query('SELECT count(*) AS n FROM t')[0].n; await db.close(); } catch (e) { n = e.message; }
    check(n === 3, 'chromium: pool: with the header repaired the database opens with its rows', `count ${n}`);
    await deletePool(pool);
  });

  // Two long names that agree on their first 200 characters: two pools, two
  // Web Locks, both open at once, each with its own rows.
  await block('long names', async () => {
    const a = 'L'.repeat(210) + 'a.db', b = 'L'.repeat(210) + 'b.db';
    const pa = await poolNameOf(a), pb = await poolNameOf(b);
    let res;
    try {
      const da = await open(a, { storage: 'opfs' });
      const db = await open(b, { storage: 'opfs' });
      da.exec('CREATE TABLE t(x); INSERT INTO t VALUES (1)');
      db.exec('CREATE TABLE t(x); INSERT INTO t VALUES (2), (3)');
      res = [da.query('SELECT sum(x) AS s FROM t')[0].s, db.query('SELECT sum(x) AS s FROM t')[0].s];
      await da.close();
      await db.close();
    } catch (e) { res = `${e.code}: ${e.message}`; }
    check(pa !== pb && JSON.stringify(res) === '[1,5]', 'chromium: two long names with the same first 200 characters open at once, each its own database', JSON.stringify(res));
    await deletePool(pa);
    await deletePool(pb);
  });

  // close() settles only when nothing of the pool is in flight: deletePool()
  // right after it succeeds and leaves nothing, every time.
  await block('close then deletePool', async () => {
    const errors = [], left = [];
    for (let i = 0; i < 20; i++) {
      const name = `close-race-${i}.db`, pool = await poolNameOf(name);
      const db = await open(name, { storage: 'opfs' });
      db.exec('PRAGMA journal_mode=PERSIST; CREATE TABLE t(x); INSERT INTO t VALUES (1)');   // the journal keeps a file: top-up starts
      db.reserve(24).catch(() => {});
      await db.close();
      try { await deletePool(pool); } catch (e) { errors.push(`${i}: ${e.name}`); }
      if (await poolExists(pool)) left.push(i);
    }
    check(errors.length === 0 && left.length === 0, 'chromium: deletePool() right after close() succeeds and removes the pool (20 times)', `errors ${errors.join(', ') || 'none'}; left ${left.join(', ') || 'none'}`);
  });
  return results;
}

self.onmessage = async ({ data }) => {
  try {
    if (data.cmd === 'conformance') self.postMessage({ ok: true, result: await conformance(data.only) });
    else if (data.cmd === 'regressions') self.postMessage({ ok: true, result: await regressions() });
    else throw new Error(`unknown command ${data.cmd}`);
  } catch (e) {
    self.postMessage({ ok: false, error: `${e.name}: ${e.message}\n${e.stack}` });
  }
};
