// The ORM tests against the lowest Kysely and Drizzle the package supports
// (package.json's peerDependencies): `node --import ./test/api/lowest-peers.mjs
// test/api/...` makes every import of 'kysely' and 'drizzle-orm' (ours in
// dist/ and the tests') resolve to the devDependencies 'kysely-lowest' and
// 'drizzle-lowest', npm aliases of those versions.
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

const LOWEST = { kysely: 'kysely-lowest', 'drizzle-orm': 'drizzle-lowest' };

if (isMainThread) register(import.meta.url);

// The loader hook (run in the loaders' thread).
export function resolve(specifier, context, next) {
  const [, name, rest = ''] = /^(@[^/]+\/[^/]+|[^./][^/]*)(\/.*)?$/.exec(specifier) ?? [];
  return next(name && LOWEST[name] ? LOWEST[name] + rest : specifier, context);
}
