// One process of test/unit/file-lock-random.test.mjs: runs the program of
// its actor (./file-lock-random.mjs) on database <dir>/<name>, a short
// random pause between steps so that its locks overlap the others', and
// says on stdout "ack <txn>" for each committed write, then "done".
//   node file-lock-random-child.mjs <dir> <name> <seed> <actor> <ops> <busyTimeoutMs>
import { open } from '../../dist/worker.js';
import { program, steps, runStep, rng } from './file-lock-random.mjs';

const [dir, name, seed, actor, ops, busyTimeoutMs] = process.argv.slice(2);
const say = (line) => process.stdout.write(line + '\n');
const pause = rng(Number(seed) + Number(actor));
const db = await open(name, { storage: 'file', dir, busyTimeoutMs: Number(busyTimeoutMs) });
for (const op of program(Number(seed), Number(actor), Number(ops))) {
  const list = steps(op, db);
  for (let i = 0, retries = 0; i < list.length;) {
    const got = runStep(op, db, list, i);
    if (got === 'ack') say(`ack ${op.txn}`);
    if (got === 'busy') break;
    if (got === 'retry') {
      if (++retries > 20) { db.exec('ROLLBACK'); break; }
      continue;
    }
    i++;
    await new Promise((r) => setTimeout(r, pause(3)));
  }
}
await db.close();
say('done');
