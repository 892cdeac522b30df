// Every Web Lock and BroadcastChannel of the package, and the one way each
// is requested or opened: the OPFS pool's lock (../storage/opfs-pool.js), those of a
// database shared by tabs (../tabs/tabs.js, ../tabs/tab-owner.js, ../tabs/tab-served.js) and
// of a Worker's life (../serve.js, ../page/client.js).  A shared database is
// named by its key (its storage kind's shareKey(): for OPFS, the pool and
// the full name), in every lock, channel and message.
//   POOL_LOCK + pool              held by the Worker that has the OPFS pool open
//   OWNER_LOCK + key              held by the tab that runs the database
//   TAB_LOCK + key + '@' + tab    held by each tab's Worker while it has it open
//   CHANNEL + key                 who runs it: { t: 'hello' | 'owner', from, db }
//   CHANNEL + key + '@' + tab     the tab's inbox: calls to the owner, replies to a tab
//   WORKER_LOCK + id              held by a Worker the package started, for its life
// (POOL_LOCK and CHANNEL are one string: a lock's name and a channel's do
// not meet.)
export const POOL_LOCK = 'sqlite-tempcrypt:';
export const CHANNEL = 'sqlite-tempcrypt:';
export const OWNER_LOCK = 'sqlite-tempcrypt-owner:';
export const TAB_LOCK = 'sqlite-tempcrypt-tab:';
export const WORKER_LOCK = 'sqlite-tempcrypt-worker:';

export const tabLockOf = (key, tab) => `${TAB_LOCK}${key}@${tab}`;
export const inboxOf = (key, tab) => `${CHANNEL}${key}@${tab}`;

export const newId = () => (globalThis.crypto?.randomUUID ? crypto.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`);

// Whether there are Web Locks here; and BroadcastChannel too, which tabs
// need to share a database.
export const hasWebLocks = () => !!globalThis.navigator?.locks?.request;
export const canShareTabs = () => hasWebLocks() && typeof BroadcastChannel === 'function';

// The channel of the tabs sharing database `key`, and tab's inbox there.
export const openChannel = (key) => new BroadcastChannel(CHANNEL + key);
export const openInbox = (key, tab) => new BroadcastChannel(inboxOf(key, tab));

// Take Web Lock `name`; resolves to its release function, or null if it
// is not free: at once with ifAvailable, or within timeoutMs (> 0; our
// own timer, not AbortSignal.timeout(): the error a browser rejects with
// then differs, AbortError in Chrome 103-123, and Node unrefs it).
export function holdLock(name, { ifAvailable = false, timeoutMs = 0 } = {}) {
  const ctl = timeoutMs > 0 ? new AbortController() : null;
  const timer = ctl && setTimeout(() => ctl.abort(), timeoutMs);
  return new Promise((resolve, reject) => {
    navigator.locks.request(name, ctl ? { signal: ctl.signal } : { ifAvailable }, (lock) => {
      clearTimeout(timer);
      if (!lock) { resolve(null); return undefined; }
      return new Promise((release) => resolve(release));
    }).catch((e) => {
      clearTimeout(timer);
      if (ctl?.signal.aborted) resolve(null); else reject(e);
    });
  });
}

// Run fn while holding Web Lock `name` (options as navigator.locks.request's:
// fn gets null if ifAvailable found it taken); the lock is let go when
// what fn returns settles.  Resolves as navigator.locks.request does.
export const whileLocked = (name, options, fn) => navigator.locks.request(name, options, fn);

// gone() once the Web Lock `name` is free (its holder let go or went
// away); the function returned stops watching.
export function watchLock(name, gone) {
  const ctl = new AbortController();
  navigator.locks.request(name, { signal: ctl.signal }, () => { gone(); }).catch(() => { /* aborted */ });
  return () => ctl.abort();
}
