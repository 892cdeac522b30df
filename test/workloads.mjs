// The workload table (test/workloads.txt) for the harnesses that cannot
// parse it themselves, through its one parser (js/demo/workloads.js):
//   node test/workloads.mjs c              the C header of the proof's
//       workloads and base (test/c/workloads.h; make writes it)
//   node test/workloads.mjs sql TEST ROWS  the base for ROWS rows and every
//       workload of TEST, as one script for the shell (smoke.sh)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseWorkloads, workloadsFor, baseSql } from '../js/demo/workloads.js';

const FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'workloads.txt');
const table = parseWorkloads(fs.readFileSync(FILE, 'utf8'), path.relative(process.cwd(), FILE));

// A C string literal, one source line per line of SQL.
const cString = (s) => s.split('\n')
  .map((l, i, a) => `"${l.replace(/[\\"?]/g, '\\$&')}${i < a.length - 1 ? '\\n' : ''}"`).join(' \\\n    ');

function header() {
  const base = table.bases.proof.sql;
  const nRows = base.split('$ROWS').length - 1;
  const list = workloadsFor(table, 'proof').map((w) => {
    if (w.on !== 'proof') throw new Error(`workload ${w.id}: the C proof runs on base "proof" only`);
    return `  { "${w.id}", ${w.setup ? cString(w.setup) : '0'}, \\\n    ${cString(w.sql)}, ${w.threads ? 1 : 0} }, \\`;
  });
  return [
    '/* Generated from test/workloads.txt by test/workloads.mjs: do not edit. */',
    '/* The base database: sqlite3_mprintf(PROOF_BASE_SQL, PROOF_BASE_ARGS(nRow)). */',
    `#define PROOF_BASE_SQL ${cString(base.replaceAll('%', '%%').replaceAll('$ROWS', '%d'))}`,
    `#define PROOF_BASE_ARGS(n) ${Array(nRows).fill('n').join(', ')}`,
    '/* The workloads, as initializers of ProofWorkload (test/c/proof.h). */',
    '#define PROOF_WORKLOADS \\',
    ...list,
    '',
    '',
  ].join('\n');
}

// The shell cannot register mk(): the marker is a literal there.
function shellScript(test, rows) {
  const literal = (sql) => {
    if (/\bmkrep\(/.test(sql)) throw new Error(`mkrep() has no shell form; take the workload out of "${test}"`);
    return sql.replace(/\bmk\(\)/g, "'smoke-marker'");
  };
  const list = workloadsFor(table, test);
  const on = new Set(list.map((w) => w.on));
  if (on.size !== 1) throw new Error(`the workloads of "${test}" must share one base (they use ${[...on].join(', ') || 'none'})`);
  return [baseSql(table, [...on][0], rows), ...list.flatMap((w) => [w.setup, w.sql].filter(Boolean))]
    .map(literal).join('\n') + '\n';
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === 'c' && args.length === 0) process.stdout.write(header());
else if (cmd === 'sql' && args.length === 2 && Number(args[1]) > 0) process.stdout.write(shellScript(args[0], Number(args[1])));
else {
  console.error('usage: node test/workloads.mjs c | sql TEST ROWS');
  process.exit(2);
}
