// Unit tests of the main-thread API's plumbing in Node (make
// test-node-unit): the Worker's dispatch (js/rpc.js, the same one Node
// runs in-process) and the one error shape across the boundary
// (js/errors.js toWire/fromWire).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { open } from '../../dist/index.js';
import { createDispatcher } from '../../dist/tabs.js';
import { SqliteError, toWire, fromWire } from '../../dist/errors.js';
import * as C from '../../dist/constants.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('the dispatcher refuses every call after close with the engine\'s error', async () => {
  // index.js's Database refuses these itself; the Worker's dispatcher must
  // too (it keeps the closed database, whose engine says why).
  const d = createDispatcher();
  await d.call('open', 'closed.db', { storage: 'memory' });
  await d.call('exec', 'CREATE TABLE t(x)');
  await d.call('close');
  for (const [method, ...args] of [['query', 'SELECT 1'], ['tempcrypt.stats', false], ['heapSize'], ['export']]) {
    await assert.rejects(d.call(method, ...args), (e) => e.code === C.SQLITE_MISUSE && e.message === 'database is closed', method);
  }
  await d.call('close');   // twice is fine
});

test('after an open whose setup module failed, calls get "database is closed" (was a TypeError)', async () => {
  const d = createDispatcher();
  const setup = 'data:text/javascript,export default 1';
  await assert.rejects(d.call('open', 'setup-failed.db', { storage: 'memory', setup }), /has no default export function/);
  await assert.rejects(d.call('query', 'SELECT 1'), (e) => e.code === C.SQLITE_MISUSE && e.message === 'database is closed');
});

test('an error crosses as { name, message, code, cause } and comes back the same', () => {
  const quota = new DOMException('quota test', 'QuotaExceededError');
  const inner = Object.assign(new Error('no room'), { sqliteCode: C.SQLITE_FULL, cause: quota });
  const e = new SqliteError('database or disk is full (storage: no room)', C.SQLITE_FULL, { cause: inner });
  const wire = structuredClone(toWire(e));
  assert.deepEqual(wire, {
    name: 'SqliteError', message: e.message, code: C.SQLITE_FULL,
    cause: { name: 'Error', message: 'no room', sqliteCode: C.SQLITE_FULL, cause: { name: 'QuotaExceededError', message: 'quota test' } },
  }, "a DOMException's legacy number code does not cross as a code");
  const back = fromWire(wire);
  assert.ok(back instanceof SqliteError);
  assert.deepEqual([back.code, back.primaryCode, back.message], [C.SQLITE_FULL, C.SQLITE_FULL, e.message]);
  assert.deepEqual([back.cause.name, back.cause.message, back.cause.sqliteCode], ['Error', 'no room', C.SQLITE_FULL]);
  assert.deepEqual([back.cause.cause.name, back.cause.cause.message], ['QuotaExceededError', 'quota test']);
  const other = fromWire(toWire(Object.assign(new TypeError('bad'), { code: 'ERR_X' })));
  assert.deepEqual([other.name, other.message, other.code], ['TypeError', 'bad', 'ERR_X']);
});

// Regression: the main-thread API dropped the cause (index.js rebuilt the
// error from name, message and code only).
test("the main-thread API keeps a storage error's cause", async () => {
  const dir = path.join(ROOT, 'build', 'node-unit', 'cause');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'sub.db'), { recursive: true });   // a directory where the database should be
  const e = await open('sub.db', { storage: 'file', dir }).then(() => null, (err) => err);
  assert.ok(e instanceof SqliteError, String(e));
  assert.equal(e.code, C.SQLITE_CANTOPEN);
  assert.ok(e.cause, 'a cause');
  assert.equal(e.cause.code, 'EISDIR');
  assert.equal(e.cause.sqliteCode, C.SQLITE_CANTOPEN);
  assert.match(e.message, /\(storage: .*EISDIR/);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the queue of several sessions (js/hub.js): a call waiting for another session\'s transaction is SQLITE_BUSY after its busyTimeoutMs; the holder goes on, and the waiter runs once it let go', async () => {
  const { Hub } = await import('../../dist/hub.js');
  const { open: openSync } = await import('../../dist/worker.js');
  const db = await openSync('hub-busy.db', { storage: 'memory' });
  const hub = new Hub(db);
  try {
    const a = hub.join('a', { busyTimeoutMs: 5000 }), b = hub.join('b', { busyTimeoutMs: 150 });
    await hub.submit(a, 'exec', ['CREATE TABLE t(x)']);
    await hub.submit(a, 'txBegin', []);
    await hub.submit(a, 'run', ['INSERT INTO t VALUES (1)']);
    const t0 = Date.now();
    const waited = await Promise.race([
      hub.submit(b, 'query', ['SELECT count(*) AS n FROM t']).then(() => 'ran inside the other transaction', (e) => e),
      new Promise((r) => setTimeout(() => r('still waiting after 3 s'), 3000)),
    ]);
    assert.ok(waited instanceof Error && waited.code === C.SQLITE_BUSY, `SQLITE_BUSY, not: ${waited}`);
    assert.match(waited.message, /150 ms .*a transaction/);
    assert.ok(Date.now() - t0 >= 140, 'not before busyTimeoutMs');
    await hub.submit(a, 'run', ['INSERT INTO t VALUES (2)']);
    const later = hub.submit(b, 'query', ['SELECT count(*) AS n FROM t']);
    await hub.submit(a, 'txEnd', [true]);
    assert.deepEqual(await later, [{ n: 2 }], 'the waiter runs after the commit');
  } finally {
    await hub.close();
    await db.close();
  }
});
