/*
** Constant-time check ("ctgrind"), run under valgrind memcheck.
**
** Secrets are marked undefined with VALGRIND_MAKE_MEM_UNDEFINED: memcheck
** then reports every conditional jump, memory address or system call that
** depends on them.  Declassified on purpose (marked defined) are only what
** is public by design: ciphertext on its way to storage (in the spy VFS
** under tempcrypt), plaintext handed back to SQLite (in the "proofct"
** shim above tempcrypt), results the test compares, and the TEMP
** database's page numbers and counters the shim reads to free pages.
**
** 1. tempcrypt_chacha20_xor with secret key and plaintext, on every
**    cipher path: lengths 0..300 and the vector groups' sizes up to 4177,
**    counters near 2^32, in place and not.
** 2. The VFS path: keys come from an entropy source that marks them
**    undefined at birth; SQLite's writes to temp files are marked undefined
**    before tempcrypt sees them; SQL workloads (sort, temp table and index,
**    VACUUM, statement journal, overflow values, window) run through it.
**
**   ctgrind           the check: valgrind must report nothing
**   ctgrind --leaky   self-test: branches on a secret, valgrind must report
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <valgrind/memcheck.h>
#include "proof.h"
#include "tempcrypt.h"
#include "chacha20.h"

static void ctSecret(const void *p, size_t n){ VALGRIND_MAKE_MEM_UNDEFINED(p, n); }
static void ctPublic(const void *p, size_t n){ VALGRIND_MAKE_MEM_DEFINED(p, n); }
/* The TEMP database's page numbers and counters the shim reads to free
** pages: public by design (sqlite3_tempcrypt_test_public_hook). */
static void ctStructure(void *pArg, const void *p, int n){ (void)pArg; ctPublic(p, (size_t)n); }

static int secretEntropy(void *p, size_t n){
  if( getentropy(p, n) ) return -1;
  VALGRIND_MAKE_MEM_UNDEFINED(p, n);
  return 0;
}

static void fill(unsigned char *a, size_t n, unsigned seed){
  size_t i;
  for(i=0; i<n; i++){ seed = seed*1103515245u + 12345u; a[i] = (unsigned char)(seed>>16); }
}

/* Lengths: every one to 80, then sparser, then the vector paths' groups
** (4, 8 and 16 blocks) and their remainders. */
static size_t nextLen(size_t n){
  static const size_t aBig[] = { 511, 512, 1023, 1024, 1100, 2048+64+5, 4096, 4177 };
  unsigned i;
  if( n < 80 ) return n + 1;
  if( n + 37 <= 300 ) return n + 37;
  for(i=0; i<sizeof(aBig)/sizeof(aBig[0]); i++) if( aBig[i] > n ) return aBig[i];
  return (size_t)-1;      /* done */
}

static void cipherCheck(const char *zPath){
  static unsigned char pt[4177], ref[4177], out[4177];
  unsigned char key[32], nonce[12];
  size_t n;
  int nCase = 0, nBad = 0;
  static const uint32_t aCtr[] = {0, 1, 7, 0xfffffff0u, 0xfffffffbu};
  unsigned c;
  for(c=0; c<sizeof(aCtr)/sizeof(aCtr[0]); c++){
    for(n=0; n!=(size_t)-1; n=nextLen(n)){
      /* Counter + blocks must not pass 2^32. */
      if( aCtr[c] > 0xffffffffu - (uint32_t)(n/64+1) ) continue;
      fill(key, 32, (unsigned)(n*7+c)); fill(nonce, 12, (unsigned)n+1); fill(pt, n, (unsigned)n+99);
      tempcrypt_chacha20_xor(ref, pt, n, key, nonce, aCtr[c]);   /* all public */
      VALGRIND_MAKE_MEM_UNDEFINED(key, 32);
      VALGRIND_MAKE_MEM_UNDEFINED(pt, n);
      tempcrypt_chacha20_xor(out, pt, n, key, nonce, aCtr[c]);
      tempcrypt_chacha20_xor(pt, pt, n, key, nonce, aCtr[c]);   /* in place */
      VALGRIND_MAKE_MEM_DEFINED(out, n);
      VALGRIND_MAKE_MEM_DEFINED(pt, n);
      VALGRIND_MAKE_MEM_DEFINED(key, 32);
      if( memcmp(out, ref, n) || memcmp(pt, ref, n) ) nBad++;
      tempcrypt_wipe(key, 32);
      nCase++;
    }
  }
  CHECK(nBad==0, "chacha20 %s with secret inputs gave different output in %d cases", zPath, nBad);
  printf("ctgrind: chacha20 path %s: %d cases with secret key and plaintext\n", zPath, nCase);
}

