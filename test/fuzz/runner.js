// The subject side of the API fuzzer: runs a program's groups against the
// package's main-thread API (open() of dist/index.js: in a browser every
// database has its Worker, in Node the same calls run in-process), one
// group per message, and answers each op's outcome.  Hosts: a Node Worker
// thread (./node-subject.mjs) and a browser page (./browser.mjs).  Messages
// and answers are JSON text (./program.js's codec):
//   { cmd: 'start', name, options, persistent, schema }  -> {}
//   { cmd: 'group', group }          -> { outcomes: { id: { ok } | { err } }, hang: [ids] }
//   { cmd: 'dump', temp }            -> { tables, integrity, state } of the final database
//   { cmd: 'end' }                   -> {} (closes what is open)
import { dec, fromJson, toJson, stateQueries, schemaQueries, intoSql, INTO, INTO_TABLES, INTO_END } from './program.js';

class NoSlot extends Error { constructor(slot) { super(`no statement ${slot} (its prepare failed)`); this.name = 'NoSlot'; } }
class FzAbort extends Error { constructor() { super('abort'); this.name = 'FzAbort'; } }

// The parts of an error that are compared (the message is for the report).
export function errorOf(e) {
  return { name: e && e.name, code: e && typeof e.code === 'number' ? e.code : undefined, message: String(e && e.message !== undefined ? e.message : e) };
}

