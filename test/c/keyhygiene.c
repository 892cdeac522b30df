/*
** Key hygiene.
**
** 1. Keys do not outlive their files.  The test learns every temp file's
**    key through the test-only key hook.  SQLite's allocator is the test
**    allocator of proof.c with quarantine on: freed blocks are kept with
**    their contents, so a key that was freed without being wiped stays
**    visible.  While a temp database is open its key must be found (the
**    scan sees where keys live); after the connection closes, no block,
**    live or freed, holds any key or any 8-byte quarter of one.
**
**    The same runs again with the memory tier, with a budget so small that
**    files spill part-way (TIER_SMALL) and so large that they stay in
**    memory (TIER_LARGE): no key of a file that spilled or stayed in
**    memory survives either, and every memory block the tier allocated
**    (the test-only block hook reports each) is all zeros once freed,
**    while the scan does find data in them as long as their file is open.
**
** 2. No key, no file.  With the entropy source failing (test entropy hook)
**    a statement that needs a temp file fails with an error, no temp file
**    is created below tempcrypt and not a byte is written, and the
**    database is unchanged and intact; with and without the memory tier
**    (the key is made at open either way).  With entropy back, the same
**    statements succeed.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proof.h"
#include "tempcrypt.h"

#ifndef SQLITE_TEMPCRYPT_TESTING
# error keyhygiene needs the test build (-DSQLITE_TEMPCRYPT_TESTING)
#endif

#define MAXKEY 8192
#define TIER_SMALL  (16*1024)       /* files spill part-way */
#define TIER_LARGE  (64*1024*1024)  /* files stay in memory */
static unsigned char aKeys[MAXKEY][32];
static int nKey = 0;

/* The memory tier's blocks (test-only block hook): address and size. */
typedef struct Blk { const unsigned char *p; int n; } Blk;
static Blk *aBlk = 0;
static int nBlk = 0, nBlkAlloc = 0;
static void observeBlock(void *pArg, const void *p, int n){
  (void)pArg;
  if( nBlk>=nBlkAlloc ){
    nBlkAlloc = nBlkAlloc ? 2*nBlkAlloc : 1024;
    aBlk = realloc(aBlk, sizeof(Blk)*(size_t)nBlkAlloc);
  }
  aBlk[nBlk].p = (const unsigned char*)p;
  aBlk[nBlk].n = n;
  nBlk++;
}
/* Blocks from iFirst on that hold any byte other than zero. */
static int dirtyBlocks(int iFirst){
  int i, j, nDirty = 0;
  for(i=iFirst; i<nBlk; i++){
    for(j=0; j<aBlk[i].n && aBlk[i].p[j]==0; j++){}
    if( j<aBlk[i].n ) nDirty++;
  }
  return nDirty;
}
static void observe(const unsigned char *aKey, int flags){
  (void)flags;
  if( nKey<MAXKEY ) memcpy(aKeys[nKey++], aKey, 32);
}

static int nEntropyCalls = 0;
static int failingEntropy(void *p, size_t n){
  (void)p; (void)n;
  nEntropyCalls++;
  return -1;
}

/* Scan for all keys from iFirst on; returns blocks with a full key, adds
** blocks with a key quarter to *pnPart. */
static int scanKeys(int iFirst, int *pnPart){
  int i, nHit = 0, nPart = 0;
  for(i=iFirst; i<nKey; i++){
    int p = 0;
    nHit += proof_mem_scan(aKeys[i], 32, &p);
    nPart += p;
  }
  *pnPart = nPart;
  return nHit;
}

static void tempFiles(int *pnFile, int64_t *pnByte){
  int i; *pnFile = 0; *pnByte = 0;
  for(i=0; i<proof_files_count(); i++){
    if( proof_file(i)->isTemp ){ (*pnFile)++; *pnByte += proof_file(i)->nByte; }
  }
}

/* The base database's bytes, copied to zDb before each run. */
static unsigned char *aTpl; static long nTpl = 0;
static const char *zDb;
static ProofCfg cfg = {1, 0, 0};

