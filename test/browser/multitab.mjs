// Several tabs and one database (run.mjs --only=multitab).
//   shared (the default for OPFS): one tab's Worker runs the database and
//     the others send it their calls (js/tabs/tabs.js): one owner that every
//     tab names; a transaction of one tab makes the others wait (at most
//     busyTimeoutMs); a tab that goes away mid-transaction has it rolled
//     back and its cursor finalized; statements and transactions across a
//     handover; and three tabs writing at once while the owner is closed
//     and then reloaded again and again, every write counted.
//   exclusive (tabs: 'exclusive'): open() waits for the pool's Web Lock up
//     to lockTimeoutMs, then SQLITE_BUSY; a tab that closes the database,
//     or goes away, hands it over to the waiting one.
import { SQLITE_BUSY, SQLITE_ABORT, SQLITE_ABORT_ROLLBACK } from '../../js/shared/constants.js';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const PAGE = '/test/browser/tabs-page.js';

// ---------------------------------------------------------------- exclusive
// In page p: open 'handover.db' (options), count its rows, close; returns
// { opened, n, ms } or { opened: false, code, message, ms }.
function openIn(p, options) {
  return p.evaluate(async (options) => {
    const { open } = await import('/dist/index.js');
    const t0 = performance.now();
    try {
      const db = await open('handover.db', { tabs: 'exclusive', ...options });
      const n = (await db.query('SELECT count(*) AS n FROM h'))[0].n;
      await db.close();
      return { opened: true, n, ms: performance.now() - t0 };
    } catch (e) {
      return { opened: false, code: e.code, message: e.message, ms: performance.now() - t0 };
    }
  }, options);
}

function holdIn(p) {
  return p.evaluate(async () => {
    const { open } = await import('/dist/index.js');
    window.dbH = await open('handover.db', { tabs: 'exclusive' });
    await window.dbH.exec('CREATE TABLE IF NOT EXISTS h(x); INSERT INTO h VALUES (1)');
  });
}

async function exclusive({ check, ctx, newPage, base }) {
  let a = await newPage(ctx, base);
  const b = await newPage(ctx, base);
  await holdIn(a);
  const short = await openIn(b, { lockTimeoutMs: 300 });
  check(!short.opened && short.code === SQLITE_BUSY && short.ms >= 250 && /another tab/.test(short.message) && /waited 300 ms/.test(short.message),
    "exclusive tabs: open() waits lockTimeoutMs, then SQLITE_BUSY saying why", JSON.stringify(short));
  const noWait = await openIn(b, { lockTimeoutMs: 0 });
  check(!noWait.opened && noWait.code === SQLITE_BUSY, 'exclusive tabs: lockTimeoutMs 0 does not wait', JSON.stringify(noWait));
  // A tab that shares is kept out as well (the pool's lock).
  const shared = await b.evaluate(async () => {
    const { open } = await import('/dist/index.js');
    try { await open('handover.db', { lockTimeoutMs: 300 }); return { opened: true }; } catch (e) { return { opened: false, code: e.code, message: e.message }; }
  });
  check(!shared.opened && shared.code === SQLITE_BUSY, 'exclusive tabs: a tab that would share gets SQLITE_BUSY too', JSON.stringify(shared));

  // The first tab closes the database while the second waits.
  const waiting = openIn(b, {});
  await sleep(600);
  await a.evaluate(() => window.dbH.close());
  const got = await waiting;
  check(got.opened && got.n === 1 && got.ms >= 500, 'exclusive tabs: a waiting open() gets the database once the other tab closes it', JSON.stringify(got));

  // The first tab goes away without closing.
  await holdIn(a);
  const waiting2 = openIn(b, {});
  await sleep(600);
  await a.close({ runBeforeUnload: false });
  const got2 = await waiting2;
  check(got2.opened && got2.n === 2 && got2.ms >= 500, 'exclusive tabs: a tab that goes away hands the database over', JSON.stringify(got2));
  a = null;
}

// ---------------------------------------------------------------- shared
// Pages on the test page with the database `name` open (options) as window.db.
export async function tabsOn(ctx, newPage, base, name, n, options = {}) {
  const pages = [];
  for (let i = 0; i < n; i++) {
    const p = await newPage(ctx, base);
    p.info = await p.evaluate(([page, name, options]) => import(page).then((m) => m.openDb(name, options)), [PAGE, name, options]);
    pages.push(p);
  }
  return pages;
}