/* cipherCheck on every path this build and CPU have (valgrind's CPU has
** no AVX-512, so that path is skipped under it, and says so). */
static void cipherCheckAll(void){
  int i;
  for(i=0; i<TEMPCRYPT_CHACHA20_NPATH; i++){
    const char *zWhy = tempcrypt_chacha20_path_missing(i);
    if( zWhy ){
      printf("ctgrind: chacha20 path %s SKIPPED: %s\n", tempcrypt_chacha20_path_name(i), zWhy);
      continue;
    }
    tempcrypt_chacha20_use_path(i);
    cipherCheck(tempcrypt_chacha20_path_name(i));
  }
  tempcrypt_chacha20_use_path(-1);
}

static void leaky(void){
  unsigned char key[32];
  volatile int x = 0;
  fill(key, 32, 1);
  VALGRIND_MAKE_MEM_UNDEFINED(key, 32);
  if( key[3] & 1 ) x++;      /* a secret-dependent branch, on purpose */
  printf("ctgrind: leaky self-test ran (%d)\n", x);
}

/* SQL through the whole stack with a secret key and secret plaintext:
** each workload, its results equal to temp_store=MEMORY's. */
static void test_sql(const char *zDb, const unsigned char *aTpl, long nTpl){
  static const char *azWl[] = {
    "order-by", "temp-table+index", "vacuum", "stmt-journal", "overflow",
    "window", "distinct", "savepoint"
  };
  int i;
  sqlite3_tempcrypt_test_entropy(secretEntropy);
  proof_ct_secret = ctSecret;
  proof_ct_public = ctPublic;
  sqlite3_tempcrypt_test_public_hook(ctStructure, 0);
  for(i=0; i<(int)(sizeof(azWl)/sizeof(azWl[0])); i++){
    const ProofWorkload *w = 0;
    ProofRun run, ref;
    ProofCfg cfg = {1, 0, 0};
    sqlite3 *db;
    int j;
    for(j=0; j<proof_nWorkload; j++){
      if( strcmp(proof_workloads[j].zName, azWl[i])==0 ) w = &proof_workloads[j];
    }
    if( !w ) continue;
    for(j=0; j<2; j++){     /* j=0: temp_store=MEMORY reference */
      cfg.tempStore = j ? 1 : 2;
      proof_remove_db(zDb);
      proof_write_file(zDb, aTpl, nTpl);
      db = proof_open(zDb, &cfg);
      CHECK(db!=0, "open");
      if( !db ) break;
      if( w->zSetup ) sqlite3_exec(db, w->zSetup, 0, 0, 0);
      proof_files_reset();
      proof_run_script(db, w->zScript, j ? &run : &ref, 0);
      proof_finish_tx(db);
      CHECK(sqlite3_close(db)==SQLITE_OK, "close");
    }
    {
      int nEnc = 0;
      for(j=0; j<proof_files_count(); j++) nEnc += proof_file(j)->encrypted;
      CHECK(nEnc>0, "%s: no encrypted temp file", w->zName);
      CHECK(memcmp(run.aHash, ref.aHash, sizeof(run.aHash))==0
            && memcmp(run.aRc, ref.aRc, sizeof(run.aRc))==0,
            "%s: results differ from temp_store=MEMORY", w->zName);
      printf("ctgrind: %-18s %d encrypted temp files, secret key and plaintext\n",
             w->zName, nEnc);
    }
  }
  sqlite3_tempcrypt_test_entropy(0);
  proof_ct_secret = 0;
  proof_ct_public = 0;
  sqlite3_tempcrypt_test_public_hook(0, 0);
}

int main(int argc, char **argv){
  const char *zBase, *zDb;
  unsigned char *aTpl; long nTpl = 0;
  int rc;
  if( argc>1 && strcmp(argv[1], "--leaky")==0 ){ leaky(); return 0; }
  if( !RUNNING_ON_VALGRIND ){
    printf("ctgrind: not running under valgrind; run it as `make ctgrind`\n");
  }
  cipherCheckAll();

  rc = proof_init(argv[0]);         /* seeds SQLite's PRNG: stays public */
  if( rc ){ fprintf(stderr, "proof_init: %d\n", rc); return 2; }
  rc = proof_register_ct();
  CHECK(rc==SQLITE_OK, "register proofct");
  zBase = proof_path(0, "base");
  zDb = proof_path(1, "work");
  aTpl = proof_base_template(zBase, 300, &nTpl);
  if( !aTpl ) return check_finish("ctgrind");
  test_sql(zDb, aTpl, nTpl);
  free(aTpl);
  proof_remove_db(zBase);
  proof_remove_db(zDb);
  return check_finish("ctgrind");
}
