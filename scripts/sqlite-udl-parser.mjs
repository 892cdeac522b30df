// The library's sqlite3.c: the official amalgamation with its parser
// (the section "parse.c") replaced by one that Lemon generated from the
// same release's parse.y with -DSQLITE_ENABLE_UPDATE_DELETE_LIMIT, as
// SQLite's own build (`make sqlite3.c`) makes it when that option is set.
// That parser comes from an amalgamation of the same release built so
// (better-sqlite3's); this script checks that the two are the same
// release (SQLITE_SOURCE_ID) and differ in nothing but the parser and
// the one line that says the parser is capable of it, then writes the
// official file with that parser and that line:
//   node scripts/sqlite-udl-parser.mjs OFFICIAL.c UDL.c OUT.c
// Anything else is an error, and OUT.c is not written.
import fs from 'node:fs';

const UDL_LINE = '#define SQLITE_UDL_CAPABLE_PARSER 1\n';
const BEGIN = '/************** Begin file parse.c ***';
const END = '/************** End of parse.c ***';
const OPTIONS = '** source file "parse.y" with these options:\n**\n**   -DSQLITE_ENABLE_UPDATE_DELETE_LIMIT\n*/\n';

function fail(msg) {
  console.error(`sqlite-udl-parser: ${msg}`);
  process.exit(1);
}

// text -> { head, parser, tail } around the section parse.c.
function split(text, name) {
  const b = text.indexOf(BEGIN);
  const e = text.indexOf(END);
  if (b < 0 || e < b || text.indexOf(BEGIN, b + 1) >= 0) fail(`${name}: no single section parse.c`);
  return { head: text.slice(0, b), parser: text.slice(b, e), tail: text.slice(e) };
}

const sourceId = (text) => /^#define SQLITE_SOURCE_ID +"([^"]+)"$/m.exec(text)?.[1];

const [officialPath, udlPath, outPath] = process.argv.slice(2);
if (!outPath) fail('usage: sqlite-udl-parser.mjs OFFICIAL.c UDL.c OUT.c');
const official = fs.readFileSync(officialPath, 'latin1');
const udl = fs.readFileSync(udlPath, 'latin1');
if (!sourceId(official) || sourceId(official) !== sourceId(udl)) {
  fail(`not the same release: ${sourceId(official)} (${officialPath}) and ${sourceId(udl)} (${udlPath})`);
}
if (official.includes(UDL_LINE)) fail(`${officialPath} already has ${UDL_LINE.trim()}`);
const o = split(official, officialPath);
const u = split(udl, udlPath);
// The line stays where SQLite's tooling put it in UDL.c (after the
// amalgamation's own defines, before the first file).
const at = u.head.indexOf(UDL_LINE);
if (at < 0 || u.head.slice(0, at) + u.head.slice(at + UDL_LINE.length) !== o.head) {
  fail(`${udlPath} differs from ${officialPath} before parse.c other than by ${UDL_LINE.trim()}`);
}
if (u.tail !== o.tail) fail(`${udlPath} differs from ${officialPath} after parse.c`);
if (!u.parser.includes(OPTIONS)) fail(`${udlPath}: its parse.c was not generated with -DSQLITE_ENABLE_UPDATE_DELETE_LIMIT alone`);
fs.writeFileSync(outPath, o.head.slice(0, at) + UDL_LINE + o.head.slice(at) + u.parser + o.tail, 'latin1');
