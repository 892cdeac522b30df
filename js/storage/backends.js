// The storage backends, by the name users pass as open(name, { storage }).
// Each file default-exports its storage kind (./backend.d.ts) and passes
// the backend conformance suite (test/conformance/), which runs over every
// kind listed here that is available where the suite runs.  A new backend:
// one file, one line here (and its name in index.d.ts's Storage type).
export { default as memory } from './memory-backend.js';
export { default as opfs } from './opfs-backend.js';

// 'file' (node:fs: ./file-backend.js and its lock) is Node's alone: its
// code loads at its first use, by a name bundlers do not follow, so that a
// browser bundle carries none of it (test/unit/bundle.test.mjs, which also
// holds this kind's fields to file-backend.js's); elsewhere it says why
// it is not there.
import { isNode } from '../shared/platform.js';

const FILE_BACKEND = './file-backend.js';
let fileKind = null;
const load = () => (fileKind ??= import(/* @vite-ignore */ FILE_BACKEND).then((m) => m.default));
export const file = {
  name: 'file',
  persistent: true,
  options: ['dir', 'readOnly'],
  unavailable: () => (isNode ? null : "storage 'file' is for Node (node:fs); in a browser use 'opfs'"),
  open: async (name, options) => (await load()).open(name, options),
  scratch: async (tag) => (await load()).scratch(tag),
};
