// Browser tests of the package (make test-browser): the same checks in
// every browser engine (BROWSERS=chromium,firefox,webkit; default: every
// engine installed), each on a fresh profile, files served from 127.0.0.1
// without COOP/COEP.  Engine-specific code lives in one adapter per engine
// (chromium.mjs, firefox.mjs, webkit.mjs; see engines.mjs).  Every check
// asserts; a check that cannot run in an engine is skipped with the reason
// printed; any failure makes the run exit 1.
//   node test/browser/run.mjs [--only=api,quota,pool,leak,multitab,tabs,tabsmodel,consumer,types,conformance]
// (The JS layers' Node unit tests are test/unit/*.test.mjs: make test-node-unit.)
import { serve } from './server.mjs';
import { selectEngines, launchEngine, freshProfile as newProfile } from './engines.mjs';
import { checks } from './checks.mjs';
import { PERSISTENT, POOL_MAGIC, POOL_OFFSET_MAGIC, POOL_OFFSET_FLAGS, POOL_OFFSET_PATH } from '../../js/storage/opfs-pool.js';
import { SQLITE_BUSY, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_OPEN_DELETEONCLOSE } from '../../js/shared/constants.js';
import { SqliteError } from '../../js/shared/errors.js';
// The primary result code of an error sent over postMessage ({ code }).
const primary = (err) => new SqliteError('', err.code).primaryCode;
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BUILD = path.join(ROOT, 'build', 'browser-test');
const only = (process.argv.find((a) => a.startsWith('--only=')) || '').slice(7).split(',').filter(Boolean);
const want = (name) => only.length === 0 || only.includes(name);

const { check, skip, section, finish } = checks('browser tests');

// The engine whose checks run now (an adapter of engines.mjs), and its
// browser shared by the tests that need no profile of their own.
let E = null;
let shared = null;

const freshProfile = (tag) => newProfile(BUILD, `${E.name}-${tag}`);

// Why the current engine cannot run a check that needs `cap`, or null.
function lacks(cap) { return E.caps[cap] === true || typeof E.caps[cap] !== 'string' ? null : E.caps[cap]; }

async function launch(profile, options) {
  const b = await launchEngine(E, profile, options);
  const newPage = b.newPage;
  b.newPage = async () => {
    const page = await newPage();
    page.on('pageerror', (e) => console.log('  [page error]', e.message));
    return page;
  };
  return b;
}

// fn(ctx) with ctx.newPage(): in the engine's shared browser (fresh profile
// at its first use), the pages fn opened closed afterwards.  With options
// ({ quotaMiB }) a browser of its own on a fresh profile, closed and
// removed afterwards.
async function withBrowser(tag, fn, options = null) {
  let b, profile = null;
  if (options) {
    profile = freshProfile(tag);
    b = await launch(profile, options);
  } else {
    if (!shared) { const p = freshProfile('shared'); shared = { profile: p, browser: await launch(p) }; }
    b = shared.browser;
  }
  const pages = [];
  const ctx = { engine: E.name, version: b.version, async newPage() { const p = await b.newPage(); pages.push(p); return p; } };
  try {
    return await fn(ctx);
  } finally {
    if (options) {
      await b.close();
      fs.rmSync(profile, { recursive: true, force: true });
    } else {
      for (const p of pages) await p.close().catch(() => {});
    }
  }
}

