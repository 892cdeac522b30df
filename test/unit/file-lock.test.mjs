// Storage 'file' (Node): connections take turns per transaction, across
// connections and processes (js/storage/file-tx-lock.js over js/storage/file-lock.js's
// lock files), a crashed holder's locks are taken over, and the defaults
// a Node user expects (paths, the default storage, where temp files go).
// Other processes are real ones (child_process, ./file-lock-child.mjs),
// killed with SIGKILL where a crash is the point.
//   node --test test/unit/file-lock.test.mjs
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { open } from '../../dist/index.js';
import { open as openSync } from '../../dist/worker.js';
import { LOCK_SUFFIX, LOCK_MAGIC } from '../../dist/storage/file-lock.js';
import { READER_INFIX } from '../../dist/storage/file-tx-lock.js';
import { TEMP_PREFIX } from '../../dist/storage/file-backend.js';
import * as C from '../../dist/shared/constants.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const CHILD = path.join(HERE, 'file-lock-child.mjs');

// A fresh directory under build/.
function freshDir(tag) {
  const dir = path.join(ROOT, 'build', 'node-unit', 'file-lock', tag);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

// The children of a test, killed when it ends (a failed test leaves none
// waiting).
const spawned = new Set();
afterEach(() => {
  for (const p of spawned) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  spawned.clear();
});

// A child process running file-lock-child.mjs; line(re) waits for its next
// stdout line matching re.
function child(...args) {
  return spawned1(process.execPath, [CHILD, ...args.map(String)]);
}

// The same, of any program (argv0 and its arguments).
function spawned1(argv0, argv) {
  const p = spawn(argv0, argv, { stdio: ['pipe', 'pipe', 'pipe'] });
  spawned.add(p);
  let buf = '', err = '';
  const lines = [], waiters = [];
  p.stdout.on('data', (d) => {
    buf += d;
    for (let i; (i = buf.indexOf('\n')) >= 0;) {
      lines.push(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
    for (const w of [...waiters]) w();
  });
  p.stderr.on('data', (d) => { err += d; });
  const exited = new Promise((resolve) => p.on('exit', (code, signal) => { for (const w of [...waiters]) w(); resolve({ code, signal }); }));
  p.line = (re, ms = 60000) => new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no line ${re} from the child in ${ms} ms (stdout: ${lines.join(' | ')}; stderr: ${err})`)), ms);
    const check = () => {
      const at = lines.findIndex((l) => re.test(l));
      if (at >= 0) {
        clearTimeout(timer);
        waiters.splice(waiters.indexOf(check), 1);
        resolve(lines.splice(at, 1)[0]);
      } else if (p.exitCode !== null || p.signalCode !== null) {
        clearTimeout(timer);
        reject(new Error(`the child exited (${p.exitCode ?? p.signalCode}) without ${re}: ${lines.join(' | ')} ${err}`));
      }
    };
    waiters.push(check);
    check();
  });
  p.exited = exited;
  p.stderrText = () => err;
  return p;
}

const count = (db, sql) => db.query(sql)[0].n;

// The error of fn(), or null.
const errorOf = (fn) => { try { fn(); } catch (e) { return e; } return null; };

test('two connections in one process take turns per transaction: reads side by side, one writer, the other SQLITE_BUSY after busyTimeoutMs; each sees the other\'s commits', async () => {
  // Regression: the second open() waited lockTimeoutMs for the whole life
  // of the first, then failed with SQLITE_BUSY.
  const dir = freshDir('one-process');
  const a = await openSync('app.db', { storage: 'file', dir });
  a.exec('CREATE TABLE t(x)');
  const b = await openSync('app.db', { storage: 'file', dir, busyTimeoutMs: 300 });
  try {
    a.exec('BEGIN; INSERT INTO t VALUES (1)');
    assert.equal(count(b, 'SELECT count(*) AS n FROM t'), 0, 'a reader beside an open write transaction sees the last commit');
    const t0 = Date.now();
    const e = errorOf(() => b.exec('INSERT INTO t VALUES (2)'));
    assert.equal(e?.primaryCode, C.SQLITE_BUSY, String(e));
    assert.ok(Date.now() - t0 >= 250, `it waited busyTimeoutMs (${Date.now() - t0} ms)`);
    a.exec('COMMIT');
    b.exec('INSERT INTO t VALUES (2)');
    assert.deepEqual(a.query('SELECT x FROM t ORDER BY x'), [{ x: 1 }, { x: 2 }], "each sees the other's commit (no stale cache)");
    // The main-thread API: the same file, side by side.
    const c = await open(path.join(dir, 'app.db'), { storage: 'file' });
    assert.deepEqual(await c.query('SELECT count(*) AS n FROM t'), [{ n: 2 }]);
    await c.exec('INSERT INTO t VALUES (3)');
    await c.close();
    assert.equal(count(b, 'SELECT count(*) AS n FROM t'), 3);
  } finally { await a.close(); await b.close(); }
  assert.deepEqual(fs.readdirSync(dir), ['app.db'], 'no lock or temp file left after close');
});

test('two processes write in turns: every row of both arrives (no lost write)', async () => {
  const dir = freshDir('two-writers');
  const ROWS = 200, ROUNDS = 15;
  const kids = [child(dir, 'w.db', 'write', ROWS, ROUNDS), child(dir, 'w.db', 'write', ROWS, ROUNDS)];
  for (const k of kids) await k.line(/^done$/, 120000);
  for (const k of kids) assert.deepEqual(await k.exited, { code: 0, signal: null }, k.stderrText());
  const db = await openSync('w.db', { storage: 'file', dir });
  try {
    assert.equal(count(db, 'SELECT count(*) AS n FROM t'), 2 * ROWS * ROUNDS);
    assert.deepEqual(db.query('SELECT count(DISTINCT who) AS n FROM t'), [{ n: 2 }]);
    assert.deepEqual(db.query('PRAGMA integrity_check'), [{ integrity_check: 'ok' }]);
  } finally { await db.close(); }
});

test('another process in a write transaction: reads go on, a write waits busyTimeoutMs, then SQLITE_BUSY; once it commits the write goes through', async () => {
  const dir = freshDir('holder');
  const holder = child(dir, 'h.db', 'hold');
  const pid = Number((await holder.line(/^open \d+$/)).split(' ')[1]);
  const lockFile = fs.readFileSync(path.join(dir, 'h.db' + LOCK_SUFFIX), 'utf8');
  assert.ok(lockFile.startsWith(LOCK_MAGIC) && lockFile.includes(`"pid":${pid}`), lockFile);
  const db = await openSync('h.db', { storage: 'file', dir, busyTimeoutMs: 200 });
  try {
    assert.equal(count(db, 'SELECT count(*) AS n FROM t'), 0, 'its transaction is not seen');
    const e = errorOf(() => db.exec("INSERT INTO t VALUES ('me', 1)"));
    assert.equal(e?.primaryCode, C.SQLITE_BUSY, String(e));
    // An ATTACH of it: the same.
    const other = await openSync('other.db', { storage: 'file', dir, busyTimeoutMs: 0 });
    other.exec(`ATTACH '${path.join(dir, 'h.db')}' AS h`);
    assert.equal(errorOf(() => other.exec("INSERT INTO h.t VALUES ('other', 1)"))?.primaryCode, C.SQLITE_BUSY);
    await other.close();
    holder.stdin.end('commit\n');
    await holder.line(/^closed$/);
    db.exec("INSERT INTO t VALUES ('me', 1)");
    assert.deepEqual(db.query('SELECT who, n FROM t ORDER BY who'), [{ who: 'hold', n: pid }, { who: 'me', n: 1 }]);
  } finally { await db.close(); }
  assert.deepEqual(await holder.exited, { code: 0, signal: null });
});

test("the main-thread API's busyTimeoutMs reaches storage 'file': 0 is SQLITE_BUSY at once while another process writes (not SQLite's default wait, which would outlast the holder)", async () => {
  const dir = freshDir('busy0');
  // The holder commits by itself 2 s after it starts (its stdin says so):
  // this thread, blocked in SQLite's busy wait, could not tell it to.
  const holder = spawned1('sh', ['-c', '(sleep 2; echo commit) | "$0" "$@"', process.execPath, CHILD, dir, 'b.db', 'hold']);
  await holder.line(/^open \d+$/);
  const db = await open('b.db', { storage: 'file', dir, busyTimeoutMs: 0 });
  try {
    const e = await db.run("INSERT INTO t VALUES ('me', 1)").then(() => null, (err) => err);
    assert.equal(e?.code, C.SQLITE_BUSY, `expected SQLITE_BUSY at once, got ${e ? String(e) : 'success'}`);
    await holder.line(/^closed$/);
  } finally { await db.close(); }
  assert.deepEqual(await holder.exited, { code: 0, signal: null });
});

test('a crashed holder (SIGKILL mid-transaction): its lock is taken over, its committed rows kept, the rest rolled back, its leftovers wiped', async () => {
  const dir = freshDir('crash');
  const k = child(dir, 'c.db', 'crash', 5000);
  const pid = Number((await k.line(/^ready \d+$/)).split(' ')[1]);
  const before = fs.readdirSync(dir);
  assert.ok(before.includes('c.db-journal'), `a hot journal: ${before}`);
  k.kill('SIGKILL');
  assert.deepEqual(await k.exited, { code: null, signal: 'SIGKILL' });
  const deadLock = fs.readFileSync(path.join(dir, 'c.db' + LOCK_SUFFIX), 'utf8');
  assert.ok(deadLock.includes(`"pid":${pid}`), 'the dead process\'s lock is still there');
  // A temp file of the dead process, as a crash leaves one (ciphertext
  // whose key died with it), with its owner file (the same owner record).
  const leftover = path.join(dir, `${TEMP_PREFIX}${pid}-0badcafe-7`);
  const leftoverOwner = path.join(dir, `${TEMP_PREFIX}${pid}-0badcafe.owner`);
  fs.writeFileSync(leftover, 'x'.repeat(4096));
  fs.writeFileSync(leftoverOwner, deadLock);
  // And the staging file of an import it was running, with its lock.
  const staging = path.join(dir, `c.db-tcimport-${'0123456789abcdef'.repeat(2)}`);
  fs.writeFileSync(staging, 'SQLite format 3\0');
  fs.writeFileSync(staging + LOCK_SUFFIX, deadLock);
  const keep = path.join(dir, 'c.db-tcimport-notours');
  fs.writeFileSync(keep, 'a file of the user');
  const t0 = Date.now();
  const db = await openSync('c.db', { storage: 'file', dir, busyTimeoutMs: 30000 });
  try {
    assert.ok(Date.now() - t0 < 5000, `taken over at once, not after the wait (${Date.now() - t0} ms)`);
    assert.deepEqual(db.query('SELECT who, n FROM t'), [{ who: 'committed', n: pid }], 'the committed row, and none of the transaction left open');
    assert.deepEqual(db.query('PRAGMA integrity_check'), [{ integrity_check: 'ok' }]);
    db.exec("INSERT INTO t VALUES ('after', 1)");
    assert.deepEqual(fs.readdirSync(dir).filter((f) => f.startsWith('c.db.')), [], 'its locks and reader token taken over and gone');
    assert.deepEqual(db.files.wipedAtOpen.map((f) => f.file).sort(), [leftover, leftoverOwner, staging, staging + LOCK_SUFFIX].sort(), 'the dead process\'s temp file and staging file were wiped');
    assert.ok(!fs.existsSync(leftover));
  } finally { await db.close(); }
  assert.deepEqual(fs.readdirSync(dir).sort(), ['c.db', 'c.db-tcimport-notours'], 'nothing else left, a file of the user kept');
});

test('writers racing for a free database and for a dead writer\'s lock: exactly one wins each round', async () => {
  const dir = freshDir('race');
  const made = await openSync('r.db', { storage: 'file', dir });
  made.exec('CREATE TABLE t(who, n)');
  await made.close();
  const RACERS = 6;
  const rounds = [];
  for (let round = 0; round < 4; round++) {
    if (round % 2 === 1) {
      // A dead holder's lock first: a process that took it and was killed.
      const k = child(dir, 'r.db', 'crash', 10);
      await k.line(/^ready/);
      k.kill('SIGKILL');
      await k.exited;
    }
    const go = path.join(dir, `go-${round}`);
    const kids = Array.from({ length: RACERS }, () => child(dir, 'r.db', 'race', go));
    await new Promise((r) => setTimeout(r, 300));   // every racer started and polling
    fs.writeFileSync(go, '');
    // A winner holds its write transaction until every racer has tried.
    const outcomes = await Promise.all(kids.map((k) => k.line(/^(won|busy)/)));
    for (const k of kids) k.stdin.end();
    for (const k of kids) assert.deepEqual(await k.exited, { code: 0, signal: null }, k.stderrText());
    const won = outcomes.filter((l) => l.startsWith('won'));
    rounds.push({ round, won: won.length, busy: outcomes.filter((l) => l.startsWith(`busy ${C.SQLITE_BUSY} `)).length });
    fs.rmSync(go);
  }
  assert.deepEqual(rounds, [0, 1, 2, 3].map((round) => ({ round, won: 1, busy: RACERS - 1 })), JSON.stringify(rounds));
  const db = await openSync('r.db', { storage: 'file', dir });
  try {
    assert.equal(count(db, "SELECT count(*) AS n FROM t WHERE who = 'race'"), 4, 'one row per round');
  } finally { await db.close(); }
  assert.deepEqual(fs.readdirSync(dir).filter((f) => f.startsWith('r.db.')), [], 'no lock, token, marker or half-made lock file left');
});

test('a file where the lock file goes that is no lock: a write is refused, reads work, and it is left as it was', async () => {
  const dir = freshDir('not-a-lock');
  const precious = path.join(dir, 'p.db' + LOCK_SUFFIX);
  fs.writeFileSync(precious, 'someone else\'s data');
  const db = await openSync('p.db', { storage: 'file', dir, busyTimeoutMs: 0 });
  try {
    const e = errorOf(() => db.exec('CREATE TABLE t(x)'));
    assert.equal(e?.primaryCode, C.SQLITE_CANTOPEN, String(e));
    assert.match(e.message, /not a lock file/);
    assert.deepEqual(db.query('SELECT 1 AS one'), [{ one: 1 }]);
  } finally { await db.close(); }
  assert.equal(fs.readFileSync(precious, 'utf8'), 'someone else\'s data');
});

test("Node's defaults: storage 'file', ':memory:', absolute and relative names, parent directories, temp files next to the database", async () => {
  const dir = freshDir('defaults');
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    // open('app.db') is a real file in the working directory.
    const db = await open('app.db');
    assert.equal(db.storage, 'file');
    await db.exec('CREATE TABLE t(x); INSERT INTO t VALUES (1)');
    await db.close();
    assert.ok(fs.statSync(path.join(dir, 'app.db')).size > 0);
    const mem = await open(':memory:');
    assert.equal(mem.storage, 'memory');
    await mem.close();
    const s = await openSync(':memory:');
    assert.equal(s.storage, 'memory');
    await s.close();
  } finally { process.chdir(cwd); }
  // Absolute: used as given, whatever dir says.
  const abs = path.join(dir, 'elsewhere', 'deep', 'abs.db');
  const a = await openSync(abs, { dir: path.join(dir, 'not-here') });
  a.exec('CREATE TABLE t(x)');
  await a.close();
  assert.ok(fs.existsSync(abs), 'the absolute path, parents created');
  assert.ok(!fs.existsSync(path.join(dir, 'not-here', 'elsewhere')), 'not under dir');
  // Relative: under dir, parent directories created (was ENOENT).
  const r = await openSync('data/sub/app.db', { dir, tempBudget: 0 });
  r.exec('CREATE TABLE t(x)');
  // Temp files (all of them with the memory tier off): next to the
  // database, encrypted (test/api/file-leak.mjs scans their bytes).
  const seen = new Set();
  r.observe((ev) => { if (ev.op === 'open' && ev.temp) seen.add(path.dirname(ev.name)); });
  r.exec(`PRAGMA temp_store=FILE; PRAGMA temp.cache_size=2;
    CREATE TEMP TABLE big AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<3000) SELECT n, randomblob(200) FROM c`);
  assert.deepEqual([...seen], [path.join(dir, 'data', 'sub')]);
  assert.ok(r.tempcrypt.stats().nFileEncrypted >= 1);
  // ATTACH with a relative name: relative to dir too.
  r.exec("ATTACH 'data/other.db' AS o; CREATE TABLE o.u(y); DETACH o");
  await r.close();
  assert.ok(fs.existsSync(path.join(dir, 'data', 'sub', 'app.db')) && fs.existsSync(path.join(dir, 'data', 'other.db')));
  // A parent that cannot be made: a clear error.
  fs.writeFileSync(path.join(dir, 'plain-file'), '');
  const e = await openSync('plain-file/x.db', { dir }).then(() => null, (err) => err);
  assert.equal(e && e.code, C.SQLITE_CANTOPEN, String(e));
  assert.match(e.message, /cannot create the directory/);
});

test('a database opened through symbolic links (of the file and of a directory): its journal sits next to the real file, so a crash is rolled back whichever name opens it next', async () => {
  // Regression: the lock resolved links but SQLite's path did not, so the
  // hot journal was link.db-journal: an open of the real file never saw it
  // (integrity_check "Rowid out of order", uncommitted rows visible).
  const dir = freshDir('symlink-crash');
  fs.mkdirSync(path.join(dir, 'sub'));
  fs.symlinkSync('sub', path.join(dir, 'alias'));
  fs.symlinkSync('alias/real.db', path.join(dir, 'link.db'));
  const made = await openSync('sub/real.db', { storage: 'file', dir });
  made.exec(`CREATE TABLE t(who, n);
    INSERT INTO t WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<2000) SELECT 'committed', n FROM c`);
  await made.close();
  const k = child(dir, 'link.db', 'rewrite');
  await k.line(/^ready \d+$/);
  const held = fs.readdirSync(path.join(dir, 'sub'));
  assert.ok(['real.db', 'real.db-journal', 'real.db' + LOCK_SUFFIX].every((f) => held.includes(f)), `the journal and locks next to the real file: ${held}`);
  assert.deepEqual(fs.readdirSync(dir).sort(), ['alias', 'link.db', 'sub'], 'nothing next to the links');
  k.kill('SIGKILL');
  await k.exited;
  const db = await openSync('sub/real.db', { storage: 'file', dir, busyTimeoutMs: 30000 });
  try {
    assert.deepEqual(db.query('PRAGMA integrity_check'), [{ integrity_check: 'ok' }]);
    assert.deepEqual(db.query('SELECT who, count(*) AS n FROM t GROUP BY who'), [{ who: 'committed', n: 2000 }], 'the hot journal was rolled back');
  } finally { await db.close(); }
  assert.deepEqual(fs.readdirSync(path.join(dir, 'sub')), ['real.db']);
});

test('a dangling symbolic link: the database is made at its target, under the target\'s lock, so a write by the target\'s name is SQLITE_BUSY while one by the link is open; a loop of links is SQLITE_CANTOPEN', async () => {
  // Regression: the lock was link.db's own, SQLite made real.db, and an
  // open('real.db') took another lock: two writers, a commit lost.
  const dir = freshDir('dangling');
  fs.symlinkSync('real.db', path.join(dir, 'link.db'));
  fs.symlinkSync(path.join(dir, 'made', 'later.db'), path.join(dir, 'far.db'));   // absolute, into a missing directory
  const a = await openSync('link.db', { storage: 'file', dir, busyTimeoutMs: 0 });
  const far = await openSync('far.db', { storage: 'file', dir, busyTimeoutMs: 0 });
  try {
    a.exec('CREATE TABLE t(x); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)');
    far.exec('CREATE TABLE u(y); BEGIN IMMEDIATE');
    assert.deepEqual(fs.readdirSync(dir).filter((f) => !f.startsWith('real.db' + READER_INFIX)).sort(), ['far.db', 'link.db', 'made', 'real.db', 'real.db-journal', 'real.db' + LOCK_SUFFIX]);
    assert.ok(fs.readdirSync(path.join(dir, 'made')).includes('later.db' + LOCK_SUFFIX));
    for (const [name, table] of [['real.db', 't'], [path.join(dir, 'link.db'), 't'], ['made/later.db', 'u']]) {
      const b = await openSync(name, { storage: 'file', dir, busyTimeoutMs: 0 });
      try {
        assert.equal(errorOf(() => b.exec(`INSERT INTO ${table} VALUES (2)`))?.primaryCode, C.SQLITE_BUSY, name);
      } finally { await b.close(); }
    }
    const other = await openSync('other.db', { storage: 'file', dir, busyTimeoutMs: 0 });
    other.exec("ATTACH 'real.db' AS r");
    assert.equal(errorOf(() => other.exec('INSERT INTO r.t VALUES (3)'))?.primaryCode, C.SQLITE_BUSY);
    await other.close();
    a.exec('COMMIT');
    far.exec('COMMIT');
  } finally { await a.close(); await far.close(); }
  fs.symlinkSync('loop2.db', path.join(dir, 'loop1.db'));
  fs.symlinkSync('loop1.db', path.join(dir, 'loop2.db'));
  const e = await openSync('loop1.db', { storage: 'file', dir }).then(() => null, (err) => err);
  assert.equal(e && e.code, C.SQLITE_CANTOPEN, String(e));
  assert.match(e.message, /symbolic links/);
});

test('a worker thread that held a database and ended without closing it (terminate(), an uncaught exception): its lock is taken over, its transaction rolled back; a live thread\'s lock is not', async () => {
  // Regression: the lock named this (live) process, so the database stayed
  // SQLITE_BUSY "locked by process <own pid>" until the process exited.
  const dir = freshDir('threads');
  const { Worker } = await import('node:worker_threads');
  const THREAD = path.join(HERE, 'file-lock-thread.mjs');
  for (const crash of [false, true]) {
    const w = new Worker(THREAD, { workerData: { dir, name: 'w.db', rows: 3000, crash } });
    try {
      const died = new Promise((resolve) => { w.on('error', resolve); w.on('exit', () => resolve(null)); });
      await new Promise((resolve, reject) => { w.once('message', resolve); w.once('error', reject); });
      assert.ok(fs.existsSync(path.join(dir, 'w.db-journal')), 'a hot journal');
      if (!crash) {
        // Alive: never taken over.
        const b = await openSync('w.db', { storage: 'file', dir, busyTimeoutMs: 200 });
        try {
          assert.equal(errorOf(() => b.exec("INSERT INTO t VALUES ('other', 0)"))?.primaryCode, C.SQLITE_BUSY);
        } finally { await b.close(); }
      } else {
        assert.match(String((await died)?.message), /dies with its database open/);
      }
    } finally { await w.terminate(); }
    const db = await openSync('w.db', { storage: 'file', dir, busyTimeoutMs: 0 });
    try {
      assert.deepEqual(db.query('PRAGMA integrity_check'), [{ integrity_check: 'ok' }]);
      assert.deepEqual(db.query("SELECT count(*) AS n FROM t WHERE who = 'uncommitted'"), [{ n: 0 }], 'rolled back');
      assert.equal(count(db, "SELECT count(*) AS n FROM t WHERE who = 'committed'"), crash ? 2 : 1);
    } finally { await db.close(); }
  }
});

// The state of process pid (/proc/<pid>/stat), or null when it is gone.
function procState(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0];
  } catch { return null; }
}

test('a holder killed with SIGKILL and not reaped (a zombie, as under a PID 1 that reaps nothing) counts as gone: its lock is taken over at once', async (t) => {
  // Regression: kill(pid, 0) answers for a zombie, so every open() was
  // SQLITE_BUSY until its parent reaped it.
  if (!fs.existsSync('/proc/self/stat')) return t.skip('no /proc: a zombie cannot be told from a live process here');
  const dir = freshDir('zombie');
  // The parent is a shell that execs sleep, which never reaps the child.
  const parent = spawned1('sh', ['-c', '"$@" & exec sleep 600', 'sh', process.execPath, CHILD, dir, 'z.db', 'crash', 10]);
  const pid = Number((await parent.line(/^ready \d+$/)).split(' ')[1]);
  process.kill(pid, 'SIGKILL');
  for (let i = 0; i < 500 && procState(pid) !== 'Z'; i++) await new Promise((r) => setTimeout(r, 10));
  assert.equal(procState(pid), 'Z', 'the killed child is a zombie, not reaped');
  const db = await openSync('z.db', { storage: 'file', dir, busyTimeoutMs: 3000 });
  try {
    const t0 = Date.now();
    db.exec("INSERT INTO t VALUES ('after', 0)");
    assert.ok(Date.now() - t0 < 2500, `its write lock taken over at once, not after the wait (${Date.now() - t0} ms)`);
    assert.deepEqual(db.query('SELECT who, n FROM t'), [{ who: 'committed', n: pid }, { who: 'after', n: 0 }], 'its transaction rolled back');
  } finally { await db.close(); }
  assert.equal(procState(pid), 'Z', 'still a zombie throughout');
});

test('leftover temp files are removed only when their owner is dead for sure (the owner check of locks): a live owner in another pid namespace keeps them', async () => {
  // Regression: any temp file whose pid did not answer here was removed,
  // a live process's in another container sharing the directory too.
  const dir = freshDir('temp-owners');
  const lock = (owner) => LOCK_MAGIC + JSON.stringify({ since: 'then', nonce: 'n'.repeat(32), ...owner }) + '\n';
  // This process's owner record, as its lock file names it.
  const probe = await openSync('probe.db', { storage: 'file', dir });
  probe.exec('BEGIN IMMEDIATE');
  const me = JSON.parse(fs.readFileSync(path.join(dir, 'probe.db' + LOCK_SUFFIX), 'utf8').slice(LOCK_MAGIC.length));
  probe.exec('ROLLBACK');
  await probe.close();
  const NOPID = 4194304 + 1;   // above pid_max: no such process here
  const files = {
    // Another container: its pid does not answer here, but it may live there.
    otherNs: [`${TEMP_PREFIX}${NOPID}-aaaaaaaa-1`, `${TEMP_PREFIX}${NOPID}-aaaaaaaa.owner`, { ...me, pid: NOPID, pidns: 'pid:[1]' }],
    otherHost: [`${TEMP_PREFIX}${NOPID}-bbbbbbbb-1`, `${TEMP_PREFIX}${NOPID}-bbbbbbbb.owner`, { ...me, pid: NOPID, host: 'elsewhere' }],
    // This host and namespace, its pid gone: dead for sure.
    dead: [`${TEMP_PREFIX}${NOPID}-cccccccc-1`, `${TEMP_PREFIX}${NOPID}-cccccccc.owner`, { ...me, pid: NOPID }],
  };
  for (const [temp, owner, rec] of Object.values(files)) {
    fs.writeFileSync(path.join(dir, temp), 'x'.repeat(100));
    fs.writeFileSync(path.join(dir, owner), lock(rec));
  }
  // One without an owner file (no owner to check): kept.
  fs.writeFileSync(path.join(dir, `${TEMP_PREFIX}${NOPID}-7`), 'y');
  const db = await openSync('t.db', { storage: 'file', dir });
  try {
    assert.deepEqual(db.files.wipedAtOpen.map((f) => path.basename(f.file)).sort(), [files.dead[0], files.dead[1]].sort());
  } finally { await db.close(); }
  assert.deepEqual(fs.readdirSync(dir).filter((f) => f.startsWith(TEMP_PREFIX)).sort(),
    [files.otherNs[0], files.otherNs[1], files.otherHost[0], files.otherHost[1], `${TEMP_PREFIX}${NOPID}-7`].sort());
});
