/*
** Conformance of the whole stack: the same SQL, the same API
** calls and the same file controls, once on a lower VFS L directly and
** once on tempcrypt over L, with every result written to a transcript.
** The two transcripts must be identical, line for line, except for the
** differences listed in aExpected below, each a documented decision that
** is checked to come out exactly as documented.  Nothing may trap or
** crash (a crash fails the make target).
**
**   conformance [-dir DIR] [-budget B] VFS
**                                   VFS e.g. unix, unix-dotfile, unix-none,
**                                   unix-excl (natively), unix-dotfile
**                                   and unix-none under WASI; B the memory
**                                   tier's budget (default 0: no tier)
**
** Scenarios: every journal mode with and without locking_mode=EXCLUSIVE
** (WAL included) and a reopen without the pragma; a database whose header
** already says WAL; page sizes 512 to 65536 with VACUUM and VACUUM INTO;
** the backup API to and from a temporary database; ATTACH of a file and
** of a temporary database; temp_store 0, 1 and 2; mmap_size; file
** controls sent to the temporary database; database names that look like
** temp file names; reopen after close.  Plus, on tempcrypt only, the
** file-level guarantee behind the CHUNK_SIZE decision: after a truncate
** and a regrowth the gap reads as zeros.
**
** With the memory tier the temp files stay in memory (the temporary
** database of the file-control scenario has no lower file yet), and the
** transcripts must still be identical: the file controls that report on
** the lower file open it first, and only MMAP_SIZE, answered without a
** lower file as SQLITE_OK (limit 0: the file is never mapped), may differ
** where the lower VFS has no mmap and says SQLITE_NOTFOUND.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"
#include "tempcrypt.h"
#include "testutil.h"

/* ------------------------------------------------------------ transcript */
typedef struct Tx { char *z; size_t n, nAlloc; } Tx;

static void txAppend(Tx *t, const char *zFmt, ...){
  va_list ap;
  char *z;
  size_t n;
  va_start(ap, zFmt);
  z = sqlite3_vmprintf(zFmt, ap);
  va_end(ap);
  if( !z ){ fprintf(stderr, "conformance: out of memory\n"); exit(2); }
  n = strlen(z);
  if( t->n + n + 1 > t->nAlloc ){
    t->nAlloc = (t->n + n + 1)*2;
    t->z = realloc(t->z, t->nAlloc);
    if( !t->z ){ fprintf(stderr, "conformance: out of memory\n"); exit(2); }
  }
  memcpy(t->z + t->n, z, n+1);
  t->n += n;
  sqlite3_free(z);
}

/* The statement text, with this side's file prefix (which differs
** between the sides) written as "<dir>/". */
static const char *gzPrefix[2];
static void txStatement(Tx *t, const char *z, int n){
  int i;
  for(i=0; i<2; i++){
    const char *zHit = gzPrefix[i] ? strstr(z, gzPrefix[i]) : 0;
    if( zHit && zHit<z+n ){
      int nPre = (int)strlen(gzPrefix[i]);
      txAppend(t, "%.*s<dir>/", (int)(zHit-z), z);
      txStatement(t, zHit+nPre, n - (int)(zHit-z) - nPre);
      return;
    }
  }
  txAppend(t, "%.*s", n, z);
}

