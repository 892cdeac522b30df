// Leak-check worker: runs the temp-file workloads over OPFS with tempcrypt
// on or off, and spies on every buffer the VFS under tempcrypt writes.
// The marker arrives in the first message (built at run time by the test
// runner), so it never sits in a cached script.
import { open, probeOpfs } from '../../dist/worker.js';
import { makeSpy, countIn } from '../../js/demo/analysis.js';
import { loadWorkloads, workloadsFor, baseSql, markerFunctions } from '../../js/demo/workloads.js';

const enc = new TextEncoder();

// The spy is the demo's (js/demo/analysis.js): it keeps a shadow image of
// every temp file (so a marker split across two writes is still seen) and
// counts marker hits per file.  Here the counts are summed by file kind,
// and the bytes written are counted by kind for every file (the main
// database's too, opened before the spy).
function kindSpy(needle) {
  const s = makeSpy(needle, { dropClosed: true });
  const bytes = {};          // kind -> bytes written
  let tempWrites = 0;
  const byKind = (value) => {
    const out = {};
    for (const f of s.all) if (f.temp && value(f)) out[f.kind] = (out[f.kind] || 0) + value(f);
    return out;
  };
  const spy = (ev) => {
    if (ev.op === 'write') {
      bytes[ev.kind] = (bytes[ev.kind] || 0) + ev.length;
      if (ev.temp) tempWrites++;
    }
    s.observer(ev);
  };
  return {
    spy, bytes,
    get hits() { return byKind((f) => f.hits); },     // kind -> hits in temp files
    get opened() { return byKind(() => 1); },         // kind -> temp files opened
    get tempWrites() { return tempWrites; },
  };
}

// The workloads of the leak check: those of the workload table marked
// "leak" (test/workloads.txt), on their base of LEAK_ROWS rows, each with
// temp_store=FILE and a small page cache so that temp data spills to files.
const LEAK_ROWS = 6000;
const SETTINGS = 'PRAGMA temp_store=FILE; PRAGMA cache_size=8; PRAGMA temp.cache_size=8;';
async function workloads() {
  const table = await loadWorkloads();
  const list = workloadsFor(table, 'leak');
  return [
    ['setup', (db) => { db.exec(SETTINGS); db.exec(baseSql(table, list[0].on, LEAK_ROWS)); }],
    ...list.map((w) => [w.id, (db) => { if (w.setup) db.exec(w.setup); db.exec(w.sql); }]),
  ];
}