async function readAll(stream) {
  const reader = stream.getReader();
  const parts = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    parts.push(value);
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

// Not a database: 4096 bytes of a fixed pattern.
export const GARBAGE = Uint8Array.from({ length: 4096 }, (_, i) => (i * 131 + 7) & 0xff);

// The source an import reads bytes from, made how the op says, and a
// check that the caller's own buffers are still whole afterwards.
function importSource(bytes, how) {
  const third = Math.ceil(bytes.length / 3) || 1;
  const chunks = [];
  for (let at = 0; at < bytes.length; at += third) chunks.push(bytes.slice(at, at + third));
  const copies = chunks.map((c) => c.slice());
  const intact = () => chunks.every((c, i) => c.length === copies[i].length && c.every((b, j) => b === copies[i][j]));
  switch (how) {
    case 'stream': {
      let i = 0;
      return { source: new ReadableStream({ pull(ctl) { if (i < chunks.length) ctl.enqueue(chunks[i++]); else ctl.close(); } }), intact };
    }
    case 'chunks': return { source: chunks, intact };
    case 'blob': return { source: new Blob(chunks), intact };
    default: { const b = bytes.slice(); return { source: b, intact: () => b.length === bytes.length && b.every((x, j) => x === bytes[j]) }; }
  }
}

export function createRunner({ open, watchdogMs = 10000 }) {
  let db = null, name = null, options = null, persistent = false;
  let handles = {}, slots = {}, exportsBy = {};
  let outcomes = {};

  const handle = (h) => {
    const x = handles[h];
    if (!x) throw new Error(`no handle ${h}`);
    return x;
  };
  const slot = (s) => {
    if (!slots[s]) throw new NoSlot(s);
    return slots[s];
  };

  async function take(iter, stopAfter) {
    const rows = [];
    for await (const row of iter) {
      if (stopAfter !== null && rows.length >= stopAfter) break;
      rows.push(row);
    }
    return rows;
  }

  // What an op does; resolves to its value.
  async function perform(op) {
    const params = op.params === undefined ? undefined : dec(op.params);
    const rowOpt = op.rowMode ? { rowMode: op.rowMode } : undefined;
    switch (op.op) {
      case 'exec': return handle(op.h).exec(op.sql);
      case 'run': return handle(op.h).run(op.sql, params);
      case 'query': return handle(op.h).query(op.sql, params, rowOpt);
      case 'batch': return handle(op.h).batch(op.entries.map(([s, p]) => [s, dec(p)]), rowOpt);
      case 'iterate': return take(handle(op.h).iterate(op.sql, params, { rowMode: op.rowMode, pageSize: op.pageSize }), op.stopAfter);
      case 'prepare': {
        delete slots[op.slot];
        const st = await handle(op.h).prepare(op.sql);
        slots[op.slot] = st;
        return st.columns();
      }
      case 'srun': return slot(op.slot).run(params);
      case 'sget': return slot(op.slot).get(params, rowOpt);
      case 'sall': return slot(op.slot).all(params, rowOpt);
      case 'siterate': return take(slot(op.slot).iterate(params, { pageSize: op.pageSize }), op.stopAfter);
      case 'finalize': return slot(op.slot).finalize();
      case 'tx': {
        const deferred = [];
        let result, error = null;
        try {
          result = await handle(op.h).transaction(async (tx) => {
            handles[op.txh] = tx;
            for (const g of op.groups) {
              const e = await runGroup(g, deferred);
              if (e && op.propagate) throw e;
            }
            if (op.end === 'throw') throw new FzAbort();
            return 'done';
          });
        } catch (e) { error = e; }
        await Promise.all(deferred);
        if (error) throw error;
        return result;
      }
      case 'export': {
        const d = handle(op.h);
        exportsBy[op.slot] = op.stream ? await readAll(d.exportStream()) : await d.export();
        return exportsBy[op.slot].length > 0;
      }
      case 'import': {
        const bytes = op.from === 'garbage' ? GARBAGE : exportsBy[op.from];
        if (!bytes) throw new NoSlot(op.from);
        const { source, intact } = importSource(bytes, op.how);
        let error = null;
        try { await handle(op.h).import(source); } catch (e) { error = e; }
        if (!intact()) return 'the caller\'s buffers were emptied';
        if (error) throw error;
        return 'imported';
      }
      case 'into': {
        const d = handle(op.h);
        const file = `${name}-into-${op.id}`;
        for (const sql of intoSql(file)) await d.exec(sql);
        try {
          const column = async (sql) => (await d.query(sql, undefined, { rowMode: 'array' })).map((r) => r[0]);
          const out = {};
          for (const [k, sql] of schemaQueries([INTO])) out[k] = await column(sql);
          for (const t of await column(INTO_TABLES)) out[t] = await d.query(`SELECT * FROM ${INTO}."${t}" ORDER BY rowid`, undefined, { rowMode: 'array' });
          return out;
        } finally { await d.exec(INTO_END); }
      }
      case 'close': return handle(op.h).close();
      case 'reopen': {
        await db.close();
        db = await open(name, options);
        handles = { db };
        return null;
      }
      default: throw new Error(`unknown op ${op.op}`);
    }
  }

  // Run op and record its outcome; resolves to its error, or null.
  async function runOp(op) {
    try {
      outcomes[op.id] = { ok: await perform(op) };
      return null;
    } catch (e) {
      outcomes[op.id] = { err: errorOf(e) };
      return e;
    }
  }

  // Issue every op of the group at once, then wait for them; resolves to
  // the first error in issue order.  Ops not awaited (awaitIt false) go
  // to deferred.
  async function runGroup(group, deferred) {
    const ps = group.map((op) => {
      const p = runOp(op);
      if (op.awaitIt === false) { deferred.push(p); return null; }
      return p;
    });
    const errs = await Promise.all(ps);
    return errs.find((e) => e) || null;
  }

  const ids = (group) => {
    const out = [];
    const walk = (g) => { for (const o of g) { out.push(o.id); if (o.op === 'tx') o.groups.forEach(walk); } };
    walk(group);
    return out;
  };

  async function dump({ temp: withTemp }) {
    if (db.closed) {
      if (!persistent) return null;
      db = await open(name, options);
    }
    const tables = {};
    for (const { name: t } of await db.query("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")) {
      tables[t] = await db.query(`SELECT * FROM "${t}" ORDER BY rowid`, undefined, { rowMode: 'array' });
    }
    const integrity = (await db.query('PRAGMA integrity_check', undefined, { rowMode: 'array' })).map((r) => r[0]);
    const state = {};
    for (const [k, sql] of stateQueries(withTemp)) state[k] = (await db.query(sql, undefined, { rowMode: 'array' })).map((r) => r[0]);
    return { tables, integrity, state };
  }

  const commands = {
    async start(msg) {
      ({ name, options, persistent } = msg);
      handles = {}; slots = {}; exportsBy = {}; outcomes = {};
      db = await open(name, options);
      handles.db = db;
      if (msg.schema) await db.exec(msg.schema);
      return {};
    },
    async group({ group }) {
      outcomes = {};
      const done = runGroup(group, []);
      let timer;
      const hang = await Promise.race([
        done.then(() => null),
        new Promise((r) => { timer = setTimeout(() => r(ids(group).filter((id) => !(id in outcomes))), watchdogMs); }),
      ]);
      clearTimeout(timer);
      return { outcomes, hang };
    },
    dump,
    async end() {
      if (db && !db.closed) await db.close().catch(() => {});
      db = null;
      return {};
    },
    // Stop the database's Worker at once (after a hang).
    kill() {
      if (db && db.client) db.client.terminate();
      db = null;
      return {};
    },
  };

  return {
    // One message (JSON text) -> its answer (JSON text); an exception in the
    // runner itself comes back as { crash }.
    async handle(text) {
      const msg = fromJson(text);
      try { return toJson(await commands[msg.cmd](msg)); } catch (e) { return toJson({ crash: `${e && e.name}: ${e && e.message}\n${e && e.stack}` }); }
    },
  };
}