/* Run every statement of zSql, one transcript line per statement. */
static void txExec(Tx *t, sqlite3 *db, const char *zSql){
  const char *zTail = zSql;
  while( zTail && zTail[0] ){
    sqlite3_stmt *pStmt = 0;
    const char *zStart = zTail;
    int rc = sqlite3_prepare_v2(db, zTail, -1, &pStmt, &zTail);
    int nRow = 0;
    if( rc!=SQLITE_OK ){
      txAppend(t, "%.60s -> prepare error %d %s\n", zStart, sqlite3_extended_errcode(db), sqlite3_errmsg(db));
      return;
    }
    if( !pStmt ) continue;   /* whitespace or comment */
    while( zStart[0]==' ' || zStart[0]=='\n' ) zStart++;
    txStatement(t, zStart, (int)(zTail-zStart));
    txAppend(t, " ->");
    while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
      int i, n = sqlite3_column_count(pStmt);
      if( nRow++>=20 ) continue;   /* results are compared in aggregate */
      txAppend(t, " [");
      for(i=0; i<n; i++){
        if( sqlite3_column_type(pStmt, i)==SQLITE_BLOB ){
          txAppend(t, "%sblob:%d", i ? "|" : "", sqlite3_column_bytes(pStmt, i));
        }else{
          txAppend(t, "%s%.40s", i ? "|" : "", (const char*)sqlite3_column_text(pStmt, i));
        }
      }
      txAppend(t, "]");
    }
    if( rc==SQLITE_DONE ){
      txAppend(t, " ok %d rows\n", nRow);
    }else{
      txAppend(t, " error %d %s\n", sqlite3_extended_errcode(db), sqlite3_errmsg(db));
    }
    sqlite3_finalize(pStmt);
  }
}

/* ------------------------------------------------------------ sides */
static const char *gzDir = ".";
static const char *gzLower;            /* the lower VFS under test */

typedef struct Side {
  const char *zVfs;                    /* L or "tempcrypt" */
  const char *zTag;                    /* "plain" or "enc" */
  Tx tx;
} Side;

static const char *path(const Side *s, const char *zName){
  static char z[4][512];
  static int i = 0;
  i = (i+1)&3;
  snprintf(z[i], sizeof(z[i]), "%s/%s-%s", gzDir, s->zTag, zName);
  return z[i];
}

static void removeDb(const char *zPath){
  static const char *azSuffix[] = { "", "-journal", "-wal", "-shm", ".lock" };
  char z[600];
  int i;
  for(i=0; i<5; i++){
    snprintf(z, sizeof(z), "%s%s", zPath, azSuffix[i]);
    remove(z);
  }
}

static sqlite3 *openDb(Side *s, const char *zName){
  sqlite3 *db = 0;
  const char *zPath = zName[0] ? path(s, zName) : "";
  int rc = sqlite3_open_v2(zPath, &db, SQLITE_OPEN_READWRITE|SQLITE_OPEN_CREATE, s->zVfs);
  txAppend(&s->tx, "open %s -> %d\n", zName[0] ? zName : "\"\"", rc);
  if( rc!=SQLITE_OK ){
    sqlite3_close(db);
    return 0;
  }
  return db;
}

static void closeDb(Side *s, sqlite3 *db){
  if( db ) txAppend(&s->tx, "close -> %d\n", sqlite3_close(db));
}

/* Queries that spill to temp files when the cache is small. */
#define SPILL \
  "PRAGMA temp.cache_size=5;" \
  "SELECT b FROM t ORDER BY b DESC LIMIT 3;" \
  "SELECT count(DISTINCT b), count(*) FROM t;" \
  "SELECT a % 7, count(*), sum(length(b)) FROM t GROUP BY 1 ORDER BY 1;" \
  "CREATE TEMP TABLE IF NOT EXISTS tt(a, b); DELETE FROM tt;" \
  "INSERT INTO tt SELECT a, b FROM t; SELECT count(*), sum(length(b)) FROM tt;"
#define FILL(n) \
  "CREATE TABLE IF NOT EXISTS t(a INTEGER PRIMARY KEY, b TEXT);" \
  "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i<" #n ")" \
  " INSERT INTO t(b) SELECT printf('%.*c-%d', 40 + i%200, char(65+i%26), i) FROM s;"