self.onmessage = async ({ data }) => {
  const { cmd, name, marker, enabled, budget } = data;
  try {
    if (cmd === 'leak') {
      const needle = enc.encode(marker);
      const s = kindSpy(needle);
      // budget: the memory tier's (0: every temp file in OPFS; small: temp
      // files spill part-way); undefined keeps the default.
      const db = await open(name, { storage: 'opfs', minFree: 24, tempBudget: budget });
      const before = db.tempcrypt.setEnabled(enabled);
      markerFunctions(db, marker);
      db.observe(s.spy);
      const times = {}, perWorkload = {};
      for (const [label, fn] of await workloads()) {
        const t0 = performance.now();
        const h0 = Object.values(s.hits).reduce((a, b) => a + b, 0);
        const o0 = Object.values(s.opened).reduce((a, b) => a + b, 0);
        const w0 = s.tempWrites;
        await db.reserve(24);
        fn(db);
        times[label] = Math.round(performance.now() - t0);
        perWorkload[label] = {
          ms: times[label], tempFiles: Object.values(s.opened).reduce((a, b) => a + b, 0) - o0,
          tempWrites: s.tempWrites - w0, hits: Object.values(s.hits).reduce((a, b) => a + b, 0) - h0,
        };
      }
      await db.reserve(0);
      // The OPFS layer's own view after the run: scan every pool file.
      const poolHits = { temp: 0, persistent: 0 };
      for (const f of db.files.scan()) {
        const n = countIn(f.bytes, needle);
        if (f.path === null || f.path.startsWith('/tmp/')) poolHits.temp += n; else poolHits.persistent += n;
      }
      // Keep the db (and its temp files) open: the tab is closed next.
      self.keep = db;
      self.postMessage({ ok: true, rows: LEAK_ROWS, wasEnabled: before, hits: s.hits, bytes: s.bytes, opened: s.opened,
        tempWrites: s.tempWrites, stats: db.tempcrypt.stats(), budget: db.tempcrypt.budget(), poolHits, times, perWorkload, files: db.files.list() });
    } else if (cmd === 'pool') {
      // A statement that needs more temp files than the pool has free fails
      // cleanly (SQLITE_CANTOPEN, saying why); reserve() makes room.  (No
      // memory tier: the temp databases must each take a pool file.)
      const db = await open(name, { storage: 'opfs', minFree: 1, tempBudget: 0 });
      db.exec(`PRAGMA temp_store=FILE; PRAGMA cache_size=8; PRAGMA temp.cache_size=8;
               CREATE TABLE IF NOT EXISTS p(v, pad); DELETE FROM p;`);
      db.run(`INSERT INTO p SELECT 'row' || n, randomblob(400)
              FROM (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n < 6000) SELECT n FROM c)`);
      // Three attached temp databases, each spilled to its own file, all open
      // at once within one call (no top-up in between).
      const heavy = () => {
        db.exec(`ATTACH '' AS a1; ATTACH '' AS a2; ATTACH '' AS a3;
                 PRAGMA a1.cache_size=8; PRAGMA a2.cache_size=8; PRAGMA a3.cache_size=8;
                 CREATE TABLE a1.x AS SELECT * FROM p; CREATE TABLE a2.x AS SELECT * FROM p;
                 CREATE TABLE a3.x AS SELECT * FROM p;`);
        return db.query('SELECT (SELECT count(*) FROM a1.x) + (SELECT count(*) FROM a2.x) + (SELECT count(*) FROM a3.x) AS n')[0].n;
      };
      let err = null;
      try { heavy(); } catch (e) { err = { code: e.code, message: e.message }; }
      for (const a of ['a1', 'a2', 'a3']) { try { db.exec(`DETACH ${a}`); } catch { /* not attached */ } }
      await db.reserve(16);
      const n = heavy();
      const ic = db.query('PRAGMA integrity_check')[0].integrity_check;
      db.close();
      self.postMessage({ ok: true, err, n, ic });
    } else if (cmd === 'nosync') {
      // What WebKit outside Apple's ports does: the method exists, the call
      // rejects.  The default storage (OPFS) and 'opfs' must be a clear
      // error, never a silent fallback; 'auto' becomes memory and says so.
      FileSystemFileHandle.prototype.createSyncAccessHandle = () => Promise.reject(new DOMException('sync access handles are not supported (simulated)', 'NotSupportedError'));
      const missing = await probeOpfs();
      const refused = async (options) => {
        try { (await open(name, options)).close(); return null; } catch (e) { return { code: e.code, message: e.message }; }
      };
      const errDefault = await refused(undefined);
      const err = await refused({ storage: 'opfs' });
      const db = await open(name, { storage: 'auto' });
      const storage = db.storage;
      db.exec('CREATE TABLE t(x); INSERT INTO t VALUES (7)');
      const x = db.query('SELECT x FROM t')[0].x;
      db.close();
      self.postMessage({ ok: true, missing, storage, x, err, errDefault });
    } else if (cmd === 'reopen') {
      const db = await open(name, { storage: 'opfs' });
      const rows = db.query('SELECT count(*) AS n FROM t');
      const check = db.query('PRAGMA integrity_check');
      const wiped = db.files.wipedAtOpen;
      const files = db.files.list();
      db.close();
      self.postMessage({ ok: true, rows: rows[0].n, integrity: check[0].integrity_check, wiped, files });
    }
  } catch (e) {
    self.postMessage({ ok: false, error: `${e.name}: ${e.message} (code ${e.code})`, stack: e.stack });
  }
};
