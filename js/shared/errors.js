// The error type of every API, and the one shape an error has on its way
// up: a storage backend throws, the bridge hands SQLite a result code and
// keeps the exception, the engine builds an SqliteError with SQLite's code
// and message and the backend's exception as its `cause`, and the Worker
// sends it to the main thread as plain data (toWire) that the caller gets
// back as the same SqliteError, cause included (fromWire).
import { SQLITE_MISUSE, SQLITE_FULL, RESULT_CODE_NAMES } from './constants.js';

export class SqliteError extends Error {
  // code: SQLite's extended result code.  options.cause: what failed
  // underneath (a storage backend's exception, an error in a user function).
  constructor(message, code, options) {
    super(message, options);
    this.name = 'SqliteError';
    this.code = code;
    this.primaryCode = code & 0xff;
    this.codeName = codeName(code);
  }
}

// The name of a result code ('SQLITE_CONSTRAINT_UNIQUE'); an extended code
// SQLite does not define gets its primary code's name.
export function codeName(code) {
  return RESULT_CODE_NAMES.get(code) ?? RESULT_CODE_NAMES.get(code & 0xff) ?? 'SQLITE_UNKNOWN';
}

// An error as the ORM adapters (../kysely.js, ../drizzle.js) throw it: an
// SqliteError shaped as better-sqlite3's, which the drivers they stand in
// for throw: `code` is the result code's name ('SQLITE_CONSTRAINT_UNIQUE'),
// its number is `errcode` (primaryCode and codeName as ever).  Any other
// error is returned as it is.
export function peerShaped(e) {
  if (e && e.name === 'SqliteError' && typeof e.code === 'number') {
    e.errcode = e.code;
    e.code = e.codeName;
  }
  return e;
}

// A call on a closed database: thrown by the engine (Connection.assertOpen),
// and by the main thread's Database, whose Worker is gone once closed.
export function closedError() {
  return new SqliteError('database is closed', SQLITE_MISUSE);
}

// The result code of a storage backend's exception (js/storage/backend.d.ts): the
// code it carries (sqliteCode), SQLITE_FULL for a quota error, else dflt.
// Used by the VFS bridge and by every direct call to a backend.
export function storageCode(e, dflt) {
  if (e && typeof e.sqliteCode === 'number') return e.sqliteCode;
  if (e && e.name === 'QuotaExceededError') return SQLITE_FULL;
  return dflt;
}

// What a storage backend throws (js/storage/backend.d.ts): an Error carrying
// SQLite's result code as sqliteCode.  e: the error to mark (a non-Error
// becomes one), or the message of a new one (options: its cause).
export function backendError(code, e, options) {
  const err = e instanceof Error ? e : new Error(String(e), options);
  err.sqliteCode = code;
  return err;
}

// An SqliteError for a backend's exception from a direct call (not through
// SQLite); message says what was being done.
export function storageError(e, dflt, message) {
  const what = e && e.name && e.name !== 'Error' ? `${e.name}: ` : '';
  return new SqliteError(`${message}: ${what}${e && e.message ? e.message : e}`, storageCode(e, dflt), { cause: e });
}

// The SqliteError of a backend's exception at open() that carries its
// SQLite code (name: the database; hint: appended to the message).  Its
// message is said once: a wrapper that says what failed (a cause under
// it) gives its message, and the cause is what it wraps; a bare system
// error (a string code such as 'EACCES') stays the cause, under a message
// naming the database; any other error gives its message and no cause.
export function openError(e, name, hint = '') {
  if (e.cause === undefined && typeof e.code === 'string') {
    const err = storageError(e, e.sqliteCode, `cannot open ${name}`);
    err.message += hint;
    return err;
  }
  return new SqliteError(e.message + hint, e.sqliteCode, e.cause !== undefined ? { cause: e.cause } : undefined);
}

// What an error becomes to cross postMessage: { name, message, code?,
// sqliteCode?, cause? } (the stack stays behind) (cause in the same shape; a chain is cut after a
// few levels).  fromWire() rebuilds it: an SqliteError for an SqliteError,
// else an Error with the same name.
const WIRE_DEPTH = 4;
export function toWire(e, depth = 0) {
  if (!e || typeof e !== 'object') return { name: 'Error', message: String(e) };
  const w = { name: typeof e.name === 'string' ? e.name : 'Error', message: String(e.message ?? e) };
  // SQLite's code; of other errors only a string code (Node's 'ENOENT'),
  // never a DOMException's legacy number, which a caller could take for one.
  if (e.name === 'SqliteError' || typeof e.code === 'string') w.code = e.code;
  if (typeof e.sqliteCode === 'number') w.sqliteCode = e.sqliteCode;
  if (e.cause !== undefined && depth < WIRE_DEPTH) w.cause = toWire(e.cause, depth + 1);
  return w;
}

export function fromWire(w) {
  const options = w.cause !== undefined ? { cause: fromWire(w.cause) } : undefined;
  if (w.name === 'SqliteError') return new SqliteError(w.message, w.code, options);
  const e = new Error(w.message, options);
  e.name = w.name;
  if (w.code !== undefined) e.code = w.code;
  if (w.sqliteCode !== undefined) e.sqliteCode = w.sqliteCode;
  return e;
}

// postMessage's DataCloneError as the API's error (the arguments hold what
// cannot cross to a Worker or another tab: a function, a Symbol...).
export function uncloneable(e) {
  if (!e || e.name !== 'DataCloneError') return e;
  return new SqliteError(`cannot send the call to the database's Worker (${e.message}): parameters are numbers, strings, ` +
    'bigints, booleans, null, Uint8Array or ArrayBuffer', SQLITE_MISUSE, { cause: e });
}
