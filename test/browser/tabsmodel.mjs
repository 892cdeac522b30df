// The model-based test of several tabs (run.mjs --only=tabsmodel; `make
// fuzz-tabs` for a longer run).  Each round: 3 to 5 tabs (pages of one
// browser, sharing OPFS) and three databases, two in one pool (alpha,
// beta) and one in a pool of its own (gamma); a random program of calls
// made at once in the tabs (writes, transactions committed, rolled back
// and failing, batches, prepared statements, reads, cursors, a versioned
// schema step run by several tabs), mixed with closing and reopening a
// database, reloading a tab, closing a tab, closing the owner's tab
// abruptly and the owner's Worker ending itself.  Everything goes through the public API (tabsmodel-page.js);
// the sequential model (tabsmodel-model.mjs) says what each answer may be
// and what the databases must hold.  Checked: every call settles (a call
// still under way HANG_MS after it was made is a hang); every answer is
// one the model allows, every read sees only its own database's rows,
// whole transactions and what was acknowledged before it; the final
// contents of each database, opened alone, are the model's (a call of
// unknown outcome there once or not at all); every tab of a database
// names the same owner; no tab receives another tab's answers (the spy
// in its Worker, tabsmodel-spy.js).
//   SEED=n           the first round's seed (round r: n + r); printed
//   TABS_ROUNDS=n    rounds per engine (default 2)
//   TABS_STEPS=n     steps per round (default 100)
//   TABS_QUITS=w     weight of a step in which the owner's Worker ends
//                    itself (default 1, against 70 for calls; 0: never)
//   TABS_CONFLICTS=p how often (0..1, default 0.3) a tab opens a database
//                    while another of its pool is open (0: never)
// The program is the seed's; the interleaving of the tabs' calls is the
// browser's, so a replay makes the same choices but may meet other
// answers.
import { Model } from './tabsmodel-model.mjs';
import { rng } from '../fuzz/program.js';

const PAGE = '/test/browser/tabsmodel-page.js';
const SPY_CHANNEL = 'tabsmodel-spy';
const HANG_MS = 45000;          // a call, an open or a close that takes longer hangs
const LOCK_MS = 8000;           // lockTimeoutMs of an ordinary open
const BUSY_MS = 20000;          // busyTimeoutMs of every tab
const QUIET_MS = 5000;          // after a tab went away, its pool may still be held this long
// How often (weight, against 70 for calls) the owner's Worker ends itself.
const QUITS = Number(process.env.TABS_QUITS ?? 1);
// How often an open beside another open database of its pool is tried.
const CONFLICTS = Number(process.env.TABS_CONFLICTS ?? 0.3);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const CALLS = { run: 10, stmt: 8, exec: 5, batch: 5, tx: 6, txSlow: 4, txThrow: 3, txFail: 3, fail: 3, migrate: 4, read: 10, stmtRead: 5, iterate: 6 };

// One of the keys of weights ({ name: weight }).
const weighted = (R, weights) => R.weighted(Object.entries(weights).map(([k, w]) => [w, k]));

function bounded(promise, ms, what) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`hang: ${what} did not settle in ${ms} ms`)), ms); })])
    .finally(() => clearTimeout(timer));
}

class Round {
  constructor({ ctx, newPage, base, seed, steps }) {
    Object.assign(this, { ctx, newPage, base, seed, steps });
    this.R = rng(seed);
    const p = `tm${seed}`;
    this.dbs = {
      [`${p}-alpha.db`]: { pool: `${p}-P` },
      [`${p}-beta.db`]: { pool: `${p}-P` },
      [`${p}-gamma.db`]: { pool: null },
    };
    this.files = Object.keys(this.dbs);
    this.model = new Model(this.files);
    this.tabs = [];
    this.slots = 0;
    // Disturbances of each database: a tab with it open went away (death),
    // or closed it (close: the owner hands over in order).
    this.epoch = Object.fromEntries(this.files.map((f) => [f, { death: 0, close: 0 }]));
    this.lastDeath = {};     // pool -> when a tab with it open went away
    this.nextId = 1;
    this.hangs = [];
    this.owners = [];        // problems with who owns a database
    this.stats = { steps: 0, opens: 0, refusedOpens: 0, conflictOpens: 0, closes: 0, reloads: 0, tabCloses: 0, kills: 0, quits: 0 };
  }

