// The rules of several tabs on one database, one check each (run.mjs
// --only=tabs, and with --only=multitab): a database is its pool and its
// name; lockTimeoutMs counts only time spent waiting for another tab; a
// reply reaches only the tab that asked; one tab's close() never ends
// another tab's transaction; an owner Worker that ends itself fails its
// own tab's calls and hands over, and so does an owner whose close fails;
// a commit whose outcome cannot be known is reported so.  The random programs against a sequential model are
// elsewhere; these are the cases a reviewer and a user met.
import { SQLITE_BUSY, SQLITE_ABORT, SQLITE_ABORT_ROLLBACK } from '../../js/shared/constants.js';
import { tabsOn, inPage, sleep } from './multitab.mjs';

const SETUP = '/test/browser/tabs-setup.js';
const settled = (p) => p.then((value) => ({ ok: true, value }), (e) => ({ ok: false, code: e.code, message: e.message }));

// Two databases in one pool: the second is never run on the first.
async function twoNamesOnePool({ check, ctx, newPage, base }) {
  const [a] = await tabsOn(ctx, newPage, base, 'alpha.db', 1, { pool: 'rules-pool' });
  await inPage(a, () => db.exec('DROP TABLE IF EXISTS alpha_only; CREATE TABLE alpha_only(x)'));
  const b = await newPage(ctx, base);
  const got = await inPage(b, async () => {
    const { open } = await import('/dist/index.js');
    try {
      const db = await open('beta.db', { pool: 'rules-pool', lockTimeoutMs: 300 });
      const tables = (await db.query('SELECT name FROM sqlite_master')).map((r) => r.name);
      await db.close();
      return { opened: true, tables };
    } catch (e) {
      return { opened: false, code: e.code, message: e.message };
    }
  });
  check(!got.opened && got.code === SQLITE_BUSY && /rules-pool/.test(got.message),
    "tabs: beta.db in the pool of another tab's alpha.db is not run on alpha.db (SQLITE_BUSY naming the pool)", JSON.stringify(got));
  // A call that names another database, sent to alpha.db's owner's inbox
  // (as no tab of this package sends it), is refused.
  const refused = await inPage(b, async (owner) => {
    const { inboxOf } = await import('/dist/shared/locks.js');
    const opfs = (await import('/dist/storage/opfs-backend.js')).default;
    const alpha = await opfs.shareKey('alpha.db', { pool: 'rules-pool' }), beta = await opfs.shareKey('beta.db', { pool: 'rules-pool' });
    const me = `spy-${Math.random().toString(36).slice(2)}`;
    const inbox = new BroadcastChannel(inboxOf(alpha, me));
    const answer = new Promise((r) => { inbox.onmessage = ({ data }) => r(data); setTimeout(() => r('no answer'), 3000); });
    const out = new BroadcastChannel(inboxOf(alpha, owner));
    out.postMessage({ from: me, db: beta, id: 1, method: 'query', args: ['SELECT name FROM sqlite_master'] });
    const got = await answer;
    inbox.close();
    out.close();
    return got;
  }, a.info.owner.id);
  check(refused && refused.id === 1 && refused.error && /not .*beta\.db/.test(refused.error.message) && refused.result === undefined,
    'tabs: an owner refuses a call that names another database, saying so', JSON.stringify(refused));
  await inPage(a, () => db.close());
}

// lockTimeoutMs 0: the first and only tab opens the database; a tab that
// would have to wait for another's answer does not wait.
async function zeroWait({ check, ctx, newPage, base }) {
  const openIn = (p) => inPage(p, async () => {
    const { open } = await import('/dist/index.js');
    try {
      window.db = await open('rules-zero.db', { lockTimeoutMs: 0 });
      return { opened: true, one: (await db.query('SELECT 1 AS one'))[0].one, self: db.owner.self };
    } catch (e) {
      return { opened: false, code: e.code, message: e.message };
    }
  });
  const [p, q] = [await newPage(ctx, base), await newPage(ctx, base)];
  const first = await openIn(p);
  check(first.opened && first.one === 1 && first.self, 'tabs: lockTimeoutMs 0 opens the database in the first and only tab', JSON.stringify(first));
  const second = await openIn(q);
  check(!second.opened && second.code === SQLITE_BUSY && /waited 0 ms/.test(second.message),
    "tabs: lockTimeoutMs 0 in a second tab: SQLITE_BUSY at once (it does not wait for the owner's answer)", JSON.stringify(second));
  await inPage(p, () => db.close());
}