/* ------------------------------------------------------------ scenarios */
static void scJournalModes(Side *s){
  static const char *azMode[] = { "delete", "truncate", "persist", "memory", "wal", "off" };
  int m, excl;
  for(m=0; m<6; m++){
    for(excl=0; excl<2; excl++){
      char zName[64], zSql[200];
      sqlite3 *db;
      snprintf(zName, sizeof(zName), "jm-%s-%d.db", azMode[m], excl);
      removeDb(path(s, zName));
      txAppend(&s->tx, "## journal_mode=%s exclusive=%d\n", azMode[m], excl);
      db = openDb(s, zName);
      if( !db ) continue;
      snprintf(zSql, sizeof(zSql), "%sPRAGMA journal_mode=%s;",
               excl ? "PRAGMA locking_mode=EXCLUSIVE;" : "", azMode[m]);
      txExec(&s->tx, db, zSql);
      txExec(&s->tx, db, "PRAGMA temp_store=FILE; PRAGMA cache_size=20;" FILL(2000)
             "BEGIN; UPDATE t SET b=b||'x' WHERE a%3=0; SAVEPOINT sp;"
             " DELETE FROM t WHERE a>1500; ROLLBACK TO sp; COMMIT;"
             "SELECT count(*), sum(length(b)) FROM t;" SPILL
             "PRAGMA integrity_check;");
      closeDb(s, db);
      /* Reopen without the pragmas, then with the exclusive lock. */
      db = openDb(s, zName);
      if( db ){
        txExec(&s->tx, db, "PRAGMA journal_mode; SELECT count(*), sum(length(b)) FROM t;"
               "INSERT INTO t(b) VALUES('after reopen'); PRAGMA integrity_check;");
        closeDb(s, db);
      }
      db = openDb(s, zName);
      if( db ){
        txExec(&s->tx, db, "PRAGMA locking_mode=EXCLUSIVE; PRAGMA journal_mode;"
               "SELECT count(*) FROM t; PRAGMA journal_mode=DELETE; PRAGMA integrity_check;");
        closeDb(s, db);
      }
    }
  }
}

/* A database whose header says WAL (bytes 18 and 19 are 2), as another
** build would leave it. */
static void scWalHeader(Side *s){
  const char *zName = "walhdr.db";
  sqlite3 *db;
  FILE *f;
  txAppend(&s->tx, "## database with a WAL header\n");
  removeDb(path(s, zName));
  db = openDb(s, zName);
  if( !db ) return;
  txExec(&s->tx, db, FILL(300));
  closeDb(s, db);
  f = fopen(path(s, zName), "r+b");
  CHECK(f!=0, "%s: cannot patch %s", s->zTag, zName);
  if( !f ) return;
  fseek(f, 18, SEEK_SET);
  fputc(2, f); fputc(2, f);
  fclose(f);
  db = openDb(s, zName);
  if( db ){
    txExec(&s->tx, db, "SELECT count(*) FROM t; PRAGMA journal_mode;");
    closeDb(s, db);
  }
  /* The way out that README gives: exclusive lock, then DELETE mode. */
  db = openDb(s, zName);
  if( db ){
    txExec(&s->tx, db, "PRAGMA locking_mode=EXCLUSIVE; SELECT count(*) FROM t;"
           "PRAGMA temp_store=FILE;" SPILL "PRAGMA journal_mode=DELETE; PRAGMA integrity_check;");
    closeDb(s, db);
  }
  db = openDb(s, zName);
  if( db ){
    txExec(&s->tx, db, "PRAGMA journal_mode; SELECT count(*) FROM t;");
    closeDb(s, db);
  }
}