export const inPage = (p, fn, arg) => p.evaluate(fn, arg);

async function sharedBasics({ check, ctx, newPage, base }) {
  const [a, b, c] = await tabsOn(ctx, newPage, base, 'tabs-basic.db', 3, { busyTimeoutMs: 1500 });
  const owners = [a, b, c].map((p) => p.info.owner.id);
  check(a.info.owner.self && !b.info.owner.self && !c.info.owner.self && new Set(owners).size === 1 && owners[0] === a.info.tab,
    'shared tabs: one owner (the first tab), named by every tab (db.owner)', JSON.stringify([a, b, c].map((p) => p.info)));
  await inPage(a, () => db.exec('DROP TABLE IF EXISTS q; CREATE TABLE q(id INTEGER PRIMARY KEY, who)'));

  // b holds a transaction; c's write waits for it and lands after it.
  await inPage(b, () => {
    window.gate = new Promise((r) => { window.openGate = r; });
    window.txDone = db.transaction(async (tx) => {
      await tx.run("INSERT INTO q(who) VALUES ('b1')");
      window.inTx = true;
      await window.gate;
      await tx.run("INSERT INTO q(who) VALUES ('b2')");
    });
  });
  await b.waitForFunction(() => window.inTx === true);
  await inPage(c, () => { window.cDone = db.run("INSERT INTO q(who) VALUES ('c')").then(() => 'done', (e) => e.message); window.cState = 'waiting'; window.cDone.then((v) => { window.cState = v; }); });
  await sleep(400);
  const whileHeld = await inPage(c, () => window.cState);
  await inPage(b, () => window.openGate());
  await inPage(b, () => window.txDone);
  const cAfter = await inPage(c, () => window.cDone);
  const order = await inPage(a, async () => (await db.query('SELECT who FROM q ORDER BY id')).map((r) => r.who));
  check(whileHeld === 'waiting' && cAfter === 'done' && order.join() === 'b1,b2,c',
    "shared tabs: a transaction of one tab holds the database; another tab's write waits and runs after its commit", `${whileHeld} -> ${cAfter}, order ${order}`);

  // ...at most busyTimeoutMs: then SQLITE_BUSY naming another tab.
  await inPage(b, () => {
    window.gate = new Promise((r) => { window.openGate = r; });
    window.inTx = false;
    window.txDone = db.transaction(async (tx) => { await tx.run("INSERT INTO q(who) VALUES ('b3')"); window.inTx = true; await window.gate; });
  });
  await b.waitForFunction(() => window.inTx === true);
  const busy = await inPage(c, async () => { try { await db.run("INSERT INTO q(who) VALUES ('c2')"); return null; } catch (e) { return { code: e.code, message: e.message }; } });
  await inPage(b, async () => { window.openGate(); await window.txDone; });
  check(busy && busy.code === SQLITE_BUSY && /another tab/.test(busy.message) && /busyTimeoutMs/.test(busy.message),
    "shared tabs: a write held up by another tab's transaction longer than busyTimeoutMs gets SQLITE_BUSY saying why", JSON.stringify(busy));

  // b goes away in the middle of a transaction, with a cursor open: the
  // owner rolls the transaction back and finalizes the cursor.
  await inPage(b, async () => {
    const it = db.iterate('SELECT who FROM q', [], { pageSize: 1 });
    await it.next();
    window.it = it;
    window.inTx = false;
    db.transaction(async (tx) => { await tx.run("INSERT INTO q(who) VALUES ('ghost')"); window.inTx = true; await new Promise(() => {}); });
  });
  await b.waitForFunction(() => window.inTx === true);
  await b.close({ runBeforeUnload: false });
  const afterB = await inPage(c, async () => {
    await db.run("INSERT INTO q(who) VALUES ('c3')");
    const who = (await db.query('SELECT who FROM q ORDER BY id')).map((r) => r.who);
    let drop = 'ok';
    try { await db.exec('DROP TABLE q'); } catch (e) { drop = e.message; }
    return { who, drop };
  });
  check(afterB.who.join() === 'b1,b2,c,b3,c3' && afterB.drop === 'ok',
    "shared tabs: a tab that goes away mid-transaction has it rolled back and its cursor finalized (DROP TABLE is not blocked)", JSON.stringify(afterB));

  // c prepares a statement, reads one row of an iterate and begins a
  // transaction; the owner (a) goes away: the statement works on the new
  // owner, the iteration ends with SQLITE_ABORT, the transaction with
  // SQLITE_ABORT_ROLLBACK and nothing of it applied.
  await inPage(c, async () => {
    await db.exec('CREATE TABLE r(x); INSERT INTO r VALUES (1), (2), (3)');
    window.st = await db.prepare('SELECT count(*) AS n FROM r');
    window.it = db.iterate('SELECT x FROM r', [], { pageSize: 1 });
    await window.it.next();
    window.inTx = false;
    window.tx = db.transaction(async (tx) => {
      await tx.run('INSERT INTO r VALUES (99)');
      window.inTx = true;
      await new Promise((r) => { window.goOn = r; });
      await tx.run('INSERT INTO r VALUES (100)');
    }).then(() => null, (e) => ({ code: e.code, message: e.message }));
  });
  await c.waitForFunction(() => window.inTx === true);
  await a.close({ runBeforeUnload: false });
  await c.waitForFunction(() => db.owner.self === true, null, { timeout: 20000 });
  const moved = await inPage(c, async () => {
    window.goOn();
    const txErr = await window.tx;
    const n = await window.st.get();
    let itErr = null;
    try { await window.it.next(); await window.it.next(); } catch (e) { itErr = { code: e.code, message: e.message }; }
    const xs = (await db.query('SELECT x FROM r ORDER BY x')).map((r) => r.x);
    return { txErr, n, itErr, xs, owner: db.owner };
  });
  check(moved.txErr && moved.txErr.code === SQLITE_ABORT_ROLLBACK && moved.xs.join() === '1,2,3',
    'shared tabs: a transaction whose owner went away fails with SQLITE_ABORT_ROLLBACK and nothing of it is applied', JSON.stringify(moved));
  check(moved.n && moved.n.n === 3, 'shared tabs: a prepared statement works on the next owner (prepared again there)', JSON.stringify(moved.n));
  check(moved.itErr && moved.itErr.code === SQLITE_ABORT, 'shared tabs: an iteration cut off by the owner going away ends with SQLITE_ABORT', JSON.stringify(moved.itErr));
  await inPage(c, () => db.close());
}

