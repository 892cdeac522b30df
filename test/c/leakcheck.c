/*
** Plaintext leak check.  A spy VFS under tempcrypt scans every write to
** every file (and each temp file's whole content when it is closed) for a
** marker string built at run time.  Every workload runs twice, with
** tempcrypt disabled and enabled, with PRAGMA temp_store=FILE and small
** caches so that temporary data really reaches the files.
**
** Asserts: with encryption off every workload leaks the marker into a
** temp file (so the check can see a leak); with it on none does, every
** temp file was encrypted, and the bytes written look random (Shannon
** entropy > 7.9 bits/byte).  "On" runs twice: without the memory tier
** (budget 0: every temp file below from its first byte) and with a budget
** so small (TIER_BUDGET) that the workload's temp files spill part-way:
** the tier must have held data and sent data down, and what went down is
** held to the same checks.  Prints the report table.
**
**   leakcheck [-q]        -q: no table, only failures and the summary
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proof.h"
#include "tempcrypt.h"

#define NROW 400
#define TIER_BUDGET 16384
#define MIN_ENTROPY 7.9
#define ENTROPY_MIN_BYTES 16384

typedef struct Tally {
  int nFile, nEnc;
  int64_t nByte, nHit;
  unsigned kinds;          /* open-flag kinds of the files with hits */
  unsigned allKinds;       /* open-flag kinds of all temp files */
  uint64_t aHist[256];     /* bytes written to encrypted temp files */
} Tally;

static unsigned kindBit(int flags){
  if( flags & SQLITE_OPEN_MAIN_DB ) return 1;
  if( flags & SQLITE_OPEN_TEMP_DB ) return 2;
  if( flags & SQLITE_OPEN_TRANSIENT_DB ) return 4;
  if( flags & SQLITE_OPEN_SUBJOURNAL ) return 8;
  if( flags & SQLITE_OPEN_TEMP_JOURNAL ) return 16;
  if( flags & SQLITE_OPEN_MAIN_JOURNAL ) return 32;
  return 64;
}
static const char *kindStr(unsigned k, char *z){
  static const char cKind[] = "MDTSJjo";  /* main_db temp_db transient subj
                                           ** temp_jrnl main_jrnl other */
  int i, n = 0;
  for(i=0; i<7; i++) if( k & (1u<<i) ) z[n++] = cKind[i];
  if( n==0 ) z[n++] = '-';
  z[n] = 0;
  return z;
}

static void tally(Tally *t){
  int i, j, n = proof_files_count();
  memset(t, 0, sizeof(*t));
  for(i=0; i<n; i++){
    ProofFile *f = proof_file(i);
    if( !f->isTemp ) continue;
    t->nFile++;
    t->nByte += f->nByte;
    t->nHit += f->nHit + f->nDiskHit;
    t->allKinds |= kindBit(f->flags);
    if( f->nHit + f->nDiskHit ) t->kinds |= kindBit(f->flags);
    if( f->encrypted ){
      t->nEnc++;
      for(j=0; j<256; j++) t->aHist[j] += f->aHist[j];
    }
  }
}

/* The tier's statistics of the last runOne. */
static struct sqlite3_tempcrypt_stats gSt;

static int runOne(const char *zDb, const unsigned char *aTpl, long nTpl,
                  const ProofWorkload *w, int enc, int64_t budget, Tally *t){
  sqlite3 *db;
  ProofCfg cfg = {1, 0, 0};
  ProofRun run;
  int i, nErr = 0;
  proof_remove_db(zDb);
  if( proof_write_file(zDb, aTpl, nTpl) ) return -1;
  db = proof_open(zDb, &cfg);
  if( !db ) return -1;
  if( w->zSetup && sqlite3_exec(db, w->zSetup, 0, 0, 0) ){ sqlite3_close(db); return -1; }
  sqlite3_tempcrypt_set_enabled(enc);
  sqlite3_tempcrypt_budget(budget);
  proof_files_reset();
  sqlite3_tempcrypt_stats(0, 1);
  proof_run_script(db, w->zScript, &run, 0);
  proof_finish_tx(db);
  for(i=0; i<run.nStmt; i++){
    /* The statement-journal workload fails on purpose (constraint). */
    if( run.aRc[i] && run.aRc[i]!=SQLITE_CONSTRAINT ) nErr++;
  }
  if( sqlite3_close(db)!=SQLITE_OK ) nErr++;
  sqlite3_tempcrypt_stats(&gSt, 0);
  sqlite3_tempcrypt_set_enabled(1);
  sqlite3_tempcrypt_budget(0);
  tally(t);
  return nErr;
}

