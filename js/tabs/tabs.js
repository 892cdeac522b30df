// Opening a database for the main-thread API, in the Worker the package
// starts (../worker-script.js) or in-process (../page/client.js's LocalClient):
// createDispatcher(emit) answers the messages of ../dispatch/rpc.js, and 'open' and
// 'close'.  Where the database is the tab's alone (a storage whose kind
// has no shareKey, such as 'memory' or 'file', or tabs: 'exclusive') its
// calls go straight to a queue of one session (../dispatch/hub.js).  Storage that
// every tab sees ('opfs') is shared by the tabs that open the same
// database, named by its key (the pool and the full name), in two roles:
// the tab that runs it (./tab-owner.js) and the tabs it serves
// (./tab-served.js); the locks and channels are ../shared/locks.js's.
//
//   election   Each tab's Worker holds its TAB_LOCK while it has the
//              database open, and asks for OWNER_LOCK.  The first tab gets
//              it at once and opens the database (its OPFS pool, whose own
//              Web Lock keeps out Workers that do not share): the owner.
//              The others wait in that lock's queue and take over, one of
//              them, when the owner lets go: its tab closed the database,
//              reloaded or was closed, or its Worker ended.
//   transport  A tab asks on the database's channel who the owner is and
//              joins it; then it sends its calls to the owner's inbox, a
//              channel only the owner listens on, and gets each answer on
//              its own inbox, where no other tab listens.  The owner's own
//              calls go to its queue directly.  Each side learns that the
//              other went away when its TAB_LOCK is granted to it.
//   queueing   The owner's queue (../dispatch/hub.js): one call at a time, a
//              transaction, import or export of one tab holds the
//              connection, other tabs' calls wait at most busyTimeoutMs.
//              A tab that goes away gets its transaction rolled back and
//              its statements and cursors finalized.
//   closing    An owner that closes the database lets another tab's
//              transaction, import or export stream in progress end (at
//              most its busyTimeoutMs, then rolls it back), answers
//              "moved" for the calls it did not start, and says "gone" to
//              each tab after its last answer there.
//   handover   A call sent to an owner that is gone is never lost and
//              never run twice: one that certainly did not run (answered
//              "moved", or unanswered when the owner said "gone") is sent
//              to the next owner; one that may have run runs again only
//              if it cannot write (REPLAY in ../dispatch/rpc.js), else it fails with
//              SQLITE_ABORT, "outcome unknown".  A transaction or import
//              of this tab that the owner held is gone:
//              SQLITE_ABORT_ROLLBACK for its calls (its commit, if it may
//              have run: outcome unknown).  Statements are prepared again
//              on the next owner; a cursor (iterate, exportStream) ends
//              with SQLITE_ABORT.
import { open as openSync } from '../worker.js';
import { resolveStorage, BACKENDS } from '../storage/storage.js';
import { compileWasm } from '../engine/engine.js';
import { Hub } from '../dispatch/hub.js';
import { HANDLERS } from '../dispatch/rpc.js';
import { SqliteError, closedError } from '../shared/errors.js';
import { SQLITE_BUSY } from '../shared/constants.js';
import { resolveOpenOptions, ASYNC } from '../shared/methods.js';
import { TabOwner } from './tab-owner.js';
import { TabServed } from './tab-served.js';
import { OWNER_LOCK, canShareTabs, openChannel, holdLock, openInbox, tabLockOf, newId, whileLocked } from '../shared/locks.js';
import { limitTimer } from '../shared/platform.js';
import { runSetup } from '../dispatch/setup.js';

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

async function openLink(name, options, emit, setupFn) {
  // worker, workerStartMs: the page's choices, filled in here by their defaults (unused).
  const { tabs, setup: setupUrl, worker, workerStartMs, ...rest } = resolveOpenOptions(options, ASYNC);
  const setup = [setupFn, setupUrl];
  const storage = await resolveStorage(rest.storage, name);
  const dbOptions = { ...rest, storage };
  const session = { busyTimeoutMs: rest.busyTimeoutMs, timeoutMs: rest.timeoutMs };
  const kind = BACKENDS[storage];
  const sharing = typeof kind.shareKey === 'function' && tabs === 'shared' && canShareTabs();
  if (!sharing) return LocalLink.open(name, dbOptions, setup, session);
  const link = new SharedLink(name, dbOptions, setup, session, emit, await kind.shareKey(name, dbOptions), dbOptions.lockTimeoutMs);
  await link.start();
  return link;
}

// The sync database, with the app's setups run on it (../dispatch/setup.js).
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
      try {
        await this.hub.close();
        await this.db.idle();
      } finally { await this.db.close(); }
    })();
    return this.closing;
  }
}

