// The ORM adapters against their peers' real drivers, side by side: one
// seeded random sequence of ORM operations (inserts with and without
// RETURNING, selects, updates, deletes, raw SQL, constraint violations,
// blobs, integers beyond 2^53, transactions that commit or roll back) runs
// through sqlite-tempcrypt's Kysely dialect and Drizzle driver and through
// Kysely's SqliteDialect and drizzle-orm/better-sqlite3 over better-sqlite3.
// Every result, every error (class name, message, code) and the table
// after each operation must be the same, up to the differences docs/api.md
// ("ORMs") lists, which normalize() below applies and nothing else.
//
//   node test/api/orm-diff.mjs [--seeds N] [--seed S] [--ops N]
//
// Seeds are printed; --seed S replays one.  make test-api-node runs it
// (and again under the lowest supported Kysely and Drizzle,
// test/api/lowest-peers.mjs).  Exits 1 on a difference.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, CompiledQuery } from 'kysely';
import { drizzle as peerDrizzle } from 'drizzle-orm/better-sqlite3';
import { sql as dsql, eq, lt, count } from 'drizzle-orm';
import { sqliteTable, integer, text, blob } from 'drizzle-orm/sqlite-core';
import { open } from '../../dist/index.js';
import { SqliteTempcryptDialect } from '../../dist/kysely.js';
import { drizzle } from '../../dist/drizzle.js';
import { rng } from '../fuzz/program.js';

const SCHEMA = 'CREATE TABLE t(id INTEGER PRIMARY KEY, a INTEGER, b TEXT NOT NULL, c BLOB, u TEXT UNIQUE)';
const table = sqliteTable('t', { id: integer('id').primaryKey(), a: integer('a'), b: text('b').notNull(), c: blob('c', { mode: 'buffer' }), u: text('u').unique() });

// ---- the program: a list of JSON-able operations
const BIG = [2n ** 53n + 1n, -(2n ** 60n) - 3n, 2n ** 63n - 1n];
function value(r) {
  return {
    a: r.weighted([[5, () => r.int(1000) - 500], [2, () => r.pick(BIG)], [1, () => null]])(),
    b: r.chance(0.08) ? null : r.pick(['ada', 'alan', 'grace', '', 'ünï']) + r.int(9),   // null: NOT NULL fails
    c: r.chance(0.4) ? Uint8Array.from({ length: r.int(6) }, () => r.int(256)) : null,
    u: r.chance(0.5) ? `u${r.int(6)}` : null,   // few values: UNIQUE fails now and then
  };
}
function operation(r, depth = 0) {
  const id = () => (r.chance(0.7) ? 1 + r.int(12) : undefined);   // an id in use: PRIMARY KEY fails
  const kind = r.weighted([[5, 'insert'], [2, 'insertMany'], [4, 'select'], [3, 'update'], [2, 'delete'], [2, 'one'], [3, 'raw'], [depth < 2 ? 2 - depth : 0, 'tx']]);
  switch (kind) {
    case 'insert': return { op: kind, row: { id: id(), ...value(r) }, returning: r.chance(0.5) };
    case 'insertMany': return { op: kind, rows: [{ id: id(), ...value(r) }, { id: id(), ...value(r) }] };
    case 'select': return { op: kind, below: r.int(14), take: r.pick(['all', 'first']) };
    case 'update': return { op: kind, id: 1 + r.int(12), set: r.chance(0.8) ? { b: `upd${r.int(9)}` } : { b: null }, returning: r.chance(0.3) };
    case 'delete': return { op: kind, below: r.int(8), returning: r.chance(0.3) };
    case 'one': return { op: kind, id: 1 + r.int(14), how: r.pick(['firstOrThrow', 'values', 'count']) };
    case 'raw': return { op: kind, method: r.pick(['all', 'get', 'values']), ...r.pick([
      { sql: 'SELECT id, a, c FROM t WHERE id < ? ORDER BY id', params: [r.int(14)] },
      { sql: 'SELECT id FROM t WHERE id > 1000', params: [] },                         // a reader with no rows
      { sql: 'UPDATE t SET a = a + 1 WHERE id = ?', params: [1 + r.int(12)] },
      { sql: 'INSERT INTO t(b, a) VALUES (?, ?) RETURNING id, a', params: ['raw', r.pick(BIG)] },
      { sql: 'INSERT INTO t(id, b) VALUES (?, ?)', params: [1 + r.int(12), 'raw'] },
      { sql: 'DELETE FROM t WHERE id = ?', params: [1 + r.int(12)] },
      { sql: 'SELECT count(*) AS n, max(a) AS m, typeof(c) AS tc FROM t', params: [] },
      { sql: 'SELECT * FROM no_such_table', params: [] },
    ]) };
    default: return { op: 'tx', ops: Array.from({ length: 1 + r.int(4) }, () => operation(r, depth + 1)), end: r.pick(['commit', 'commit', 'throw', 'rollback']) };
  }
}
export function program(seed, n) {
  const r = rng(seed);
  return Array.from({ length: n }, () => operation(r));
}

