// The differential API fuzzer (make test-fuzz-api, make fuzz-api): seeded
// random programs of API calls (./program.js) run through the package's
// main-thread API in Node (memory and file storage, in a Worker thread)
// and in browsers (OPFS and memory, a Worker per database; ./browser.mjs),
// call by call in lockstep with better-sqlite3 (./oracle.mjs).  Every
// call's result or error class, the final database and its
// integrity_check must agree, and no call may stay pending (a watchdog
// per group of calls).  A failing program is shrunk (calls deleted,
// groups made sequential, values simplified) and printed with its seed.
//
//   node test/fuzz/fuzz-api.mjs [--seed=N] [--programs=N] [--time=SECONDS]
//        [--storages=memory,file] [--browsers=chromium,firefox]
//        [--known=surrogates,...] [--replay=FILE] [--no-shrink]
//   KNOWN_OPEN=...   the known open defects not to provoke (see KNOWN in
//                    ./program.js); --known overrides it
//
// Exits 1 on any failure; prints "N passed, N failed" (programs).
import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { generate, show, toJson, fromJson, KNOWN, SCHEMA, allOps, dec, enc } from './program.js';
import { Oracle, resultCodes } from './oracle.mjs';
import { verdict } from './compare.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const OUT = path.join(ROOT, 'build', 'fuzz-api');
const arg = (k, dflt) => {
  const a = process.argv.find((x) => x.startsWith(`--${k}=`));
  return a ? a.slice(k.length + 3) : dflt;
};
const flag = (k) => process.argv.includes(`--${k}`);

const seed0 = Number(arg('seed', process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31)));
const programs = Number(arg('programs', process.env.FUZZ_PROGRAMS ?? 30));
const timeLimit = Number(arg('time', process.env.FUZZ_TIME ?? 0)) * 1000;
const storages = arg('storages', process.env.FUZZ_STORAGES ?? 'memory,file').split(',').filter(Boolean);
const browsers = arg('browsers', process.env.FUZZ_BROWSERS ?? '').split(',').filter(Boolean);
const browserPrograms = Number(arg('browser-programs', process.env.FUZZ_BROWSER_PROGRAMS ?? programs));
const known = new Set(arg('known', process.env.KNOWN_OPEN ?? '').split(',').filter(Boolean));
const replay = arg('replay', null);
const shrinkOn = !flag('no-shrink');
const maxFailures = Number(arg('max-failures', 3));   // failing programs shrunk and shown per storage
const WATCHDOG_MS = Number(process.env.FUZZ_WATCHDOG_MS ?? 10000);
for (const k of known) if (!KNOWN[k]) throw new Error(`unknown KNOWN_OPEN switch ${k} (known: ${Object.keys(KNOWN).join(', ')})`);

const codes = resultCodes(path.join(ROOT, 'build', 'sqlite', 'sqlite3.h'));
const SETUP_FILE_URL = pathToFileURL(path.join(HERE, 'functions.js')).href;

// ---- subjects: call(msg) -> answer; kill() after a hang.
class NodeSubject {
  constructor() { this.label = 'node'; this.w = null; }
  spawn() {
    this.w = new Worker(new URL('./node-subject.mjs', import.meta.url), { workerData: { watchdogMs: WATCHDOG_MS } });
    this.w.unref();
  }
  call(msg) {
    if (!this.w) this.spawn();
    const w = this.w;
    return new Promise((resolve) => {
      const done = (v) => { clearTimeout(timer); w.off('message', onMsg); w.off('error', onErr); resolve(v); };
      const onMsg = (text) => done(fromJson(text));
      const onErr = (e) => { this.w = null; done({ crash: `worker thread died: ${e && e.stack}` }); };
      // The runner's own watchdog answers first; this one catches a thread
      // whose event loop is blocked (a call spinning in-process).
      const timer = setTimeout(() => { this.kill(); done({ blocked: true }); }, WATCHDOG_MS + 5000);
      w.on('message', onMsg);
      w.once('error', onErr);
      w.postMessage(toJson(msg));
    });
  }
  kill() { if (this.w) { this.w.terminate(); this.w = null; } }
  async close() { this.kill(); }
}

