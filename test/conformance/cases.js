// The SQL cases of the backend conformance suite: the same SQL operations
// over one storage backend, in the variants of stores.js - tempcrypt on
// (without the memory tier, with it holding every temp file, with it
// spilling part-way), tempcrypt switched off (setEnabled(false)), and a
// build without tempcrypt (the baseline) - and every outcome compared with
// the baseline's.  Runs over
// every registered backend, in Node (node.mjs) and in a browser Worker
// (worker.js).
//
// A case is a list of steps; each step's outcome is its value, or the
// SqliteError code and message it threw.  Anything else thrown (a wasm trap:
// RuntimeError) is a failure in every variant.  Beyond the comparison, a
// case asserts what SQLite must answer (expect()), so a bug shared by every
// variant (the storage is the same code in all three) still fails.

import { SQLITE_CANTOPEN } from '../../js/shared/constants.js';

const ROWS = 1500;
const FILL = `CREATE TABLE t(id INTEGER PRIMARY KEY, k TEXT, b BLOB);
  INSERT INTO t(k, b) SELECT printf('%08x', (n * 2654435761) % 4294967296),
      unhex(replace(hex(zeroblob(30)), '00', printf('%08x', (n * 40503 + 12345) * 2246822519 % 4294967291)))
    FROM (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < ${ROWS}) SELECT n FROM c);
  CREATE INDEX t_k ON t(k);`;
// Deterministic rows (no randomblob: every variant must see the same data),
// 120-byte blobs; a sort bigger than a 10-page cache spills to temp files.
// (SQLite's sorter keeps up to 250 pages in memory: the sort carries 12000
// rows of 140-byte keys to pass that.)  The weighted sum checks the order.
const SPILL = `SELECT count(*) AS n, sum(rn * id) AS w FROM (SELECT t.id, row_number() OVER (ORDER BY substr(t.b, 5, 20) || t.b, c.x, t.id) AS rn
  FROM t, (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 8) SELECT x FROM c) AS c)`;
const DIGEST = `SELECT count(*) AS n, sum(length(b)) AS bytes, (SELECT group_concat(k) FROM (SELECT k FROM t ORDER BY id LIMIT 20)) AS head,
  (SELECT count(DISTINCT hex(b)) FROM t) AS distinct_b FROM t`;

// JSON-safe values: BigInt and blobs as tagged strings.
function norm(v) {
  return JSON.parse(JSON.stringify(v ?? null, (k, x) => (typeof x === 'bigint' ? `${x}n`
    : x instanceof Uint8Array ? `x'${Array.from(x, (b) => b.toString(16).padStart(2, '0')).join('')}'` : x)));
}

// One step's outcome.
async function outcome(fn) {
  try {
    return { ok: norm(await fn()) };
  } catch (e) {
    if (e && e.name === 'SqliteError') return { err: e.code, msg: String(e.message).replace(/ \(storage: [\s\S]*\)$/, '') };
    return { trap: `${e && e.name}: ${e && e.message}` };
  }
}

