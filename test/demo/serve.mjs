// Static server of the demo page (make demo): serves js/demo/ and dist/
// from the repository on 127.0.0.1, no COOP/COEP headers (the page must
// not need them), no caching.  `/` redirects to the page.
//   node test/demo/serve.mjs [--port=8321]      serve until Ctrl-C
//   import { serveDemo } from './serve.mjs'      port 0: a free port
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '../browser/server.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const PAGE = '/js/demo/';
const SERVED = ['/js/demo/', '/dist/'];

export async function serveDemo({ port = 0, host = '127.0.0.1' } = {}) {
  const s = await serve(ROOT, { port, host, allow: SERVED, redirects: { '/': PAGE, '/js/demo': PAGE } });
  return { ...s, url: s.base + PAGE };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = Number((process.argv.find((a) => a.startsWith('--port=')) || '--port=8321').slice(7));
  for (const f of ['dist/worker.js', 'dist/sqlite3.wasm']) {
    if (!fs.existsSync(path.join(ROOT, f))) { console.error(`demo: ${f} is missing; run \`make browser\` first`); process.exit(1); }
  }
  try {
    const s = await serveDemo({ port });
    console.log(`\n  sqlite-tempcrypt demo: ${s.url}\n\n  Open it in Chrome, Edge, Firefox or Safari. Ctrl-C stops the server.\n`);
    const stop = () => { console.log('\ndemo: stopped'); s.close().then(() => process.exit(0)); };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  } catch (e) {
    if (e.code === 'EADDRINUSE') console.error(`demo: port ${port} is in use; try \`make demo PORT=${port + 1}\``);
    else console.error(`demo: ${e.message}`);
    process.exit(1);
  }
}
