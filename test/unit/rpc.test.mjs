// Unit tests of the main-thread API's plumbing in Node (make
// test-node-unit): the Worker's dispatch (js/dispatch/rpc.js, the same one Node
// runs in-process) and the one error shape across the boundary
// (js/shared/errors.js toWire/fromWire).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { open } from '../../dist/index.js';
import { open as openSync } from '../../dist/worker.js';
import { createDispatcher } from '../../dist/tabs/tabs.js';
import { SqliteError, toWire, fromWire } from '../../dist/shared/errors.js';
import * as C from '../../dist/shared/constants.js';

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

// Regression: a backend's error raised at open() became an SqliteError
// with the same message whose cause was that error: the message twice.
test("an error's message is said once: the cause holds only the failure underneath", async () => {
  const dir = path.join(ROOT, 'build', 'node-unit', 'cause-once');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'a-file'), '');
  const chain = (e) => (e ? [e, ...chain(e.cause)] : []);
  const noRepeat = (e, what) => {
    const all = chain(e);
    for (let i = 1; i < all.length; i++) assert.notEqual(all[i].message, all[i - 1].message, `${what}: cause ${i} repeats the message`);
  };
  // A directory that cannot be made: the cause is the file system's error.
  const mk = await open('a-file/sub/x.db', { storage: 'file', dir }).then(() => null, (err) => err);
  assert.ok(mk instanceof SqliteError && mk.code === C.SQLITE_CANTOPEN, String(mk));
  noRepeat(mk, 'mkdir');
  assert.equal(mk.cause?.code, 'ENOTDIR');
  // A write lock held by another connection: nothing underneath, no cause.
  const held = await openSync('held.db', { storage: 'file', dir });
  held.exec('CREATE TABLE t(x); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)');
  const other = await open('held.db', { storage: 'file', dir, busyTimeoutMs: 0 });
  try {
    const busy = await other.run('INSERT INTO t VALUES (2)').then(() => null, (err) => err);
    assert.ok(busy instanceof SqliteError && busy.code === C.SQLITE_BUSY, String(busy));
    assert.match(busy.message, /locked/);
    noRepeat(busy, 'lock');
    assert.equal(busy.cause, undefined);
  } finally {
    await other.close();
    held.exec('ROLLBACK');
    await held.close();
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

// A dedicated Worker stand-in: the real dispatcher in-process, each answer
// posted a few ms later (a message on its way), none once terminated.
class SlowWorker {
  constructor() { this.d = createDispatcher(); this.onmessage = null; this.onerror = null; this.dead = false; }
  postMessage({ id, method, args }) {
    const answer = (body) => setTimeout(() => { if (!this.dead) this.onmessage?.({ data: { id, ...body } }); }, method === 'close' ? 0 : 5);
    this.d.call(method, ...args).then((result) => answer({ result }), (e) => answer({ error: toWire(e) }));
  }
  terminate() { this.dead = true; }
}

test('every call settles when close() terminates the Worker: a call it had not answered rejects as closed', async () => {
  const { WorkerClient } = await import('../../dist/page/client.js');
  const { AsyncDatabase } = await import('../../dist/page/async-database.js');
  const client = new WorkerClient(new SlowWorker());
  const info = await client.call('open', [':memory:', { storage: 'memory', busyTimeoutMs: 50 }]);
  const db = new AsyncDatabase(client, ':memory:', info, { busyTimeoutMs: 50 });
  await db.exec('CREATE TABLE t(x)');
  const calls = [];
  let started;
  const inside = new Promise((r) => { started = r; });
  const tx = db.transaction(async (t) => {
    started();
    for (let i = 0; i < 1000; i++) {
      const p = t.run('INSERT INTO t VALUES (?)', [i]);
      calls.push(p);
      if (await p.then(() => false, () => true)) break;
    }
  });
  tx.catch(() => {});
  await inside;
  await db.close();   // gives up waiting for the transaction after busyTimeoutMs
  const within = (p) => Promise.race([p.then(() => 'resolved', (e) => e.code), new Promise((r) => setTimeout(() => r('pending'), 2000))]);
  assert.equal(await within(tx), C.SQLITE_MISUSE, 'transaction() rejects as closed');
  const last = await within(calls[calls.length - 1]);
  assert.equal(last, C.SQLITE_MISUSE, `the last call of the transaction rejects as closed (${calls.length} calls)`);
  assert.equal(client.calls.size, 0, 'no call left waiting for an answer');
  await assert.rejects(client.call('heapSize', []), (e) => e.code === C.SQLITE_MISUSE, 'a call after terminate() rejects at once');
});

test("the owner's queue at close: its own calls made before run, another tab's are handed on; a tab's bye lets its calls run first", async () => {
  const { Hub } = await import('../../dist/dispatch/hub.js');
  const { open: openSync } = await import('../../dist/worker.js');
  const db = await openSync(':memory:', { storage: 'memory' });
  db.exec('CREATE TABLE t(x)');
  let hub = new Hub(db);
  const mine = hub.join('mine'), other = hub.join('other');
  const ins = (s, i) => hub.submit(s, 'run', ['INSERT INTO t VALUES (?)', [i]]).then((r) => r.changes, (e) => `${e.code} ${e.message}`);
  const own = [1, 2, 3].map((i) => ins(mine, i));
  const theirs = [4, 5].map((i) => ins(other, i));
  const moved = [];
  await hub.close((job) => { if (job.s === mine) return false; moved.push(job.args[1][0]); job.reject(new Error('moved')); return true; });
  assert.deepEqual(await Promise.all(own), [1, 1, 1], "this tab's calls made before close() ran");
  assert.deepEqual(await Promise.all(theirs), ['undefined moved', 'undefined moved'], "the other tab's were handed on");
  assert.deepEqual(moved, [4, 5]);
  hub = new Hub(db);
  const leaving = hub.join('leaving');
  const before = [6, 7, 8].map((i) => ins(leaving, i));
  await hub.end(leaving, { after: true });   // the tab's "bye"
  assert.deepEqual(await Promise.all(before), [1, 1, 1], 'the calls a tab made before it closed ran before its bye');
  assert.match(String(await ins(leaving, 9)), /^21 database is closed/, 'a call after the bye is refused');
  assert.deepEqual(db.query('SELECT x FROM t ORDER BY x', [], { rowMode: 'array' }).flat(), [1, 2, 3, 6, 7, 8]);
  await db.close();
});

test('the queue of several sessions (js/dispatch/hub.js): a call waiting for another session\'s transaction is SQLITE_BUSY after its busyTimeoutMs; the holder goes on, and the waiter runs once it let go', async () => {
  const { Hub } = await import('../../dist/dispatch/hub.js');
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

test("the owner's queue at close waits for another session's hold (at most holdMs), moving the others' calls at once", async () => {
  const { Hub } = await import('../../dist/dispatch/hub.js');
  const { open: openSync } = await import('../../dist/worker.js');
  const db = await openSync(':memory:', { storage: 'memory' });
  db.exec('CREATE TABLE t(x)');
  const moving = (own) => (job) => { if (job.s === own) return false; job.reject(new Error('moved')); return true; };
  const ins = (hub, s, i) => hub.submit(s, 'run', ['INSERT INTO t VALUES (?)', [i]]).then((r) => r.changes, (e) => e.message);
  // The holder commits within the bound: its transaction is whole.
  let hub = new Hub(db);
  let mine = hub.join('mine'), holder = hub.join('holder'), other = hub.join('other');
  await hub.submit(holder, 'txBegin', []);
  await ins(hub, holder, 1);
  const waiting = ins(hub, other, 2);
  const closing = hub.close(moving(mine), 5000, mine);
  assert.equal(await waiting, 'moved', "another tab's call not started is moved at once");
  await ins(hub, holder, 3);
  await hub.submit(holder, 'txEnd', [true]);
  await closing;
  assert.deepEqual(db.query('SELECT x FROM t ORDER BY x', [], { rowMode: 'array' }).flat(), [1, 3], 'the holder committed whole');
  // The holder outlasts the bound: rolled back once it has passed.
  hub = new Hub(db);
  mine = hub.join('mine');
  holder = hub.join('holder');
  await hub.submit(holder, 'txBegin', []);
  await ins(hub, holder, 4);
  const t0 = Date.now();
  await hub.close(moving(mine), 150, mine);
  assert.ok(Date.now() - t0 >= 140, 'close waited for the hold, up to holdMs');
  assert.deepEqual(db.query('SELECT x FROM t ORDER BY x', [], { rowMode: 'array' }).flat(), [1, 3], 'the held transaction was rolled back');
  // This tab's own hold is not waited for (its main thread stopped waiting for it).
  hub = new Hub(db);
  mine = hub.join('mine');
  await hub.submit(mine, 'txBegin', []);
  const t1 = Date.now();
  await hub.close(moving(mine), 5000, mine);
  assert.ok(Date.now() - t1 < 2000, "close does not wait for this tab's own transaction");
  await db.close();
});

test('a Worker that ended by itself: its unanswered calls are "outcome unknown" (code 4), later ones say so, close() resolves', async () => {
  const { WorkerClient } = await import('../../dist/page/client.js');
  const client = new WorkerClient(new SlowWorker());
  await client.call('open', [':memory:', { storage: 'memory' }]);
  const pending = client.call('query', ['SELECT 1']);
  client.end(true);   // what its life lock being freed does
  await assert.rejects(pending, (e) => e.code === C.SQLITE_ABORT && /outcome unknown: the database's Worker ended/.test(e.message));
  await assert.rejects(client.call('query', ['SELECT 1']), (e) => e.code === C.SQLITE_MISUSE && /Worker ended .*open the database again/.test(e.message));
  await client.call('close', []);
});

const within = (p, ms = 3000) => Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms))]);

