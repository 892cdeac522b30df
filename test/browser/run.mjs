// Browser tests of the package (make test-browser): headless Chromium
// driven by playwright-core, a fresh profile per run, files served from
// 127.0.0.1 without COOP/COEP.  Every check asserts; any failure makes the
// run exit 1.
//   node test/browser/run.mjs [--only=api,leak,consumer,node,types,multitab]
import { serve } from './server.mjs';
import * as chromium from './chromium.mjs';
import { checks } from './checks.mjs';
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BUILD = path.join(ROOT, 'build', 'browser-test');
const only = (process.argv.find((a) => a.startsWith('--only=')) || '').slice(7).split(',').filter(Boolean);
const want = (name) => only.length === 0 || only.includes(name);

const { check, finish } = checks('browser tests');

const freshProfile = (tag) => chromium.freshProfile(BUILD, tag);

async function launch(profile) {
  const ctx = await chromium.launch(profile);
  ctx.on('weberror', (e) => console.log('  [page error]', e.error().message));
  return ctx;
}

// A browser on a fresh profile for fn(ctx); closed and the profile removed
// afterwards.
async function withBrowser(tag, fn) {
  const profile = freshProfile(tag);
  const ctx = await launch(profile);
  try {
    return await fn(ctx);
  } finally {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

async function newPage(ctx, base) {
  const page = await ctx.newPage();
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') console.log(`  [console.${m.type()}]`, m.text()); });
  await page.goto(`${base}/test/browser/index.html`);
  return page;
}

// Run the leak worker in the page; returns its answer.
function inWorker(page, msg) {
  return page.evaluate((msg) => new Promise((resolve) => {
    const w = new Worker('/test/browser/leak-worker.js', { type: 'module' });
    w.onmessage = (e) => resolve(e.data);
    w.onerror = (e) => resolve({ ok: false, error: `worker error: ${e.message}` });
    w.postMessage(msg);
    window.__leakWorker = w;
  }), msg);
}

// ---- raw scan of the profile's OPFS files (Chromium stores each OPFS file
// as a plain file under Default/File System/).  Pool files start with our
// header ('TCP1', flags): main database and journal may hold the marker by
// design; every other file (temp, free, unknown) must not.
const PERSISTENT = 0x100 | 0x800 | 0x4000 | 0x80000;
function rawScan(profile, marker) {
  const needle = Buffer.from(marker);
  const dir = path.join(profile, 'Default', 'File System');
  const out = { files: 0, bytes: 0, poolFiles: 0, tempHits: 0, persistentHits: 0, where: [] };
  const walk = (d) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) { walk(p); continue; }
      if (!e.isFile()) continue;
      const buf = fs.readFileSync(p);
      out.files++; out.bytes += buf.length;
      let hits = 0;
      for (let i = buf.indexOf(needle); i >= 0; i = buf.indexOf(needle, i + 1)) hits++;
      const isPool = buf.length >= 16 && buf.readUInt32LE(0) === 0x31504354;
      if (isPool) out.poolFiles++;
      const flags = isPool ? buf.readUInt32LE(4) : 0;
      const persistent = isPool && (flags & PERSISTENT) && !(flags & 0x8);
      if (persistent) out.persistentHits += hits; else out.tempHits += hits;
      if (hits) out.where.push(`${path.relative(dir, p)} (${buf.length} B, ${persistent ? 'persistent' : 'temp/other'} flags=0x${flags.toString(16)}): ${hits}`);
    }
  };
  walk(dir);
  return out;
}

function sum(o) { return Object.values(o || {}).reduce((a, b) => a + b, 0); }

