/*
** Recovery after a fault clears, tried the way
** SQLite's own fault tests try it: a database that lives in temp files, an
** UPDATE of every row while faults are injected from the Nth operation
** on (or at the Nth only), then the fault is cleared and the same
** connection must find the database whole and usable again:
**
**   - PRAGMA integrity_check is ok;
**   - the content is exactly the state before or after the UPDATE;
**   - the UPDATE then runs again without error, and integrity still holds.
**
** Targets: a temporary database (sqlite3_open(""), page size 1024, cache
** of 10 pages) and a temporary schema (CREATE TEMP TABLE in a file
** database with temp_store=FILE).  Faults (below tempcrypt, on temp files
** only): io-from-nth, io-nth (every read, write and truncate counted),
** malloc-from-nth, malloc-nth, open-nth (the Nth temp-file open below
** tempcrypt fails).  Each case runs with tempcrypt on and, as the
** control, off: both must recover at every N.  With -budget B the
** encrypted runs have the memory tier at B bytes (B small: the database's
** temp file spills part-way, and the faults hit the spill).
**
** By default every N is tried for the encrypted runs with persistent I/O
** faults (the case that once failed: 616 of about 12,000); the other
** cases try every 7th N, to keep CI short.  -full tries every N of every
** case (about 15 minutes of CPU).
**
**   recovery [-stride K] [-full] [-budget B]
**     -stride K   try every Kth of those N only (sanitizer runs)
**     -full       every N in every case
**     -budget B   the memory tier at B bytes for the encrypted runs
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proof.h"
#include "tempcrypt.h"

typedef struct Target {
  const char *zName;
  const char *zSchema;   /* where table t lives */
  int bTempDb;           /* sqlite3_open(""), else a file with a temp schema */
  const char *zSetup;
} Target;

/* 100 rows with index on blobs of 200..499 bytes, deterministic. */
#define ROWS "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i<100) " \
  "INSERT INTO t(a, b, c) SELECT i, cast(printf('%0*d', 200 + (i*37)%300, i*7919) AS blob), i FROM s;"
static const Target aTarget[] = {
  { "temp-db", "main", 1,
    "PRAGMA page_size=1024; PRAGMA cache_size=10;"
    "CREATE TABLE t(a INTEGER PRIMARY KEY, b BLOB, c INT); CREATE INDEX tb ON t(b);" ROWS },
  { "temp-schema", "temp", 0,
    "PRAGMA temp_store=FILE; PRAGMA temp.page_size=1024; PRAGMA temp.cache_size=10;"
    "CREATE TEMP TABLE t(a INTEGER PRIMARY KEY, b BLOB, c INT); CREATE INDEX temp.tb ON t(b);" ROWS },
};
static const char *zWork = "UPDATE t SET b = substr(b, 2) || substr(b, 1, 1), c = c + 1";
static const int aMode[] = { PF_IO_FROM_NTH, PF_IO_NTH, PF_MALLOC_FROM_NTH, PF_MALLOC_NTH,
                             PF_OPEN_NTH };

static sqlite3 *openTarget(const Target *t){
  sqlite3 *db = 0;
  const char *zPath = t->bTempDb ? "" : proof_path(0, "recovery");
  if( !t->bTempDb ) proof_remove_db(zPath);
  if( sqlite3_open_v2(zPath, &db, SQLITE_OPEN_READWRITE|SQLITE_OPEN_CREATE, 0)!=SQLITE_OK
   || sqlite3_exec(db, t->zSetup, 0, 0, 0)!=SQLITE_OK ){
    fprintf(stderr, "recovery: setup of %s: %s\n", t->zName, db ? sqlite3_errmsg(db) : "no memory");
    sqlite3_close(db);
    return 0;
  }
  return db;
}

static int gFull = 0;
static int64_t gBudget = 0;

typedef struct Tally { int nRun, nFired, nErr, nBad; } Tally;