  pageCall(t, name, ...args) {
    return t.page.evaluate(([page, name, args]) => import(page).then((m) => m[name](...args)), [PAGE, name, args]);
  }
  poolOf(f) { return this.dbs[f].pool ?? f; }
  handles() { return this.tabs.flatMap((t) => [...t.open].map((f) => [t, f])); }
  openAnywhere(f) { return this.tabs.some((t) => t.open.has(f)); }

  async addTab() {
    const t = { slot: this.slots++, load: 0, open: new Set(), pending: new Set() };
    t.page = await this.newPage(this.ctx, this.base);
    await this.initTab(t);
    this.tabs.push(t);
    return t;
  }
  async initTab(t) {
    t.name = `T${t.slot}.${t.load}`;
    await this.pageCall(t, 'init', t.name);
  }

  // The answers settled in every tab (before anything disturbs them).
  async collect() {
    for (const t of this.tabs) {
      const { settled } = await this.pageCall(t, 'collect');
      for (const r of settled) {
        const op = this.model.ops.get(r.id);
        t.pending.delete(r.id);
        const e = this.epoch[op.db];
        this.model.settle(op, r, e.death > op.epoch.death ? 'death' : e.close > op.epoch.close ? 'close' : null);
      }
      for (const id of t.pending) {
        const op = this.model.ops.get(id);
        if (!op.hung && Date.now() - op.t0 > HANG_MS) { op.hung = true; this.hangs.push(`call ${id} (${op.kind} on ${op.db} in tab ${op.tab}) under way for ${HANG_MS} ms`); }
      }
    }
  }

  // Tab t goes away (closed or reloaded): what it had under way is lost.
  disturbBy(t) {
    for (const f of t.open) { this.epoch[f].death++; this.lastDeath[this.poolOf(f)] = Date.now(); }
    for (const id of t.pending) this.model.lose(this.model.ops.get(id));
    t.pending.clear();
    t.open.clear();
  }

  // Calls on f in the tabs that have it open, just before they are
  // disturbed (half the time; many of them transactions under way).
  async burst(f) {
    if (this.R.next() < 0.5) return;
    for (let n = 1 + this.R.int(5); n > 0; n--) await this.call(this.R.pick(this.handles().filter(([, x]) => x === f)), this.R.next() < 0.4 ? 'txSlow' : null);
    await sleep(this.R.int(30));
  }

  async call([t, f] = this.R.pick(this.handles()), kind = null) {
    kind ??= weighted(this.R, CALLS);
    if (kind !== 'quit' && [...t.pending].filter((id) => this.model.ops.get(id).db === f).length >= 4) return null;
    const op = { id: this.nextId++, db: f, tab: t.name, kind };
    if (kind === 'iterate') op.limit = this.R.next() < 0.5 ? 1e9 : 1 + this.R.int(12);
    if (kind === 'migrate') op.target = 1 + this.R.int(6);
    if (kind === 'txSlow') op.pause = 20 + this.R.int(200);
    this.model.issue(op);
    op.epoch = { ...this.epoch[f] };
    op.t0 = Date.now();
    t.pending.add(op.id);
    await this.pageCall(t, 'start', { id: op.id, db: f, kind, limit: op.limit, target: op.target, pause: op.pause });
    return op;
  }

  async open(t, f, lockTimeoutMs, mustOpen) {
    const pool = this.dbs[f].pool;
    const options = { lockTimeoutMs, busyTimeoutMs: BUSY_MS, ...(pool ? { pool } : {}) };
    const r = await bounded(this.pageCall(t, 'openDb', f, options), lockTimeoutMs + HANG_MS, `open(${f}) in tab ${t.name}`);
    this.stats.opens++;
    if (r.ok) { t.open.add(f); return r; }
    this.stats.refusedOpens++;
    if (mustOpen) this.model.problem(`open(${f}, ${JSON.stringify(options)}) in tab ${t.name} refused (code ${r.code}: ${r.message}), though ${mustOpen}`, 'open');
    return r;
  }