// Calls under way when the owner's tab goes away: a write that may have
// run is never sent again (SQLITE_ABORT, outcome unknown: here it had
// run, and is there once); a read is run again on the next owner.
async function sharedUnanswered({ check, ctx, newPage, base }) {
  const setup = new URL('/test/browser/tabs-setup.js', base).href;
  const tabs = await tabsOn(ctx, newPage, base, 'tabs-unanswered.db', 3, { setup });
  await inPage(tabs[0], () => db.exec('DROP TABLE IF EXISTS once; CREATE TABLE once(x)'));
  const ownerOf = async () => {
    for (const p of tabs) if (await inPage(p, () => window.db.owner.self)) return p;
    return null;
  };
  // The INSERT commits, then the same call keeps the owner busy; the
  // owner's tab is closed meanwhile.
  let owner = await ownerOf();
  const writer = tabs.find((p) => p !== owner);
  await inPage(writer, () => {
    window.w = db.exec("INSERT INTO once VALUES ('x'); SELECT hang(3000)").then(() => null, (e) => ({ code: e.code, message: e.message }));
  });
  await sleep(700);
  tabs.splice(tabs.indexOf(owner), 1);
  await owner.close({ runBeforeUnload: false });
  const w = await inPage(writer, () => window.w);
  const once = await inPage(writer, async () => (await db.query("SELECT count(*) AS n FROM once WHERE x = 'x'"))[0].n);
  check(w && w.code === SQLITE_ABORT && /outcome unknown/.test(w.message) && once === 1,
    'shared tabs: a write under way when the owner goes away fails with SQLITE_ABORT (outcome unknown) and is never run twice', `${JSON.stringify(w)}; rows: ${once}`);
  // A read under way is run again on the next owner.
  owner = await ownerOf();
  const reader = tabs.find((p) => p !== owner);
  await inPage(reader, () => {
    window.r = db.query('SELECT hang(1500) AS h, (SELECT count(*) FROM once) AS n').then((rows) => rows, (e) => ({ code: e.code, message: e.message }));
  });
  await sleep(500);
  tabs.splice(tabs.indexOf(owner), 1);
  await owner.close({ runBeforeUnload: false });
  const r = await inPage(reader, () => window.r);
  check(Array.isArray(r) && r[0].h === 1500 && r[0].n === 1, 'shared tabs: a read under way when the owner goes away runs again on the next owner', JSON.stringify(r));
  await inPage(reader, () => db.close());
}

