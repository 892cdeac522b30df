// The handover rules of several tabs as tables (make test-node-unit): what
// a tab's call gets when the owner tab it was sent to is gone, by method
// and by what the tab and that owner were doing (js/tab-served.js lost()
// and afterLoss(), the rules at the top of js/tabs.js, the table in
// docs/api.md "Several tabs"), and which calls the next owner runs again
// (js/rpc.js REPLAY, Session.mustNotWrite).  The code runs as it is, in
// Node: a tab's state and its calls in flight are set up by hand, the
// owner's departure is lost(owner, closed), and sending to the next owner
// is recorded instead of posted.  test/browser/tabs-rules.mjs and
// multitab.mjs run the same rules through real tabs in browsers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TabServed } from '../../dist/tabs/tab-served.js';
import { HANDLERS, Session } from '../../dist/dispatch/rpc.js';
import { open as openSync } from '../../dist/worker.js';
import { SQLITE_ABORT, SQLITE_ABORT_ROLLBACK } from '../../dist/shared/constants.js';

// Outcomes, as a tab's caller sees them.
const NEXT = 'runs on the next owner';
const IF_READONLY = 'runs on the next owner if it cannot write';
const DONE = 'settled here';
const ROLLED_BACK = 'rolled back (516)';
const UNKNOWN = 'outcome unknown (4)';
const STOPPED = 'rows stopped (4)';

// How the owner left, and whether the call may have run there.
const WENT_AWAY = { closed: false, parked: false };   // in flight: it may have run
const CLOSED = { closed: true, parked: false };       // closed in order: nothing unanswered ran
const MOVED = { closed: false, parked: true };        // it answered "moved": it did not run

// What the tab was doing at the owner 'A' when it left.
const IDLE = {};
const IN_TX = { depth: 1 };
const IN_SAVEPOINT = { depth: 2 };
const IMPORTING = { importing: true };

// A tab served by owner 'A', holding statement 1 and cursor 7 there, with
// the call `method(args)` unanswered; A leaves as `how` says.  The outcome.
async function outcome(method, args, state, how) {
  const tab = Object.assign(Object.create(TabServed.prototype), {
    owner: { id: 'A', self: false }, ownerWatch: null, dead: new Set(), depth: 0, importing: false,
    txLost: false, importLost: false, lostClosed: false, parked: [], inflight: new Map(),
    stmts: new Map([[1, { sql: 'SELECT 1', owner: 'A', id: 11 }]]), cursors: new Map([[7, { owner: 'A', id: 17 }]]),
  }, state);
  let sent = null;
  tab.dispatch = (c) => { sent = c; };
  const settled = new Promise((resolve, reject) => {
    const r = { c: { method, args, resolve, reject }, n: 1, to: 'A', sub: false, ok() {}, err() {} };
    if (how.parked) tab.parked.push(r); else tab.inflight.set(1, r);
  });
  tab.lost('A', how.closed);
  if (sent) return sent.replay ? IF_READONLY : NEXT;
  try {
    await settled;
    return DONE;
  } catch (e) {
    if (e.code === SQLITE_ABORT_ROLLBACK && /rolled back/.test(e.message)) return ROLLED_BACK;
    if (e.code === SQLITE_ABORT && /^outcome unknown/.test(e.message)) return UNKNOWN;
    if (e.code === SQLITE_ABORT && /rows stopped/.test(e.message)) return STOPPED;
    return `${e.code}: ${e.message}`;
  }
}

// Every message a tab sends, its arguments (statement 1, cursor 7), and
// what it gets when the owner went away with it in flight (the tab in no
// transaction or import) and when the owner closed the database in order.
const BY_METHOD = [
  ['prepare', ['SELECT 1'], NEXT, NEXT],
  ['finalize', [1], DONE, DONE],
  ['cursorOpen', ['SELECT 1'], IF_READONLY, NEXT],
  ['stmtOpen', [1], IF_READONLY, NEXT],
  ['exportOpen', [], NEXT, NEXT],
  ['page', [7], STOPPED, STOPPED],
  ['cursorClose', [7], DONE, DONE],
  ['txBegin', [], NEXT, NEXT],
  ['timeoutMs', [100], NEXT, NEXT],
  ['importBegin', [], NEXT, NEXT],
  ['files', [], NEXT, NEXT],
  ['exec', ['CREATE TABLE t(x)'], UNKNOWN, NEXT],
  ['query', ['SELECT 1'], IF_READONLY, NEXT],
  ['run', ['INSERT INTO t VALUES (1)'], IF_READONLY, NEXT],
  ['batch', [[['INSERT INTO t VALUES (1)']]], UNKNOWN, NEXT],
  ['export', [], NEXT, NEXT],
  ['heapSize', [], NEXT, NEXT],
  ['scanFiles', [], NEXT, NEXT],
  ['stmt.run', [1], IF_READONLY, NEXT],
  ['stmt.get', [1], IF_READONLY, NEXT],
  ['stmt.all', [1], IF_READONLY, NEXT],
  ['tempcrypt.stats', [false], NEXT, NEXT],
  ['tempcrypt.setEnabled', [true], NEXT, NEXT],
  ['tempcrypt.budget', [1 << 20], NEXT, NEXT],
  ['bye', [], DONE, DONE],
];