async function closeShared() {
  if (!shared) return;
  const s = shared;
  shared = null;
  try { await s.browser.close(); } finally { fs.rmSync(s.profile, { recursive: true, force: true }); }
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

// ---- raw scan of the profile's OPFS files (each engine stores an OPFS
// file's bytes as a plain file under the directory its adapter names:
// Chromium <profile>/Default/File System/, Firefox <profile>/storage/
// default/<origin>/fs/).  Pool files start with our header ('TCP1', flags):
// main database and journal may hold the marker by design; every other
// file (temp, free, unknown) must not.
function rawScan(profile, base, marker) {
  const needle = Buffer.from(marker);
  const dir = E.opfsDir(profile, base);
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
      const isPool = buf.length >= POOL_OFFSET_PATH && buf.readUInt32LE(POOL_OFFSET_MAGIC) === POOL_MAGIC;
      if (isPool) out.poolFiles++;
      const flags = isPool ? buf.readUInt32LE(POOL_OFFSET_FLAGS) : 0;
      const persistent = isPool && (flags & PERSISTENT) && !(flags & SQLITE_OPEN_DELETEONCLOSE);
      if (persistent) out.persistentHits += hits; else out.tempHits += hits;
      if (hits) out.where.push(`${path.relative(dir, p)} (${buf.length} B, ${persistent ? 'persistent' : 'temp/other'} flags=0x${flags.toString(16)}): ${hits}`);
    }
  };
  walk(dir);
  return out;
}

function sum(o) { return Object.values(o || {}).reduce((a, b) => a + b, 0); }

// ---------------------------------------------------------------- tests
function testTypes() {
  for (const [config, what] of [['tsconfig.json', 'index.d.ts, worker.d.ts and kysely.d.ts'], ['tsconfig.drizzle.json', 'drizzle.d.ts']]) {
    try {
      execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(ROOT, 'test/browser', config)], { stdio: 'pipe' });
      check(true, `types: tsc --noEmit on ${what}`);
    } catch (e) {
      check(false, `types: tsc --noEmit on ${what}`, String(e.stdout || e.message));
    }
  }
}

async function testApi(base) {
  const noOpfs = lacks('opfs');
  await withBrowser('api', async (ctx) => {
    const page = await newPage(ctx, base);
    // The API tests in every storage the engine has; the OPFS ones are
    // listed as skipped where it has none.
    const storages = noOpfs ? ['memory'] : ['opfs', 'memory'];
    const { res, names } = await page.evaluate((storages) => import('/test/api/async-api.js')
      .then(async (m) => ({ res: await m.run(storages), names: Object.keys(m.tests) })), storages);
    for (const r of res) check(r.ok, `api: ${r.name}`, r.error || '');
    if (noOpfs) {
      for (const n of names) skip(`api: ${n} (opfs)`, noOpfs);
      await testNoOpfs(page);
      for (const n of ['persist', 'second tab', 'two tabs opening a new pool at once (exclusive, shared)']) skip(n, noOpfs);
      return;
    }

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

    // Second tab, where the first keeps the database to itself (tabs:
    // 'exclusive'): a clear SQLITE_BUSY rejection, and no harm to the first.
    const pageB = await newPage(ctx, base);
    await page.evaluate(async () => {
      const { open } = await import('/dist/index.js');
      window.dbA = await open('busy.db', { tabs: 'exclusive' });
      await window.dbA.exec('CREATE TABLE IF NOT EXISTS b(x); INSERT INTO b VALUES (1)');
    });
    const second = await pageB.evaluate(async () => {
      const { open } = await import('/dist/index.js');
      try { const db = await open('busy.db', { tabs: 'exclusive' }); await db.close(); return { opened: true }; }
      catch (e) { return { opened: false, name: e.name, code: e.code, message: e.message }; }
    });
    check(!second.opened && second.code === SQLITE_BUSY && /another tab/.test(second.message), 'second tab: rejected with SQLITE_BUSY saying why', JSON.stringify(second));
    const firstStill = await page.evaluate(async () => (await window.dbA.query('SELECT count(*) AS n FROM b'))[0].n);
    check(firstStill >= 1, 'second tab: first tab unaffected');
    await page.evaluate(() => window.dbA.close());
    const third = await pageB.evaluate(async () => {
      const { open } = await import('/dist/index.js');
      const db = await open('busy.db', { tabs: 'exclusive' });
      const n = (await db.query('SELECT count(*) AS n FROM b'))[0].n;
      const ic = (await db.query('PRAGMA integrity_check'))[0].integrity_check;
      await db.close();
      return { n, ic };
    });
    check(third.n >= 1 && third.ic === 'ok', 'second tab: opens once the first closed', JSON.stringify(third));
    // Two tabs opening a new pool at the same moment, exclusively: one
    // wins, the other gets SQLITE_BUSY (the pool's Web Lock); sharing: both
    // open it, and name the same owner.
    const race = await Promise.all([page, pageB].map((p) => p.evaluate(async () => {
      const { open } = await import('/dist/index.js');
      try { window.dbR = await open('race.db', { tabs: 'exclusive' }); return { opened: true }; }
      catch (e) { return { opened: false, code: e.code, message: e.message }; }
    })));
    check(race.filter((r) => r.opened).length === 1 && race.some((r) => !r.opened && r.code === SQLITE_BUSY && /another tab/.test(r.message)),
      "two tabs opening a new pool at once (tabs: 'exclusive'): one opens, the other gets SQLITE_BUSY", JSON.stringify(race));
    await Promise.all([page, pageB].map((p) => p.evaluate(() => window.dbR && window.dbR.close())));
    const shared = await Promise.all([page, pageB].map((p) => p.evaluate(async () => {
      const { open } = await import('/dist/index.js');
      try { window.dbR = await open('race-shared.db'); await window.dbR.exec('CREATE TABLE IF NOT EXISTS t(x); INSERT INTO t VALUES (1)'); return { opened: true, owner: window.dbR.owner }; }
      catch (e) { return { opened: false, code: e.code, message: e.message }; }
    })));
    check(shared.every((r) => r.opened) && shared.filter((r) => r.owner.self).length === 1 && shared[0].owner.id === shared[1].owner.id,
      'two tabs opening a new database at once (shared): both open it and name the same owner', JSON.stringify(shared));
    await Promise.all([page, pageB].map((p) => p.evaluate(() => window.dbR && window.dbR.close())));
    await pageB.close();

  });
}