static void scPageSizes(Side *s){
  int p;
  for(p=512; p<=65536; p*=2){
    char zName[64], zInto[64], zSql[400];
    sqlite3 *db;
    snprintf(zName, sizeof(zName), "page-%d.db", p);
    snprintf(zInto, sizeof(zInto), "page-%d-into.db", p);
    removeDb(path(s, zName));
    removeDb(path(s, zInto));
    txAppend(&s->tx, "## page_size=%d\n", p);
    db = openDb(s, zName);
    if( !db ) continue;
    snprintf(zSql, sizeof(zSql), "PRAGMA page_size=%d; PRAGMA temp.page_size=%d;"
             "PRAGMA temp_store=FILE; PRAGMA cache_size=5; PRAGMA temp.cache_size=5;", p, p);
    txExec(&s->tx, db, zSql);
    txExec(&s->tx, db, FILL(1500) "CREATE INDEX tb ON t(b);" SPILL "VACUUM; PRAGMA page_size;");
    snprintf(zSql, sizeof(zSql), "VACUUM INTO '%s';", path(s, zInto));
    txExec(&s->tx, db, zSql);
    txExec(&s->tx, db, "PRAGMA integrity_check;");
    closeDb(s, db);
    db = openDb(s, zInto);
    if( db ){
      txExec(&s->tx, db, "PRAGMA page_size; SELECT count(*), sum(length(b)) FROM t; PRAGMA integrity_check;");
      closeDb(s, db);
    }
  }
}

static void backupStep(Side *s, sqlite3 *pTo, sqlite3 *pFrom, const char *zWhat){
  sqlite3_backup *pB = sqlite3_backup_init(pTo, "main", pFrom, "main");
  int rc = SQLITE_ERROR;
  if( pB ){
    do{ rc = sqlite3_backup_step(pB, 7); }while( rc==SQLITE_OK );
    rc = sqlite3_backup_finish(pB);
  }
  txAppend(&s->tx, "backup %s -> %d\n", zWhat, rc);
}

static void scBackup(Side *s){
  sqlite3 *pSrc, *pTmp, *pDst;
  txAppend(&s->tx, "## backup API\n");
  removeDb(path(s, "bk-src.db"));
  removeDb(path(s, "bk-dst.db"));
  pSrc = openDb(s, "bk-src.db");
  pTmp = openDb(s, "");
  pDst = openDb(s, "bk-dst.db");
  if( pSrc && pTmp && pDst ){
    txExec(&s->tx, pSrc, "PRAGMA page_size=2048;" FILL(3000));
    txExec(&s->tx, pTmp, "PRAGMA cache_size=5;");
    backupStep(s, pTmp, pSrc, "file -> temp db");
    txExec(&s->tx, pTmp, "SELECT count(*), sum(length(b)) FROM t; UPDATE t SET b=upper(b) WHERE a%5=0;"
           "PRAGMA integrity_check;");
    backupStep(s, pDst, pTmp, "temp db -> file");
    txExec(&s->tx, pDst, "SELECT count(*), sum(length(b)), sum(b GLOB '*[a-z]*') FROM t; PRAGMA integrity_check;");
  }
  closeDb(s, pSrc);
  closeDb(s, pTmp);
  closeDb(s, pDst);
}

static void scAttach(Side *s){
  sqlite3 *db;
  char zSql[700];
  txAppend(&s->tx, "## ATTACH\n");
  removeDb(path(s, "att-main.db"));
  removeDb(path(s, "att-b.db"));
  db = openDb(s, "att-main.db");
  if( !db ) return;
  snprintf(zSql, sizeof(zSql), "PRAGMA temp_store=FILE; PRAGMA cache_size=10; ATTACH '%s' AS b;"
           "ATTACH '' AS anon; PRAGMA anon.cache_size=5;", path(s, "att-b.db"));
  txExec(&s->tx, db, zSql);
  txExec(&s->tx, db, FILL(1000)
         "CREATE TABLE b.u AS SELECT a, b FROM t WHERE a%2=0;"
         "CREATE TABLE anon.v AS SELECT a, b FROM t WHERE a%3=0;"
         "SELECT count(*) FROM t JOIN b.u USING(a) JOIN anon.v USING(a);"
         "SELECT count(DISTINCT b) FROM (SELECT b FROM b.u UNION ALL SELECT b FROM anon.v);"
         "BEGIN; DELETE FROM b.u WHERE a<100; UPDATE anon.v SET b=b||b; COMMIT;"
         "SELECT count(*), sum(length(b)) FROM anon.v; PRAGMA b.integrity_check;"
         "PRAGMA anon.integrity_check; DETACH b; DETACH anon;");
  closeDb(s, db);
}

