#!/usr/bin/env node
// run.mjs with two test-only twists, chosen by environment variables of
// the host process (never passed to the module):
//   TEMPCRYPT_FREEZE_CLOCK=NS  clock_time_get always answers NS nanoseconds
//                              (SQLite's own seed is time() and pid 1)
//   TEMPCRYPT_OPEN_LOG=FILE    append every path the module opens (path_open)
//                              to FILE, one a line
//   TEMPCRYPT_NO_SYNC=1        fd_sync and fd_datasync succeed without
//                              syncing (tests that do not test durability
//                              spend most of their time waiting in fsync)
import { appendFileSync } from 'node:fs';
import process from 'node:process';
import { parseArgs, runWasi } from '../run.mjs';

const freeze = process.env.TEMPCRYPT_FREEZE_CLOCK;
const openLog = process.env.TEMPCRYPT_OPEN_LOG;
const noSync = process.env.TEMPCRYPT_NO_SYNC === '1';

function wrap(p1, memory) {
  if (freeze !== undefined) {
    const t = BigInt(freeze);
    p1.clock_time_get = (id, precision, ptr) => {
      new DataView(memory().buffer).setBigUint64(ptr, t, true);
      return 0;
    };
  }
  if (openLog) {
    const open = p1.path_open;
    p1.path_open = (fd, dirflags, pathPtr, pathLen, ...rest) => {
      const path = Buffer.from(memory().buffer, pathPtr, pathLen).toString('utf8');
      appendFileSync(openLog, path + '\n');
      return open(fd, dirflags, pathPtr, pathLen, ...rest);
    };
  }
  if (noSync) {
    p1.fd_sync = () => 0;
    p1.fd_datasync = () => 0;
  }
  return p1;
}

process.removeAllListeners('warning');
const opts = parseArgs(process.argv.slice(2));
process.exit(await runWasi(opts, wrap));
