// Storage 'file' (Node) under random programs, against a sequential
// model: processes (file-lock-random-child.mjs) and connections of this
// process (interleaved step by step by a seeded scheduler) read, write,
// autocommit and roll back on one database at once
// (./file-lock-random.mjs has the programs and the reader's check).
// One process is killed (SIGKILL) at a random moment of each round.
// Every call settles (each other process says "done", each step of this
// one returns); every acknowledged write is there exactly once and
// nothing else is (rolled back and busy transactions left nothing; of the
// killed process, at most the one transaction it was committing, whole);
// no reader saw a partial transaction.  The seed is printed; replay one with
//   FILE_LOCK_SEED=<seed> node --test test/unit/file-lock-random.test.mjs
// FILE_LOCK_OPS (ops per actor, default 30) and FILE_LOCK_ROUNDS
// (default 2) make a longer run (make test-file-lock-random).
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { open as openSync } from '../../dist/worker.js';
import { SCHEMA, program, steps, runStep, rng } from './file-lock-random.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const CHILD = path.join(HERE, 'file-lock-random-child.mjs');
const OPS = Number(process.env.FILE_LOCK_OPS ?? 30);
const ROUNDS = Number(process.env.FILE_LOCK_ROUNDS ?? 2);
const SEED = process.env.FILE_LOCK_SEED ? Number(process.env.FILE_LOCK_SEED) : (Date.now() ^ process.pid) >>> 0;
const PROCESSES = 2, LOCAL = 3;

const kids = new Set();
afterEach(() => { for (const k of kids) if (k.exitCode === null && k.signalCode === null) k.kill('SIGKILL'); kids.clear(); });

// A child process: resolves to its stdout's lines once it exits 0 (or
// is killed with SIGKILL once it acknowledged killAfter writes, if given).
function runChild(args, ms, killAfter) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [CHILD, ...args.map(String)], { stdio: ['ignore', 'pipe', 'pipe'] });
    kids.add(p);
    let out = '', err = '';
    p.stdout.on('data', (d) => {
      out += d;
      if (killAfter !== undefined && out.split('\n').filter((l) => l.startsWith('ack ')).length >= killAfter) p.kill('SIGKILL');
    });
    p.stderr.on('data', (d) => { err += d; });
    const timer = setTimeout(() => { p.kill('SIGKILL'); reject(new Error(`a process did not settle in ${ms} ms: ${out.slice(-500)} ${err}`)); }, ms);
    p.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0 || (killAfter !== undefined && signal === 'SIGKILL')) resolve(out.split('\n').filter(Boolean));
      else reject(new Error(`a process exited ${code ?? signal}: ${err}`));
    });
  });
}

// The connections of this process, their programs run step by step in an
// order the seed picks; a step never waits (busyTimeoutMs 0: a holder in
// this same thread cannot move while it waits), SQLITE_BUSY ends an op,
// a busy COMMIT is retried at a later turn.
async function runLocal(dir, seed, acks) {
  const pick = rng(seed ^ 0x5bd1e995);
  const actors = [];
  for (let a = 0; a < LOCAL; a++) {
    const db = await openSync('r.db', { storage: 'file', dir, busyTimeoutMs: 0 });
    actors.push({ db, ops: program(seed, 100 + a, OPS), op: 0, step: 0, list: null, retries: 0 });
  }
  for (let live = actors.length; live > 0;) {
    const x = actors[pick(actors.length)];
    if (x.op >= x.ops.length) { await new Promise((r) => setImmediate(r)); continue; }
    const op = x.ops[x.op];
    x.list ??= steps(op, x.db);
    const got = runStep(op, x.db, x.list, x.step);
    if (got === 'ack') acks.push(op.txn);
    if (got === 'retry' && ++x.retries <= 200) continue;
    if (got === 'retry') x.db.exec('ROLLBACK');
    if (got === 'next' || got === 'ack') x.step++;
    if (got === 'busy' || got === 'retry' || x.step >= x.list.length) {
      Object.assign(x, { op: x.op + 1, step: 0, list: null, retries: 0 });
      if (x.op >= x.ops.length) live--;
    }
    // Let the processes' output in now and then.
    if (pick(8) === 0) await new Promise((r) => setImmediate(r));
  }
  for (const x of actors) await x.db.close();
}

