// The WASI commands the docs print, run as written (make test-wasi-dist).
// A block to run is marked in README.md, npm-readme.md or docs/wasi.md
// by the comment `<!-- test/wasi/docs-commands.mjs runs this block (MODE) -->`
// right before it: an indented shell block, or a ```js block (run with
// Node).  MODE says where it runs:
//   checkout  in a fresh directory that links build/, src/ and wasm/ of
//             this checkout, as from the top of a built one
//   package   in an empty directory, after `npm pack` of this checkout:
//             `npm install sqlite-tempcrypt` installs that tarball (the
//             one change to the block), the rest runs as written
// "and compares its output": the next block (indented, or ```text) is
// what it must print.  A block ending in `wasmtime run ... test.db` gets
// SQL on stdin: the shell must answer with its VFS and tempcrypt_files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root } from './lib.mjs';

const wasmtime = path.resolve(root, process.env.TEMPCRYPT_WASMTIME || 'build/tools/bin/wasmtime');
const MARK = /^<!-- test\/wasi\/docs-commands\.mjs runs this block \((checkout|package)\)( and compares its output)? -->$/;
const SHELL_INPUT = 'SELECT count(*) >= 0 FROM tempcrypt_files;\n.vfsname\n';

// The block starting at line i: { text, lang, end }.
function blockAt(lines, i) {
  while (lines[i] === '' || /^(prints|<!--)/.test(lines[i]) || !/^( {4}|```)/.test(lines[i])) i++;
  if (lines[i].startsWith('```')) {
    const lang = lines[i].slice(3).trim();
    const end = lines.indexOf('```', i + 1);
    return { text: `${lines.slice(i + 1, end).join('\n')}\n`, lang, end: end + 1 };
  }
  const out = [];
  for (; i < lines.length && (/^ {4}/.test(lines[i]) || (lines[i] === '' && /^ {4}/.test(lines[i + 1] ?? ''))); i++) out.push(lines[i].slice(4));
  return { text: `${out.join('\n')}\n`, lang: 'sh', end: i };
}

function markedBlocks(file) {
  const lines = fs.readFileSync(path.join(root, file), 'utf8').split('\n');
  const out = [];
  lines.forEach((l, i) => {
    const m = MARK.exec(l);
    if (!m) return;
    const block = blockAt(lines, i + 1);
    out.push({ file, line: i + 2, mode: m[1], block, expect: m[2] ? blockAt(lines, block.end).text : null });
  });
  return out;
}

const BLOCKS = ['README.md', 'npm-readme.md', 'docs/wasi.md'].flatMap(markedBlocks);

let tarball = null;
function packed(dir) {
  if (!tarball) {
    const out = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: root, encoding: 'utf8' }));
    tarball = path.join(dir, out[0].filename);
  }
  return tarball;
}

const scratchRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'tempcrypt-docs-'));
process.on('exit', () => fs.rmSync(scratchRoot, { recursive: true, force: true }));

test('the docs mark the WASI commands they print for this test', () => {
  const where = (f, mode) => BLOCKS.filter((b) => b.file === f && b.mode === mode).length;
  assert.ok(where('README.md', 'checkout') >= 1 && where('README.md', 'package') >= 1 && where('npm-readme.md', 'package') >= 2,
    JSON.stringify(BLOCKS.map((b) => [b.file, b.mode])));
  assert.ok(where('docs/wasi.md', 'checkout') >= 3 && where('docs/wasi.md', 'package') >= 1);
});

for (const b of BLOCKS) {
  test(`${b.file}:${b.line} (${b.mode}${b.expect ? ', output compared' : ''}) runs as written`, () => {
    const dir = fs.mkdtempSync(path.join(scratchRoot, 'run-'));
    let text = b.block.text;
    if (b.mode === 'checkout') {
      for (const d of ['build', 'src', 'wasm']) fs.symlinkSync(path.join(root, d), path.join(dir, d));
    } else {
      const tgz = packed(scratchRoot);
      if (b.block.lang === 'js') execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent', tgz], { cwd: dir });
      text = text.replace(/^npm install sqlite-tempcrypt$/m, `npm install --no-audit --no-fund --silent ${tgz}`);
    }
    const interactive = b.block.lang === 'sh' && /wasmtime run [^\n]*test\.db\n$/.test(text);
    const [cmd, args] = b.block.lang === 'js' ? [process.execPath, [path.join(dir, 'snippet.mjs')]] : ['bash', ['-euo', 'pipefail', '-c', text]];
    if (b.block.lang === 'js') fs.writeFileSync(path.join(dir, 'snippet.mjs'), text);
    // The checkout's wasmtime is not on PATH: a block must name it, or set PATH itself.
    const env = { ...process.env, PATH: process.env.PATH.split(':').filter((p) => path.resolve(p) !== path.dirname(wasmtime)).join(':') };
    const out = execFileSync(cmd, args, { cwd: dir, encoding: 'utf8', env, input: interactive ? SHELL_INPUT : '', stdio: ['pipe', 'pipe', 'pipe'] });
    if (b.expect !== null) assert.equal(out, b.expect);
    if (interactive) assert.match(out, /^1\ntempcrypt\/unix-dotfile\n$/m);
  });
}

// `make wasi-shell DB=...` (README, docs/wasi.md): the shell under the
// checkout's wasmtime, the database a path under the checkout.
test('make wasi-shell DB=... runs the shell under the checkout\'s wasmtime', () => {
  const db = path.join('build', `docs-commands-${process.pid}.db`);
  try {
    // As a user types it: not a sub-make of a make test that runs it (whose
    // MAKEFLAGS would print "Entering directory" lines).
    const { MAKEFLAGS, MFLAGS, MAKELEVEL, MAKEOVERRIDES, ...env } = process.env;
    const out = execFileSync('make', ['-s', 'wasi-shell', `DB=${db}`, `WASMTIME=${wasmtime}`], { cwd: root, encoding: 'utf8', env, input: SHELL_INPUT, stdio: ['pipe', 'pipe', 'pipe'] });
    assert.equal(out, '1\ntempcrypt/unix-dotfile\n');
  } finally {
    for (const f of [db, `${db}.lock`]) fs.rmSync(path.join(root, f), { recursive: true, force: true });
  }
});
