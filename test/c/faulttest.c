/*
** Fault injection at every position.  For each workload (single-threaded
** ones: the multi-threaded sorter makes positions non-deterministic) and
** each fault mode
**   write-nth        the Nth write to a temp file fails
**   half-write-nth   the Nth write stores only its first half, then fails
**   write-from-nth   the Nth and every later temp-file write fails
**   read-nth         the Nth read from a temp file fails (buffer garbage)
**   truncate-nth     the Nth truncate of a temp file fails
**   malloc-nth       the Nth SQLite memory allocation fails
**   open-nth         the Nth temp-file open below tempcrypt fails
** and every N from 1 to the number of such operations in a fault-free run
** (faults are injected below tempcrypt, on the ciphertext side), check:
**   - each statement either gives exactly the fault-free result or an
**     error (never other data; an expected error stays an error);
**   - PRAGMA integrity_check is ok afterwards;
**   - the database is exactly in the state before or after the workload.
**
**   faulttest [-stride K] [-rows N] [-budget B] [workload ...]
** -stride K tries every Kth position only (for slow sanitizer runs); the
** default is every position.  -budget B runs with the memory tier at B
** bytes (default 0: no tier); with a small B the temp files spill
** part-way, so the faults hit the lower file's lazy open, the first
** writes below, and the tier's allocations (malloc-nth).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proof.h"
#include "tempcrypt.h"

static const char *gzDb;
static int64_t gBudget = 0;    /* -budget: the memory tier's */
static unsigned char *gaTpl; static long gnTpl;

/* Fresh copy of the workload's starting database, connection opened. */
static sqlite3 *freshDb(const ProofWorkload *w){
  sqlite3 *db;
  ProofCfg cfg = {1, 0, 0};
  proof_remove_db(gzDb);
  if( proof_write_file(gzDb, gaTpl, gnTpl) ) return 0;
  db = proof_open(gzDb, &cfg);
  if( db && w->zSetup && sqlite3_exec(db, w->zSetup, 0, 0, 0) ){
    sqlite3_close(db);
    return 0;
  }
  return db;
}

/* Reopen the database and return its hash; 0 if not intact. */
static uint64_t checkDb(const char *zWhat, int *pIntegrity){
  sqlite3 *db = proof_open(gzDb, 0);
  uint64_t h = 0;
  *pIntegrity = 0;
  if( !db ){ fprintf(stderr, "%s: cannot reopen\n", zWhat); return 0; }
  *pIntegrity = proof_integrity_ok(db);
  h = proof_db_hash(db);
  sqlite3_close(db);
  return h;
}

/* The temp database's state after each statement of the fault-free run
** (and before the first): after a fault it must be one of them. */
typedef struct States { int n; uint64_t a[PROOF_MAXSTMT+2]; } States;
static void afterStmt(sqlite3 *db, int i, void *pArg){
  States *p = (States*)pArg;
  if( i+1<PROOF_MAXSTMT+2 ){
    p->a[i+1] = proof_schema_hash(db, "temp");
    if( p->n<i+2 ) p->n = i+2;
  }
}
static int inStates(const States *p, uint64_t h){
  int i;
  for(i=0; i<p->n; i++) if( p->a[i]==h ) return 1;
  return 0;
}

typedef struct Totals { int64_t nRun, nFired, nErr, nSame; } Totals;

