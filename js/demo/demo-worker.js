// The demo's dedicated Worker: runs one workload over OPFS with tempcrypt
// on or off, and watches every storage call underneath tempcrypt through
// the package's observer (so it sees exactly the bytes that reach OPFS).
//
// Messages in:  { cmd: 'probe' }
//               { cmd: 'run', marker, workload, rows, enabled, budget }
//               (budget: the memory tier's, in bytes)
// Messages out: { ok: true, ... } or { ok: false, error, code }
import { open, probeOpfs, deletePool, POOL_ROOT } from '../../dist/worker.js';
import { SQLITE_OPEN_MAIN_DB, SQLITE_OPEN_MAIN_JOURNAL, SQLITE_OPEN_SUPER_JOURNAL, SQLITE_OPEN_WAL } from '../../dist/shared/constants.js';
import { countIn, markAll, entropy, sampleRows, makeSpy } from './analysis.js';
import { PRAGMAS, loadWorkloads, workloadsFor, baseSql, markerFunctions } from './workloads.js';

const DB_NAME = 'demo.db';
const POOL = 'tempcrypt-demo';
const enc = new TextEncoder();
// The demo's workloads, from the workload table (test/workloads.txt).
const TABLE = loadWorkloads();
const demoWorkloads = async () => workloadsFor(await TABLE, 'demo');

// A fresh database of `rows` rows for workload w: the table's base, the
// marker functions, then the workload's own setup.
function build(db, table, w, marker, rows) {
  db.exec(PRAGMAS);
  markerFunctions(db, marker);
  db.exec(baseSql(table, w.on, rows));
  if (w.setup) db.exec(w.setup);
}

// What a pool file holds, from the open flags it was opened with.
function classOf({ path, flags }) {
  if (path === null) return 'free';
  if (flags & SQLITE_OPEN_MAIN_DB) return 'main-db';
  if (flags & (SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_SUPER_JOURNAL | SQLITE_OPEN_WAL)) return 'journal';
  return 'temp';
}

function tally(list) {
  const by = {};
  for (const x of list) {
    const b = by[x.cls] || (by[x.cls] = { files: 0, bytes: 0, hits: 0 });
    b.files++; b.bytes += x.size; b.hits += x.hits;
  }
  return by;
}

// Everything in OPFS, read back through the File API after the database
// is closed (no access handle holds a lock then).
async function scanAllOpfs(needle, poolClass, poolDir) {
  const root = await navigator.storage.getDirectory();
  const out = [];
  async function walk(dir, prefix) {
    for await (const [name, h] of dir.entries()) {
      const path = `${prefix}/${name}`;
      if (h.kind === 'directory') { await walk(h, path); continue; }
      let bytes;
      try { bytes = new Uint8Array(await (await h.getFile()).arrayBuffer()); } catch { bytes = null; }
      // A pool file made after the list was taken holds nothing yet.
      const cls = poolClass.get(path) ?? (path.startsWith(poolDir) ? 'free' : 'other');
      out.push({ path, cls, size: bytes ? bytes.length : null, hits: bytes ? countIn(bytes, needle) : 0, locked: !bytes });
    }
  }
  await walk(root, '');
  return out;
}

