/*
** The "storage" VFS: every I/O method forwards to the JS storage bridge
** (see storage_vfs.h).  Locking goes to the backend when it keeps locks
** (storage 'file': other processes share the files); else it is done
** here, in memory: such a backend belongs to one wasm instance (OPFS
** access handles are exclusive), so the only other connections that can
** touch a file live in this same instance.
*/
#include <stdlib.h>
#include <string.h>
#include "storage_vfs.h"

typedef struct StorageLock StorageLock;
typedef struct StorageFile StorageFile;

/* Lock state shared by every connection of this instance on one name. */
struct StorageLock {
  char *zName;
  int nShared;        /* connections holding SHARED or more */
  int nReserved;      /* 0 or 1: a RESERVED or PENDING holder */
  int nExclusive;     /* 0 or 1 */
  int nPending;       /* 0 or 1 */
  int nRef;
  StorageLock *pNext;
};
static StorageLock *storageLocks = 0;

struct StorageFile {
  sqlite3_file base;
  int eLock;          /* SQLITE_LOCK_* held by this connection */
  int flags;          /* open flags */
  int bJsLock;        /* locks are the backend's (storage_js_lock) */
  StorageLock *pLock;    /* NULL for files without a name, or with bJsLock */
  StorageBuf *pBuf;      /* temp files (no name): storage_buf.c */
};

static StorageLock *lockFind(const char *zName){
  StorageLock *p;
  for(p=storageLocks; p; p=p->pNext){
    if( strcmp(p->zName, zName)==0 ){ p->nRef++; return p; }
  }
  p = sqlite3_malloc64(sizeof(*p));
  if( p==0 ) return 0;
  memset(p, 0, sizeof(*p));
  p->zName = sqlite3_mprintf("%s", zName);
  if( p->zName==0 ){ sqlite3_free(p); return 0; }
  p->nRef = 1;
  p->pNext = storageLocks;
  storageLocks = p;
  return p;
}

static void lockRelease(StorageLock *p){
  StorageLock **pp;
  if( p==0 || --p->nRef>0 ) return;
  for(pp=&storageLocks; *pp; pp=&(*pp)->pNext){
    if( *pp==p ){ *pp = p->pNext; break; }
  }
  sqlite3_free(p->zName);
  sqlite3_free(p);
}

static int storageClose(sqlite3_file *pFile){
  StorageFile *p = (StorageFile*)pFile;
  int rc;
  storageBufClose(p->pBuf);
  p->pBuf = 0;
  rc = storage_js_close((int)(size_t)pFile);
  if( p->pLock ){
    StorageLock *l = p->pLock;
    if( p->eLock>=SQLITE_LOCK_SHARED ) l->nShared--;
    if( p->eLock>=SQLITE_LOCK_RESERVED ) l->nReserved = 0;
    if( p->eLock>=SQLITE_LOCK_PENDING ) l->nPending = 0;
    if( p->eLock==SQLITE_LOCK_EXCLUSIVE ) l->nExclusive = 0;
    lockRelease(l);
    p->pLock = 0;
  }
  return rc;
}

static int storageRead(sqlite3_file *pFile, void *pBuf, int iAmt, sqlite3_int64 iOfst){
  StorageFile *p = (StorageFile*)pFile;
  if( p->pBuf ) return storageBufRead(p->pBuf, pBuf, iAmt, iOfst);
  return storage_js_read((int)(size_t)pFile, pBuf, iAmt, (double)iOfst);
}

static int storageWrite(sqlite3_file *pFile, const void *pBuf, int iAmt, sqlite3_int64 iOfst){
  StorageFile *p = (StorageFile*)pFile;
  if( p->pBuf ) return storageBufWrite(p->pBuf, pBuf, iAmt, iOfst);
  return storage_js_write((int)(size_t)pFile, pBuf, iAmt, (double)iOfst);
}

static int storageTruncate(sqlite3_file *pFile, sqlite3_int64 size){
  StorageFile *p = (StorageFile*)pFile;
  if( p->pBuf ) return storageBufTruncate(p->pBuf, size);
  return storage_js_truncate((int)(size_t)pFile, (double)size);
}

static int storageSync(sqlite3_file *pFile, int flags){
  StorageFile *p = (StorageFile*)pFile;
  if( p->pBuf ) return storageBufSync(p->pBuf, flags);
  return storage_js_sync((int)(size_t)pFile, flags);
}

