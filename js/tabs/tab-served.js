// A tab served by another (the owner, ./tab-owner.js) of a database
// shared by tabs: its calls go to the owner's inbox, the answers come to
// its own (../shared/locks.js), and what happens to each call when that owner
// goes away is decided here (the handover rules of the top of ./tabs.js).
// The methods are SharedLink's (./tabs.js), which inherits them; the state
// they use is its (its constructor lists it).
import { REPLAY, unknownOutcome } from '../dispatch/rpc.js';
import { SqliteError, closedError, fromWire, uncloneable } from '../shared/errors.js';
import { SQLITE_ABORT, SQLITE_ABORT_ROLLBACK, SQLITE_BUSY, SQLITE_MISUSE } from '../shared/constants.js';
import { limitTimer } from '../shared/platform.js';
import { holdLock, watchLock, openInbox, tabLockOf } from '../shared/locks.js';
import { MOVED } from './tab-owner.js';

// Rejection marker of a call that lost() settled instead.
const ABANDONED = Symbol('abandoned');

// The messages that name a statement or a cursor of this tab by its id.
const ON_STATEMENT = new Set(['stmt.run', 'stmt.get', 'stmt.all', 'stmtOpen', 'finalize']);
const ON_CURSOR = new Set(['page', 'cursorClose']);
const OPENS_CURSOR = new Set(['cursorOpen', 'stmtOpen', 'exportOpen']);

// How the owner left: it closed the database (said "gone"), or went away.
const how = (closed) => (closed ? 'closed the database' : 'went away');
function rolledBack(what, closed) {
  return new SqliteError(`${what}: the tab that ran the database ${how(closed)} and it was rolled back (nothing of it was applied)`, SQLITE_ABORT_ROLLBACK);
}
function cutOff(closed) {
  return new SqliteError(`the rows stopped: the tab that ran the database ${how(closed)} while they were read (run the query again)`, SQLITE_ABORT);
}

export class TabServed {
  // An owner announced itself.  It holds OWNER_LOCK, so the owner this tab
  // knew, if another, let go of it, unless the announcement is stale: the
  // old owner's TAB_LOCK says which.
  async found(id) {
    if (this.isOwner() || this.becoming || this.dead.has(id) || this.owner?.id === id || this.joining === id) return;
    const old = this.owner?.id ?? this.joining;
    if (old) {
      const free = await holdLock(tabLockOf(this.key, old), { ifAvailable: true });
      if (!free) return;   // the old owner is there: a stale message
      free();
      this.ownerGone(old, false);
      if (this.dead.has(id) || this.isOwner() || this.joining) return;
    }
    this.joining = id;
    this.outbox?.close();
    this.outbox = openInbox(this.key, id);
    this.ownerWatch = watchLock(tabLockOf(this.key, id), () => this.ownerGone(id, false));
    const join = { method: 'join', args: [this.sessionOptions], resolve: () => {}, reject: () => {} };
    this.send({ id, self: false }, join, join.args, true).then(() => {
      if (this.joining === id) { this.joining = null; this.setOwner({ id, self: false }); }
    }, () => { /* moved or gone: the next owner */ });
  }

  // A message on this tab's inbox: an answer, or { gone: owner } (it
  // closed the database, after its last answer to this tab).
  onInbox(msg) {
    if (!msg || this.closed) return;
    if (typeof msg.gone === 'string') { this.leaving.add(msg.gone); this.ownerGone(msg.gone, true); return; }
    this.answered(msg);
  }

  // The owner `id` is gone; closed: it closed the database in order (said
  // "gone" after its last answer), so that nothing unanswered ran there;
  // else it went away and each call in flight there may have run.
  ownerGone(id, closed) {
    if (this.dead.has(id)) return;
    this.dead.add(id);
    if (this.joining === id) { this.joining = null; this.ownerWatch?.(); this.ownerWatch = null; }
    this.lost(id, closed);
    if (!this.closed && !this.becoming && !this.isOwner()) this.post({ t: 'hello' });
  }

