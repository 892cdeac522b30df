// Import and export through the main-thread API: chunks the caller keeps,
// input that is not bytes, whole and streamed round trips, damaged files.
// Part of the API tests (./async-api.js runs them); each throws on failure.
import { open } from '../../dist/index.js';
import { SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_MISUSE } from '../../dist/shared/constants.js';
import { eq, ok, rejects, sameBytes, readAll } from './assert.js';

export const tests = {
  // import() from a ReadableStream of the caller's own chunks: they are
  // copied, never handed over (they used to end up empty, detached).
  async importKeepsCallerChunks(storage) {
    const db = await open(`import-chunks-${storage}.db`, { storage });
    try {
      await db.exec('DROP TABLE IF EXISTS k; CREATE TABLE k(v); INSERT INTO k VALUES (7)');
      const image = await db.export();
      const chunks = [image.slice(0, 512), image.slice(512)];
      await db.import(new ReadableStream({ start(c) { for (const x of chunks) c.enqueue(x); c.close(); } }));
      eq(chunks.map((c) => c.length), [512, image.length - 512], "the caller's chunks are intact");
      ok(sameBytes(chunks[0], image.subarray(0, 512)), "and hold the caller's bytes");
      eq(await db.query('SELECT v FROM k'), [{ v: 7 }], 'imported');
    } finally { await db.close(); }
  },

  // import() of what is not bytes is a TypeError naming the sources it
  // takes (a string or an array of numbers used to become zero bytes).
  async importRefusesNonBytes(storage) {
    const db = await open(`import-nonbytes-${storage}.db`, { storage });
    try {
      await db.exec('DROP TABLE IF EXISTS k; CREATE TABLE k(v); INSERT INTO k VALUES (7)');
      for (const [what, source] of [['a string', 'SQLite format 3\0'], ['an array of numbers', [83, 81, 76]], ['an iterable of strings', ['abc']]]) {
        const e = await db.import(source).then(() => null, (err) => err);
        ok(e instanceof TypeError && /Uint8Array/.test(e.message) && /Blob/.test(e.message), `${what}: a TypeError naming the sources: ${e && `${e.name}: ${e.message}`}`);
        eq(await db.query('SELECT v FROM k'), [{ v: 7 }], `${what}: the database is intact`);
      }
    } finally { await db.close(); }
  },

  async importExport(storage, ctx) {
    const src = await open(`imp-src-${storage}.db`, { storage });
    let image;
    try {
      await src.exec(`DROP TABLE IF EXISTS k; CREATE TABLE k(id INTEGER PRIMARY KEY, v TEXT);
        INSERT INTO k(v) WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<3000) SELECT printf('value %d', n) FROM c`);
      image = await src.export();
      const parts = await readAll(src.exportStream({ pagesPerChunk: 7 }));
      ok(parts.length > 1, `exportStream gave several chunks (${parts.length})`);
      const joined = new Uint8Array(parts.reduce((n, c) => n + c.length, 0));
      let at = 0;
      for (const c of parts) { joined.set(c, at); at += c.length; }
      ok(sameBytes(joined, image), `exportStream equals export() (${joined.length} vs ${image.length} bytes)`);
      eq(await src.query('SELECT count(*) AS n FROM k'), [{ n: 3000 }], 'usable after a streamed export');
      // A streamed export, read whole or cancelled, leaves no TEMP database
      // behind: a temp_store change inside a transaction works as on a
      // connection that never exported (SQLite refuses it once TEMP exists).
      const cancelled = src.exportStream({ pagesPerChunk: 1 }).getReader();
      await cancelled.read();
      await cancelled.cancel();
      for (const ts of ['FILE', 'MEMORY', 'DEFAULT']) await src.exec(`BEGIN; PRAGMA temp_store=${ts}; COMMIT`);
      eq((await src.query('PRAGMA database_list')).map((r) => r.name), ['main'], 'no TEMP database after exportStream');
      // A stream nobody reads: close() ends it instead of waiting for ever.
      const unread = src.exportStream({ pagesPerChunk: 1 });
      const reader = unread.getReader();
      await reader.read();
      const closed = await Promise.race([src.close().then(() => 'closed'), new Promise((r) => setTimeout(() => r('still waiting'), 5000))]);
      eq(closed, 'closed', 'close() with an export stream left unread');
      const after = await reader.read().then(() => null, (e) => e);
      ok(after && after.code === SQLITE_MISUSE, `the unread stream ends with SQLITE_MISUSE: ${after && after.message}`);
    } finally { await src.close(); }

    const db = await open(`imp-dst-${storage}.db`, { storage });
    try {
      await db.exec('DROP TABLE IF EXISTS old; CREATE TABLE old(x); INSERT INTO old VALUES (42)');
      const intact = async (what) => {
        eq(await db.query('SELECT x FROM old'), [{ x: 42 }], `${what}: old database intact`);
        eq(await db.query('PRAGMA integrity_check'), [{ integrity_check: 'ok' }], `${what}: integrity`);
      };
      // Damaged inputs: each a clear error, the old database untouched.
      let e = await rejects(db.import(new TextEncoder().encode('this is not a database at all, not even close'.repeat(20))), SQLITE_NOTADB, 'garbage');
      ok(/not an SQLite database/.test(e.message), e.message);
      await intact('garbage');
      e = await rejects(db.import(image.slice(0, image.length - 1000)), SQLITE_CORRUPT, 'truncated');
      ok(/truncated/.test(e.message), e.message);
      await intact('truncated');
      const bad = image.slice();
      const pageSize = (bad[16] << 8) | bad[17];
      for (let i = 2 * pageSize; i < 2 * pageSize + 64; i++) bad[i] = 0xA5;   // page 3: a b-tree page of k
      e = await rejects(db.import(bad), undefined, 'damaged page');
      ok(e.primaryCode === SQLITE_CORRUPT || e.primaryCode === SQLITE_NOTADB, `damaged page: SQLITE_CORRUPT (${e.code}: ${e.message})`);
      await intact('damaged page');
      // One more page, counted in the header, that no b-tree uses: every
      // read succeeds, only quick_check tells.
      const extra = new Uint8Array(image.length + pageSize);
      extra.set(image);
      new DataView(extra.buffer).setUint32(28, image.length / pageSize + 1);
      e = await rejects(db.import(extra), SQLITE_CORRUPT, 'a page never used');
      ok(/quick_check: [^]*never used/.test(e.message), e.message);
      await intact('a page never used');
      // Good imports from every kind of source.
      const kinds = {
        Uint8Array: () => image, Blob: () => new Blob([image]), Response: () => new Response(image),
        ReadableStream: () => new Blob([image]).stream(), iterable: () => [image.subarray(0, 1000), image.subarray(1000)],
      };
      for (const [kind, source] of Object.entries(kinds)) {
        await db.exec('DROP TABLE IF EXISTS old; CREATE TABLE old(x); INSERT INTO old VALUES (42)');
        await db.import(source());
        eq(await db.query('SELECT count(*) AS n, max(v) AS m FROM k'), [{ n: 3000, m: 'value 999' }], `import from ${kind}`);
        eq((await db.query("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'old'"))[0].n, 0, `${kind}: replaced, not merged`);
      }
      eq(image.length > 0 && image[0], 83, 'the source bytes are still there after the imports');
      eq(await db.query('PRAGMA integrity_check'), [{ integrity_check: 'ok' }], 'integrity after imports');
      eq((await db.files()).list.filter((f) => f.path && /tcimport/.test(f.path)), [], 'no staging file left');
      if (ctx && ctx.nativeDb) {
        await db.import(ctx.nativeDb);
        eq(await db.query('SELECT name, qty FROM items ORDER BY id'), [{ name: 'apple', qty: 3 }, { name: 'pear', qty: 5 }], 'a database made by the native sqlite3 shell');
        eq(await db.query("SELECT id FROM items INDEXED BY items_name WHERE name = 'pear'"), [{ id: 2 }], 'its index');
        eq(await db.query('PRAGMA page_size'), [{ page_size: 8192 }], 'its page size');
        eq(await db.query('SELECT count(*) AS n, sum(length(b)) AS s FROM filler'), [{ n: 300, s: 300000 }], 'its data');
        eq(await db.query('PRAGMA integrity_check'), [{ integrity_check: 'ok' }], 'integrity after the native import');
      } else {
        throw new Error('no database from the native sqlite3 shell (make builds build/api-fixtures/native.db)');
      }
    } finally { await db.close(); }
    const reopened = await open(`imp-new-${storage}.db`, { storage, import: new Blob([image]) });
    try {
      eq(await reopened.query('SELECT count(*) AS n FROM k'), [{ n: 3000 }], 'open(name, { import })');
    } finally { await reopened.close(); }
  },
};
