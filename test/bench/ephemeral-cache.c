/*
** The heap an ephemeral b-tree's page cache takes (docs/performance.md,
** "What tempBudget bounds"), and its time against temp_store=MEMORY.
** Built natively with the wasm builds' WASM_SPEED_DEFS, with memory
** statistics on: for each statement, SQLite's heap peak during it minus
** its heap before it (SQLITE_STATUS_MEMORY_USED), on the bench table of
** test/bench/workloads.txt ("setup", built here with the same SQL).
**
**   ephemeral-cache ROWS     (temp files go to $TMPDIR)
*/
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "sqlite3.h"

static double now(void){
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec/1e9;
}

/* Run sql to completion; print the heap it took and its time. */
static int measure(sqlite3 *db, const char *zLabel, const char *zSql){
  sqlite3_int64 nBefore, nPeak, nCur;
  sqlite3_stmt *pStmt;
  double t0;
  int rc;
  sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &nBefore, &nPeak, 1);
  t0 = now();
  rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  if( rc!=SQLITE_OK ) goto fail;
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){}
  sqlite3_finalize(pStmt);
  if( rc!=SQLITE_DONE ) goto fail;
  sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &nCur, &nPeak, 0);
  printf("%-44s heap peak above before: %6.2f MiB, %.2f s\n",
         zLabel, (nPeak-nBefore)/1048576.0, now()-t0);
  return 0;
fail:
  fprintf(stderr, "%s: %s\n", zLabel, sqlite3_errmsg(db));
  return 1;
}

#define DISTINCT1 "SELECT count(*) FROM (SELECT DISTINCT substr(b,1,12), c FROM t)"
#define DISTINCT2 "SELECT count(*) FROM (SELECT DISTINCT substr(b,2,12), c FROM t)"

int main(int argc, char **argv){
  int nRow = argc>1 ? atoi(argv[1]) : 1000000;
  char zSetup[600], zLimit[200];
  sqlite3 *db;
  int rc = 0;
  if( nRow<=0 ){
    fprintf(stderr, "usage: %s ROWS\n", argv[0]);
    return 2;
  }
  printf("SQLITE_DEFAULT_CACHE_SIZE=%d, %d rows, main cache_size=-2000\n",
         SQLITE_DEFAULT_CACHE_SIZE, nRow);
  if( sqlite3_open("", &db)!=SQLITE_OK ) return 1;
  snprintf(zSetup, sizeof zSetup,
    "PRAGMA temp_store=FILE; PRAGMA cache_size=-2000; PRAGMA journal_mode=OFF;"
    "CREATE TABLE t(a INTEGER, b TEXT, c BLOB);"
    "WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM s WHERE x<%d)"
    " INSERT INTO t SELECT x, printf('%%08x-%%08x-%%d', (x*2654435761)%%4294967291,"
    " (x*40503)%%65521, x), zeroblob(100) FROM s", nRow);
  if( sqlite3_exec(db, zSetup, 0, 0, 0)!=SQLITE_OK ){
    fprintf(stderr, "setup: %s\n", sqlite3_errmsg(db));
    return 1;
  }
  rc |= measure(db, "count(*): no ephemeral b-tree", "SELECT count(*) FROM t");
  rc |= measure(db, "DISTINCT: one", DISTINCT1);
  snprintf(zLimit, sizeof zLimit,
    "SELECT sum(a%%1000) FROM (SELECT a FROM t ORDER BY b LIMIT %d)", nRow/2);
  rc |= measure(db, "ORDER BY ... LIMIT rows/2: one", zLimit);
  rc |= measure(db, "two DISTINCTs in one statement: two",
                "SELECT (" DISTINCT1 ") + (" DISTINCT2 ")");
  sqlite3_exec(db, "PRAGMA temp_store=MEMORY", 0, 0, 0);
  rc |= measure(db, "DISTINCT, temp_store=MEMORY", DISTINCT1);
  sqlite3_exec(db, "PRAGMA temp_store=FILE", 0, 0, 0);
  rc |= measure(db, "DISTINCT, temp_store=FILE again", DISTINCT1);
  sqlite3_close(db);
  return rc;
}
