// Every method of the API, once.  A row says which object has the method
// in each API and how the main-thread API reaches the synchronous one:
//
//   name, layer  the method, and the objects that have it:
//                QUERYABLE  Database and Transaction (main thread), SyncDatabase
//                DATABASE   Database (main thread), SyncDatabase
//                STATEMENT  Statement (main thread), SyncStatement
//                TEMPCRYPT  db.tempcrypt (both)
//   async        the main-thread method: CALL is one message, generated from
//                the row (./async-database.js) and answered by running the
//                sync method of the same name (./rpc.js); a list names the
//                messages a method written by hand sends; LOCAL sends none;
//                NONE: the main-thread API has no such method
//   sync         the SyncDatabase/SyncStatement member: DELEGATE is
//                generated (./sync-database.js): the Connection's (or the
//                engine Statement's) method of the same name under the
//                call's time limit; METHOD is written by hand; PROPERTY is
//                an object or value; NONE: no such member
//   args         the arguments, in order (for the types, docs and tests)
//   options      of an 'options' argument, what crosses with a CALL (the
//                rest stays on the caller's side)
//   send         (args) -> the message's arguments, where not args as given
//   internal     not part of the public API (plumbing between the layers):
//                never in the .d.ts files or the docs
//
// test/unit/methods.test.mjs fails when a layer, the Worker's dispatch,
// index.d.ts, worker.d.ts or docs/api.md has a method this table does not
// list, or lacks one it lists.  A new method: one row here, its code where
// the row says "by hand", a line in each .d.ts and in docs/api.md.
// Per-call options: list them in the row's `options` (and read them in
// SyncDatabase.guard).

export const QUERYABLE = 'queryable', DATABASE = 'database', STATEMENT = 'statement', TEMPCRYPT = 'tempcrypt';
export const CALL = 'call', LOCAL = 'local', NONE = 'none';
export const DELEGATE = 'delegate', METHOD = 'method', PROPERTY = 'property';

const ROW_OPTIONS = ['rowMode'];

// Rows of internal methods named names.
function internal(layer, async, sync, ...names) {
  return names.map((name) => ({ name, layer, async, sync, internal: true }));
}

export const METHODS = [
  { name: 'exec', layer: QUERYABLE, async: CALL, sync: DELEGATE, args: ['sql'] },
  { name: 'query', layer: QUERYABLE, async: CALL, sync: DELEGATE, args: ['sql', 'params', 'options'], options: ROW_OPTIONS },
  { name: 'run', layer: QUERYABLE, async: CALL, sync: DELEGATE, args: ['sql', 'params'] },
  { name: 'batch', layer: QUERYABLE, async: CALL, sync: DELEGATE, args: ['entries', 'options'], options: ROW_OPTIONS },
  { name: 'prepare', layer: QUERYABLE, async: ['prepare'], sync: METHOD, args: ['sql'] },
  { name: 'iterate', layer: QUERYABLE, async: ['cursorOpen', 'page', 'cursorClose'], sync: METHOD, args: ['sql', 'params', 'options'] },
  { name: 'transaction', layer: QUERYABLE, async: ['txBegin', 'txEnd'], sync: METHOD, args: ['fn'] },

  { name: 'export', layer: DATABASE, async: CALL, sync: METHOD, args: [] },
  { name: 'exportStream', layer: DATABASE, async: ['cursorOpen', 'page', 'cursorClose'], sync: METHOD, args: ['options'] },
  { name: 'import', layer: DATABASE, async: ['importBegin', 'importChunk', 'importEnd'], sync: METHOD, args: ['source'] },
  { name: 'heapSize', layer: DATABASE, async: CALL, sync: METHOD, args: [] },
  { name: 'files', layer: DATABASE, async: ['files'], sync: PROPERTY, args: [] },
  { name: 'close', layer: DATABASE, async: ['close'], sync: METHOD, args: [] },
  { name: 'function', layer: DATABASE, async: NONE, sync: METHOD, args: ['name', 'fn', 'options'] },
  { name: 'aggregate', layer: DATABASE, async: NONE, sync: METHOD, args: ['name', 'spec'] },
  { name: 'collation', layer: DATABASE, async: NONE, sync: METHOD, args: ['name', 'compare'] },
  { name: 'observe', layer: DATABASE, async: NONE, sync: METHOD, args: ['fn'] },
  { name: 'reserve', layer: DATABASE, async: NONE, sync: METHOD, args: ['n'] },

  { name: 'columns', layer: STATEMENT, async: LOCAL, sync: METHOD, args: [] },
  { name: 'run', layer: STATEMENT, async: CALL, sync: DELEGATE, args: ['params'] },
  { name: 'get', layer: STATEMENT, async: CALL, sync: DELEGATE, args: ['params', 'options'], options: ROW_OPTIONS },
  { name: 'all', layer: STATEMENT, async: CALL, sync: DELEGATE, args: ['params', 'options'], options: ROW_OPTIONS },
  { name: 'iterate', layer: STATEMENT, async: ['stmtOpen', 'page', 'cursorClose'], sync: METHOD, args: ['params', 'options'] },
  { name: 'finalize', layer: STATEMENT, async: ['finalize'], sync: METHOD, args: [] },

  { name: 'stats', layer: TEMPCRYPT, async: CALL, sync: METHOD, args: ['reset'], send: (reset = false) => [!!reset] },
  { name: 'setEnabled', layer: TEMPCRYPT, async: CALL, sync: METHOD, args: ['on'], send: (on) => [!!on] },
  { name: 'budget', layer: TEMPCRYPT, async: CALL, sync: METHOD, args: ['bytes'] },

  // Plumbing of the main-thread API (./async-database.js).
  ...internal(QUERYABLE, LOCAL, NONE, 'call', 'send', 'lock'),
  ...internal(STATEMENT, LOCAL, NONE, 'call'),
  // What the Worker's dispatch (./rpc.js) uses of the sync API beyond the
  // public methods: the pieces its messages are made of.
  ...internal(DATABASE, NONE, METHOD, 'assertOpen', 'guard', 'limited', 'idle', 'txBegin', 'txEnd', 'cursor', 'importBegin'),
  ...internal(STATEMENT, NONE, METHOD, 'cursor'),
];

// The rows that match every field of `where`.
export function rows(where) {
  return METHODS.filter((m) => Object.entries(where).every(([k, v]) => m[k] === v));
}

// The message a CALL row sends: the name, prefixed by its object.
export function messageOf(m) {
  return m.layer === STATEMENT ? `stmt.${m.name}` : m.layer === TEMPCRYPT ? `tempcrypt.${m.name}` : m.name;
}

// The arguments a CALL sends for the API arguments args: only the options
// the row names cross, and no more arguments than the row has.
export function wireArgs(m, args) {
  if (m.send) return m.send(...args);
  const out = args.slice(0, m.args.length);
  const at = m.args.indexOf('options');
  if (at >= 0) out[at] = args[at] && Object.fromEntries(m.options.map((k) => [k, args[at][k]]));
  return out;
}
