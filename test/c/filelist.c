/*
** The needle search of the file list (sqlite3_tempcrypt_files(), the SQL
** table tempcrypt_files), over a lower VFS that counts the bytes read:
**
**   - the count: plaintext temp files (tempcrypt off) hold a needle of
**     1 to 65536 bytes at random places, many of them across the 64 KiB
**     boundaries of the search's reads, some overlapping; the search
**     counts exactly what a plain scan of the written bytes counts;
**   - the work: the search reads each stored byte once, whatever the
**     needle's length (it runs under the VFS mutex);
**   - whose files: from SQL, found is counted only in the calling
**     connection's own files (its TEMP database here), NULL in another
**     connection's, even for a marker that the other one's plaintext
**     TEMP database holds a thousand times.
**
**   filelist [-s SEED]      (seeds are printed and replayable)
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"
#include "tempcrypt.h"
#include "testutil.h"

#define CHUNK 65536              /* the search's reads */
#define FILE_SIZE (5*CHUNK+123)

/* ---- the counting lower VFS: the default one, its reads counted. */
static sqlite3_vfs gCount;
static const sqlite3_io_methods *gpReal;
static sqlite3_io_methods gMethods;
static sqlite3_int64 gnRead;

static int countRead(sqlite3_file *pFile, void *z, int n, sqlite3_int64 iOfst){
  gnRead += n;
  return gpReal->xRead(pFile, z, n, iOfst);
}

static int countOpen(sqlite3_vfs *pVfs, const char *zName, sqlite3_file *pFile,
                     int flags, int *pOutFlags){
  sqlite3_vfs *pBase = (sqlite3_vfs*)pVfs->pAppData;
  int rc = pBase->xOpen(pBase, zName, pFile, flags, pOutFlags);
  if( rc==SQLITE_OK && pFile->pMethods ){
    if( gpReal==0 ){
      gpReal = pFile->pMethods;
      gMethods = *gpReal;
      gMethods.xRead = countRead;
    }
    if( pFile->pMethods==gpReal ) pFile->pMethods = &gMethods;
  }
  return rc;
}

static void registerCount(void){
  sqlite3_vfs *pBase = sqlite3_vfs_find(0);
  gCount = *pBase;
  gCount.pNext = 0;
  gCount.zName = "count";
  gCount.pAppData = pBase;
  gCount.xOpen = countOpen;
  sqlite3_vfs_register(&gCount, 0);
}

/* ---- the count and the work */
static sqlite3_file *openTemp(void){
  sqlite3_vfs *pVfs = sqlite3_vfs_find(SQLITE_TEMPCRYPT_VFS_NAME);
  sqlite3_file *pF = calloc(1, (size_t)pVfs->szOsFile);
  int outFlags = 0;
  if( pF && pVfs->xOpen(pVfs, 0, pF, SQLITE_OPEN_READWRITE|SQLITE_OPEN_CREATE
                        |SQLITE_OPEN_EXCLUSIVE|SQLITE_OPEN_DELETEONCLOSE
                        |SQLITE_OPEN_TEMP_JOURNAL, &outFlags)!=SQLITE_OK ){
    free(pF);
    pF = 0;
  }
  return pF;
}

static sqlite3_int64 plainCount(const uint8_t *a, int n, const uint8_t *aNeedle, int nNeedle){
  sqlite3_int64 c = 0;
  int i;
  for(i=0; i+nNeedle<=n; i++) if( memcmp(a+i, aNeedle, (size_t)nNeedle)==0 ) c++;
  return c;
}

/* One file of FILE_SIZE bytes with the needle planted; its search. */
static void countOne(TuRng *r, int nNeedle){
  static uint8_t a[FILE_SIZE], aNeedle[CHUNK];
  struct sqlite3_tempcrypt_file aOut[4];
  sqlite3_int64 want, nRead;
  sqlite3_file *pF;
  int i, n, nPlant = 1 + (int)tu_below(r, 6);
  /* Few distinct bytes, so that partial matches are common; a periodic
  ** needle now and then, so that occurrences overlap. */
  for(i=0; i<FILE_SIZE; i++) a[i] = (uint8_t)('a' + tu_below(r, 3));
  for(i=0; i<nNeedle; i++) aNeedle[i] = tu_below(r, 4)==0 ? aNeedle[i%3] : (uint8_t)('a' + tu_below(r, 3));
  for(i=0; i<nPlant && nNeedle<=FILE_SIZE; i++){
    /* Across a chunk boundary (half the time), else anywhere. */
    int k = 1 + (int)tu_below(r, FILE_SIZE/CHUNK);
    int at = tu_below(r, 2) ? k*CHUNK - 1 - (int)tu_below(r, (uint64_t)nNeedle)
                            : (int)tu_below(r, (uint64_t)(FILE_SIZE-nNeedle+1));
    if( at<0 ) at = 0;
    if( at+nNeedle>FILE_SIZE ) at = FILE_SIZE-nNeedle;
    memcpy(a+at, aNeedle, (size_t)nNeedle);
  }
  want = plainCount(a, FILE_SIZE, aNeedle, nNeedle);
  sqlite3_tempcrypt_set_enabled(0);
  pF = openTemp();
  sqlite3_tempcrypt_set_enabled(1);
  CHECK(pF!=0, "a plaintext temp file opens");
  if( pF==0 ) return;
  for(i=0; i<FILE_SIZE; i+=4096){   /* in pages, as SQLite writes */
    int n4 = FILE_SIZE-i<4096 ? FILE_SIZE-i : 4096;
    CHECK(pF->pMethods->xWrite(pF, a+i, n4, i)==SQLITE_OK, "the file takes its bytes at %d", i);
  }
  gnRead = 0;
  n = sqlite3_tempcrypt_files(aOut, 4, aNeedle, nNeedle);
  nRead = gnRead;
  CHECK(n>=1 && aOut[0].open && !aOut[0].encrypted && aOut[0].nFound==want,
        "a needle of %d bytes: found %lld, a plain scan finds %lld", nNeedle,
        n>=1 ? (long long)aOut[0].nFound : -2LL, (long long)want);
  CHECK(nRead==FILE_SIZE, "a needle of %d bytes: the search read %lld bytes of a %d-byte file",
        nNeedle, (long long)nRead, FILE_SIZE);
  pF->pMethods->xClose(pF);
  free(pF);
}

