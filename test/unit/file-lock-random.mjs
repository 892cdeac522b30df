// The random programs of test/unit/file-lock-random.test.mjs, shared by
// the test (its in-process connections) and file-lock-random-child.mjs
// (its processes): the same seed and actor give the same program.
//
// The database: log(txn, i), one row per write, txn naming the
// transaction that wrote it ("<actor>:<op>:<k>", k its rows), and c(n),
// kept equal to the rows of log by a trigger.  A reader reads c.n, and at
// a later step of the same transaction (other connections ran between)
// checks that it is still the count of log and that every txn has all
// its k rows: a partial transaction, or a commit inside its transaction,
// seen fails the run.

export const SCHEMA = `CREATE TABLE IF NOT EXISTS log(txn TEXT NOT NULL, i INTEGER NOT NULL, UNIQUE(txn, i));
  CREATE TABLE IF NOT EXISTS c(n INTEGER NOT NULL);
  INSERT INTO c SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM c);
  CREATE TRIGGER IF NOT EXISTS counted AFTER INSERT ON log BEGIN UPDATE c SET n = n + 1; END;`;

// xorshift32: a small seeded generator (never 0).
export function rng(seed) {
  let x = (seed >>> 0) || 0x9e3779b9;
  return (n) => {
    x ^= x << 13; x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5; x >>>= 0;
    return x % n;
  };
}

// The program of actor `actor` (a small integer) under seed: ops of
// kind 'write' (BEGIN, k inserts, COMMIT), 'auto' (one autocommit
// insert), 'rollback' (BEGIN, k inserts, ROLLBACK) and 'read'.
export function program(seed, actor, ops) {
  const r = rng(seed * 7919 + actor * 104729 + 1);
  const out = [];
  for (let op = 0; op < ops; op++) {
    const roll = r(10);
    const kind = roll < 4 ? 'write' : roll < 6 ? 'read' : roll < 8 ? 'auto' : 'rollback';
    const k = kind === 'auto' ? 1 : kind === 'read' ? 0 : 1 + r(6);
    out.push({ kind, k, txn: `${actor}:${op}:${k}`, immediate: r(2) === 0 });
  }
  return out;
}

// The steps of one op: functions of the connection db; a step returns
// 'ack' when the op's writes are committed.
export function steps(op, db) {
  const inserts = Array.from({ length: op.k }, (_, i) => () => db.run('INSERT INTO log VALUES (?, ?)', [op.txn, i]));
  switch (op.kind) {
    case 'auto': return [() => { db.run('INSERT INTO log VALUES (?, ?)', [op.txn, 0]); return 'ack'; }];
    case 'write': return [() => db.exec(op.immediate ? 'BEGIN IMMEDIATE' : 'BEGIN'), ...inserts, () => { db.exec('COMMIT'); return 'ack'; }];
    case 'rollback': return [() => db.exec('BEGIN'), ...inserts, () => db.exec('ROLLBACK')];
    default: {
      let n;
      return [() => db.exec('BEGIN'), () => { n = db.query('SELECT n FROM c')[0].n; }, () => check(db, n), () => db.exec('COMMIT')];
    }
  }
}

// A reader's check, n the counter it read earlier in its transaction:
// throws (not an SqliteError) on what it must not see.
export function check(db, n) {
  const [{ n: now }] = db.query('SELECT n FROM c');
  if (now !== n) throw new Error(`a commit seen inside a read transaction: the counter was ${n}, now ${now}`);
  const groups = db.query('SELECT txn, count(*) AS got FROM log GROUP BY txn');
  const rows = groups.reduce((s, g) => s + g.got, 0);
  if (rows !== n) throw new Error(`partial transaction seen: ${rows} rows in log, the counter says ${n}`);
  for (const g of groups) {
    if (g.got !== Number(g.txn.split(':')[2])) throw new Error(`partial transaction seen: ${g.txn} has ${g.got} rows`);
  }
}

// Run step `i` of op on db; SQLITE_BUSY (5) ends the op (rolled back, not
// acknowledged), except at COMMIT, which the caller may retry: returns
// 'ack', 'next' (go on), 'retry' (COMMIT was busy) or 'busy' (op over).
export function runStep(op, db, list, i) {
  try {
    return list[i]() === 'ack' ? 'ack' : 'next';
  } catch (e) {
    if ((e.primaryCode ?? e.code) !== 5) throw e;
    if (op.kind === 'write' && i === list.length - 1) return 'retry';
    if (db.inTransaction) db.exec('ROLLBACK');
    return 'busy';
  }
}