// What the rows say against what the writers were told (tabs-page.js):
// every acknowledged write exactly once, nothing refused present, a
// transaction whole or absent, nothing twice, nothing never sent.
function tally(told, rows) {
  const got = new Map();
  const problems = [];
  for (const [w, seq, part, n] of rows) {
    if (n > 1) problems.push(`${w}/${seq}/${part} applied ${n} times`);
    if (!told.writers[w]) problems.push(`${w}/${seq}/${part}: a row of no writer`);
    const k = `${w}/${seq}`;
    got.set(k, (got.get(k) || 0) + 1);
  }
  const t = { writers: 0, acked: 0, ackedRows: 0, unknown: 0, unknownPresent: 0, failed: 0, failedCodes: {}, lastInFlight: 0, lastPresent: 0, rows: rows.length };
  for (const [w, s] of Object.entries(told.writers)) {
    t.writers++;
    const unknown = new Set(s.unknown), failed = new Map(s.failed.map(([seq, code]) => [seq, code]));
    const maxRow = Math.max(0, ...rows.filter((r) => r[0] === w).map((r) => r[1]));
    for (let seq = 1; seq <= Math.max(s.sent, maxRow); seq++) {
      const full = seq % 5 === 0 ? 2 : 1;
      const have = got.get(`${w}/${seq}`) || 0;
      if (have !== 0 && have !== full) problems.push(`${w}/${seq}: ${have} of the ${full} rows of its transaction`);
      if (seq > s.sent) { if (have) problems.push(`${w}/${seq}: never sent, yet present`); continue; }
      if (failed.has(seq)) {
        t.failed++;
        t.failedCodes[failed.get(seq)] = (t.failedCodes[failed.get(seq)] || 0) + 1;
        if (have) problems.push(`${w}/${seq}: refused with code ${failed.get(seq)}, yet present`);
      } else if (unknown.has(seq)) {
        t.unknown++;
        if (have) t.unknownPresent++;
      } else if (seq <= s.acked) {
        t.acked++;
        t.ackedRows += full;
        if (have !== full) problems.push(`${w}/${seq}: acknowledged, yet missing`);
      } else {
        t.lastInFlight++;   // the write under way when its page went away
        if (have) t.lastPresent++;
      }
    }
  }
  return { t, problems };
}

