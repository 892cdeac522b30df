// The demo's workloads: what the page shows and what the Worker runs.
// Every run starts from the same table: `rows` records, each holding the
// user's secret once (bound as a parameter, never part of this file).

// Connection settings that make SQLite use files for temporary data and
// keep only a small page cache, so sorts and temp tables really spill.
// 4096-byte pages for the fresh database: the sorter keeps 250 pages of the
// main database's size in memory (the build's default page is 8192).
export const PRAGMAS = 'PRAGMA page_size=4096; PRAGMA temp_store=FILE; PRAGMA cache_size=16; PRAGMA temp.cache_size=16;';

// Filler text so rows look like records (and temp files like real ones).
export const FILLER = 'Met with the client about the renewal; they asked for the invoice history, ' +
  'the delivery address change and a call back on Tuesday. Payment terms agreed at 30 days, ' +
  'discount approved by the account manager. Follow up on the open support ticket and send ' +
  'the signed contract to legal. Customer prefers email, no calls before ten. ';

export const SETUP_SQL = [
  'DROP TABLE IF EXISTS t',
  'CREATE TABLE t(id INTEGER PRIMARY KEY, grp INT, u INT UNIQUE, name TEXT, note TEXT)',
  `INSERT INTO t(grp, u, name, note)
   SELECT n % 7, n, 'customer-' || n,
          'Note ' || n || ': ' || :secret || '. ' || substr(:filler, 1 + (n * 37) % 90, 260)
   FROM (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < :rows) SELECT n FROM c)`,
];

export const WORKLOADS = [
  {
    id: 'temp-table', label: 'Temp table + index',
    sql: ['CREATE TEMP TABLE tt AS SELECT * FROM t', 'CREATE INDEX temp.tt_note ON tt(note)',
      "SELECT count(*) FROM tt WHERE note > ''"],
    what: 'A temporary table (and an index on it) lives in the temp database, a file SQLite opens without a name. It stays there until the connection closes.',
  },
  {
    id: 'order-by', label: 'Big ORDER BY',
    sql: ['SELECT name, note FROM t ORDER BY substr(note, 7) DESC'],
    what: 'Sorting more than fits in memory: SQLite writes sorted runs of whole rows to a sorter file and merges them.',
  },
  {
    id: 'distinct', label: 'DISTINCT',
    sql: ["SELECT count(*) FROM (SELECT DISTINCT name || ': ' || note || ' / ' || k FROM t, (WITH RECURSIVE k(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM k WHERE k < 16) SELECT k FROM k))"],
    what: 'DISTINCT keeps every value seen so far in a transient b-tree; once it outgrows its cache (the build\'s 16 MiB default, whatever the PRAGMAs say) it spills to a temp file. Here every row counts 16 times over.',
  },
  {
    id: 'group-by', label: 'GROUP BY',
    sql: ['SELECT note, count(*) FROM t GROUP BY note'],
    what: 'GROUP BY on a column without an index sorts the rows first (a sorter file).',
  },
  {
    id: 'create-index', label: 'CREATE INDEX',
    sql: ['CREATE INDEX t_note ON t(note)', 'DROP INDEX t_note'],
    what: 'Building an index sorts every key through a sorter file before writing the index.',
  },
  {
    id: 'vacuum', label: 'VACUUM',
    sql: ['VACUUM'],
    what: 'VACUUM copies the whole database into a temp database file, then copies it back.',
  },
  {
    id: 'stmt-journal', label: 'Statement journal',
    sql: ['BEGIN', "UPDATE t SET note = note || ' (1)'", "UPDATE t SET u = u + 1000000, note = note || ' (2)'", 'COMMIT'],
    what: 'The second UPDATE of a transaction may fail halfway (u is UNIQUE), so SQLite saves the old content of every page it changes in a statement journal (a subjournal file).',
  },
  {
    id: 'window', label: 'Window function',
    sql: ['SELECT note, row_number() OVER (PARTITION BY grp ORDER BY note DESC) FROM t'],
    what: 'A window function sorts the rows by partition and order (a sorter file) and buffers each partition.',
  },
];

export const SIZE = { min: 1000, max: 20000, step: 1000, value: 5000 };

// Human names of the file kinds the storage observer reports.
export const KIND_LABELS = {
  'temp-db': 'temp database',
  'transient-db': 'transient database',
  'temp-journal': 'sorter / temp journal',
  subjournal: 'statement journal',
  'main-db': 'main database',
  'main-journal': 'rollback journal',
  'super-journal': 'super-journal',
  wal: 'WAL',
  other: 'other',
};