/* No key survives its file: after close, no block of SQLite's memory,
** live or freed, holds a key or a quarter of one. */
static void test_keys_wiped(int64_t budget){
  sqlite3 *db;
  ProofRun run;
  int i, nHit, nPart;
  static const char *azWl[] = {
    "temp-table+index", "order-by", "distinct", "vacuum", "stmt-journal",
    "savepoint", "attach-anon", "overflow", "window", "create-index"
  };
  proof_mem_quarantine(1);
  sqlite3_tempcrypt_budget(budget);
  for(i=0; i<(int)(sizeof(azWl)/sizeof(azWl[0])); i++){
    const ProofWorkload *w = 0;
    int j, iFirst = nKey, iFirstBlk = nBlk, nDirty;
    struct sqlite3_tempcrypt_stats st;
    for(j=0; j<proof_nWorkload; j++){
      if( strcmp(proof_workloads[j].zName, azWl[i])==0 ) w = &proof_workloads[j];
    }
    if( !w ){ CHECK(0, "no workload %s", azWl[i]); continue; }
    proof_remove_db(zDb);
    proof_write_file(zDb, aTpl, nTpl);
    db = proof_open(zDb, &cfg);
    CHECK(db!=0, "%s: open", w->zName);
    if( !db ) continue;
    if( w->zSetup ) sqlite3_exec(db, w->zSetup, 0, 0, 0);
    sqlite3_tempcrypt_stats(0, 1);
    proof_run_script(db, w->zScript, &run, 0);
    proof_finish_tx(db);
    CHECK(nKey>iFirst, "%s: no temp file key reported", w->zName);
    if( strcmp(w->zName, "temp-table+index")==0 ){
      /* Positive control: the temp database is still open, so its key is
      ** in memory the scan covers; with the tier, so is its data. */
      nHit = scanKeys(iFirst, &nPart);
      CHECK(nHit>0, "control: the key of an open temp database was not found "
                    "in SQLite's memory: the scan cannot see keys");
      if( budget>0 ){
        CHECK(dirtyBlocks(iFirstBlk)>0, "control: no memory block of the open temp database "
              "holds data: the block scan cannot see data");
      }
    }
    CHECK(sqlite3_close(db)==SQLITE_OK, "%s: close", w->zName);
    sqlite3_tempcrypt_stats(&st, 0);
    nHit = scanKeys(iFirst, &nPart);
    CHECK(nHit==0 && nPart==0,
          "%s: after close, %d blocks hold a whole key and %d a key quarter",
          w->zName, nHit, nPart);
    nDirty = dirtyBlocks(iFirstBlk);
    CHECK(nDirty==0, "%s: after close, %d of the memory tier's %d blocks were freed unwiped",
          w->zName, nDirty, nBlk-iFirstBlk);
    if( budget==TIER_SMALL ){
      CHECK(nBlk>iFirstBlk && st.nSpilled>0, "%s: budget %lld: %d memory blocks, %llu bytes "
            "spilled: not part-way", w->zName, (long long)budget, nBlk-iFirstBlk,
            (unsigned long long)st.nSpilled);
    }else if( budget==TIER_LARGE ){
      CHECK(nBlk>iFirstBlk && st.nFileSpilled==0, "%s: budget %lld: %d memory blocks, %llu files "
            "below: not all in memory", w->zName, (long long)budget, nBlk-iFirstBlk,
            (unsigned long long)st.nFileSpilled);
    }else{
      CHECK(nBlk==iFirstBlk, "%s: budget 0, yet %d memory blocks", w->zName, nBlk-iFirstBlk);
    }
    printf("%-18s budget %6lld: %3d keys, %4d memory blocks, %lld blocks scanned (live and freed): %s\n",
           w->zName, (long long)budget, nKey-iFirst, nBlk-iFirstBlk, (long long)proof_mem_blocks(),
           nHit||nPart||nDirty ? "KEY OR DATA FOUND" : "no key or data left");
  }
  sqlite3_tempcrypt_budget(0);
  proof_mem_quarantine(0);
  proof_mem_release_quarantine();
}

