// The WASI release (make dist-wasi, mk/wasi-dist.mk), run by
// `make test-wasi-dist`:
// - the archive holds exactly the shell, the two libraries, their headers,
//   the pkg-config file, the example, README and LICENSE; the commands of
//   its README, run as written from the unpacked archive alone (a wasmtime
//   CLI on PATH), build the example with clang and pkg-config and run it,
//   and the shell answers SELECT ... FROM tempcrypt_files;
// - the same sources built again in two other directories give the same
//   bytes: the archive's SHA-256 and the npm package's module's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root, requireBuilt } from './lib.mjs';

const archive = path.resolve(root, process.env.TEMPCRYPT_WASI_ARCHIVE || '');
const pkgModule = path.join(root, 'dist', 'wasi', 'sqlite3.wasm');
const wasmtime = path.resolve(root, process.env.TEMPCRYPT_WASMTIME || 'build/tools/bin/wasmtime');
requireBuilt(archive, pkgModule);
const name = path.basename(archive, '.tar.gz');
const sha256 = (f) => createHash('sha256').update(fs.readFileSync(f)).digest('hex');
const PATH = `${path.dirname(wasmtime)}:${process.env.PATH}`;

function scratch() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tempcrypt-dist-'));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

// The indented blocks of a Markdown file that follow a line matching `after`.
function blockAfter(markdown, after) {
  const lines = markdown.split('\n');
  let i = lines.findIndex((l) => after.test(l));
  assert.ok(i >= 0, `no line ${after}`);
  while (!/^ {4}\S/.test(lines[i])) i++;
  const out = [];
  for (; i < lines.length && (/^ {4}/.test(lines[i]) || lines[i] === ''); i++) out.push(lines[i].slice(4));
  return out.join('\n').trim();
}

test('the release archive: its contents; its README\'s commands build the example from it alone and run it', () => {
  const s = scratch();
  try {
    execFileSync('tar', ['-xzf', archive, '-C', s.dir]);
    const top = path.join(s.dir, name);
    const files = execFileSync('find', ['.', '-type', 'f'], { cwd: top, encoding: 'utf8' }).trim().split('\n').sort();
    assert.deepEqual(files, ['./LICENSE', './README.md', './bin/sqlite3.wasm', './include/sqlite3.h', './include/tempcrypt.h',
      './lib/libsqlite3.a', './lib/libtempcrypt.a', './lib/pkgconfig/sqlite-tempcrypt.pc', './share/sqlite-tempcrypt/example.c']);
    const readme = fs.readFileSync(path.join(top, 'README.md'), 'utf8');
    const build = blockAfter(readme, /^Build the example/);
    const r = execFileSync('bash', ['-euo', 'pipefail', '-c', build], { cwd: top, encoding: 'utf8', env: { ...process.env, PATH } });
    assert.match(r, /^temp files encrypted: [1-9]\d*, bytes kept in memory at most: [1-9]\d*, bytes written to them: [1-9]\d*$/m);
    // The shell, as its README runs it, answers the evidence query.
    const shell = blockAfter(readme, /^Run the shell/);
    const out = execFileSync('bash', ['-euo', 'pipefail', '-c', shell], {
      cwd: top, encoding: 'utf8', env: { ...process.env, PATH },
      input: 'PRAGMA temp_store=FILE; PRAGMA tempcrypt_budget=0; PRAGMA temp.cache_size=2;\n' +
        "CREATE TEMP TABLE t AS SELECT printf('%0500d', value) AS x FROM generate_series(1, 200);\n" +
        "SELECT kind, encrypted, in_storage FROM tempcrypt_files WHERE open;\n",
    });
    assert.equal(out.trim(), '0\ntemp_db|1|1');
  } finally { s.cleanup(); }
});

// Copies of what the WASI build reads, in two fresh directories of
// different depths; each builds dist-wasi on its own.
test('reproducible: the archive and the npm module built in two other directories are byte for byte the same', () => {
  const want = { archive: sha256(archive), module: sha256(pkgModule) };
  const s = scratch();
  try {
    for (const where of ['a', 'deeper/b']) {
      const dir = path.join(s.dir, where);
      fs.mkdirSync(path.join(dir, 'build', 'sqlite'), { recursive: true });
      for (const f of ['Makefile', 'mk', 'src', 'wasm', 'js', 'scripts', 'package.json', 'LICENSE']) {
        fs.cpSync(path.join(root, f), path.join(dir, f), { recursive: true });
      }
      // The pins stamp first: sqlite3.c, copied after it, is then newer, as made.
      for (const f of ['pins', 'sqlite3.h', 'shell.c', 'sqlite3.c']) {
        fs.copyFileSync(path.join(root, 'build', 'sqlite', f), path.join(dir, 'build', 'sqlite', f));
      }
      execFileSync('make', ['-s', '-j2', 'dist-wasi'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
      const got = { archive: sha256(path.join(dir, path.relative(root, archive))), module: sha256(path.join(dir, 'dist', 'wasi', 'sqlite3.wasm')) };
      assert.deepEqual(got, want, `built in ${where}`);
    }
    console.log(`# ${name}.tar.gz sha256 ${want.archive}; dist/wasi/sqlite3.wasm sha256 ${want.module}`);
  } finally { s.cleanup(); }
});