  // Forget owner `id`: what this tab had there is gone, and each call it
  // did not answer is settled or sent again (see the top of ./tabs.js).
  lost(id, closed) {
    this.dead.add(id);
    if (this.owner?.id === id) {
      this.owner = null;
      this.ownerWatch?.();
      this.ownerWatch = null;
      if (this.depth > 0) { this.txLost = true; this.lostClosed = closed; }
      if (this.importing) { this.importLost = true; this.lostClosed = closed; }
    }
    for (const cur of this.cursors.values()) if (cur.owner === id) cur.lost = { closed };
    // A call answered "moved" did not run; one in flight may have, unless
    // the owner said "gone" after its last answer.
    const unanswered = [];
    for (const r of this.parked.filter((p) => p.to === id)) unanswered.push([r, false]);
    this.parked = this.parked.filter((p) => p.to !== id);
    for (const r of [...this.inflight.values()].filter((p) => p.to === id)) {
      this.inflight.delete(r.n);
      unanswered.push([r, !closed]);
    }
    for (const [r, mayHaveRun] of unanswered) {
      r.err(r.sub ? MOVED : ABANDONED);
      if (!r.sub) this.afterLoss(r.c, mayHaveRun);
    }
  }

  // Settle or send again call c, unanswered by an owner that is gone;
  // ran: it may have run there.
  afterLoss(c, ran) {
    const m = c.method;
    if (this.txLost || m.startsWith('import') || ON_CURSOR.has(m) || m === 'finalize' || m === 'bye') {
      if (!(m === 'importBegin' && !this.importLost) && this.settleLocally(c, ran)) return;
    }
    if (m === 'txBegin' || m === 'importBegin') { this.dispatch(c); return; }   // begun or not, it died with its owner
    if (!ran) { this.dispatch(c); return; }
    if (REPLAY[m]) { c.replay = REPLAY[m] === 'if-readonly'; this.dispatch(c); return; }
    c.reject(unknownOutcome(`${m}()`));
  }

  // Answer c here when what it is about went away with its owner; true if
  // it was.  ran: c itself may have run there (a commit then has an
  // unknown outcome, never "rolled back").
  settleLocally(c, ran = false) {
    const m = c.method;
    if (m === 'bye') { if (this.owner) return false; c.resolve(); return true; }
    if (this.txLost) {
      if (m === 'txEnd') {
        this.depth = Math.max(0, this.depth - 1);
        if (this.depth === 0) this.txLost = false;
        if (!c.args[0]) c.resolve();
        else if (this.depth === 0 && ran) c.reject(unknownOutcome('the commit of its transaction'));
        else c.reject(rolledBack('the transaction', this.lostClosed));
        return true;
      }
      if (m === 'cursorClose' || m === 'finalize') { this.forget(c); c.resolve(); return true; }
      c.reject(rolledBack('the transaction', this.lostClosed));
      return true;
    }
    if (this.importLost && m.startsWith('import')) {
      if (m !== 'importEnd') { c.reject(rolledBack('the import', this.lostClosed)); return true; }
      this.importLost = false;
      this.importing = false;
      if (!c.args[0]) c.resolve();
      else c.reject(ran ? unknownOutcome('the end of the import') : rolledBack('the import', this.lostClosed));
      return true;
    }
    if (ON_CURSOR.has(m)) {
      const cur = this.cursors.get(c.args[0]);
      if (!cur || !cur.lost) return false;
      this.cursors.delete(c.args[0]);
      if (m === 'page') c.reject(cutOff(cur.lost.closed)); else c.resolve();
      return true;
    }
    if (m === 'finalize') {
      const st = this.stmts.get(c.args[0]);
      if (st && this.owner && this.owner.id === st.owner) return false;
      this.stmts.delete(c.args[0]);   // it went away with its owner
      c.resolve();
      return true;
    }
    return false;
  }

  forget(c) {
    if (c.method === 'finalize') this.stmts.delete(c.args[0]);
    else this.cursors.delete(c.args[0]);
  }

  // A call from this tab's main thread.
  call(method, args) {
    if (this.closed) return Promise.reject(closedError());
    // db.timeoutMs: kept in the options this tab joins with, so that a
    // new owner applies it too.
    if (method === 'timeoutMs') this.sessionOptions.timeoutMs = args[0];
    return new Promise((resolve, reject) => this.dispatch({ method, args, resolve, reject }));
  }

