// The WASI shell (build/wasi/sqlite3.wasm) run as
//   wasmtime run --dir=. --env TMPDIR=. sqlite3.wasm test.db
// under every runtime (RUNTIMES, lib.mjs).
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { RUNTIMES, runners, shellWasm, scratch, requireBuilt, wasiBuild, join, makeMarker } from './lib.mjs';

requireBuilt(shellWasm);

// Temp table, sort, DISTINCT, GROUP BY, index build and VACUUM.  The temp
// table and VACUUM's copy (caches of 20 pages) go to temp files, as the
// test without a temp directory shows; the sort, DISTINCT and GROUP BY
// data are too small to leave memory (250-page sorter, 16 MiB ephemeral
// cache).
function workload(tempStore) {
  return `
PRAGMA temp_store=${tempStore};
PRAGMA cache_size=20;
PRAGMA temp.cache_size=20;
CREATE TABLE t(i INTEGER PRIMARY KEY, a TEXT, b INTEGER);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<8000)
  INSERT INTO t SELECT i, printf('%x-%d', (i*2654435761)%1000003, i), (i*7919)%10007 FROM c;
CREATE TEMP TABLE tt AS SELECT a, b FROM t WHERE i%3=0;
SELECT count(*), sum(b), min(a), max(a) FROM tt;
SELECT a FROM t ORDER BY a DESC LIMIT 3 OFFSET 4000;
SELECT count(DISTINCT b), count(DISTINCT a) FROM t;
SELECT sum(length(x)), count(*) FROM (SELECT group_concat(a) AS x FROM t GROUP BY b%97 ORDER BY 1);
CREATE INDEX ti ON t(a, b);
VACUUM;
PRAGMA integrity_check;
SELECT count(*), sum(b) FROM t;
`;
}

