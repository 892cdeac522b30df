// Under WASI, SQLite's own randomness has no /dev/urandom and falls back to
// time() and a pid of 1; tempcrypt's xRandomness (getentropy -> WASI
// random_get) must be what SQLite uses.  With the clock frozen by the
// runner (node:wasi and wasmtime: HOOKED_RUNTIMES), two runs of the tempcrypt shell must still differ in
// randomblob() and in temp file names, while the same shell forced onto
// SQLite's own VFS (-vfs unix-dotfile) repeats itself (the control: it
// shows the frozen clock really makes SQLite's fallback predictable).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { HOOKED_RUNTIMES, hooked, shellWasm, scratch, requireBuilt, join } from './lib.mjs';

requireBuilt(shellWasm);
const FROZEN = '1700000000000000000';
const SQL = `
PRAGMA temp_store=FILE;
PRAGMA cache_size=10;
PRAGMA temp.cache_size=10;
SELECT hex(randomblob(16));
CREATE TEMP TABLE t(x);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<6000)
  INSERT INTO t SELECT randomblob(100) FROM c;
SELECT count(*) FROM (SELECT x FROM t ORDER BY x);
`;

function once(rt, vfsArgs) {
  const s = scratch('rand');
  try {
    const log = join(s.dir, 'opens.log');
    // Budget 0: the temp files must exist, or their names say nothing.
    const r = hooked(rt)(shellWasm, [...vfsArgs, 'r.db'], {
      cwd: s.dir, dirs: ['.'], env: { TMPDIR: '.', SQLITE_TEMPCRYPT_BUDGET: '0' }, input: SQL,
      hostEnv: { TEMPCRYPT_FREEZE_CLOCK: FROZEN, TEMPCRYPT_OPEN_LOG: log },
    });
    assert.equal(r.code, 0, r.stderr);
    const blob = r.stdout.split('\n')[0];
    assert.match(blob, /^[0-9A-F]{32}$/);
    const temps = readFileSync(log, 'utf8').split('\n').filter((p) => /etilqs_/.test(p));
    assert.ok(temps.length >= 1, 'a temp file was created');
    return { blob, temps: temps.join(',') };
  } finally { s.cleanup(); }
}

for (const rt of HOOKED_RUNTIMES) {
  test(`randomblob() and temp file names are unpredictable with the clock frozen (${rt})`, (t) => {
    const a = once(rt, []), b = once(rt, []);
    t.diagnostic(`tempcrypt: ${a.blob} / ${b.blob}`);
    assert.notEqual(a.blob, b.blob);
    assert.notEqual(a.temps, b.temps);
  });

  test(`control: SQLite's own WASI randomness repeats with the clock frozen (${rt})`, (t) => {
    const a = once(rt, ['-vfs', 'unix-dotfile']), b = once(rt, ['-vfs', 'unix-dotfile']);
    t.diagnostic(`unix-dotfile: ${a.blob} / ${b.blob}`);
    assert.equal(a.blob, b.blob);
    assert.equal(a.temps, b.temps);
  });
}