static int storageFileSize(sqlite3_file *pFile, sqlite3_int64 *pSize){
  StorageFile *p = (StorageFile*)pFile;
  double d;
  if( p->pBuf ) return storageBufSize(p->pBuf, pSize);
  d = storage_js_size((int)(size_t)pFile);
  if( d<0 ){ *pSize = 0; return SQLITE_IOERR_FSTAT; }
  *pSize = (sqlite3_int64)d;
  return SQLITE_OK;
}

/* Standard SQLite lock transitions, for connections of this instance. */
static int storageLock(sqlite3_file *pFile, int eLock){
  StorageFile *p = (StorageFile*)pFile;
  StorageLock *l = p->pLock;
  if( p->eLock>=eLock ) return SQLITE_OK;
  if( p->bJsLock ){
    int rc = storage_js_lock((int)(size_t)pFile, eLock);
    if( rc==SQLITE_OK ) p->eLock = eLock;
    return rc;
  }
  if( l==0 ){ p->eLock = eLock; return SQLITE_OK; }
  switch( eLock ){
    case SQLITE_LOCK_SHARED:
      if( l->nPending || l->nExclusive ) return SQLITE_BUSY;
      l->nShared++;
      break;
    case SQLITE_LOCK_RESERVED:
      if( l->nReserved ) return SQLITE_BUSY;
      l->nReserved = 1;
      break;
    case SQLITE_LOCK_EXCLUSIVE:
      if( p->eLock<SQLITE_LOCK_PENDING ){
        if( l->nPending ) return SQLITE_BUSY;
        l->nPending = 1;
        p->eLock = SQLITE_LOCK_PENDING;
      }
      if( l->nShared>1 ) return SQLITE_BUSY;
      l->nExclusive = 1;
      break;
    default:
      return SQLITE_MISUSE;
  }
  p->eLock = eLock;
  return SQLITE_OK;
}

static int storageUnlock(sqlite3_file *pFile, int eLock){
  StorageFile *p = (StorageFile*)pFile;
  StorageLock *l = p->pLock;
  if( p->bJsLock ){
    /* Always: a PENDING taken by a busy EXCLUSIVE is the backend's to drop. */
    if( p->eLock>eLock ) p->eLock = eLock;
    return storage_js_unlock((int)(size_t)pFile, eLock);
  }
  if( p->eLock<=eLock ) return SQLITE_OK;
  if( l ){
    if( p->eLock==SQLITE_LOCK_EXCLUSIVE ) l->nExclusive = 0;
    if( p->eLock>=SQLITE_LOCK_PENDING ) l->nPending = 0;
    if( p->eLock>=SQLITE_LOCK_RESERVED ) l->nReserved = 0;
    if( eLock==SQLITE_LOCK_NONE && p->eLock>=SQLITE_LOCK_SHARED ) l->nShared--;
  }
  p->eLock = eLock;
  return SQLITE_OK;
}

static int storageCheckReservedLock(sqlite3_file *pFile, int *pResOut){
  StorageFile *p = (StorageFile*)pFile;
  if( p->bJsLock ){
    int r = storage_js_check_reserved((int)(size_t)pFile);
    if( r<0 ){ *pResOut = 0; return SQLITE_IOERR_CHECKRESERVEDLOCK; }
    *pResOut = r;
    return SQLITE_OK;
  }
  *pResOut = p->pLock ? p->pLock->nReserved : 0;
  return SQLITE_OK;
}

static int storageFileControl(sqlite3_file *pFile, int op, void *pArg){
  (void)pFile; (void)op; (void)pArg;
  return SQLITE_NOTFOUND;
}

static int storageSectorSize(sqlite3_file *pFile){
  (void)pFile;
  return 4096;
}

/* No SEQUENTIAL or SAFE_APPEND: OPFS orders writes across files only
** through flush() (xSync), so SQLite must sync the journal before it
** overwrites database pages.  Same as SQLite's own opfs-sahpool VFS. */
static int storageDeviceCharacteristics(sqlite3_file *pFile){
  (void)pFile;
  return SQLITE_IOCAP_UNDELETABLE_WHEN_OPEN;
}

static const sqlite3_io_methods storageIoMethods = {
  1, storageClose, storageRead, storageWrite, storageTruncate, storageSync, storageFileSize,
  storageLock, storageUnlock, storageCheckReservedLock, storageFileControl,
  storageSectorSize, storageDeviceCharacteristics,
  0, 0, 0, 0, 0, 0
};