for (const rt of RUNTIMES) {
  describe(`sqlite3.wasm under ${rt}`, () => {
    const run = runners[rt];

    test('tempcrypt is the default VFS', () => {
      const s = scratch();
      try {
        const r = run(shellWasm, ['test.db'], { cwd: s.dir, dirs: ['.'], env: { TMPDIR: '.' }, input: 'SELECT 1;\n.vfslist\n.vfsname\n' });
        assert.equal(r.code, 0, r.stderr);
        assert.match(r.stdout, /^vfs\.zName\s+= "tempcrypt"\s+<--- CURRENT$/m);
        assert.match(r.stdout, /^tempcrypt\/unix-dotfile$/m);
      } finally { s.cleanup(); }
    });

    test('temp_store=FILE (encrypted temp files) gives the same results as MEMORY', () => {
      const out = {};
      for (const ts of ['FILE', 'MEMORY']) {
        const s = scratch();
        try {
          const r = run(shellWasm, ['test.db'], { cwd: s.dir, dirs: ['.'], env: { TMPDIR: '.' }, input: workload(ts) });
          assert.equal(r.code, 0, r.stderr);
          assert.doesNotMatch(r.stderr, /error/i);
          // Temp files are deleted on close; the lock is released.
          assert.deepEqual(readdirSync(s.dir), ['test.db']);
          out[ts] = r.stdout;
        } finally { s.cleanup(); }
      }
      assert.equal(out.FILE, out.MEMORY);
      const lines = out.FILE.trim().split('\n');
      assert.match(lines[0], /^2666\|/);
      assert.ok(lines.includes('ok'), 'integrity_check ok');
      assert.match(lines.at(-1), /^8000\|/);
    });

    test('without a temporary directory: a clear error, not a crash', () => {
      const s = scratch();
      try {
        // No --dir at all: the database is in memory, temp files have
        // nowhere to go (without the memory tier, which would keep them).
        const r = run(shellWasm, [], { cwd: s.dir, env: { SQLITE_TEMPCRYPT_BUDGET: '0' }, input: workload('FILE') });
        assert.equal(r.code, 1, `exit code ${r.code}\n${r.stderr}`);
        assert.match(r.stderr, /cannot create a temporary file: no writable temporary directory/);
        assert.match(r.stderr, /--env TMPDIR=/);
        assert.match(r.stderr, /disk I\/O error/);
        assert.doesNotMatch(r.stderr, /RuntimeError|wasm trap|unreachable/);
      } finally { s.cleanup(); }
    });

    test('without a temporary directory, the memory tier keeps the temp files', () => {
      const s = scratch();
      try {
        // The default budget holds this workload's temp files: nothing needs a directory.
        const r = run(shellWasm, [], { cwd: s.dir, input: workload('FILE') });
        assert.equal(r.code, 0, `exit code ${r.code}\n${r.stderr}`);
        assert.doesNotMatch(r.stderr, /error|temporary/i);
        const lines = r.stdout.trim().split('\n');
        assert.match(lines[0], /^2666\|/);
        assert.ok(lines.includes('ok'), 'integrity_check ok');
      } finally { s.cleanup(); }
    });

    // The evidence in SQL: a marker that lives only in a temp table, looked
    // for in what its temp file stored (tempcrypt_files('marker')), with
    // tempcrypt on and, as the control, off (SQLITE_TEMPCRYPT_ENABLED=0).
    test('SELECT ... FROM tempcrypt_files(marker): 0 hits encrypted, found in the control', () => {
      const marker = makeMarker();
      const sql = `PRAGMA temp_store=FILE; PRAGMA tempcrypt_budget=0; PRAGMA temp.cache_size=2;
CREATE TEMP TABLE secret AS SELECT '${marker}' || value AS s FROM generate_series(1,1000);
SELECT kind, open, encrypted, in_storage, bytes_to_storage > 0, found FROM tempcrypt_files('${marker}') WHERE open;
`;
      const got = {};
      for (const enabled of ['1', '0']) {
        const s = scratch();
        try {
          const r = run(shellWasm, ['test.db'], { cwd: s.dir, dirs: ['.'], env: { TMPDIR: '.', SQLITE_TEMPCRYPT_ENABLED: enabled }, input: sql });
          assert.equal(r.code, 0, r.stderr);
          got[enabled] = r.stdout.trim().split('\n');
        } finally { s.cleanup(); }
      }
      assert.deepEqual(got['1'], ['0', 'temp_db|1|1|1|1|0']);
      const control = /^temp_db\|1\|0\|1\|1\|(\d+)$/.exec(got['0'][1]);
      assert.ok(control && Number(control[1]) >= 1000, `control: ${got['0']}`);
    });
  });
}

// The embedding example of docs/wasi.md, built from the shipped
// libtempcrypt.a and libsqlite3.a only.  (Not under jco: a module needs
// wasm/wasi/cabi_realloc.c linked in for that, which the example leaves
// out to stay minimal; see docs/wasi.md.)
const exampleWasm = join(wasiBuild, 'example.wasm');
for (const rt of RUNTIMES.filter((r) => r !== 'jco')) {
  test(`embedding example (libtempcrypt.a + libsqlite3.a) under ${rt}`, () => {
    requireBuilt(exampleWasm);
    const s = scratch();
    try {
      const r = runners[rt](exampleWasm, ['example.db'], { cwd: s.dir, dirs: ['.'], env: { TMPDIR: '.' } });
      assert.equal(r.code, 0, r.stderr);
      const m = /^temp files encrypted: (\d+), bytes kept in memory at most: (\d+), bytes written to them: (\d+)$/m.exec(r.stdout);
      assert.ok(m, r.stdout);
      // Part in memory (at most the 1 MiB budget), part in encrypted temp files.
      assert.ok(Number(m[1]) >= 1 && Number(m[2]) > 0 && Number(m[2]) <= 1 << 20 && Number(m[3]) > 100000, r.stdout);
    } finally { s.cleanup(); }
  });
}
