// The Web Locks and BroadcastChannels of a database shared by tabs, and
// of a Worker's life (./client.js).  A shared database is named by its key
// (its storage kind's shareKey(): for OPFS, the pool and the full name),
// in every lock, channel and message.
//   OWNER_LOCK + key              held by the tab that runs the database
//   TAB_LOCK + key + '@' + tab    held by each tab's Worker while it has it open
//   CHANNEL + key                 who runs it: { t: 'hello' | 'owner', from, db }
//   CHANNEL + key + '@' + tab     the tab's inbox: calls to the owner, replies to a tab
//   WORKER_LOCK + id              held by a Worker the package started, for its life
export const CHANNEL = 'sqlite-tempcrypt:';
export const OWNER_LOCK = 'sqlite-tempcrypt-owner:';
export const TAB_LOCK = 'sqlite-tempcrypt-tab:';
export const WORKER_LOCK = 'sqlite-tempcrypt-worker:';

export const inboxOf = (key, tab) => `${CHANNEL}${key}@${tab}`;
export const tabLockOf = (key, tab) => `${TAB_LOCK}${key}@${tab}`;

export const newId = () => (globalThis.crypto?.randomUUID ? crypto.randomUUID() : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`);

// Take Web Lock `name` (options as navigator.locks.request's); resolves to
// its release function (null if ifAvailable found it taken).
export function holdLock(name, options = {}) {
  return new Promise((resolve, reject) => {
    navigator.locks.request(name, options, (lock) => {
      if (!lock) { resolve(null); return undefined; }
      return new Promise((release) => resolve(release));
    }).catch(reject);
  });
}

// gone() once the Web Lock `name` is free (its holder let go or went
// away); the function returned stops watching.
export function watchLock(name, gone) {
  const ctl = new AbortController();
  navigator.locks.request(name, { signal: ctl.signal }, () => { gone(); }).catch(() => { /* aborted */ });
  return () => ctl.abort();
}