// Full quota: SQLITE_FULL, and the database stays intact and usable.
// Chromium: the origin's quota overridden over CDP just above its usage;
// Firefox: a browser launched with a small storage limit.
async function testQuota(base) {
  const why = lacks('quota');
  const names = ['quota: a full quota gives SQLITE_FULL', 'quota: a temp file spilling from the memory tier (1 MiB) into a full quota gives SQLITE_FULL',
    'quota: a temp file hitting the quota without the memory tier (budget 0) gives SQLITE_FULL', 'quota: database intact after SQLITE_FULL'];
  if (why) { for (const n of names) skip(n, why); return; }
  const override = E.caps.quotaBy === 'override';
  await withBrowser('quota', async (ctx) => {
    const page = await newPage(ctx, base);
    // (The pool is opened first: Chromium reserves capacity per handle.)
    await page.evaluate(async () => {
      const { open } = await import('/dist/index.js');
      window.dbF = await open('full.db');
      await window.dbF.exec('CREATE TABLE IF NOT EXISTS f(b)');
    });
    if (override) {
      const usage = await page.evaluate(async () => (await navigator.storage.estimate()).usage);
      await page.overrideQuota(base, usage + 3 * 1024 * 1024);
    }
    const full = await page.evaluate(async () => {
      const db = window.dbF;
      let committed = 0, err = null;
      for (let i = 0; i < 200 && !err; i++) {
        try { await db.run('INSERT INTO f VALUES (randomblob(200000))'); committed++; }
        catch (e) { err = { name: e.name, code: e.code, message: e.message }; }
      }
      // A temp table of some 20 MB: first with a 1 MiB memory tier (the
      // rest spills to OPFS), then with none.
      const tempFull = async (budget) => {
        await db.tempcrypt.budget(budget);
        await db.tempcrypt.stats(true);
        try {
          await db.exec('PRAGMA temp_store=FILE; PRAGMA temp.cache_size=4; CREATE TEMP TABLE big AS SELECT randomblob(100000) FROM f, f AS g');
          return { created: true };
        } catch (e) { return { code: e.code, message: e.message, stats: await db.tempcrypt.stats() }; }
      };
      const tierErr = await tempFull(1 << 20);
      const tempErr = await tempFull(0);
      const n = (await db.query('SELECT count(*) AS n FROM f'))[0].n;
      const ic = (await db.query('PRAGMA integrity_check'))[0].integrity_check;
      await db.close();
      return { committed, err, tierErr, tempErr, n, ic };
    });
    if (override) await page.overrideQuota(base, null);
    check(full.err && primary(full.err) === SQLITE_FULL && full.committed > 0, names[0], JSON.stringify(full.err) + ` after ${full.committed} rows`);
    check(full.tierErr && primary(full.tierErr) === SQLITE_FULL && full.tierErr.stats.nMemPeak > 0 && full.tierErr.stats.nSpilled > 0, names[1], JSON.stringify(full.tierErr));
    check(full.tempErr && primary(full.tempErr) === SQLITE_FULL, names[2], JSON.stringify(full.tempErr));
    check(full.n === full.committed && full.ic === 'ok', names[3], `${full.n} rows, integrity ${full.ic}`);
  }, override ? null : { quotaMiB: 50 });
}

