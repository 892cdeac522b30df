// Every method of the API, once.  A row says which object has the method
// in each API and how the main-thread API reaches the synchronous one:
//
//   name, layer  the method, and the objects that have it:
//                QUERYABLE  Database and Transaction (main thread), SyncDatabase
//                DATABASE   Database (main thread), SyncDatabase
//                STATEMENT  Statement (main thread), SyncStatement
//                TEMPCRYPT  db.tempcrypt (both)
//   async        the main-thread method: CALL is one message, generated from
//                the row (../page/async-database.js) and answered by running the
//                sync method of the same name (../dispatch/rpc.js); a list names the
//                messages a method written by hand sends; LOCAL sends none;
//                NONE: the main-thread API has no such method
//   sync         the SyncDatabase/SyncStatement member: DELEGATE is
//                generated (../engine/sync-database.js): the Connection's (or the
//                engine Statement's) method of the same name under the
//                call's time limit; METHOD is written by hand; PROPERTY is
//                an object or value; NONE: no such member
//   args         the arguments, in order (for the types, docs and tests)
//   options      the names an 'options' argument may hold (any other is a
//                TypeError), and what crosses with a CALL
//   defaults     the options' defaults, where they have one (callOptions
//                fills them in)
//   local        options only the main-thread method reads (iterate's
//                pageSize)
//   spread       a statement's parameters may be given as arguments
//                (better-sqlite3's stmt.get(1), stmt.run(1, 'a')): see
//                statementArgs()
//   property     an accessor in both APIs, not a method (the async one sends
//                the messages its row names)
//   send         (args) -> the message's arguments, where not args as given
//   internal     not part of the public API (plumbing between the layers):
//                never in the .d.ts files or the docs
//
// test/unit/methods.test.mjs fails when a layer, the Worker's dispatch,
// index.d.ts, worker.d.ts or docs/api.md has a method this table does not
// list, or lacks one it lists.  A new method: one row here, its code where
// the row says "by hand", a line in each .d.ts and in docs/api.md.
// Per-call options: list them in the row's `options` (timeoutMs is read by
// SyncDatabase.guard).

import { wellFormed } from '../engine/values.js';

export const QUERYABLE = 'queryable', DATABASE = 'database', STATEMENT = 'statement', TEMPCRYPT = 'tempcrypt';
export const CALL = 'call', LOCAL = 'local', NONE = 'none';
export const DELEGATE = 'delegate', METHOD = 'method', PROPERTY = 'property';

// timeoutMs: the time limit of this one call (db.timeoutMs otherwise).
const CALL_OPTIONS = ['timeoutMs'];
const ROW_OPTIONS = ['rowMode', 'timeoutMs'];

// Rows of internal methods named names.
function internal(layer, async, sync, ...names) {
  return names.map((name) => ({ name, layer, async, sync, internal: true }));
}