static void runWorkload(const ProofWorkload *w, int stride, Totals *pTot){
  ProofRun ref, run;
  ProofCounts cnt;
  sqlite3 *db;
  uint64_t hPre, hPost;
  int integ, mode, k;
  int64_t aMax[PF_NMODE];
  States states;
  Totals tot; memset(&tot, 0, sizeof(tot));

  /* State before: the template plus setup. */
  db = freshDb(w);
  CHECK(db!=0, "%s: setup", w->zName);
  if( !db ) return;
  hPre = proof_db_hash(db);
  /* Fault-free reference run, counting operations. */
  proof_fault_arm(PF_NONE, 0);
  sqlite3_tempcrypt_stats(0, 1);
  proof_run_script(db, w->zScript, &ref, 0);
  proof_fault_counts(&cnt);
  proof_fault_disarm();
  if( gBudget>0 ){
    /* With a tier, the temp files must spill part-way, or the faults
    ** below would miss the spill. */
    struct sqlite3_tempcrypt_stats st;
    sqlite3_tempcrypt_stats(&st, 0);
    CHECK(st.nMemPeak>0 && st.nSpilled>0, "%s: budget %lld: memory peak %llu, %llu bytes "
          "spilled: not part-way", w->zName, (long long)gBudget,
          (unsigned long long)st.nMemPeak, (unsigned long long)st.nSpilled);
  }
  ref.finalRc = proof_finish_tx(db);
  CHECK(sqlite3_close(db)==SQLITE_OK, "%s: close", w->zName);
  hPost = checkDb(w->zName, &integ);
  CHECK(integ && hPost, "%s: reference run not intact", w->zName);
  CHECK(cnt.nWrite>0, "%s: fault-free run wrote no temp file", w->zName);
  /* Second fault-free run, for the temp database's states. */
  memset(&states, 0, sizeof(states));
  db = freshDb(w);
  if( db ){
    ProofRun r2;
    states.a[0] = proof_schema_hash(db, "temp");
    states.n = 1;
    proof_after_stmt = afterStmt; proof_after_arg = &states;
    proof_run_script(db, w->zScript, &r2, 0);
    proof_after_stmt = 0; proof_after_arg = 0;
    proof_finish_tx(db);
    if( states.n<PROOF_MAXSTMT+2 ) states.a[states.n++] = proof_schema_hash(db, "temp");
    sqlite3_close(db);
  }
  for(k=0; k<states.n; k++) CHECK(states.a[k]!=0, "%s: temp state %d unreadable", w->zName, k);
  memset(aMax, 0, sizeof(aMax));
  aMax[PF_WRITE_NTH] = aMax[PF_HALF_WRITE_NTH] = aMax[PF_WRITE_FROM_NTH] = cnt.nWrite;
  aMax[PF_READ_NTH] = cnt.nRead;
  aMax[PF_TRUNC_NTH] = cnt.nTrunc;
  aMax[PF_MALLOC_NTH] = cnt.nMalloc;
  aMax[PF_OPEN_NTH] = cnt.nOpen;

  /* A broken build can loop through huge numbers of I/O calls: give up
  ** on the workload rather than try every one of them. */
  if( cnt.nWrite>20000 || cnt.nRead>20000 || cnt.nMalloc>200000 ){
    CHECK(0, "%s: fault-free run made %lld writes, %lld reads, %lld mallocs: runaway",
          w->zName, (long long)cnt.nWrite, (long long)cnt.nRead, (long long)cnt.nMalloc);
    return;
  }
  printf("%-18s writes %4lld reads %4lld truncates %3lld mallocs %6lld opens %2lld",
         w->zName, (long long)cnt.nWrite, (long long)cnt.nRead,
         (long long)cnt.nTrunc, (long long)cnt.nMalloc, (long long)cnt.nOpen);
  fflush(stdout);

  for(mode=PF_WRITE_NTH; mode<PF_NMODE; mode++){
    int64_t n;
    for(n=1; n<=aMax[mode]; n+=(mode==PF_MALLOC_NTH ? stride : (stride>1 ? (stride+3)/4 : 1))){
      char zWhat[96];
      uint64_t h;
      int bad = 0, sawErr = 0;
      snprintf(zWhat, sizeof(zWhat), "%s %s N=%lld", w->zName, proof_fault_name[mode], (long long)n);
      db = freshDb(w);
      if( !db ){ CHECK(0, "%s: setup", zWhat); continue; }
      proof_fault_arm(mode, n);
      proof_run_script(db, w->zScript, &run, &ref);
      proof_fault_counts(&cnt);
      proof_fault_disarm();
      /* A careful application rolls back what it cannot finish. */
      if( !sqlite3_get_autocommit(db) ) sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
      /* The temp database lives in encrypted files: still on the same
      ** connection, it must be intact and in one of its reference states. */
      {
        uint64_t hT = proof_schema_hash(db, "temp");
        CHECK(proof_schema_integrity_ok(db, "temp"), "%s: temp integrity_check failed", zWhat);
        CHECK(hT!=0 && inStates(&states, hT),
              "%s: temp database %s", zWhat, hT ? "in a state the fault-free run never had" : "unreadable");
      }
      CHECK(sqlite3_close(db)==SQLITE_OK, "%s: close", zWhat);
      tot.nRun++;
      if( cnt.nFired ) tot.nFired++;
      for(k=0; k<run.nStmt; k++){
        if( run.aRc[k]==ref.aRc[k] ){
          if( run.aHash[k]!=ref.aHash[k] || run.aRows[k]!=ref.aRows[k] ){
            CHECK(0, "%s: WRONG DATA without error in statement %d (%lld rows, expected %lld)",
                  zWhat, k+1, (long long)run.aRows[k], (long long)ref.aRows[k]);
            bad = 1;
          }
        }else{
          sawErr = 1;
          if( run.aRc[k]==SQLITE_OK ){
            CHECK(0, "%s: statement %d succeeded where the fault-free run got error %d",
                  zWhat, k+1, ref.aRc[k]);
            bad = 1;
          }
        }
      }
      if( sawErr ) tot.nErr++; else tot.nSame++;
      if( !sawErr && cnt.nFired && getenv("PROOF_VERBOSE") ) printf("\n  unaffected: %s", zWhat);
      h = checkDb(zWhat, &integ);
      CHECK(integ, "%s: integrity_check failed", zWhat);
      CHECK(h==hPre || h==hPost, "%s: database neither in the before nor the after state", zWhat);
      if( !bad ) check_nPass++;
    }
  }
  printf("  -> %lld runs, %lld fired, %lld errored, %lld unaffected\n",
         (long long)tot.nRun, (long long)tot.nFired, (long long)tot.nErr, (long long)tot.nSame);
  pTot->nRun += tot.nRun; pTot->nFired += tot.nFired;
  pTot->nErr += tot.nErr; pTot->nSame += tot.nSame;
}

