// Two tabs and one database (run.mjs --only=multitab): open() waits for the
// pool's Web Lock up to lockTimeoutMs, then SQLITE_BUSY; a tab that closes
// the database, or goes away, hands it over to the waiting one.
import { SQLITE_BUSY } from '../../js/constants.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// In page p: open 'handover.db' (options), count its rows, close; returns
// { opened, n, ms } or { opened: false, code, message, ms }.
function openIn(p, options) {
  return p.evaluate(async (options) => {
    const { open } = await import('/dist/index.js');
    const t0 = performance.now();
    try {
      const db = await open('handover.db', options);
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
    window.dbH = await open('handover.db');
    await window.dbH.exec('CREATE TABLE IF NOT EXISTS h(x); INSERT INTO h VALUES (1)');
  });
}

export async function testMultiTab({ check, withBrowser, newPage, base }) {
  await withBrowser('multitab', async (ctx) => {
    let a = await newPage(ctx, base);
    const b = await newPage(ctx, base);
    await holdIn(a);
    const short = await openIn(b, { lockTimeoutMs: 300 });
    check(!short.opened && short.code === SQLITE_BUSY && short.ms >= 250 && /another tab/.test(short.message) && /waited 300 ms/.test(short.message),
      'multi-tab: open() waits lockTimeoutMs, then SQLITE_BUSY saying why', JSON.stringify(short));
    const noWait = await openIn(b, { lockTimeoutMs: 0 });
    check(!noWait.opened && noWait.code === SQLITE_BUSY, 'multi-tab: lockTimeoutMs 0 does not wait', JSON.stringify(noWait));

    // The first tab closes the database while the second waits.
    const waiting = openIn(b, {});
    await sleep(600);
    await a.evaluate(() => window.dbH.close());
    const got = await waiting;
    check(got.opened && got.n === 1 && got.ms >= 500, 'multi-tab: a waiting open() gets the database once the other tab closes it', JSON.stringify(got));

    // The first tab goes away without closing.
    await holdIn(a);
    const waiting2 = openIn(b, {});
    await sleep(600);
    await a.close({ runBeforeUnload: false });
    const got2 = await waiting2;
    check(got2.opened && got2.n === 2 && got2.ms >= 500, 'multi-tab: a tab that goes away hands the database over', JSON.stringify(got2));
    a = null;
  });
}
