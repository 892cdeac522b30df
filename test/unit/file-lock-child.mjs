// A second (third...) process for test/unit/file-lock.test.mjs: opens a
// database of storage 'file' with the sync API and does one thing, saying
// what on stdout (one line each).
//   node file-lock-child.mjs <dir> <name> hold            open, write in a transaction left open; commit and close when stdin says "commit"
//   node file-lock-child.mjs <dir> <name> crash <rows>    open, write rows in a transaction left open, wait to be killed
//   node file-lock-child.mjs <dir> <name> rewrite        open, rewrite every row of t (larger) in a transaction left open, wait to be killed
//   node file-lock-child.mjs <dir> <name> write <rows> <rounds>   each round: open (waiting), insert rows, close
//   node file-lock-child.mjs <dir> <name> race <go>       when file <go> exists: one try to begin a write; if won, hold it until stdin ends
import fs from 'node:fs';
import readline from 'node:readline';
import { open } from '../../dist/worker.js';

const [dir, name, mode, a, b] = process.argv.slice(2);
const say = (line) => process.stdout.write(line + '\n');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

if (mode === 'hold') {
  const db = await open(name, { storage: 'file', dir });
  db.exec('CREATE TABLE IF NOT EXISTS t(who, n); BEGIN IMMEDIATE');
  db.run('INSERT INTO t VALUES (?, ?)', ['hold', process.pid]);
  say(`open ${process.pid}`);
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (line === 'commit') break;
  }
  db.exec('COMMIT');
  await db.close();
  say('closed');
  process.exit(0);   // stdin may stay open
} else if (mode === 'crash') {
  const db = await open(name, { storage: 'file', dir });
  db.exec('CREATE TABLE IF NOT EXISTS t(who, n)');
  db.run('INSERT INTO t VALUES (?, ?)', ['committed', process.pid]);
  db.exec('PRAGMA cache_size=2; BEGIN');
  const ins = db.prepare('INSERT INTO t VALUES (?, ?)');
  for (let i = 0; i < Number(a); i++) ins.run(['uncommitted', i]);
  say(`ready ${process.pid}`);
  for (;;) await sleep(1000);   // killed here, the transaction open and its journal hot
} else if (mode === 'rewrite') {
  // Old pages are overwritten in place (spilled from a tiny cache), as
  // only a hot journal can undo.
  const db = await open(name, { storage: 'file', dir });
  db.exec("PRAGMA cache_size=2; BEGIN; UPDATE t SET who = 'uncommitted' || zeroblob(500)");
  say(`ready ${process.pid}`);
  for (;;) await sleep(1000);
} else if (mode === 'write') {
  for (let round = 0; round < Number(b); round++) {
    const db = await open(name, { storage: 'file', dir, busyTimeoutMs: 60000 });
    db.exec('CREATE TABLE IF NOT EXISTS t(who, n)');
    db.transaction(() => {
      const ins = db.prepare('INSERT INTO t VALUES (?, ?)');
      for (let i = 0; i < Number(a); i++) ins.run([`writer ${process.pid}`, i]);
      ins.finalize();
    });
    await db.close();
  }
  say('done');
} else if (mode === 'race') {
  while (!fs.existsSync(a)) await sleep(1);
  const db = await open(name, { storage: 'file', dir, busyTimeoutMs: 0 });
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (e) {
    say(`busy ${e.code} ${e.message}`);
    process.exit(0);
  }
  db.run('INSERT INTO t VALUES (?, ?)', ['race', process.pid]);
  say(`won ${process.pid}`);
  for await (const line of readline.createInterface({ input: process.stdin })) void line;
  db.exec('COMMIT');
  await db.close();
  process.exit(0);
} else {
  throw new Error(`unknown mode ${mode}`);
}