// ---- normalize(): the documented differences, and nothing else
const MAX = BigInt(Number.MAX_SAFE_INTEGER);
function normalize(x, ours) {
  if (typeof x === 'bigint') {
    // An integer beyond 2^53 in a row: ours a BigInt (exact), the peer's a number (rounded).
    return ours && (x > MAX || x < -MAX) ? { number: Number(x) } : { bigint: String(x) };
  }
  if (typeof x === 'number') return Number.isInteger(x) && !Number.isSafeInteger(x) ? { number: x } : x;
  if (x instanceof Uint8Array) return { blob: Buffer.from(x).toString('hex') };   // Buffer there, Uint8Array here
  if (x instanceof Error) {
    return { error: x.name, message: x.message, code: x.code, cause: x.cause === undefined ? undefined : normalize(x.cause, ours) };
  }
  if (Array.isArray(x)) return x.map((v) => normalize(v, ours));
  if (x && typeof x === 'object') {
    const out = { class: x.constructor?.name ?? null };
    // Kysely 0.27's own driver also sets numUpdatedOrDeletedRows (deprecated, the same as numAffectedRows).
    for (const k of Object.keys(x).sort()) if (k !== 'numUpdatedOrDeletedRows') out[k] = normalize(x[k], ours);
    return out;
  }
  return x;
}
const show = (v) => JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? `${x}n` : x instanceof Uint8Array ? `0x${Buffer.from(x).toString('hex')}` : x));

// ---- the two ORMs, each as { run(op) -> result or thrown error, dump() }
// A value as the driver binds it: Kysely and Drizzle take the same.
const rowOf = (v) => (v.id === undefined ? { a: v.a, b: v.b, c: v.c, u: v.u } : v);

function kyselyOps(k) {
  const one = (o, on) => {
    switch (o.op) {
      case 'insert': {
        const b = on.insertInto('t').values(rowOf(o.row));
        return o.returning ? b.returning(['id', 'a', 'b', 'c', 'u']).execute() : b.executeTakeFirst();
      }
      case 'insertMany': return on.insertInto('t').values(o.rows.map(rowOf)).execute();
      case 'select': {
        const b = on.selectFrom('t').selectAll().where('id', '<', o.below).orderBy('id');
        return o.take === 'all' ? b.execute() : b.executeTakeFirst();
      }
      case 'update': {
        const b = on.updateTable('t').set(o.set).where('id', '=', o.id);
        return o.returning ? b.returning(['id', 'b']).execute() : b.executeTakeFirst();
      }
      case 'delete': {
        const b = on.deleteFrom('t').where('id', '<', o.below);
        return o.returning ? b.returning('id').execute() : b.executeTakeFirst();
      }
      case 'one': {
        const b = on.selectFrom('t').where('id', '=', o.id);
        if (o.how === 'count') return b.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
        return b.select(['id', 'a', 'c']).executeTakeFirstOrThrow();   // NoResultError when there is none
      }
      case 'tx': return on.transaction().execute(async () => {});   // nested: Kysely refuses it, on both sides
      case 'raw': return on.executeQuery(CompiledQuery.raw(o.sql, o.params));   // the driver's own result
      default: throw new Error(`kysely: no op ${o.op}`);
    }
  };
  return {
    async run(o) {
      if (o.op !== 'tx') return one(o, k);
      const out = [];
      try {
        await k.transaction().execute(async (trx) => {
          for (const inner of o.ops) out.push(await settle(() => one(inner, trx)));
          if (out.some((x) => x.threw) || o.end !== 'commit') throw new Error(`roll back (${o.end})`);
        });
      } catch (e) {
        return { out, error: e };
      }
      return { out };
    },
  };
}

