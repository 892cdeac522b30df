/*
** The proof library's set-up (SQLite's configuration, the VFS stack, the
** marker, scratch paths), the base database and the workloads.  The other
** parts are in test/c/proof/ (internal.h lists them); proof.h is the
** interface.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proof/internal.h"
#include "tempcrypt.h"

static struct {
  char zMarker[40]; int nMarker;
  char zProg[32]; char zTag[4][256];
  unsigned int uRand;
} g;

const char *proof_marker(void){ return g.zMarker; }
int proofMarkerLen(void){ return g.nMarker; }

int proof_init(const char *zProg){
  int rc;
  sqlite3_vfs *pDflt;
  const char *z;
  unsigned int r = 0;
  z = strrchr(zProg, '/');
  snprintf(g.zProg, sizeof(g.zProg), "%s", z ? z+1 : zProg);
  proofMemInstall();
  /* Memory statistics on, so that a soft heap limit puts the page caches
  ** under pressure: then even ephemeral tables (whose cache is otherwise
  ** 2 MB natively, 16 MiB in the wasm builds) spill to their temp files
  ** with small workloads. */
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1);
  sqlite3_config(SQLITE_CONFIG_PMASZ, 4);           /* sorter PMAs spill early */
  sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, 2048);/* statement journals too */
  rc = sqlite3_initialize();
  if( rc ) return rc;
  proofMemInit();
  proofLockInit();
  sqlite3_soft_heap_limit64(1);
  pDflt = sqlite3_vfs_find(0);
  if( !pDflt ) return SQLITE_ERROR;
  rc = proofSpyRegister(pDflt);
  if( rc ) return rc;
  rc = sqlite3_tempcrypt_register("proofspy", 1);
  if( rc ) return rc;
  /* No memory tier unless a test asks for one (sqlite3_tempcrypt_budget):
  ** every temp file below tempcrypt from its first byte, as the tests
  ** were written for. */
  sqlite3_tempcrypt_budget(0);
#ifdef SQLITE_TEMPCRYPT_TESTING
  sqlite3_tempcrypt_test_key_hook(proofKeyHook, 0);
#endif
  /* The shim above tempcrypt (the default VFS from now on) models each
  ** temp file's plaintext for the layout verification. */
  rc = proof_register_ct();
  if( rc ) return rc;
  if( !proofRefSelfTest() ){
    fprintf(stderr, "proof: reference ChaCha20 fails RFC 8439 2.3.2\n");
    return SQLITE_ERROR;
  }
  /* The marker is assembled here so that it never appears in the binary
  ** or in this source: a hit can only come from data the test wrote. */
  sqlite3_randomness((int)sizeof(r), &r);
  g.uRand = r;
  snprintf(g.zMarker, sizeof(g.zMarker), "%c%c%s%u%c%08x%c", 'Z', 'q',
           "-pl", 4u*2u, 'x', r ^ 0x5a5a1234u, '!');
  g.nMarker = (int)strlen(g.zMarker);
  return SQLITE_OK;
}

const char *proof_path(int slot, const char *zTag){
  const char *zDir = getenv("PROOF_DIR");
  if( !zDir || !zDir[0] ) zDir = ".";
  snprintf(g.zTag[slot&3], sizeof(g.zTag[0]), "%s/%s-%08x-%s.db",
           zDir, g.zProg, g.uRand, zTag);
  return g.zTag[slot&3];
}
void proof_remove_db(const char *zPath){
  char z[300];
  remove(zPath);
  snprintf(z, sizeof(z), "%s-journal", zPath); remove(z);
  snprintf(z, sizeof(z), "%s-wal", zPath); remove(z);
  snprintf(z, sizeof(z), "%s-shm", zPath); remove(z);
}

unsigned char *proof_read_file(const char *zPath, long *pn){
  FILE *f = fopen(zPath, "rb");
  unsigned char *a; long n;
  if( !f ) return 0;
  fseek(f, 0, SEEK_END); n = ftell(f); fseek(f, 0, SEEK_SET);
  a = malloc((size_t)n + 1);
  if( a && fread(a, 1, (size_t)n, f)!=(size_t)n ){ free(a); a = 0; }
  fclose(f);
  *pn = n;
  return a;
}
int proof_write_file(const char *zPath, const unsigned char *a, long n){
  FILE *f = fopen(zPath, "wb");
  int ok;
  if( !f ) return 1;
  ok = fwrite(a, 1, (size_t)n, f)==(size_t)n;
  return (fclose(f)==0 && ok) ? 0 : 1;
}

int proof_make_base(const char *zPath, int nRow){
  sqlite3 *db;
  int rc;
  char *zSql;
  proof_remove_db(zPath);
  db = proof_open(zPath, 0);
  if( !db ) return SQLITE_CANTOPEN;
  zSql = proof_base_sql(nRow);
  rc = zSql ? sqlite3_exec(db, zSql, 0, 0, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  if( sqlite3_close(db) && rc==SQLITE_OK ) rc = SQLITE_ERROR;
  return rc;
}

/* The base database of nRow rows made at zPath and read back whole: the
** template every run of a proof test starts from.  One CHECK; 0 if the
** database could not be made or read (the caller then finishes). */
unsigned char *proof_base_template(const char *zPath, int nRow, long *pn){
  int rc = proof_make_base(zPath, nRow);
  unsigned char *a = rc==SQLITE_OK ? proof_read_file(zPath, pn) : 0;
  CHECK(a!=0, "base database %s: rc %d", zPath, rc);
  return a;
}

/* ================================================================ workloads
** The entries of test/workloads.txt that run "on proof" (and its base
** "proof"), made C by test/workloads.mjs into test/c/workloads.h. */
#include "workloads.h"
const ProofWorkload proof_workloads[] = { PROOF_WORKLOADS };
const int proof_nWorkload = (int)(sizeof(proof_workloads)/sizeof(proof_workloads[0]));
char *proof_base_sql(int nRow){
  return sqlite3_mprintf(PROOF_BASE_SQL, PROOF_BASE_ARGS(nRow));
}

void proof_check_below(const char *zProg, int bLayout){
  int64_t nBad = 0, nChk = proof_counter_checks(&nBad);
  printf("%s: %lld block counters checked below tempcrypt, %lld stale\n",
         zProg, (long long)nChk, (long long)nBad);
  CHECK(nChk>0 && nBad==0, "block counters: %lld of %lld stale (reused or going backwards)",
        (long long)nBad, (long long)nChk);
  if( !bLayout ) return;
  nBad = 0;
  nChk = proof_layout_checks(&nBad);
  printf("%s: %lld block writes decrypted with the reference ChaCha20, %lld not matching SQLite's plaintext\n",
         zProg, (long long)nChk, (long long)nBad);
  CHECK(nChk>0 && nBad==0, "on-disk layout: %lld of %lld block writes wrong",
        (long long)nBad, (long long)nChk);
}
