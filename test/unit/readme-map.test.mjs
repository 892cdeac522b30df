// test/README.md tells the truth: every repository path it names exists,
// and every file under test/ (as git tracks it) is named in it.
//
// A name is what sits in backticks and has a slash or a known extension,
// with no space (so `make check` and `node --test` are not paths); what
// the build makes (`build/`, `dist/`) is not a repository path and is left out.  A bare
// or relative name (`difftest.c`, `proof/`) is looked up in the folders
// named before it on the same line, then at the top of the repository.
// `*` is a glob (in one folder) and `<word>` stands for any part of a
// name, as in `ctests-<runtime>.test.mjs`.  A file is named by its path, by its bare
// name on a line that names its folder, or by a glob that matches it; a
// folder on its own names nothing (so a new test must be listed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const README = 'test/README.md';
const EXT = /\.(c|h|mjs|js|cjs|ts|md|sh|txt|mk|json|supp|sql|html|wasm|py)$/;

// [{ line, names: [{ text, dir, base }] }] for every line of the README.
export function namesIn(markdown) {
  return markdown.split('\n').map((line, i) => {
    const names = [];
    for (const m of line.matchAll(/`([^`\s]+)`/g)) {
      const text = m[1];
      if (text.startsWith('.') || !(text.includes('/') || EXT.test(text))) continue;
      if (/^[a-z]+:/.test(text)) continue;   // node:test, a URL
      if (/^(build|dist)\//.test(text)) continue;   // made by the build
      names.push(text);
    }
    return { line: i + 1, names };
  }).filter((l) => l.names.length);
}

const globRe = (pattern) => new RegExp('^' + pattern.replace(/<[^>]+>/g, '*')
  .split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*') + '$');

// The repository paths a name on a line can mean, first the likeliest.
function candidates(text, dirsBefore) {
  return [...dirsBefore.map((d) => d + text), text];
}

// The files of the tree (git's, else the working tree's) under ROOT.
function trackedFiles() {
  return execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n').filter(Boolean);
}

// Resolves every name of the README against the list of files: returns
// { missing: [`line N: name`], covered: Set of files named }.
export function resolve(markdown, files) {
  const fileSet = new Set(files);
  const dirSet = new Set(files.flatMap((f) => f.split('/').slice(0, -1).map((_, i, a) => a.slice(0, i + 1).join('/') + '/')));
  const missing = [];
  const covered = new Set();
  for (const { line, names } of namesIn(markdown)) {
    const dirs = [];
    for (const text of names) {
      let found = false;
      for (const c of candidates(text, dirs)) {
        if (/[*<]/.test(c)) {
          const re = globRe(c.replace(/\/$/, ''));
          const hits = [...fileSet, ...[...dirSet].map((d) => d.slice(0, -1))].filter((f) => re.test(f));
          for (const h of hits) if (fileSet.has(h)) covered.add(h);
          if (hits.length) { found = true; break; }
        } else if (c.endsWith('/') ? dirSet.has(c) : fileSet.has(c) || dirSet.has(c + '/')) {
          if (fileSet.has(c)) covered.add(c);
          found = true;
          break;
        }
      }
      if (!found) missing.push(`line ${line}: \`${text}\``);
      if (text.includes('/')) {
        const d = text.endsWith('/') ? text : text.slice(0, text.lastIndexOf('/') + 1);
        if (!/[*<]/.test(d) && !dirs.includes(d)) dirs.unshift(d);
      }
    }
  }
  return { missing, covered };
}

test('every path test/README.md names exists', () => {
  const { missing } = resolve(fs.readFileSync(path.join(ROOT, README), 'utf8'), trackedFiles());
  assert.deepEqual(missing, [], `${README} names paths that do not exist:\n${missing.join('\n')}`);
});

test('every file under test/ is named in test/README.md', () => {
  const files = trackedFiles();
  const { covered } = resolve(fs.readFileSync(path.join(ROOT, README), 'utf8'), files);
  const unnamed = files.filter((f) => f.startsWith('test/') && f !== README && !covered.has(f)
    && fs.existsSync(path.join(ROOT, f)));
  assert.deepEqual(unnamed, [], `files under test/ that ${README} does not name:\n${unnamed.join('\n')}`);
});

test('the checker itself: a missing path, a bare name, a glob, an unnamed file', () => {
  const files = ['test/a/x.c', 'test/a/y.c', 'test/b/one.test.mjs', 'test/b/two.test.mjs', 'src/z.c'];
  const md = '| `test/a/x.c`, `y.c` | `test/b/*.test.mjs`, `src/gone.c`, `z.c`, `make check` |\n`test/c/` `w.h`';
  const { missing, covered } = resolve(md, files);
  assert.deepEqual(missing, ['line 1: `src/gone.c`', 'line 2: `test/c/`', 'line 2: `w.h`']);
  assert.deepEqual([...covered].sort(), ['src/z.c', 'test/a/x.c', 'test/a/y.c', 'test/b/one.test.mjs', 'test/b/two.test.mjs']);
  assert.equal(resolve('`test/a/`', files).covered.size, 0, 'a folder alone names no file');
});
