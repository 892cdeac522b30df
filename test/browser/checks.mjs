// The assertions of the browser and demo tests: check() prints ok/FAIL and
// records the result; finish() prints the tally and the time since checks()
// was called, and exits 1 if any check failed.
export function checks(label) {
  const t0 = Date.now();
  const results = [];
  function check(cond, name, detail = '') {
    results.push({ ok: !!cond, name, detail });
    console.log(`${cond ? 'ok  ' : 'FAIL'} ${name}${detail ? ' — ' + detail : ''}`);
    return !!cond;
  }
  function finish() {
    const failed = results.filter((r) => !r.ok);
    console.log(`\n${label}: ${results.length - failed.length} passed, ${failed.length} failed, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    process.exit(failed.length ? 1 : 0);
  }
  return { check, finish };
}