// What page p receives from now on (window.spied: messages and bytes) on
// the channels its tab's Worker listens on for database `name`: the
// database's channel and the tab's inbox (js/shared/locks.js).
function spyIn(p, name) {
  return inPage(p, async (name) => {
    const { CHANNEL, inboxOf } = await import('/dist/shared/locks.js');
    const key = await (await import('/dist/storage/opfs-backend.js')).default.shareKey(name);
    const size = (v) => (v instanceof ArrayBuffer ? v.byteLength : ArrayBuffer.isView(v) ? v.byteLength : typeof v === 'string' ? v.length
      : v && typeof v === 'object' ? Object.values(v).reduce((n, x) => n + size(x), 0) : 8);
    window.spied = { messages: 0, bytes: 0 };
    window.spies = [CHANNEL + key, inboxOf(key, db.tab)].map((n) => {
      const ch = new BroadcastChannel(n);
      ch.onmessage = ({ data }) => { window.spied.messages++; window.spied.bytes += size(data); };
      return ch;
    });
  }, name);
}

// A 20 MB reply to one tab is not received by a third.
async function pointToPoint({ check, ctx, newPage, base }) {
  const NAME = 'rules-p2p.db';
  const [, b, c] = await tabsOn(ctx, newPage, base, NAME, 3);
  await spyIn(c, NAME);
  const n = await inPage(b, async () => (await db.query('SELECT randomblob(20000000) AS b'))[0].b.byteLength);
  await sleep(300);
  const spied = await inPage(c, () => { for (const ch of window.spies) ch.close(); return window.spied; });
  check(n === 20000000 && spied.bytes < 100000,
    "tabs: a 20 MB reply to one tab reaches only that tab (a third tab's channels carry none of it)", `reply ${n} bytes; the third tab received ${JSON.stringify(spied)}`);
  for (const p of [b, c]) await inPage(p, () => db.close());
}

// In page p: a transaction that inserts `first`, waits for window.openGate(),
// inserts `second`; window.tx its outcome (null, or { code, message }).
function holdTx(p, first, second) {
  return inPage(p, ([first, second]) => {
    window.gate = new Promise((r) => { window.openGate = r; });
    window.inTx = false;
    window.tx = db.transaction(async (tx) => {
      await tx.run('INSERT INTO k VALUES (?)', [first]);
      window.inTx = true;
      await window.gate;
      await tx.run('INSERT INTO k VALUES (?)', [second]);
    }).then(() => null, (e) => ({ code: e.code, message: e.message }));
  }, [first, second]);
}

// The owner's close() waits for another tab's transaction; past its bound
// it rolls it back, saying that the owner closed the database.
async function closeKeepsOthers({ check, ctx, newPage, base }) {
  const [a, b, e] = await tabsOn(ctx, newPage, base, 'rules-close.db', 3, { busyTimeoutMs: 3000 });
  await inPage(a, () => db.exec('DROP TABLE IF EXISTS k; CREATE TABLE k(x)'));
  await holdTx(b, 'b1', 'b2');
  await b.waitForFunction(() => window.inTx === true);
  await inPage(e, () => db.close());   // a served tab closes first: b's transaction goes on
  await inPage(a, () => { window.closeDone = db.close().then(() => 'closed', (e) => e.message); });
  await sleep(500);
  await inPage(b, () => window.openGate());
  const txErr = await inPage(b, () => window.tx);
  const closed = await inPage(a, () => window.closeDone);
  const rows = await inPage(b, async () => (await db.query('SELECT x FROM k ORDER BY rowid')).map((r) => r.x));
  check(txErr === null && closed === 'closed' && rows.join() === 'b1,b2',
    "tabs: a served tab's close() and then the owner's let another tab's transaction in progress finish (it commits, whole)", JSON.stringify({ txErr, closed, rows }));

  const [c, d] = await tabsOn(ctx, newPage, base, 'rules-close-bound.db', 2, { busyTimeoutMs: 700 });
  await inPage(c, () => db.exec('DROP TABLE IF EXISTS k; CREATE TABLE k(x)'));
  await holdTx(d, 'd1', 'd2');
  await d.waitForFunction(() => window.inTx === true);
  const ms = await inPage(c, async () => { const t0 = performance.now(); await db.close(); return performance.now() - t0; });
  await inPage(d, () => window.openGate());
  const err = await inPage(d, () => window.tx);
  const left = await inPage(d, async () => (await db.query('SELECT count(*) AS n FROM k'))[0].n);
  check(ms >= 600 && err && err.code === SQLITE_ABORT_ROLLBACK && /closed the database/.test(err.message) && !/went away/.test(err.message) && left === 0,
    "tabs: past busyTimeoutMs the owner's close() rolls back another tab's transaction, and the error says the owner closed the database",
    JSON.stringify({ ms, err, left }));
  for (const p of [b, d]) await inPage(p, () => db.close());
}

