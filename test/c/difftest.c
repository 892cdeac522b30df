/*
** Differential test: every workload gives identical results (row-by-row
** hashes of every statement, result codes, and the final database) with
**   temp_store=FILE encrypted, temp_store=FILE plaintext, temp_store=MEMORY,
** each also with PRAGMA threads=4 (the multi-threaded sorter; a build with
** SQLITE_THREADSAFE=0 ignores the pragma), and with encrypted temporary
** databases of page size 512 and 65536 (smallest and largest block); and
** encrypted with the memory tier at budgets of 16 KiB (files spill
** part-way), 256 KiB and the default (files stay in memory), and 16 KiB
** with threads=4 (worker threads share the budget).  Without a tier
** configuration names its budget, the budget is 0.
**
**   difftest [nRow]        default 1500 rows
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proof.h"
#include "tempcrypt.h"

typedef struct Cfg { const char *zName; int enc; ProofCfg c; int64_t budget; } Cfg;
static const Cfg aCfg[] = {
  { "memory",            1, {2, 0, 0}, 0 },   /* the reference */
  { "file-encrypted",    1, {1, 0, 0}, 0 },
  { "file-plain",        0, {1, 0, 0}, 0 },
  { "memory-threads4",   1, {2, 4, 0}, 0 },
  { "file-enc-threads4", 1, {1, 4, 0}, 0 },
  { "file-plain-thr4",   0, {1, 4, 0}, 0 },
  { "file-enc-page512",  1, {1, 0, 512}, 0 },
  { "file-enc-page64k",  1, {1, 0, 65536}, 0 },
  { "file-enc-tier16k",  1, {1, 0, 0}, 16384 },
  { "file-enc-tier256k", 1, {1, 0, 0}, 262144 },
  { "file-enc-tier-dflt",1, {1, 0, 0}, SQLITE_TEMPCRYPT_DEFAULT_BUDGET },
  { "file-enc-tier16k-t4",1,{1, 4, 0}, 16384 },
};
#define NCFG (int)(sizeof(aCfg)/sizeof(aCfg[0]))

int main(int argc, char **argv){
  int nRow = argc>1 ? atoi(argv[1]) : 1500;
  const char *zBase, *zDb;
  unsigned char *aTpl; long nTpl = 0;
  int i, j, k, rc;
  ProofRun *aRun = calloc((size_t)NCFG, sizeof(ProofRun));
  uint64_t aDbHash[NCFG];
  int nCompared = 0;
  uint64_t aMem[NCFG], aSpill[NCFG];

  memset(aMem, 0, sizeof(aMem));
  memset(aSpill, 0, sizeof(aSpill));

  proof_verify_layout = 1;
  rc = proof_init(argv[0]);
  if( rc || !aRun ){ fprintf(stderr, "proof_init: %d\n", rc); return 2; }
  printf("difftest: %d rows, %d workloads x %d configurations%s\n",
         nRow, proof_nWorkload, NCFG,
         sqlite3_threadsafe() ? "" : " (SQLITE_THREADSAFE=0: threads=4 runs single-threaded)");
  zBase = proof_path(0, "base");
  zDb = proof_path(1, "work");
  aTpl = proof_base_template(zBase, nRow, &nTpl);
  if( !aTpl ) return check_finish("difftest");

  for(i=0; i<proof_nWorkload; i++){
    const ProofWorkload *w = &proof_workloads[i];
    for(j=0; j<NCFG; j++){
      sqlite3 *db;
      proof_remove_db(zDb);
      proof_write_file(zDb, aTpl, nTpl);
      db = proof_open(zDb, &aCfg[j].c);
      CHECK(db!=0, "%s/%s: open", w->zName, aCfg[j].zName);
      if( !db ) continue;
      if( w->zSetup ) sqlite3_exec(db, w->zSetup, 0, 0, 0);
      sqlite3_tempcrypt_set_enabled(aCfg[j].enc);
      sqlite3_tempcrypt_budget(aCfg[j].budget);
      sqlite3_tempcrypt_stats(0, 1);
      proof_run_script(db, w->zScript, &aRun[j], 0);
      aRun[j].finalRc = proof_finish_tx(db);
      aDbHash[j] = proof_db_hash(db);
      CHECK(proof_integrity_ok(db), "%s/%s: integrity_check", w->zName, aCfg[j].zName);
      CHECK(sqlite3_close(db)==SQLITE_OK, "%s/%s: close", w->zName, aCfg[j].zName);
      {
        struct sqlite3_tempcrypt_stats st;
        sqlite3_tempcrypt_stats(&st, 0);
        aMem[j] += st.nMemPeak;
        aSpill[j] += st.nSpilled;
        CHECK(st.nMemBytes==0, "%s/%s: the tier holds %llu bytes after close", w->zName,
              aCfg[j].zName, (unsigned long long)st.nMemBytes);
      }
      sqlite3_tempcrypt_set_enabled(1);
      sqlite3_tempcrypt_budget(0);
    }
    for(j=1; j<NCFG; j++){
      CHECK(aRun[j].nStmt==aRun[0].nStmt, "%s/%s: statement count", w->zName, aCfg[j].zName);
      for(k=0; k<aRun[0].nStmt && k<aRun[j].nStmt; k++){
        CHECK(aRun[j].aRc[k]==aRun[0].aRc[k] && aRun[j].aHash[k]==aRun[0].aHash[k]
              && aRun[j].aRows[k]==aRun[0].aRows[k],
              "%s/%s: statement %d differs from temp_store=MEMORY: rc %d/%d rows %lld/%lld",
              w->zName, aCfg[j].zName, k+1, aRun[j].aRc[k], aRun[0].aRc[k],
              (long long)aRun[j].aRows[k], (long long)aRun[0].aRows[k]);
        nCompared++;
      }
      CHECK(aDbHash[j]!=0 && aDbHash[j]==aDbHash[0], "%s/%s: final database differs",
            w->zName, aCfg[j].zName);
    }
    /* The workload itself must do what it says (only the statement
    ** journal workload ends a statement with a constraint error). */
    for(k=0; k<aRun[0].nStmt; k++){
      int exp = strcmp(w->zName, "stmt-journal")==0 && k==2 ? SQLITE_CONSTRAINT : SQLITE_OK;
      CHECK(aRun[0].aRc[k]==exp, "%s: statement %d rc=%d, expected %d",
            w->zName, k+1, aRun[0].aRc[k], exp);
    }
  }
  printf("difftest: %d statement results compared against temp_store=MEMORY\n", nCompared);
  /* Each tier configuration did what its name says over the workloads. */
  for(j=0; j<NCFG; j++){
    if( aCfg[j].budget==0 ) continue;
    printf("difftest: %-20s memory peaks summed %llu bytes, %llu bytes spilled\n",
           aCfg[j].zName, (unsigned long long)aMem[j], (unsigned long long)aSpill[j]);
    CHECK(aMem[j]>0, "%s: the tier never held data", aCfg[j].zName);
    if( aCfg[j].budget<=16384 ){
      CHECK(aSpill[j]>0, "%s: nothing spilled", aCfg[j].zName);
    }
  }
  proof_check_below("difftest", 1);
  free(aTpl); free(aRun);
  proof_remove_db(zBase);
  proof_remove_db(zDb);
  return check_finish("difftest");
}
