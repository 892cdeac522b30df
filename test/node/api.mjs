// The API tests (test/browser/api-tests.js, both APIs) in Node, over memory
// storage (make test-api-node).  Exits 1 on any failure.
import { run } from '../browser/api-tests.js';

const started = Date.now();
const results = await run(['memory']);
let failed = 0;
for (const r of results) {
  if (!r.ok) failed++;
  console.log(`${r.ok ? 'ok  ' : 'FAIL'} node: ${r.name}${r.ok ? '' : `\n     ${r.error}`}`);
}
console.log(`node API tests: ${results.length - failed} passed, ${failed} failed (${((Date.now() - started) / 1000).toFixed(1)} s)`);
if (failed || results.length === 0) process.exit(1);
