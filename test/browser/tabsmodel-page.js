// In a test tab of the model-based test of several tabs
// (test/browser/tabsmodel.mjs): the databases this tab has open, and the
// calls the test starts in it, through the public API only.  A call runs
// in the background; collect() hands over the settled ones.  The
// package's Worker is started through tabsmodel-spy-worker.js, which
// reports every read tag ('OP:<n>') that reaches it from another tab.
//
// Every database has the same tables (schema()): t, the rows the calls
// write (k = 10 * call id + part, the database's name, the tab, the call
// id, the part); u, one row (0) that a failing insert collides with; c,
// one counter; mlog, the migration steps run.
import { open } from '/dist/index.js';

export const ROW = 'INSERT INTO t(k, db, tab, op, part) VALUES (?, ?, ?, ?, ?)';
const ROLLBACK_MARK = 'tabsmodel: rolled back on purpose';

let TAB = null;
const handles = new Map();   // database name -> { db, stmts, owners }
const settled = [];          // { id, ok, value | code, message }
const pending = new Set();

// Once per page load: this tab's name, and the package's Worker started
// through the spy.
export function init(tab) {
  if (TAB) throw new Error('tabsmodel-page: init() twice');
  TAB = tab;
  const Real = window.Worker;
  window.Worker = class extends Real {
    constructor(url, options) {
      const path = new URL(url, location.href).pathname;
      if (!path.endsWith('/dist/worker-script.js')) {
        throw new Error(`tabsmodel: the package starts its Worker from ${path}; tabsmodel-spy-worker.js imports /dist/worker-script.js: update it`);
      }
      super(`/test/browser/tabsmodel-spy-worker.js?tab=${encodeURIComponent(TAB)}`, options);
    }
  };
  return TAB;
}

const wire = (e) => ({ ok: false, code: e?.code ?? null, message: String(e?.message ?? e) });

export async function openDb(name, options) {
  if (handles.has(name)) throw new Error(`tabsmodel-page: ${name} is open in ${TAB} already`);
  try {
    const db = await open(name, { ...options, setup: new URL('/test/browser/tabsmodel-setup.js', location.href).href });
    const h = { db, name, stmts: new Map(), owners: [db.owner.id] };
    db.onownerchange = (o) => h.owners.push(o.id);
    handles.set(name, h);
    return { ok: true, tab: db.tab, owner: db.owner };
  } catch (e) {
    return wire(e);
  }
}

export async function closeDb(name) {
  const h = handles.get(name);
  handles.delete(name);
  try { await h.db.close(); return { ok: true, handovers: h.owners.length - 1 }; } catch (e) { return wire(e); }
}

// The schema every database starts with (the test's first tab).
export async function schema(name) {
  await handles.get(name).db.exec(`CREATE TABLE t(k INTEGER, db TEXT, tab TEXT, op INTEGER, part INTEGER);
    CREATE TABLE u(k INTEGER PRIMARY KEY); INSERT INTO u VALUES (0);
    CREATE TABLE c(n INTEGER); INSERT INTO c VALUES (0);
    CREATE TABLE mlog(v INTEGER, tab TEXT)`);
}

// A statement of handle h, prepared once (and used across handovers).
async function stmt(h, sql) {
  if (!h.stmts.has(sql)) h.stmts.set(sql, h.db.prepare(sql));
  try { return await h.stmts.get(sql); } catch (e) { h.stmts.delete(sql); throw e; }
}

const READ = "SELECT 'OP:' || ? AS tag, (SELECT n FROM c) AS n, (SELECT json_group_array(json_array(k, db)) FROM t) AS rows";
const COUNT = "SELECT 'OP:' || ? AS tag, (SELECT n FROM c) AS n, (SELECT count(*) FROM t) AS rows";
const INC = 'UPDATE c SET n = n + 1';