  async openSome() {
    const t = this.R.pick(this.tabs);
    const f = this.R.pick(this.files.filter((x) => !t.open.has(x)));
    if (!f) return;
    const pool = this.poolOf(f);
    const mates = this.files.filter((x) => x !== f && this.poolOf(x) === pool && this.openAnywhere(x));
    if (mates.length) {
      // Another database of its pool is open: the open may be refused,
      // and if it is not, its calls must still run on f.
      if (this.R.next() >= CONFLICTS) return;
      this.stats.conflictOpens++;
      await this.open(t, f, 1000, null);
      return;
    }
    const zero = this.R.next() < 0.2;
    const poolFree = !this.handles().some(([, x]) => this.poolOf(x) === pool) && Date.now() - (this.lastDeath[pool] || 0) > QUIET_MS;
    const must = !zero ? 'no other database of its pool was open' : poolFree ? 'lockTimeoutMs 0 and no tab had its pool' : null;
    await this.open(t, f, zero ? 0 : LOCK_MS, must);
  }

  async close(t, f) {
    await this.collect();
    await this.burst(f);
    this.epoch[f].close++;
    t.open.delete(f);
    for (const id of t.pending) { const op = this.model.ops.get(id); if (op.db === f) op.closing = true; }
    this.stats.closes++;
    const r = await bounded(this.pageCall(t, 'closeDb', f), HANG_MS, `close(${f}) in tab ${t.name}`);
    if (!r.ok) this.model.problem(`close(${f}) in tab ${t.name} failed: code ${r.code}: ${r.message}`, 'close');
    await this.collect();
    const left = [...t.pending].filter((id) => this.model.ops.get(id).db === f);
    if (left.length) this.model.problem(`close(${f}) in tab ${t.name} resolved with its calls ${left.join(', ')} still under way`, 'close');
  }

  async endTab(t, how, f = null) {
    await this.collect();
    if (f) await this.burst(f);
    this.disturbBy(t);
    if (how === 'reload') {
      this.stats.reloads++;
      await bounded(t.page.reload(), HANG_MS, `reload of tab ${t.name}`);
      t.load++;
      await this.initTab(t);
      return;
    }
    this.tabs.splice(this.tabs.indexOf(t), 1);
    await t.page.close();
    if (this.tabs.length < 3) await this.addTab();
  }

  // The owner's Worker ends itself (quit(), tabsmodel-setup.js), called
  // from its own tab: every tab's calls on f under way are disturbed as
  // by a tab going away; the owner's tab gets an answer for each (hangs
  // are failures) and then closes its handle, which must resolve.
  async quit(f) {
    const t = await this.ownerOf(f);
    if (!t) return;
    await this.collect();
    await this.burst(f);
    const op = await this.call([t, f], 'quit');
    this.epoch[f].death++;
    this.lastDeath[this.poolOf(f)] = Date.now();
    t.open.delete(f);
    this.stats.quits++;
    for (const end = Date.now() + HANG_MS; Date.now() < end && [...t.pending].some((id) => this.model.ops.get(id).db === f); await sleep(100)) await this.collect();
    if ([...t.pending].some((id) => this.model.ops.get(id).db === f)) throw new Error(`hang: the calls on ${f} of tab ${t.name}, whose Worker ended itself (call ${op.id}), did not settle in ${HANG_MS} ms`);
    const r = await bounded(this.pageCall(t, 'closeDb', f), HANG_MS, `close(${f}) in tab ${t.name} after its Worker ended itself`);
    if (!r.ok) this.model.problem(`close(${f}) in tab ${t.name} after its Worker ended itself failed: code ${r.code}: ${r.message}`, 'close');
  }

  // The tab whose Worker runs f, as the tabs that have it open say.
  async ownerOf(f) {
    for (const t of this.tabs.filter((x) => x.open.has(f))) {
      const o = (await this.pageCall(t, 'owners')).find((h) => h.db === f);
      if (o?.owner.self) return t;
    }
    return null;
  }