test(`random reads, writes and transactions from ${PROCESSES} processes and ${LOCAL} connections of this one match a sequential model (seed ${SEED})`, { timeout: 600000 }, async () => {
  console.log(`file-lock-random: seed ${SEED} (replay: FILE_LOCK_SEED=${SEED}), ${OPS} ops per actor, ${ROUNDS} rounds`);
  for (let round = 0; round < ROUNDS; round++) {
    const seed = (SEED + round * 0x9e3779b9) >>> 0;
    const dir = path.join(ROOT, 'build', 'node-unit', 'file-lock-random', String(round));
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const setup = await openSync('r.db', { storage: 'file', dir });
    setup.exec(SCHEMA);
    await setup.close();
    const acks = [];
    const killAfter = 1 + rng(seed)(Math.max(1, OPS >> 3));   // process 0's acknowledged writes before its SIGKILL
    const children = Array.from({ length: PROCESSES }, (_, a) => runChild([dir, 'r.db', seed, a, OPS, 2000], 300000, a === 0 ? killAfter : undefined));
    await runLocal(dir, seed, acks);
    const outputs = await Promise.all(children);
    console.log(`round ${round}: process 0 ${outputs[0].at(-1) === 'done' ? 'finished before its kill' : `killed after ${killAfter} acknowledged writes`}`);
    outputs.forEach((lines, a) => {
      if (a > 0) assert.equal(lines.at(-1), 'done', 'the process ran its whole program');
      for (const l of lines) if (l.startsWith('ack ')) acks.push(l.slice(4));
    });
    // The model: exactly the acknowledged transactions, each whole and once.
    const db = await openSync('r.db', { storage: 'file', dir });
    try {
      let got = db.query('SELECT txn, count(*) AS n, count(DISTINCT i) AS d FROM log GROUP BY txn ORDER BY txn');
      const want = [...new Set(acks)].sort().map((txn) => ({ txn, n: Number(txn.split(':')[2]), d: Number(txn.split(':')[2]) }));
      // The killed process may have committed one transaction it had no
      // time to acknowledge: whole, and its last.
      const unacked = got.filter((g) => !acks.includes(g.txn));
      if (unacked.length === 1 && unacked[0].txn.startsWith('0:') && unacked[0].n === Number(unacked[0].txn.split(':')[2])) {
        const last = Math.max(-1, ...acks.filter((t) => t.startsWith('0:')).map((t) => Number(t.split(':')[1])));
        assert.ok(Number(unacked[0].txn.split(':')[1]) > last, `the unacknowledged ${unacked[0].txn} came after the killed process's last acknowledged one`);
        got = got.filter((g) => g !== unacked[0]);
      }
      assert.equal(new Set(acks).size, acks.length, 'no transaction acknowledged twice');
      assert.deepEqual(got, want.sort((a, b) => (a.txn < b.txn ? -1 : a.txn > b.txn ? 1 : 0)), `round ${round} (seed ${seed}): the database holds exactly the acknowledged writes`);
      assert.equal(db.query('SELECT n FROM c')[0].n, db.query('SELECT count(*) AS k FROM log')[0].k, 'the counter counts every row');
      assert.deepEqual(db.query('PRAGMA integrity_check'), [{ integrity_check: 'ok' }]);
      assert.ok(acks.length > 0, 'some writes went through');
      // A write takes EXCLUSIVE, which removes the killed process's reader token.
      db.exec('UPDATE c SET n = n');
    } finally { await db.close(); }
    assert.deepEqual(fs.readdirSync(dir), ['r.db'], 'no lock, token or journal left');
  }
});
