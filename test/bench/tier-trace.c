/*
** Temp-file I/O traces for the memory tier's policy measurement
** (docs/performance.md, "The memory tier").  Linked into a copy of the
** native shell as its SQLITE_SHELL_INIT_PROC: a thin VFS shim over the
** default VFS records every open, read, write, truncate and close of a
** file opened without a name (SQLite's temp files) into the file named by
** $TIER_TRACE, as fixed-size records (TierRec, tier-sim.c reads them).
** Nothing is encrypted here: what SQLite asks of its temp files does not
** depend on what lies below the VFS, so one trace serves every policy.
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"
#include "tier-trace.h"

typedef struct TrFile {
  sqlite3_file base;
  unsigned id;            /* 0: a named file, not traced */
  sqlite3_file *pReal;
} TrFile;

static sqlite3_vfs trVfs;
static FILE *trOut = 0;
static unsigned trNextId = 0;
static pthread_mutex_t trMutex = PTHREAD_MUTEX_INITIALIZER;

static void trRecord(const TrFile *p, int op, sqlite3_int64 off, int amt, int flags){
  TierRec r;
  if( p->id==0 || trOut==0 ) return;
  memset(&r, 0, sizeof(r));
  r.op = (unsigned char)op;
  r.file = p->id;
  r.off = off;
  r.amt = amt;
  r.flags = flags;
  pthread_mutex_lock(&trMutex);
  fwrite(&r, sizeof(r), 1, trOut);
  pthread_mutex_unlock(&trMutex);
}

#define REAL(f) (((TrFile*)(f))->pReal)
static int trClose(sqlite3_file *f){
  int rc = REAL(f)->pMethods->xClose(REAL(f));
  trRecord((TrFile*)f, TIER_CLOSE, 0, 0, 0);
  return rc;
}
static int trRead(sqlite3_file *f, void *z, int n, sqlite3_int64 off){
  trRecord((TrFile*)f, TIER_READ, off, n, 0);
  return REAL(f)->pMethods->xRead(REAL(f), z, n, off);
}
static int trWrite(sqlite3_file *f, const void *z, int n, sqlite3_int64 off){
  trRecord((TrFile*)f, TIER_WRITE, off, n, 0);
  return REAL(f)->pMethods->xWrite(REAL(f), z, n, off);
}
static int trTruncate(sqlite3_file *f, sqlite3_int64 size){
  trRecord((TrFile*)f, TIER_TRUNCATE, size, 0, 0);
  return REAL(f)->pMethods->xTruncate(REAL(f), size);
}
static int trSync(sqlite3_file *f, int fl){ return REAL(f)->pMethods->xSync(REAL(f), fl); }
static int trFileSize(sqlite3_file *f, sqlite3_int64 *p){ return REAL(f)->pMethods->xFileSize(REAL(f), p); }
static int trLock(sqlite3_file *f, int e){ return REAL(f)->pMethods->xLock(REAL(f), e); }
static int trUnlock(sqlite3_file *f, int e){ return REAL(f)->pMethods->xUnlock(REAL(f), e); }
static int trCheckReserved(sqlite3_file *f, int *p){ return REAL(f)->pMethods->xCheckReservedLock(REAL(f), p); }
static int trFileControl(sqlite3_file *f, int op, void *p){ return REAL(f)->pMethods->xFileControl(REAL(f), op, p); }
static int trSectorSize(sqlite3_file *f){ return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int trDevChar(sqlite3_file *f){ return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }

/* Version 1: no shared memory (so no WAL) and no mmap through the shim. */
static const sqlite3_io_methods trMethods = {
  1, trClose, trRead, trWrite, trTruncate, trSync, trFileSize, trLock,
  trUnlock, trCheckReserved, trFileControl, trSectorSize, trDevChar,
  0, 0, 0, 0, 0, 0
};

static int trOpen(sqlite3_vfs *pVfs, const char *zName, sqlite3_file *pFile,
                  int flags, int *pOutFlags){
  sqlite3_vfs *pReal = (sqlite3_vfs*)pVfs->pAppData;
  TrFile *p = (TrFile*)pFile;
  int rc;
  memset(p, 0, sizeof(*p));
  p->pReal = (sqlite3_file*)&p[1];
  rc = pReal->xOpen(pReal, zName, p->pReal, flags, pOutFlags);
  if( rc!=SQLITE_OK ) return rc;
  pFile->pMethods = &trMethods;
  if( zName==0 ){
    pthread_mutex_lock(&trMutex);
    p->id = ++trNextId;
    pthread_mutex_unlock(&trMutex);
    trRecord(p, TIER_OPEN, 0, 0, flags);
  }
  return SQLITE_OK;
}

void tier_trace_init(void){
  sqlite3_vfs *pReal;
  const char *zOut = getenv("TIER_TRACE");
  sqlite3_initialize();
  pReal = sqlite3_vfs_find(0);
  trVfs = *pReal;
  trVfs.iVersion = pReal->iVersion;
  trVfs.szOsFile = (int)sizeof(TrFile) + pReal->szOsFile;
  trVfs.zName = "tiertrace";
  trVfs.pAppData = pReal;
  trVfs.xOpen = trOpen;
  sqlite3_vfs_register(&trVfs, 1);
  if( zOut && zOut[0] ){
    trOut = fopen(zOut, "ab");
    if( trOut==0 ){ fprintf(stderr, "tier-trace: cannot open %s\n", zOut); exit(1); }
  }
}