/* One target, one mode, tempcrypt on or off, every N. */
static void runCase(const Target *t, int mode, int enc, int stride, Tally *pT){
  sqlite3 *db;
  uint64_t hPre, hPost;
  ProofCounts cnt;
  int64_t n, nMax;
  int isMalloc = mode==PF_MALLOC_NTH || mode==PF_MALLOC_FROM_NTH;
  if( !gFull && (mode!=PF_IO_FROM_NTH || !enc) ) stride *= 7;

  sqlite3_tempcrypt_set_enabled(enc);
  sqlite3_tempcrypt_budget(enc ? gBudget : 0);
  db = openTarget(t);
  CHECK(db!=0, "%s: setup", t->zName);
  if( !db ) return;
  hPre = proof_schema_hash(db, t->zSchema);
  proof_fault_arm(PF_NONE, 0);
  sqlite3_tempcrypt_stats(0, 1);
  CHECK(sqlite3_exec(db, zWork, 0, 0, 0)==SQLITE_OK, "%s: fault-free run: %s", t->zName, sqlite3_errmsg(db));
  proof_fault_counts(&cnt);
  proof_fault_disarm();
  if( enc && gBudget>0 ){
    struct sqlite3_tempcrypt_stats st;
    sqlite3_tempcrypt_stats(&st, 0);
    CHECK(st.nMemPeak>0 && st.nFileSpilled>0, "%s: budget %lld: memory peak %llu, %llu files "
          "below: not part-way", t->zName, (long long)gBudget,
          (unsigned long long)st.nMemPeak, (unsigned long long)st.nFileSpilled);
  }
  hPost = proof_schema_hash(db, t->zSchema);
  sqlite3_close(db);
  CHECK(hPre && hPost && hPre!=hPost, "%s: reference states", t->zName);
  CHECK(cnt.nIo>0, "%s: the fault-free run did no temp-file I/O", t->zName);
  nMax = isMalloc ? cnt.nMalloc : mode==PF_OPEN_NTH ? cnt.nOpen : cnt.nIo;
  if( getenv("RECOVERY_VERBOSE") ){
    printf("  %s %s: %lld positions\n", t->zName, proof_fault_name[mode], (long long)nMax);
    fflush(stdout);
  }

  for(n=1; n<=nMax; n+=stride){
    int rc, bad = 0;
    uint64_t h;
    db = openTarget(t);
    if( !db ){ CHECK(0, "%s: setup", t->zName); continue; }
    proof_fault_arm(mode, n);
    rc = sqlite3_exec(db, zWork, 0, 0, 0);
    proof_fault_counts(&cnt);
    proof_fault_disarm();
    pT->nRun++;
    if( cnt.nFired ) pT->nFired++;
    if( rc!=SQLITE_OK ) pT->nErr++;
    if( !sqlite3_get_autocommit(db) ) sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
    /* The fault is gone: the same connection must find the data whole. */
    if( !proof_schema_integrity_ok(db, t->zSchema) ) bad = 1;
    h = proof_schema_hash(db, t->zSchema);
    if( h!=hPre && h!=hPost ) bad = 1;
    if( sqlite3_exec(db, zWork, 0, 0, 0)!=SQLITE_OK ) bad = 1;
    if( !proof_schema_integrity_ok(db, t->zSchema) ) bad = 1;
    /* One check per run; only the first few failures are printed. */
    if( !bad ){
      check_nPass++;
    }else{
      check_nFail++;
      if( pT->nBad++<3 ){
        fprintf(stderr, "FAIL recovery: %s %s N=%lld tempcrypt %s: not recovered (%s)\n",
                t->zName, proof_fault_name[mode], (long long)n, enc ? "on" : "off",
                sqlite3_errmsg(db));
      }
    }
    sqlite3_close(db);
  }
}

int main(int argc, char **argv){
  int stride = 1, i, t, m, enc;
  for(i=1; i<argc; i++){
    if( strcmp(argv[i], "-stride")==0 && i+1<argc ) stride = atoi(argv[++i]);
    else if( strcmp(argv[i], "-full")==0 ) gFull = 1;
    else if( strcmp(argv[i], "-budget")==0 && i+1<argc ) gBudget = atoll(argv[++i]);
  }
  if( stride<1 ) stride = 1;
  if( proof_init(argv[0])!=SQLITE_OK ){
    fprintf(stderr, "recovery: init failed\n");
    return 1;
  }
  for(t=0; t<(int)(sizeof(aTarget)/sizeof(aTarget[0])); t++){
    for(m=0; m<(int)(sizeof(aMode)/sizeof(aMode[0])); m++){
      for(enc=1; enc>=0; enc--){
        Tally tl; memset(&tl, 0, sizeof(tl));
        runCase(&aTarget[t], aMode[m], enc, stride, &tl);
        printf("%-12s %-16s tempcrypt %-3s %5d runs, %5d fired, %5d errors, %d not recovered\n",
               aTarget[t].zName, proof_fault_name[aMode[m]], enc ? "on" : "off",
               tl.nRun, tl.nFired, tl.nErr, tl.nBad);
        fflush(stdout);
        /* Only the tier opens a temp file during the UPDATE: without it
        ** the file opened in the setup already. */
        if( aMode[m]!=PF_OPEN_NTH || (enc && gBudget>0) ){
          CHECK(tl.nFired>0, "%s %s: no fault fired", aTarget[t].zName, proof_fault_name[aMode[m]]);
          CHECK(tl.nErr>0, "%s %s: no run saw an error", aTarget[t].zName, proof_fault_name[aMode[m]]);
        }
      }
    }
  }
  sqlite3_tempcrypt_set_enabled(1);
  sqlite3_tempcrypt_budget(0);
  return check_finish("recovery");
}