// A database shared by the tabs (see the top of this file): this tab's
// part, served (the methods of ./tab-served.js) or owner (ownerRole).
class SharedLink extends TabServed {
  constructor(name, dbOptions, setup, session, emit, key, lockTimeoutMs) {
    super();
    Object.assign(this, { name, dbOptions, setup, sessionOptions: session, emit, key, lockTimeoutMs });
    this.id = newId();
    this.owner = null;        // { id, self } once joined (or self)
    this.joining = null;      // the owner this tab is joining
    this.ownerWatch = null;   // stops watching the owner's TAB_LOCK
    this.outbox = null;       // the inbox of the owner this tab joins
    this.dead = new Set();    // owners known to be gone
    this.leaving = new Set(); // owners that answered "moved" or said "gone"
    this.ownerRole = null;    // a TabOwner while this tab runs the database
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
    this.lostClosed = false;  // the owner of what was lost closed the database (else went away)
    this.closed = false;
    this.closing = null;
    this.everReady = false;   // had an owner once (open succeeded)
    this.becoming = null;     // opening the database as the new owner (a promise)
    let stop;
    this.stopped = new Promise((r) => { stop = r; });
    this.stop = stop;
  }

  info() { return { storage: this.dbOptions.storage, tab: this.id, owner: this.owner }; }
  isOwner() { return !!this.owner?.self && !!this.ownerRole; }
  post(msg) { this.channel.postMessage({ ...msg, from: this.id, db: this.key }); }

  // Join the database's tabs: resolves once this tab is the owner or has
  // joined one.  The first tab takes OWNER_LOCK at once; a tab that finds
  // another holding it waits at most lockTimeoutMs for that owner's answer
  // (0: not at all) or for it to let go.
  async start() {
    this.releaseTab = await holdLock(tabLockOf(this.key, this.id));
    this.channel = openChannel(this.key);
    this.channel.onmessage = ({ data }) => this.onMessage(data);
    this.inbox = openInbox(this.key, this.id);
    this.inbox.onmessage = ({ data }) => this.onInbox(data);
    this.ready = new Promise((resolve, reject) => { this.settleReady = { resolve, reject }; });
    let timer = null;
    const first = await new Promise((resolve) => {
      whileLocked(OWNER_LOCK + this.key, { ifAvailable: true }, (lock) => {
        resolve(!!lock);
        return lock ? this.own() : undefined;
      }).catch((e) => { resolve(true); this.ownerFailed(e); });
    });
    if (!first) {
      timer = limitTimer(() => {
        if (this.owner || this.becoming) return;
        const [who, waited] = this.lockTimeoutMs > 0 ? [' that does not answer', ''] : ['', ': lockTimeoutMs 0 does not wait for its answer'];
        this.settleReady.reject(new SqliteError(`database "${this.name}" is in use by another tab or worker${who} ` +
          `(it holds the Web Lock "${OWNER_LOCK}${this.key}"; waited ${this.lockTimeoutMs} ms${waited})`, SQLITE_BUSY));
      }, this.lockTimeoutMs);
      this.askOwnership();
      this.post({ t: 'hello' });
      compileWasm(this.dbOptions.wasm).catch(() => { /* the owner's open says why */ });   // a faster takeover
    }
    try {
      await this.ready;
    } catch (e) {
      await this.close();
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  // Queue for OWNER_LOCK, to take over when the owner lets go.
  askOwnership() {
    const ctl = new AbortController();
    this.ownerAbort = ctl;
    whileLocked(OWNER_LOCK + this.key, { signal: ctl.signal }, () => this.own())
      .catch((e) => { if (e?.name !== 'AbortError') this.ownerFailed(e); });
  }

  // Holding OWNER_LOCK: open the database and run it until this tab closes
  // it (the lock is held while this runs).
  async own() {
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
    for (const id of [this.owner?.id, this.joining]) if (id && id !== this.id) this.ownerGone(id, false);
    this.ownerRole = new TabOwner(db, this.id, this.key, this.sessionOptions);
    this.outbox?.close();
    this.outbox = null;
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

  // The database's channel: who runs it.
  onMessage(msg) {
    if (!msg || msg.from === this.id || msg.db !== this.key || this.closed) return;
    if (msg.t === 'hello' && this.isOwner()) this.post({ t: 'owner' });
    else if (msg.t === 'owner') this.found(msg.from);
  }

  close() {
    this.closing ??= this.shut();
    return this.closing;
  }

  // Closing lets go of the locks and channels even when the owner's close
  // fails (its error goes to the caller): another tab takes over.
  async shut() {
    if (this.becoming) await this.becoming.catch(() => {});
    try {
      if (this.isOwner()) {
        await this.ownerRole.close();
      } else if (this.owner && !this.leaving.has(this.owner.id)) {
        // End this tab's session at the owner (what it held is rolled back).
        const bye = new Promise((resolve, reject) => this.dispatch({ method: 'bye', args: [], resolve, reject }));
        const timer = new Promise((r) => limitTimer(r, this.sessionOptions.busyTimeoutMs + 1000));
        await Promise.race([bye.catch(() => {}), timer]);
      }
    } finally {
      this.letGo();
    }
  }

  letGo() {
    this.closed = true;
    this.ownerAbort?.abort();
    this.ownerWatch?.();
    for (const c of this.waiting.splice(0)) { clearTimeout(c.timer); c.reject(closedError()); }
    for (const r of this.inflight.values()) r.err(closedError());
    this.inflight.clear();
    for (const r of this.parked.splice(0)) r.err(closedError());
    this.stop();
    for (const ch of [this.channel, this.inbox, this.outbox]) ch?.close();
    if (this.releaseTab) this.releaseTab();
  }
}
