/*
** Key scan of the whole wasm linear memory (WASI only).
**
** tempcrypt's test hook reports the key of every encrypted temp file.  The
** hook keeps only masked copies (key XOR a random mask), so that the scan
** never finds a copy of its own making.  A workload opens temp files
** (temp table, sorter, DISTINCT), then:
**   - while they are open, a scan of all of linear memory must find the
**     keys of the files still open (so the scan does see keys);
**   - after sqlite3_close() has closed every file, no key and no 8-byte
**     quarter of a key may remain anywhere: heap (live or freed), stack,
**     static data.
**
**   memscan            the test
**   memscan -control   also leaves an unwiped copy of every key in freed
**                      memory once the files are closed: the scan must
**                      then find them (exit 1), which shows the test can
**                      fail
**
** Needs a writable temp directory (TMPDIR).  Prints "N passed, N failed".
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sqlite3.h"
#include "tempcrypt.h"
#include "check.h"

#ifndef __wasm__
# error "memscan scans wasm linear memory: build it for wasm32-wasi"
#endif

#define MAXKEY 64
#define LEAK_BIG (4<<20)   /* the control's large chunk */


/* Masked keys: aMasked[k][i] == key[i] ^ aMask[k][i]. */
static unsigned char aMask[MAXKEY][32];
static unsigned char aMasked[MAXKEY][32];
static int nKey = 0, nKeyLost = 0;
static int bControl = 0;

static void keyHook(void *pArg, struct sqlite3_file *pFile,
                    struct sqlite3_file *pLower, int flags,
                    const unsigned char aKey[32]){
  int i, k;
  (void)pArg; (void)pFile; (void)pLower; (void)flags;
  /* A file whose lower file opens late (the memory tier) reports its key
  ** again then: count each key once. */
  for(k=0; k<nKey; k++){
    for(i=0; i<32 && (aMasked[k][i]^aMask[k][i])==aKey[i]; i++){}
    if( i==32 ) return;
  }
  if( nKey>=MAXKEY ){ nKeyLost++; return; }
  if( getentropy(aMask[nKey], 32) ) abort();
  for(i=0; i<32; i++) aMasked[nKey][i] = aKey[i] ^ aMask[nKey][i];
  nKey++;
}

/*
** The leak the control plants once every file is closed: a copy of every
** key freed without a wipe, made straight from the masked copies into the
** heap.  (Planted at the hook, while the workload runs, the copies were
** overwritten by the memory tier's blocks, which reuse freed chunks, and
** wiped with them.)  The allocator writes its free-list links over the
** start of a freed chunk, so every key also sits near the end of one
** large chunk.
*/
static void plantLeaks(void){
  static unsigned char *volatile apLeak[MAXKEY];   /* volatile: not optimized out */
  static unsigned char *volatile pBig;
  int k, i;
  pBig = malloc(LEAK_BIG);
  for(k=0; k<nKey; k++){
    apLeak[k] = malloc(32);
    for(i=0; i<32; i++){
      unsigned char b = aMasked[k][i] ^ aMask[k][i];
      if( apLeak[k] ) apLeak[k][i] = b;
      if( pBig ) pBig[LEAK_BIG-32*(k+1)+i] = b;
    }
  }
  for(k=0; k<nKey; k++) free(apLeak[k]);
  free(pBig);
}

/* Does memory at p hold bytes i0..i0+n-1 of key k? */
static int matchAt(const unsigned char *p, int k, int i0, int n){
  int i;
  for(i=0; i<n; i++){
    if( (unsigned char)(p[i] ^ aMask[k][i0+i]) != aMasked[k][i0+i] ) return 0;
  }
  return 1;
}

