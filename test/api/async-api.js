// SQL through the main-thread API, in every browser engine (in the page;
// test/browser/run.mjs) and in Node (./node.mjs).  The tests are split by
// concern: ./async-sql.js, ./async-transactions.js, ./async-lifecycle.js,
// ./async-transfer.js; each throws on failure.  run() returns
// [{ name, ok, error }], the sync API's tests (./sync-api.js) included.
import { open } from '../../dist/index.js';
import { SQLITE_CANTOPEN } from '../../dist/shared/constants.js';
import { eq, ok, rejects, runTests } from './assert.js';
import { tests as sqlTests } from './async-sql.js';
import { tests as transactionTests } from './async-transactions.js';
import { tests as lifecycleTests } from './async-lifecycle.js';
import { tests as transferTests } from './async-transfer.js';
import { tests as syncTests } from './sync-api.js';
import { tests as evidenceTests } from './evidence.js';

// In the order the tests were written in (the browser runner lists them by name).
const ORDER = [
  'types', 'params', 'errors', 'transactions', 'tempcrypt', 'rowMode', 'statements', 'batch',
  'transactionHelper', 'transactionGone', 'strings', 'habits', 'timeoutSetDuringTransaction',
  'deadlock', 'busyTimeoutInfinity', 'rawTransactionAcrossCalls', 'closeTwice',
  'closeRunsCallsMadeBefore', 'callAfterClose', 'closeWithTwoExports',
  'importKeepsCallerChunks', 'importRefusesNonBytes', 'unclonableArguments', 'iterate',
  'importExport', 'setupAndTimeout', 'extensions',
];
const byName = { ...sqlTests, ...transactionTests, ...lifecycleTests, ...transferTests };
export const tests = Object.fromEntries(ORDER.map((n) => [n, byName[n]]));
if (Object.keys(byName).length !== ORDER.length || ORDER.some((n) => typeof byName[n] !== 'function')) {
  throw new Error('async-api.js: ORDER and the test files disagree');
}

// Memory storage without a Worker, on the page's main thread.
async function mainThread() {
  const db = await open('main-thread.db', { storage: 'memory', worker: false });
  try {
    eq(db.storage, 'memory', 'storage');
    await db.exec('CREATE TABLE m(x); INSERT INTO m VALUES (1), (2)');
    eq(await db.query('SELECT sum(x) AS s FROM m'), [{ s: 3 }], 'query on the main thread');
  } finally { await db.close(); }
}

// Storage choice: never a silent fallback (in the page without a Worker, or
// in Node: no OPFS in either).
async function storageChoice() {
  const e = await rejects(open('x.db', { storage: 'opfs', worker: false }), SQLITE_CANTOPEN, 'opfs where OPFS is unusable');
  ok(/OPFS/.test(e.message) && /'auto'/.test(e.message), `the error says why and what to do: ${e.message}`);
  const db = await open('auto.db', { storage: 'auto', worker: false });
  try {
    eq(db.storage, 'memory', "'auto' falls back to memory and says so");
  } finally { await db.close(); }
  if (typeof window === 'object') {
    await rejects(open('x.db', { worker: false }), SQLITE_CANTOPEN, "the default in a browser is 'opfs', not a silent fallback");
  }
}

// The synchronous API's tests run in a dedicated Worker in a browser (OPFS
// needs one), in-process elsewhere.
function syncTestsInWorker(storages, ctx) {
  return new Promise((resolve) => {
    const w = new Worker(new URL('./sync-worker.js', import.meta.url), { type: 'module' });
    w.onmessage = (e) => { resolve(e.data); w.terminate(); };
    w.onerror = (e) => { resolve([{ name: 'sync API worker', ok: false, error: e.message }]); w.terminate(); };
    w.postMessage({ storages, ctx });
  });
}

// The database the native sqlite3 shell made (mk/browser.mk), or null.
async function nativeDb() {
  const url = new URL('../../build/api-fixtures/native.db', import.meta.url);
  try {
    if (url.protocol === 'file:') {
      const fsName = 'node:fs/promises';
      return new Uint8Array(await (await import(fsName)).readFile(url));
    }
    const res = await fetch(url);
    return res.ok ? new Uint8Array(await res.arrayBuffer()) : null;
  } catch { return null; }
}

// ctx.nativeDb: bytes of a database made by the native sqlite3 shell.
export async function run(storages = ['opfs', 'memory'], ctx = {}) {
  if (!ctx.nativeDb) ctx = { ...ctx, nativeDb: await nativeDb() };
  const out = [];
  for (const [name, fn] of [['memory on the main thread', mainThread], ['storage choice', storageChoice]]) {
    try { await fn(); out.push({ name, ok: true }); }
    catch (e) { out.push({ name, ok: false, error: String(e && e.stack || e) }); }
  }
  out.push(...await runTests(tests, storages, ctx));
  out.push(...await runTests(evidenceTests, storages, ctx));
  const inPage = typeof window === 'object' && typeof Worker === 'function';
  out.push(...(inPage ? await syncTestsInWorker(storages, ctx) : await runTests(syncTests, storages, ctx, ' [sync]')));
  return out;
}
