// The sequential model of the model-based test of several tabs
// (tabsmodel.mjs): what each call of tabsmodel-page.js writes, what it
// may answer, and what the databases may hold after a run of calls made
// at once by several tabs, some of them cut off by a handover.
//
// A call's outcome is one of
//   applied   it was acknowledged: its rows are there exactly once
//   none      it was refused (or rolled back): nothing of it is there
//   unknown   "outcome unknown" (code 4), "database is closed" (21) at a
//             close, or under way when its tab went away: an atomic call
//             is there whole or not at all, another one part by part
// Errors that only a handover explains (4, 5, 516, 21) are accepted only
// for a call during which a tab that had its database open went away
// (closed or reloaded: disturbed 'death').  A tab closing the database
// in order (disturbed 'close') hands it over without failing anyone's
// calls (docs/api.md, Several tabs): no error is accepted then, but for
// a cursor (iterate()), which lives in the owner's connection and ends
// with it (code 4).
import { SQLITE_ABORT, SQLITE_BUSY, SQLITE_ABORT_ROLLBACK, SQLITE_MISUSE, SQLITE_CONSTRAINT } from '../../js/shared/constants.js';

// Per kind: the parts of t it writes, whether it adds 1 to c, whether
// those are one transaction, the failure it is made to meet, and whether
// it is one message (one: a call made before close() runs; others may
// send their next message after it, which fails as closed, code 21).
export const KINDS = {
  run: { one: true, parts: 1, inc: 0, atomic: true },
  stmt: { parts: 1, inc: 0, atomic: true },
  exec: { one: true, parts: 1, inc: 1, atomic: false },
  batch: { one: true, parts: 2, inc: 1, atomic: true },
  tx: { parts: 2, inc: 1, atomic: true },
  txSlow: { parts: 2, inc: 1, atomic: true },
  txThrow: { parts: 1, inc: 0, atomic: true, fails: 'thrown' },
  txFail: { parts: 1, inc: 0, atomic: true, fails: 'constraint' },
  fail: { one: true, parts: 0, inc: 0, atomic: true, fails: 'constraint' },
  migrate: { parts: 0, inc: 0, atomic: true },
  quit: { parts: 0, inc: 0, atomic: true, one: true },
  read: { read: true, one: true },
  stmtRead: { read: true },
  iterate: { read: true },
};

const primary = (code) => (code == null ? null : code & 0xff);

export class Model {
  constructor(dbs) {
    this.dbs = dbs;            // names
    this.ops = new Map();      // id -> op
    this.problems = [];
    this.counts = { calls: 0, applied: 0, none: 0, unknown: 0, lost: 0, reads: 0, byCode: {} };
  }

  // A problem found; kind groups them in the report (the first of each
  // kind is shown).
  problem(text, kind = 'answer') { this.problems.push({ kind, text }); }
  report(max = 8) {
    const kinds = new Map();
    for (const p of this.problems) { if (!kinds.has(p.kind)) kinds.set(p.kind, []); kinds.get(p.kind).push(p.text); }
    return [...kinds].map(([k, xs]) => `${k} (${xs.length}): ${xs.slice(0, Math.max(1, Math.floor(max / kinds.size))).join('; ')}`).join(' | ');
  }

  // op: { id, db, tab, kind, target?, limit?, pause? } (op.closing: its
  // tab closed the database while it was under way); mustSee: the ids of the
  // calls on op.db acknowledged before op was made (for reads).
  issue(op) {
    op.status = 'pending';
    if (KINDS[op.kind].read) op.mustSee = [...this.ops.values()].filter((o) => o.db === op.db && o.outcome === 'applied').map((o) => o.id);
    this.ops.set(op.id, op);
    this.counts.calls++;
  }

