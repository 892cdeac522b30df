// Opening a database for the main-thread API, in the Worker the package
// starts (./worker-script.js) or in-process (./client.js's LocalClient):
// createDispatcher(emit) answers the messages of ./rpc.js, and 'open' and
// 'close'.  Where the database is the tab's alone (storage 'memory' or
// 'file', or tabs: 'exclusive') its calls go straight to a queue of one
// session (./hub.js).  Storage 'opfs' is shared by every tab of the
// origin that opens the same database:
//
//   election   Each tab's Worker holds the Web Lock TAB_LOCK<pool>:<id>
//              while it has the database open, and asks for OWNER_LOCK
//              <pool>.  The one that gets it opens the database (its OPFS
//              pool, whose own Web Lock keeps out Workers that do not
//              share) and is the owner; the others wait in that lock's
//              queue and take over, one of them, when the owner lets go:
//              its tab closed the database, reloaded or was closed.
//   transport  A BroadcastChannel per database.  A tab asks "hello", the
//              owner answers "owner"; the tab joins (a session in the
//              owner's queue) and sends its calls, { n, method, args },
//              answered by n.  The owner's own calls go to its queue
//              directly.  Each side learns that the other went away when
//              its TAB_LOCK is granted to it.
//   queueing   The owner's queue (./hub.js): one call at a time, a
//              transaction, import or export of one tab holds the
//              connection, other tabs' calls wait at most busyTimeoutMs.
//              A tab that goes away gets its transaction rolled back and
//              its statements and cursors finalized.
//   handover   A call sent to an owner that went away is never lost and
//              never run twice: one that certainly did not run (the owner
//              closed in order: it says "gone" after its last answer, and
//              answers "moved" for what it did not start) is sent to the
//              next owner; one that may have run runs again only if it
//              cannot write (REPLAY in ./rpc.js), else it fails with
//              SQLITE_ABORT, "outcome unknown".  A transaction or import
//              of this tab that the owner held is gone:
//              SQLITE_ABORT_ROLLBACK for its calls (its commit, if it was
//              under way: outcome unknown).  Statements are prepared again
//              on the next owner; a cursor (iterate, exportStream) ends
//              with SQLITE_ABORT.
// Messages on the channel: { t, from, to?, ... } with t one of hello,
// owner, join, joined, call, reply, bye, gone; `to` absent: everyone.
import { open as openSync } from './worker.js';
import { resolveStorage } from './storage.js';
import { poolNameOf } from './opfs-backend.js';
import { compileWasm } from './engine.js';
import { Hub } from './hub.js';
import { HANDLERS } from './rpc.js';
import { SqliteError, closedError, toWire } from './errors.js';
import { SQLITE_BUSY, SQLITE_MISUSE } from './constants.js';
import { BUSY_TIMEOUT_MS } from './methods.js';
import { DEFAULTS } from './opfs-pool.js';
import { uncloneable } from './client.js';
import { TabClient, holdLock, watchLock, MOVED, CHANNEL, OWNER_LOCK, TAB_LOCK } from './tab-client.js';
import { limitTimer } from './platform.js';
import { runSetup } from './setup.js';

export { CHANNEL, OWNER_LOCK, TAB_LOCK };
export const TABS = ['shared', 'exclusive'];

// A dispatcher for one database: call(method, ...args); emit(event) gets
// what the main thread hears unasked ({ type: 'owner', owner }); setup:
// a function run on the sync database before open()'s setup module.
export function createDispatcher(emit = () => {}, { setup } = {}) {
  let link = null;
  return {
    async call(method, ...args) {
      if (method === 'open') {
        if (link) throw new Error('this worker already has a database open');
        link = await openLink(args[0], args[1] || {}, emit, setup);
        return link.info();
      }
      if (method === 'close') { if (link) await link.close(); return undefined; }
      if (!Object.prototype.hasOwnProperty.call(HANDLERS, method)) throw new Error(`unknown method ${method}`);
      if (!link) throw closedError();   // a failed open left none
      return link.call(method, args);
    },
  };
}