  async dispatch(c) {
    try {
      if (this.settleLocally(c)) return;
      const owner = this.owner;
      if (!owner || this.leaving.has(owner.id)) { this.wait(c); return; }
      let args = c.args;
      if (ON_STATEMENT.has(c.method)) {
        const st = this.stmts.get(c.args[0]);
        if (!st) throw new SqliteError(`statement ${c.args[0]} is finalized`, SQLITE_MISUSE);
        if (st.owner !== owner.id) {
          // Prepared on an owner that went away: again on this one.
          const info = await this.send(owner, { method: 'prepare', args: [st.sql] }, [st.sql], true);
          Object.assign(st, { owner: owner.id, id: info.id });
        }
        args = [st.id, ...c.args.slice(1)];
      } else if (ON_CURSOR.has(c.method)) {
        const cur = this.cursors.get(c.args[0]);
        if (!cur) throw new SqliteError(`cursor ${c.args[0]} is closed`, SQLITE_MISUSE);
        args = [cur.id, ...c.args.slice(1)];
      }
      this.finish(c, await this.send(owner, c, args), owner.id);
    } catch (e) {
      if (e === MOVED) this.dispatch(c);
      else if (e !== ABANDONED) this.fail(c, e);
    }
  }

  // Wait for an owner: at most lockTimeoutMs + busyTimeoutMs.
  wait(c) {
    const ms = this.lockTimeoutMs + this.sessionOptions.busyTimeoutMs;
    c.timer = limitTimer(() => {
      const at = this.waiting.indexOf(c);
      if (at < 0) return;
      this.waiting.splice(at, 1);
      c.reject(new SqliteError(`database is busy: no tab took the database over within ${ms} ms (lockTimeoutMs + busyTimeoutMs)`, SQLITE_BUSY));
    }, ms);
    this.waiting.push(c);
  }

  // Send call c as method(args) to owner: its result, or its error.  A
  // call to another tab stays in `inflight` until answered; if that owner
  // goes away first, lost() settles c (afterLoss) and this rejects with
  // ABANDONED, or with MOVED for a sub-call (c starts over).
  send(owner, c, args, sub = false) {
    if (owner.self) return this.ownerRole.call(c.method, args, !!c.replay);
    return new Promise((ok, err) => {
      const n = this.nextN++;
      this.inflight.set(n, { c, n, to: owner.id, sub, ok, err });
      try {
        this.outbox.postMessage({ from: this.id, db: this.key, id: n, method: c.method, args, replay: !!c.replay });
      } catch (e) {
        this.inflight.delete(n);
        err(uncloneable(e));
      }
    });
  }

  answered(msg) {
    const r = this.inflight.get(msg.id);
    if (!r) return;
    this.inflight.delete(msg.id);
    if (msg.moved) { this.leaving.add(r.to); this.parked.push(r); return; }
    if (msg.error) r.err(fromWire(msg.error));
    else r.ok(msg.result);
  }

  // c's result, answered by owner `by`: what this tab keeps of it, then to
  // the main thread.
  finish(c, value, by) {
    const m = c.method;
    if (m === 'txBegin') this.depth++;
    else if (m === 'txEnd') this.depth = Math.max(0, this.depth - 1);
    else if (m === 'importBegin') this.importing = true;
    else if (m === 'importEnd') this.importing = false;
    else if (m === 'prepare') {
      const id = this.nextLocal++;
      this.stmts.set(id, { sql: c.args[0], owner: by, id: value.id });
      value = { ...value, id };
    } else if (OPENS_CURSOR.has(m)) {
      const id = this.nextLocal++;
      this.cursors.set(id, { owner: by, id: value, lost: false });
      value = id;
    } else if ((m === 'page' && value.done) || m === 'cursorClose') this.cursors.delete(c.args[0]);
    else if (m === 'finalize') this.stmts.delete(c.args[0]);
    c.resolve(value);
  }

  fail(c, e) {
    if (c.method === 'txEnd') this.depth = Math.max(0, this.depth - 1);
    if (c.method === 'importEnd' || c.method === 'importChunk') this.importing = false;
    c.reject(e);
  }
}
