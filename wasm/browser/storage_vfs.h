/*
** The "storage" VFS of the browser build: a small C VFS whose I/O methods
** call the JavaScript storage bridge (storage_library.js).  The bridge
** hands each call to the storage backend of this wasm instance (the
** contract is js/storage/backend.d.ts; the backends are listed in js/storage/backends.js:
** the OPFS pool, memory, real files in Node).  tempcrypt is registered
** over it.
*/
#ifndef STORAGE_VFS_H
#define STORAGE_VFS_H
#include "sqlite3.h"

#define STORAGE_VFS_NAME "storage"

/* Registers "storage" as the default VFS (called by sqlite3_os_init). */
int storage_vfs_register(void);

/* Write-behind and read-ahead for temp files (storage_buf.c): the VFS
** methods of a file without a name call these instead of the bridge. */
typedef struct StorageBuf StorageBuf;
int storageBufOpen(StorageBuf **pp, int fileId);
int storageBufRead(StorageBuf*, void *pBuf, int iAmt, sqlite3_int64 iOfst);
int storageBufWrite(StorageBuf*, const void *pBuf, int iAmt, sqlite3_int64 iOfst);
int storageBufTruncate(StorageBuf*, sqlite3_int64 size);
int storageBufSync(StorageBuf*, int flags);
int storageBufSize(StorageBuf*, sqlite3_int64 *pSize);
void storageBufClose(StorageBuf*);

/* Imported from storage_library.js.  Each returns an SQLite result code
** (the bridge turns a backend's exception into one), except where noted.
** Offsets and sizes travel as doubles (exact up to 2^53).  File ids are
** the sqlite3_file pointers. */
int storage_js_open(const char *zName, int fileId, int flags, int *pOutFlags);
int storage_js_close(int fileId);
int storage_js_read(int fileId, void *pBuf, int iAmt, double iOfst);
int storage_js_write(int fileId, const void *pBuf, int iAmt, double iOfst);
int storage_js_truncate(int fileId, double size);
int storage_js_sync(int fileId, int flags);
double storage_js_size(int fileId);                   /* <0: error */
int storage_js_delete(const char *zName, int syncDir);
int storage_js_access(const char *zName, int flags);  /* 0, 1; <0: error */
int storage_js_full_pathname(const char *zName, int nOut, char *zOut);
int storage_js_last_error(char *zBuf, int nBuf);      /* xGetLastError */
int storage_js_random(void *pBuf, int n);             /* 0, or -1 */
double storage_js_now(void);                          /* ms since the epoch */
/* Locks kept by the backend (storage 'file': other processes see them).
** storage_js_lock: SQLITE_OK, SQLITE_BUSY, an error, or -1 when the
** backend keeps none (the VFS keeps them in memory then). */
int storage_js_lock(int fileId, int eLock);
int storage_js_unlock(int fileId, int eLock);
int storage_js_check_reserved(int fileId);            /* 0, 1; <0: error */
int storage_js_sleep(int microseconds);               /* microseconds slept */

#endif
