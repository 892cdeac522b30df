// Syscall-level leak proof: build/wasi/sqlite3.wasm runs a workload whose
// temp table and index build (and sorts and a DISTINCT that stay in
// memory) carry a marker built at run time, under
// node:wasi with strace recording every byte the process writes.  The temp
// directory is a directory of its own (TMPDIR=tmp).
//   tempcrypt on  (sqlite3.wasm):          the marker is in no byte written
//                                           to any file; temp files were written
//   tempcrypt off (sqlite3-disabled.wasm): the marker is in the temp files
//                                           (the check can see a leak)
// The same workload with every byte the module hands to WASI's
// fd_write/fd_pwrite recorded by path, under node:wasi and @wasmer/wasi
// (its files stay in memory, out of strace's sight).  tempcrypt on runs
// twice: without the memory tier (SQLITE_TEMPCRYPT_BUDGET=0: every temp
// file on disk) and with a budget so small that the temp files spill
// part-way (TIER_BUDGET).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import process from 'node:process';
import { resolve } from 'node:path';
import { shellWasm, disabledWasm, scratch, makeMarker, requireBuilt, mkdirSync, join, here, fileProblem } from './lib.mjs';
import { traceWrites, haveStrace, countOccurrences } from './strace.mjs';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

requireBuilt(shellWasm, disabledWasm);
const runMjs = resolve(here, '../run.mjs');

const ROWS = 20000;
const TIER_BUDGET = 131072;
const BUDGETS = [0, TIER_BUDGET];

// 4096-byte pages on the new database: the sorter keeps 250 pages of the
// main database's page size in memory before it spills (1 MiB here; with
// the build's 8192-byte default, 2 MiB, more than CREATE INDEX sorts).
// The DISTINCT's ephemeral b-tree stays in memory (16 MiB default cache).
function workload(marker) {
  return `
PRAGMA page_size=4096;
PRAGMA temp_store=FILE;
PRAGMA cache_size=20;
PRAGMA temp.cache_size=20;
CREATE TABLE base(i INTEGER PRIMARY KEY, v TEXT);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<${ROWS})
  INSERT INTO base SELECT i, printf('%08d', i*7) FROM c;
CREATE TEMP TABLE secret(i INTEGER, s TEXT);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<${ROWS})
  INSERT INTO secret SELECT i, '${marker}' || '-' || i || '-' || hex(randomblob(24)) FROM c;
SELECT count(*) FROM (SELECT s FROM secret ORDER BY s DESC);
SELECT count(DISTINCT s) FROM secret;
SELECT count(*), sum(length(x)) FROM (SELECT b.v || s.s AS x FROM base b JOIN secret s ON b.i=s.i ORDER BY x);
CREATE INDEX temp.si ON secret(s);
SELECT count(*) FROM secret WHERE s > '${marker}';
`;
}

function runTraced(module, marker, budget = 0) {
  const s = scratch('strace');
  try {
    mkdirSync(join(s.dir, 'tmp'));
    const t = traceWrites(process.execPath,
      [runMjs, '--dir=.', '--env', 'TMPDIR=tmp', '--env', `SQLITE_TEMPCRYPT_BUDGET=${budget}`, module, 'leak.db'],
      { cwd: s.dir, input: workload(marker), traceFile: join(s.dir, 'strace.out') });
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, new RegExp(`^${ROWS}\n${ROWS}\n${ROWS}\\|\\d+\n${ROWS}\n$`));
    const m = Buffer.from(marker);
    let tempBytes = 0, tempFiles = 0, tempHits = 0, fileHits = 0;
    for (const [path, bytes] of t.files) {
      const inDir = path.startsWith(s.dir + '/');
      if (!inDir) continue;
      const hits = countOccurrences(bytes, m);
      fileHits += hits;
      if (path.startsWith(join(s.dir, 'tmp') + '/')) {
        tempFiles++; tempBytes += bytes.length; tempHits += hits;
      }
    }
    return { tempFiles, tempBytes, tempHits, fileHits, otherHits: countOccurrences(t.other, m) };
  } finally { s.cleanup(); }
}

test('strace: tempcrypt keeps the marker out of every byte written', (t) => {
  assert.ok(haveStrace(), 'strace is needed (scripts/install-deps.sh installs it)');
  const marker = makeMarker();
  for (const budget of BUDGETS) {
    const on = runTraced(shellWasm, marker, budget);
    t.diagnostic(`tempcrypt on, budget ${budget}: ${on.tempFiles} temp files, ${on.tempBytes} bytes written to them, marker hits: temp ${on.tempHits}, any file ${on.fileHits}, pipes ${on.otherHits}`);
    assert.ok(on.tempFiles >= 2, `temp files written: ${on.tempFiles}`);
    assert.ok(on.tempBytes >= 256 * 1024, `bytes written to temp files: ${on.tempBytes}`);
    assert.equal(on.tempHits, 0);
    assert.equal(on.fileHits, 0);
    assert.equal(on.otherHits, 0);
  }

  const off = runTraced(disabledWasm, marker);
  t.diagnostic(`tempcrypt off: ${off.tempFiles} temp files, ${off.tempBytes} bytes written to them, marker hits: temp ${off.tempHits}`);
  assert.ok(off.tempFiles >= 2, `temp files written: ${off.tempFiles}`);
  assert.ok(off.tempHits > 0, 'with tempcrypt off the marker must show up in the temp files');
});

