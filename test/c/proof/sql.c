/*
** SQL helpers of the proof tests: open a database with the test's
** configuration and the marker functions, run a script statement by
** statement, hash results and database states, check integrity.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

void (*proof_after_stmt)(sqlite3 *, int, void *) = 0;
void *proof_after_arg = 0;

static void mkFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc; (void)argv;
  sqlite3_result_text(ctx, proof_marker(), proofMarkerLen(), SQLITE_TRANSIENT);
}
/* mkrep(n): the marker and a counter, n times: a long value whose every
** page has a marker in it. */
static void mkrepFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  int n = sqlite3_value_int(argv[0]), i;
  sqlite3_str *s = sqlite3_str_new(0);
  (void)argc;
  for(i=0; i<n; i++) sqlite3_str_appendf(s, "%s%06d.", proof_marker(), i);
  {
    int len = sqlite3_str_length(s);
    char *z = sqlite3_str_finish(s);
    if( !z ){ sqlite3_result_error_nomem(ctx); return; }
    sqlite3_result_text(ctx, z, len, sqlite3_free);
  }
}

sqlite3 *proof_open(const char *zPath, const ProofCfg *pCfg){
  sqlite3 *db = 0;
  char zSql[256];
  int rc = sqlite3_open_v2(zPath, &db,
      SQLITE_OPEN_READWRITE|SQLITE_OPEN_CREATE, 0);
  if( rc ){ sqlite3_close(db); return 0; }
  rc = sqlite3_create_function(db, "mk", 0, SQLITE_UTF8|SQLITE_DETERMINISTIC, 0, mkFunc, 0, 0);
  if( rc==SQLITE_OK ) rc = sqlite3_create_function(db, "mkrep", 1,
      SQLITE_UTF8|SQLITE_DETERMINISTIC, 0, mkrepFunc, 0, 0);
  snprintf(zSql, sizeof(zSql),
      "PRAGMA temp_store=%d; PRAGMA cache_size=8; PRAGMA threads=%d;"
      "PRAGMA mmap_size=67108864; PRAGMA synchronous=OFF; PRAGMA temp.page_size=%d; PRAGMA temp.cache_size=8;",
      pCfg ? pCfg->tempStore : 1, pCfg ? pCfg->threads : 0,
      (pCfg && pCfg->tempPageSize) ? pCfg->tempPageSize : 4096);
  if( rc==SQLITE_OK ) rc = sqlite3_exec(db, zSql, 0, 0, 0);
  if( rc ){
    if( getenv("PROOF_VERBOSE") ) fprintf(stderr, "proof_open(%s): %s\n", zPath, sqlite3_errmsg(db));
    sqlite3_close(db); return 0;
  }
  return db;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n){
  const unsigned char *a = p; size_t i;
  for(i=0; i<n; i++){ h ^= a[i]; h *= 0x100000001b3ull; }
  return h;
}
static uint64_t hashRow(uint64_t h, sqlite3_stmt *pStmt){
  int i, n = sqlite3_column_count(pStmt);
  for(i=0; i<n; i++){
    int t = sqlite3_column_type(pStmt, i);
    unsigned char tb = (unsigned char)t;
    h = fnv(h, &tb, 1);
    if( t==SQLITE_INTEGER ){ sqlite3_int64 v = sqlite3_column_int64(pStmt, i); h = fnv(h, &v, 8); }
    else if( t==SQLITE_FLOAT ){ double v = sqlite3_column_double(pStmt, i); h = fnv(h, &v, 8); }
    else if( t!=SQLITE_NULL ){
      const void *z = sqlite3_column_blob(pStmt, i);
      int nb = sqlite3_column_bytes(pStmt, i);
      h = fnv(h, &nb, sizeof(nb));
      if( z ) h = fnv(h, z, (size_t)nb);
    }
  }
  return h;
}