// Where createSyncAccessHandle() exists but rejects (WebKitGTK), found by a
// real call: simulated in an engine that has OPFS (WebKit itself runs
// testNoOpfs).
async function testNoSyncHandles(base) {
  if (lacks('opfs')) return;
  await withBrowser('nosync', async (ctx) => {
    const page = await newPage(ctx, base);
    const r = await inWorker(page, { cmd: 'nosync', name: 'nosync.db' });
    check(r.ok && /createSyncAccessHandle\(\) failed \(NotSupportedError/.test(r.missing) && r.storage === 'memory' && r.x === 7,
      "no sync handles (simulated): probeOpfs() says why; storage 'auto' falls back to memory and works", r.error || `${r.storage}: ${r.missing}`);
    for (const [what, err] of [['the default storage', r.errDefault], ["storage 'opfs'", r.err]]) {
      check(r.ok && err && err.code === SQLITE_CANTOPEN && /NotSupportedError/.test(err.message) && /'auto'/.test(err.message),
        `no sync handles (simulated): ${what} is refused with SQLITE_CANTOPEN saying why and how to fall back`, JSON.stringify(err));
    }
  });
}

// Pool exhaustion: a clear SQLITE_CANTOPEN, then success after reserve().
async function testPool(base) {
  const why = lacks('opfs');
  if (why) { skip('pool: exhausted pool gives SQLITE_CANTOPEN; runs after reserve() (2 checks)', why); return; }
  await withBrowser('pool', async (ctx) => {
    const page = await newPage(ctx, base);
    const r = await inWorker(page, { cmd: 'pool', name: 'pool.db' });
    check(r.ok && r.err && primary(r.err) === SQLITE_CANTOPEN && /no free file/.test(r.err.message), 'pool: exhausted pool gives SQLITE_CANTOPEN saying why', JSON.stringify(r.err || r.error));
    check(r.ok && r.n > 0 && r.ic === 'ok', 'pool: the statement runs after reserve()', `${r.n} rows, integrity ${r.ic}`);
  });
}

// The leak check for one mode: run the workloads, close the tab without
// closing the database (a crash, as far as OPFS is concerned), scan the
// raw profile, reopen (leftovers must be wiped), scan again.  With
// tempcrypt on, budget is the memory tier's: 0 (every temp file in OPFS
// from its first byte) or LEAK_SMALL_BUDGET (temp files spill part-way,
// which the statistics must show).  Disabled runs with budget 0 too: the
// budget also sizes the sorter's runs, and the control needs every
// workload, sorts included, to write temp files.
const LEAK_SMALL_BUDGET = 64 * 1024;
async function testLeak(base, enabled, budget) {
  const mode = enabled ? `enabled, budget ${budget}` : 'disabled';
  const why = lacks('opfs');
  if (why) { skip(`leak ${mode} and crash ${mode}: workloads, spy, pool scan, raw profile scan, leftovers wiped (all checks)`, why); return; }
  const marker = ['TCLEAK', crypto.randomBytes(12).toString('hex'), 'MARK'].join('-');
  const profile = freshProfile(`leak-${enabled ? `enabled-${budget}` : 'disabled'}`);
  let ctx = await launch(profile);
  let run;
  try {
    const page = await newPage(ctx, base);
    run = await inWorker(page, { cmd: 'leak', name: 'leak.db', marker, enabled, budget });
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
  const raw = rawScan(profile, base, marker);
  console.log(`  raw scan: ${raw.files} files, ${raw.bytes} bytes, ${raw.poolFiles} pool files; ${raw.where.join('; ') || 'no hits'}`);
  check(raw.persistentHits > 0, `leak ${mode}: raw scan sees the main database's plaintext (the scan works)`, `${raw.persistentHits} hits`);
  if (enabled) {
    check(run.budget === budget, `leak ${mode}: the memory tier's budget is the one asked for`, `${run.budget}`);
    if (budget > 0) {
      const st = run.stats;
      check(st.nMemPeak > 0 && st.nMemPeak <= budget && st.nSpilled > 0 && st.nSpilled < st.nLogicalWrite && st.nFileSpilled >= 3,
        `leak ${mode}: temp files spilled part-way (some blocks in memory, the rest in OPFS)`, `peak ${st.nMemPeak}, spilled ${st.nSpilled} of ${st.nLogicalWrite} bytes, ${st.nFileSpilled} files`);
    } else {
      check(run.stats.nMemPeak === 0 && run.stats.nFileSpilled === run.stats.nFileEncrypted, `leak ${mode}: no memory tier, every temp file in OPFS`, JSON.stringify(run.stats));
    }
    check(spyHits === 0, `leak ${mode}: spy finds no marker in any temp-file write`, `${spyHits} hits`);
    check(run.poolHits.temp === 0, `leak ${mode}: OPFS pool scan finds no marker in temp files`, `${run.poolHits.temp} hits`);
    check(raw.tempHits === 0, `leak ${mode}: raw profile scan finds no marker outside main db/journal`, `${raw.tempHits} hits`);
    check(run.stats.nFileEncrypted >= 3 && run.stats.nFilePlain === 0, `leak ${mode}: every temp file encrypted`, `${run.stats.nFileEncrypted} encrypted, ${run.stats.nFilePlain} plain`);
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
  check(again.ok && again.rows === run.rows && again.integrity === 'ok', `crash ${mode}: database intact after the crash`, again.error || `${again.rows} rows, ${again.integrity}`);
  check(again.ok && again.wiped.length >= 1, `crash ${mode}: temp leftovers wiped on the next open`, JSON.stringify(again.wiped));
  const raw2 = rawScan(profile, base, marker);
  check(raw2.tempHits === 0, `crash ${mode}: no marker outside main db/journal after the next open`, `${raw2.tempHits} hits; ${raw2.where.join('; ')}`);
  fs.rmSync(profile, { recursive: true, force: true });
  return run;
}

// ---------------------------------------------------------------- main
// Where the engine has no OPFS sync access handles: the default (OPFS) is
// a clear error that says what is missing and how to fall back; 'auto'
// falls back to memory and says so in db.storage; 'memory' works.
async function testNoOpfs(page) {
  const r = await page.evaluate(async () => {
    const { open } = await import('/dist/index.js');
    const refused = async (options) => {
      try { const d = await open('no-opfs.db', options); await d.close(); return null; } catch (e) { return { name: e.name, code: e.code, message: e.message }; }
    };
    const errDefault = await refused(undefined);
    const errOpfs = await refused({ storage: 'opfs' });
    const db = await open('fallback.db', { storage: 'auto' });
    await db.exec('CREATE TABLE t(x); INSERT INTO t VALUES (42)');
    const rows = await db.query('SELECT x FROM t');
    const storage = db.storage;
    await db.close();
    return { storage, rows, errDefault, errOpfs };
  });
  check(r.storage === 'memory' && r.rows[0].x === 42, "no OPFS: storage 'auto' falls back to memory, says so in db.storage, and works", JSON.stringify(r.rows) + ` in ${r.storage}`);
  for (const [what, err] of [['the default storage', r.errDefault], ["storage 'opfs'", r.errOpfs]]) {
    check(err && err.name === 'SqliteError' && err.code === SQLITE_CANTOPEN && /OPFS/.test(err.message) && /NotSupportedError|getDirectory|FileSystemSyncAccessHandle/.test(err.message) && /'auto'/.test(err.message),
      `no OPFS: ${what} is refused with SQLITE_CANTOPEN saying what is missing and how to fall back`, JSON.stringify(err));
  }
}

// Engine-independent tests, and the consumer app's build (used by every
// engine).
let consumer = null;
async function testNodeSide() {
  section('node');
  try {
    if (want('types')) testTypes();
    if (want('consumer')) consumer = await import('./consumer.mjs').then((m) => m.buildConsumer({ check, ROOT, BUILD }));
  } catch (e) {
    check(false, 'test run', e.stack);
  }
}

// The same browser tests in one engine.  Tests added here get
// { check, skip, withBrowser, base, engine } (engine.caps.opfs === true
// where OPFS sync access handles work; else the reason, for skip()).
async function testEngine(base) {
  section(E.name);
  try {
    if (want('api')) { await testApi(base); await testNoSyncHandles(base); }
    if (want('quota')) await testQuota(base);
    if (want('pool')) await testPool(base);
    if (want('consumer') && consumer) await consumer.testConsumer({ check, withBrowser, engine: E });
    if (want('leak')) { await testLeak(base, false, 0); await testLeak(base, true, 0); await testLeak(base, true, LEAK_SMALL_BUDGET); }
    if (want('multitab')) {
      if (E.caps.opfs === true) await (await import('./multitab.mjs')).testMultiTab({ check, withBrowser, newPage, base, engine: E.name });
      else skip('multi-tab: shared and exclusive tabs on one OPFS database', E.caps.opfs);
    }
    if (want('multitab') || want('tabs')) {
      if (E.caps.opfs === true) await (await import('./tabs-rules.mjs')).testTabRules({ check, withBrowser, newPage, base });
      else skip('tabs: the rules of several tabs on one OPFS database', E.caps.opfs);
    }
    if (want('tabsmodel')) {
      // Random programs of several tabs against a sequential model (tabsmodel.mjs).
      if (E.caps.opfs === true) await (await import('./tabsmodel.mjs')).testTabsModel({ check, withBrowser, newPage, base, engine: E.name });
      else skip('tabs model: random programs of several tabs against a sequential model', E.caps.opfs);
    }
    if (want('conformance')) {
      // The backend conformance suite (test/conformance/) over OPFS and memory.
      if (E.caps.opfs === true) await (await import('../conformance/browser.mjs')).testConformance({ check, skip, withBrowser, base, engine: E.name });
      else skip('conformance suite (OPFS pool and memory backend)', E.caps.opfs);
    }
  } catch (e) {
    check(false, 'test run', e.stack);
  } finally {
    if (shared) console.log(`  ${E.name}: ${shared.browser.version}`);
    await closeShared();
  }
}

const server = await serve(ROOT);
try {
  const { run: engines, absent } = await selectEngines();
  await testNodeSide();
  for (const a of absent) { section(a.name); skip('every browser test', `not installed: ${a.why}`); }
  for (const engine of engines) { E = engine; await testEngine(server.url); }
} catch (e) {
  check(false, 'test run', e.stack);
} finally {
  await server.close();
}
finish();