// The layout with a host directory of its own for temp files, preopened as
// the guest's /tmp and no TMPDIR: every temp file lands there, encrypted.
test('strace: with --dir HOST::/tmp and no TMPDIR, temp files go to HOST', (t) => {
  const marker = makeMarker();
  const s = scratch('strace2');
  try {
    mkdirSync(join(s.dir, 'db'));
    mkdirSync(join(s.dir, 'scratch'));
    const tr = traceWrites(process.execPath,
      [runMjs, '--dir=db::.', '--dir=scratch::/tmp', '--env', 'SQLITE_TEMPCRYPT_BUDGET=0', shellWasm, 'leak.db'],
      { cwd: s.dir, input: workload(marker), traceFile: join(s.dir, 'strace.out') });
    assert.equal(tr.code, 0, tr.stderr);
    const temps = [...tr.files.keys()].filter((p) => /etilqs_/.test(p));
    t.diagnostic(`temp files: ${temps.length}, all in scratch/: ${temps.every((p) => p.startsWith(join(s.dir, 'scratch') + '/'))}`);
    assert.ok(temps.length >= 2, `temp files: ${temps.length}`);
    for (const p of temps) assert.ok(p.startsWith(join(s.dir, 'scratch') + '/'), p);
    const m = Buffer.from(marker);
    for (const [p, bytes] of tr.files) assert.equal(countOccurrences(bytes, m), 0, p);
  } finally { s.cleanup(); }
});

// Every byte the module hands to WASI's fd_write/fd_pwrite, by path
// (write-capture.mjs), under node:wasi and under @wasmer/wasi, whose files
// stay in memory where strace cannot see them.
const captureMjs = resolve(here, 'write-capture.mjs');
function runCaptured(rt, module, marker, budget = 0) {
  const s = scratch(`capture-${rt}`);
  try {
    mkdirSync(join(s.dir, 'tmp'));
    const out = join(s.dir, 'capture.json');
    const r = spawnSync(process.execPath, [captureMjs, '--dir=.', '--env', 'TMPDIR=tmp',
      '--env', `SQLITE_TEMPCRYPT_BUDGET=${budget}`, module, 'leak.db'], {
      cwd: s.dir, input: workload(marker), encoding: 'utf8', maxBuffer: 64 << 20,
      env: { ...process.env, TEMPCRYPT_CAPTURE_RUNTIME: rt, TEMPCRYPT_CAPTURE_MARKER: marker, TEMPCRYPT_CAPTURE_OUT: out },
    });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^${ROWS}\n${ROWS}\n${ROWS}\\|\\d+\n${ROWS}\n$`));
    let tempFiles = 0, tempBytes = 0, tempHits = 0, fileHits = 0;
    for (const [path, f] of Object.entries(JSON.parse(readFileSync(out, 'utf8')))) {
      fileHits += f.hits;
      if (/etilqs_/.test(path)) { tempFiles++; tempBytes += f.bytes; tempHits += f.hits; }
    }
    return { tempFiles, tempBytes, tempHits, fileHits };
  } finally { s.cleanup(); }
}

for (const rt of ['node', 'wasmer']) {
  test(`WASI calls (${rt}): tempcrypt keeps the marker out of every byte the module writes`, { skip: rt === 'node' ? false : (fileProblem(rt) ?? false) }, (t) => {
    const marker = makeMarker();
    for (const budget of BUDGETS) {
      const on = runCaptured(rt, shellWasm, marker, budget);
      t.diagnostic(`tempcrypt on, budget ${budget}: ${on.tempFiles} temp files, ${on.tempBytes} bytes written to them, marker hits: temp ${on.tempHits}, any file ${on.fileHits}`);
      assert.ok(on.tempFiles >= 2, `temp files written: ${on.tempFiles}`);
      assert.ok(on.tempBytes >= 256 * 1024, `bytes written to temp files: ${on.tempBytes}`);
      assert.equal(on.tempHits, 0);
      assert.equal(on.fileHits, 0);
    }
    const off = runCaptured(rt, disabledWasm, marker);
    t.diagnostic(`tempcrypt off: ${off.tempFiles} temp files, ${off.tempBytes} bytes written to them, marker hits: temp ${off.tempHits}`);
    assert.ok(off.tempFiles >= 2, `temp files written: ${off.tempFiles}`);
    assert.ok(off.tempHits > 0, 'with tempcrypt off the marker must show up in the temp files');
  });
}
