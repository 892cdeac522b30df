// js/constants.js against SQLite's own header: every SQLITE_* value the
// package writes down must be the one in build/sqlite/sqlite3.h (the bridge
// checks the result codes against the wasm at start-up; this covers the
// open flags and everything else, without a build).
//   node --test test/unit/constants.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as constants from '../../js/constants.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HEADER = path.join(ROOT, 'build/sqlite/sqlite3.h');

// #define NAME value, where value is a number or an expression of earlier
// names, |, <<, a minus and parentheses (the forms sqlite3.h uses).
function defines(text) {
  const raw = new Map();
  for (const m of text.matchAll(/^#\s*define\s+(SQLITE_[A-Z0-9_]+)\s+([^\n]*?)\s*(?:\/\*.*)?$/gm)) {
    if (!raw.has(m[1])) raw.set(m[1], m[2]);
  }
  const value = (name, depth = 0) => {
    // SQLITE_STATIC/SQLITE_TRANSIENT are casts of 0 and -1.
    const expr = raw.get(name)?.replace('(sqlite3_destructor_type)', '');
    if (expr === undefined || depth > 8 || !/^[\sA-Z0-9_x|<()-]+$/.test(expr)) return undefined;
    const js = expr.replace(/SQLITE_[A-Z0-9_]+/g, (n) => String(value(n, depth + 1)));
    if (js.includes('undefined')) return undefined;
    return Function(`"use strict"; return (${js});`)();
  };
  return value;
}

test('every SQLITE_* constant of js/constants.js is the value in sqlite3.h', { skip: !fs.existsSync(HEADER) && 'build/sqlite/sqlite3.h not fetched yet (make sqlite)' }, () => {
  const value = defines(fs.readFileSync(HEADER, 'utf8'));
  const names = Object.keys(constants).filter((n) => n.startsWith('SQLITE_'));
  assert.ok(names.length >= 40, `only ${names.length} SQLITE_ constants`);
  for (const n of names) assert.equal(constants[n], value(n), n);
});
