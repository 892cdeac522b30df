// What npm ships: `npm pack` (the real one, with package.json's
// prepack/postpack) into a scratch directory, unpacked, then:
// - the tarball's README.md is npm-readme.md, and the repository's
//   README.md is back in place afterwards (scripts/pack-readme.mjs);
// - every relative link and image in every shipped Markdown file points
//   at a file in the tarball, and every #anchor at a heading of it;
// - the snippet of npm-readme.md that the comment marks runs against the
//   packed package and prints exactly the output shown under it.
// Needs dist/ (make browser; `make test-node-unit` builds it first).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NPM_README = path.join(ROOT, 'npm-readme.md');
const MARKER = '<!-- This block and the output below are run and compared by test/unit/package.test.mjs. -->';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'tempcrypt-pack-'));
process.on('exit', () => fs.rmSync(scratch, { recursive: true, force: true }));

// Pack once, unpack into scratch/package.
let packed = null;
function pack() {
  if (packed) return packed;
  assert.ok(fs.existsSync(path.join(ROOT, 'dist', 'sqlite3.wasm')), 'dist/ is not built: make browser');
  const readmeBefore = fs.readFileSync(path.join(ROOT, 'README.md'));
  const out = JSON.parse(execFileSync(process.env.NPM || 'npm', ['pack', '--json', '--pack-destination', scratch], { cwd: ROOT, encoding: 'utf8' }));
  execFileSync('tar', ['-xzf', path.join(scratch, out[0].filename), '-C', scratch]);
  packed = { dir: path.join(scratch, 'package'), files: out[0].files.map((f) => f.path), readmeBefore };
  return packed;
}

test('the tarball\'s README.md is npm-readme.md; the repository\'s README.md is put back', () => {
  const { dir, files, readmeBefore } = pack();
  assert.ok(files.includes('README.md') && !files.includes('npm-readme.md'), files.join(' '));
  assert.ok(fs.readFileSync(path.join(dir, 'README.md')).equals(fs.readFileSync(NPM_README)), 'packed README.md differs from npm-readme.md');
  assert.ok(fs.readFileSync(path.join(ROOT, 'README.md')).equals(readmeBefore), 'the repository README.md was not restored after npm pack');
  assert.ok(!fs.existsSync(path.join(ROOT, 'build', 'pack', 'README.md')), 'build/pack/README.md left behind');
});

test('scripts/pack-readme.mjs: a pack that died before postpack loses nothing', () => {
  const root = path.join(scratch, 'swap');
  fs.mkdirSync(path.join(root, 'scripts'), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'scripts', 'pack-readme.mjs'), path.join(root, 'scripts', 'pack-readme.mjs'));
  fs.writeFileSync(path.join(root, 'README.md'), 'repository\n');
  fs.writeFileSync(path.join(root, 'npm-readme.md'), 'npm\n');
  const step = (s) => execFileSync(process.execPath, [path.join(root, 'scripts', 'pack-readme.mjs'), s]);
  const readme = () => fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  step('prepack');
  assert.equal(readme(), 'npm\n');
  step('prepack');                       // the first pack died: no postpack
  assert.equal(readme(), 'npm\n');
  step('postpack');
  assert.equal(readme(), 'repository\n');
  step('postpack');                      // nothing saved: nothing changes
  assert.equal(readme(), 'repository\n');
});

// GitHub's heading anchors (npm renders READMEs the same way): lower case,
// punctuation dropped, each space a hyphen, repeats numbered.
function anchors(markdown) {
  const seen = new Map();
  const out = new Set();
  for (const line of stripFences(markdown).split('\n')) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = m[1].toLowerCase().replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '').replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

// Fenced blocks blanked out (their lines are not headings), and code spans
// too (their text is not links).
const stripFences = (markdown) => markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, (b) => b.replace(/[^\n]/g, ' '));
const stripCode = (markdown) => stripFences(markdown).replace(/`[^`\n]*`/g, (s) => ' '.repeat(s.length));

function links(markdown) {
  const text = stripCode(markdown);
  return [...text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g), ...text.matchAll(/\bsrc="([^"]+)"/g)].map((m) => m[1]);
}

test('every relative link in the shipped Markdown resolves inside the tarball', () => {
  const { dir, files } = pack();
  const mds = files.filter((f) => f.endsWith('.md'));
  assert.ok(mds.includes('README.md') && mds.includes('docs/api.md'), mds.join(' '));
  const broken = [];
  let checked = 0;
  for (const md of mds) {
    const src = fs.readFileSync(path.join(dir, md), 'utf8');
    for (const target of links(src)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;          // https:, mailto:
      checked++;
      const [p, anchor] = target.split('#');
      const file = p ? path.posix.normalize(path.posix.join(path.posix.dirname(md), decodeURI(p))) : md;
      if (!files.includes(file)) { broken.push(`${md}: ${target} (${file} is not in the tarball)`); continue; }
      if (anchor !== undefined && file.endsWith('.md') && !anchors(fs.readFileSync(path.join(dir, file), 'utf8')).has(anchor)) {
        broken.push(`${md}: ${target} (no heading #${anchor} in ${file})`);
      }
    }
  }
  assert.ok(checked > 20, `only ${checked} relative links found: is the link pattern still right?`);
  assert.deepEqual(broken, []);
});

test('the README\'s temp-file snippet runs against the packed package and prints what the README shows', () => {
  const { dir } = pack();
  const readme = fs.readFileSync(path.join(dir, 'README.md'), 'utf8');
  const at = readme.indexOf(MARKER);
  assert.ok(at >= 0 && readme.indexOf(MARKER, at + 1) < 0, 'the snippet marker must be in npm-readme.md once');
  const m = /^```js\n([\s\S]*?)^```\n\s*^```text\n([\s\S]*?)^```$/m.exec(readme.slice(at + MARKER.length));
  assert.ok(m, 'a ```js block followed by a ```text block must come after the marker');
  const [, code, shown] = m;
  // Inside the unpacked package, `import ... from 'sqlite-tempcrypt'`
  // resolves to it (a package may import itself by name through "exports").
  const file = path.join(dir, 'readme-snippet.mjs');
  fs.writeFileSync(file, code);
  const cwd = fs.mkdtempSync(path.join(scratch, 'run-'));
  const stdout = execFileSync(process.execPath, [file], { cwd, encoding: 'utf8' });
  assert.equal(stdout, shown);
  assert.deepEqual(fs.readdirSync(cwd), ['spill-demo.db'], 'the snippet left files other than its database');
});
