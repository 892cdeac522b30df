// Writes the type declarations of js/shared/constants.js (dist/shared/constants.d.ts,
// made by mk/browser.mk): each number as its literal type, so that
// `import { SQLITE_BUSY } from 'sqlite-tempcrypt'` is typed from the one
// list of values.
//   node scripts/constants-dts.mjs js/shared/constants.js > dist/shared/constants.d.ts
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const file = process.argv[2];
const C = await import(pathToFileURL(path.resolve(file)).href);
const out = [
  '// Generated from js/shared/constants.js by scripts/constants-dts.mjs: SQLite\'s numbers (result codes, open',
  '// flags, column types) and the OPFS pool\'s header layout.',
];
for (const [name, value] of Object.entries(C)) {
  if (typeof value === 'number') out.push(`export declare const ${name}: ${value};`);
  else if (value instanceof Map) out.push(`/** Result code -> its name ('SQLITE_CONSTRAINT_UNIQUE'); what err.codeName says. */\nexport declare const ${name}: ReadonlyMap<number, string>;`);
  else throw new Error(`${file}: ${name} is neither a number nor a Map: declare its type in scripts/constants-dts.mjs`);
}
process.stdout.write(out.join('\n') + '\n');