int main(int argc, char **argv){
  int stride = 1, nRow = 250, i, j, rc, nSel = 0, nWl = 0;
  const char *azSel[64];
  const char *zBase;
  Totals tot; memset(&tot, 0, sizeof(tot));
  for(i=1; i<argc; i++){
    if( strcmp(argv[i], "-stride")==0 && i+1<argc ) stride = atoi(argv[++i]);
    else if( strcmp(argv[i], "-rows")==0 && i+1<argc ) nRow = atoi(argv[++i]);
    else if( strcmp(argv[i], "-budget")==0 && i+1<argc ) gBudget = atoll(argv[++i]);
    else if( nSel<64 ) azSel[nSel++] = argv[i];
  }
  if( stride<1 ) stride = 1;
  rc = proof_init(argv[0]);
  if( rc ){ fprintf(stderr, "proof_init: %d\n", rc); return 2; }
  zBase = proof_path(0, "base");
  gzDb = proof_path(1, "work");
  gaTpl = proof_base_template(zBase, nRow, &gnTpl);
  if( !gaTpl ) return check_finish("faulttest");
  sqlite3_tempcrypt_budget(gBudget);
  printf("faulttest: %d rows, %s, memory tier budget %lld\n", nRow,
         stride==1 ? "every position" : "strided positions", (long long)gBudget);
  for(i=0; i<proof_nWorkload; i++){
    const ProofWorkload *w = &proof_workloads[i];
    if( w->threads ) continue;
    if( nSel ){
      for(j=0; j<nSel && strcmp(azSel[j], w->zName); j++){}
      if( j==nSel ) continue;
    }
    runWorkload(w, stride, &tot);
    nWl++;
  }
  printf("faulttest: %d workloads, %lld fault runs (%lld with the fault fired),"
         " %lld ended in an error, %lld unaffected\n", nWl,
         (long long)tot.nRun, (long long)tot.nFired, (long long)tot.nErr, (long long)tot.nSame);
  CHECK(nSel>0 || nWl>=10, "only %d workloads", nWl);
  proof_check_below("faulttest", 0);
  free(gaTpl);
  proof_remove_db(zBase);
  proof_remove_db(gzDb);
  return check_finish("faulttest");
}
