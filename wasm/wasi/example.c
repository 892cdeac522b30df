/*
** Embedding SQLite with tempcrypt in a WASI program: the example of
** docs/wasi.md, built by `make wasi-tests` from the shipped libraries
** build/wasi/libtempcrypt.a and build/wasi/libsqlite3.a, and run by the
** tests.
**
**   clang-19 --target=wasm32-wasi --sysroot=/usr -O2 -Ibuild/sqlite -Isrc \
**     -o example.wasm wasm/wasi/example.c \
**     build/wasi/libtempcrypt.a build/wasi/libsqlite3.a
**   wasmtime run --dir=. --env TMPDIR=. example.wasm example.db
*/
#include <stdio.h>
#include "sqlite3.h"
#include "tempcrypt.h"

int main(int argc, char **argv){
  const char *zDb = argc>1 ? argv[1] : "example.db";
  sqlite3 *db = 0;
  char *zErr = 0;
  struct sqlite3_tempcrypt_stats st;
  int rc;

  /* Once, before any database is opened: "tempcrypt" over SQLite's WASI
  ** VFS, as the default VFS; temp data in memory up to 1 MiB for all temp
  ** files together (the default is 64 MiB), encrypted into TMPDIR beyond. */
  rc = sqlite3_tempcrypt_register(0, 1);
  sqlite3_tempcrypt_budget(1<<20);
  if( rc==SQLITE_OK ) rc = sqlite3_open(zDb, &db);
  if( rc==SQLITE_OK ){
    /* A temp table and a big sort: more temp data than the budget. */
    rc = sqlite3_exec(db,
      "PRAGMA temp_store=FILE;"
      "PRAGMA temp.cache_size=16;"
      "CREATE TEMP TABLE t AS WITH RECURSIVE c(i) AS"
      "  (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<20000)"
      "  SELECT i, randomblob(64) AS b FROM c;"
      "SELECT count(*) FROM (SELECT b FROM t ORDER BY b);", 0, 0, &zErr);
  }
  if( rc!=SQLITE_OK ){
    fprintf(stderr, "example: %s\n", zErr ? zErr : sqlite3_errstr(rc));
    sqlite3_free(zErr);
    sqlite3_close(db);
    return 1;
  }
  sqlite3_close(db);
  sqlite3_tempcrypt_stats(&st, 0);
  printf("temp files encrypted: %llu, bytes kept in memory at most: %llu,"
         " bytes written to them: %llu\n",
         (unsigned long long)st.nFileEncrypted, (unsigned long long)st.nMemPeak,
         (unsigned long long)st.nPhysicalWrite);
  return 0;
}