export const METHODS = [
  { name: 'exec', layer: QUERYABLE, async: CALL, sync: DELEGATE, args: ['sql', 'params', 'options'], options: CALL_OPTIONS },
  { name: 'query', layer: QUERYABLE, async: CALL, sync: DELEGATE, args: ['sql', 'params', 'options'], options: ROW_OPTIONS },
  { name: 'run', layer: QUERYABLE, async: CALL, sync: DELEGATE, args: ['sql', 'params', 'options'], options: CALL_OPTIONS },
  { name: 'batch', layer: QUERYABLE, async: CALL, sync: DELEGATE, args: ['entries', 'options'], options: ROW_OPTIONS },
  { name: 'prepare', layer: QUERYABLE, async: ['prepare'], sync: METHOD, args: ['sql'] },
  { name: 'iterate', layer: QUERYABLE, async: ['cursorOpen', 'page', 'cursorClose'], sync: METHOD, args: ['sql', 'params', 'options'], options: ROW_OPTIONS, local: ['pageSize'] },
  { name: 'transaction', layer: QUERYABLE, async: ['txBegin', 'txEnd'], sync: METHOD, args: ['fn'] },

  { name: 'export', layer: DATABASE, async: CALL, sync: METHOD, args: [] },
  { name: 'exportStream', layer: DATABASE, async: ['exportOpen', 'page', 'cursorClose'], sync: METHOD, args: ['options'], options: ['pagesPerChunk'], defaults: { pagesPerChunk: 256 } },
  { name: 'import', layer: DATABASE, async: ['importBegin', 'importChunk', 'importEnd'], sync: METHOD, args: ['source'] },
  { name: 'heapSize', layer: DATABASE, async: CALL, sync: METHOD, args: [] },
  { name: 'files', layer: DATABASE, async: ['files'], sync: PROPERTY, args: [] },
  { name: 'scanFiles', layer: DATABASE, async: CALL, sync: METHOD, args: [] },
  { name: 'close', layer: DATABASE, async: ['close'], sync: METHOD, args: [] },
  { name: 'timeoutMs', layer: DATABASE, async: ['timeoutMs'], sync: PROPERTY, args: ['ms'], property: true },
  { name: 'function', layer: DATABASE, async: NONE, sync: METHOD, args: ['name', 'fn', 'options'] },
  { name: 'aggregate', layer: DATABASE, async: NONE, sync: METHOD, args: ['name', 'spec'] },
  { name: 'collation', layer: DATABASE, async: NONE, sync: METHOD, args: ['name', 'compare'] },
  { name: 'observe', layer: DATABASE, async: NONE, sync: METHOD, args: ['fn'] },
  { name: 'reserve', layer: DATABASE, async: NONE, sync: METHOD, args: ['n'] },

  { name: 'columns', layer: STATEMENT, async: LOCAL, sync: METHOD, args: [] },
  { name: 'run', layer: STATEMENT, async: CALL, sync: DELEGATE, args: ['params', 'options'], options: CALL_OPTIONS, spread: true },
  { name: 'get', layer: STATEMENT, async: CALL, sync: DELEGATE, args: ['params', 'options'], options: ROW_OPTIONS, spread: true },
  { name: 'all', layer: STATEMENT, async: CALL, sync: DELEGATE, args: ['params', 'options'], options: ROW_OPTIONS, spread: true },
  { name: 'iterate', layer: STATEMENT, async: ['stmtOpen', 'page', 'cursorClose'], sync: METHOD, args: ['params', 'options'], options: ROW_OPTIONS, local: ['pageSize'], spread: true },
  { name: 'finalize', layer: STATEMENT, async: ['finalize'], sync: METHOD, args: [] },

  { name: 'stats', layer: TEMPCRYPT, async: CALL, sync: METHOD, args: ['reset'], send: (reset = false) => [!!reset] },
  { name: 'setEnabled', layer: TEMPCRYPT, async: CALL, sync: METHOD, args: ['on'], send: (on) => [!!on] },
  { name: 'budget', layer: TEMPCRYPT, async: CALL, sync: METHOD, args: ['bytes'] },

  // Plumbing of the main-thread API (../page/async-database.js).
  ...internal(QUERYABLE, LOCAL, NONE, 'call', 'send', 'lock', 'whenFree'),
  ...internal(STATEMENT, LOCAL, NONE, 'call'),
  // What the Worker's dispatch (../dispatch/rpc.js) uses of the sync API beyond the
  // public methods: the pieces its messages are made of.
  ...internal(DATABASE, NONE, METHOD, 'assertOpen', 'guard', 'limited', 'idle', 'txBegin', 'txEnd', 'cursor', 'exportCursor', 'importBegin'),
  ...internal(STATEMENT, NONE, METHOD, 'cursor'),
];

// Every option of open(), once: which API takes it (BOTH, ASYNC: the
// main-thread open() only, SYNC: sqlite-tempcrypt/worker's only), for the
// options a storage reads which (each kind's `options` in its backend file
// names the same), its default (a function: computed where it is read;
// none: the option is absent unless given) and `shown`, the default as the
// docs say it where that is not the value itself, and its check (throws a
// TypeError for a bad value).  resolveOpenOptions() applies them; every
// layer that reads options calls it.  test/unit/options.test.mjs holds the
// .d.ts files' OpenOptions and WorkerOpenOptions, docs/api.md and the
// storages' lists to these rows (names and defaults).  open() refuses any
// other name.
export const BOTH = 'both', ASYNC = 'async', SYNC = 'sync';

