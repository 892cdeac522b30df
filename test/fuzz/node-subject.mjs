// The API fuzzer's subject in Node: a Worker thread that runs the
// package's main-thread API in-process (./runner.js), so that a call that
// spins for ever blocks only this thread and the driver's watchdog can
// stop it (worker.terminate()).
import { parentPort, workerData } from 'node:worker_threads';
import { open } from '../../dist/index.js';
import { createRunner } from './runner.js';

const runner = createRunner({ open, watchdogMs: workerData.watchdogMs });
parentPort.on('message', async (text) => parentPort.postMessage(await runner.handle(text)));
