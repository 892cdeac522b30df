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
** Then the file list (sqlite3_tempcrypt_files(), the SQL table
** tempcrypt_files) under the same threads: each opens, fills and closes
** temp files over and over, with the tier at 24 KiB so that files spill
** while the main thread lists them and scans what they stored for a
** plaintext marker that every block holds.  The model: an open file is
** encrypted, its id unique and at most the number opened so far, its
** bytes written at most what its writer writes, the marker never found in
** what it stored; once all are closed none is open and each of the last
** 16 closed shows exactly what its writer wrote.  The control: a file
** opened with tempcrypt off shows the marker exactly as often as it
** holds it, across the scan's chunk boundary.
**
**   statsrace [threads] [writes per thread]
*/
#include <pthread.h>
#include <sched.h>
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

#define LIST_BLOCKS 24          /* 96 KiB a file: more than one 64 KiB scan chunk */
#define LIST_ROUNDS 40
/* Set by the scanner once it listed an open file in storage: each writer
** keeps its first file open, filled, until then, so that the scans see
** open and stored files however the threads are scheduled. */
static int gnSeenStored = 0;
static const char gzNeedle[] = "statsrace-PLAIN!";   /* 16 bytes */

/* A file's blocks hold the needle over and over, starting at byte 7, so
** that one occurrence straddles the scan's 64 KiB chunk boundary. */
static void fillNeedle(unsigned char *a, int n){
  int i;
  for(i=0; i<n; i++) a[i] = (unsigned char)gzNeedle[(i+9) % 16];
}

static sqlite3_file *openTemp(sqlite3_vfs *pVfs){
  sqlite3_file *pF = calloc(1, (size_t)pVfs->szOsFile);
  int outFlags = 0;
  if( pVfs->xOpen(pVfs, 0, pF, SQLITE_OPEN_READWRITE|SQLITE_OPEN_CREATE
                  |SQLITE_OPEN_EXCLUSIVE|SQLITE_OPEN_DELETEONCLOSE
                  |SQLITE_OPEN_TEMP_JOURNAL, &outFlags)!=SQLITE_OK ){
    free(pF);
    return 0;
  }
  return pF;
}

static void *listWriter(void *pArg){
  sqlite3_vfs *pVfs = sqlite3_vfs_find(SQLITE_TEMPCRYPT_VFS_NAME);
  unsigned char a[TIER_BLOCK];
  int r, k, nBad = 0;
  (void)pArg;
  fillNeedle(a, TIER_BLOCK);
  for(r=0; r<LIST_ROUNDS; r++){
    sqlite3_file *pF = openTemp(pVfs);
    if( pF==0 ){ nBad++; continue; }
    for(k=0; k<LIST_BLOCKS; k++){
      if( pF->pMethods->xWrite(pF, a, TIER_BLOCK, k*(sqlite3_int64)TIER_BLOCK) ) nBad++;
    }
    while( r==0 && nBad==0 && !__atomic_load_n(&gnSeenStored, __ATOMIC_SEQ_CST) ) sched_yield();
    pF->pMethods->xClose(pF);
    free(pF);
  }
  __atomic_fetch_add(&gnBadRead, nBad, __ATOMIC_SEQ_CST);
  __atomic_fetch_add(&gnDone, 1, __ATOMIC_SEQ_CST);
  return 0;
}

