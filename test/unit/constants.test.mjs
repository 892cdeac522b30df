// js/shared/constants.js against SQLite's own header: every SQLITE_* value the
// package writes down must be the one in build/sqlite/sqlite3.h (the bridge
// checks the result codes against the wasm at start-up; this covers the
// open flags and everything else, without a build).
//   node --test test/unit/constants.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as constants from '../../js/shared/constants.js';

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

test('every SQLITE_* constant of js/shared/constants.js is the value in sqlite3.h', { skip: !fs.existsSync(HEADER) && 'build/sqlite/sqlite3.h not fetched yet (make sqlite)' }, () => {
  const value = defines(fs.readFileSync(HEADER, 'utf8'));
  const names = Object.keys(constants).filter((n) => n.startsWith('SQLITE_'));
  assert.ok(names.length >= 40, `only ${names.length} SQLITE_ constants`);
  for (const n of names) assert.equal(constants[n], value(n), n);
});

// The result codes of sqlite3.h: the primary ones (the block from
// SQLITE_OK to SQLITE_DONE) and every extended one (a primary code |
// (n<<8)), by name.
function resultCodes(text) {
  const block = text.slice(text.indexOf('#define SQLITE_OK '), text.indexOf('\n', text.indexOf('#define SQLITE_DONE ')));
  const primary = [...block.matchAll(/^#\s*define\s+(SQLITE_[A-Z]+)\s+\d+/gm)].map((m) => m[1]);
  const extended = [...text.matchAll(/^#\s*define\s+(SQLITE_[A-Z_]+)\s+\(SQLITE_[A-Z]+\s*\|\s*\(\d+<<8\)\)/gm)].map((m) => m[1]);
  return [...primary, ...extended];
}

test('js/shared/constants.js has every result code of sqlite3.h, and RESULT_CODE_NAMES names exactly those', { skip: !fs.existsSync(HEADER) && 'build/sqlite/sqlite3.h not fetched yet (make sqlite)' }, () => {
  const text = fs.readFileSync(HEADER, 'utf8');
  const names = resultCodes(text);
  assert.ok(names.length > 100 && names.includes('SQLITE_DONE') && names.includes('SQLITE_CONSTRAINT_UNIQUE'), `${names.length} result codes found in sqlite3.h`);
  const value = defines(text);
  for (const n of names) assert.equal(constants[n], value(n), n);
  assert.deepEqual([...constants.RESULT_CODE_NAMES.values()].sort(), [...names].sort());
  for (const [code, name] of constants.RESULT_CODE_NAMES) assert.equal(constants[name], code, name);
  assert.equal(new Set(constants.RESULT_CODE_NAMES.keys()).size, names.length, 'no two names share a value');
});