async function run({ marker, workload, rows, enabled, budget }) {
  const w = (await demoWorkloads()).find((x) => x.id === workload);
  if (!w) throw new Error(`unknown workload ${workload}`);
  const needle = enc.encode(marker);
  if (needle.length < 6) throw new Error('the secret must be at least 6 bytes long');

  // A fresh pool for every run, so the scans below show this run only.
  try {
    await deletePool(POOL);
  } catch (e) {
    if (e && e.name === 'NoModificationAllowedError') {
      throw Object.assign(new Error('the demo is open in another tab (its OPFS files are locked): close the other tab and try again'), { code: 5 });
    }
    throw e;
  }
  const db = await open(DB_NAME, { storage: 'opfs', pool: POOL, minFree: 24, tempBudget: budget });
  const result = { workload, rows, enabled, budget: db.tempcrypt.budget() };
  try {
    const s0 = performance.now();
    build(db, await TABLE, w, marker, rows);
    result.setupMs = performance.now() - s0;
    result.wasEnabled = db.tempcrypt.setEnabled(enabled);
    db.tempcrypt.stats(true);
    await db.reserve(24);

    const spy = makeSpy(needle);
    db.observe(spy.observer);
    const t0 = performance.now();
    try {
      db.exec(w.sql);
    } finally {
      db.observe(null);
    }
    result.wallMs = performance.now() - t0;
    result.spyMs = spy.spyMs;
    result.ms = Math.max(0, result.wallMs - spy.spyMs);
    result.stats = db.tempcrypt.stats();

    // Every temp file: totals, entropy, marker hits, and a byte map.
    const total = new Float64Array(256);
    result.temp = [];
    result.named = [];
    for (const f of spy.all) {
      if (!f.temp) {
        result.named.push({ name: f.name, kind: f.kind, written: f.written, read: f.read });
        continue;
      }
      for (let i = 0; i < 256; i++) total[i] += f.hist[i];
      const mask = markAll(f.image, f.size, needle);
      result.temp.push({
        name: f.name, kind: f.kind, flags: f.flags, open: f.open,
        written: f.written, read: f.read, writes: f.writes, reads: f.reads, size: f.size,
        hits: f.hits, entropy: entropy(f.hist), map: sampleRows(f.image, mask, f.size),
      });
    }
    result.entropy = entropy(total);
    result.hits = result.temp.reduce((a, f) => a + f.hits, 0);
    result.written = result.temp.reduce((a, f) => a + f.written, 0);
    result.read = result.temp.reduce((a, f) => a + f.read, 0);

    // The OPFS pool right after the run, connection still open (a temp
    // table is still there; sorter files are already closed and wiped).
    const headerSize = db.files.headerSize;
    const pool = db.files.scan().map((p) => {
      const data = p.bytes.subarray(headerSize);
      return { file: p.file, cls: classOf(p), size: data.length, hits: countIn(p.bytes, needle) };
    });
    result.poolOpen = tally(pool);
    const poolClass = new Map(db.files.list().map((p) => [`/${POOL_ROOT}/${POOL}/${p.file}`, classOf(p)]));
    await db.close();

    // Everything left in OPFS once the connection is closed.
    const after = await scanAllOpfs(needle, poolClass, `/${POOL_ROOT}/${POOL}/`);
    result.opfsAfter = tally(after.map((x) => (x.cls === 'temp' ? { ...x, cls: 'free' } : x)));
    result.opfsAfterFiles = after.length;
    result.opfsAfterBytes = after.reduce((a, x) => a + (x.size || 0), 0);
    return result;
  } finally {
    await db.close();
  }
}

// Run every workload once in memory (small), so that the browser has
// compiled SQLite's hot code before the first measured run: otherwise the
// first run (plaintext) would look slower than it is.
async function warmUp() {
  const t0 = performance.now();
  const db = await open('warmup.db', { storage: 'memory' });
  try {
    const list = await demoWorkloads();
    build(db, await TABLE, list[0], 'warm-up only', 4000);
    for (const w of list) db.exec(w.sql);
  } finally {
    db.close();
  }
  return performance.now() - t0;
}

self.onmessage = async ({ data }) => {
  try {
    if (data.cmd === 'probe') {
      const missing = await probeOpfs();
      self.postMessage({ ok: true, opfs: !missing, missing });
    } else if (data.cmd === 'warmup') {
      self.postMessage({ ok: true, ms: await warmUp() });
    } else if (data.cmd === 'run') {
      const r = await run(data);
      const transfer = r.temp.flatMap((f) => [f.map.bytes.buffer, f.map.marks.buffer]);
      self.postMessage({ ok: true, result: r }, transfer);
    }
  } catch (e) {
    self.postMessage({ ok: false, error: `${e && e.message || e}`, code: e && e.code, name: e && e.name });
  }
};
