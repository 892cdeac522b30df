// The owner: the tab whose Worker runs a database shared by tabs
// (./tabs.js), for itself and for the tabs it serves.  It holds the
// database, its queue (../dispatch/hub.js, one session per tab) and its inbox, the
// BroadcastChannel that only it listens on (../shared/locks.js), where served tabs
// send their calls { from, db, id, method, args, replay? }; it answers
// each on the asking tab's inbox, and only there: { id, result },
// { id, error } or { id, moved } (not started: send it to the next
// owner); { gone: its id } after its last answer when it closed the
// database.
// 'join' (args [session options]) makes a tab's session; 'bye' ends it.
// A call for another database (db, the key, differs) is refused.
import { Hub } from '../dispatch/hub.js';
import { SqliteError, toWire, uncloneable } from '../shared/errors.js';
import { SQLITE_MISUSE } from '../shared/constants.js';
import { openInbox, tabLockOf, watchLock } from '../shared/locks.js';

// Rejection marker of a call the owner did not start (./tab-served.js
// sends it to the next owner).
export const MOVED = Symbol('moved');

export class TabOwner {
  // db: the SyncDatabase; id: this tab; key: the database among the tabs;
  // sessionOptions: this tab's ({ busyTimeoutMs, timeoutMs }).
  constructor(db, id, key, sessionOptions) {
    Object.assign(this, { db, id, key });
    this.hub = new Hub(db);
    this.session = this.hub.join(id, sessionOptions);
    this.holdMs = sessionOptions.busyTimeoutMs;
    this.tabs = new Map();    // served tab id -> { s, out (its inbox), unwatch }
    this.closing = false;
    this.inbox = openInbox(key, id);
    this.inbox.onmessage = ({ data }) => { if (data && typeof data.from === 'string') this.serve(data); };
  }

  // A call of this tab's own.
  call(method, args, replay = false) { return this.hub.submit(this.session, method, args, { replay }); }

  // Post body to tab's inbox (a tab not served: through a channel made for it).
  post(tab, body) {
    const t = this.tabs.get(tab);
    const out = t ? t.out : openInbox(this.key, tab);
    try { out.postMessage(body); } catch (e) { out.postMessage({ id: body.id, error: toWire(uncloneable(e)) }); }
    if (!t) out.close();
  }

  async serve(msg) {
    const answer = (body) => this.post(msg.from, { id: msg.id, ...body });
    if (msg.db !== this.key) {
      answer({ error: toWire(new SqliteError(`this tab runs database ${this.key}, not ${msg.db}: a tab joins only the owner of its own database`, SQLITE_MISUSE)) });
      return;
    }
    const t = this.tabs.get(msg.from);
    // Closing: only the calls of a tab that holds the connection run (its
    // transaction may end); the others are for the next owner.
    if (this.hub.closed || (this.closing && (!t || t.s !== this.hub.holder))) { answer({ moved: true }); return; }
    if (msg.method === 'join') { this.admit(msg.from, msg.args[0]); answer({ result: this.id }); return; }
    if (!t) { answer({ error: toWire(new SqliteError('this tab has not joined the tab that runs the database', SQLITE_MISUSE)) }); return; }
    try {
      if (msg.method === 'bye') {
        await this.hub.end(t.s, { after: true });   // its calls made before close() run first
        answer({ result: undefined });
        this.drop(msg.from);
        return;
      }
      answer({ result: await this.hub.submit(t.s, msg.method, msg.args, { replay: !!msg.replay }) });
    } catch (e) {
      answer(e === MOVED ? { moved: true } : { error: toWire(e) });
    }
  }

  // Tab `tab` joins: a session in the queue, ended when its Web Lock frees
  // (it went away).
  admit(tab, options) {
    const s = this.hub.join(tab, options);
    if (this.tabs.has(tab)) return;
    const unwatch = watchLock(tabLockOf(this.key, tab), () => {
      this.drop(tab);
      this.hub.end(s);
    });
    this.tabs.set(tab, { s, out: openInbox(this.key, tab), unwatch });
  }

  drop(tab) {
    const t = this.tabs.get(tab);
    if (!t) return;
    this.tabs.delete(tab);
    t.unwatch();
    t.out.close();
  }

  // Close in order: the other tabs' calls not started are moved (they run
  // on the next owner); a transaction, import or export stream of another
  // tab in progress may end, for at most this tab's busyTimeoutMs (then it
  // is rolled back); this tab's own calls made before close() run; then
  // every served tab hears "gone", after its last answer.
  // The tabs hear "gone" and the database is closed even if a step before
  // fails (the first error is thrown).
  async close() {
    this.closing = true;
    try {
      await this.hub.close((job) => {
        if (job.s === this.session) return false;
        job.reject(MOVED);
        return true;
      }, this.holdMs, this.session);
    } finally {
      for (const tab of [...this.tabs.keys()]) {
        this.post(tab, { gone: this.id });
        this.drop(tab);
      }
      this.inbox.close();
      try { await this.db.idle(); } finally { await this.db.close(); }
    }
  }
}