  // The answer r ({ ok, value } or { ok: false, code, message }) of op;
  // disturbed: the test disturbed op.db while op was under way.
  settle(op, r, disturbed) {
    op.status = 'settled';
    op.result = r;
    const k = KINDS[op.kind];
    const what = `call ${op.id} (${op.kind} on ${op.db} in tab ${op.tab})`;
    if (!r.ok) { const c = r.rolledBackOnPurpose ? 'thrown' : r.code; this.counts.byCode[c] = (this.counts.byCode[c] || 0) + 1; }
    let outcome;
    if (r.ok) {
      outcome = 'applied';
      if (k.fails) this.problem(`${what} succeeded, but was made to fail (${k.fails})`, 'answer');
    } else if (k.fails === 'thrown' && r.rolledBackOnPurpose) outcome = 'none';
    else if (k.fails === 'constraint' && primary(r.code) === SQLITE_CONSTRAINT) outcome = 'none';
    else if (disturbed === 'death' && (r.code === SQLITE_ABORT_ROLLBACK || r.code === SQLITE_BUSY)) outcome = 'none';
    else if (disturbed === 'death' && (r.code === SQLITE_ABORT || r.code === SQLITE_MISUSE)) outcome = 'unknown';
    else if (op.closing && !k.one && r.code === SQLITE_MISUSE) outcome = 'unknown';
    // A cursor lives in the owner's connection: any handover ends it.
    else if (disturbed && op.kind === 'iterate' && r.code === SQLITE_ABORT) outcome = null;
    else {
      outcome = 'unknown';
      const why = disturbed === 'close' ? ' (a tab closed the database meanwhile; none went away)' : disturbed ? '' : ' (nothing disturbed its database meanwhile)';
      this.problem(`${what} failed with code ${r.code}: ${r.message}${why}`);
    }
    op.outcome = k.read ? null : outcome;
    if (k.read) { this.counts.reads++; if (r.ok) this.checkRead(op, r.value); } else this.counts[outcome]++;
  }

  // op's tab went away before it answered.
  lose(op) {
    op.status = 'lost';
    op.outcome = KINDS[op.kind].read ? null : 'unknown';
    this.counts.lost++;
  }

  // Rows [k, db] a read saw on op.db: all of op.db, of calls made there,
  // none twice, transactions whole; complete: every row the read should
  // have seen, and n the counter.
  checkRead(op, value) {
    const what = `read ${op.id} (${op.kind} on ${op.db} in tab ${op.tab})`;
    if (op.kind === 'stmtRead' || op.kind === 'read') {
      if (value.tag !== `OP:${op.id}`) this.problem(`${what}: got the answer of another call (${value.tag})`, 'read');
    }
    const must = op.mustSee.map((id) => this.ops.get(id));
    const mustRows = must.reduce((s, o) => s + KINDS[o.kind].parts, 0);
    const mustInc = must.reduce((s, o) => s + KINDS[o.kind].inc, 0);
    if (value.n !== undefined && value.n < mustInc) this.problem(`${what}: the counter is ${value.n}, below the ${mustInc} acknowledged before the read`, 'read');
    if (op.kind === 'stmtRead') {
      if (value.rows < mustRows) this.problem(`${what}: ${value.rows} rows, fewer than the ${mustRows} acknowledged before the read`, 'read');
      return;
    }
    const seen = new Map();
    for (const [key, db] of value.rows) {
      if (db !== op.db) { this.problem(`${what}: row ${key} of database ${db} read from ${op.db}`, 'wrong database'); continue; }
      const w = this.ops.get(Math.floor(key / 10));
      if (!w || w.db !== op.db) { this.problem(`${what}: row ${key} was never written to ${op.db}`, 'read'); continue; }
      if (seen.has(key)) this.problem(`${what}: row ${key} twice`, 'read');
      seen.set(key, true);
    }
    if (op.kind === 'iterate' && !value.complete) return;
    for (const o of must) {
      for (let p = 0; p < KINDS[o.kind].parts; p++) {
        if (!seen.has(o.id * 10 + p)) this.problem(`${what}: row ${o.id * 10 + p} of call ${o.id} (${o.kind}, acknowledged before the read) is missing`, 'read');
      }
    }
    for (const key of seen.keys()) {
      const o = this.ops.get(Math.floor(key / 10));
      if (!o || !KINDS[o.kind].atomic) continue;
      for (let p = 0; p < KINDS[o.kind].parts; p++) {
        if (!seen.has(o.id * 10 + p)) { this.problem(`${what}: call ${o.id} (${o.kind}) seen in part: row ${key} without row ${o.id * 10 + p}`, 'read'); break; }
      }
    }
  }

