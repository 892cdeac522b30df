// The workload table (test/workloads.txt) and its parser (js/demo/workloads.js):
// the file parses, each harness finds its workloads, and a malformed table
// is refused with the line that is wrong.
//   node --test test/unit/workloads.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseWorkloads, workloadsFor, baseSql } from '../../js/demo/workloads.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const table = parseWorkloads(fs.readFileSync(path.join(ROOT, 'test/workloads.txt'), 'utf8'));

test('every harness finds its workloads, each on one base', () => {
  for (const t of ['proof', 'smoke', 'leak', 'demo']) {
    const list = workloadsFor(table, t);
    assert.ok(list.length > 0, `${t}: no workload`);
    assert.equal(new Set(list.map((w) => w.on)).size, 1, `${t}: more than one base`);
  }
  for (const w of workloadsFor(table, 'demo')) assert.ok(w.label && w.what, w.id);
  assert.ok(workloadsFor(table, 'proof').some((w) => w.threads));
});

test('the base takes its row count', () => {
  const sql = baseSql(table, 'browser', 1234);
  assert.ok(sql.includes('n < 1234') && !sql.includes('$ROWS'));
});

test('a malformed table is refused, naming the line', () => {
  const ok = 'base b\nsql SELECT 1;\nworkload w\non b\ntests leak\nsql SELECT 2;\n';
  assert.equal(parseWorkloads(ok).workloads[0].sql, 'SELECT 2;');
  assert.equal(parseWorkloads(ok.replace('SELECT 2;', 'SELECT 2,\n  3;')).workloads[0].sql, 'SELECT 2,\n3;');
  const bad = [
    [ok.replace('tests leak', 'tests leak nope'), /:3: workload w: unknown test "nope"/],
    [ok.replace('on b', 'on c'), /:3: workload w: unknown base "c"/],
    [ok.replace('tests leak', 'tests demo'), /:3: workload w: the demo needs a label and a what/],
    [ok.replace('on b', 'on b\nlabl x'), /:5: unknown field "labl"/],
    [ok.replace('sql SELECT 1;', 'sql SELECT 1;\non x'), /:3: unknown field "on"/],
    [ok + 'workload w\non b\nsql SELECT 3;\n', /:7: workload w given twice on base b/],
    [ok.replace('on b', 'on b\non b'), /:5: field "on" given twice/],
    [`  SELECT 0;\n${ok}`, /:1: continuation line outside a field/],
    [ok.replace('workload w\n', 'workload W w\n'), /:3: bad workload name "W w"/],
    [ok.replace('sql SELECT 2;\n', 'threads yes\n'), /:3: workload w has no sql/],
  ];
  for (const [text, err] of bad) assert.throws(() => parseWorkloads(text), err);
});

test('the shell gets the marker as a literal and the C header every proof workload', () => {
  const sql = execFileSync('node', [path.join(ROOT, 'test/workloads.mjs'), 'sql', 'smoke', '10'], { encoding: 'utf8' });
  assert.ok(!/\bmk\(/.test(sql) && sql.includes("'smoke-marker'") && sql.includes('i<10)'));
  const h = execFileSync('node', [path.join(ROOT, 'test/workloads.mjs'), 'c'], { encoding: 'utf8' });
  for (const w of workloadsFor(table, 'proof')) assert.ok(h.includes(`{ "${w.id}", `), w.id);
  assert.match(h, /#define PROOF_BASE_ARGS\(n\) n, n\n/);
  assert.match(h, /i%%13/);
});

test('a table with CRLF line ends reads as with LF (it crashed the parser)', () => {
  const text = fs.readFileSync(path.join(ROOT, 'test/workloads.txt'), 'utf8');
  assert.deepEqual(parseWorkloads(text.replace(/\n/g, '\r\n')), table);
});
