// Leak proof of the WASI shell: build/wasi/sqlite3.wasm runs a workload
// whose temp table and index build (and sorts and a DISTINCT that stay in
// memory) carry a marker built at run time, with the temp directory a
// directory of its own (TMPDIR=tmp), under every runtime, seen two ways:
//   strace      every byte the runtime's process writes (write, pwrite64,
//               writev, ...), by the file it went to
//   WASI calls  every byte the module hands to fd_write/fd_pwrite, by the
//               path it opened (hooked-run.mjs / hooked-run.py: node:wasi
//               and wasmtime)
// and asserts:
//   tempcrypt on  (sqlite3.wasm):          the marker is in no byte written
//                                           to any file; temp files were written;
//                                           twice: without the memory tier
//                                           (SQLITE_TEMPCRYPT_BUDGET=0: every
//                                           temp file on disk) and with a budget
//                                           so small that the temp files spill
//                                           part-way (TIER_BUDGET)
//   tempcrypt off (sqlite3-disabled.wasm): the marker is in the temp files
//                                           (the check can see a leak)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RUNTIMES, HOOKED_RUNTIMES, hooked, commandLine, shellWasm, disabledWasm, scratch, makeMarker, requireBuilt, mkdirSync, join } from './lib.mjs';
import { traceWrites, haveStrace, countOccurrences } from './strace.mjs';
import { readFileSync } from 'node:fs';

requireBuilt(shellWasm, disabledWasm);

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

function runTraced(rt, module, marker, budget = 0) {
  const s = scratch('strace');
  try {
    mkdirSync(join(s.dir, 'tmp'));
    const t = traceWrites(...commandLine(rt, module, ['leak.db'], { dirs: ['.'], env: { TMPDIR: 'tmp', SQLITE_TEMPCRYPT_BUDGET: String(budget) } }),
      { cwd: s.dir, input: workload(marker), traceFile: join(s.dir, 'strace.out') });
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, new RegExp(`^${ROWS}\n${ROWS}\n${ROWS}\\|\\d+\n${ROWS}\n$`));
    const m = Buffer.from(marker);
    let tempBytes = 0, tempFiles = 0, tempHits = 0, fileHits = 0;
    for (const [path, bytes] of t.files) {
      const hits = countOccurrences(bytes, m);
      fileHits += hits;
      if (path.startsWith(join(s.dir, 'tmp') + '/')) {
        tempFiles++; tempBytes += bytes.length; tempHits += hits;
      }
    }
    return { tempFiles, tempBytes, tempHits, fileHits, otherHits: countOccurrences(t.other, m) };
  } finally { s.cleanup(); }
}

// The marker in no byte written with tempcrypt on (at each of BUDGETS); in
// the temp files with it off (the control).  run(module, marker, budget)
// returns the counts.
function onAndOff(t, run) {
  const marker = makeMarker();
  for (const budget of BUDGETS) {
    const on = run(shellWasm, marker, budget);
    t.diagnostic(`tempcrypt on, budget ${budget}: ${on.tempFiles} temp files, ${on.tempBytes} bytes written to them, marker hits: temp ${on.tempHits}, any file ${on.fileHits}, pipes ${on.otherHits ?? '-'}`);
    assert.ok(on.tempFiles >= 2, `temp files written: ${on.tempFiles}`);
    assert.ok(on.tempBytes >= 256 * 1024, `bytes written to temp files: ${on.tempBytes}`);
    assert.equal(on.tempHits, 0);
    assert.equal(on.fileHits, 0);
    assert.equal(on.otherHits ?? 0, 0);
  }
  const off = run(disabledWasm, marker);
  t.diagnostic(`tempcrypt off: ${off.tempFiles} temp files, ${off.tempBytes} bytes written to them, marker hits: temp ${off.tempHits}`);
  assert.ok(off.tempFiles >= 2, `temp files written: ${off.tempFiles}`);
  assert.ok(off.tempHits > 0, 'with tempcrypt off the marker must show up in the temp files');
}

for (const rt of RUNTIMES) {
  test(`strace (${rt}): tempcrypt keeps the marker out of every byte written`, (t) => {
    assert.ok(haveStrace(), 'strace is needed (scripts/install-deps.sh installs it)');
    onAndOff(t, (module, marker, budget) => runTraced(rt, module, marker, budget));
  });

  // The layout with a host directory of its own for temp files, preopened
  // as the guest's /tmp and no TMPDIR: every temp file lands there, encrypted.
  test(`strace (${rt}): with --dir HOST::/tmp and no TMPDIR, temp files go to HOST`, (t) => {
    const marker = makeMarker();
    const s = scratch('strace2');
    try {
      mkdirSync(join(s.dir, 'db'));
      mkdirSync(join(s.dir, 'scratch'));
      const tr = traceWrites(...commandLine(rt, shellWasm, ['leak.db'], { dirs: ['db::.', 'scratch::/tmp'], env: { SQLITE_TEMPCRYPT_BUDGET: '0' } }),
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
}

// Every byte the module hands to WASI's fd_write/fd_pwrite, by path.
function runCaptured(rt, module, marker, budget = 0) {
  const s = scratch(`capture-${rt}`);
  try {
    mkdirSync(join(s.dir, 'tmp'));
    const out = join(s.dir, 'capture.json');
    const r = hooked(rt)(module, ['leak.db'], {
      cwd: s.dir, dirs: ['.'], env: { TMPDIR: 'tmp', SQLITE_TEMPCRYPT_BUDGET: String(budget) }, input: workload(marker),
      hostEnv: { TEMPCRYPT_CAPTURE_MARKER: marker, TEMPCRYPT_CAPTURE_OUT: out },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^${ROWS}\n${ROWS}\n${ROWS}\\|\\d+\n${ROWS}\n$`));
    let tempFiles = 0, tempBytes = 0, tempHits = 0, fileHits = 0;
    for (const [path, f] of Object.entries(JSON.parse(readFileSync(out, 'utf8')))) {
      fileHits += f.hits;
      if (/etilqs_/.test(path)) { tempFiles++; tempBytes += f.bytes; tempHits += f.hits; }
    }
    return { tempFiles, tempBytes, tempHits, fileHits };
  } finally { s.cleanup(); }
}

for (const rt of HOOKED_RUNTIMES) {
  test(`WASI calls (${rt}): tempcrypt keeps the marker out of every byte the module writes`, (t) => {
    onAndOff(t, (module, marker, budget) => runCaptured(rt, module, marker, budget));
  });
}