// ---------------------------------------------------------------- tests
async function testNode() {
  const { open } = await import(path.join(ROOT, 'dist/index.js'));
  const db = await open('node.db', { storage: 'memory' });
  check(db.storage === 'memory', 'node: memory storage');
  await db.exec('CREATE TABLE t(x); INSERT INTO t VALUES (1), (9223372036854775807)');
  const rows = await db.query('SELECT x FROM t ORDER BY x');
  check(rows[0].x === 1 && rows[1].x === 9223372036854775807n, 'node: query with BigInt', JSON.stringify(rows, (k, v) => typeof v === 'bigint' ? String(v) : v));
  await db.exec('PRAGMA temp_store=FILE; PRAGMA temp.cache_size=4; CREATE TEMP TABLE y AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<3000) SELECT n, randomblob(100) FROM c');
  const s = await db.tempcrypt.stats();
  check(s.nFileEncrypted >= 1, 'node: temp files encrypted in memory storage', `nFileEncrypted=${s.nFileEncrypted}`);
  let err;
  try { await db.run('INSERT INTO nope VALUES (1)'); } catch (e) { err = e; }
  check(err && err.code === 1 && /no such table/.test(err.message), 'node: error carries code and message');
  await db.close();
  // The JS table of result codes must match the C enum, or start-up fails.
  const { createEngine } = await import(path.join(ROOT, 'dist/engine.js'));
  const { MemoryBackend } = await import(path.join(ROOT, 'dist/memory-backend.js'));
  const eng = await createEngine(new MemoryBackend());
  const table = eng.bridge.RESULT_CODES;
  let lockErr = null;
  try { eng.bridge.checkCodes(eng.M._tc_code_count(), (i) => eng.M._tc_codes(i)); } catch (e) { lockErr = e; }
  check(lockErr === null && table.length === eng.M._tc_code_count(), 'node: C enum and JS result-code table agree', `${table.length} codes`);
  table[3] = ['SQLITE_NOMEM', 999];
  try { eng.bridge.checkCodes(eng.M._tc_code_count(), (i) => eng.M._tc_codes(i)); lockErr = null; } catch (e) { lockErr = e; }
  check(lockErr && /SQLITE_NOMEM differs/.test(lockErr.message), 'node: a result-code mismatch is caught at start-up', lockErr && lockErr.message);
  // The VFS claims no SEQUENTIAL/SAFE_APPEND: a commit syncs the journal
  // before it overwrites database pages.
  const events = [];
  class SyncSpy extends MemoryBackend {
    xSync(f) { events.push(`sync ${f.name}`); }
    xWrite(f, buf, off) { events.push(`write ${f.name}`); return super.xWrite(f, buf, off); }
  }
  const seng = await createEngine(new SyncSpy());
  const sdb = seng.open('sync.db');
  sdb.exec('PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL; CREATE TABLE t(x); INSERT INTO t VALUES (1)');
  events.length = 0;
  sdb.exec('UPDATE t SET x = 2');
  sdb.close();
  const jSync = events.indexOf('sync /sync.db-journal');
  const dbWrite = events.indexOf('write /sync.db');
  check(jSync >= 0 && dbWrite > jSync, 'node: a commit syncs the journal before writing the database', events.join(', '));
  // A short read is zero-filled and reported as such even when the
  // observer grows wasm memory (which detaches the read buffer's view).
  const rback = new MemoryBackend();
  const reng = await createEngine(rback);
  const rdb = reng.open('short.db');
  rdb.exec('PRAGMA page_size=4096; CREATE TABLE t(x); INSERT INTO t VALUES (1)');
  rdb.close();
  rback.files.get('/short.db').size = 4096 + 100;
  let shortReads = 0;
  reng.setObserver((ev) => {
    if (ev.op === 'read' && ev.got < ev.length) { shortReads++; const p = reng.M._malloc(reng.M.HEAPU8.length); reng.M._free(p); }
  });
  let shortRes;
  try { const d = reng.open('short.db'); shortRes = d.query('SELECT count(*) AS n FROM t')[0].n; d.close(); } catch (e) { shortRes = `${e.code}: ${e.message}`; }
  check(shortReads >= 1 && shortRes === 1, 'node: a short read survives an observer that grows memory', `${shortReads} short reads; ${shortRes}`);
  // A pool that could not grow says why when it runs out of files.
  const { OpfsPool } = await import(path.join(ROOT, 'dist/opfs-pool.js'));
  const quota = new DOMException('quota test', 'QuotaExceededError');
  const qpool = new OpfsPool('q', { getFileHandle: async () => { throw quota; } }, 1);
  await qpool.reserve().catch(() => {});
  let qErr;
  try { qpool.xOpen(null, 0x200); } catch (e) { qErr = e; }
  check(qErr && qErr.sqliteCode === 13 && /QuotaExceededError: quota test/.test(qErr.message) && qErr.cause === quota,
    'node: pool out of files after a quota error reports SQLITE_FULL with the cause', qErr && `${qErr.sqliteCode}: ${qErr.message}`);
  // A name too long for the pool header does not use up a free file.
  const lpool = new OpfsPool('l', null, 1);
  lpool.free.push({ fname: 'f', path: null, flags: 0, gen: 0, ah: { write: (b) => b.length, flush() {}, truncate() {} } });
  let lErr;
  try { lpool.xOpen('/' + 'x'.repeat(5000), 0x104); } catch (e) { lErr = e; }
  check(lErr && lErr.sqliteCode === 14 && /too long/.test(lErr.message) && lpool.free.length === 1, 'node: a too-long name leaves the pool\'s free files alone', lErr && `${lErr.message.slice(0, 60)}; ${lpool.free.length} free`);
  // A handle whose file was deleted while open cannot touch the pool file,
  // which may hold another file by now.
  const written = [];
  const spool = new OpfsPool('s', null, 1);
  spool.free.push({ fname: 'f', path: null, flags: 0, gen: 0, ah: { write: (b, o) => { written.push(o.at); return b.length; }, read: () => 0, flush() {}, truncate() {} } });
  const stale = spool.xOpen('/a.db', 0x106);
  spool.xDelete('/a.db');
  spool.xOpen('/b.db', 0x106);
  written.length = 0;
  const staleErrs = [];
  for (const op of [() => spool.xWrite(stale, new Uint8Array(4), 0), () => spool.xRead(stale, new Uint8Array(4), 0), () => spool.xTruncate(stale, 0)]) {
    try { op(); } catch (e) { staleErrs.push(e.sqliteCode); }
  }
  check(staleErrs.join() === '10,10,10' && written.length === 0, 'node: a stale handle gets SQLITE_IOERR and writes nothing', `${staleErrs}; ${written.length} writes`);
  // malloc failing in the engine is SQLITE_NOMEM, not a write to address 0.
  const meng = await createEngine(new MemoryBackend());
  const mdb = meng.open('nomem.db');
  const realMalloc = meng.M._malloc;
  meng.M._malloc = () => 0;
  const nomem = [];
  for (const op of [() => meng.tempcryptStats(), () => mdb.run('SELECT ?', [new Uint8Array(8)]), () => mdb.export()]) {
    try { op(); nomem.push('ok'); } catch (e) { nomem.push(e.code); }
  }
  meng.M._malloc = realMalloc;
  mdb.close();
  check(nomem.join() === '7,7,7', 'node: a failed malloc in the engine is SQLITE_NOMEM', nomem.join());
  let opfsErr;
  try { await open('x.db', { storage: 'opfs' }); } catch (e) { opfsErr = e; }
  check(opfsErr && /OPFS/.test(opfsErr.message), 'node: storage opfs rejected with a clear message', opfsErr && opfsErr.message);
}