// A transaction or an import that went away with its owner: the calls of
// it, by how the owner left.
const IN_PROGRESS = [
  // method, args, the tab's state, how the owner left, outcome
  ['run', ['INSERT INTO t VALUES (1)'], IN_TX, WENT_AWAY, ROLLED_BACK],
  ['query', ['SELECT 1'], IN_TX, WENT_AWAY, ROLLED_BACK],
  ['exec', ['UPDATE t SET x = 2'], IN_TX, CLOSED, ROLLED_BACK],
  ['stmt.run', [1], IN_TX, WENT_AWAY, ROLLED_BACK],
  ['txBegin', [], IN_TX, WENT_AWAY, ROLLED_BACK],
  ['page', [7], IN_TX, WENT_AWAY, ROLLED_BACK],
  ['finalize', [1], IN_TX, WENT_AWAY, DONE],
  ['cursorClose', [7], IN_TX, WENT_AWAY, DONE],
  ['txEnd', [true], IN_TX, WENT_AWAY, UNKNOWN],          // the commit may have run: never "rolled back"
  ['txEnd', [true], IN_TX, CLOSED, ROLLED_BACK],
  ['txEnd', [true], IN_TX, MOVED, ROLLED_BACK],
  ['txEnd', [false], IN_TX, WENT_AWAY, DONE],
  ['txEnd', [true], IN_SAVEPOINT, WENT_AWAY, ROLLED_BACK], // a savepoint's release commits nothing
  ['importChunk', [new Uint8Array(4)], IMPORTING, WENT_AWAY, ROLLED_BACK],
  ['importEnd', [true], IMPORTING, WENT_AWAY, UNKNOWN],
  ['importEnd', [true], IMPORTING, CLOSED, ROLLED_BACK],
  ['importEnd', [false], IMPORTING, WENT_AWAY, DONE],
  ['importBegin', [], IMPORTING, WENT_AWAY, ROLLED_BACK],
];

test('the handover table names every message a tab sends', () => {
  const named = new Set([...BY_METHOD, ...IN_PROGRESS].map(([m]) => m));
  const missing = Object.keys(HANDLERS).filter((m) => !named.has(m));
  assert.deepEqual(missing, [], 'messages with no row in the handover table');
});

for (const [method, args, wentAway, closed] of BY_METHOD) {
  test(`handover: ${method} in flight; the owner went away: ${wentAway}; it closed the database: ${closed}`, async () => {
    assert.equal(await outcome(method, args, IDLE, WENT_AWAY), wentAway, 'went away');
    assert.equal(await outcome(method, args, IDLE, CLOSED), closed, 'closed in order');
    assert.equal(await outcome(method, args, IDLE, MOVED), closed, 'answered "moved", then went away');
  });
}

const stateName = (s) => (s === IN_TX ? 'in a transaction' : s === IN_SAVEPOINT ? 'in a savepoint' : 'importing');
const howName = (h) => (h === WENT_AWAY ? 'went away' : h === CLOSED ? 'closed the database' : 'answered "moved"');
for (const [method, args, state, how, expected] of IN_PROGRESS) {
  test(`handover: ${method}(${args.map((a) => (ArrayBuffer.isView(a) ? 'bytes' : JSON.stringify(a))).join(', ')}) ${stateName(state)}; the owner ${howName(how)}: ${expected}`, async () => {
    assert.equal(await outcome(method, args, state, how), expected);
  });
}

// The next owner, given a call marked replay (it may have run before):
// runs it if it cannot write, else refuses it with "outcome unknown".
test('the next owner runs a replayed call only if it cannot write', async (t) => {
  const db = await openSync('handover.db', { storage: 'memory' });
  t.after(() => db.close());
  db.exec('CREATE TABLE t(x)');
  const s = new Session(db);
  s.stmts.set(1, db.prepare('SELECT x FROM t'));
  s.stmts.set(2, db.prepare('INSERT INTO t VALUES (1)'));
  const REPLAYED = [
    ['query', ['SELECT x FROM t'], 'runs'],
    ['query', ['INSERT INTO t VALUES (1) RETURNING x'], UNKNOWN],
    ['run', ['DELETE FROM t'], UNKNOWN],
    ['cursorOpen', ['SELECT x FROM t'], 'runs'],
    ['cursorOpen', ['UPDATE t SET x = 2 RETURNING x'], UNKNOWN],
    ['stmt.all', [1], 'runs'],
    ['stmt.run', [2], UNKNOWN],
    ['stmtOpen', [1], 'runs'],
    ['files', [], 'runs'],
    ['prepare', ['INSERT INTO t VALUES (1)'], 'runs'],   // preparing writes nothing
    ['exec', ['SELECT 1'], UNKNOWN],                     // exec and batch are never replayed
    ['batch', [[['SELECT 1']]], UNKNOWN],
  ];
  for (const [method, args, expected] of REPLAYED) {
    let got = 'runs';
    try { s.mustNotWrite(method, args); } catch (e) { got = e.code === SQLITE_ABORT && /^outcome unknown/.test(e.message) ? UNKNOWN : e.message; }
    assert.equal(got, expected, `${method}(${JSON.stringify(args)})`);
  }
  assert.deepEqual(db.query('SELECT count(*) AS n FROM t'), [{ n: 0 }], 'checking a call ran none of it');
});
