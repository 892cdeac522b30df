/*
** The "opfs" VFS of the browser build: a small C VFS whose I/O methods call
** the JavaScript bridge in opfs_library.js.  The bridge hands each call to a
** storage backend: the pool of OPFS access handles (js/opfs-pool.js) or
** plain memory (js/memory-backend.js).  tempcrypt is registered over it.
*/
#ifndef OPFS_VFS_H
#define OPFS_VFS_H
#include "sqlite3.h"

#define OPFS_VFS_NAME "opfs"

/*
** Result codes the JS bridge may return, in a fixed order.  The JS table
** RESULT_CODES in opfs_library.js lists the same names in the same order;
** tc_codes() lets the JS side check at start-up that both agree.
*/
#define OPFS_RESULT_CODES(X) \
  X(SQLITE_OK) X(SQLITE_ERROR) X(SQLITE_BUSY) X(SQLITE_NOMEM) \
  X(SQLITE_FULL) X(SQLITE_CANTOPEN) X(SQLITE_NOTFOUND) X(SQLITE_READONLY) \
  X(SQLITE_IOERR) X(SQLITE_IOERR_READ) X(SQLITE_IOERR_SHORT_READ) \
  X(SQLITE_IOERR_WRITE) X(SQLITE_IOERR_FSYNC) X(SQLITE_IOERR_TRUNCATE) \
  X(SQLITE_IOERR_FSTAT) X(SQLITE_IOERR_DELETE) X(SQLITE_IOERR_ACCESS) \
  X(SQLITE_IOERR_CLOSE) X(SQLITE_IOERR_DELETE_NOENT)

enum opfs_result_index {
#define OPFS_X(n) OPFS_RC_##n,
  OPFS_RESULT_CODES(OPFS_X)
#undef OPFS_X
  OPFS_RC_COUNT
};

/* Registers "opfs" as the default VFS (called by sqlite3_os_init). */
int opfs_vfs_register(void);

/* Imported from opfs_library.js.  Offsets and sizes travel as doubles
** (exact up to 2^53).  File ids are the sqlite3_file pointers. */
int opfs_js_open(const char *zName, int fileId, int flags, int *pOutFlags);
int opfs_js_close(int fileId);
int opfs_js_read(int fileId, void *pBuf, int iAmt, double iOfst);
int opfs_js_write(int fileId, const void *pBuf, int iAmt, double iOfst);
int opfs_js_truncate(int fileId, double size);
int opfs_js_sync(int fileId, int flags);
double opfs_js_size(int fileId);
int opfs_js_delete(const char *zName, int syncDir);
int opfs_js_access(const char *zName, int flags);
int opfs_js_last_error(char *zBuf, int nBuf);
int opfs_js_random(void *pBuf, int n);
double opfs_js_now(void);

#endif