// The owner's Worker ends itself: its own tab's calls fail at once, and
// another tab takes over.
async function ownerQuits({ check, ctx, newPage, base }) {
  const setup = new URL(SETUP, base).href;
  const [a, b] = await tabsOn(ctx, newPage, base, 'rules-quit.db', 2, { setup });
  const got = await inPage(a, async (settledSrc) => {
    const settled = eval(settledSrc);
    const pending = new Promise((r) => setTimeout(() => r('pending'), 4000));
    const quit = settled(db.query('SELECT quit() AS q'));
    const next = settled(db.query('SELECT 2 AS two'));
    const [r1, r2] = await Promise.all([Promise.race([quit, pending]), Promise.race([next, pending])]);
    const r3 = await Promise.race([settled(db.query('SELECT 3 AS three')), pending]);
    return { r1, r2, r3 };
  }, settled.toString());
  check(got.r1 !== 'pending' && got.r2 !== 'pending' && !got.r2.ok && /Worker/.test(got.r2.message) && got.r3 !== 'pending' && !got.r3.ok,
    "tabs: an owner Worker that ends itself (self.close()) fails its own tab's calls at once, saying so", JSON.stringify(got));
  await b.waitForFunction(() => db.owner.self === true, null, { timeout: 10000 });
  const after = await inPage(b, async () => (await db.query('SELECT 7 AS n'))[0].n);
  check(after === 7, 'tabs: ... and another tab takes the database over', String(after));
  await inPage(b, () => db.close());
}

// The owner's close() fails (its database's close() throws): the error
// reaches its caller, and the owner lets go all the same, so another tab
// takes over.  The owner runs in a dedicated Worker of page a with
// { worker: false } (the database in-process there), so that no Worker
// ended by close() frees its locks for it.
async function ownerCloseThrows({ check, ctx, newPage, base }) {
  const NAME = 'rules-close-throws.db';
  const a = await newPage(ctx, base);
  const setup = new URL(SETUP, base).href;
  const opened = await inPage(a, ([name, setup]) => {
    const src = `self.onmessage = async ({ data }) => {
      if (data.open) {
        const { open } = await import(data.open);
        try {
          self.db = await open(data.name, { worker: false, setup: data.setup });
          await db.query('SELECT break_close()');
          self.postMessage({ self: db.owner.self });
        } catch (e) { self.postMessage({ error: e.message }); }
      } else {
        self.postMessage(await db.close().then(() => 'closed', (e) => e.message));
      }
    };`;
    window.owner = new Worker(URL.createObjectURL(new Blob([src], { type: 'text/javascript' })), { type: 'module' });
    window.ask = (msg) => new Promise((r) => { window.owner.onmessage = ({ data }) => r(data); window.owner.postMessage(msg); });
    return window.ask({ open: new URL('/dist/index.js', location.href).href, name, setup });
  }, [NAME, setup]);
  const [b] = await tabsOn(ctx, newPage, base, NAME, 1);
  const closed = await inPage(a, () => window.ask({ close: true }));
  const took = await b.waitForFunction(() => db.owner.self === true, null, { timeout: 5000 }).then(() => true, () => false);
  const after = took ? await inPage(b, async () => (await db.query('SELECT 7 AS n'))[0].n) : null;
  check(opened.self === true && /close failed on purpose/.test(closed) && took && after === 7,
    "tabs: an owner whose database's close() throws reports it and still lets go: another tab takes over", JSON.stringify({ opened, closed, took, after }));
  await inPage(a, () => window.owner.terminate());
  await inPage(b, () => db.close());
}

// A commit in flight when the owner's tab dies: outcome unknown (code 4),
// never "rolled back"; and it is there at most once.
async function commitInFlight({ check, ctx, newPage, base }) {
  const setup = new URL(SETUP, base).href;
  const [a, b] = await tabsOn(ctx, newPage, base, 'rules-commit.db', 2, { setup });
  await inPage(a, () => db.exec('DROP TABLE IF EXISTS k; CREATE TABLE k(x)'));
  // The transaction's last call keeps the owner busy (not awaited), so
  // that its commit is in flight when the owner's tab is closed.
  await inPage(b, () => {
    window.tx = db.transaction(async (tx) => {
      await tx.run("INSERT INTO k VALUES ('c')");
      tx.query('SELECT hang(1500)').catch(() => {});
    }).then(() => null, (e) => ({ code: e.code, message: e.message }));
  });
  await sleep(500);
  await a.close({ runBeforeUnload: false });
  const err = await inPage(b, () => window.tx);
  const n = await inPage(b, async () => (await db.query("SELECT count(*) AS n FROM k WHERE x = 'c'"))[0].n);
  check(err && err.code === SQLITE_ABORT && /outcome unknown/.test(err.message) && n <= 1,
    "tabs: a commit in flight when the owner's tab dies is reported as outcome unknown (code 4), never as rolled back", JSON.stringify({ err, n }));
  await inPage(b, () => db.close());
}

export async function testTabRules({ check, withBrowser, newPage, base }) {
  await withBrowser('tab-rules', async (ctx) => {
    for (const t of [twoNamesOnePool, zeroWait, pointToPoint, closeKeepsOthers, ownerQuits, ownerCloseThrows, commitInFlight]) {
      try {
        await t({ check, ctx, newPage, base });
      } catch (e) {
        check(false, `tabs: ${t.name}`, e.stack);
      }
    }
  });
}