  async step() {
    const hs = this.handles();
    const what = weighted(this.R, {
      call: hs.length ? 70 : 0, open: hs.length < 9 ? 10 : 2, close: hs.length ? 5 : 0,
      reload: 2, closeTab: 2, kill: hs.length ? 3 : 0, quit: hs.length ? QUITS : 0, addTab: this.tabs.length < 5 ? 2 : 0,
    });
    this.stats.steps++;
    if (what === 'call') for (let n = 1 + this.R.int(3); n > 0; n--) await this.call();
    else if (what === 'open') await this.openSome();
    else if (what === 'close') { const [t, f] = this.R.pick(hs); await this.close(t, f); }
    else if (what === 'reload') await this.endTab(this.R.pick(this.tabs), 'reload');
    else if (what === 'closeTab') { this.stats.tabCloses++; await this.endTab(this.R.pick(this.tabs), 'close'); }
    else if (what === 'kill') {
      const [, f] = this.R.pick(hs);
      const t = (await this.ownerOf(f)) ?? this.R.pick(this.tabs.filter((x) => x.open.has(f)));
      this.stats.kills++;
      await this.endTab(t, 'close', f);
    } else if (what === 'quit') await this.quit(this.R.pick(hs)[1]);
    else await this.addTab();
  }

  // Every tab that has f open names the same owner, one of them, which
  // says it is itself (polled: a handover takes a moment).
  async sameOwner(f) {
    const tabs = this.tabs.filter((t) => t.open.has(f));
    if (!tabs.length) return;
    let seen;
    for (const end = Date.now() + 15000; Date.now() < end; await sleep(200)) {
      seen = [];
      for (const t of tabs) seen.push((await this.pageCall(t, 'owners')).find((h) => h.db === f));
      const ids = new Set(seen.map((h) => h.owner?.id));
      const selves = seen.filter((h) => h.owner?.self);
      if (ids.size === 1 && selves.length === 1 && selves[0].owner.id === selves[0].tab) return;
    }
    this.owners.push(`${f}: ${JSON.stringify(seen.map((h) => ({ tab: h.tab, owner: h.owner })))}`);
  }

  async run() {
    const first = await this.addTab();
    // Each database's first tab, with lockTimeoutMs 0: it must open.
    for (const f of this.files) {
      const r = await this.open(first, f, 0, 'it was the first and only tab to open it');
      if (!r.ok) await this.open(first, f, LOCK_MS, 'it was the first and only tab to open it');
      await this.pageCall(first, 'schema', f);
      await this.close(first, f);
    }
    this.stats.opens = this.stats.closes = 0;
    while (this.tabs.length < 3 + this.R.int(3)) await this.addTab();
    // Most tabs share gamma and one of alpha and beta to begin with.
    const mate = this.R.pick(this.files.slice(0, 2));
    for (const t of this.tabs) {
      for (const f of [mate, this.files[2]]) if (this.R.next() < 0.7) await this.open(t, f, LOCK_MS, 'no other database of its pool was open');
    }
    for (let i = 0; i < this.steps; i++) {
      await this.step();
      if (i % 4 === 3) await this.collect();
      await sleep(this.R.int(40));
    }
    // Everything under way settles.
    for (const end = Date.now() + HANG_MS; Date.now() < end && this.tabs.some((t) => t.pending.size); await sleep(200)) await this.collect();
    await this.collect();
    for (const t of this.tabs) {
      for (const id of t.pending) {
        const op = this.model.ops.get(id);
        if (!op.hung) this.hangs.push(`call ${id} (${op.kind} on ${op.db} in tab ${op.tab}) never settled`);
      }
    }
    for (const f of this.files) await this.sameOwner(f);
    for (const [t, f] of this.handles()) await this.close(t, f);
    // Each database alone, against the model.
    this.final = {};
    for (const f of this.files) {
      const r = await this.open(this.tabs[0], f, LOCK_MS, 'no tab had it open any more');
      if (!r.ok) continue;
      const c = await this.pageCall(this.tabs[0], 'contents', f);
      this.final[f] = c.rows.length;
      this.model.checkFinal(f, c);
      await this.close(this.tabs[0], f);
    }
  }
}

