// The app's setup of a database in the Worker: what registers its SQL
// functions, aggregates and collations (and runs PRAGMAs) on the sync
// database before any call.  Each is a function (given to serve() in the
// app's own Worker entry, ../serve.js, which the app's bundler builds with
// its imports and TypeScript) or a module's URL (open()'s `setup` option:
// imported here at run time, as it is, never bundled).  Errors name the
// setup and say whether it failed to load or failed to run.

// What a failed import says about a URL that is no JavaScript module: a
// bundler inlined a .ts file (or another asset) as a data: URL.
function hint(url) {
  const mime = /^data:([^;,]*)/.exec(url)?.[1];
  if (mime && !/javascript|ecmascript/.test(mime)) return ` (a data: URL of type ${mime || 'text/plain'}: the bundler took the module for an asset)`;
  return '';
}

// The setup module's default export, or an error naming the module.
async function load(url) {
  const shown = url.length > 120 ? `${url.slice(0, 117)}...` : url;
  let mod;
  try {
    mod = await import(/* @vite-ignore */ url);
  } catch (e) {
    throw new Error(`setup module ${shown} failed to load${hint(url)}: ${e && e.message}. ` +
      'A setup module is imported as it is: written in TypeScript or importing packages, it must be built: ' +
      "give its function to serve() in your own Worker entry instead (docs/api.md, 'setup')", { cause: e });
  }
  if (typeof mod.default !== 'function') throw new TypeError(`setup module ${shown} has no default export function`);
  return { fn: mod.default, name: `setup module ${shown}` };
}

// Run each setup (a function or a module's URL; null skipped) on db, in order.
export async function runSetup(db, setups) {
  for (const setup of setups) {
    if (setup == null) continue;
    const { fn, name } = typeof setup === 'function' ? { fn: setup, name: 'the setup function given to serve()' } : await load(String(setup));
    try {
      await fn(db);
    } catch (e) {
      throw new Error(`${name} failed: ${e && e.message}`, { cause: e });
    }
  }
}
