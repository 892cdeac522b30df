// The storages of the conformance suite, as stores for cases.js's
// runVariant(): each case gets a fresh storage of one kind (the kind's
// scratch()), open(name) opens a database in it (a Connection of the
// engine, js/connection.js), restart() starts a fresh wasm instance over
// the same storage: for a persistent kind (OPFS, files) the backend is
// closed and opened again first, what a page reload or a new process does.
//
// lib: the modules of one build (see node.mjs); kind: a StorageKind
// (js/backend.d.ts); off: switch tempcrypt off (setEnabled(false)) in
// every instance.

// A wasm instance over backend; counts temp files opened in opens.n.
async function engineOver(lib, backend, off, opens) {
  const engine = await lib.createEngine(backend);
  if (off) engine.tempcrypt.setEnabled(false);
  engine.setObserver((ev) => { if (ev.op === 'open' && ev.temp) opens.n++; });
  return engine;
}

export function kindStores(lib, kind, tag, { off = false } = {}) {
  let n = 0;
  return async () => {
    const scratch = await kind.scratch(`conformance-${tag}-${++n}`);
    const openBackend = () => kind.open('conformance.db', scratch.options);
    const opens = { n: 0 };
    let backend = await openBackend();
    let engine = await engineOver(lib, backend, off, opens);
    return {
      open: (name) => engine.open(name),
      tempOpens: () => opens.n,
      async restart() {
        if (kind.persistent) {
          await backend.close();
          backend = await openBackend();
        }
        engine = await engineOver(lib, backend, off, opens);
      },
      settle: () => backend.reserve(),
      async dispose() {
        await backend.close();
        await scratch.dispose();
      },
    };
  };
}

// The variants every storage runs: the baseline first.
export const VARIANTS = [
  { label: 'baseline', build: 'baseline', off: false },
  { label: 'tempcrypt', build: 'dist', off: false },
  { label: 'tempcrypt off', build: 'dist', off: true },
];
