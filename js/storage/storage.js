// The storage under a database: which backend (./backends.js) and opened
// how.  Never a silent fallback: the default is 'opfs' in a browser and
// 'file' in Node (real files, as better-sqlite3 and node:sqlite open
// them), 'memory' for the name ':memory:'; an unavailable storage is an
// error that says why; only an explicit 'auto' takes the first of AUTO
// that works here.
import * as BACKENDS from './backends.js';
import { SqliteError, openError } from '../shared/errors.js';
import { SQLITE_CANTOPEN } from '../shared/constants.js';
import { isNode } from '../shared/platform.js';

export { BACKENDS };
export const DEFAULT_STORAGE = isNode ? 'file' : 'opfs';
export const MEMORY_NAME = ':memory:';
export const AUTO = ['opfs', 'memory'];

const has = (name) => typeof name === 'string' && Object.prototype.hasOwnProperty.call(BACKENDS, name);

// The backend name to use for open()'s `storage` option (and the
// database's name, which may be ':memory:').
export async function resolveStorage(storage, name) {
  if (storage === undefined || storage === null) storage = name === MEMORY_NAME ? 'memory' : DEFAULT_STORAGE;
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
// own error (carrying its SQLite code) becomes an SqliteError (openError).
export async function openStorage(name, options) {
  const storage = await resolveStorage(options.storage, name);
  try {
    return { storage, backend: await BACKENDS[storage].open(name, options) };
  } catch (e) {
    if (e && e.name !== 'SqliteError' && typeof e.sqliteCode === 'number') throw openError(e, name);
    throw e;
  }
}
