// The layers agree (make test-node-unit): every method of js/shared/methods.js's
// table is where its row says, in the main-thread API, the Worker's
// dispatch, the sync API, index.d.ts, worker.d.ts and docs/api.md, and
// none of them has a method the table does not list.  Also the other facts
// the .d.ts files repeat: tempcrypt's counters (from C) and the storage
// names (from js/storage/backends.js).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import {
  METHODS, QUERYABLE, DATABASE, STATEMENT, TEMPCRYPT, CALL, NONE, PROPERTY, DELEGATE, messageOf,
} from '../../dist/shared/methods.js';
import { open, Queryable, Database, Statement, Transaction } from '../../dist/index.js';
import { open as openSync, SyncDatabase, SyncStatement, STATS_FIELDS } from '../../dist/worker.js';
import { HANDLERS, LIFECYCLE } from '../../dist/dispatch/rpc.js';
import { BACKENDS } from '../../dist/storage/storage.js';
import { Connection } from '../../dist/engine/connection.js';
import { Statement as EngineStatement } from '../../dist/engine/statement.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const read = (f) => fs.readFileSync(path.join(ROOT, f), 'utf8');
const sorted = (xs) => [...new Set(xs)].sort();

// The functions an object has (own, or of its prototype chain up to, not
// including, stop), without the constructor and accessors.
function functionsOf(obj, stop = Object.prototype) {
  const out = [];
  for (let o = obj; o && o !== stop; o = Object.getPrototypeOf(o)) {
    for (const k of Object.getOwnPropertyNames(o)) {
      const d = Object.getOwnPropertyDescriptor(o, k);
      if (k !== 'constructor' && typeof d.value === 'function') out.push(k);
    }
  }
  return sorted(out);
}

// The rows of `layers` that `api` ('async' | 'sync') has, by name (the
// accessors of `property` rows are not methods in either API).
const rowsOf = (api, layers, { publicOnly = false, methodsOnly = false } = {}) => sorted(METHODS
  .filter((m) => layers.includes(m.layer) && m[api] !== NONE && !(publicOnly && m.internal) && !(methodsOnly && m[api] === PROPERTY)
    && !(api === 'async' && m.property))
  .map((m) => m.name));

// Whether proto has an accessor (get and set) named name.
const accessor = (proto, name) => {
  const d = Object.getOwnPropertyDescriptor(proto, name);
  return !!(d && d.get && d.set);
};

let db, sdb;
before(async () => {
  db = await open('layers.db', { storage: 'memory', worker: false });
  sdb = await openSync('layers-sync.db', { storage: 'memory' });
});
after(async () => { await db.close(); await sdb.close(); });

test('the main-thread API has exactly the methods of its rows', () => {
  assert.deepEqual(functionsOf(Queryable.prototype), rowsOf('async', [QUERYABLE]), 'Queryable (Database and Transaction)');
  assert.deepEqual(functionsOf(Database.prototype), rowsOf('async', [QUERYABLE, DATABASE]), 'Database');
  assert.deepEqual(functionsOf(Transaction.prototype), rowsOf('async', [QUERYABLE]), 'Transaction');
  assert.deepEqual(functionsOf(Statement.prototype), rowsOf('async', [STATEMENT]), 'Statement');
  assert.deepEqual(functionsOf(db.tempcrypt), rowsOf('async', [TEMPCRYPT]), 'db.tempcrypt');
  for (const m of METHODS.filter((r) => r.property)) {
    assert.ok(accessor(Database.prototype, m.name), `Database.${m.name} is an accessor`);
    assert.ok(accessor(SyncDatabase.prototype, m.name), `SyncDatabase.${m.name} is an accessor`);
  }
});

test('the sync API has exactly the methods and properties of its rows', () => {
  assert.deepEqual(functionsOf(SyncDatabase.prototype), rowsOf('sync', [QUERYABLE, DATABASE], { methodsOnly: true }), 'SyncDatabase');
  for (const m of METHODS.filter((r) => r.sync === PROPERTY)) assert.ok(m.name in sdb, `SyncDatabase.${m.name}`);
  assert.deepEqual(functionsOf(SyncStatement.prototype), rowsOf('sync', [STATEMENT]), 'SyncStatement');
  assert.deepEqual(functionsOf(sdb.tempcrypt), rowsOf('sync', [TEMPCRYPT]), 'db.tempcrypt');
  // What a generated (DELEGATE) method calls.
  for (const m of METHODS.filter((r) => r.sync === DELEGATE)) {
    const below = m.layer === STATEMENT ? EngineStatement.prototype : Connection.prototype;
    assert.equal(typeof below[m.name], 'function', `${m.layer === STATEMENT ? 'Statement' : 'Connection'}.${m.name}, which SyncDatabase delegates to`);
  }
});