const newId = () => (globalThis.crypto?.randomUUID ? crypto.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`);

async function openLink(name, options, emit, setupFn) {
  const { tabs = 'shared', busyTimeoutMs = BUSY_TIMEOUT_MS, setup: setupUrl, ...rest } = options;
  const setup = [setupFn, setupUrl];
  if (!TABS.includes(tabs)) throw new TypeError(`tabs must be ${TABS.map((t) => `'${t}'`).join(' or ')}, not ${String(tabs)}`);
  const storage = await resolveStorage(rest.storage, name);
  const dbOptions = { ...rest, storage };
  const session = { busyTimeoutMs, timeoutMs: rest.timeoutMs ?? 0 };
  const sharing = storage === 'opfs' && tabs === 'shared' && typeof BroadcastChannel === 'function' && !!globalThis.navigator?.locks?.request;
  if (!sharing) return LocalLink.open(name, dbOptions, setup, session);
  const link = new SharedLink(name, dbOptions, setup, session, emit, options.pool ?? await poolNameOf(name));
  await link.start();
  return link;
}

// The sync database, with the app's setups run on it (./setup.js).
async function openDatabase(name, options, setups) {
  const db = await openSync(name, options);
  try {
    await runSetup(db, setups);
  } catch (e) {
    await db.close();
    throw e;
  }
  return db;
}

// A database only this client uses.
class LocalLink {
  static async open(name, options, setup, session) {
    return new LocalLink(await openDatabase(name, options, setup), session);
  }

  constructor(db, session) {
    this.db = db;
    this.id = newId();
    this.hub = new Hub(db);
    this.session = this.hub.join(this.id, session);
    this.closing = null;
  }

  info() { return { storage: this.db.storage, tab: this.id, owner: { id: this.id, self: true } }; }
  call(method, args) { return this.hub.submit(this.session, method, args); }

  close() {
    this.closing ??= (async () => {
      await this.hub.close();
      await this.db.idle();
      await this.db.close();
    })();
    return this.closing;
  }
}

// A database shared by the tabs (see the top of this file).
class SharedLink extends TabClient {
  constructor(name, dbOptions, setup, session, emit, pool) {
    super();
    Object.assign(this, { name, dbOptions, setup, sessionOptions: session, emit, pool });
    this.id = newId();
    this.lockTimeoutMs = dbOptions.lockTimeoutMs ?? DEFAULTS.lockTimeoutMs;
    this.owner = null;        // { id, self } once joined (or self)
    this.joining = null;      // the owner this tab is joining
    this.ownerWatch = null;   // stops watching the owner's TAB_LOCK
    this.dead = new Set();    // owners known to be gone
    this.leaving = new Set(); // owners that answered "moved"
    this.hub = null;          // this tab's queue when it is the owner
    this.db = null;
    this.session = null;
    this.watches = new Map(); // (owner) tab id -> stop watching it
    this.nextN = 1;
    this.inflight = new Map();// n -> call sent to a remote owner, not answered
    this.parked = [];         // calls a leaving owner answered "moved"
    this.waiting = [];        // calls waiting for an owner
    this.nextLocal = 1;
    this.stmts = new Map();   // this tab's statement id -> { sql, owner, id }
    this.cursors = new Map(); // this tab's cursor id -> { owner, id, lost }
    this.depth = 0;           // this tab's transactions (and savepoints) open at the owner
    this.txLost = false;      // ... which went away with its owner
    this.importing = false;
    this.importLost = false;
    this.closed = false;
    this.closing = null;
    this.everReady = false;   // had an owner once (open succeeded)
    this.becoming = null;     // opening the database as the new owner (a promise)
    let stop;
    this.stopped = new Promise((r) => { stop = r; });
    this.stop = stop;
  }

  info() { return { storage: 'opfs', tab: this.id, owner: this.owner }; }
  isOwner() { return !!this.owner?.self && !!this.hub; }
  post(msg) { this.channel.postMessage({ ...msg, from: this.id }); }

  // Join the database's tabs: resolves once this tab is the owner or has
  // joined one; rejects if it could open it as the first owner, or if no
  // owner answers within lockTimeoutMs.
  async start() {
    this.releaseTab = await holdLock(`${TAB_LOCK}${this.pool}:${this.id}`);
    this.channel = new BroadcastChannel(CHANNEL + this.pool);
    this.channel.onmessage = ({ data }) => this.onMessage(data);
    let settle;
    this.ready = new Promise((resolve, reject) => { settle = { resolve, reject }; });
    this.settleReady = settle;
    const timer = setTimeout(() => {
      if (this.owner || this.becoming) return;
      settle.reject(new SqliteError(`database "${this.name}" is in use by another tab or worker that does not answer ` +
        `(it holds the Web Lock "${OWNER_LOCK}${this.pool}"; waited ${this.lockTimeoutMs} ms)`, SQLITE_BUSY));
    }, this.lockTimeoutMs);
    this.askOwnership();
    this.post({ t: 'hello' });
    compileWasm(this.dbOptions.wasm).catch(() => { /* the owner's open says why */ });   // a faster takeover
    try {
      await this.ready;
    } catch (e) {
      await this.close();
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  // Queue for OWNER_LOCK; once granted, open the database and run it
  // until this tab closes it.
  askOwnership() {
    const ctl = new AbortController();
    this.ownerAbort = ctl;
    navigator.locks.request(OWNER_LOCK + this.pool, { signal: ctl.signal }, async () => {
      if (this.closed || this.closing) return;
      this.becoming = this.becomeOwner();
      try {
        await this.becoming;
      } catch (e) {
        this.becoming = null;
        this.ownerFailed(e);
        return;   // let the lock go: another tab may do better
      }
      this.becoming = null;
      await this.stopped;
    }).catch((e) => { if (e?.name !== 'AbortError') this.ownerFailed(e); });
  }

  // Could not open the database as the owner: the first open fails with
  // that error; later, the calls waiting for an owner do, and this tab
  // queues for the lock again.
  ownerFailed(e) {
    if (this.closed) return;
    if (!this.owner && !this.everReady) { this.settleReady.reject(e); return; }
    for (const c of this.waiting.splice(0)) { clearTimeout(c.timer); c.reject(e); }
    setTimeout(() => { if (!this.closed) this.askOwnership(); }, 100);
  }

  async becomeOwner() {
    const db = await openDatabase(this.name, this.dbOptions, this.setup);
    // Whoever owned it before let go of OWNER_LOCK: it runs nothing more.
    if (this.owner && !this.owner.self) this.lost(this.owner.id, !this.leaving.has(this.owner.id));
    if (this.joining) { this.dead.add(this.joining); this.joining = null; }
    this.db = db;
    this.hub = new Hub(db);
    this.session = this.hub.join(this.id, this.sessionOptions);
    this.setOwner({ id: this.id, self: true });
    this.post({ t: 'owner' });
  }

  setOwner(owner) {
    this.owner = owner;
    this.everReady = true;
    this.settleReady.resolve();
    this.emit({ type: 'owner', owner });
    for (const c of this.waiting.splice(0)) { clearTimeout(c.timer); this.dispatch(c); }
  }

  onMessage(msg) {
    if (!msg || msg.from === this.id || (msg.to && msg.to !== this.id) || this.closed) return;
    switch (msg.t) {
      case 'hello': if (this.isOwner()) this.post({ t: 'owner', to: msg.from }); break;
      case 'owner': this.found(msg.from); break;
      case 'join': this.admit(msg); break;
      case 'joined': if (this.joining === msg.from) { this.joining = null; this.setOwner({ id: msg.from, self: false }); } break;
      case 'call': this.serve(msg); break;
      case 'reply': this.answered(msg); break;
      case 'gone': this.leaving.add(msg.from); if (this.owner?.id === msg.from || this.joining === msg.from) this.ownerGone(msg.from, false); break;
      default: break;
    }
  }

  // ---- this tab as the owner

  // A tab joins: a session in the queue, ended when its TAB_LOCK frees.
  admit(msg) {
    if (!this.isOwner() || this.hub.closed) return;
    const known = this.hub.sessions.has(msg.from);
    const s = this.hub.join(msg.from, msg.options);
    if (!known) {
      this.watches.set(msg.from, watchLock(`${TAB_LOCK}${this.pool}:${msg.from}`, () => {
        this.watches.delete(msg.from);
        if (this.hub) this.hub.end(s);
      }));
    }
    this.post({ t: 'joined', to: msg.from });
  }

  async serve(msg) {
    const reply = (body) => {
      try { this.post({ t: 'reply', to: msg.from, n: msg.n, ...body }); }
      catch (e) { this.post({ t: 'reply', to: msg.from, n: msg.n, ok: false, error: toWire(uncloneable(e)) }); }
    };
    // "moved" only from an owner that is leaving (or was never one): the
    // tab then takes whatever it has not had answered as not run.
    if (!this.isOwner() || this.hub.closed) { reply({ moved: true }); return; }
    const s = this.hub.sessions.get(msg.from);
    if (!s) { reply({ ok: false, error: toWire(new SqliteError('this tab has not joined the tab that runs the database', SQLITE_MISUSE)) }); return; }
    try {
      if (msg.method === 'bye') {
        await this.hub.end(s, { after: true });   // its calls made before close() run first
        this.watches.get(msg.from)?.();
        this.watches.delete(msg.from);
        reply({ ok: true });
        return;
      }
      reply({ ok: true, result: await this.hub.submit(s, msg.method, msg.args, { replay: msg.replay }) });
    } catch (e) {
      if (e === MOVED) reply({ moved: true });
      else reply({ ok: false, error: toWire(e) });
    }
  }

  // ---- closing

  close() {
    this.closing ??= this.shut();
    return this.closing;
  }

  async shut() {
    if (this.becoming) await this.becoming.catch(() => {});
    if (this.isOwner()) {
      // Send back the other tabs' calls not started ("moved": the next
      // owner runs them), run this tab's own calls made before close(),
      // end every tab's session, then say "gone".
      await this.hub.close((job) => {
        if (job.s === this.session) return false;
        job.reject(MOVED);
        return true;
      });
      for (const stop of this.watches.values()) stop();
      this.watches.clear();
      try { this.post({ t: 'gone' }); } catch { /* nobody listens */ }
      await this.db.idle();
      await this.db.close();
    } else if (this.owner && !this.leaving.has(this.owner.id)) {
      // End this tab's session at the owner (what it held is rolled back).
      const bye = new Promise((resolve, reject) => this.dispatch({ method: 'bye', args: [], resolve, reject }));
      const timer = new Promise((r) => limitTimer(r, this.sessionOptions.busyTimeoutMs + 1000));
      await Promise.race([bye.catch(() => {}), timer]);
    }
    this.closed = true;
    this.ownerAbort?.abort();
    this.ownerWatch?.();
    for (const c of this.waiting.splice(0)) { clearTimeout(c.timer); c.reject(closedError()); }
    for (const r of this.inflight.values()) r.err(closedError());
    this.inflight.clear();
    for (const r of this.parked.splice(0)) r.err(closedError());
    this.stop();
    this.channel?.close();
    if (this.releaseTab) this.releaseTab();
  }
}
