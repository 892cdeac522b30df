// Faults below the JS layer, through the API (make test-faults): a
// storage backend wrapped so that its Nth call of one method fails, for
// every N, the way test/c/faulttest.c does below tempcrypt.  The calls are
// made through the main-thread API (AsyncDatabase over the Worker's
// Session and the sync API, in-process: the same code that runs behind
// postMessage), on memory and files in Node (./node.mjs) and on OPFS in
// browsers (./worker.js).
//
// Faults: xWrite, xRead (garbage in the buffer), xTruncate, xSync, xSize,
// xOpen, xDelete, xAccess each fail once (transient) or from the Nth call on
// until cleared (persistent); xWrite also fails as a full quota
// (QuotaExceededError: SQLITE_FULL) and as a short write (half the bytes
// stored, then an error); reserve() (the OPFS pool creating files with
// createSyncAccessHandle) rejects.
// After each run: every call either gave exactly the fault-free result or
// failed with an SqliteError carrying a numeric code (never wrong data,
// never a hang); with the fault cleared, on the same connection, the
// database is intact (integrity_check) and holds exactly the state before
// or after the call that failed, and takes a write; reopened from its
// storage (files, OPFS) it is the same again.

const SQLITE_CANTOPEN = 14;

const FAULTS = [
  ['xWrite', 'once'], ['xWrite', 'persist'], ['xWrite', 'full'], ['xWrite', 'short'],
  ['xRead', 'once'], ['xRead', 'persist'], ['xTruncate', 'once'], ['xTruncate', 'persist'],
  ['xSync', 'once'], ['xSync', 'persist'], ['xSize', 'once'], ['xSize', 'persist'],
  ['xOpen', 'once'], ['xOpen', 'persist'], ['xDelete', 'once'], ['xAccess', 'once'], ['reserve', 'once'],
];
const METHODS = [...new Set(FAULTS.map(([m]) => m))];

// A backend whose calls are counted and fail as plan says ({ method, n,
// mode }); clear() ends the fault.  Everything else passes through.
export function faulty(backend, plan) {
  const counts = Object.fromEntries(METHODS.map((m) => [m, 0]));
  const state = { counts, fired: 0, plan };
  const fails = (m) => state.plan && state.plan.method === m &&
    (counts[m] === state.plan.n || (state.plan.mode === 'persist' && counts[m] >= state.plan.n));
  const proxy = new Proxy(backend, {
    get(target, prop) {
      const v = Reflect.get(target, prop);
      if (typeof v !== 'function') return v;
      if (!METHODS.includes(prop)) return v.bind(target);
      return (...args) => {
        if (state.paused) return v.apply(target, args);
        counts[prop]++;
        if (!fails(prop)) return v.apply(target, args);
        state.fired++;
        const mode = state.plan.mode;
        if (prop === 'reserve') return Promise.reject(new Error('injected: cannot create a storage file'));
        if (prop === 'xRead') args[1].fill(0xa5);
        if (prop === 'xWrite' && mode === 'short') {
          v.call(target, args[0], args[1].subarray(0, args[1].length >> 1), args[2]);
          throw new Error('injected: short write');
        }
        if (mode === 'full') throw Object.assign(new Error('injected: quota exceeded'), { name: 'QuotaExceededError' });
        throw new Error(`injected: ${prop} failed`);
      };
    },
  });
  return { backend: proxy, state, clear() { state.plan = null; } };
}

// The workload: each step one atomic API call (or one that changes
// nothing), returning what is compared with the fault-free run.
const ROWS = "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 300) ";
const STEPS = [
  ['schema', (db) => db.transaction((tx) => tx.exec('CREATE TABLE f(id INTEGER PRIMARY KEY, x BLOB, y TEXT); CREATE INDEX fy ON f(y)'))],
  ['insert', (db) => db.run(`${ROWS}INSERT INTO f(x, y) SELECT zeroblob(300 + i % 50), printf('%.12d', (i * 2654435761) % 1000003) FROM c`)],
  ['transaction', (db) => db.transaction(async (tx) => {
    await tx.run("UPDATE f SET y = y || '!' WHERE id % 3 = 0");
    await tx.run(`${ROWS}INSERT INTO f(x, y) SELECT zeroblob(100), 'b' || i FROM c WHERE i <= 50`);
    return (await tx.run('DELETE FROM f WHERE id % 7 = 0')).changes;
  })],
  ['sort', (db) => db.query('SELECT substr(y, 3) AS k, length(x) AS n FROM f ORDER BY substr(y, 3) DESC, id LIMIT 5')],
  ['batch', (db) => db.batch([['UPDATE f SET x = zeroblob(400) WHERE id % 2 = ?', [0]], ["INSERT INTO f(y) VALUES ('batch')"], 'SELECT count(*) AS n FROM f'])],
  ['temp table', (db) => db.transaction(async (tx) => {
    await tx.exec('CREATE TEMP TABLE tt AS SELECT * FROM f; CREATE INDEX temp.tty ON tt(y)');
    const n = (await tx.query('SELECT count(DISTINCT y) AS n FROM tt'))[0].n;
    await tx.exec('DROP TABLE tt');
    return n;
  })],
  ['vacuum', (db) => db.exec('VACUUM')],
  ['export', async (db, ctx) => { ctx.image = await db.export(); return ctx.image.length > 0; }],
  ['delete', (db) => db.run('DELETE FROM f WHERE id > 100')],
  ['import', (db, ctx) => (ctx.image ? db.import(ctx.image) : null)],
  ['iterate', async (db) => {
    const rows = [];
    for await (const r of db.iterate('SELECT id, y FROM f ORDER BY id', undefined, { pageSize: 4 })) { rows.push(r); if (rows.length === 10) break; }
    return rows;
  }],
];

