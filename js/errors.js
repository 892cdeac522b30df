// The error type of every API: code is SQLite's extended result code,
// message SQLite's text.  Shared by the main thread (index.js) and the
// engine in the Worker (engine.js), which rebuild it on their side of
// postMessage.
export class SqliteError extends Error {
  constructor(message, code) {
    super(message);
    this.name = 'SqliteError';
    this.code = code;
    this.primaryCode = code & 0xff;
  }
}
