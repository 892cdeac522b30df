// The workload table (test/workloads.txt, copied to dist/workloads.txt by
// the build): its one parser in JavaScript, used by the demo page, the
// browser leak test (test/browser/leak-worker.js) and, in Node, by
// test/workloads.mjs (the C header and the shell's scripts) and the tests.
// The file's header describes the format and the conventions (mk(), $ROWS).

const TESTS = ['proof', 'smoke', 'leak', 'demo'];
const FIELDS = ['on', 'tests', 'setup', 'sql', 'threads', 'label', 'what'];

// { bases: { name: { name, sql } }, workloads: [{ id, on, tests, setup,
// sql, threads, label, what }] } in file order; throws on anything it does
// not understand, naming the line.
export function parseWorkloads(text, file = 'workloads.txt') {
  const bases = {}, workloads = [];
  let cur = null, key = null;
  const fail = (n, why) => { throw new Error(`${file}:${n}: ${why}`); };
  text.split(/\r?\n/).forEach((line, i) => {
    const n = i + 1;
    if (line.trim() === '' || line.startsWith('#')) return;
    if (/^\s/.test(line)) {
      if (!cur || !key) fail(n, 'continuation line outside a field');
      cur[key] += `\n${line.trim()}`;
      return;
    }
    const m = /^(\S+)\s*(.*)$/.exec(line);
    if (!m) fail(n, 'unreadable line');
    const [, word, rest] = m;
    if (word === 'base' || word === 'workload') {
      if (!/^[a-z0-9][a-z0-9+.-]*$/.test(rest)) fail(n, `bad ${word} name "${rest}"`);
      cur = word === 'base' ? { name: rest, n } : { id: rest, n };
      if (word === 'base') {
        if (bases[rest]) fail(n, `base ${rest} defined twice`);
        bases[rest] = cur;
      } else {
        workloads.push(cur);
      }
      key = null;
      return;
    }
    if (!cur) fail(n, `field "${word}" before any base or workload`);
    if (!FIELDS.includes(word) || (cur.name !== undefined && word !== 'sql')) fail(n, `unknown field "${word}"`);
    if (cur[word] !== undefined) fail(n, `field "${word}" given twice`);
    cur[word] = rest;
    key = word;
  });
  const seen = new Set();
  for (const b of Object.values(bases)) if (!b.sql) fail(b.n, `base ${b.name} has no sql`);
  for (const w of workloads) {
    if (!w.sql) fail(w.n, `workload ${w.id} has no sql`);
    if (!bases[w.on]) fail(w.n, `workload ${w.id}: unknown base "${w.on}"`);
    if (seen.has(`${w.on}/${w.id}`)) fail(w.n, `workload ${w.id} given twice on base ${w.on}`);
    seen.add(`${w.on}/${w.id}`);
    w.tests = (w.tests || '').split(/\s+/).filter(Boolean);
    for (const t of w.tests) if (!TESTS.includes(t)) fail(w.n, `workload ${w.id}: unknown test "${t}"`);
    if (w.tests.includes('demo') && !(w.label && w.what)) fail(w.n, `workload ${w.id}: the demo needs a label and a what`);
    if (w.threads !== undefined && w.threads !== 'yes') fail(w.n, `workload ${w.id}: threads is "yes" or absent`);
    w.threads = w.threads === 'yes';
    w.setup = w.setup || null;
  }
  return { bases, workloads };
}

// The workloads of one harness (TESTS), in file order.
export const workloadsFor = (table, test) => table.workloads.filter((w) => w.tests.includes(test));

// The SQL that builds a base database of `rows` rows.
export const baseSql = (table, name, rows) => table.bases[name].sql.replaceAll('$ROWS', String(Math.trunc(rows)));

// The marker functions of the table's SQL, on a database of the package's
// Worker API: mk() is the marker, mkrep(n) the marker and a counter n times.
export function markerFunctions(db, marker) {
  db.function('mk', () => marker, { deterministic: true });
  db.function('mkrep', (n) => Array.from({ length: Number(n) }, (_, i) => `${marker}${String(i).padStart(6, '0')}.`).join(''), { deterministic: true });
}

// Fetch and parse the table (in the browser: the build's copy in dist/).
export async function loadWorkloads(url = new URL('../../dist/workloads.txt', import.meta.url)) {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return parseWorkloads(await res.text(), String(url));
}

// The demo's connection settings: files for temporary data, a small page
// cache, so sorts and temp tables really spill.
export const PRAGMAS = 'PRAGMA temp_store=FILE; PRAGMA cache_size=16; PRAGMA temp.cache_size=16;';

export const SIZE = { min: 1000, max: 20000, step: 1000, value: 5000 };
// The memory tier's budget the page offers, in bytes (the control's steps;
// 64 MiB is the package's default, 0 turns the tier off).  The page starts
// at BUDGET_START: small, so that the temp files spill part-way and both
// halves show.
export const BUDGETS = [0, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
export const BUDGET_START = 65536;
export const BUDGET_DEFAULT = 67108864;

// Human names of the file kinds the storage observer reports.
export const KIND_LABELS = {
  'temp-db': 'temp database',
  'transient-db': 'transient database',
  'temp-journal': 'sorter / temp journal',
  subjournal: 'statement journal',
  'main-db': 'main database',
  'main-journal': 'rollback journal',
  'super-journal': 'super-journal',
  wal: 'WAL',
  other: 'other',
};
