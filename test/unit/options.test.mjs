// open()'s options are one table (js/shared/methods.js's OPEN_OPTIONS, make
// test-node-unit): index.d.ts's OpenOptions, worker.d.ts's
// WorkerOpenOptions, docs/api.md's options table and each storage's own
// list name exactly its rows, and each default the .d.ts files and the
// docs show is the row's; resolveOpenOptions() applies the rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { OPEN_OPTIONS, BOTH, ASYNC, SYNC, resolveOpenOptions, defaultOf } from '../../dist/shared/methods.js';
import { open } from '../../dist/index.js';
import { open as openSync } from '../../dist/worker.js';
import { BACKENDS } from '../../dist/storage/storage.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (f) => fs.readFileSync(path.join(ROOT, f), 'utf8');
const sorted = (xs) => [...new Set(xs)].sort();
const names = (api) => sorted(OPEN_OPTIONS.filter((o) => o.api === BOTH || o.api === api).map((o) => o.name));

// The default as the docs write it ('shared', 5000, false), or null for a
// row whose default the docs need not show (none, or computed at open).
function shownDefault(o) {
  if (o.shown !== undefined) return o.shown;
  if (o.default === undefined || typeof o.default === 'function') return null;
  return typeof o.default === 'string' ? `'${o.default}'` : String(o.default);
}
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// Whether text says "default <shown>" (or "default: <shown>", the value
// in backquotes or not), in any case.
const saysDefault = (text, shown) => new RegExp(`default:? \`?${escape(shown)}\`?`, 'i').test(text);

// The properties of interface `name` in a .d.ts file: { property: its doc
// comment's text, on one line }.
function optionsOf(file, name) {
  const src = ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true);
  const decl = src.statements.find((s) => ts.isInterfaceDeclaration(s) && s.name.text === name);
  assert.ok(decl, `${file} declares ${name}`);
  const out = {};
  for (const m of decl.members) {
    const doc = m.getFullText().slice(0, m.getLeadingTriviaWidth());
    out[m.name.getText()] = doc.replace(/\/\*\*|\*\/|^\s*\*/gm, ' ').replace(/\s+/g, ' ').trim();
  }
  return out;
}

// docs/api.md's options table: { option: its row's text }.
function docTable() {
  const out = {};
  for (const line of read('docs/api.md').split('\n')) {
    const m = /^\| ([^|]+) \| (both|main thread|sync API) \|/.exec(line);
    if (m) for (const [, n] of m[1].matchAll(/`(\w+)`/g)) out[n] = line;
  }
  return out;
}

// The rows' names and shown defaults against one description of them
// ({ option: text }); the list of what disagrees.
function disagreements(where, described, api) {
  const out = [];
  if (JSON.stringify(sorted(Object.keys(described))) !== JSON.stringify(names(api))) {
    out.push(`${where} names ${sorted(Object.keys(described)).join(', ')}; the rows: ${names(api).join(', ')}`);
  }
  for (const o of OPEN_OPTIONS.filter((r) => r.name in described)) {
    const shown = shownDefault(o);
    if (shown !== null && !saysDefault(described[o.name], shown)) out.push(`${where}: ${o.name} does not say "default ${shown}": ${described[o.name]}`);
  }
  return out;
}

test("index.d.ts's OpenOptions and worker.d.ts's WorkerOpenOptions: the rows' names and defaults", () => {
  assert.deepEqual([
    ...disagreements('index.d.ts OpenOptions', optionsOf('js/index.d.ts', 'OpenOptions'), ASYNC),
    ...disagreements('worker.d.ts WorkerOpenOptions', optionsOf('js/worker.d.ts', 'WorkerOpenOptions'), SYNC),
  ], []);
});

