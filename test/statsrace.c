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
**   statsrace [threads] [writes per thread]
*/
#include <pthread.h>
#include "sqlite3.h"
#include "tempcrypt.h"
#include "testutil.h"

#define WRITE_SIZE 512

static int gnWrite = 20000;
static volatile int gnDone = 0;

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

int main(int argc, char **argv){
  int nThread = argc>1 ? atoi(argv[1]) : 4, i;
  pthread_t aT[16];
  uint64_t nTaken = 0, nFiles = 0, nResets = 0;
  struct sqlite3_tempcrypt_stats s;
  if( argc>2 ) gnWrite = atoi(argv[2]);
  if( nThread<1 || nThread>16 ) nThread = 4;
  CHECK(sqlite3_tempcrypt_register(0, 0)==SQLITE_OK, "register");
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
  return check_finish("statsrace");
}