/* Entropy failure: no file, no write, an error; and the same statements
** work once the entropy is back. */
static void test_no_entropy(int64_t budget){
  sqlite3 *db;
  ProofRun run;
  int i;
  static const char *azSql[] = {
    "SELECT a, b FROM t ORDER BY b",
    "CREATE INDEX tx ON t(b, a)",
    "VACUUM",
    "CREATE TEMP TABLE tt AS SELECT * FROM t",
    ("BEGIN; UPDATE u SET s=s||'x'; UPDATE u SET s = mk()||s, "
     "k = CASE WHEN id=(SELECT max(id) FROM u) THEN 1 ELSE k END; COMMIT"),
  };
  int nFile; int64_t nByte;
  ProofRun allOk;
  memset(&allOk, 0, sizeof(allOk));
  allOk.nStmt = PROOF_MAXSTMT;
  for(i=0; i<(int)(sizeof(azSql)/sizeof(azSql[0])); i++){
    uint64_t hPre, hPost;
    int k, anyErr = 0, nKeyBefore;
    proof_remove_db(zDb);
    proof_write_file(zDb, aTpl, nTpl);
    db = proof_open(zDb, &cfg);
    CHECK(db!=0, "open");
    if( !db ) continue;
    hPre = proof_db_hash(db);
    proof_files_reset();
    nEntropyCalls = 0;
    nKeyBefore = nKey;
    sqlite3_tempcrypt_budget(budget);
    sqlite3_tempcrypt_test_entropy(failingEntropy);
    /* Stop at the first error, then roll back, as an application would. */
    proof_run_script(db, azSql[i], &run, &allOk);
    sqlite3_tempcrypt_test_entropy(0);
    if( !sqlite3_get_autocommit(db) ) sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
    for(k=0; k<run.nStmt; k++) if( run.aRc[k] && run.aRc[k]!=SQLITE_CONSTRAINT ) anyErr = 1;
    tempFiles(&nFile, &nByte);
    CHECK(nEntropyCalls>0, "[%s] entropy source never asked", azSql[i]);
    CHECK(anyErr, "[%s] succeeded without a key", azSql[i]);
    CHECK(nByte==0, "[%s] %lld bytes written to temp files without a key",
          azSql[i], (long long)nByte);
    CHECK(nFile==0, "[%s] %d temp files created below tempcrypt without a key",
          azSql[i], nFile);
    CHECK(nKey==nKeyBefore, "[%s] a key was reported without entropy", azSql[i]);
    hPost = proof_db_hash(db);
    CHECK(hPost!=0 && hPost==hPre, "[%s] database changed", azSql[i]);
    CHECK(proof_integrity_ok(db), "[%s] integrity_check", azSql[i]);
    printf("no entropy, budget %6lld: %-40.40s -> %s, %d temp files, %lld bytes\n",
           (long long)budget, azSql[i], anyErr ? "error" : "SUCCEEDED", nFile, (long long)nByte);
    /* Entropy back: the same statements work. */
    proof_run_script(db, azSql[i], &run, 0);
    proof_finish_tx(db);
    for(k=0; k<run.nStmt; k++){
      CHECK(run.aRc[k]==SQLITE_OK || run.aRc[k]==SQLITE_CONSTRAINT,
            "[%s] fails even with entropy: %d", azSql[i], run.aRc[k]);
    }
    CHECK(sqlite3_close(db)==SQLITE_OK, "close");
  }
  sqlite3_tempcrypt_budget(0);
}

/* The page buffer the shim decrypts a TEMP database's freelist trunk into,
** at a commit that gives free pages back, is wiped before it is freed: a
** trunk page keeps rows of the dropped table past its page numbers. */
static void test_trunk_page_wiped(void){
  sqlite3 *db;
  int iFirstBlk = nBlk, nDirty;
  proof_mem_quarantine(1);
  sqlite3_tempcrypt_budget(TIER_LARGE);
  proof_remove_db(zDb);
  proof_write_file(zDb, aTpl, nTpl);
  db = proof_open(zDb, &cfg);
  CHECK(db!=0, "trunk page: open");
  if( db ){
    CHECK(sqlite3_exec(db,
      "PRAGMA temp_store=FILE; PRAGMA temp.cache_size=4;"
      "CREATE TEMP TABLE secret AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i<400)"
      "  SELECT 'TRUNK-SECRET-' || i || zeroblob(300) AS s FROM n;"
      "DROP TABLE secret;"
      "CREATE TEMP TABLE again(x); INSERT INTO again VALUES (1);", 0, 0, 0)==SQLITE_OK,
      "trunk page: workload: %s", sqlite3_errmsg(db));
    CHECK(sqlite3_close(db)==SQLITE_OK, "trunk page: close");
  }
  nDirty = dirtyBlocks(iFirstBlk);
  CHECK(nBlk>iFirstBlk, "trunk page: no block reported");
  CHECK(nDirty==0, "trunk page: %d of %d blocks (tier blocks and decrypted page buffers) freed unwiped",
        nDirty, nBlk-iFirstBlk);
  sqlite3_tempcrypt_budget(0);
  proof_mem_quarantine(0);
  proof_mem_release_quarantine();
}

int main(int argc, char **argv){
  const char *zBase;
  int rc;
  (void)argc;
  rc = proof_init(argv[0]);
  if( rc ){ fprintf(stderr, "proof_init: %d\n", rc); return 2; }
  proof_key_observer = observe;
  sqlite3_tempcrypt_test_block_hook(observeBlock, 0);
  zBase = proof_path(0, "base");
  zDb = proof_path(1, "work");
  aTpl = proof_base_template(zBase, 400, &nTpl);
  if( !aTpl ) return check_finish("keyhygiene");
  test_keys_wiped(0);
  test_keys_wiped(TIER_SMALL);
  test_keys_wiped(TIER_LARGE);
  test_trunk_page_wiped();
  test_no_entropy(0);
  test_no_entropy(TIER_SMALL);
  free(aTpl);
  free(aBlk);
  proof_remove_db(zBase);
  proof_remove_db(zDb);
  return check_finish("keyhygiene");
}