/* ---- whose files: two connections, from SQL */
static sqlite3 *openWith(const char *zMarker){
  sqlite3 *db = 0;
  char *zSql = sqlite3_mprintf(
      "PRAGMA temp_store=FILE; PRAGMA temp.cache_size=2;"
      "CREATE TEMP TABLE secret AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<1000)"
      " SELECT %Q || n AS s FROM c;", zMarker);
  CHECK(sqlite3_open(":memory:", &db)==SQLITE_OK && sqlite3_exec(db, zSql, 0, 0, 0)==SQLITE_OK,
        "a connection with a TEMP table: %s", db ? sqlite3_errmsg(db) : "no memory");
  sqlite3_free(zSql);
  return db;
}

/* "found" of the open TEMP databases, from db, oldest first, into
** aFound[] (-1 for NULL); returns how many there are. */
static int foundFrom(sqlite3 *db, const char *zMarker, sqlite3_int64 *aFound, int nMax){
  sqlite3_stmt *pStmt = 0;
  int n = 0;
  if( sqlite3_prepare_v2(db, "SELECT found FROM tempcrypt_files(?) WHERE open AND kind='temp_db' ORDER BY id",
                         -1, &pStmt, 0)!=SQLITE_OK ) return -1;
  sqlite3_bind_text(pStmt, 1, zMarker, -1, SQLITE_STATIC);
  while( sqlite3_step(pStmt)==SQLITE_ROW && n<nMax ){
    aFound[n++] = sqlite3_column_type(pStmt, 0)==SQLITE_NULL ? -1 : sqlite3_column_int64(pStmt, 0);
  }
  sqlite3_finalize(pStmt);
  return n;
}

static void whoseFiles(void){
  sqlite3_int64 a[3];
  sqlite3 *dbA, *dbB;
  int n;
  sqlite3_tempcrypt_budget(0);
  sqlite3_tempcrypt_set_enabled(0);       /* the control: plaintext */
  dbA = openWith("A-MARKER-");
  dbB = openWith("B-MARKER-");
  sqlite3_tempcrypt_set_enabled(1);
  /* A's TEMP database opened first: A's row, then B's.  Each marker is
  ** in its own file at least 1000 times (rows, and copies of them). */
  n = foundFrom(dbA, "A-MARKER-", a, 3);
  CHECK(n==2 && a[0]>=1000 && a[1]==-1, "from A, A's marker: %d rows, found %lld and %lld (>= 1000 in A's own, NULL in B's)",
        n, (long long)a[0], (long long)a[1]);
  n = foundFrom(dbA, "B-MARKER-", a, 3);
  CHECK(n==2 && a[0]==0 && a[1]==-1, "from A, B's marker: %d rows, found %lld and %lld (0 in A's own, NULL in B's: no oracle)",
        n, (long long)a[0], (long long)a[1]);
  n = foundFrom(dbB, "B-MARKER-", a, 3);
  CHECK(n==2 && a[0]==-1 && a[1]>=1000, "from B, B's marker: %d rows, found %lld and %lld (NULL in A's, >= 1000 in B's own)",
        n, (long long)a[0], (long long)a[1]);
  sqlite3_close(dbA);
  sqlite3_close(dbB);
}

int main(int argc, char **argv){
  static const int aLen[] = { 1, 2, 17, 4096, CHUNK-1, CHUNK };
  unsigned long long seed = argc>2 && strcmp(argv[1], "-s")==0 ? strtoull(argv[2], 0, 10) : 20261204ULL;
  TuRng r;
  int i;
  printf("filelist: seed %llu (replay: -s %llu)\n", seed, seed);
  r.s = seed;
  registerCount();
  CHECK(sqlite3_tempcrypt_register("count", 1)==SQLITE_OK, "register over the counting VFS");
  sqlite3_tempcrypt_budget(0);
  for(i=0; i<(int)(sizeof(aLen)/sizeof(aLen[0])); i++){
    countOne(&r, aLen[i]);
    countOne(&r, 1 + (int)tu_below(&r, CHUNK));
  }
  whoseFiles();
  return check_finish("filelist");
}