static void scTempStore(Side *s){
  int ts;
  for(ts=0; ts<=2; ts++){
    char zName[64], zSql[100];
    sqlite3 *db;
    snprintf(zName, sizeof(zName), "ts-%d.db", ts);
    removeDb(path(s, zName));
    txAppend(&s->tx, "## temp_store=%d\n", ts);
    db = openDb(s, zName);
    if( !db ) continue;
    snprintf(zSql, sizeof(zSql), "PRAGMA temp_store=%d; PRAGMA cache_size=5; PRAGMA temp.cache_size=5;", ts);
    txExec(&s->tx, db, zSql);
    txExec(&s->tx, db, FILL(2000) SPILL "CREATE INDEX tb ON t(b); VACUUM; PRAGMA integrity_check;");
    closeDb(s, db);
  }
}

static void scMmap(Side *s){
  sqlite3 *db;
  txAppend(&s->tx, "## mmap_size\n");
  removeDb(path(s, "mmap.db"));
  db = openDb(s, "mmap.db");
  if( !db ) return;
  txExec(&s->tx, db, "PRAGMA mmap_size=4194304; PRAGMA temp_store=FILE; PRAGMA cache_size=5;"
         "PRAGMA temp.mmap_size=4194304;" FILL(1500) SPILL
         "SELECT count(*) FROM t; PRAGMA temp.cache_size=2; SELECT count(*), sum(a) FROM tt;"
         "PRAGMA integrity_check;");
  closeDb(s, db);
}

/*
** File controls sent to the temporary database.  The result codes may
** differ only as aExpected says; the data must not differ at all.
*/
typedef struct Fcntl { const char *zName; int op; sqlite3_int64 iArg; } Fcntl;
static const Fcntl aFcntl[] = {
  { "CHUNK_SIZE",          SQLITE_FCNTL_CHUNK_SIZE,          4096 },
  { "SIZE_HINT",           SQLITE_FCNTL_SIZE_HINT,           200000 },
  { "SIZE_LIMIT",          SQLITE_FCNTL_SIZE_LIMIT,          -1 },
  { "PERSIST_WAL",         SQLITE_FCNTL_PERSIST_WAL,         -1 },
  { "POWERSAFE_OVERWRITE", SQLITE_FCNTL_POWERSAFE_OVERWRITE, -1 },
  { "MMAP_SIZE",           SQLITE_FCNTL_MMAP_SIZE,           1048576 },
  { "HAS_MOVED",           SQLITE_FCNTL_HAS_MOVED,           0 },
  { "LOCK_TIMEOUT",        SQLITE_FCNTL_LOCK_TIMEOUT,        0 },
  { "NULL_IO",             SQLITE_FCNTL_NULL_IO,             0 },   /* not sent: see below */
};

static int gnExpected = 0;   /* documented differences seen */
static int64_t gBudget = 0;  /* -budget: the memory tier's */