function drizzleOps() {
  // Each call through the method that runs it (.all() .get() .run()): the
  // peer's are synchronous, ours return promises; await takes both.
  const one = (o, on) => {
    switch (o.op) {
      case 'insert': {
        const b = on.insert(table).values(rowOf(o.row));
        return o.returning ? b.returning().all() : b.run();
      }
      case 'insertMany': return on.insert(table).values(o.rows.map(rowOf)).run();
      case 'select': {
        const b = on.select().from(table).where(lt(table.id, o.below)).orderBy(table.id);
        return o.take === 'all' ? b.all() : b.get();
      }
      case 'update': {
        const b = on.update(table).set(o.set).where(eq(table.id, o.id));
        return o.returning ? b.returning({ id: table.id, b: table.b }).all() : b.run();
      }
      case 'delete': {
        const b = on.delete(table).where(lt(table.id, o.below));
        return o.returning ? b.returning({ id: table.id }).all() : b.run();
      }
      case 'one': {
        if (o.how === 'count') return on.select({ n: count() }).from(table).where(eq(table.id, o.id)).get();
        const b = on.select({ id: table.id, a: table.a, c: table.c }).from(table).where(eq(table.id, o.id));
        return o.how === 'values' ? b.values() : b.get();
      }
      case 'raw': {
        const q = dsql.join([dsql.raw(o.sql.split('?')[0]), ...o.sql.split('?').slice(1).flatMap((part, i) => [dsql`${o.params[i]}`, dsql.raw(part)])], dsql.raw(''));
        return /^\s*(SELECT|.*RETURNING)/i.test(o.sql) ? on[o.method](q) : on.run(q);   // Drizzle's method for rows, or run
      }
      default: throw new Error(`drizzle: no op ${o.op}`);
    }
  };
  return { one };
}

// { value } or { threw: error } of fn(), sync or async.
async function settle(fn) {
  try { return { value: await fn() }; } catch (e) { return { threw: e }; }
}

// ---- one side: a database and its ORM
async function sides(orm) {
  const peerDb = new Database(':memory:');
  peerDb.exec(SCHEMA);
  const ours = await open(':memory:');
  await ours.exec(SCHEMA);
  const dump = {
    peer: () => peerDb.prepare('SELECT * FROM t ORDER BY id').all(),
    ours: () => ours.query('SELECT * FROM t ORDER BY id'),
  };
  if (orm === 'kysely') {
    const peer = new Kysely({ dialect: new SqliteDialect({ database: peerDb }) });
    const mine = new Kysely({ dialect: new SqliteTempcryptDialect({ database: ours }) });
    return {
      dump, peer: kyselyOps(peer), ours: kyselyOps(mine),
      close: async () => { await peer.destroy(); await mine.destroy(); await ours.close(); },
    };
  }
  // A transaction: better-sqlite3's driver runs a synchronous one (its
  // nested one a savepoint), ours an async one; the same steps in each.
  const txOps = (side, sync) => {
    const end = (o, tx, out) => {
      const failed = out.find((x) => x.threw)?.threw;
      if (failed) throw failed;
      if (o.end === 'rollback') tx.rollback();
      if (o.end === 'throw') throw new Error('roll back (throw)');
    };
    const runSync = (o, on) => {
      if (o.op !== 'tx') return side.one(o, on);
      const out = [];
      try {
        on.transaction((tx) => {
          for (const inner of o.ops) {
            try { out.push({ value: runSync(inner, tx) }); } catch (e) { out.push({ threw: e }); }
          }
          end(o, tx, out);
        });
      } catch (e) {
        return { out, error: e };
      }
      return { out };
    };
    const runAsync = async (o, on) => {
      if (o.op !== 'tx') return side.one(o, on);
      const out = [];
      try {
        await on.transaction(async (tx) => {
          for (const inner of o.ops) out.push(await settle(() => runAsync(inner, tx)));
          end(o, tx, out);
        });
      } catch (e) {
        return { out, error: e };
      }
      return { out };
    };
    return sync ? runSync : runAsync;
  };
  const peerD = peerDrizzle(peerDb), oursD = drizzle(ours);
  const [peerRun, oursRun] = [txOps(drizzleOps(), true), txOps(drizzleOps(), false)];
  return {
    dump, peer: { run: (o) => peerRun(o, peerD) }, ours: { run: (o) => oursRun(o, oursD) },
    close: () => ours.close(),
  };
}