static int storageOpen(sqlite3_vfs *pVfs, const char *zName, sqlite3_file *pFile,
                    int flags, int *pOutFlags){
  StorageFile *p = (StorageFile*)pFile;
  int outFlags = flags;
  int rc;
  (void)pVfs;
  memset(p, 0, sizeof(*p));
  p->flags = flags;
  if( zName && (flags & SQLITE_OPEN_MAIN_DB) ){
    p->pLock = lockFind(zName);
    if( p->pLock==0 ) return SQLITE_NOMEM;
  }
  rc = storage_js_open(zName, (int)(size_t)pFile, flags, &outFlags);
  if( rc!=SQLITE_OK ){
    lockRelease(p->pLock);
    p->pLock = 0;
    return rc;
  }
  if( zName==0 ){
    rc = storageBufOpen(&p->pBuf, (int)(size_t)pFile);
    if( rc!=SQLITE_OK ){
      storage_js_close((int)(size_t)pFile);
      return rc;
    }
  }
  if( pOutFlags ) *pOutFlags = outFlags;
  if( p->pLock && storage_js_lock((int)(size_t)pFile, SQLITE_LOCK_NONE)!=-1 ){
    /* The backend keeps the locks: none in memory. */
    lockRelease(p->pLock);
    p->pLock = 0;
    p->bJsLock = 1;
  }
  p->base.pMethods = &storageIoMethods;
  return SQLITE_OK;
}

static int storageDelete(sqlite3_vfs *pVfs, const char *zName, int syncDir){
  (void)pVfs;
  return storage_js_delete(zName, syncDir);
}

static int storageAccess(sqlite3_vfs *pVfs, const char *zName, int flags, int *pResOut){
  int r;
  (void)pVfs;
  r = storage_js_access(zName, flags);
  if( r<0 ){ *pResOut = 0; return SQLITE_IOERR_ACCESS; }
  *pResOut = r;
  return SQLITE_OK;
}

/* The backend names the file (real paths for Node's files, "/name"
** elsewhere); a name that does not fit is SQLITE_CANTOPEN, never cut. */
static int storageFullPathname(sqlite3_vfs *pVfs, const char *zName, int nOut, char *zOut){
  (void)pVfs;
  return storage_js_full_pathname(zName, nOut, zOut);
}

/* SQLite's PRNG seed.  Without crypto.getRandomValues() there is no seed
** worth having: stop (the wasm instance traps) rather than seed with zeros. */
static int storageRandomness(sqlite3_vfs *pVfs, int nByte, char *zOut){
  (void)pVfs;
  if( storage_js_random(zOut, nByte)!=0 ) abort();
  return nByte;
}

/* A backend that keeps locks other processes hold (storage 'file') blocks
** here, so that SQLite's busy handler waits for them; else it returns at
** once (a browser's main thread cannot block; SQLite only retries). */
static int storageSleep(sqlite3_vfs *pVfs, int microseconds){
  (void)pVfs;
  return storage_js_sleep(microseconds);
}

static int storageCurrentTimeInt64(sqlite3_vfs *pVfs, sqlite3_int64 *pNow){
  (void)pVfs;
  /* Julian day in milliseconds: 2440587.5 days at the Unix epoch. */
  *pNow = (sqlite3_int64)210866760000000LL + (sqlite3_int64)storage_js_now();
  return SQLITE_OK;
}

static int storageCurrentTime(sqlite3_vfs *pVfs, double *pNow){
  sqlite3_int64 t;
  storageCurrentTimeInt64(pVfs, &t);
  *pNow = t/86400000.0;
  return SQLITE_OK;
}

static int storageGetLastError(sqlite3_vfs *pVfs, int nBuf, char *zBuf){
  (void)pVfs;
  return storage_js_last_error(zBuf, nBuf);
}

/* mxPathname, the longest full path SQLite may hand a backend (before it
** adds a suffix: -journal, -wal, -mjXXXXXX9XX).  A backend that stores
** paths checks that this plus a suffix fits (the OPFS pool's file header:
** test/unit/storage.test.mjs measures the limit through SQLite). */
#define STORAGE_MAX_PATHNAME 1024

static sqlite3_vfs storageVfs = {
  2, sizeof(StorageFile), STORAGE_MAX_PATHNAME, 0, STORAGE_VFS_NAME, 0,
  storageOpen, storageDelete, storageAccess, storageFullPathname,
  0, 0, 0, 0,
  storageRandomness, storageSleep, storageCurrentTime, storageGetLastError,
  storageCurrentTimeInt64,
  0, 0, 0
};

int storage_vfs_register(void){
  return sqlite3_vfs_register(&storageVfs, 1);
}

/* With SQLITE_OS_OTHER=1 the application supplies these. */
int sqlite3_os_init(void){ return storage_vfs_register(); }
int sqlite3_os_end(void){ return SQLITE_OK; }