static void scFileControls(Side *s){
  sqlite3 *db;
  int i;
  txAppend(&s->tx, "## file controls on the temp database\n");
  removeDb(path(s, "fcntl.db"));
  db = openDb(s, "fcntl.db");
  if( !db ) return;
  txExec(&s->tx, db, "PRAGMA temp_store=FILE; PRAGMA temp.cache_size=5; PRAGMA temp.auto_vacuum=FULL;"
         "CREATE TEMP TABLE x(a INTEGER PRIMARY KEY, b TEXT);"
         "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i<200)"
         " INSERT INTO x(b) SELECT printf('%.300c', 'q') FROM s;");
  /* The temp database's file is open now (it spilled): else every file
  ** control would answer SQLITE_NOTFOUND on both sides. */
  for(i=0; i<(int)(sizeof(aFcntl)/sizeof(aFcntl[0])); i++){
    sqlite3_int64 iArg = aFcntl[i].iArg;
    int iArg32 = (int)iArg, rc;
    void *pArg = &iArg;
    if( aFcntl[i].op==SQLITE_FCNTL_NULL_IO ) continue;   /* would close the fd */
#ifdef __wasi__
    /* With a chunk size, the unix VFS's size hint divides by st_blksize,
    ** which node:wasi reports as 0: the plain side would trap in SQLite
    ** itself.  fileLevelChunkSize() still checks tempcrypt's refusal. */
    if( aFcntl[i].op==SQLITE_FCNTL_CHUNK_SIZE ) continue;
#endif
    if( aFcntl[i].op==SQLITE_FCNTL_CHUNK_SIZE || aFcntl[i].op==SQLITE_FCNTL_PERSIST_WAL
     || aFcntl[i].op==SQLITE_FCNTL_POWERSAFE_OVERWRITE || aFcntl[i].op==SQLITE_FCNTL_HAS_MOVED
     || aFcntl[i].op==SQLITE_FCNTL_LOCK_TIMEOUT ){
      pArg = &iArg32;
    }
    rc = sqlite3_file_control(db, "temp", aFcntl[i].op, pArg);
    txAppend(&s->tx, "fcntl %s -> %d\n", aFcntl[i].zName, rc);
  }
  /* Grow, shrink (auto_vacuum truncates at commit), grow again. */
  txExec(&s->tx, db,
         "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i<3000)"
         " INSERT INTO x(b) SELECT printf('%.*c%d', 50+i%300, char(97+i%26), i) FROM s;"
         "SELECT count(*), sum(length(b)) FROM x; DELETE FROM x WHERE a>200;"
         "SELECT count(*), sum(length(b)) FROM x;"
         "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i<2500)"
         " INSERT INTO x(b) SELECT printf('%.*c%d', 30+i%500, char(65+i%26), i) FROM s;"
         "SELECT count(*), sum(length(b)), max(b) FROM x; PRAGMA temp.integrity_check;");
  closeDb(s, db);
}

/* Names a user may choose that look like temp file names. */
static void scTempLikeNames(Side *s){
  static const char *azName[] = { "etilqs_0000000000000001", "tmp-1", "1" };
  int i;
  for(i=0; i<3; i++){
    sqlite3 *db;
    removeDb(path(s, azName[i]));
    txAppend(&s->tx, "## database named like a temp file: %s\n", azName[i]);
    db = openDb(s, azName[i]);
    if( !db ) continue;
    txExec(&s->tx, db, "PRAGMA temp_store=FILE; PRAGMA cache_size=5;" FILL(1500) SPILL "VACUUM;");
    closeDb(s, db);
    db = openDb(s, azName[i]);
    if( db ){
      txExec(&s->tx, db, "SELECT count(*), sum(length(b)) FROM t; PRAGMA integrity_check;");
      closeDb(s, db);
    }
  }
}

typedef void (*Scenario)(Side*);
static const struct { const char *zName; Scenario x; } aScenario[] = {
  { "journal-modes",   scJournalModes },
  { "wal-header",      scWalHeader },
  { "page-sizes",      scPageSizes },
  { "backup",          scBackup },
  { "attach",          scAttach },
  { "temp-store",      scTempStore },
  { "mmap",            scMmap },
  { "file-controls",   scFileControls },
  { "temp-like-names", scTempLikeNames },
};

