// What a bundler puts in a browser build of the package: Vite (the
// consumer test's bundler) builds the main entry and the Worker it starts
// from dist/, and no Node-only code is in the output (the file storage
// and its lock: js/storage/file-backend.js, js/storage/file-lock.js); Node still gets
// storage 'file' by default.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { BACKENDS, DEFAULT_STORAGE } from '../../dist/storage/storage.js';
import { LOCK_SUFFIX } from '../../dist/storage/file-lock.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('a browser bundle of the package carries no Node-only code', async () => {
  const outDir = path.join(ROOT, 'build', 'node-unit', 'bundle');
  fs.rmSync(outDir, { recursive: true, force: true });
  await build({
    root: ROOT, configFile: false, logLevel: 'silent',
    build: {
      outDir, write: true, minify: false,
      rollupOptions: { input: { index: path.join(ROOT, 'dist/index.js'), worker: path.join(ROOT, 'dist/worker-script.js') } },
    },
  });
  const files = fs.readdirSync(outDir, { recursive: true }).filter((f) => f.endsWith('.js'));
  const code = files.map((f) => fs.readFileSync(path.join(outDir, f), 'utf8')).join('\n');
  assert.ok(files.length > 0 && /createSqliteModule|sqlite3_open_v2/.test(code), `the bundle has the engine (${files})`);
  for (const marker of [LOCK_SUFFIX, 'class FileLock', 'class FileBackend', 'wipeLeftovers']) {
    assert.ok(!code.includes(marker), `the bundle holds Node-only code: ${marker}`);
  }
  fs.rmSync(outDir, { recursive: true, force: true });
});

test("Node still gets storage 'file', by default, as file-backend.js defines it", async () => {
  assert.equal(DEFAULT_STORAGE, 'file');
  const real = (await import('../../dist/storage/file-backend.js')).default;
  const fields = (k) => [k.name, k.persistent, k.options, k.unavailable()];
  assert.deepEqual(fields(BACKENDS.file), fields(real));
  assert.equal(await BACKENDS.file.unavailable(), null);
  const { scratch } = BACKENDS.file;
  const s = await scratch('bundle');
  try {
    const b = await BACKENDS.file.open('x.db', s.options);
    b.close();
  } finally {
    await s.dispose();
  }
});
