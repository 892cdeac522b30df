// The error type of every API: code is SQLite's extended result code,
// message SQLite's text.  Shared by the main thread (index.js) and the
// engine in the Worker (engine.js), which rebuild it on their side of
// postMessage.
import { SQLITE_MISUSE } from './constants.js';

export class SqliteError extends Error {
  constructor(message, code) {
    super(message);
    this.name = 'SqliteError';
    this.code = code;
    this.primaryCode = code & 0xff;
  }
}

// A call on a closed database: thrown by the engine (Database.assertOpen),
// and by the main thread's Database, whose Worker is gone once closed.
export function closedError() {
  return new SqliteError('database is closed', SQLITE_MISUSE);
}