/*
** Scan all of linear memory.  aFull[k] counts whole-key copies of key k,
** aPart[k] copies of any of its four 8-byte quarters (at any alignment).
*/
static void scanMemory(int *aFull, int *aPart, size_t *pnByte){
  size_t nMem = __builtin_wasm_memory_size(0) * (size_t)65536;
  size_t a;
  int k;
  /* First-byte filter: one bit per byte value that starts some quarter. */
  unsigned char aFirst[256];
  memset(aFirst, 0, sizeof(aFirst));
  for(k=0; k<nKey; k++){
    int q;
    aFull[k] = aPart[k] = 0;
    for(q=0; q<4; q++) aFirst[(aMasked[k][8*q] ^ aMask[k][8*q]) & 0xff] = 1;
  }
  /* Address 0 is the C null pointer: start at 8 (wasm-ld puts nothing
  ** below 1024 anyway). */
  for(a=8; a+8<=nMem; a++){
    const unsigned char *p = (const unsigned char*)(uintptr_t)a;
    if( !aFirst[p[0]] ) continue;
    for(k=0; k<nKey; k++){
      int q;
      for(q=0; q<4; q++){
        if( matchAt(p, k, 8*q, 8) ){
          aPart[k]++;
          if( q==0 && a+32<=nMem && matchAt(p, k, 0, 32) ) aFull[k]++;
        }
      }
    }
  }
  *pnByte = nMem;
}

static int exec(sqlite3 *db, const char *zSql){
  char *zErr = 0;
  int rc = sqlite3_exec(db, zSql, 0, 0, &zErr);
  if( rc ){
    fprintf(stderr, "SQL error %d (%s) in: %s\n", rc, zErr ? zErr : "?", zSql);
    sqlite3_free(zErr);
  }
  return rc;
}

int main(int argc, char **argv){
  sqlite3 *db = 0;
  int aFull[MAXKEY], aPart[MAXKEY];
  size_t nMem = 0;
  int k, nFullOpen = 0, nFullClosed = 0, nPartClosed = 0;
  struct sqlite3_tempcrypt_stats st;

  if( argc>1 && strcmp(argv[1], "-control")==0 ) bControl = 1;
  printf("memscan%s\n", bControl ? " -control" : "");

  CHECK(sqlite3_tempcrypt_register(0, 1)==SQLITE_OK, "register");
  sqlite3_tempcrypt_test_key_hook(keyHook, 0);
  sqlite3_tempcrypt_stats(0, 1);

  CHECK(sqlite3_open(":memory:", &db)==SQLITE_OK, "open");
  CHECK(exec(db,
    "PRAGMA temp_store=FILE;"
    "PRAGMA cache_size=16;"
    "PRAGMA temp.cache_size=16;"
    "CREATE TEMP TABLE t(a INTEGER, b BLOB);"
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<16000)"
    "  INSERT INTO t SELECT i, randomblob(300) FROM c;"
    "SELECT count(*) FROM (SELECT b FROM t ORDER BY b);"
    "SELECT count(DISTINCT b) FROM t;"
    "CREATE INDEX temp.ti ON t(b);")==SQLITE_OK, "workload");

  /* Files still open: the temp database at least. */
  scanMemory(aFull, aPart, &nMem);
  for(k=0; k<nKey; k++) if( aFull[k] ) nFullOpen++;
  printf("scanned %zu bytes with %d temp file keys, files open: %d keys found\n",
         nMem, nKey, nFullOpen);
  CHECK(nKey>=2, "expected several encrypted temp files, got %d", nKey);
  CHECK(nKeyLost==0, "more than %d keys", MAXKEY);
  CHECK(nFullOpen>=1, "no key of an open temp file found: the scan sees nothing");

  /* Close everything, then no key may be left anywhere. */
  CHECK(sqlite3_close(db)==SQLITE_OK, "close");
  sqlite3_tempcrypt_stats(&st, 0);
  CHECK(st.nFileEncrypted==(uint64_t)nKey, "stats: %llu encrypted files, %d keys",
        (unsigned long long)st.nFileEncrypted, nKey);
  if( bControl ) plantLeaks();
  scanMemory(aFull, aPart, &nMem);
  for(k=0; k<nKey; k++){
    if( aFull[k] ) nFullClosed++;
    if( aPart[k] ) nPartClosed++;
  }
  printf("all files closed: %d of %d keys found whole, %d in part\n",
         nFullClosed, nKey, nPartClosed);
  CHECK(nFullClosed==0, "%d keys left in linear memory after close", nFullClosed);
  CHECK(nPartClosed==0, "%d keys left in part in linear memory after close", nPartClosed);

  sqlite3_tempcrypt_test_key_hook(0, 0);
  return check_finish("memscan");
}