let dirCounter = 0;
// The open() options and clean-up for one program on a storage.
function nodeStorage(storage, tag) {
  if (storage === 'file') {
    const dir = path.join(OUT, 'files', `${tag}-${++dirCounter}`);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    return { options: { storage, dir, setup: SETUP_FILE_URL }, persistent: true, dispose: () => fs.rmSync(dir, { recursive: true, force: true }) };
  }
  return { options: { storage, setup: SETUP_FILE_URL }, persistent: false, dispose() {} };
}

// ---- one program in lockstep with the oracle: null, or the failure.
let nameCounter = 0;
async function runProgram(program, subject, where, stats) {
  const name = `fz-${program.seed}-${++nameCounter}.db`;
  const st = where.storageFor(`p${program.seed}`, name);
  fs.mkdirSync(OUT, { recursive: true });
  const oracle = new Oracle(SCHEMA, codes, OUT);
  const withTemp = ![...allOps(program.groups)].some((o) => o.op === 'import' || o.op === 'reopen' || o.op === 'close');
  let failure = null;
  try {
    const started = await subject.call({ cmd: 'start', name, options: st.options, persistent: st.persistent, schema: SCHEMA });
    if (started.crash) return { kind: 'crash', detail: `start: ${started.crash}` };
    for (const group of program.groups) {
      const ans = await subject.call({ cmd: 'group', group });
      if (ans.crash) { failure = { kind: 'crash', detail: ans.crash }; break; }
      if (ans.blocked) { failure = { kind: 'hang', detail: `the event loop stayed blocked for ${WATCHDOG_MS + 5000} ms (a call spinning)`, ids: [...allOps([group])].map((o) => o.id) }; break; }
      if (ans.hang && ans.hang.length) { failure = { kind: 'hang', detail: `never settled within ${WATCHDOG_MS} ms: #${ans.hang.join(', #')}`, ids: ans.hang }; break; }
      let expected;
      try { expected = oracle.group(group); } catch (e) { failure = { kind: 'crash', detail: `oracle: ${e.stack}` }; break; }
      const intos = new Set([...allOps([group])].filter((o) => o.op === 'into').map((o) => String(o.id)));
      for (const [id, exp] of Object.entries(expected)) {
        stats.calls++;
        if (intos.has(id) && 'ok' in exp) stats.copies++;
        const v = verdict(exp, ans.outcomes[id]);
        if (v) { failure = { kind: 'mismatch', id: Number(id), detail: `#${id}: ${v}` }; break; }
      }
      if (failure) break;
    }
    if (!failure) {
      const mine = await subject.call({ cmd: 'dump', temp: withTemp });
      const theirs = oracle.dump(withTemp);
      if (mine && mine.crash) failure = { kind: 'crash', detail: `dump: ${mine.crash}` };
      else if (mine && theirs && toJson(mine.tables) !== toJson(theirs.tables)) {
        failure = { kind: 'final', detail: `final database differs:\n  expected ${clip(toJson(theirs.tables))}\n       got ${clip(toJson(mine.tables))}` };
      } else if (mine && toJson(mine.integrity) !== '["ok"]') failure = { kind: 'final', detail: `integrity_check: ${mine.integrity.join('; ')}` };
      else if (mine && theirs) {
        const k = Object.keys(theirs.state).find((key) => toJson(mine.state[key]) !== toJson(theirs.state[key]));
        if (k) failure = { kind: 'final', what: k, detail: `final database state differs: ${k}: expected ${clip(toJson(theirs.state[k]))}, got ${clip(toJson(mine.state[k]))}` };
      }
    }
  } finally {
    oracle.close();
    if (failure && (failure.kind === 'hang' || failure.kind === 'crash')) await subject.kill();
    else await subject.call({ cmd: 'end' });
    await st.dispose();
  }
  return failure;
}

function clip(s, n = 600) { return s.length > n ? `${s.slice(0, n)}... (${s.length} chars)` : s; }

// ---- shrinking: smaller programs that still fail the same way.
const clone = (x) => JSON.parse(JSON.stringify(x));

