/*
** sqlite3_tempcrypt_stats(..., reset) takes each counter and zeroes it in
** one atomic step, so no increment is lost however often a reader resets
** while other threads do I/O (it once was a load, then a store).
**
** Writer threads each open an encrypted temp file through the tempcrypt
** VFS and write a known number of bytes; the main thread meanwhile reads
** and resets the counters in a tight loop and adds up what it took.  At
** the end, what it took plus what is left must be exactly what the
** writers wrote (nLogicalWrite) and the files they opened.
**
** Then the memory tier under the same threads: each writer fills 8 blocks
** of its own file, reads each back, and truncates it to 0, over and over,
** with a budget of 24 KiB for all of them, less than one file wants: they
** compete for it and every file spills part-way.  Every block must read back what was
** written; the tier must never hold more than the budget (claims are a
** compare-and-swap, so no two threads can both take the last bytes);
** nMemBytes is a gauge that the reader's resets leave alone; and with
** every file closed it is 0 again (no claim or release was lost).
**
**   statsrace [threads] [writes per thread]
*/
#include <pthread.h>
#include <stdint.h>
#include "sqlite3.h"
#include "tempcrypt.h"
#include "testutil.h"

#define WRITE_SIZE 512
#define TIER_BLOCK 4096
#define TIER_BUDGET (24*1024)   /* less than one file wants: each spills */

static int gnWrite = 20000;
static volatile int gnDone = 0;
static int gnBadRead = 0;    /* tier writers: blocks that read back wrong */

static void *writer(void *pArg){
  sqlite3_vfs *pVfs = sqlite3_vfs_find(SQLITE_TEMPCRYPT_VFS_NAME);
  sqlite3_file *pF = calloc(1, (size_t)pVfs->szOsFile);
  unsigned char a[WRITE_SIZE];
  int i, outFlags = 0, rc;
  (void)pArg;
  memset(a, 0x5a, sizeof(a));
  rc = pVfs->xOpen(pVfs, 0, pF, SQLITE_OPEN_READWRITE|SQLITE_OPEN_CREATE
                   |SQLITE_OPEN_EXCLUSIVE|SQLITE_OPEN_DELETEONCLOSE
                   |SQLITE_OPEN_TEMP_JOURNAL, &outFlags);
  if( rc==SQLITE_OK ){
    for(i=0; i<gnWrite; i++){
      /* Rewrite the same 64 KiB over and over: the file stays small. */
      if( pF->pMethods->xWrite(pF, a, WRITE_SIZE, (i % 128)*(sqlite3_int64)WRITE_SIZE) ) break;
    }
    pF->pMethods->xClose(pF);
  }
  free(pF);
  __atomic_fetch_add(&gnDone, 1, __ATOMIC_SEQ_CST);
  return 0;
}

/* A tier writer: 8 blocks of its own file, each read back, then truncate. */
static void *tierWriter(void *pArg){
  sqlite3_vfs *pVfs = sqlite3_vfs_find(SQLITE_TEMPCRYPT_VFS_NAME);
  sqlite3_file *pF = calloc(1, (size_t)pVfs->szOsFile);
  unsigned char a[TIER_BLOCK], b[TIER_BLOCK];
  int i, outFlags = 0, rc, nBad = 0, id = (int)(intptr_t)pArg;
  rc = pVfs->xOpen(pVfs, 0, pF, SQLITE_OPEN_READWRITE|SQLITE_OPEN_CREATE
                   |SQLITE_OPEN_EXCLUSIVE|SQLITE_OPEN_DELETEONCLOSE
                   |SQLITE_OPEN_TEMP_JOURNAL, &outFlags);
  if( rc==SQLITE_OK ){
    for(i=0; i<gnWrite/4 && rc==SQLITE_OK; i++){
      sqlite3_int64 off = (i % 8)*(sqlite3_int64)TIER_BLOCK;
      memset(a, id*31 + i, sizeof(a));
      rc = pF->pMethods->xWrite(pF, a, TIER_BLOCK, off);
      if( rc==SQLITE_OK ) rc = pF->pMethods->xRead(pF, b, TIER_BLOCK, off);
      if( rc==SQLITE_OK && memcmp(a, b, TIER_BLOCK)!=0 ) nBad++;
      if( rc==SQLITE_OK && i%8==7 ) rc = pF->pMethods->xTruncate(pF, 0);
    }
    if( rc!=SQLITE_OK ) nBad++;
    pF->pMethods->xClose(pF);
  }else{
    nBad++;
  }
  free(pF);
  __atomic_fetch_add(&gnBadRead, nBad, __ATOMIC_SEQ_CST);
  __atomic_fetch_add(&gnDone, 1, __ATOMIC_SEQ_CST);
  return 0;
}

