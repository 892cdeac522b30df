/*
** Glue exported to the JS API (js/engine.js): start-up, tempcrypt counters
** as doubles, and the table of result codes shared with opfs_library.js.
*/
#include "opfs_vfs.h"
#include "tempcrypt.h"

/* Initialize SQLite, then put tempcrypt over "opfs" as the default VFS.
** TC_BASELINE is the conformance tests' build without tempcrypt (the
** baseline every result is compared with, mk/conformance.mk); dist/ is
** never built with it. */
int tc_init(void){
  int rc = sqlite3_initialize();
#ifndef TC_BASELINE
  if( rc==SQLITE_OK ) rc = sqlite3_tempcrypt_register(OPFS_VFS_NAME, 1);
#endif
  return rc;
}

/* Copy the counters into a[0..8] as doubles (exact below 2^53). */
void tc_stats(double *a, int reset){
  struct sqlite3_tempcrypt_stats s;
  sqlite3_tempcrypt_stats(&s, reset);
  a[0] = (double)s.nFileEncrypted;
  a[1] = (double)s.nFilePlain;
  a[2] = (double)s.nLogicalWrite;
  a[3] = (double)s.nLogicalRead;
  a[4] = (double)s.nPhysicalWrite;
  a[5] = (double)s.nPhysicalRead;
  a[6] = (double)s.nEnciphered;
  a[7] = (double)s.nBlockRmw;
  a[8] = (double)s.nFailedBlockRead;
}

static const int aCode[] = {
#define OPFS_X(n) n,
  OPFS_RESULT_CODES(OPFS_X)
#undef OPFS_X
};

int tc_code_count(void){ return OPFS_RC_COUNT; }
int tc_codes(int i){ return (i>=0 && i<OPFS_RC_COUNT) ? aCode[i] : -1; }
