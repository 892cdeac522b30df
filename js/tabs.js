// Opening a database for the main-thread API, in the Worker the package
// starts (./worker-script.js) or in-process (./client.js's LocalClient):
// createDispatcher(emit) answers the messages of ./rpc.js, and 'open' and
// 'close'.  The calls of the database go to a queue of one session
// (./hub.js).
import { open as openSync } from './worker.js';
import { resolveStorage } from './storage.js';
import { Hub } from './hub.js';
import { HANDLERS } from './rpc.js';
import { closedError } from './errors.js';
import { BUSY_TIMEOUT_MS } from './methods.js';

// A dispatcher for one database: call(method, ...args); emit(event) gets
// what the main thread hears unasked ({ type: 'owner', owner }).
export function createDispatcher(emit = () => {}) {
  let link = null;
  return {
    async call(method, ...args) {
      if (method === 'open') {
        if (link) throw new Error('this worker already has a database open');
        link = await openLink(args[0], args[1] || {}, emit);
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

async function openLink(name, options, emit) {
  const { busyTimeoutMs = BUSY_TIMEOUT_MS, setup, ...rest } = options;
  const storage = await resolveStorage(rest.storage);
  const dbOptions = { ...rest, storage };
  const session = { busyTimeoutMs, timeoutMs: rest.timeoutMs ?? 0 };
  return LocalLink.open(name, dbOptions, setup, session);
}

// The sync database, with the app's setup module run on it.
async function openDatabase(name, options, setup) {
  const db = await openSync(name, options);
  if (setup) {
    // The app's module registers its functions on the sync database.
    try {
      const mod = await import(/* @vite-ignore */ setup);
      if (typeof mod.default !== 'function') throw new TypeError(`setup module ${setup} has no default export function`);
      await mod.default(db);
    } catch (e) {
      await db.close();
      throw e;
    }
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

