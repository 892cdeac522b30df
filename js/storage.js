// The storage under a database: which backend (./backends.js) and opened
// how.  Never a silent fallback: the default is 'opfs' in a browser and
// 'memory' in Node, and an unavailable storage is an error that says why;
// only an explicit 'auto' takes the first of AUTO that works here.
import * as BACKENDS from './backends.js';
import { SqliteError } from './errors.js';
import { SQLITE_CANTOPEN } from './constants.js';
import { isNode } from './platform.js';

export { BACKENDS };
export const DEFAULT_STORAGE = isNode ? 'memory' : 'opfs';
export const AUTO = ['opfs', 'memory'];

const has = (name) => typeof name === 'string' && Object.prototype.hasOwnProperty.call(BACKENDS, name);

// The backend name to use for open()'s `storage` option.
export async function resolveStorage(storage) {
  if (storage === undefined || storage === null) storage = DEFAULT_STORAGE;
  if (storage === 'auto') {
    for (const name of AUTO) if (!(await BACKENDS[name].unavailable())) return name;
  }
  if (!has(storage)) {
    const names = Object.keys(BACKENDS).map((k) => `'${k}'`).join(', ');
    throw new TypeError(`storage must be ${names} or 'auto', not ${String(storage)}`);
  }
  const why = await BACKENDS[storage].unavailable();
  if (why) throw new SqliteError(why, SQLITE_CANTOPEN);
  return storage;
}

// Open the storage of database `name`: { storage, backend }.  A backend's
// own error (carrying its SQLite code) becomes an SqliteError with it as
// the cause.
export async function openStorage(name, options) {
  const storage = await resolveStorage(options.storage);
  try {
    return { storage, backend: await BACKENDS[storage].open(name, options) };
  } catch (e) {
    if (e && e.name !== 'SqliteError' && typeof e.sqliteCode === 'number') throw new SqliteError(e.message, e.sqliteCode, { cause: e });
    throw e;
  }
}
