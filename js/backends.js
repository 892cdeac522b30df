// The storage backends, by the name users pass as open(name, { storage }).
// Each file default-exports its storage kind (./backend.d.ts) and passes
// the backend conformance suite (test/conformance/), which runs over every
// kind listed here that is available where the suite runs.  A new backend:
// one file, one line here (and its name in index.d.ts's Storage type).
export { default as file } from './file-backend.js';
export { default as memory } from './memory-backend.js';
export { default as opfs } from './opfs-backend.js';