void proof_run_script(sqlite3 *db, const char *zScript, ProofRun *pRun,
                      const ProofRun *pRef){
  const char *z = zScript;
  memset(pRun, 0, sizeof(*pRun));
  while( *z && pRun->nStmt<PROOF_MAXSTMT ){
    const char *zEnd = strchr(z, ';');
    size_t n = zEnd ? (size_t)(zEnd - z) : strlen(z);
    char zSql[1024];
    sqlite3_stmt *pStmt = 0;
    int rc, i = pRun->nStmt;
    uint64_t h = 0xcbf29ce484222325ull;
    int64_t nRow = 0;
    if( n>=sizeof(zSql) ) n = sizeof(zSql)-1;
    memcpy(zSql, z, n); zSql[n] = 0;
    z = zEnd ? zEnd+1 : z+n;
    while( *z==' ' || *z=='\n' ) z++;
    if( strspn(zSql, " \n\t")==strlen(zSql) ) continue;
    pRun->nStmt++;
    rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
    if( rc==SQLITE_OK && pStmt ){
      /* A PRAGMA's answer may name the configuration (journal_mode is
      ** "memory" for an in-memory temp database): only its rc counts. */
      int bPragma = sqlite3_strnicmp(zSql + strspn(zSql, " \n\t"), "PRAGMA", 6)==0;
      while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
        if( !bPragma ) h = hashRow(h, pStmt);
        nRow++;
      }
      if( rc==SQLITE_DONE ) rc = SQLITE_OK;
      sqlite3_finalize(pStmt);
    }
    pRun->aRc[i] = rc;
    pRun->aHash[i] = h;
    pRun->aRows[i] = nRow;
    if( proof_after_stmt ) proof_after_stmt(db, i, proof_after_arg);
    if( pRef && (i>=pRef->nStmt || pRef->aRc[i]!=rc) ) break;
  }
}

int proof_finish_tx(sqlite3 *db){
  int rc = SQLITE_OK;
  if( !sqlite3_get_autocommit(db) ){
    rc = sqlite3_exec(db, "COMMIT", 0, 0, 0);
    if( rc!=SQLITE_OK && !sqlite3_get_autocommit(db) ){
      sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
    }
  }
  return rc;
}

static uint64_t hashQuery(sqlite3 *db, const char *zSql, uint64_t h, int *pOk){
  sqlite3_stmt *pStmt = 0;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  if( rc ){ *pOk = 0; return h; }
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ) h = hashRow(h, pStmt);
  if( rc!=SQLITE_DONE ) *pOk = 0;
  sqlite3_finalize(pStmt);
  return h;
}
uint64_t proof_db_hash(sqlite3 *db){ return proof_schema_hash(db, "main"); }
uint64_t proof_schema_hash(sqlite3 *db, const char *zSchema){
  uint64_t h = 0xcbf29ce484222325ull;
  int ok = 1;
  sqlite3_stmt *pStmt = 0;
  char *zQ = sqlite3_mprintf("SELECT type, name, tbl_name, sql FROM \"%w\".sqlite_schema ORDER BY name", zSchema);
  if( !zQ ) return 0;
  h = hashQuery(db, zQ, h, &ok);
  sqlite3_free(zQ);
  zQ = sqlite3_mprintf("SELECT name FROM \"%w\".sqlite_schema WHERE type='table' ORDER BY name", zSchema);
  if( !zQ ) return 0;
  if( sqlite3_prepare_v2(db, zQ, -1, &pStmt, 0) ){ sqlite3_free(zQ); return 0; }
  sqlite3_free(zQ);
  while( sqlite3_step(pStmt)==SQLITE_ROW ){
    char *zSql = sqlite3_mprintf("SELECT * FROM \"%w\".\"%w\" ORDER BY rowid", zSchema,
                                 (const char*)sqlite3_column_text(pStmt, 0));
    if( !zSql ){ ok = 0; break; }
    h = hashQuery(db, zSql, h, &ok);
    sqlite3_free(zSql);
  }
  if( sqlite3_finalize(pStmt) ) ok = 0;
  return ok ? (h|1) : 0;
}
int proof_integrity_ok(sqlite3 *db){ return proof_schema_integrity_ok(db, "main"); }
int proof_schema_integrity_ok(sqlite3 *db, const char *zSchema){
  sqlite3_stmt *pStmt = 0;
  int ok = 0;
  char *zQ = sqlite3_mprintf("PRAGMA \"%w\".integrity_check", zSchema);
  int rc = zQ ? sqlite3_prepare_v2(db, zQ, -1, &pStmt, 0) : SQLITE_NOMEM;
  sqlite3_free(zQ);
  if( rc ) return 0;
  if( sqlite3_step(pStmt)==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(pStmt, 0);
    ok = z && strcmp(z, "ok")==0;
    if( sqlite3_step(pStmt)!=SQLITE_DONE ) ok = 0;
  }
  sqlite3_finalize(pStmt);
  return ok;
}
