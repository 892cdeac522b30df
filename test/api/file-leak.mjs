// Leak check of storage 'file': temp-heavy workloads whose rows carry a
// random marker; every byte the file backend writes to a temp file (the
// storage observer, a spy below tempcrypt) and every file it leaves in its
// directory (a raw scan, while the database is open and after close) must
// be free of the marker.  The same run with tempcrypt switched off must
// find it, so the check can fail.  tempcrypt on runs twice: without the
// memory tier (tempBudget 0: every temp file on disk) and with a budget so
// small that the temp files spill part-way.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { open } from '../../dist/worker.js';

function count(buf, needle) {
  let n = 0;
  for (let i = buf.indexOf(needle); i >= 0; i = buf.indexOf(needle, i + 1)) n++;
  return n;
}

// Every file under dir: { name, hits }.
function rawScan(dir, needle) {
  return fs.readdirSync(dir).map((f) => ({ name: f, hits: count(fs.readFileSync(path.join(dir, f)), needle) }));
}

const SMALL_BUDGET = 256 * 1024;

async function runOnce(dir, enabled, tempBudget = 0) {
  fs.rmSync(dir, { recursive: true, force: true });
  const marker = `TCLEAK-${crypto.randomBytes(12).toString('hex')}-MARK`;
  const needle = Buffer.from(marker);
  let spyHits = 0, tempWrites = 0;
  const tempFiles = new Set();
  const db = await open('leak.db', { storage: 'file', dir, tempBudget, observer: (ev) => {
    if (ev.op !== 'write' || !ev.temp) return;
    tempWrites++;
    tempFiles.add(ev.name);
    spyHits += count(Buffer.from(ev.data.buffer, ev.data.byteOffset, ev.data.byteLength), needle);
  } });
  db.tempcrypt.setEnabled(enabled);
  db.exec(`PRAGMA temp_store=FILE; PRAGMA cache_size=8; PRAGMA temp.cache_size=4;
    CREATE TABLE t(id INTEGER PRIMARY KEY, s TEXT);
    INSERT INTO t(s) WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<20000)
      SELECT printf('%s row %d %s', '${marker}', n, hex(randomblob(40))) FROM c;
    CREATE TEMP TABLE tt AS SELECT * FROM t;`);
  db.query('SELECT s FROM t ORDER BY substr(s, 60)');                  // sorter spill
  db.exec('CREATE INDEX t_s ON t(substr(s, 50))');                     // index build: sorter
  db.query('SELECT count(*) FROM (SELECT DISTINCT substr(s, 40) FROM t)');
  await db.import(db.export());                                        // staging file: a named database, like the main one
  for await (const c of db.exportStream()) void c;
  const whileOpen = rawScan(dir, needle);
  const stats = db.tempcrypt.stats();
  db.close();
  const afterClose = rawScan(dir, needle);
  return { marker, spyHits, tempWrites, tempFiles: tempFiles.size, whileOpen, afterClose, stats };
}

export async function leakCheck(dir) {
  const out = [];
  const check = (ok, name, detail) => out.push({ name: `file leak: ${name}`, ok: !!ok, error: ok ? undefined : detail });
  const off = await runOnce(path.join(dir, 'off'), false);
  const tempHits = (scan) => scan.filter((f) => f.name.startsWith('.sqlite-tempcrypt-tmp-')).reduce((n, f) => n + f.hits, 0);
  const mainHits = (scan) => scan.filter((f) => f.name === 'leak.db').reduce((n, f) => n + f.hits, 0);
  // With the wasm build's 16 MiB default cache (SQLITE_DEFAULT_CACHE_SIZE,
  // which DISTINCT's ephemeral table takes whatever the pragmas say) the TEMP
  // table and the sorter spill here; the browser leak suite covers the rest.
  for (const budget of [0, SMALL_BUDGET]) {
    const on = await runOnce(path.join(dir, `on-${budget}`), true, budget);
    const at = `(tempBudget ${budget})`;
    check(on.tempFiles >= 2 && on.tempWrites > 0, `the TEMP table and the sorter spilled to temp files ${at}`, JSON.stringify({ tempFiles: on.tempFiles, tempWrites: on.tempWrites }));
    if (budget > 0) {
      check(on.stats.nMemPeak > 0 && on.stats.nMemPeak <= budget && on.stats.nSpilled > 0 && on.stats.nSpilled < on.stats.nLogicalWrite,
        `the temp files spilled part-way ${at}`, JSON.stringify(on.stats));
    }
    check(on.spyHits === 0, `no marker in any temp-file write (tempcrypt on) ${at}`, `${on.spyHits} hits`);
    check(on.whileOpen.some((f) => f.name.startsWith('.sqlite-tempcrypt-tmp-')) && tempHits(on.whileOpen) === 0,
      `raw scan while open: temp files on disk, no marker in them ${at}`, JSON.stringify(on.whileOpen));
    check(mainHits(on.whileOpen) > 0, `raw scan sees the main database's plaintext (the scan works) ${at}`, JSON.stringify(on.whileOpen));
    check(on.afterClose.every((f) => f.name === 'leak.db'), `after close only the database is left (no temp or staging files) ${at}`, JSON.stringify(on.afterClose));
    check(on.stats.nFileEncrypted >= 2 && on.stats.nFilePlain === 0, `every temp file encrypted ${at}`, JSON.stringify(on.stats));
  }
  check(off.spyHits > 0 && tempHits(off.whileOpen) > 0, 'with tempcrypt off the spy and the raw scan find the marker (the check can fail)',
    JSON.stringify({ spy: off.spyHits, raw: off.whileOpen }));
  fs.rmSync(dir, { recursive: true, force: true });
  return out;
}
