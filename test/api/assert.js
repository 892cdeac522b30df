// Assertions shared by the API tests (page, Worker and Node).
export function show(v) {
  return JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? `${x}n` : x instanceof Uint8Array ? [...x] : x));
}
export function eq(a, b, what) {
  const sa = show(a), sb = show(b);
  if (sa !== sb) throw new Error(`${what}: expected ${sb}, got ${sa}`);
}
export function ok(c, what) { if (!c) throw new Error(what); }
// fn() must throw an SqliteError (with code, when given); returns it.
export async function rejects(p, code, what) {
  try { await (typeof p === 'function' ? p() : p); } catch (e) {
    ok(e && e.name === 'SqliteError', `${what}: not an SqliteError (${e && e.name}: ${e && e.message})`);
    if (code !== undefined) eq(e.code, code, `${what}: code`);
    return e;
  }
  throw new Error(`${what}: did not throw`);
}
export function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
// Run each named test fn(storage, ctx); [{ name, ok, error }].
// The chunks of a ReadableStream, read with a reader: ReadableStream is not
// async-iterable in WebKit (Safari), so tests never use for await on one.
export async function readAll(stream) {
  const reader = stream.getReader();
  const parts = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return parts;
    parts.push(value);
  }
}

export async function runTests(tests, storages, ctx, suffix = '') {
  const out = [];
  for (const storage of storages) {
    for (const [name, fn] of Object.entries(tests)) {
      try { await fn(storage, ctx); out.push({ name: `${name}${suffix} (${storage})`, ok: true }); }
      catch (e) { out.push({ name: `${name}${suffix} (${storage})`, ok: false, error: String(e && e.stack || e) }); }
    }
  }
  return out;
}