/* Every workload twice, encryption off then on: off, the marker must
** reach temp files (so the workload tests something); on, no temp file
** may hold it, every temp file is encrypted and its bytes look random. */
static void test_workloads(const char *zDb, const unsigned char *aTpl, long nTpl, int quiet){
  int i;
  Tally off, on, tier;
  uint64_t aAll[256];
  char zk1[16], zk2[16];
  char azTier[64][96];

  memset(aAll, 0, sizeof(aAll));
  if( !quiet ){
    printf("Plaintext leak check: %d rows, PRAGMA temp_store=FILE, cache_size=8, marker built at run time\n", NROW);
    printf("kinds of temp files with hits: D temp_db (TEMP, VACUUM, ATTACH ''), T transient_db,\n"
           "  S subjournal/statement journal, J temp_journal (sorter, temp db journal), M main_db\n\n");
    printf("%-18s | %-28s | %-36s\n", "", "tempcrypt disabled", "tempcrypt enabled");
    printf("%-18s | %5s %9s %5s %-5s | %5s %9s %5s %4s %-7s\n",
      "workload", "files", "bytes", "hits", "kinds", "files", "bytes", "hits", "enc", "entropy");
    printf("-------------------+------------------------------+--------------------------------------\n");
  }
  for(i=0; i<proof_nWorkload; i++){
    const ProofWorkload *w = &proof_workloads[i];
    double ent; uint64_t nEntBytes; int j;
    int e1 = runOne(zDb, aTpl, nTpl, w, 0, 0, &off);
    int e3 = runOne(zDb, aTpl, nTpl, w, 1, TIER_BUDGET, &tier);
    struct sqlite3_tempcrypt_stats stTier = gSt;
    int e2 = runOne(zDb, aTpl, nTpl, w, 1, 0, &on);
    CHECK(e1==0, "%s: errors with encryption off (%d)", w->zName, e1);
    CHECK(e2==0, "%s: errors with encryption on (%d)", w->zName, e2);
    CHECK(e3==0, "%s: errors with encryption on and the memory tier (%d)", w->zName, e3);
    /* The tier run: part in memory, part below, and below as safe as ever. */
    CHECK(stTier.nMemPeak>0 && stTier.nSpilled>0 && tier.nFile>0,
          "%s: budget %d: the temp files did not spill part-way (memory peak %llu, "
          "spilled %llu bytes, %d files below)", w->zName, TIER_BUDGET,
          (unsigned long long)stTier.nMemPeak, (unsigned long long)stTier.nSpilled, tier.nFile);
    CHECK(stTier.nMemPeak<=TIER_BUDGET && stTier.nMemBytes==0,
          "%s: the tier held %llu bytes at most (budget %d), %llu after close", w->zName,
          (unsigned long long)stTier.nMemPeak, TIER_BUDGET, (unsigned long long)stTier.nMemBytes);
    CHECK(tier.nHit==0, "%s: LEAK with the memory tier: %lld marker hits below tempcrypt (kinds %s)",
          w->zName, (long long)tier.nHit, kindStr(tier.kinds, zk1));
#ifdef SQLITE_TEMPCRYPT_TESTING
    CHECK(tier.nEnc==tier.nFile, "%s: with the memory tier, %d of %d temp files not encrypted",
          w->zName, tier.nFile-tier.nEnc, tier.nFile);
#endif
    {
      uint64_t nTierBytes; double entTier = proof_entropy(tier.aHist, &nTierBytes);
      if( nTierBytes>=ENTROPY_MIN_BYTES ){
        CHECK(entTier>MIN_ENTROPY, "%s: entropy below the memory tier %.4f <= %.1f",
              w->zName, entTier, MIN_ENTROPY);
      }
      if( i<64 ){
        snprintf(azTier[i], sizeof(azTier[i]), "%-18s | %5d %9lld %5lld %4d %9llu %9llu",
                 w->zName, tier.nFile, (long long)tier.nByte, (long long)tier.nHit, tier.nEnc,
                 (unsigned long long)stTier.nMemPeak, (unsigned long long)stTier.nSpilled);
      }
    }
    ent = proof_entropy(on.aHist, &nEntBytes);
    for(j=0; j<256; j++) aAll[j] += on.aHist[j];
    if( !quiet ){
      char zEnt[16];
      if( nEntBytes>=ENTROPY_MIN_BYTES ) snprintf(zEnt, sizeof(zEnt), "%.4f", ent);
      else snprintf(zEnt, sizeof(zEnt), "(%.2f)", ent);
      printf("%-18s | %5d %9lld %5lld %-5s | %5d %9lld %5lld %4d %-7s\n",
        w->zName, off.nFile, (long long)off.nByte, (long long)off.nHit,
        kindStr(off.kinds, zk1),
        on.nFile, (long long)on.nByte, (long long)on.nHit, on.nEnc, zEnt);
    }
    (void)zk2;
    CHECK(off.nFile>0 && off.nHit>0,
          "%s: no plaintext marker in temp files with encryption OFF "
          "(files=%d, hits=%lld): the workload does not reach a temp file",
          w->zName, off.nFile, (long long)off.nHit);
    CHECK(on.nFile>0, "%s: no temp file with encryption on", w->zName);
    CHECK(on.nHit==0, "%s: LEAK: %lld marker hits in temp files with encryption ON (kinds %s)",
          w->zName, (long long)on.nHit, kindStr(on.kinds, zk1));
#ifdef SQLITE_TEMPCRYPT_TESTING
    CHECK(on.nEnc==on.nFile, "%s: %d of %d temp files not encrypted (kinds %s)",
          w->zName, on.nFile-on.nEnc, on.nFile, kindStr(on.allKinds, zk1));
#endif
    if( nEntBytes>=ENTROPY_MIN_BYTES ){
      CHECK(ent>MIN_ENTROPY, "%s: entropy of encrypted temp files %.4f <= %.1f",
            w->zName, ent, MIN_ENTROPY);
    }
  }
  if( !quiet ){
    printf("\nWith the memory tier, budget %d bytes: temp files below tempcrypt (files,\n"
           "bytes, marker hits, encrypted), the most the tier held, bytes SQLite wrote that spilled\n\n",
           TIER_BUDGET);
    printf("%-18s | %5s %9s %5s %4s %9s %9s\n", "workload", "files", "bytes", "hits", "enc",
           "mem peak", "spilled");
    printf("-------------------+-----------------------------------------------\n");
    for(i=0; i<proof_nWorkload && i<64; i++) printf("%s\n", azTier[i]);
  }
  {
    uint64_t n; double ent = proof_entropy(aAll, &n);
    if( !quiet ) printf("\nall encrypted temp-file bytes: %llu, entropy %.4f bits/byte\n",
                        (unsigned long long)n, ent);
#ifdef SQLITE_TEMPCRYPT_TESTING
    CHECK(n>=ENTROPY_MIN_BYTES && ent>MIN_ENTROPY, "overall entropy %.4f over %llu bytes",
          ent, (unsigned long long)n);
#endif
  }
}

