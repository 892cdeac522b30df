/*
** Glue exported to the JS API (js/engine.js): start-up, tempcrypt counters
** as doubles, and the table of result codes shared with opfs_library.js.
*/
#include "opfs_vfs.h"
#include <stdint.h>

/* The three entry points of src/tempcrypt.h that the browser build uses,
** declared here because that header (as of the skeleton) names a typedef and
** a function both sqlite3_tempcrypt_stats, which a C compiler rejects.  The
** counters are nine uint64_t in the header's order. */
struct tc_stats_struct { uint64_t a[9]; };
int sqlite3_tempcrypt_register(const char *zBase, int makeDefault);
int sqlite3_tempcrypt_set_enabled(int on);
void sqlite3_tempcrypt_stats(struct tc_stats_struct *pOut, int reset);

/* Initialize SQLite, then put tempcrypt over "opfs" as the default VFS. */
int tc_init(void){
  int rc = sqlite3_initialize();
  if( rc==SQLITE_OK ) rc = sqlite3_tempcrypt_register(OPFS_VFS_NAME, 1);
  return rc;
}

/* Copy the counters into a[0..8] as doubles (exact below 2^53). */
void tc_stats(double *a, int reset){
  struct tc_stats_struct s;
  sqlite3_tempcrypt_stats(&s, reset);
  int i;
  for(i=0; i<9; i++) a[i] = (double)s.a[i];
}

static const int aCode[] = {
#define OPFS_X(n) n,
  OPFS_RESULT_CODES(OPFS_X)
#undef OPFS_X
};

int tc_code_count(void){ return OPFS_RC_COUNT; }
int tc_codes(int i){ return (i>=0 && i<OPFS_RC_COUNT) ? aCode[i] : -1; }
