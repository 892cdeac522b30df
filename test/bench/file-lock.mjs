// How storage 'file' locks a database, measured (make bench-file-lock;
// nothing is asserted: docs/api.md keeps the numbers and the choice).
// Node has no flock()/fcntl(), so the candidates are files the file
// system creates atomically:
//   excl   open(O_CREAT|O_EXCL), then write the owner into it
//   mkdir  mkdir(), then write the owner into a file inside
//   link   write the owner into a file of its own, then link() it into place
//   ours   js/storage/file-lock.js: link, plus the takeover of a dead owner's lock
// For each: acquire+release cycles per second in one process, then K
// processes incrementing a shared counter under the lock (lost increments:
// the lock let two in; torn reads: a loser found the lock without its
// owner in it, so could not tell who holds it or whether they live), then
// racers taking over a dead owner's lock at once, naive takeover (the
// owner is dead: remove the lock, take it; with a pause of up to 10 ms
// between check and removal, as a preempted process has) against ours
// (rounds where two held it at once).
//   node test/bench/file-lock.mjs [--cycles=2000] [--procs=6] [--rounds=20]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { FileLock, LOCK_MAGIC, ownerDead, readLock } from '../../js/storage/file-lock.js';

const SELF = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SELF), '../..');
const arg = (k, d) => Number((process.argv.find((a) => a.startsWith(`--${k}=`)) || `=${d}`).split('=')[1]);

const owner = () => LOCK_MAGIC + JSON.stringify({ pid: process.pid, host: os.hostname(), since: new Date().toISOString(), nonce: String(Math.random()) }) + '\n';
const fsync = (p) => { const fd = fs.openSync(p, 'r+'); try { fs.fsyncSync(fd); } finally { fs.closeSync(fd); } };
const tryCode = (fn, code) => { try { fn(); return true; } catch (e) { if (e.code === code) return false; throw e; } };

// Each: try(lock) -> taken?, release(lock), read(lock) -> 'owner' | 'torn' | 'none'.
const MECHANISMS = {
  excl: {
    try: (p) => tryCode(() => {
      const fd = fs.openSync(p, 'wx');
      try { fs.writeSync(fd, owner()); fs.fsyncSync(fd); } finally { fs.closeSync(fd); }
    }, 'EEXIST'),
    release: (p) => fs.rmSync(p, { force: true }),
    read: (p) => { try { return fs.readFileSync(p, 'utf8').startsWith(LOCK_MAGIC) ? 'owner' : 'torn'; } catch { return 'none'; } },
  },
  mkdir: {
    try: (p) => tryCode(() => { fs.mkdirSync(p); fs.writeFileSync(`${p}/owner`, owner()); fsync(`${p}/owner`); }, 'EEXIST'),
    release: (p) => fs.rmSync(p, { recursive: true, force: true }),
    read: (p) => { try { return fs.readFileSync(`${p}/owner`, 'utf8').startsWith(LOCK_MAGIC) ? 'owner' : 'torn'; } catch { return fs.existsSync(p) ? 'torn' : 'none'; } },
  },
  link: {
    try: (p) => {
      const tmp = `${p}.${process.pid}.new`;
      fs.writeFileSync(tmp, owner());
      fsync(tmp);
      try { return tryCode(() => fs.linkSync(tmp, p), 'EEXIST'); } finally { fs.rmSync(tmp, { force: true }); }
    },
    release: (p) => fs.rmSync(p, { force: true }),
    read: (p) => { try { return fs.readFileSync(p, 'utf8').startsWith(LOCK_MAGIC) ? 'owner' : 'torn'; } catch { return 'none'; } },
  },
  ours: {
    held: new Map(),
    try(p) {
      const lock = new FileLock(fs, os, path, p);
      if (lock.attempt()) return false;
      this.held.set(p, lock);
      return true;
    },
    release(p) { this.held.get(p).release(); this.held.delete(p); },
    read: (p) => { const o = readLock(fs, p); return o === null ? 'torn' : o.gone ? 'none' : 'owner'; },
  },
};