// The cases: name -> async (s, step, expect).  s is a store (see run()):
// s.open(name), s.restart() (a fresh wasm instance over the same storage,
// the pool closed and opened again), s.settle() after each step,
// s.tempOpens() (temp files opened in the storage so far), s.tier (what the
// memory tier does: 'off', 'all' temp files in memory, or 'part' of them),
// s.stats() (tempcrypt's statistics).
export function cases() {
  const out = {};
  const one = (db, sql) => db.query(sql)[0];

  for (const locking of ['NORMAL', 'EXCLUSIVE']) {
    for (const mode of ['DELETE', 'TRUNCATE', 'PERSIST', 'MEMORY', 'OFF', 'WAL']) {
      out[`journal ${mode} locking ${locking}`] = async (s, step, expect) => {
        let db = s.open('j.db');
        await step('locking_mode', () => one(db, `PRAGMA locking_mode=${locking}`));
        const set = await step('journal_mode', () => one(db, `PRAGMA journal_mode=${mode}`));
        // What WAL means here (the VFS has no shared memory): refused in
        // normal locking (the database stays in DELETE mode), used with
        // exclusive locking; then a later open in normal locking gets
        // SQLITE_CANTOPEN until it takes exclusive locking again.
        const wal = mode === 'WAL';
        if (wal) expect(set.ok && set.ok.journal_mode === (locking === 'EXCLUSIVE' ? 'wal' : 'delete'), `journal_mode=WAL answers ${JSON.stringify(set)}`);
        await step('fill', () => { db.exec(FILL); return one(db, 'SELECT count(*) AS n FROM t'); });
        await step('rollback', () => {
          db.exec('BEGIN; DELETE FROM t WHERE id % 2 = 0; UPDATE t SET k = upper(k);');
          db.exec('ROLLBACK');
          return one(db, DIGEST);
        });
        await step('spill sort', () => { db.exec('PRAGMA cache_size=10; PRAGMA temp_store=FILE'); return one(db, SPILL); });
        await step('savepoint', () => {
          db.exec("BEGIN; SAVEPOINT a; INSERT INTO t(k, b) SELECT 'sp' || k, b FROM t; ROLLBACK TO a; RELEASE a; COMMIT");
          return one(db, DIGEST);
        });
        await step('integrity', () => one(db, 'PRAGMA integrity_check'));
        await step('journal_mode after', () => one(db, 'PRAGMA journal_mode'));
        await step('close', () => db.close());
        await s.restart();
        db = s.open('j.db');
        const digest = await step('reopen digest', () => one(db, DIGEST));
        if (wal && locking === 'EXCLUSIVE') expect(digest.err === SQLITE_CANTOPEN, `a WAL database opened in normal locking: SQLITE_CANTOPEN (${JSON.stringify(digest)})`);
        // (journal_mode=OFF cannot roll back: the savepoint's rows stay.)
        if (digest.ok) expect(mode === 'OFF' ? digest.ok.n >= ROWS : digest.ok.n === ROWS, `reopen sees the ${ROWS} committed rows (${digest.ok.n})`);
        await step('reopen journal_mode', () => one(db, 'PRAGMA journal_mode'));
        await step('reopen write', () => db.run("INSERT INTO t(k, b) VALUES ('new', x'01')").changes);
        await step('reopen integrity', () => one(db, 'PRAGMA integrity_check'));
        await step('close again', () => db.close());
        // The way out of a WAL database on a VFS without shared memory:
        // exclusive locking, then back to a rollback journal.
        db = s.open('j.db');
        await step('exclusive reopen', () => one(db, 'PRAGMA locking_mode=EXCLUSIVE'));
        await step('exclusive count', () => one(db, 'SELECT count(*) AS n FROM t'));
        const back = await step('to DELETE', () => one(db, 'PRAGMA journal_mode=DELETE'));
        expect(back.ok && back.ok.journal_mode === 'delete', `back to a rollback journal (${JSON.stringify(back)})`);
        await step('close 3', () => db.close());
        await s.restart();
        db = s.open('j.db');
        const last = await step('final digest', () => one(db, DIGEST));
        if (last.ok) expect(last.ok.n >= ROWS, `the rows are still there at the end (${last.ok.n})`);
        await step('final integrity', () => one(db, 'PRAGMA integrity_check'));
        db.close();
      };
    }
  }

  for (let ps = 512; ps <= 65536; ps *= 2) {
    out[`page_size ${ps}`] = async (s, step, expect) => {
      let db = s.open('p.db');
      await step('page_size', () => { db.exec(`PRAGMA page_size=${ps}`); db.exec(FILL); return one(db, 'PRAGMA page_size'); });
      await step('temp copy', () => {
        db.exec(`PRAGMA temp.page_size=${ps}; PRAGMA cache_size=10; PRAGMA temp.cache_size=10;
          CREATE TEMP TABLE tt AS SELECT * FROM t; CREATE INDEX temp.tt_b ON tt(b)`);
        return one(db, 'SELECT count(*) AS n, sum(length(b)) AS s FROM tt WHERE b > x\'80\'');
      });
      await step('spill sort', () => one(db, SPILL));
      await step('vacuum', () => { db.exec('VACUUM'); return one(db, DIGEST); });
      await step('integrity', () => one(db, 'PRAGMA integrity_check'));
      db.close();
      await s.restart();
      db = s.open('p.db');
      const got = await step('reopen page_size', () => one(db, 'PRAGMA page_size'));
      if (got.ok) expect(got.ok.page_size === ps, `page_size ${ps} persisted (${got.ok.page_size})`);
      await step('reopen digest', () => one(db, DIGEST));
      db.close();
    };
  }

  for (const ts of [0, 1, 2]) {
    out[`temp_store ${ts}`] = async (s, step) => {
      const db = s.open('ts.db');
      await step('fill', () => { db.exec(`PRAGMA temp_store=${ts}; PRAGMA cache_size=10; PRAGMA temp.cache_size=10`); db.exec(FILL); return one(db, 'PRAGMA temp_store'); });
      await step('temp table', () => {
        db.exec('CREATE TEMP TABLE tt AS SELECT id, k || k AS k2, b FROM t; CREATE INDEX temp.tt_k2 ON tt(k2)');
        return one(db, 'SELECT count(*) AS n, min(k2) AS lo, max(k2) AS hi FROM tt');
      });
      await step('spill sort', () => one(db, SPILL));
      await step('group by', () => db.query('SELECT substr(k, 1, 1) AS c, count(*) AS n, sum(length(b)) AS s FROM t GROUP BY c ORDER BY c'));
      await step('distinct union', () => one(db, 'SELECT count(*) AS n FROM (SELECT b FROM t UNION SELECT b FROM t WHERE id % 3 = 0)'));
      await step('update in transaction', () => {
        db.exec('BEGIN; UPDATE tt SET b = zeroblob(10) WHERE id % 2 = 0; UPDATE t SET k = k || \'x\' WHERE id IN (SELECT id FROM tt WHERE length(b) = 10); COMMIT');
        return one(db, "SELECT count(*) AS n FROM t WHERE k LIKE '%x'");
      });
      await step('temp integrity', () => one(db, 'PRAGMA temp.integrity_check'));
      db.close();
    };
  }

  out['vacuum into'] = async (s, step, expect) => {
    let db = s.open('v.db');
    const before = await step('fill', () => { db.exec(FILL); db.exec('PRAGMA cache_size=10'); return one(db, DIGEST); });
    await step('vacuum into', () => { db.exec("VACUUM INTO 'v-copy.db'"); return one(db, 'PRAGMA integrity_check'); });
    await step('vacuum into existing', () => db.exec("VACUUM INTO 'v-copy.db'"));
    await step('vacuum into temp-like name', () => db.exec("VACUUM INTO 'tmp/7'"));
    db.close();
    for (const name of ['v-copy.db', 'tmp/7']) {
      db = s.open(name);
      const copy = await step(`copy ${name} digest`, () => one(db, DIGEST));
      if (before.ok && copy.ok) expect(JSON.stringify(copy.ok) === JSON.stringify(before.ok), `VACUUM INTO ${name} holds the same rows`);
      await step(`copy ${name} integrity`, () => one(db, 'PRAGMA integrity_check'));
      db.close();
    }
    await s.restart();
    db = s.open('v-copy.db');
    await step('copy after restart', () => one(db, DIGEST));
    db.close();
  };

  out['attach'] = async (s, step, expect) => {
    let db = s.open('a.db');
    await step('fill', () => { db.exec(FILL); return one(db, 'SELECT count(*) AS n FROM t'); });
    await step('attach', () => db.exec("ATTACH 'a2.db' AS s2; CREATE TABLE s2.u(id INTEGER PRIMARY KEY, k TEXT, b BLOB)"));
    await step('two-database commit', () => {
      db.exec('BEGIN; INSERT INTO s2.u SELECT * FROM t WHERE id % 2 = 1; DELETE FROM t WHERE id % 2 = 1; COMMIT');
      return one(db, 'SELECT (SELECT count(*) FROM t) AS main, (SELECT count(*) FROM s2.u) AS second');
    });
    await step('two-database rollback', () => {
      db.exec('BEGIN; DELETE FROM s2.u; INSERT INTO t SELECT * FROM s2.u; ROLLBACK');
      return one(db, 'SELECT (SELECT count(*) FROM t) AS main, (SELECT count(*) FROM s2.u) AS second');
    });
    await step('join spill', () => { db.exec('PRAGMA cache_size=10'); return one(db, 'SELECT count(*) AS n, group_concat(t.id) AS ids FROM t JOIN s2.u ON t.id = s2.u.id + 1 ORDER BY t.b'); });
    await step('attached integrity', () => one(db, 'PRAGMA s2.integrity_check'));
    await step('detach', () => db.exec('DETACH s2'));
    db.close();
    await s.restart();
    db = s.open('a.db');
    const both = await step('reattach', () => { db.exec("ATTACH 'a2.db' AS s2"); return one(db, 'SELECT (SELECT count(*) FROM t) AS main, (SELECT count(*) FROM s2.u) AS second'); });
    if (both.ok) expect(both.ok.main + both.ok.second === ROWS, `every row is in one of the two databases (${JSON.stringify(both.ok)})`);
    db.close();
  };

  // Names a user may choose that look like the storage's temp file labels
  // ("/tmp/N"): temp files must never be freed by such a name.
  for (const name of ['/tmp/1', 'tmp/1', 'tmp/2', '/tmp/3']) {
    out[`database named ${name}`] = async (s, step, expect) => {
      let db = s.open(name);
      // 4096-byte pages: the sorter's 250 in-memory pages then hold less
      // than SPILL sorts (with the build's default of 8192 they would not).
      await step('fill', () => { db.exec('PRAGMA page_size=4096;' + FILL); return one(db, 'SELECT count(*) AS n FROM t'); });
      const opened = s.tempOpens();
      s.stats(true);
      const sorted = await step('spill sort', () => { db.exec('PRAGMA cache_size=10; PRAGMA temp_store=FILE'); return one(db, SPILL); });
      const st = s.stats();
      if (s.tier === 'all') {
        // The default budget's runs hold this sort: no temp file reaches the storage.
        expect(s.tempOpens() === opened && st.nSpilled === 0, `the sort's temp data stayed out of the storage (${JSON.stringify(st)})`);
      } else {
        expect(s.tempOpens() > opened, 'the sort opened temp files');
        if (s.tier === 'part') expect(st.nMemPeak > 0 && st.nSpilled > 0, `the sort's temp files spilled part-way (${JSON.stringify(st)})`);
      }
      const after = await step('count after temp files closed', () => one(db, 'SELECT count(*) AS n FROM t'));
      if (sorted.ok) expect(after.ok && after.ok.n === ROWS, `database ${name} keeps its rows while temp files come and go (${JSON.stringify(after)})`);
      await step('temp table', () => { db.exec('CREATE TEMP TABLE x AS SELECT * FROM t'); return one(db, 'SELECT count(*) AS n FROM x'); });
      await step('integrity', () => one(db, 'PRAGMA integrity_check'));
      db.close();
      await s.restart();
      db = s.open(name);
      const again = await step('reopen count', () => one(db, 'SELECT count(*) AS n FROM t'));
      expect(again.ok && again.ok.n === ROWS, `database ${name} has its rows after reopen (${JSON.stringify(again)})`);
      db.close();
    };
  }
  return out;
}