test("the Worker's dispatch answers exactly the messages the main-thread API sends", () => {
  const sent = METHODS.flatMap((m) => (m.async === CALL ? [messageOf(m)] : Array.isArray(m.async) ? m.async : []));
  assert.deepEqual(sorted([...Object.keys(HANDLERS), ...LIFECYCLE]), sorted([...sent, 'open']));
});

// The members of the classes and interfaces of a .d.ts file, by name:
// { Name: { methods: [...], properties: { name: typeNode } } }.
function declarations(file) {
  const src = ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true);
  const out = {};
  const members = (list) => {
    const r = { methods: [], properties: {} };
    for (const m of list) {
      if (!m.name) continue;
      if (ts.isMethodDeclaration(m) || ts.isMethodSignature(m)) r.methods.push(m.name.getText());
      else if (ts.isPropertyDeclaration(m) || ts.isPropertySignature(m)) r.properties[m.name.getText()] = m.type;
    }
    r.methods = sorted(r.methods);
    return r;
  };
  for (const st of src.statements) {
    if (ts.isClassDeclaration(st) || ts.isInterfaceDeclaration(st)) out[st.name.text] = members(st.members);
    if (ts.isTypeAliasDeclaration(st)) out[st.name.text] = { type: st.type };
  }
  return { out, members };
}

test('index.d.ts and worker.d.ts declare exactly the public methods', () => {
  const { out: a, members } = declarations('js/index.d.ts');
  assert.deepEqual(a.Queryable.methods, rowsOf('async', [QUERYABLE], { publicOnly: true }), 'Queryable');
  assert.deepEqual(a.Database.methods, rowsOf('async', [DATABASE], { publicOnly: true }), 'Database');
  for (const m of METHODS.filter((r) => r.property)) assert.ok(a.Database.properties[m.name], `Database.${m.name}`);
  assert.deepEqual(a.Transaction.methods, [], 'Transaction (its methods are Queryable\'s)');
  assert.deepEqual(a.Statement.methods, rowsOf('async', [STATEMENT], { publicOnly: true }), 'Statement');
  assert.deepEqual(members(a.Database.properties.tempcrypt.members).methods, rowsOf('async', [TEMPCRYPT], { publicOnly: true }), 'Database.tempcrypt');
  const { out: s } = declarations('js/worker.d.ts');
  assert.deepEqual(s.SyncDatabase.methods, rowsOf('sync', [QUERYABLE, DATABASE], { publicOnly: true, methodsOnly: true }), 'SyncDatabase');
  for (const m of METHODS.filter((r) => r.sync === PROPERTY)) assert.ok(s.SyncDatabase.properties[m.name], `SyncDatabase.${m.name}`);
  assert.deepEqual(s.SyncStatement.methods, rowsOf('sync', [STATEMENT], { publicOnly: true }), 'SyncStatement');
  assert.deepEqual(members(s.SyncDatabase.properties.tempcrypt.members).methods, rowsOf('sync', [TEMPCRYPT], { publicOnly: true }), 'SyncDatabase.tempcrypt');
});

test('docs/api.md shows every public method, and no other db.<method>()', () => {
  const doc = read('docs/api.md');
  const pub = METHODS.filter((m) => !m.internal);
  const missing = pub.filter((m) => !doc.includes(`.${m.name}(`) && !doc.includes(`.${m.name}\``)).map((m) => `${m.layer}.${m.name}`);
  assert.deepEqual(missing, [], 'not in docs/api.md');
  const names = new Set(pub.map((m) => m.name));
  const unknown = [...doc.matchAll(/\b(?:db|tx|inner)\.(?:tempcrypt\.)?([A-Za-z]\w*)\(/g)].map((x) => x[1]).filter((n) => !names.has(n));
  assert.deepEqual(sorted(unknown), [], 'docs/api.md shows methods the API does not have');
});

test("index.d.ts's TempcryptStats has exactly the counters of the C library", async () => {
  assert.ok(STATS_FIELDS.length >= 13 && STATS_FIELDS.includes('nMemPeak'), `statistics from C: ${STATS_FIELDS}`);
  assert.deepEqual(Object.keys(sdb.tempcrypt.stats()), STATS_FIELDS);
  const { out } = declarations('js/index.d.ts');
  assert.deepEqual(Object.keys(out.TempcryptStats.properties).sort(), [...STATS_FIELDS].sort());
});

test("index.d.ts's Storage type names exactly the registered storage kinds", () => {
  const { out } = declarations('js/index.d.ts');
  const names = out.Storage.type.types.map((t) => t.literal.text);
  assert.deepEqual(sorted(names), sorted(Object.keys(BACKENDS)));
});