// Reports of the spy: who received which read's answer.
function foreign(model, reports) {
  const out = { own: 0, foreign: 0, examples: [] };
  for (const s of reports) {
    const op = model.ops.get(s.op);
    if (!op) continue;
    if (s.tab === op.tab && s.db.endsWith(op.db)) { out.own++; continue; }
    out.foreign++;
    if (out.examples.length < 5) out.examples.push(`the answer of read ${s.op} (tab ${op.tab}, ${op.db}) reached tab ${s.tab} (${s.db})`);
  }
  return out;
}

export async function testTabsModel({ check, withBrowser, newPage, base, engine }) {
  const seed0 = process.env.SEED ? Number(process.env.SEED) : Math.floor(Math.random() * 1e9);
  const rounds = Number(process.env.TABS_ROUNDS || 2);
  const steps = Number(process.env.TABS_STEPS || 100);
  const t0 = Date.now();
  const total = { calls: 0, steps: 0 };
  for (let r = 0; r < rounds; r++) {
    const seed = seed0 + r;
    const replay = `SEED=${seed} TABS_ROUNDS=1 TABS_STEPS=${steps} BROWSERS=${engine} node test/browser/run.mjs --only=tabsmodel`;
    console.log(`  [${engine}] tabs model: round ${r + 1}/${rounds}, seed ${seed} (replay: ${replay})`);
    await withBrowser('tabsmodel', async (ctx) => {
      const round = new Round({ ctx, newPage, base, seed, steps });
      const observer = await newPage(ctx, base);
      await observer.evaluate(([page, ch]) => import(page).then((m) => m.listen(ch)), [PAGE, SPY_CHANNEL]);
      let crash = null;
      const rt0 = Date.now();
      try { await round.run(); } catch (e) { crash = e; }
      await sleep(300);   // the spy's last reports
      const spy = foreign(round.model, await observer.evaluate(([page]) => import(page).then((m) => m.spied()), [PAGE]));
      const m = round.model;
      const s = round.stats;
      console.log(`  [${engine}] seed ${seed}: ${s.steps} steps, ${m.counts.calls} calls (${m.counts.applied} applied, ${m.counts.none} refused or rolled back, ` +
        `${m.counts.unknown} of unknown outcome, ${m.counts.lost} under way when their tab went away, ${m.counts.reads} reads), errors by code ${JSON.stringify(m.counts.byCode)}; ` +
        `${s.opens} opens (${s.refusedOpens} refused, ${s.conflictOpens} beside another database of the pool), ${s.closes} closes, ${s.reloads} reloads, ` +
        `${s.tabCloses} tabs closed, ${s.kills} owners' tabs closed, ${s.quits} owners' Workers ended; final rows ${JSON.stringify(round.final ?? {})}; spy: ${spy.own} answers to their tab, ${spy.foreign} to another; ${((Date.now() - rt0) / 1000).toFixed(1)} s`);
      total.calls += m.counts.calls;
      total.steps += s.steps;
      const at = ` (seed ${seed}; replay: ${replay})`;
      const list = (xs) => xs.slice(0, 8).join('; ') + (xs.length > 8 ? `; ... ${xs.length - 8} more` : '');
      check(!crash, 'tabs model: the round ran to its end (every open, close and reload settled)', crash ? `${crash.message}${at}` : '');
      check(round.hangs.length === 0, 'tabs model: every call settled', round.hangs.length ? list(round.hangs) + at : `${m.counts.calls} calls`);
      check(m.problems.length === 0, 'tabs model: every answer one the model allows; each call on the database it named; acknowledged writes there once, unknown ones at most once, refused ones never; final contents = the model',
        m.problems.length ? m.report() + at : `${m.counts.calls} calls, ${m.counts.reads} reads checked`);
      check(round.owners.length === 0, 'tabs model: every tab of a database names the same owner, which runs it', round.owners.length ? list(round.owners) + at : '');
      check(spy.foreign === 0, "tabs model: no tab receives another tab's answers (the spy in each tab's Worker)",
        spy.foreign ? `${spy.foreign} answers reached another tab: ${list(spy.examples)}${at}` : `${spy.own} answers seen, all by the tab that asked`);
    });
  }
  console.log(`  [${engine}] tabs model: ${rounds} rounds, ${total.steps} steps, ${total.calls} calls, seeds ${seed0}..${seed0 + rounds - 1}, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