function simpler(v) {
  const out = [null, 0, 'a'];
  if (typeof v === 'string' && v.length > 1) out.unshift(v.slice(0, v.length >> 1), v.slice(v.length >> 1));
  if (v instanceof Uint8Array && v.length > 1) out.unshift(v.slice(0, v.length >> 1));
  return out.filter((x) => toJson(x) !== toJson(v));
}

function* candidates(groups) {
  for (let i = groups.length - 1; i >= 0; i--) yield groups.filter((_, k) => k !== i);
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i];
    const put = (ng) => [...groups.slice(0, i), ...ng, ...groups.slice(i + 1)];
    if (g.length > 1) {
      for (let j = g.length - 1; j >= 0; j--) yield put([g.filter((_, k) => k !== j)]);
      yield put(g.map((o) => [o]));
    }
    for (let j = 0; j < g.length; j++) {
      const o = g[j];
      const withOp = (no) => put([g.map((x, k) => (k === j ? no : x))]);
      if (o.op === 'tx') {
        // The transaction's calls made on its parent instead.
        const onParent = (gs) => gs.map((gg) => gg.map((x) => ({ ...x, h: x.h === o.txh ? o.h : x.h, ...(x.op === 'tx' ? { groups: onParent(x.groups) } : {}) })));
        if (o.awaitIt === undefined && !o.groups.some((gg) => gg.some((x) => x.awaitIt !== undefined))) yield put([...g.slice(0, j).map((x) => [x]), ...onParent(o.groups), ...g.slice(j + 1).map((x) => [x])]);
        for (const inner of candidates(o.groups)) yield withOp({ ...o, groups: inner });
        if (o.end === 'throw') yield withOp({ ...o, end: 'commit' });
        if (o.propagate) yield withOp({ ...o, propagate: false });
      }
      if (o.op === 'exec' && o.sql.includes('; ')) {
        const parts = o.sql.split('; ');
        for (let k = 0; k < parts.length; k++) yield withOp({ ...o, sql: parts.filter((_, m) => m !== k).join('; ') });
      }
      if (o.params !== undefined) {
        const ps = dec(o.params);
        if (Array.isArray(ps)) {
          for (let k = 0; k < ps.length; k++) {
            for (const s of simpler(ps[k])) yield withOp({ ...o, params: enc(ps.map((x, m) => (m === k ? s : x))) });
          }
        } else if (ps && typeof ps === 'object') {
          for (const key of Object.keys(ps)) for (const s of simpler(ps[key])) yield withOp({ ...o, params: enc({ ...ps, [key]: s }) });
        }
      }
    }
  }
}

// A program's size: calls first, then how complex its values are (a
// candidate is taken only when smaller, so shrinking ends).
function valueSize(v) {
  if (v === null) return 0;
  if (v === 0) return 1;
  if (v === 'a') return 2;
  if (typeof v === 'string' || v instanceof Uint8Array) return 3 + v.length;
  if (Array.isArray(v)) return v.reduce((n, x) => n + valueSize(x), 0);
  if (v && typeof v === 'object' && !(v instanceof ArrayBuffer) && !ArrayBuffer.isView(v)) return Object.values(v).reduce((n, x) => n + valueSize(x), 0);
  return 3;
}
function size(program) {
  let n = 0;
  for (const o of allOps(program.groups)) {
    n += 1e7 + (o.params !== undefined ? valueSize(dec(o.params)) : 0) + (o.end === 'throw' ? 1 : 0) + (o.propagate ? 1 : 0) + (o.sql ? o.sql.length : 0);
  }
  for (const g of program.groups) n += g.length > 1 ? 1e6 : 0;
  return n;
}

async function shrink(program, failure, subject, where, budgetMs = Number(process.env.FUZZ_SHRINK_MS ?? 120000)) {
  const t0 = Date.now();
  let best = program, bestFailure = failure, tries = 0;
  for (let progress = true; progress && Date.now() - t0 < budgetMs;) {
    progress = false;
    for (const groups of candidates(best.groups)) {
      if (Date.now() - t0 > budgetMs) break;
      const cand = { ...best, groups: clone(groups) };
      if (size(cand) >= size(best)) continue;
      tries++;
      const f = await runProgram(cand, subject, where, { calls: 0, copies: 0 });
      if (f && f.kind === failure.kind && f.what === failure.what) { best = cand; bestFailure = f; progress = true; break; }
    }
  }
  return { program: best, failure: bestFailure, tries, ms: Date.now() - t0 };
}

