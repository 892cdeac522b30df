// One engine of the browser benchmark (test/bench/browser.mjs) in a
// dedicated Worker: ours (sqlite-tempcrypt, dist/worker.js, over its OPFS
// pool) or the official @sqlite.org/sqlite-wasm over its opfs-sahpool VFS.
// The page sends { id, op, ...args } and gets { id, result } or { id, error }.
//
// Bytes that reached OPFS are counted below each engine, at the
// FileSystemSyncAccessHandle every OPFS file goes through: everything but
// the main database's handle (the one the setup wrote most to) is a temp
// file, since the benchmark runs with journal_mode=OFF.  The wasm heap's
// size is read from the instance's memory (it only grows, so it is the peak).

const io = new Map();      // access handle -> { read, write } bytes, calls and ms
let mainHandle = null;
for (const op of ['read', 'write']) {
  const orig = FileSystemSyncAccessHandle.prototype[op];
  FileSystemSyncAccessHandle.prototype[op] = function (buf, opts) {
    const t = performance.now();
    const n = orig.call(this, buf, opts);
    let c = io.get(this);
    if (!c) io.set(this, c = { read: 0, write: 0, calls: 0, ms: 0 });
    c.ms += performance.now() - t;
    c.calls++;
    c[op] += n;
    return n;
  };
}
// Bytes, calls and time of every handle but the main database's.
function tempIo() {
  const t = { bytes: 0, calls: 0, ms: 0 };
  for (const [h, c] of io) {
    if (h === mainHandle) continue;
    t.bytes += c.read + c.write;
    t.calls += c.calls;
    t.ms += c.ms;
  }
  return t;
}

let memory = null;         // the engine's WebAssembly.Memory
function keepMemory(x) {
  const inst = x instanceof WebAssembly.Instance ? x : x?.instance;
  const m = inst?.exports?.memory;
  if (m instanceof WebAssembly.Memory) memory = m;
  return x;
}
for (const f of ['instantiate', 'instantiateStreaming']) {
  const orig = WebAssembly[f];
  WebAssembly[f] = function (src, imports) {
    for (const v of Object.values(imports?.env ?? {})) if (v instanceof WebAssembly.Memory) memory = v;
    return orig.call(this, src, imports).then(keepMemory);
  };
}
const heapBytes = () => (memory ? memory.buffer.byteLength : 0);

let engine = null;         // { exec(sql), value(sql), setEnabled(on), stats(), close() }

async function openOurs(name, wasm, dist, options) {
  const { open } = await import(`${dist || '/dist'}/worker.js`);
  const db = await open(name, { storage: 'opfs', ...options, ...(wasm ? { wasm } : {}) });
  return {
    version: db.query('SELECT sqlite_version() AS v')[0].v,
    exec: (sql) => db.exec(sql),
    value: (sql) => Object.values(db.query(sql)[0] ?? {})[0],
    setEnabled: (on) => db.tempcrypt.setEnabled(on),
    stats: (reset) => db.tempcrypt.stats(reset),
    settle: () => db.reserve(),   // the OPFS pool topped up again
    close: () => db.close(),
  };
}

// memory: an in-memory database (":memory:"), no VFS below.
async function openOfficial(name, memory) {
  const { default: init } = await import('/node_modules/@sqlite.org/sqlite-wasm/dist/index.mjs');
  const sqlite3 = await init({ print: () => {}, printErr: () => {} });
  if (memory) {
    const db = new sqlite3.oo1.DB(':memory:');
    return { version: sqlite3.version.libVersion, exec: (sql) => db.exec(sql), value: (sql) => db.selectValue(sql),
      setEnabled: () => {}, stats: () => null, settle: () => {}, close: () => db.close() };
  }
  const pool = await sqlite3.installOpfsSAHPoolVfs({ name: 'bench-sahpool', initialCapacity: 12, clearOnInit: true });
  const db = new pool.OpfsSAHPoolDb(`/${name}`);
  return {
    version: sqlite3.version.libVersion,
    exec: (sql) => db.exec(sql),
    value: (sql) => db.selectValue(sql),
    setEnabled: () => {},
    stats: () => null,
    settle: () => {},
    close: () => { db.close(); pool.pauseVfs?.(); },
  };
}

// Statements of a workload line: all but the last run with exec, the last
// one's single value is the workload's result.
function runSql(sql) {
  const parts = sql.split(';').map((s) => s.trim()).filter(Boolean);
  const last = parts.pop();
  if (parts.length) engine.exec(parts.join('; '));
  const v = engine.value(last);
  return v === undefined || v === null ? 'NULL' : String(v);
}

const ops = {
  // options: more open() options of ours (the memory tier's budget).
  async open({ kind, name, wasm, dist, options, memory }) {
    engine = kind === 'official' ? await openOfficial(name, memory) : await openOurs(name, wasm, dist, options);
    return { heap: heapBytes(), version: engine.version ?? null };
  },
  // Build the table; the handle written most meanwhile is the main database.
  async setup({ pragmas, sql }) {
    io.clear();
    engine.exec(pragmas);
    engine.exec(sql);
    let best = -1;
    for (const [h, c] of io) if (c.write > best) { best = c.write; mainHandle = h; }
    await engine.settle();
    return { heap: heapBytes() };
  },
  // One timed run; pragmas (untimed) first.
  async run({ pragmas, sql, encrypt }) {
    engine.setEnabled(encrypt);
    if (pragmas) engine.exec(pragmas);
    engine.stats(true);
    const t0 = tempIo();
    const start = performance.now();
    const result = runSql(sql);
    const ms = performance.now() - start;
    const st = engine.stats(false);
    const t1 = tempIo();
    await engine.settle();
    return { ms, result, tempBytesBelow: t1.bytes - t0.bytes, tempCalls: t1.calls - t0.calls, tempIoMs: t1.ms - t0.ms,
      tempBytes: st ? Number(st.nLogicalWrite + st.nLogicalRead) : null,
      enciphered: st ? Number(st.nEnciphered) : null, tierPeak: st ? Number(st.nMemPeak) : null, heap: heapBytes() };
  },
  async close() { engine?.close(); engine = null; return true; },
};

onmessage = async ({ data }) => {
  try {
    postMessage({ id: data.id, result: await ops[data.op](data) });
  } catch (e) {
    postMessage({ id: data.id, error: `${e?.name ?? 'Error'}: ${e?.message ?? e}` });
  }
};