// The time limit of a call in ms (0: none), checked.
export function checkTimeoutMs(ms) {
  if (typeof ms !== 'number' || !(ms >= 0) || ms === Infinity) {
    throw new TypeError(`timeoutMs must be a number of milliseconds, 0 for no limit (not ${String(ms)})`);
  }
  return ms;
}

// A memory-tier budget as given (open()'s tempBudget, tempcrypt.budget()):
// a whole number of bytes >= 0, else a TypeError.
export function checkBudget(bytes) {
  if (typeof bytes !== 'number' || !Number.isSafeInteger(bytes) || bytes < 0) {
    throw new TypeError(`the memory tier's budget must be a whole number of bytes >= 0 (got ${typeof bytes === 'number' ? bytes : typeof bytes})`);
  }
  return bytes;
}

const checkBusyTimeout = (ms) => {
  if (typeof ms !== 'number' || !(ms >= 0)) throw new TypeError(`busyTimeoutMs must be a number of ms >= 0 (or Infinity), not ${String(ms)}`);
};
const msOrNone = (name) => (ms) => {
  if (typeof ms !== 'number' || !(ms >= 0) || ms === Infinity) {
    throw new TypeError(`${name} must be a number of milliseconds, 0 for no limit (not ${String(ms)})`);
  }
};
const oneOf = (name, values) => (v) => {
  if (!values.includes(v)) throw new TypeError(`${name} must be ${values.map((t) => `'${t}'`).join(' or ')}, not ${String(v)}`);
};
const boolean = (name) => (v) => {
  if (typeof v !== 'boolean') throw new TypeError(`${name} must be true or false, not ${String(v)}`);
};

export const OPEN_OPTIONS = [
  // The storage's name: resolveStorage() (../storage/storage.js) defaults and checks it.
  { name: 'storage', api: BOTH },
  { name: 'import', api: BOTH },
  { name: 'timeoutMs', api: BOTH, default: 0, shown: 'none', check: checkTimeoutMs },
  // Default: the C library's (tc_init), which budget() reports.
  { name: 'tempBudget', api: BOTH, shown: '64 MiB', check: checkBudget },
  // How long a call waits for a transaction, import or export stream that
  // holds the database (of its own tab, or of another tab sharing it)
  // before it fails with SQLITE_BUSY, as better-sqlite3's busy timeout.
  { name: 'busyTimeoutMs', api: BOTH, default: 5000, check: checkBusyTimeout },
  { name: 'tabs', api: ASYNC, default: 'shared', check: oneOf('tabs', ['shared', 'exclusive']) },
  { name: 'wasm', api: BOTH },
  // How long open() waits for the tab holding an OPFS pool: long enough for
  // a reload or a closing tab to hand it over (its Worker lets go within a
  // few hundred ms), short enough that a tab really holding it makes open()
  // fail with SQLITE_BUSY instead of hanging.
  { name: 'lockTimeoutMs', api: BOTH, storage: ['opfs'], default: 5000 },
  { name: 'dir', api: BOTH, storage: ['file'], default: '.', shown: 'the working directory' },
  { name: 'readOnly', api: BOTH, storage: ['file'], default: false, check: boolean('readOnly') },
  // Free pool files kept ready: a statement can open at most that many temp
  // files at once.
  { name: 'minFree', api: BOTH, storage: ['opfs'], default: 16 },
  { name: 'pool', api: BOTH, storage: ['opfs'] },
  { name: 'worker', api: ASYNC, default: () => typeof Worker === 'function' },
  // How long a Worker has to show that it serves (serve() posts a first
  // message as it starts, before any wasm is fetched) before open() fails
  // and the Worker is terminated: an app's Worker entry that never calls
  // serve() would leave open() waiting for ever.  Generous, for the
  // Worker's own modules on a slow network.
  { name: 'workerStartMs', api: ASYNC, default: 60000, check: msOrNone('workerStartMs') },
  { name: 'setup', api: ASYNC },
  { name: 'observer', api: SYNC },
];