// ---- a child: `--child count <mech> <dir> <cycles>` or `--child take <mech> <lock> <go> <holdMs>`
if (process.argv[2] === '--child') {
  const [, , , what, mech, a, b, c] = process.argv;
  const m = MECHANISMS[mech];
  if (what === 'count') {
    const lock = path.join(a, 'counter.lock'), counter = path.join(a, 'counter');
    let torn = 0, tries = 0;
    for (let i = 0; i < Number(b); i++) {
      while (!m.try(lock)) {
        tries++;
        if (m.read(lock) === 'torn') torn++;
      }
      fs.writeFileSync(counter, String(Number(fs.readFileSync(counter, 'utf8')) + 1));
      m.release(lock);
    }
    process.stdout.write(JSON.stringify({ torn, tries }));
  } else {
    while (!fs.existsSync(b)) await new Promise((r) => setTimeout(r, 1));   // the start line
    let won;
    if (mech === 'naive') {
      // A racer preempted for up to 10 ms between its check and its
      // removal, as any process may be.
      const o = readLock(fs, a);
      if (o && !o.gone && ownerDead(fs, os, o)) {
        await new Promise((r) => setTimeout(r, Math.random() * 10));
        fs.rmSync(a, { force: true });
      }
      won = MECHANISMS.link.try(a);
    } else {
      won = MECHANISMS.ours.try(a);
    }
    const now = () => performance.timeOrigin + performance.now();
    if (won) {
      const from = now();
      await new Promise((r) => setTimeout(r, Number(c)));
      const to = now();   // the hold, from taking the lock to letting it go
      if (mech === 'naive') MECHANISMS.link.release(a); else MECHANISMS.ours.release(a);
      process.stdout.write(`won ${from} ${to}`);
    } else {
      process.stdout.write('lost');
    }
  }
  process.exit(0);
}

const run = (...args) => new Promise((resolve) => {
  const p = spawn(process.execPath, [SELF, '--child', ...args.map(String)]);
  let out = '';
  p.stdout.on('data', (d) => { out += d; });
  p.on('exit', () => resolve(out));
});

const dir = path.join(ROOT, 'build', 'bench', 'file-lock');
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(dir, { recursive: true });
const CYCLES = arg('cycles', 2000), PROCS = arg('procs', 6), ROUNDS = arg('rounds', 20);
const median = (xs) => xs.sort((x, y) => x - y)[xs.length >> 1];
const results = { host: os.hostname(), fs: spawnSync('stat', ['-f', '-c', '%T', dir], { encoding: 'utf8' }).stdout.trim(), node: process.version, cycles: {}, contention: {}, takeover: {} };

// 1. Cycles per second, in one process (median of 5, alternating).
const times = Object.fromEntries(Object.keys(MECHANISMS).map((k) => [k, []]));
for (let rep = 0; rep < 5; rep++) {
  for (const [name, m] of Object.entries(MECHANISMS)) {
    const p = path.join(dir, `cycle-${name}.lock`);
    const t0 = performance.now();
    for (let i = 0; i < CYCLES / 4; i++) { if (!m.try(p)) throw new Error(`${name}: busy`); m.release(p); }
    times[name].push((CYCLES / 4) / ((performance.now() - t0) / 1000));
  }
}
for (const [k, xs] of Object.entries(times)) results.cycles[k] = Math.round(median(xs));

// 2. PROCS processes, CYCLES/PROCS increments each, under each lock.
for (const name of Object.keys(MECHANISMS)) {
  const d = path.join(dir, `count-${name}`);
  fs.mkdirSync(d);
  fs.writeFileSync(path.join(d, 'counter'), '0');
  const per = Math.round(CYCLES / PROCS);
  const outs = (await Promise.all(Array.from({ length: PROCS }, () => run('count', name, d, per)))).map((o) => JSON.parse(o));
  const got = Number(fs.readFileSync(path.join(d, 'counter'), 'utf8'));
  results.contention[name] = { expected: per * PROCS, lost: per * PROCS - got, tornReads: outs.reduce((n, o) => n + o.torn, 0), failedTries: outs.reduce((n, o) => n + o.tries, 0) };
}

// 3. Takeover of a dead owner's lock by PROCS racers at once, ROUNDS times.
const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
const maybe = (fn) => { try { return fn(); } catch { return null; } };
const boot = maybe(() => fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim());
const pidns = maybe(() => fs.readlinkSync('/proc/self/ns/pid'));
for (const name of ['naive', 'ours']) {
  let doubles = 0, wins = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const lock = path.join(dir, `take-${name}.lock`), go = path.join(dir, `go-${name}-${r}`);
    fs.writeFileSync(lock, LOCK_MAGIC + JSON.stringify({ pid: Number(dead), host: os.hostname(), boot, pidns, start: null, since: 'then', nonce: `dead-${r}` }) + '\n');
    const racers = Array.from({ length: PROCS }, () => run('take', name, lock, go, 300));
    await new Promise((res) => setTimeout(res, 400));
    fs.writeFileSync(go, '');
    const holds = (await Promise.all(racers)).filter((o) => o.startsWith('won')).map((o) => o.split(' ').slice(1).map(Number));
    wins += holds.length;
    // Two holds at once (a later, lawful winner after the first let go does not count).
    if (holds.some(([f1, t1], i) => holds.some(([f2, t2], j) => i !== j && f1 < t2 && f2 < t1))) doubles++;
    for (const f of fs.readdirSync(dir)) if (f.startsWith(`take-${name}.lock`)) fs.rmSync(path.join(dir, f), { force: true });
  }
  results.takeover[name] = { rounds: ROUNDS, racers: PROCS, roundsWithTwoHolders: doubles, winners: wins };
}

console.log(JSON.stringify(results, null, 1));
fs.rmSync(dir, { recursive: true, force: true });