// The calls, by kind (op: { id, db, kind, limit?, target?, pause? }).  A write's
// rows are row(h, op, 0), row(h, op, 1)...; tabsmodel-model.mjs lists
// what each kind writes.
const row = (h, op, part) => [op.id * 10 + part, h.name, TAB, op.id, part];
const KINDS = {
  run: (h, op) => h.db.run(ROW, row(h, op, 0)),
  exec: (h, op) => h.db.exec(`INSERT INTO t(k, db, tab, op, part) VALUES (${op.id * 10}, '${h.name}', '${TAB}', ${op.id}, 0); ${INC}`),
  batch: (h, op) => h.db.batch([[ROW, row(h, op, 0)], [ROW, row(h, op, 1)], INC]).then(() => null),
  tx: (h, op) => h.db.transaction(async (tx) => {
    await tx.run(ROW, row(h, op, 0));
    await tx.run(ROW, row(h, op, 1));
    await tx.run(INC);
  }),
  // A transaction that keeps the database a while (op.pause ms) between
  // its writes: other tabs' calls, closes and handovers meet it.
  txSlow: (h, op) => h.db.transaction(async (tx) => {
    await tx.run(ROW, row(h, op, 0));
    await new Promise((r) => setTimeout(r, op.pause));
    await tx.run(ROW, row(h, op, 1));
    await tx.run(INC);
  }),
  txThrow: (h, op) => h.db.transaction(async (tx) => {
    await tx.run(ROW, row(h, op, 0));
    throw new Error(ROLLBACK_MARK);
  }),
  txFail: (h, op) => h.db.transaction(async (tx) => {
    await tx.run(ROW, row(h, op, 0));
    await tx.run('INSERT INTO u VALUES (0)');
  }),
  fail: (h) => h.db.run('INSERT INTO u VALUES (0)'),
  // The Worker that runs the database ends itself (a write: never run
  // again on the next owner; it changes nothing).
  quit: (h) => h.db.run('UPDATE c SET n = n + quit() - 1'),
  stmt: async (h, op) => (await stmt(h, ROW)).run(row(h, op, 0)),
  read: async (h, op) => {
    const r = (await h.db.query(READ, [op.id]))[0];
    return { tag: r.tag, n: r.n, rows: JSON.parse(r.rows) };
  },
  stmtRead: async (h, op) => (await stmt(h, COUNT)).get([op.id]),
  iterate: async (h, op) => {
    const rows = [];
    let complete = true;
    for await (const r of h.db.iterate('SELECT k, db FROM t', [], { rowMode: 'array', pageSize: 3 })) {
      rows.push(r);
      if (rows.length >= op.limit) { complete = false; break; }
    }
    return { rows, complete };
  },
  // A versioned schema step, as an app's start-up runs it: in one
  // transaction, the steps from user_version up to target.
  migrate: (h, op) => h.db.transaction(async (tx) => {
    const from = (await tx.query('PRAGMA user_version'))[0].user_version;
    for (let v = from + 1; v <= op.target; v++) await tx.exec(`CREATE TABLE m${v}(x); INSERT INTO mlog VALUES (${v}, '${TAB}')`);
    if (op.target > from) await tx.exec(`PRAGMA user_version = ${op.target}`);
    return { from };
  }),
};
export const KIND_NAMES = Object.keys(KINDS);

// Start call op in the background.
export function start(op) {
  const h = handles.get(op.db);
  if (!h) throw new Error(`tabsmodel-page: ${op.db} is not open in ${TAB}`);
  pending.add(op.id);
  const t0 = performance.now();
  Promise.resolve().then(() => KINDS[op.kind](h, op)).then(
    (value) => settled.push({ id: op.id, ok: true, value: value ?? null, ms: performance.now() - t0 }),
    (e) => settled.push({ id: op.id, ms: performance.now() - t0, ...wire(e), rolledBackOnPurpose: e?.message === ROLLBACK_MARK }),
  ).finally(() => pending.delete(op.id));
}

// The calls settled since the last collect(), and those under way.
export function collect() {
  return { settled: settled.splice(0), pending: [...pending] };
}

// What each open database says of its owner.
export function owners() {
  return [...handles.values()].map((h) => ({ db: h.name, tab: h.db.tab, owner: h.db.owner, handovers: h.owners.length - 1 }));
}

// Everything in database `name` (for the final comparison).
export async function contents(name) {
  const { db } = handles.get(name);
  return {
    rows: await db.query('SELECT k, db, tab, op, part FROM t', [], { rowMode: 'array' }),
    n: (await db.query('SELECT n FROM c'))[0].n,
    mlog: (await db.query('SELECT v FROM mlog', [], { rowMode: 'array' })).map((r) => r[0]),
    version: (await db.query('PRAGMA user_version'))[0].user_version,
    tables: (await db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'm[0-9]*'", [], { rowMode: 'array' })).map((r) => r[0]),
    integrity: (await db.query('PRAGMA integrity_check'))[0].integrity_check,
  };
}

// In the page that collects the spy's reports (not a test tab).
export function listen(channel) {
  window.spied = [];
  window.spyChannel = new BroadcastChannel(channel);
  window.spyChannel.onmessage = ({ data }) => window.spied.push(data);
}
export function spied() { return window.spied.splice(0); }