function testTypes() {
  try {
    execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'test/browser/tsconfig.json')], { stdio: 'pipe' });
    check(true, 'types: tsc --noEmit on index.d.ts and worker.d.ts');
  } catch (e) {
    check(false, 'types: tsc --noEmit on index.d.ts and worker.d.ts', String(e.stdout || e.message));
  }
}

async function testApi(base) {
  await withBrowser('api', async (ctx) => {
    const page = await newPage(ctx, base);
    const res = await page.evaluate(() => import('/test/browser/api-tests.js').then((m) => m.run()));
    for (const r of res) check(r.ok, `api: ${r.name}`, r.error || '');

    // Persistence across a reload.
    const token = crypto.randomBytes(8).toString('hex');
    const wrote = await page.evaluate(async (token) => {
      const { open } = await import('/dist/index.js');
      const db = await open('persist.db');
      await db.exec('CREATE TABLE IF NOT EXISTS kv(k PRIMARY KEY, v)');
      await db.run('INSERT OR REPLACE INTO kv VALUES (?, ?)', ['token', token]);
      const storage = db.storage;
      await db.close();
      return storage;
    }, token);
    check(wrote === 'opfs', 'persist: default storage in a browser is opfs', wrote);
    await page.reload();
    const read = await page.evaluate(async () => {
      const { open } = await import('/dist/index.js');
      const db = await open('persist.db');
      const rows = await db.query('SELECT v FROM kv WHERE k = ?', ['token']);
      await db.close();
      return rows;
    });
    check(read.length === 1 && read[0].v === token, 'persist: value survives a page reload', JSON.stringify(read));

    // Second tab: a clear SQLITE_BUSY rejection, and no harm to the first.
    const pageB = await newPage(ctx, base);
    await page.evaluate(async () => {
      const { open } = await import('/dist/index.js');
      window.dbA = await open('busy.db');
      await window.dbA.exec('CREATE TABLE IF NOT EXISTS b(x); INSERT INTO b VALUES (1)');
    });
    const second = await pageB.evaluate(async () => {
      const { open } = await import('/dist/index.js');
      try { const db = await open('busy.db'); await db.close(); return { opened: true }; }
      catch (e) { return { opened: false, name: e.name, code: e.code, message: e.message }; }
    });
    check(!second.opened && second.code === 5 && /another tab/.test(second.message), 'second tab: rejected with SQLITE_BUSY saying why', JSON.stringify(second));
    const firstStill = await page.evaluate(async () => (await window.dbA.query('SELECT count(*) AS n FROM b'))[0].n);
    check(firstStill >= 1, 'second tab: first tab unaffected');
    await page.evaluate(() => window.dbA.close());
    const third = await pageB.evaluate(async () => {
      const { open } = await import('/dist/index.js');
      const db = await open('busy.db');
      const n = (await db.query('SELECT count(*) AS n FROM b'))[0].n;
      const ic = (await db.query('PRAGMA integrity_check'))[0].integrity_check;
      await db.close();
      return { n, ic };
    });
    check(third.n >= 1 && third.ic === 'ok', 'second tab: opens once the first closed', JSON.stringify(third));
    // Two tabs opening a new pool at the same moment: one wins, the other
    // gets SQLITE_BUSY (the pool's Web Lock).
    const race = await Promise.all([page, pageB].map((p) => p.evaluate(async () => {
      const { open } = await import('/dist/index.js');
      try { window.dbR = await open('race.db'); return { opened: true }; }
      catch (e) { return { opened: false, code: e.code, message: e.message }; }
    })));
    check(race.filter((r) => r.opened).length === 1 && race.some((r) => !r.opened && r.code === 5 && /another tab/.test(r.message)),
      'two tabs opening a new pool at once: one opens, the other gets SQLITE_BUSY', JSON.stringify(race));
    await Promise.all([page, pageB].map((p) => p.evaluate(() => window.dbR && window.dbR.close())));
    await pageB.close();

    // Full quota: SQLITE_FULL, and the database stays intact and usable.
    // (The pool is opened first: Chromium reserves capacity per handle.)
    const cdp = await ctx.newCDPSession(page);
    await page.evaluate(async () => {
      const { open } = await import('/dist/index.js');
      window.dbF = await open('full.db');
      await window.dbF.exec('CREATE TABLE IF NOT EXISTS f(b)');
    });
    const usage = await page.evaluate(async () => (await navigator.storage.estimate()).usage);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: base, quotaSize: usage + 3 * 1024 * 1024 });
    const full = await page.evaluate(async () => {
      const db = window.dbF;
      let committed = 0, err = null;
      for (let i = 0; i < 200 && !err; i++) {
        try { await db.run('INSERT INTO f VALUES (randomblob(200000))'); committed++; }
        catch (e) { err = { name: e.name, code: e.code, message: e.message }; }
      }
      let tempErr = null;
      try {
        await db.exec('PRAGMA temp_store=FILE; PRAGMA temp.cache_size=4; CREATE TEMP TABLE big AS SELECT randomblob(100000) FROM f, f AS g');
      } catch (e) { tempErr = { code: e.code, message: e.message }; }
      const n = (await db.query('SELECT count(*) AS n FROM f'))[0].n;
      const ic = (await db.query('PRAGMA integrity_check'))[0].integrity_check;
      await db.close();
      return { committed, err, tempErr, n, ic };
    });
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: base });
    check(full.err && (full.err.code & 0xff) === 13 && full.committed > 0, 'quota: a full quota gives SQLITE_FULL', JSON.stringify(full.err) + ` after ${full.committed} rows`);
    check(full.tempErr && (full.tempErr.code & 0xff) === 13, 'quota: a temp file hitting the quota gives SQLITE_FULL', JSON.stringify(full.tempErr));
    check(full.n === full.committed && full.ic === 'ok', 'quota: database intact after SQLITE_FULL', `${full.n} rows, integrity ${full.ic}`);
  });
}

