// js/'s modules import one another without a circle (static imports and
// import() alike): each layer can be read, loaded and tested from the
// bottom up.  IMPORTS_DIR=<dir> checks another copy of js/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const JS = process.env.IMPORTS_DIR || path.join(ROOT, 'js');

// file -> the js/ files it imports (paths under dir; its folders' modules
// included, not the demo page's).
function importsOf(dir) {
  const graph = new Map();
  for (const f of fs.readdirSync(dir, { recursive: true }).filter((n) => n.endsWith('.js') && !n.startsWith('demo'))) {
    const src = fs.readFileSync(path.join(dir, f), 'utf8');
    const specs = [...src.matchAll(/(?:\bfrom|\bimport\s*\()\s*'(\.\.?\/[\w./-]+\.js)'/g)].map((m) => m[1]);
    graph.set(f, specs.map((s) => path.join(path.dirname(f), s)));
  }
  return graph;
}

// Every circle, as "a.js -> b.js -> a.js".
function circles(graph) {
  const found = new Set(), done = new Set();
  const walk = (f, stack) => {
    const at = stack.indexOf(f);
    if (at >= 0) { found.add([...stack.slice(at), f].join(' -> ')); return; }
    if (done.has(f)) return;
    for (const g of graph.get(f) || []) walk(g, [...stack, f]);
    done.add(f);
  };
  for (const f of graph.keys()) walk(f, []);
  return [...found];
}

test('js/ has no import circle', () => {
  const graph = importsOf(JS);
  assert.ok(graph.size > 10, `read ${graph.size} modules`);
  const dangling = [...graph].flatMap(([f, to]) => to.filter((g) => !graph.has(g) && !g.endsWith('sqlite3.mjs')).map((g) => `${f} -> ${g}`));
  assert.deepEqual(dangling, [], 'imports of no module of js/');
  assert.deepEqual(circles(graph), []);
});