static void test_list(int nThread){
  struct sqlite3_tempcrypt_file a[64];
  const sqlite3_uint64 nFile = (sqlite3_uint64)LIST_BLOCKS*TIER_BLOCK;
  const int nNeedle = (int)sizeof(gzNeedle)-1;
  const sqlite3_int64 nInFile = (LIST_BLOCKS*TIER_BLOCK - nNeedle - 7)/16 + 1;
  uint64_t nScans = 0, nSeenOpen = 0, nSeenStored = 0, nBadOpen = 0, idMax = 0, idControl = 0, nBadId = 0;
  sqlite3_vfs *pVfs = sqlite3_vfs_find(SQLITE_TEMPCRYPT_VFS_NAME);
  pthread_t aT[16];
  int i, j, n, nOpen = 0, nClosedOk = 0;

  /* The control first, on this thread alone: tempcrypt off. */
  {
    unsigned char b[TIER_BLOCK];
    sqlite3_file *pF;
    sqlite3_tempcrypt_set_enabled(0);
    pF = openTemp(pVfs);
    sqlite3_tempcrypt_set_enabled(1);
    CHECK(pF!=0, "list: the control's file opens");
    if( pF ){
      fillNeedle(b, TIER_BLOCK);
      for(i=0; i<LIST_BLOCKS; i++) pF->pMethods->xWrite(pF, b, TIER_BLOCK, i*(sqlite3_int64)TIER_BLOCK);
      n = sqlite3_tempcrypt_files(a, 64, gzNeedle, nNeedle);
      CHECK(n>=1 && a[0].open && !a[0].encrypted && a[0].nFound==nInFile,
            "list: the control (tempcrypt off) shows the needle %lld times (got %lld)",
            (long long)nInFile, n>=1 ? (long long)a[0].nFound : -2LL);
      if( n>=1 ) idControl = a[0].id;
      pF->pMethods->xClose(pF);
      free(pF);
    }
  }

  sqlite3_tempcrypt_budget(TIER_BUDGET);
  gnDone = 0;
  gnBadRead = 0;
  gnSeenStored = 0;
  for(i=0; i<nThread; i++) pthread_create(&aT[i], 0, listWriter, 0);
  while( __atomic_load_n(&gnDone, __ATOMIC_SEQ_CST)<nThread ){
    n = sqlite3_tempcrypt_files(a, 64, gzNeedle, nNeedle);
    nScans++;
    for(i=0; i<n && i<64; i++){
      if( a[i].id>idMax ) idMax = a[i].id;
      if( !a[i].open ) continue;
      nSeenOpen++;
      if( a[i].lower ){
        nSeenStored++;
        __atomic_store_n(&gnSeenStored, 1, __ATOMIC_SEQ_CST);
      }
      if( !a[i].encrypted || a[i].nWrite>nFile || a[i].nFound!=0
       || (a[i].flags & SQLITE_OPEN_TEMP_JOURNAL)==0 ) nBadOpen++;
      for(j=0; j<i; j++) if( a[j].open && a[j].id==a[i].id ) nBadOpen++;
    }
  }
  for(i=0; i<nThread; i++) pthread_join(aT[i], 0);
  n = sqlite3_tempcrypt_files(a, 64, 0, 0);
  for(i=0; i<n && i<64; i++){
    if( a[i].id>idMax ) idMax = a[i].id;
    if( a[i].open ) nOpen++;
    else if( a[i].nWrite==nFile && a[i].encrypted && a[i].nFound==-1 && a[i].nMemBytes<=TIER_BUDGET ) nClosedOk++;
  }
  printf("statsrace: list, %d threads x %d files: %llu scans saw %llu open files"
         " (%llu of them in storage)\n", nThread, LIST_ROUNDS, (unsigned long long)nScans,
         (unsigned long long)nSeenOpen, (unsigned long long)nSeenStored);
  CHECK(gnBadRead==0, "list: %d writes or opens failed", gnBadRead);
  CHECK(nBadOpen==0, "list: %llu open entries broke the model", (unsigned long long)nBadOpen);
  CHECK(nSeenOpen>0 && nSeenStored>0, "list: scans saw open files (%llu) and stored ones (%llu)",
        (unsigned long long)nSeenOpen, (unsigned long long)nSeenStored);
  CHECK(nOpen==0 && n==16 && nClosedOk==16,
        "list: all closed: %d open (0), %d listed (16), %d closed as written (16)", nOpen, n, nClosedOk);
  /* Ids are handed out in order: this phase's files follow the control's. */
  for(i=0; i<n && i<64; i++){
    if( a[i].id<=idControl || a[i].id>idControl + (uint64_t)nThread*LIST_ROUNDS ) nBadId++;
    for(j=0; j<i; j++) if( a[j].id==a[i].id ) nBadId++;
  }
  CHECK(nBadId==0 && idMax==idControl + (uint64_t)nThread*LIST_ROUNDS,
        "list: ids unique, in order (%llu bad; highest %llu, expected %llu)", (unsigned long long)nBadId,
        (unsigned long long)idMax, (unsigned long long)(idControl + (uint64_t)nThread*LIST_ROUNDS));
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
  test_list(nThread);
  return check_finish("statsrace");
}
