// The owner's queue: one connection (a SyncDatabase) shared by sessions,
// one per client (a tab sharing the database, or the one main thread of a
// Worker that does not share it).  Calls run one at a time, in order; a
// session that holds the connection (a transaction between txBegin and
// txEnd, an import, a streamed export) has it to itself until it lets go,
// and the other sessions' calls wait for it at most their busyTimeoutMs
// (then SQLITE_BUSY naming what holds it).  A session that ends (its tab
// closed the database or went away) gets its transaction rolled back and
// its statements and cursors finalized.  The messages themselves are
// ./rpc.js's; the tabs and how calls reach this queue are ../tabs/tabs.js's.
import { SqliteError, closedError } from '../shared/errors.js';
import { SQLITE_BUSY } from '../shared/constants.js';
import { limitTimer } from '../shared/platform.js';
import { Session, HANDLERS, AT_ONCE } from './rpc.js';

export class Hub {
  constructor(db) {
    this.db = db;             // the SyncDatabase
    this.sessions = new Map();
    this.queue = [];          // calls not started: { s, method, args, replay, resolve, reject, timer }
    this.holder = null;       // the session the connection is held for
    this.running = null;      // the pump, while it runs
    this.onFree = null;       // close() waiting for a hold to end
    this.closed = false;
  }

  // The session of client `id` (made on first use).  busyTimeoutMs: how
  // long its calls wait for another session's hold; timeoutMs: its time
  // limit per call (db.timeoutMs while its calls run).
  join(id, { busyTimeoutMs, timeoutMs } = {}) {
    if (this.closed) throw closedError();
    let s = this.sessions.get(id);
    if (!s) {
      s = new Session(this.db, id);
      this.sessions.set(id, s);
    }
    if (busyTimeoutMs !== undefined) s.busyTimeoutMs = busyTimeoutMs;
    if (timeoutMs !== undefined) s.timeoutMs = timeoutMs;
    return s;
  }

  // Run message `method` for session s when the connection is free for it
  // (a setting of AT_ONCE: now).
  // replay: the call may have run before on an owner that went away: run
  // it only if it cannot write (Session.handle).
  submit(s, method, args, { replay = false } = {}) {
    return new Promise((resolve, reject) => {
      if (this.closed || s.ended) { reject(closedError()); return; }
      if (AT_ONCE.has(method)) {
        try { resolve(HANDLERS[method](s, ...args)); } catch (e) { reject(e); }
        return;
      }
      this.queue.push({ s, method, args, replay, resolve, reject, timer: null });
      this.armBlocked();
      this.pump();
    });
  }

  // Start the busy timer of every call that waits for another session's
  // hold (at most its session's busyTimeoutMs from now).
  armBlocked() {
    if (!this.holder) return;
    for (const job of this.queue) {
      if (job.timer || job.s === this.holder || job.end) continue;
      job.timer = limitTimer(() => this.expire(job), job.s.busyTimeoutMs);
    }
  }

  expire(job) {
    const at = this.queue.indexOf(job);
    if (at < 0) return;
    this.queue.splice(at, 1);
    const what = this.holder ? this.holder.holding() : 'a call';
    job.reject(new SqliteError(`database is busy: waited ${job.s.busyTimeoutMs} ms (busyTimeoutMs) for ${what} of another tab to end`, SQLITE_BUSY));
  }

  // The first call that may run now: any call of the holder, or of anyone
  // when nothing is held; a session's end runs whatever holds, once its
  // session's calls queued before it have run.
  next() {
    const at = this.queue.findIndex((j, i) => (j.end ? !this.queue.slice(0, i).some((k) => k.s === j.s) : !this.holder || j.s === this.holder));
    return at < 0 ? null : this.queue.splice(at, 1)[0];
  }

  // Run the calls that may run, one at a time; resolves when none may.
  pump() {
    if (!this.running) this.running = this.drain();
    return this.running;
  }

  async drain() {
    await null;   // (pump() has recorded this run before it starts)
    for (let job = this.next(); job; job = this.next()) {
      clearTimeout(job.timer);
      if (job.end) {
        job.s.end();
        this.settle(job.s);
        job.resolve();
        continue;
      }
      try {
        job.resolve(await job.s.handle(job.method, job.args, job.replay));
      } catch (e) {
        job.reject(e);
      }
      this.settle(job.s);
      // The storage's own work (the OPFS pool's top-up) before the next call.
      try { await this.db.idle(); } catch { /* the next call meets it */ }
    }
    this.running = null;   // (no await since next() found nothing)
  }

  // After a call of s: who holds the connection now.
  settle(s) {
    if (s.holds()) this.holder = s;
    else if (this.holder === s) this.holder = null;
    if (!this.holder && this.onFree) this.onFree();
    this.armBlocked();
  }

  // End session s (its client closed the database or went away): its
  // transaction rolled back, its statements, cursors and import dropped.
  // Its calls not started are refused, or with `after` (its client closed
  // the database in order: they were made before) run first.  Resolves
  // once done.
  end(s, { after = false } = {}) {
    if (s.ended) return Promise.resolve();
    s.ended = true;
    this.sessions.delete(s.id);
    if (!after) {
      for (const job of this.queue.filter((j) => j.s === s)) {
        this.queue.splice(this.queue.indexOf(job), 1);
        clearTimeout(job.timer);
        job.reject(closedError());
      }
    }
    return new Promise((resolve) => {
      const job = { s, end: true, resolve };
      if (after) this.queue.push(job); else this.queue.unshift(job);
      this.pump();
    });
  }

  // Stop: the calls already queued run, in order, except those moved(job)
  // takes (returns true: the tabs send another tab's calls to the next
  // owner).  A session that holds the connection, other than `own` (another
  // tab's transaction, import or export stream), keeps it for at most holdMs:
  // its calls run meanwhile, the others' are moved at once (the caller
  // refuses theirs that come).  Then no call is taken; the sessions left
  // with none end first (what they hold is rolled back), so that nothing
  // they held keeps the others' calls waiting; then every session ends.
  // The caller closes the database.
  async close(moved = () => false, holdMs = 0, own = null) {
    const move = (keep) => {
      this.queue = this.queue.filter((job) => {
        if (job.end || job.s === keep || !moved(job)) return true;
        clearTimeout(job.timer);
        return false;
      });
    };
    move(this.holder);
    if (this.holder && this.holder !== own && holdMs > 0) {
      await new Promise((resolve) => {
        const timer = limitTimer(resolve, holdMs);
        this.onFree = () => { clearTimeout(timer); resolve(); };
      });
      this.onFree = null;
    }
    this.closed = true;
    move(null);
    const staying = new Set(this.queue.map((job) => job.s));
    for (const s of [...this.sessions.values()]) if (!staying.has(s)) await this.end(s);
    await this.pump();
    for (const s of [...this.sessions.values()]) await this.end(s);
  }
}
