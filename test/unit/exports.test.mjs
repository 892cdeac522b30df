// The wasm's export list is read from js/ (mk/browser.mk: every M._<name>
// call); this holds js/ to writing each call to the module that way, and
// checks that the built module exports every one (a dist/ older than js/
// fails here).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEngine } from '../../dist/engine/engine.js';
import { MemoryBackend } from '../../dist/storage/memory-backend.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const JS = path.join(ROOT, 'js');
// js/'s modules, its folders' included (not the demo page's).
const sources = fs.readdirSync(JS, { recursive: true }).filter((f) => f.endsWith('.js') && !f.startsWith('demo'))
  .map((f) => [f, fs.readFileSync(path.join(JS, f), 'utf8')]);
// A C function of the module: _sqlite3_*, _tc_*, _malloc, _free.
const C_NAME = /\b_(?:sqlite3_\w+|tc_\w+|malloc|free)\b/g;

test('js/ calls the C functions of the wasm only as M._<name>', () => {
  const other = [];
  for (const [f, src] of sources) {
    for (const m of src.matchAll(C_NAME)) {
      if (src.slice(m.index - 2, m.index) !== 'M.') other.push(`${f}: ...${src.slice(Math.max(0, m.index - 20), m.index + m[0].length)}`);
    }
  }
  assert.deepEqual(other, []);
});

test('the built module exports every C function js/ calls', async () => {
  const names = new Set(sources.flatMap(([, src]) => [...src.matchAll(/M\._([a-z][a-z0-9_]*)/g)].map((m) => m[1])));
  assert.ok(names.has('sqlite3_step') && names.has('tc_init'), [...names].join(' '));
  const eng = await createEngine(new MemoryBackend());
  const missing = [...names].filter((n) => typeof eng.M[`_${n}`] !== 'function');
  assert.deepEqual(missing, []);
});
