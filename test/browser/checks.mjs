// The assertions of the browser and demo tests: check() prints ok/FAIL and
// records the result; skip() prints a check that cannot run here and why;
// section() starts the checks of one engine; finish() prints the tally per
// section (checks run, passed, failed, skipped, time) and in all, and exits
// 1 if any check failed.
export function checks(label) {
  const t0 = Date.now();
  const sections = [];
  let cur = null;
  function section(name) {
    if (cur) cur.ms = Date.now() - cur.t0;
    cur = { name, t0: Date.now(), ms: 0, results: [], skipped: [] };
    sections.push(cur);
    console.log(`\n== ${label}: ${name}`);
  }
  const here = () => { if (!cur) section('all'); return cur; };
  // Names carry the section (the engine), so a FAIL line says where.
  const tag = () => (here().name === 'all' ? '' : `[${cur.name}] `);
  function check(cond, name, detail = '') {
    here().results.push({ ok: !!cond, name, detail });
    console.log(`${cond ? 'ok  ' : 'FAIL'} ${tag()}${name}${detail ? ' — ' + detail : ''}`);
    return !!cond;
  }
  function skip(name, reason) {
    here().skipped.push({ name, reason });
    console.log(`skip ${tag()}${name} — ${reason}`);
  }
  function finish() {
    if (cur) cur.ms = Date.now() - cur.t0;
    let failed = 0, total = 0, skipped = 0;
    console.log('');
    for (const s of sections) {
      const f = s.results.filter((r) => !r.ok).length;
      failed += f; total += s.results.length; skipped += s.skipped.length;
      console.log(`${label} [${s.name}]: ${s.results.length} run, ${s.results.length - f} passed, ${f} failed, ${s.skipped.length} skipped, ${(s.ms / 1000).toFixed(1)} s`);
      const reasons = new Map();
      for (const k of s.skipped) reasons.set(k.reason, (reasons.get(k.reason) || 0) + 1);
      for (const [why, n] of reasons) console.log(`    ${n} skipped: ${why}`);
    }
    console.log(`${label}: ${total - failed} passed, ${failed} failed, ${skipped} skipped, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    process.exit(failed ? 1 : 0);
  }
  return { check, skip, section, finish };
}