// ---- reporting
function report(where, program, failure, shrunk) {
  const file = path.join(OUT, `failure-${program.seed}-${where.label.replace(/\W+/g, '-')}.json`);
  fs.mkdirSync(OUT, { recursive: true });
  const final = shrunk || { program, failure };
  fs.writeFileSync(file, JSON.stringify({ where: where.label, known: [...known], program: final.program }, null, 1));
  const notes = {};
  if (final.failure.id) notes[final.failure.id] = 'FAILS HERE';
  for (const id of final.failure.ids || []) notes[id] = 'NEVER SETTLED';
  console.log(`FAIL fuzz-api ${where.label}: program seed ${program.seed} (${final.failure.kind})`);
  console.log(`     ${final.failure.detail.split('\n').join('\n     ')}`);
  if (shrunk) console.log(`     shrunk in ${shrunk.tries} runs (${(shrunk.ms / 1000).toFixed(1)} s) from ${[...allOps(program.groups)].length} calls to ${[...allOps(final.program.groups)].length}:`);
  console.log(`     // db = await open(name, { storage: '${where.storage}', setup: 'test/fuzz/functions.js' }); await db.exec(SCHEMA)`);
  for (const l of show(final.program.groups, notes, '     ')) console.log(l);
  console.log(`     replay: node test/fuzz/fuzz-api.mjs --replay=${path.relative(ROOT, file)}${known.size ? ` --known=${[...known].join(',')}` : ''}`);
}

// ---- the runs
const results = [];
async function fuzzOn(where, n) {
  const stats = { programs: 0, calls: 0, copies: 0, failed: 0 };
  const t0 = Date.now();
  const list = replay ? [JSON.parse(fs.readFileSync(replay, 'utf8')).program] : null;
  for (let i = 0; list ? i < list.length : i < n; i++) {
    if (timeLimit && Date.now() - t0 > timeLimit) break;
    if (stats.failed >= maxFailures && flag('stop')) break;
    const program = list ? list[i] : generate((seed0 + i) >>> 0, known, { persistent: where.persistent, inFn: where.inFn });
    stats.programs++;
    const failure = await runProgram(program, where.subject, where, stats);
    if (!failure) continue;
    stats.failed++;
    if (stats.failed > maxFailures) { console.log(`     (more failures: not shrunk)`); continue; }
    const shrunk = shrinkOn && !list ? await shrink(program, failure, where.subject, where) : null;
    report(where, program, failure, shrunk);
  }
  const secs = (Date.now() - t0) / 1000;
  console.log(`${stats.failed ? 'FAIL' : 'ok  '} fuzz-api ${where.label}: ${stats.programs} programs, ${stats.calls} calls compared (${stats.copies} VACUUM INTO copies), ${stats.failed} failed (${secs.toFixed(1)} s)`);
  results.push({ where: where.label, ...stats });
}

console.log(`fuzz-api: seed ${seed0}, ${programs} programs per Node storage${browsers.length ? `, ${browserPrograms} per browser storage` : ''}; known open: ${known.size ? [...known].join(', ') : 'none'}`);
console.log(`  again: node test/fuzz/fuzz-api.mjs --seed=${seed0} --programs=${programs}${known.size ? ` --known=${[...known].join(',')}` : ''}`);
const node = new NodeSubject();
try {
  for (const storage of storages) {
    const persistent = storage === 'file';
    await fuzzOn({ label: `node ${storage}`, storage, persistent, subject: node, storageFor: (tag) => nodeStorage(storage, tag) }, programs);
  }
} finally { await node.close(); }
if (browsers.length) {
  const { browserRuns } = await import('./browser.mjs');
  await browserRuns(browsers, { ROOT, fuzzOn, n: browserPrograms, watchdogMs: WATCHDOG_MS });
}
const failed = results.reduce((n, r) => n + r.failed, 0), total = results.reduce((n, r) => n + r.programs, 0);
console.log(`fuzz-api: ${total - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