// Pool exhaustion: a clear SQLITE_CANTOPEN, then success after reserve().
async function testPool(base) {
  await withBrowser('pool', async (ctx) => {
    const page = await newPage(ctx, base);
    const r = await inWorker(page, { cmd: 'pool', name: 'pool.db' });
    check(r.ok && r.err && (r.err.code & 0xff) === 14 && /no free file/.test(r.err.message), 'pool: exhausted pool gives SQLITE_CANTOPEN saying why', JSON.stringify(r.err || r.error));
    check(r.ok && r.n > 0 && r.ic === 'ok', 'pool: the statement runs after reserve()', `${r.n} rows, integrity ${r.ic}`);
  });
}

// The leak check for one mode: run the workloads, close the tab without
// closing the database (a crash, as far as OPFS is concerned), scan the
// raw profile, reopen (leftovers must be wiped), scan again.
async function testLeak(base, enabled) {
  const mode = enabled ? 'enabled' : 'disabled';
  const marker = ['TCLEAK', crypto.randomBytes(12).toString('hex'), 'MARK'].join('-');
  const profile = freshProfile(`leak-${mode}`);
  let ctx = await launch(profile);
  let run;
  try {
    const page = await newPage(ctx, base);
    run = await inWorker(page, { cmd: 'leak', name: 'leak.db', marker, enabled });
    await page.close({ runBeforeUnload: false });
  } finally {
    await ctx.close();
  }
  if (!check(run.ok, `leak ${mode}: workloads ran`, run.error || '')) return;
  const spyHits = sum(run.hits);
  console.log(`  spy: temp files opened ${JSON.stringify(run.opened)}, temp writes ${run.tempWrites}, bytes ${JSON.stringify(run.bytes)}`);
  console.log(`  spy hits by kind ${JSON.stringify(run.hits)}; pool scan ${JSON.stringify(run.poolHits)}; stats ${JSON.stringify(run.stats)}`);
  check(run.wasEnabled === true, `leak ${mode}: tempcrypt is on by default`);
  check(sum(run.opened) >= 3 && run.tempWrites > 0, `leak ${mode}: workloads spilled to temp files`, `${sum(run.opened)} temp files, ${run.tempWrites} writes`);
  for (const [label, w] of Object.entries(run.perWorkload)) {
    console.log(`    ${label.padEnd(24)} ${String(w.ms).padStart(5)} ms  temp files opened ${w.tempFiles}, temp writes ${w.tempWrites}, marker hits ${w.hits}`);
  }
  const dry = Object.entries(run.perWorkload).filter(([label, w]) => label !== 'setup' && w.tempWrites === 0).map(([l]) => l);
  check(dry.length === 0, `leak ${mode}: every workload wrote temp files`, dry.length ? `none from: ${dry.join(', ')}` : '');
  if (!enabled) {
    const clean = Object.entries(run.perWorkload).filter(([label, w]) => label !== 'setup' && w.hits === 0).map(([l]) => l);
    check(clean.length === 0, 'leak disabled: every workload put the marker into a temp file', clean.length ? `not: ${clean.join(', ')}` : '');
  }
  const raw = rawScan(profile, marker);
  console.log(`  raw scan: ${raw.files} files, ${raw.bytes} bytes, ${raw.poolFiles} pool files; ${raw.where.join('; ') || 'no hits'}`);
  check(raw.persistentHits > 0, `leak ${mode}: raw scan sees the main database's plaintext (the scan works)`, `${raw.persistentHits} hits`);
  if (enabled) {
    check(spyHits === 0, 'leak enabled: spy finds no marker in any temp-file write', `${spyHits} hits`);
    check(run.poolHits.temp === 0, 'leak enabled: OPFS pool scan finds no marker in temp files', `${run.poolHits.temp} hits`);
    check(raw.tempHits === 0, 'leak enabled: raw profile scan finds no marker outside main db/journal', `${raw.tempHits} hits`);
    check(run.stats.nFileEncrypted >= 3 && run.stats.nFilePlain === 0, 'leak enabled: every temp file encrypted', `${run.stats.nFileEncrypted} encrypted, ${run.stats.nFilePlain} plain`);
  } else {
    check(spyHits > 0, 'leak disabled: spy finds the marker (the check can fail)', `${spyHits} hits`);
    check(run.poolHits.temp > 0, 'leak disabled: OPFS pool scan finds the marker in the open temp file', `${run.poolHits.temp} hits`);
    check(raw.tempHits > 0, 'leak disabled: raw profile scan finds the marker in a temp pool file', `${raw.tempHits} hits`);
    check(run.stats.nFilePlain >= 3 && run.stats.nFileEncrypted === 0, 'leak disabled: every temp file plain', `${run.stats.nFilePlain} plain`);
  }
  // Next open of the same profile: temp leftovers wiped.
  ctx = await launch(profile);
  let again;
  try {
    const page = await newPage(ctx, base);
    again = await inWorker(page, { cmd: 'reopen', name: 'leak.db' });
  } finally {
    await ctx.close();
  }
  check(again.ok && again.rows === 6000 && again.integrity === 'ok', `crash ${mode}: database intact after the crash`, again.error || `${again.rows} rows, ${again.integrity}`);
  check(again.ok && again.wiped.length >= 1, `crash ${mode}: temp leftovers wiped on the next open`, JSON.stringify(again.wiped));
  const raw2 = rawScan(profile, marker);
  check(raw2.tempHits === 0, `crash ${mode}: no marker outside main db/journal after the next open`, `${raw2.tempHits} hits; ${raw2.where.join('; ')}`);
  fs.rmSync(profile, { recursive: true, force: true });
  return run;
}

// ---------------------------------------------------------------- main
const server = await serve(ROOT);
try {
  if (want('node')) await testNode();
  if (want('types')) testTypes();
  if (want('api')) await testApi(server.url);
  if (want('pool')) await testPool(server.url);
  if (want('leak')) { await testLeak(server.url, false); await testLeak(server.url, true); }
  if (want('multitab')) await (await import('./multitab.mjs')).testMultiTab({ check, withBrowser, newPage, base: server.url });
  if (want('consumer')) await (await import('./consumer.mjs')).testConsumer({ check, withBrowser, ROOT, BUILD });
} catch (e) {
  check(false, 'test run', e.stack);
} finally {
  await server.close();
}
finish();