// The default of option `name` (undefined: none).
export function defaultOf(name) {
  const d = OPEN_OPTIONS.find((o) => o.name === name).default;
  return typeof d === 'function' ? d() : d;
}

// The database name open() was given, as SQLite and the storage get it
// (TextEncoder's encoding: a lone surrogate becomes U+FFFD); a name that
// is not a non-empty string, or holds a NUL (where SQLite's name would
// end), is a TypeError.
export function openName(name) {
  if (typeof name !== 'string' || name === '') throw new TypeError('open(name): name must be a non-empty string');
  if (name.includes('\0')) throw new TypeError(`open(name): the name ${JSON.stringify(name)} contains a NUL character`);
  return wellFormed(name);
}

// open()'s options of `api` (ASYNC or SYNC), checked and with their
// defaults: a new object.  A TypeError names an option open() of `api`
// does not take (and the ones it takes), or a value its row's check
// refuses.  Resolving resolved options changes nothing.
export function resolveOpenOptions(options, api) {
  if (options === null || typeof options !== 'object') throw new TypeError('open(name, options): options must be an object');
  const rows = OPEN_OPTIONS.filter((o) => o.api === BOTH || o.api === api);
  const known = rows.map((o) => o.name);
  const unknown = Object.keys(options).filter((k) => !known.includes(k));
  if (unknown.length) {
    throw new TypeError(`open(): unknown option${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `'${k}'`).join(', ')}; the options are ${known.join(', ')}`);
  }
  const out = { ...options };
  for (const o of rows) {
    if (out[o.name] !== undefined) o.check?.(out[o.name]);
    else if (o.default !== undefined) out[o.name] = defaultOf(o.name);
  }
  return out;
}

// The rows that match every field of `where`; the row of a method.
export function rows(where) {
  return METHODS.filter((m) => Object.entries(where).every(([k, v]) => m[k] === v));
}
export const rowOf = (layer, name) => rows({ layer, name })[0];

// The options argument of a call of row m from `api` (ASYNC or SYNC),
// checked: an object (or nothing) holding only the row's option names;
// timeoutMs a time limit; with the row's defaults where it has them.
export function callOptions(m, options, api) {
  if (options === undefined || options === null) return m.defaults;
  const known = [...(m.options || []), ...(api === ASYNC ? m.local || [] : [])];
  if (typeof options !== 'object') throw new TypeError(`${m.name}(): options must be an object of ${known.join(', ')}`);
  const unknown = Object.keys(options).filter((k) => !known.includes(k));
  if (unknown.length) throw new TypeError(`${m.name}(): unknown option ${unknown.map((k) => `'${k}'`).join(', ')}; the options are ${known.join(', ') || 'none'}`);
  if (options.timeoutMs !== undefined) checkTimeoutMs(options.timeoutMs);
  return m.defaults ? { ...m.defaults, ...options } : options;
}

// A statement call's [params, options] from its arguments, in
// better-sqlite3's forms: (params[, options]) with params an array, an
// object of named values or undefined; () ; or each parameter as an
// argument, with no options then: stmt.get(1), stmt.run(1, 'a', null).
export function statementArgs(args) {
  const [first] = args;
  const named = first !== null && typeof first === 'object' && !ArrayBuffer.isView(first) && !(first instanceof ArrayBuffer);
  if (args.length === 0 || named || (first === undefined && args.length <= 2)) return [first, args[1]];
  return [args.slice(), undefined];
}

// The message a CALL row sends: the name, prefixed by its object.
export function messageOf(m) {
  return m.layer === STATEMENT ? `stmt.${m.name}` : m.layer === TEMPCRYPT ? `tempcrypt.${m.name}` : m.name;
}

// The arguments a CALL sends for the API arguments args: a statement's
// parameters gathered, the options checked and only the row's crossing, no
// more arguments than the row has.
export function wireArgs(m, args) {
  if (m.send) return m.send(...args);
  if (m.spread) args = statementArgs(args);
  const out = args.slice(0, m.args.length);
  const at = m.args.indexOf('options');
  if (at >= 0) out[at] = callOptions(m, args[at], ASYNC) && Object.fromEntries(m.options.map((k) => [k, args[at][k]]));
  return out;
}
