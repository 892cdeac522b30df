// A worker_threads thread for test/unit/file-lock.test.mjs: opens database
// workerData.name in workerData.dir (storage 'file', the sync API), commits
// one row, leaves a transaction of workerData.rows rows open (its journal
// hot, pages spilled to the file), says 'ready', then waits to be
// terminated, or with workerData.crash throws (the thread dies of an
// uncaught exception), the database never closed either way.
import { parentPort, workerData } from 'node:worker_threads';
import { open } from '../../dist/worker.js';

const { dir, name, rows, crash } = workerData;
const db = await open(name, { storage: 'file', dir });
db.exec('CREATE TABLE IF NOT EXISTS t(who, n)');
db.run('INSERT INTO t VALUES (?, ?)', ['committed', rows]);
db.exec('PRAGMA cache_size=2; BEGIN');
const ins = db.prepare('INSERT INTO t VALUES (?, ?)');
for (let i = 0; i < rows; i++) ins.run(['uncommitted', i]);
parentPort.postMessage('ready');
if (crash) {
  await new Promise((r) => setTimeout(r, 50));
  throw new Error('the thread dies with its database open');
}
setInterval(() => {}, 1000);   // terminated here