  // The final contents c of database db (tabsmodel-page.js contents())
  // against the calls made on it.
  checkFinal(db, c) {
    const where = `database ${db}`;
    if (c.integrity !== 'ok') this.problem(`${where}: integrity_check says ${c.integrity}`, 'final');
    const count = new Map();
    for (const [key, rowDb, tab, id] of c.rows) {
      const o = this.ops.get(id);
      if (rowDb !== db) this.problem(`${where}: row ${key} written for database ${rowDb} (tab ${tab}, call ${id})`, 'wrong database');
      else if (!o || o.db !== db || key % 10 >= KINDS[o.kind].parts || Math.floor(key / 10) !== id) this.problem(`${where}: row ${key} of no call made on it`, 'final');
      count.set(key, (count.get(key) || 0) + 1);
    }
    let low = 0, high = 0;
    const versions = { applied: 0, any: 0 };
    for (const o of this.ops.values()) {
      if (o.db !== db || KINDS[o.kind].read) continue;
      const k = KINDS[o.kind];
      const what = `call ${o.id} (${o.kind} in tab ${o.tab}, ${o.status === 'lost' ? 'under way when its tab went away' : o.outcome})`;
      if (o.kind === 'migrate') {
        versions.any = Math.max(versions.any, o.target);
        if (o.outcome === 'applied') versions.applied = Math.max(versions.applied, o.target);
        continue;
      }
      const have = [];
      for (let p = 0; p < k.parts; p++) {
        const n = count.get(o.id * 10 + p) || 0;
        if (n > 1) this.problem(`${where}: ${what}: row ${o.id * 10 + p} is there ${n} times`, 'final');
        if (n) have.push(p);
      }
      if (o.outcome === 'applied' && have.length !== k.parts) this.problem(`${where}: ${what}: ${have.length} of its ${k.parts} rows are there`, 'final');
      if (o.outcome === 'none' && have.length) this.problem(`${where}: ${what}: its rows are there`, 'final');
      if (o.outcome === 'unknown' && k.atomic && have.length && have.length !== k.parts) this.problem(`${where}: ${what}: ${have.length} of its ${k.parts} rows are there (all or none)`, 'final');
      if (o.outcome === 'pending' || o.status === 'pending') this.problem(`${where}: ${what}: never settled`, 'final');
      if (o.outcome === 'applied' || (o.outcome === 'unknown' && k.atomic && have.length)) low += k.inc;
      else if (o.outcome === 'unknown' && !k.atomic) high += k.inc;
    }
    if (c.n < low || c.n > low + high) this.problem(`${where}: the counter is ${c.n}; the calls say ${low}${high ? ` to ${low + high}` : ''}`);
    const steps = [...c.mlog].sort((a, b) => a - b);
    const want = Array.from({ length: c.version }, (_, i) => i + 1);
    if (steps.join() !== want.join()) this.problem(`${where}: migration steps run ${steps.join(',') || 'none'}, user_version ${c.version} (each step once, in order)`, 'final');
    if ([...c.tables].sort().join() !== want.map((v) => `m${v}`).sort().join()) this.problem(`${where}: tables ${c.tables.join(',')} for user_version ${c.version}`, 'final');
    if (c.version < versions.applied || c.version > versions.any) this.problem(`${where}: user_version ${c.version}; acknowledged migrations reached ${versions.applied}, any made ${versions.any}`);
  }
}