int main(int argc, char **argv){
  int quiet = argc>1 && strcmp(argv[1], "-q")==0;
  const char *zBase, *zDb;
  unsigned char *aTpl;
  long nTpl = 0;
  int i, rc;
  int64_t nNamedHit = 0;

  proof_verify_layout = 1;
  rc = proof_init(argv[0]);
  if( rc ){ fprintf(stderr, "proof_init: %d\n", rc); return 2; }
  zBase = proof_path(0, "base");
  zDb = proof_path(1, "work");
  proof_files_reset();
  rc = proof_make_base(zBase, NROW);
  CHECK(rc==SQLITE_OK, "cannot build base database: %d", rc);
  if( rc ) return check_finish("leakcheck");
  for(i=0; i<proof_files_count(); i++){
    if( !proof_file(i)->isTemp ) nNamedHit += proof_file(i)->nHit;
  }
  /* The spy must see the marker where it is meant to be: in the
  ** database file itself, which tempcrypt leaves alone. */
  CHECK(nNamedHit>0, "spy saw no marker in the (plaintext) main database");
  aTpl = proof_read_file(zBase, &nTpl);
  CHECK(aTpl!=0, "cannot read %s", zBase);
  if( !aTpl ) return check_finish("leakcheck");

  test_workloads(zDb, aTpl, nTpl, quiet);
  proof_check_below("leakcheck", 1);
  free(aTpl);
  proof_remove_db(zBase);
  proof_remove_db(zDb);
  return check_finish("leakcheck");
}