/* ------------------------------------------------------------ comparing */
/* Is the line pair a documented difference?  File controls that tempcrypt
** refuses for encrypted files (tcFileControl) answer SQLITE_NOTFOUND (12)
** where the lower VFS may have said SQLITE_OK. */
static int expectedDifference(const char *zPlain, const char *zEnc){
  static const char *azRefused[] = { "CHUNK_SIZE", "SIZE_LIMIT" };
  int i;
  if( gBudget>0 ){
    char zLower[64];
    snprintf(zLower, sizeof(zLower), "fcntl MMAP_SIZE -> %d", SQLITE_NOTFOUND);
    static const char zOurs[] = "fcntl MMAP_SIZE -> 0";
    size_t n = strlen(zOurs), nLower = strlen(zLower);
    if( strncmp(zEnc, zOurs, n)==0 && (zEnc[n]=='\n' || zEnc[n]==0)
     && strncmp(zPlain, zLower, nLower)==0 && (zPlain[nLower]=='\n' || zPlain[nLower]==0) ){
      gnExpected++;
      return 1;
    }
  }
  for(i=0; i<2; i++){
    char zWant[64];
    snprintf(zWant, sizeof(zWant), "fcntl %s -> %d", azRefused[i], SQLITE_NOTFOUND);
    if( strncmp(zEnc, zWant, strlen(zWant))==0
     && strncmp(zPlain, zWant, strlen("fcntl ")+strlen(azRefused[i]))==0 ){
      gnExpected++;
      return 1;
    }
  }
  return 0;
}

/* Compare line by line; returns the number of lines compared. */
static int compareTx(const char *zScenario, const Tx *a, const Tx *b){
  const char *pa = a->z ? a->z : "", *pb = b->z ? b->z : "";
  int nLine = 0, nDiff = 0;
  while( *pa || *pb ){
    const char *ea = strchr(pa, '\n'), *eb = strchr(pb, '\n');
    size_t na = ea ? (size_t)(ea-pa) : strlen(pa);
    size_t nb = eb ? (size_t)(eb-pb) : strlen(pb);
    nLine++;
    if( (na!=nb || memcmp(pa, pb, na)!=0) && !expectedDifference(pa, pb) ){
      if( nDiff++<5 ){
        fprintf(stderr, "FAIL %s/%s: line %d differs\n  %s: %.*s\n  %s: %.*s\n", gzLower,
                zScenario, nLine, gzLower, (int)na, pa, "tempcrypt", (int)nb, pb);
      }
    }
    pa += na + (ea ? 1 : 0);
    pb += nb + (eb ? 1 : 0);
  }
  CHECK(nDiff==0, "%s/%s: %d lines differ", gzLower, zScenario, nDiff);
  return nLine;
}

/* ------------------------------------------------------------ file level */
/*
** The guarantee behind refusing CHUNK_SIZE: with a chunk size the unix
** VFS rounds a truncate up and keeps old blocks past the logical end.
** Here an encrypted temp file gets the file control, is filled with three
** blocks, truncated to one block (the lower file would keep the second
** block's counter and most of its ciphertext), and grown again by a write
** into the third block: the second, a hole now, must read as zeros, never
** as old data or keystream.
*/
static void fileLevelChunkSize(void){
  sqlite3_vfs *pVfs = sqlite3_vfs_find(SQLITE_TEMPCRYPT_VFS_NAME);
  sqlite3_file *pF = calloc(1, (size_t)pVfs->szOsFile);
  unsigned char aData[3*4096], aBack[3*4096];
  int outFlags = 0, chunk = 4096, rc, i, nBad = 0;
  int flags = SQLITE_OPEN_READWRITE|SQLITE_OPEN_CREATE|SQLITE_OPEN_EXCLUSIVE
            | SQLITE_OPEN_DELETEONCLOSE|SQLITE_OPEN_TEMP_JOURNAL;
  rc = pVfs->xOpen(pVfs, 0, pF, flags, &outFlags);
  CHECK(rc==SQLITE_OK, "file level: open of a temp file: %d", rc);
  if( rc!=SQLITE_OK ){ free(pF); return; }
  pF->pMethods->xFileControl(pF, SQLITE_FCNTL_CHUNK_SIZE, &chunk);
  memset(aData, 'D', sizeof(aData));
  rc = pF->pMethods->xWrite(pF, aData, sizeof(aData), 0);
  if( rc==SQLITE_OK ) rc = pF->pMethods->xTruncate(pF, 4096);
  if( rc==SQLITE_OK ) rc = pF->pMethods->xWrite(pF, aData, 100, 3*4096 - 100);
  if( rc==SQLITE_OK ) rc = pF->pMethods->xRead(pF, aBack, sizeof(aBack), 0);
  CHECK(rc==SQLITE_OK, "file level: write, truncate, regrow, read: %d", rc);
  for(i=0; i<4096; i++) nBad += aBack[i]!='D';
  for(i=4096; i<3*4096-100; i++) nBad += aBack[i]!=0;
  CHECK(nBad==0, "file level: %d bytes wrong after truncate and regrowth (old data or keystream in the hole)", nBad);
  pF->pMethods->xClose(pF);
  free(pF);
}