static void test_tier(int nThread){
  pthread_t aT[16];
  struct sqlite3_tempcrypt_stats s;
  uint64_t nOver = 0, nReads = 0, nMaxNow = 0, nSpilled = 0, nPeak = 0;
  int i;
  sqlite3_tempcrypt_budget(TIER_BUDGET);
  sqlite3_tempcrypt_stats(0, 1);
  gnDone = 0;
  for(i=0; i<nThread; i++) pthread_create(&aT[i], 0, tierWriter, (void*)(intptr_t)i);
  while( __atomic_load_n(&gnDone, __ATOMIC_SEQ_CST)<nThread ){
    sqlite3_tempcrypt_stats(&s, 1);
    if( s.nMemBytes>TIER_BUDGET || s.nMemPeak>TIER_BUDGET ) nOver++;
    if( s.nMemBytes>nMaxNow ) nMaxNow = s.nMemBytes;
    if( s.nMemPeak>nPeak ) nPeak = s.nMemPeak;
    nSpilled += s.nSpilled;
    nReads++;
  }
  for(i=0; i<nThread; i++) pthread_join(aT[i], 0);
  sqlite3_tempcrypt_stats(&s, 1);
  nSpilled += s.nSpilled;
  if( s.nMemPeak>nPeak ) nPeak = s.nMemPeak;
  printf("statsrace: tier, %d threads, budget %d: %llu reads of the stats, most held %llu,"
         " peak %llu, %llu bytes spilled, %d blocks read back wrong, %llu held at the end\n",
         nThread, TIER_BUDGET, (unsigned long long)nReads, (unsigned long long)nMaxNow,
         (unsigned long long)nPeak, (unsigned long long)nSpilled, gnBadRead,
         (unsigned long long)s.nMemBytes);
  CHECK(gnBadRead==0, "tier: %d blocks read back wrong (or calls failed)", gnBadRead);
  CHECK(nOver==0 && nPeak<=TIER_BUDGET, "tier: held more than the budget (%llu times; peak %llu)",
        (unsigned long long)nOver, (unsigned long long)nPeak);
  CHECK(nMaxNow>0 && nSpilled>0, "tier: memory (%llu) and the lower file (%llu bytes) both used",
        (unsigned long long)nMaxNow, (unsigned long long)nSpilled);
  CHECK(s.nMemBytes==0, "tier: %llu bytes still held with every file closed (a lost update)",
        (unsigned long long)s.nMemBytes);
}

int main(int argc, char **argv){
  int nThread = argc>1 ? atoi(argv[1]) : 4, i;
  pthread_t aT[16];
  uint64_t nTaken = 0, nFiles = 0, nResets = 0;
  struct sqlite3_tempcrypt_stats s;
  if( argc>2 ) gnWrite = atoi(argv[2]);
  if( nThread<1 || nThread>16 ) nThread = 4;
  CHECK(sqlite3_tempcrypt_register(0, 0)==SQLITE_OK, "register");
  sqlite3_tempcrypt_budget(0);
  sqlite3_tempcrypt_stats(0, 1);
  for(i=0; i<nThread; i++) pthread_create(&aT[i], 0, writer, 0);
  while( __atomic_load_n(&gnDone, __ATOMIC_SEQ_CST)<nThread ){
    sqlite3_tempcrypt_stats(&s, 1);
    nTaken += s.nLogicalWrite;
    nFiles += s.nFileEncrypted;
    nResets++;
  }
  for(i=0; i<nThread; i++) pthread_join(aT[i], 0);
  sqlite3_tempcrypt_stats(&s, 1);
  nTaken += s.nLogicalWrite;
  nFiles += s.nFileEncrypted;
  printf("statsrace: %d threads x %d writes, %llu resets while they ran\n",
         nThread, gnWrite, (unsigned long long)nResets);
  CHECK(nResets>100, "the reader reset only %llu times", (unsigned long long)nResets);
  CHECK(nTaken==(uint64_t)nThread*gnWrite*WRITE_SIZE,
        "bytes written: counted %llu, expected %llu (increments lost across a reset)",
        (unsigned long long)nTaken, (unsigned long long)nThread*gnWrite*WRITE_SIZE);
  CHECK(nFiles==(uint64_t)nThread, "files: counted %llu, expected %d",
        (unsigned long long)nFiles, nThread);
  test_tier(nThread);
  return check_finish("statsrace");
}
