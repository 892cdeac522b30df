// The package's README on npm is npm-readme.md, not the repository's
// README.md (which is for developers: `make demo`, `make test`).  npm
// ships the README.md at the package root, whatever `files` says, so
// package.json's prepack puts npm-readme.md there for the pack and its
// postpack puts the repository's back:
//   node scripts/pack-readme.mjs prepack    README.md -> build/pack/README.md, npm-readme.md -> README.md
//   node scripts/pack-readme.mjs postpack   build/pack/README.md -> README.md
// A pack that dies between the two leaves the repository's README in
// build/pack/README.md; the next prepack keeps it there (README.md is
// then npm-readme.md's copy) and the next postpack puts it back.
// test/unit/package.test.mjs checks the packed README and the restore.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const README = path.join(ROOT, 'README.md');
const NPM_README = path.join(ROOT, 'npm-readme.md');
const SAVED = path.join(ROOT, 'build', 'pack', 'README.md');

const read = (f) => (fs.existsSync(f) ? fs.readFileSync(f) : null);

function prepack() {
  const npm = fs.readFileSync(NPM_README);
  const current = read(README);
  fs.mkdirSync(path.dirname(SAVED), { recursive: true });
  // README.md is the repository's unless it is npm-readme.md's copy left
  // by a pack that died (then the repository's is already saved).
  if (current !== null && !current.equals(npm)) fs.renameSync(README, SAVED);
  else if (!fs.existsSync(SAVED)) throw new Error('pack-readme: README.md is missing or a copy of npm-readme.md, and build/pack/README.md does not hold the repository\'s README');
  fs.writeFileSync(README, npm);
}

function postpack() {
  if (fs.existsSync(SAVED)) fs.renameSync(SAVED, README);
}

const step = { prepack, postpack }[process.argv[2]];
if (!step) {
  console.error('usage: node scripts/pack-readme.mjs prepack|postpack');
  process.exit(2);
}
step();