// Run every case (or those whose name matches `only`) in one variant.
// makeStore(caseName) -> store { open(name), restart(), settle(), dispose() }.
// Returns { caseName: { steps: [[label, outcome]], expects: [failed messages] } }.
export async function runVariant(makeStore, only) {
  const results = {};
  for (const [name, fn] of Object.entries(cases())) {
    if (only && !only.test(name)) continue;
    const steps = [], failed = [];
    const store = await makeStore(name);
    const step = async (label, f) => {
      const o = await outcome(f);
      steps.push([label, o]);
      try { await store.settle(); } catch { /* reported by the next step */ }
      return o;
    };
    const expect = (cond, what) => { if (!cond) failed.push(what); };
    try {
      await fn(store, step, expect);
    } catch (e) {
      // A step outside step() threw (open, or close after a failure).
      steps.push(['(case)', await outcome(() => { throw e; })]);
    }
    try { await store.dispose(); } catch (e) { steps.push(['(dispose)', await outcome(() => { throw e; })]); }
    results[name] = { steps, expects: failed };
  }
  return results;
}

// Compare a variant's results with the baseline's.  Returns a list of
// { name, ok, detail } checks: per case, no trap, expectations met, every
// step equal to the baseline's (there is no deliberate difference).
export function compare(label, got, base) {
  const out = [];
  for (const [name, r] of Object.entries(got)) {
    const b = base ? base[name] : null;
    const traps = r.steps.filter(([, o]) => o.trap).map(([l, o]) => `${l}: ${o.trap}`);
    const diffs = [];
    if (b) {
      const n = Math.max(r.steps.length, b.steps.length);
      for (let i = 0; i < n; i++) {
        const [l, o] = r.steps[i] || ['(missing)', null];
        const [, bo] = b.steps[i] || ['(missing)', null];
        if (JSON.stringify(o) !== JSON.stringify(bo)) diffs.push(`${l}: got ${JSON.stringify(o).slice(0, 200)}, baseline ${JSON.stringify(bo).slice(0, 200)}`);
      }
    }
    const problems = [...traps.map((t) => `trap ${t}`), ...r.expects, ...diffs];
    out.push({ name: `${label}: ${name}`, ok: problems.length === 0, detail: problems.slice(0, 3).join('; ') });
  }
  return out;
}
