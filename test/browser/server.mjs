// A tiny static file server for the browser tests and the demo: serves
// `root` on 127.0.0.1, no COOP/COEP headers (the package must not need
// them), no caching.  Returns { url, base, server, close } (url and base:
// http://host:port).
//   port       0 (default): a free port
//   allow      URL prefixes served (e.g. ['/js/demo/', '/dist/']); anything
//              else is 404.  Default: all of root.
//   redirects  { '/': '/js/demo/' }: 302 from a path to another
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json', '.map': 'application/json',
  '.png': 'image/png',
};

export function serve(root, { port = 0, host = '127.0.0.1', allow = null, redirects = {} } = {}) {
  root = path.resolve(root);
  const server = http.createServer((req, res) => {
    let pathname;
    try { pathname = path.posix.normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname)); } catch { res.writeHead(400).end(); return; }
    if (Object.hasOwn(redirects, pathname)) { res.writeHead(302, { location: redirects[pathname] }).end(); return; }
    if (allow && !allow.some((p) => pathname.startsWith(p))) { res.writeHead(404).end('not found'); return; }
    if (pathname.endsWith('/')) pathname += 'index.html';
    const file = path.join(root, pathname);
    if (file !== root && !file.startsWith(root + path.sep)) { res.writeHead(403).end(); return; }
    fs.readFile(file, (err, data) => {
      if (err) { res.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${pathname}`); return; }
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(data);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const base = `http://${host}:${server.address().port}`;
      resolve({ url: base, base, server, close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(r); }) });
    });
  });
}