// What the database holds (compared between runs).
async function dump(db) {
  const schema = await db.query("SELECT type, name, sql FROM sqlite_schema ORDER BY name", undefined, { rowMode: 'array' });
  const rows = await db.query('SELECT id, length(x), hex(substr(x, 1, 4)), y FROM f ORDER BY id', undefined, { rowMode: 'array' }).catch((e) => `(${e.code})`);
  return JSON.stringify({ schema, rows });
}
const integrity = async (db) => (await db.query('PRAGMA integrity_check', undefined, { rowMode: 'array' })).map((r) => r[0]).join('; ');
const same = (a, b) => JSON.stringify(a, (k, v) => (v instanceof Uint8Array ? [...v] : typeof v === 'bigint' ? `${v}n` : v)) ===
  JSON.stringify(b, (k, v) => (v instanceof Uint8Array ? [...v] : typeof v === 'bigint' ? `${v}n` : v));

function withTimeout(p, ms, what) {
  let t;
  return Promise.race([p.finally(() => clearTimeout(t)), new Promise((_, rej) => { t = setTimeout(() => rej(Object.assign(new Error(`${what}: never settled (${ms} ms)`), { hang: true })), ms); })]);
}

// lib: the package's modules ({ createEngine, SyncDatabase, Session,
// AsyncDatabase, toWire, fromWire, storageError }); kind: a StorageKind; check(ok,
// name, detail).  options.stride: try every stride-th position (1: all).
export async function faultSuite(lib, kind, label, check, { stride = 1, timeoutMs = 20000, log = console.log } = {}) {
  const name = 'faults.db';
  let scratchN = 0;

  // Open the database over a fresh or the given storage, faults as planned.
  async function openDb(scratch, plan) {
    const raw = await kind.open(name, scratch.options);
    const f = faulty(raw, plan);
    let conn;
    try {
      const engine = await lib.createEngine(f.backend);
      conn = engine.open(name);
      // As js/worker.js's open() does.
      try { await f.backend.reserve(); } catch (e) { throw lib.storageError(e, SQLITE_CANTOPEN, 'open: the storage cannot make room'); }
    } catch (e) {
      await raw.close();
      throw Object.assign(e, { faults: f });
    }
    const sdb = new lib.SyncDatabase(conn, kind.name);
    const session = new lib.Session(sdb);
    const client = {
      transfers: false,
      async call(method, args) {
        try {
          if (method === 'close') { session.end(); await sdb.idle(); await sdb.close(); return undefined; }
          return await session.handle(method, args || []);
        } catch (e) { throw lib.fromWire(lib.toWire(e)); }
      },
      terminate() {},
    };
    return { db: new lib.AsyncDatabase(client, name, kind.name), f };
  }

  // The fault-free run: results and the state after each step, and how
  // many calls of each method it made.
  const scratch0 = await kind.scratch(`faults-${label}-${++scratchN}`);
  const base = { results: [], states: [] };
  let counts;
  {
    const { db, f } = await openDb(scratch0, null);
    const ctx = {};
    const snapshot = async () => { f.state.paused = true; base.states.push(await dump(db)); f.state.paused = false; };
    await snapshot();
    for (const [, step] of STEPS) {
      base.results.push(await step(db, ctx));
      await snapshot();
    }
    counts = { ...f.state.counts };
    await db.close();
    await scratch0.dispose();
  }
  log(`  ${label}: the fault-free run made ${Object.entries(counts).map(([m, n]) => `${n} ${m}`).join(', ')}`);

  const tally = { runs: 0, fired: 0, failedCall: 0, recovered: 0, withCause: 0, problems: 0 };
  const perFault = [];
  for (const [method, mode] of FAULTS) {
    const n = counts[method];
    const row = { fault: `${method} ${mode}`, positions: 0, errors: 0, sameResults: 0, notFired: 0 };
    for (let at = 1; at <= n; at += stride) {
      tally.runs++;
      row.positions++;
      const problem = await oneRun({ method, n: at, mode });
      if (problem === 'not fired') { row.notFired++; continue; }
      tally.fired++;
      if (problem && problem.error) { row.errors++; tally.failedCall++; if (problem.cause) tally.withCause++; continue; }
      if (problem === null) { row.sameResults++; tally.recovered++; continue; }
      tally.problems++;
      check(false, `${label}: ${method} ${mode} at call ${at}`, problem);
    }
    perFault.push(row);
  }
  check(tally.problems === 0, `${label}: ${tally.runs} fault positions (${tally.fired} fired): every call gave the fault-free result or an SqliteError with a code; afterwards the database was intact, in the state before or after the failed call, writable, and the same when reopened`,
    `${tally.failedCall} ended in an error (${tally.withCause} with the storage failure as its cause), ${tally.recovered} gave exactly the fault-free results, ${tally.problems} problems`);
  check(tally.fired > 0 && tally.failedCall > 0, `${label}: the faults fired and made calls fail (the check can fail)`, `${tally.fired} fired, ${tally.failedCall} failed calls`);
  return { counts, perFault, tally };

  // One run with a fault: null (all results as fault-free), 'not fired',
  // { error, cause } (a call failed, everything checked), or a problem.
  async function oneRun(plan) {
    const scratch = await kind.scratch(`faults-${label}-${++scratchN}`);
    let opened;
    try {
      try {
        opened = await withTimeout(openDb(scratch, plan), timeoutMs, 'open');
      } catch (e) {
        if (e.hang) return e.message;
        if (!e.faults || !e.faults.state.fired) return `open failed without a fault: ${e.message}`;
        if (e.name !== 'SqliteError' || typeof e.code !== 'number') return `open failed with ${e.name} ${e.code}: ${e.message}`;
        // Opening failed cleanly: the storage must open without the fault.
        const again = await openDb(scratch, null);
        const ic = await integrity(again.db);
        await again.db.close();
        return ic === 'ok' ? { error: true, cause: !!e.cause } : `after a failed open: integrity ${ic}`;
      }
      const { db, f } = opened;
      const ctx = {};
      let failedAt = -1, err = null;
      for (let i = 0; i < STEPS.length; i++) {
        let r;
        try {
          r = await withTimeout(STEPS[i][1](db, ctx), timeoutMs, STEPS[i][0]);
        } catch (e) {
          if (e.hang) { f.clear(); return `${STEPS[i][0]}: ${e.message}`; }
          failedAt = i; err = e;
          break;
        }
        if (!same(r, base.results[i])) return `${STEPS[i][0]}: wrong result with the fault (${JSON.stringify(r)?.slice(0, 200)})`;
      }
      const fired = f.state.fired > 0;
      f.clear();
      if (!fired) {
        await db.close();
        return err ? `${STEPS[failedAt][0]}: failed without any fault: ${err.message}` : 'not fired';
      }
      if (err && (err.name !== 'SqliteError' || typeof err.code !== 'number')) return `${STEPS[failedAt][0]}: failed with ${err.name} (code ${err.code}): ${err.message}`;
      // The fault cleared: the same connection is intact and usable.
      const ic = await withTimeout(integrity(db), timeoutMs, 'integrity_check');
      if (ic !== 'ok') return `after ${err ? STEPS[failedAt][0] : 'the run'}: integrity_check ${ic}`;
      const state = await dump(db);
      const allowed = err ? [base.states[failedAt], base.states[failedAt + 1]] : [base.states[STEPS.length]];
      if (!allowed.includes(state)) return `after ${err ? `${STEPS[failedAt][0]} failed (${err.code}: ${err.message})` : 'the run'}: the database is in neither the state before nor after it`;
      await db.run('CREATE TABLE after_fault(x)');
      await db.run("INSERT INTO after_fault VALUES ('ok')");
      const wrote = await db.query('SELECT count(*) AS n FROM after_fault');
      if (wrote[0].n !== 1) return `after the fault: a write did not land (${JSON.stringify(wrote)})`;
      const expectAfter = await dump(db);
      await withTimeout(db.close(), timeoutMs, 'close');
      if (kind.persistent) {
        const again = await openDb(scratch, null);
        const [ic2, state2] = [await integrity(again.db), await dump(again.db)];
        await again.db.close();
        if (ic2 !== 'ok' || state2 !== expectAfter) return `reopened after the fault: integrity ${ic2}, ${state2 === expectAfter ? 'same' : 'different'} content`;
      }
      return err ? { error: true, cause: !!err.cause } : null;
    } catch (e) {
      return `the check itself failed: ${e.name}: ${e.message}`;
    } finally {
      await scratch.dispose();
    }
  }
}

// The table of fault positions tried, for the log.
export function faultTable(label, perFault) {
  const lines = [`  ${label}: fault             positions  failed calls  fault-free results  not reached`];
  for (const r of perFault) lines.push(`    ${r.fault.padEnd(20)} ${String(r.positions).padStart(9)} ${String(r.errors).padStart(13)} ${String(r.sameResults).padStart(19)} ${String(r.notFired).padStart(12)}`);
  return lines.join('\n');
}
