// "Is my temp data really encrypted?" answered through the main-thread
// API, in every browser engine (./async-api.js's run()) and in Node: a
// marker that lives only in a TEMP table, looked for in what reached
// storage, two ways: SELECT ... FROM tempcrypt_files(marker) (the temp
// files' stored bytes, read back through the storage) and db.scanFiles()
// (every stored file's raw bytes).  tempcrypt on: 0 hits; off (the
// control, db.tempcrypt.setEnabled(false)): found.
import { open } from '../../dist/index.js';
import { eq, ok } from './assert.js';

// Occurrences of needle (bytes) in bytes.
export function countBytes(bytes, needle) {
  let n = 0;
  outer: for (let i = 0; i + needle.length <= bytes.length; i++) {
    for (let j = 0; j < needle.length; j++) if (bytes[i + j] !== needle[j]) continue outer;
    n++;
  }
  return n;
}

export const marker = () => `SEEIT-${Math.random().toString(36).slice(2, 10)}-${Date.now().toString(36)}`;

// The SQL of "see it yourself" (README): a TEMP table of 1000 rows that
// carry the marker, with the memory tier off so that it reaches storage.
export const seeItSql = (m) => `PRAGMA temp_store=FILE; PRAGMA temp.cache_size=2;
  CREATE TEMP TABLE secret AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000)
    SELECT '${m}' || n AS s FROM c;`;
export const EVIDENCE = 'SELECT kind, encrypted, in_storage, found FROM tempcrypt_files(?) WHERE open AND kind = \'temp_db\'';

// db: an open Database (tempBudget 0).  Returns { rows, scanned }: the
// temp_db rows of tempcrypt_files(marker) and the marker's hits in
// db.scanFiles() (null for memory storage, which stores no files).
export async function lookFor(db, m, storage) {
  await db.exec(seeItSql(m));
  const rows = await db.query(EVIDENCE, [m]);
  let scanned = null;
  if (storage !== 'memory') {
    const needle = new TextEncoder().encode(m);
    scanned = 0;
    for (const f of await db.scanFiles()) scanned += countBytes(f.bytes, needle);
  }
  return { rows, scanned };
}

export const tests = {
  async 'see it yourself: tempcrypt_files(marker) and scanFiles() find nothing encrypted, the control finds it'(storage) {
    for (const enabled of [true, false]) {
      const db = await open(`evidence-${enabled}-${storage}.db`, { storage, tempBudget: 0 });
      try {
        await db.tempcrypt.setEnabled(enabled);
        const m = marker();
        const { rows, scanned } = await lookFor(db, m, storage);
        eq(rows.length, 1, `one open temp_db (tempcrypt ${enabled ? 'on' : 'off'})`);
        const [r] = rows;
        eq([r.kind, r.encrypted, r.in_storage], ['temp_db', enabled ? 1 : 0, 1], 'the TEMP database is in storage');
        if (enabled) {
          eq(r.found, 0, 'tempcrypt on: the marker is not in the stored temp file');
          if (scanned !== null) eq(scanned, 0, 'tempcrypt on: the marker is in no stored file');
        } else {
          ok(r.found >= 1000, `control: the marker is in the stored temp file (${r.found})`);
          if (scanned !== null) ok(scanned >= 1000, `control: scanFiles() finds the marker (${scanned})`);
        }
      } finally {
        await db.tempcrypt.setEnabled(true);
        await db.close();
      }
    }
  },
};