test("docs/api.md's options table: every row, its API and its default", () => {
  const table = docTable();
  const api = { both: BOTH, 'main thread': ASYNC, 'sync API': SYNC };
  const all = sorted(OPEN_OPTIONS.map((o) => o.name));
  assert.deepEqual(sorted(Object.keys(table)), all, 'the options docs/api.md lists');
  for (const o of OPEN_OPTIONS) assert.equal(api[/^\| [^|]+ \| ([^|]+) \|/.exec(table[o.name])[1]], o.api, `${o.name}'s API`);
  const described = (which) => Object.fromEntries(Object.entries(table).filter(([n]) => names(which).includes(n)));
  const found = [...disagreements('docs/api.md', described(ASYNC), ASYNC), ...disagreements('docs/api.md', described(SYNC), SYNC)];
  assert.deepEqual([...new Set(found)], []);
});

test("each storage's options are the rows that name it", () => {
  for (const [kind, k] of Object.entries(BACKENDS)) {
    const listed = sorted(OPEN_OPTIONS.filter((o) => o.storage?.includes(kind)).map((o) => o.name));
    assert.deepEqual(sorted(k.options), listed, `storage '${kind}': its options and the rows'`);
  }
});

test('the check of a description fails when a default disagrees', () => {
  const busy = OPEN_OPTIONS.find((o) => o.name === 'busyTimeoutMs');
  assert.equal(saysDefault('how long (default 5000 ms)', shownDefault(busy)), true);
  assert.equal(saysDefault('how long (default 500 ms)', shownDefault(busy)), false);
  assert.equal(saysDefault("'shared' (default)", shownDefault(OPEN_OPTIONS.find((o) => o.name === 'tabs'))), false);
});

test('resolveOpenOptions: defaults filled, given values kept and checked, unknown names refused', () => {
  const sync = resolveOpenOptions({ storage: 'memory', busyTimeoutMs: 10 }, SYNC);
  assert.equal(sync.busyTimeoutMs, 10);
  assert.equal(sync.lockTimeoutMs, 5000);
  assert.equal(sync.readOnly, false);
  assert.equal('tabs' in sync, false, 'an ASYNC option is not filled in for SYNC');
  assert.equal('tempBudget' in sync, false, "tempBudget's default is the C library's");
  assert.deepEqual(resolveOpenOptions(sync, SYNC), sync, 'resolving again changes nothing');
  assert.equal(resolveOpenOptions({}, ASYNC).tabs, 'shared');
  assert.equal(resolveOpenOptions({}, ASYNC).worker, typeof Worker === 'function');
  assert.equal(defaultOf('minFree'), 16);
  assert.throws(() => resolveOpenOptions({ tabs: 'some' }, ASYNC), /tabs must be 'shared' or 'exclusive', not some/);
  assert.throws(() => resolveOpenOptions({ readOnly: 1 }, SYNC), /readOnly must be true or false, not 1/);
  assert.throws(() => resolveOpenOptions({ busyTimeoutMs: -1 }, SYNC), /busyTimeoutMs must be a number of ms >= 0/);
  assert.throws(() => resolveOpenOptions({ tempBudget: 1.5 }, SYNC), /budget must be a whole number of bytes/);
  assert.throws(() => resolveOpenOptions({ timeoutMs: Infinity }, SYNC), /timeoutMs must be a number of milliseconds/);
  assert.throws(() => resolveOpenOptions(null, SYNC), /options must be an object/);
});

test('open() refuses an option of the other API, naming the ones it takes', async () => {
  await assert.rejects(open('x.db', { storage: 'memory', worker: false, timeout: 5 }), (e) => e instanceof TypeError && /'timeout'/.test(e.message) && /timeoutMs/.test(e.message));
  await assert.rejects(openSync('x.db', { storage: 'memory', setup: 'x' }), (e) => e instanceof TypeError && /'setup'/.test(e.message), 'setup is for the main-thread open()');
  await assert.rejects(open('x.db', { storage: 'memory', worker: false, tabs: 'none' }), (e) => e instanceof TypeError && /tabs must be/.test(e.message));
});

test("a database opened with no options has the rows' defaults", async () => {
  const db = await openSync('defaults.db', { storage: 'memory' });
  try {
    assert.equal(db.timeoutMs, defaultOf('timeoutMs'));
    assert.equal(db.tempcrypt.budget(), 64 * 1024 * 1024, "tempBudget's shown default (64 MiB) is the C library's");
  } finally {
    await db.close();
  }
});