test('a Worker passed to a second open() is refused with a clear error, and the first database keeps working', async () => {
  const w = new SlowWorker();
  const db = await open(':memory:', { storage: 'memory', worker: w });
  try {
    await assert.rejects(within(open('other.db', { storage: 'memory', worker: () => w })),
      (e) => e instanceof TypeError && /already serves a database/.test(e.message), 'the second open()');
    assert.deepEqual(await within(db.query('SELECT 1 AS one')), [{ one: 1 }], 'the first database answers');
  } finally { await within(db.close()); }
});

// A Worker that never calls serve(): it never answers.
class SilentWorker {
  constructor() { this.onmessage = null; this.onerror = null; this.dead = false; }
  postMessage() {}
  terminate() { this.dead = true; }
}

test('a Worker that never calls serve(): open() fails after its start timeout, saying what to do, and the Worker is ended', async () => {
  const { WorkerClient } = await import('../../dist/page/client.js');
  const w = new SilentWorker();
  const client = new WorkerClient(w, { startMs: 200 });
  await assert.rejects(within(client.call('open', [':memory:', { storage: 'memory' }])),
    (e) => e.code === C.SQLITE_CANTOPEN && /did not answer within 200 ms/.test(e.message) && /serve\(\)/.test(e.message), 'open()');
  assert.equal(w.dead, true, 'the Worker is terminated');
  await assert.rejects(client.call('query', ['SELECT 1']), (e) => e.code === C.SQLITE_CANTOPEN, 'a later call says the same');
});

test("open()'s workerStartMs sets the start timeout of the app's Worker; 0: no limit", async () => {
  const w = new SilentWorker();
  await assert.rejects(within(open('start.db', { storage: 'memory', worker: w, workerStartMs: 200 })),
    (e) => e.code === C.SQLITE_CANTOPEN && /did not answer within 200 ms/.test(e.message), 'open() with workerStartMs: 200');
  assert.equal(w.dead, true, 'the Worker is terminated');
  await assert.rejects(open('start.db', { worker: new SilentWorker(), workerStartMs: -1 }),
    (e) => e instanceof TypeError && /workerStartMs/.test(e.message), 'a negative workerStartMs');
  const { WorkerClient } = await import('../../dist/page/client.js');
  const w0 = new SilentWorker();
  const client = new WorkerClient(w0, { startMs: 0 });
  const pending = client.call('query', ['SELECT 1']);
  pending.catch(() => {});
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(w0.dead, false, 'with no limit the Worker is left to start');
  client.terminate();
});