async function sharedStress({ check, ctx, newPage, base, engine }) {
  const NAME = 'tabs-stress.db';
  const RELOADS = 4;
  const pages = await tabsOn(ctx, newPage, base, NAME, 3);
  await inPage(pages[0], (owner) => {
    localStorage.clear();
    localStorage.setItem('owners', JSON.stringify([[Date.now(), owner]]));
    return db.exec('DROP TABLE IF EXISTS w; CREATE TABLE w(writer TEXT, seq INTEGER, part INTEGER)');
  }, pages[0].info.owner.id);
  const start = (p, writer) => inPage(p, ([page, writer]) => import(page).then((m) => m.startWriter(writer)), [PAGE, writer]);
  const names = ['A', 'B', 'C'];
  for (let i = 0; i < 3; i++) await start(pages[i], `${names[i]}1`);
  const ownerPage = async () => {
    for (const p of pages) if (await inPage(p, () => window.db && window.db.owner.self).catch(() => false)) return p;
    return null;
  };
  await sleep(2000);
  // The owner's tab is closed in the middle of the writes.
  const first = await ownerPage();
  pages.splice(pages.indexOf(first), 1);
  await first.close({ runBeforeUnload: false });
  const d = await newPage(ctx, base);
  d.info = await inPage(d, ([page, name]) => import(page).then((m) => m.openDb(name)), [PAGE, NAME]);
  pages.push(d);
  await start(d, 'D1');
  await sleep(1500);
  // The owner's tab reloads, again and again.
  for (let k = 2; k < 2 + RELOADS; k++) {
    const p = await ownerPage();
    if (!p) break;
    await p.reload();
    await inPage(p, ([page, name]) => import(page).then((m) => m.openDb(name)), [PAGE, NAME]);
    await start(p, `R${k}-${pages.indexOf(p)}`);
    await sleep(1000);
  }
  await Promise.all(pages.map((p) => inPage(p, () => { window.stopWriting = true; return window.writing; })));
  const told = await inPage(pages[0], ([page]) => import(page).then((m) => m.told()), [PAGE]);
  const rows = await inPage(pages[0], async () => db.query('SELECT writer, seq, part, count(*) AS n FROM w GROUP BY 1, 2, 3', [], { rowMode: 'array' }));
  const ic = await inPage(pages[0], async () => (await db.query('PRAGMA integrity_check'))[0].integrity_check);
  await Promise.all(pages.map((p) => inPage(p, () => db.close())));
  const { t, problems } = tally(told, rows);
  const owners = new Set(told.owners.map((o) => o[1])).size;
  const summary = `${pages.length + 1 + RELOADS} page loads, ${t.writers} writers, ${owners - 1} handovers; writes: ${t.acked} acknowledged ` +
    `(${t.ackedRows} rows), ${t.unknown} outcome unknown (${t.unknownPresent} applied), ${t.failed} refused ${JSON.stringify(t.failedCodes)}, ` +
    `${t.lastInFlight} under way when their page went away (${t.lastPresent} applied); ${t.rows} rows in all`;
  console.log(`  [${engine}] multi-tab stress: ${summary}`);
  check(problems.length === 0 && t.acked > 50 && ic === 'ok',
    'shared tabs: three tabs writing at once, the owner closed, then reloaded 4 times: every acknowledged write is there once, nothing refused is, nothing twice, transactions whole',
    problems.length ? problems.slice(0, 10).join('; ') : `${summary}; integrity ${ic}`);
  check(owners - 1 >= 1 + RELOADS, 'shared tabs: ownership moved at each close and reload', `${owners - 1} handovers`);
}

// "See it yourself" from a tab that does not run the database: its
// tempcrypt_files(marker) and scanFiles() are run by the owner's Worker.
async function sharedEvidence({ check, ctx, newPage, base }) {
  const got = {};
  for (const enabled of [true, false]) {
    const [a, b] = await tabsOn(ctx, newPage, base, `tabs-evidence-${enabled}.db`, 2, { tempBudget: 0 });
    got[enabled] = await inPage(b, async (enabled) => {
      const { lookFor, marker } = await import('/test/api/evidence.js');
      await db.tempcrypt.setEnabled(enabled);
      try {
        return { notOwner: !db.owner.self, ...await lookFor(db, marker(), 'opfs') };
      } finally { await db.tempcrypt.setEnabled(true); }
    }, enabled);
    for (const p of [b, a]) await inPage(p, () => db.close());
  }
  const { true: on, false: off } = got;
  check(on.notOwner && on.rows.length === 1 && on.rows[0].encrypted === 1 && on.rows[0].found === 0 && on.scanned === 0,
    'shared tabs: from a tab that is not the owner, tempcrypt_files(marker) and scanFiles() find no marker in storage', JSON.stringify(on));
  check(off.notOwner && off.rows.length === 1 && off.rows[0].encrypted === 0 && off.rows[0].found >= 1000 && off.scanned >= 1000,
    'shared tabs: the control (tempcrypt off) finds the marker both ways', JSON.stringify(off));
}

export async function testMultiTab({ check, withBrowser, newPage, base, engine }) {
  await withBrowser('multitab', async (ctx) => {
    await exclusive({ check, ctx, newPage, base });
    await sharedBasics({ check, ctx, newPage, base });
    await sharedEvidence({ check, ctx, newPage, base });
    await sharedUnanswered({ check, ctx, newPage, base });
    await sharedStress({ check, ctx, newPage, base, engine });
  });
}