int main(int argc, char **argv){
  Side aSide[2];
  int i, nLine = 0;
  struct sqlite3_tempcrypt_stats st0, st1;
  for(i=1; i<argc; i++){
    if( strcmp(argv[i], "-dir")==0 && i+1<argc ) gzDir = argv[++i];
    else if( strcmp(argv[i], "-budget")==0 && i+1<argc ) gBudget = atoll(argv[++i]);
    else gzLower = argv[i];
  }
  if( !gzLower ){
    fprintf(stderr, "usage: conformance [-dir DIR] [-budget B] VFS\n");
    return 2;
  }
  if( sqlite3_vfs_find(gzLower)==0 ){
    fprintf(stderr, "conformance: no VFS named %s\n", gzLower);
    return 2;
  }
  /* Sorts and statement journals spill to files early (as under memory
  ** pressure in wasm), so that every scenario writes temp files. */
  sqlite3_config(SQLITE_CONFIG_PMASZ, 4);
  sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, 2048);
  CHECK(sqlite3_tempcrypt_register(gzLower, 0)==SQLITE_OK, "register over %s", gzLower);
  sqlite3_tempcrypt_budget(gBudget);
  memset(aSide, 0, sizeof(aSide));
  aSide[0].zVfs = gzLower;                   aSide[0].zTag = "plain";
  aSide[1].zVfs = SQLITE_TEMPCRYPT_VFS_NAME; aSide[1].zTag = "enc";
  for(i=0; i<2; i++) gzPrefix[i] = sqlite3_mprintf("%s/%s-", gzDir, aSide[i].zTag);
  for(i=0; i<(int)(sizeof(aScenario)/sizeof(aScenario[0])); i++){
    int k;
    for(k=0; k<2; k++){
      aSide[k].tx.n = 0;
      if( aSide[k].tx.z ) aSide[k].tx.z[0] = 0;
      if( k==1 ) sqlite3_tempcrypt_stats(&st0, 0);
      aScenario[i].x(&aSide[k]);
      if( k==1 ) sqlite3_tempcrypt_stats(&st1, 0);
    }
    /* The enc side must really have used encrypted temp files. */
    CHECK(st1.nFileEncrypted>st0.nFileEncrypted && st1.nLogicalWrite>st0.nLogicalWrite,
          "%s/%s: no encrypted temp file was written", gzLower, aScenario[i].zName);
    nLine += compareTx(aScenario[i].zName, &aSide[0].tx, &aSide[1].tx);
    if( getenv("CONFORMANCE_VERBOSE") ) fputs(aSide[1].tx.z, stdout);
  }
  fileLevelChunkSize();
  printf("conformance over %s: %d scenarios, %d transcript lines compared, %d documented differences\n",
         gzLower, (int)(sizeof(aScenario)/sizeof(aScenario[0])), nLine, gnExpected);
  free(aSide[0].tx.z);
  free(aSide[1].tx.z);
  return check_finish("conformance");
}
