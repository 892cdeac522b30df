// The storages of the conformance suite, as stores for cases.js's
// runVariant(): each case gets a fresh storage of one kind (the kind's
// scratch()), open(name) opens a database in it (a Connection of the
// engine, js/engine/connection.js), restart() starts a fresh wasm instance over
// the same storage: for a persistent kind (OPFS, files) the backend is
// closed and opened again first, what a page reload or a new process does.
//
// lib: the modules of one build (see node.mjs); kind: a StorageKind
// (js/storage/backend.d.ts); off: switch tempcrypt off (setEnabled(false)) in
// every instance; budget: the memory tier's budget in every instance
// (undefined: the default).  The store's tier says what the tier does in
// these cases: 'off' (no tier: budget 0, tempcrypt off, or the baseline),
// 'all' (the default budget holds every temp file: none reaches the
// storage) or 'part' (a small budget: temp files spill part-way).

// A wasm instance over backend; counts temp files opened in opens.n.
async function engineOver(lib, backend, { off, budget }, opens) {
  // The budget goes to createEngine: it also sizes the sorter's runs.
  const engine = await lib.createEngine(backend, { tempBudget: budget });
  if (off) engine.tempcrypt.setEnabled(false);
  engine.setObserver((ev) => { if (ev.op === 'open' && ev.temp) opens.n++; });
  return engine;
}

export function kindStores(lib, kind, tag, { off = false, budget, build } = {}) {
  const settings = { off, budget };
  let n = 0;
  return async () => {
    const scratch = await kind.scratch(`conformance-${tag}-${++n}`);
    const openBackend = () => kind.open('conformance.db', scratch.options);
    const opens = { n: 0 };
    let backend = await openBackend();
    let engine = await engineOver(lib, backend, settings, opens);
    // A backend with real paths (storage 'file') takes an absolute name as
    // given: cases' names that look absolute ("/tmp/1") stay inside the
    // scratch directory all the same.
    const local = (name) => (backend.xFullPathname && name.startsWith('/') ? name.slice(1) : name);
    return {
      open: (name) => engine.open(local(name)),
      tempOpens: () => opens.n,
      tier: build !== 'dist' || off || budget === 0 ? 'off' : budget === undefined ? 'all' : 'part',
      stats: (reset = false) => engine.tempcrypt.stats(reset),
      async restart() {
        if (kind.persistent) {
          await backend.close();
          backend = await openBackend();
        }
        engine = await engineOver(lib, backend, settings, opens);
      },
      settle: () => backend.reserve(),
      async dispose() {
        await backend.close();
        await scratch.dispose();
      },
    };
  };
}

// The variants every storage runs: the baseline first.  tempcrypt without
// the memory tier (budget 0: every temp file in the storage), with it at
// its default (every temp file of these cases in memory; a sort of them
// is one run, in the sorter's memory), and with a budget so small that
// temp files spill part-way.  The baseline and tempcrypt off run with
// budget 0 too, so that their sorts keep SQLite's own runs and spill.
export const VARIANTS = [
  { label: 'baseline', build: 'baseline', off: false, budget: 0 },
  { label: 'tempcrypt', build: 'dist', off: false, budget: 0 },
  { label: 'tempcrypt tier', build: 'dist', off: false },
  { label: 'tempcrypt tier spilling', build: 'dist', off: false, budget: 16384 },
  { label: 'tempcrypt off', build: 'dist', off: true, budget: 0 },
];

// kindStores()'s options for variant v.
export const storeOptions = (v) => ({ off: v.off, budget: v.budget, build: v.build });