// Run one seed through one ORM: null, or the first difference.  tally
// counts what the programs did (operations, errors compared, transactions).
export async function runSeed(orm, seed, n, tally = {}) {
  const ops = program(seed, n);
  const s = await sides(orm);
  const add = (k, v) => { tally[k] = (tally[k] ?? 0) + v; };
  try {
    for (const [i, o] of ops.entries()) {
      const peer = normalize(await settle(() => s.peer.run(o)), false);
      const ours = normalize(await settle(() => s.ours.run(o)), true);
      if (show(peer) !== show(ours)) return { i, op: o, peer, ours };
      add('operations', 1);
      add('errors', (show(peer).match(/"(threw|error)":\{/g) ?? []).length);
      add('transactions', (show(o).match(/"op":"tx"/g) ?? []).length);
      const [tp, to] = [normalize(s.dump.peer(), false), normalize(await s.dump.ours(), true)];
      if (show(tp) !== show(to)) return { i, op: o, what: 'the table after it', peer: tp, ours: to };
    }
    return null;
  } finally {
    await s.close();
  }
}

// The version of the package that `name` resolves to here.
export function versionOf(name) {
  for (let dir = path.dirname(fileURLToPath(import.meta.resolve(name))); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
      if (pkg.version) return pkg.version;
    }
  }
  return 'unknown';
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const arg = (name, dflt) => { const i = process.argv.indexOf(name); return i > 0 ? Number(process.argv[i + 1]) : dflt; };
  const nOps = arg('--ops', 40);
  const one = arg('--seed', null);
  const base = (Date.now() % 1e9) >>> 0;
  const seeds = one !== null ? [one] : Array.from({ length: arg('--seeds', 25) }, (_, i) => base + i);
  console.log(`orm-diff: kysely ${versionOf('kysely')}, drizzle-orm ${versionOf('drizzle-orm')}; seeds ${seeds[0]}..${seeds[seeds.length - 1]}, ${nOps} operations each`);
  let failed = 0, count = 0;
  for (const orm of ['kysely', 'drizzle']) {
    const tally = {};
    for (const seed of seeds) {
      count++;
      const diff = await runSeed(orm, seed, nOps, tally);
      if (!diff) continue;
      failed++;
      console.log(`FAIL ${orm} seed ${seed} (replay: node test/api/orm-diff.mjs --seed ${seed} --ops ${nOps}), operation ${diff.i}${diff.what ? `, ${diff.what}` : ''}:
     ${show(diff.op)}
     peer: ${show(diff.peer)}
     ours: ${show(diff.ours)}`);
    }
    console.log(`orm-diff ${orm}: ${Object.entries(tally).map(([k, v]) => `${v} ${k}`).join(', ')} the same on both sides`);
  }
  console.log(`orm-diff: ${count - failed} of ${count} programs the same as the peers${failed ? `, ${failed} differ` : ''}`);
  if (failed) process.exit(1);
}
