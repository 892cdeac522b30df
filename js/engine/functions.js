// User-defined SQL functions, aggregates and collations of a Connection.
// The C trampolines (wasm/browser/glue.c) call the handler registered
// under an id in M.tcapi.handlers (wasm/browser/api_library.js); SQLite
// drops the id (xDestroy) when the function is replaced or the connection
// closes.  Arguments and results use the one conversion of ./values.js.
import { SqliteError } from '../shared/errors.js';
import { SQLITE_OK, SQLITE_ERROR, SQLITE_NOMEM, SQLITE_DETERMINISTIC, SQLITE_DIRECTONLY } from '../shared/constants.js';
import { toSqlite, fromSqlite, RESULT, VALUE, textAt } from './values.js';

let nextHandlerId = 0;

// The arguments of a function call as JS values.
function args(M, argc, argv) {
  const out = new Array(argc);
  for (let i = 0; i < argc; i++) out[i] = fromSqlite(M, VALUE, M.HEAP32[(argv >> 2) + i]);
  return out;
}

// A JS exception in a function: the statement fails with its message.
function resultError(engine, ctx, e) {
  const M = engine.M;
  const msg = e && e.message ? e.message : String(e);
  try {
    engine.withCString(msg, (p, n) => M._sqlite3_result_error(ctx, p, n));
  } catch {
    M._sqlite3_result_error(ctx, 0, 0);
  }
}

// fn() as the result of call ctx, or its exception as the call's error.
function answer(engine, ctx, fn) {
  try { toSqlite(engine, RESULT, ctx, 0, fn()); } catch (e) { resultError(engine, ctx, e); }
}

function register(conn, name, handler, create) {
  conn.assertOpen();
  if (typeof name !== 'string' || !name) throw new TypeError('a function or collation needs a name');
  if (name.includes('\0')) throw new TypeError(`the name ${JSON.stringify(name)} contains a NUL character`);
  const rc = conn.engine.withCString(name, (zName) => {
    const id = ++nextHandlerId;
    conn.M.tcapi.handlers.set(id, handler);
    return create(zName, id);   // on failure SQLite drops the handler (xDestroy)
  });
  if (rc !== SQLITE_OK) throw conn.engine.error(conn.db, rc);
}

function createAny(conn, name, handler, nArg, options, aggregate) {
  const flags = (options.deterministic ? SQLITE_DETERMINISTIC : 0) | (options.directOnly ? SQLITE_DIRECTONLY : 0);
  register(conn, name, handler, (zName, id) => conn.M._tc_create_function(conn.db, zName, nArg, flags, id, aggregate ? 1 : 0));
}

// fn(...args) as an SQL function.  nArg: fn.length unless varargs.
export function createFunction(conn, name, fn, options = {}) {
  if (typeof fn !== 'function') throw new TypeError('function(name, fn): fn must be a function');
  const { engine, M } = conn;
  const handler = { call: (ctx, argc, argv) => answer(engine, ctx, () => fn(...args(M, argc, argv))) };
  createAny(conn, name, handler, options.varargs ? -1 : fn.length, options, false);
}

// An aggregate: start (a value or a function giving one), step(acc,
// ...args) -> new acc (undefined keeps it), result(acc) -> the value.
// Each group's accumulator lives here under a key SQLite keeps in the
// call's aggregate context.
export function createAggregate(conn, name, { start, step, result = (acc) => acc, ...options }) {
  if (typeof step !== 'function') throw new TypeError('aggregate(name, { step }): step must be a function');
  const { engine, M } = conn;
  const accs = new Map();
  let nextKey = 1;
  const init = () => (typeof start === 'function' ? start() : start ?? null);
  const handler = {
    step: (ctx, argc, argv) => {
      try {
        const p = M._sqlite3_aggregate_context(ctx, 4);
        if (!p) throw new SqliteError('out of memory', SQLITE_NOMEM);
        let key = M.HEAP32[p >> 2];
        if (key === 0) { key = nextKey++; M.HEAP32[p >> 2] = key; accs.set(key, init()); }
        const next = step(accs.get(key), ...args(M, argc, argv));
        if (next !== undefined) accs.set(key, next);
      } catch (e) {
        resultError(engine, ctx, e);
      }
    },
    final: (ctx) => {
      const p = M._sqlite3_aggregate_context(ctx, 0);
      const key = p ? M.HEAP32[p >> 2] : 0;
      answer(engine, ctx, () => {
        const acc = key ? accs.get(key) : init();
        accs.delete(key);
        return result(acc);
      });
      accs.delete(key);
    },
  };
  createAny(conn, name, handler, options.varargs ? -1 : Math.max(0, step.length - 1), options, true);
}

// compare(a, b) -> negative, 0 or positive, as a collating sequence.  A
// comparison cannot fail in SQLite: when compare throws, the statement's
// commit is vetoed (Connection.callbackFailed) and the step fails with the
// error once SQLite returns, what the statement did undone
// (Connection.step); until then the remaining comparisons answer 0
// without calling compare.
export function createCollation(conn, name, compare) {
  if (typeof compare !== 'function') throw new TypeError('collation(name, compare): compare must be a function');
  const M = conn.M;
  const handler = {
    compare: (n1, p1, n2, p2) => {
      if (conn.callbackError) return 0;
      try {
        const r = compare(textAt(M, p1, n1), textAt(M, p2, n2));
        return r < 0 ? -1 : r > 0 ? 1 : 0;
      } catch (e) {
        const msg = e && e.message ? e.message : String(e);
        conn.callbackFailed(new SqliteError(`collation ${name} failed: ${msg}`, SQLITE_ERROR, { cause: e }));
        return 0;
      }
    },
  };
  register(conn, name, handler, (zName, id) => M._tc_create_collation(conn.db, zName, id));
}
