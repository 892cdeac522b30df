// The lower storages of the JS conformance suite, as stores for
// cases.js's runVariant(): each case gets a fresh store, open(name) opens a
// database in it (engine.js's synchronous Database), restart() starts a
// fresh wasm instance over the same storage (the OPFS pool closed and opened
// again: what a page reload does).
//
// lib: the modules of one build ({ createEngine, MemoryBackend, OpfsPool,
// deletePool }); off: switch tempcrypt off (setEnabled(false)) in every
// instance.

// A wasm instance over backend; counts temp files opened in opens.n.
async function engineOver(lib, backend, off, opens) {
  const engine = await lib.createEngine(backend);
  if (off) engine.tempcrypt.setEnabled(false);
  engine.setObserver((ev) => { if (ev.op === 'open' && ev.temp) opens.n++; });
  return engine;
}

export function memoryStores(lib, { off = false } = {}) {
  return async () => {
    const backend = new lib.MemoryBackend(), opens = { n: 0 };
    let engine = await engineOver(lib, backend, off, opens);
    return {
      open: (name) => engine.open(name),
      tempOpens: () => opens.n,
      async restart() { engine = await engineOver(lib, backend, off, opens); },
      settle() {},
      dispose() {},
    };
  };
}

// One pool per case, named from `tag` and the case; deleted afterwards.
export function opfsStores(lib, tag, { off = false } = {}) {
  let n = 0;
  return async () => {
    const name = `conformance-${tag}-${++n}`;
    await lib.deletePool(name);
    const opens = { n: 0 };
    // Wait for the Web Lock as open() does: Firefox frees a closed pool's
    // lock a moment after close() returns.
    const options = { lockTimeoutMs: 5000 };
    let pool = await lib.OpfsPool.open(name, options);
    let engine = await engineOver(lib, pool, off, opens);
    return {
      open: (file) => engine.open(file),
      tempOpens: () => opens.n,
      async restart() {
        await pool.close();
        pool = await lib.OpfsPool.open(name, options);
        engine = await engineOver(lib, pool, off, opens);
      },
      settle: () => pool.reserve(),
      async dispose() {
        await pool.close();
        await lib.deletePool(name);
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
