/*
** Model-based stress test of one encrypted temporary file.
**
**   stress [-n OPS] [-s SEED] [-m MODE] [-f]
**
** MODE is random (4 KiB blocks, unaligned writes, overwrites, truncates),
** journal (append-only, odd sizes), db (a temp database: page-sized blocks
** with page sizes 512..65536, whole pages and some unaligned writes),
** sparse (pages far apart: holes must stay holes), sorter (a temp file
** that is not a database, written as the sorter writes its runs: a first
** aligned unit of 4096..65536 bytes sets the block size, then appends up
** to unit boundaries and short tails, reads of whole units and from
** anywhere, truncates to 0), or all (each mode
** without and with faults, then with the memory tier without and with
** faults).  -f injects I/O errors and short writes.  -t turns the memory
** tier on: each new file gets a budget of 0 to 39 KiB (one file in eight
** 64 MiB, all of it in memory), so that files spill part-way; with faults
** the lazy open of the lower file fails too.
**
** tempcrypt sits on "checkvfs", an in-memory VFS that is the file's
** storage and checks every write on its way down: the counter a rewritten
** block goes down under (the shim keeps counters in memory; the test build
** tells them) is fresh (counters never go backwards), every stored
** byte is the expected plaintext XOR the keystream of its block's counter
** (the key comes from the test-only hook; the layout is decoded and the
** keystream computed by proof/layout.c), and no keystream byte is used
** twice.  Above tempcrypt the test keeps a model of the file and checks
** every read and the size against it.  With faults, a read may fail, but
** data it returns must be data the file can hold; never anything else.
*/
#include "sqlite3.h"
#include "tempcrypt.h"
#include "checkvfs.h"

/* ------------------------------------------------------------ driver */
typedef struct Run {
  const char *zMode;
  TuRng rng;
  sqlite3_vfs *pTcVfs;
  sqlite3_file *pF;        /* open tempcrypt file */
  int openFlags;
  int pgsz;                /* db/sparse: page size; sorter: its unit */
  uint8_t *buf, *data;
  long nOps, nRead, nWrite, nTrunc, nReopen, nErr;
  uint64_t nPageWrites;    /* sparse: whole-page writes */
} Run;

static void model_reset(void){
  memset(M.cur, 0, (size_t)(M.size));
  memset(M.unc, 0, (size_t)(M.size));
  M.size = 0;
}

static void run_close(Run *r){
  if( r->pF ){
    r->pF->pMethods->xClose(r->pF);
    free(r->pF);
    r->pF = 0;
  }
}

static void run_open(Run *r, int flags){
  int rc, outFlags = 0;
  int64_t budget = 0;
  run_close(r);
  model_reset();
  if( gTier ){
    budget = tu_below(&r->rng, 8)==0 ? 64<<20 : (int64_t)tu_below(&r->rng, 40)*1024;
  }
  sqlite3_tempcrypt_budget(budget);
  r->pF = calloc(1, (size_t)r->pTcVfs->szOsFile);
  r->openFlags = flags;
  {
    /* Faults hit the lazy open in a write, not this one (budget 0). */
    int fon = F.on;
    F.on = 0;
    rc = r->pTcVfs->xOpen(r->pTcVfs, 0, r->pF, flags, &outFlags);
    F.on = fon;
  }
  /* With a budget the lower file opens later (and the key hook with it). */
  CHECK(rc==SQLITE_OK && r->pF->pMethods && (budget>0 ? gFile==0 : gFile && gFile->bKeyed),
        "open of an encrypted temp file (rc=%d, budget %lld)", rc, (long long)budget);
  r->nReopen++;
  r->nPageWrites = 0;
}

/* Bytes [off, off+n) read back without faults after a failed write:
** whatever reads back is now certain; a failing block stays uncertain. */
static void settle(Run *r, int64_t off, int64_t n){
  int on = F.on;
  int64_t end = off + n, pos;
  int B = sqlite3_tempcrypt_test_block_size(r->pF);
  if( end>M.size ) end = M.size;
  if( B<=0 ) return;
  F.on = 0;
  for(pos=off - off%B; pos<end; pos+=B){
    int64_t a = pos<off ? off : pos, b = pos+B<end ? pos+B : end;
    int rc = r->pF->pMethods->xRead(r->pF, r->buf, (int)(b-a), a);
    if( rc==SQLITE_OK ){
      int64_t x;
      int nBad = 0;
      for(x=a; x<b; x++){
        uint8_t v = r->buf[x-a];
        if( v!=M.cur[x] && !(M.unc[x] && v==M.alt[x]) ) nBad++;
        M.cur[x] = v; M.unc[x] = 0;
      }
      CHECK(nBad==0, "%s: %d bytes after a failed write are neither old nor new",
            r->zMode, nBad);
    }
  }
  F.on = on;
}

static void do_write(Run *r, int64_t off, int n){
  int64_t oldSize = M.size, x;
  sqlite3_int64 sz = -1;
  int rc;
  if( off+n>MAX_MODEL ) return;
  tu_fill(&r->rng, r->data, (size_t)n);
  M.wData = r->data; M.wOff = off; M.wN = n;
  rc = r->pF->pMethods->xWrite(r->pF, r->data, n, off);
  M.wN = 0;
  r->nWrite++;
  if( rc==SQLITE_OK ){
    memcpy(M.cur+off, r->data, n);
    memset(M.unc+off, 0, n);
    if( off+n>M.size ) M.size = off+n;
  }else{
    CHECK(F.on, "%s: write failed without a fault: rc=%d off=%lld n=%d",
          r->zMode, rc, (long long)off, n);
    r->nErr++;
    for(x=off; x<off+n && x<oldSize; x++){
      M.alt[x] = r->data[x-off];
      M.unc[x] = (uint8_t)(M.alt[x]!=M.cur[x]);
    }
  }
  r->pF->pMethods->xFileSize(r->pF, &sz);
  CHECK(sz==M.size, "%s: size %lld, model %lld after %s write",
        r->zMode, (long long)sz, (long long)M.size, rc ? "failed" : "good");
  if( rc!=SQLITE_OK ) settle(r, off, n);
}

static void do_read(Run *r, int64_t off, int n){
  int rc = r->pF->pMethods->xRead(r->pF, r->buf, n, off);
  int64_t x;
  int nBad = 0, nShort = off+n>M.size;
  r->nRead++;
  if( rc==SQLITE_OK || rc==SQLITE_IOERR_SHORT_READ ){
    CHECK((rc==SQLITE_IOERR_SHORT_READ)==nShort, "%s: read rc=%d at %lld+%d, size %lld",
          r->zMode, rc, (long long)off, n, (long long)M.size);
    for(x=off; x<off+n; x++){
      uint8_t v = r->buf[x-off];
      if( x>=M.size ){ if( v ) nBad++; continue; }
      if( v!=M.cur[x] && !(M.unc[x] && v==M.alt[x]) ) nBad++;
    }
    CHECK(nBad==0, "%s: %d wrong bytes reading %lld+%d", r->zMode, nBad, (long long)off, n);
  }else{
    CHECK(F.on, "%s: read failed without a fault: rc=%d off=%lld n=%d",
          r->zMode, rc, (long long)off, n);
    r->nErr++;
  }
}

static void do_truncate(Run *r, int64_t size){
  sqlite3_int64 sz = -1;
  int rc;
  if( size>MAX_MODEL ) return;
  rc = r->pF->pMethods->xTruncate(r->pF, size);
  r->nTrunc++;
  if( rc==SQLITE_OK ){
    if( size<M.size ){
      memset(M.cur+size, 0, (size_t)(M.size-size));
      memset(M.unc+size, 0, (size_t)(M.size-size));
    }
    M.size = size;
  }else{
    CHECK(F.on, "%s: truncate failed without a fault: rc=%d", r->zMode, rc);
    r->nErr++;
  }
  r->pF->pMethods->xFileSize(r->pF, &sz);
  CHECK(sz==M.size, "%s: size %lld, model %lld after truncate", r->zMode,
        (long long)sz, (long long)M.size);
}

static int pick_pgsz(Run *r){ return 512 << tu_below(&r->rng, 8); }

/* A sorter file: opened as SQLite opens one, then its first unit, which
** must set the block size to the unit (a fault in the write does not
** change that: the block size is fixed before anything goes down). */
static void sorter_open(Run *r){
  run_open(r, SQLITE_OPEN_TEMP_JOURNAL|SQLITE_OPEN_READWRITE|SQLITE_OPEN_CREATE
              |SQLITE_OPEN_EXCLUSIVE|SQLITE_OPEN_DELETEONCLOSE);
  r->pgsz = 4096 << tu_below(&r->rng, 5);
  do_write(r, 0, r->pgsz);
  CHECK(sqlite3_tempcrypt_test_block_size(r->pF)==r->pgsz,
        "sorter: block size %d after a first unit of %d bytes",
        sqlite3_tempcrypt_test_block_size(r->pF), r->pgsz);
}

static void one_op(Run *r){
  TuRng *g = &r->rng;
  int B = 4096, roll = (int)tu_below(g, 1000);
  int64_t sz = M.size;

  if( roll<3 ){               /* a new file with a new key */
    if( !strcmp(r->zMode, "sorter") ){
      sorter_open(r);
    }else if( !strcmp(r->zMode, "db") || !strcmp(r->zMode, "sparse") ){
      run_open(r, SQLITE_OPEN_TEMP_DB|SQLITE_OPEN_READWRITE|SQLITE_OPEN_CREATE|SQLITE_OPEN_DELETEONCLOSE);
      r->pgsz = pick_pgsz(r);
      if( !strcmp(r->zMode, "sparse") && r->pgsz>4096 ) r->pgsz = 4096;
      do_write(r, r->pgsz*(int64_t)tu_below(g, 4), r->pgsz);
    }else{
      run_open(r, SQLITE_OPEN_TEMP_JOURNAL|SQLITE_OPEN_READWRITE|SQLITE_OPEN_CREATE|SQLITE_OPEN_DELETEONCLOSE);
    }
    return;
  }
  if( !strcmp(r->zMode, "random") ){
    if( roll<300 ) do_write(r, (int64_t)tu_below(g, (uint64_t)sz + 2*B + 1), 1+(int)tu_below(g, 3*B));
    else if( roll<500 ) do_write(r, sz, 1+(int)tu_below(g, 2*B));
    else if( roll<950 ) do_read(r, (int64_t)tu_below(g, (uint64_t)sz + 100), 1+(int)tu_below(g, 3*B));
    else do_truncate(r, (int64_t)tu_below(g, (uint64_t)sz + 2*B));
  }else if( !strcmp(r->zMode, "sorter") ){
    int U = r->pgsz;
    if( roll<500 ) do_write(r, sz, U - (int)(sz % U));           /* a full unit */
    else if( roll<560 ) do_write(r, sz, 1+(int)tu_below(g, U));  /* a run's tail */
    else if( roll<850 ) do_read(r, U*(int64_t)tu_below(g, (uint64_t)(sz/U) + 1), U);
    else if( roll<990 ) do_read(r, (int64_t)tu_below(g, (uint64_t)sz + 1), 1+(int)tu_below(g, 2*U));
    else do_truncate(r, 0);
  }else if( !strcmp(r->zMode, "journal") ){
    if( roll<550 ) do_write(r, sz, 1+(int)tu_below(g, roll<100 ? 30 : 3000));
    else if( roll<990 ) do_read(r, (int64_t)tu_below(g, (uint64_t)sz + 1), 1+(int)tu_below(g, 5000));
    else do_truncate(r, 0);
  }else if( !strcmp(r->zMode, "db") ){
    int p = r->pgsz;
    int64_t nPg = (sz + p - 1)/p;
    if( roll<400 ) do_write(r, p*(int64_t)tu_below(g, (uint64_t)nPg + 3), p);
    else if( roll<450 ) do_write(r, (int64_t)tu_below(g, (uint64_t)sz + p), 1+(int)tu_below(g, 2*p));
    else if( roll<800 ) do_read(r, p*(int64_t)tu_below(g, (uint64_t)nPg + 1), p);
    else if( roll<900 ) do_read(r, p*(int64_t)tu_below(g, (uint64_t)nPg + 1), 1+(int)tu_below(g, p));
    else if( roll<980 ) do_read(r, (int64_t)tu_below(g, (uint64_t)sz + 1), 1+(int)tu_below(g, 2*p));
    else do_truncate(r, p*(int64_t)tu_below(g, (uint64_t)nPg + 2));
  }else{                      /* sparse: whole pages far apart */
    int p = r->pgsz;
    if( roll<500 ){
      uint64_t before = gFile ? gFile->nPhysWritten : 0, stored;
      do_write(r, p*(int64_t)tu_below(g, 2000), p);
      stored = (gFile ? gFile->nPhysWritten : 0) - before;
      if( !F.on ){
        /* One block below tempcrypt, or none (the page is in memory). */
        CHECK(stored==(uint64_t)p || (gTier && stored==0),
              "sparse: a page write stored %llu bytes, not %d (holes filled?)",
              (unsigned long long)stored, p);
      }
    }else{
      do_read(r, p*(int64_t)tu_below(g, (uint64_t)(sz/p) + 1), p);
    }
  }
}

/*
** Directed failure sequences that random faults reach only rarely, each
** on a fresh file of three 4 KiB blocks (F.nSkip/F.nForce pick exactly
** which lower calls fail):
**   (a) a rewrite inside block 1 stores half its bytes and fails, so block
**       1 waits for its repair; then a truncate that would cut block 1
**       away fails: the repair must survive it (the file reads back whole);
**   (b) a write of blocks 3 and 4 stores block 3, half of block 4, fails,
**       and its clean-up truncate fails too; then the file grows past
**       blocks 3 and 4: they are holes now and must read as zeros, never
**       as the failed write's leftovers.
*/
static void run_directed(void){
  Run r;
  int c, rc;
  memset(&r, 0, sizeof(r));
  r.zMode = "directed";
  r.pTcVfs = sqlite3_vfs_find(SQLITE_TEMPCRYPT_VFS_NAME);
  gTier = 0;
  r.buf = malloc(4*65536);
  r.data = malloc(4*65536);
  for(c=0; c<2; c++){
    int64_t off = c==0 ? 4096+100 : 3*4096, x;
    int n = c==0 ? 200 : 2*4096;
    memset(&F, 0, sizeof(F));
    F.every = 0x7fffffff;                  /* no random faults */
    r.rng.s = 42 + (uint64_t)c;
    run_open(&r, SQLITE_OPEN_TEMP_JOURNAL|SQLITE_OPEN_READWRITE|SQLITE_OPEN_CREATE|SQLITE_OPEN_DELETEONCLOSE);
    do_write(&r, 0, 3*4096);
    /* The failing write, straight to the file (do_write would settle). */
    F.on = 1; F.bHalf = 1;
    F.nSkip = c==0 ? 1 : 1;                /* (a) the RMW read; (b) block 3 */
    F.nForce = c==0 ? 1 : 2;               /* (b) and the clean-up truncate */
    tu_fill(&r.rng, r.data, (size_t)n);
    M.wData = r.data; M.wOff = off; M.wN = n;
    rc = r.pF->pMethods->xWrite(r.pF, r.data, n, off);
    M.wN = 0;
    CHECK(rc!=SQLITE_OK && F.nForce==0, "directed %c: the write did not fail as planned", 'a'+c);
    for(x=off; x<off+n && x<M.size; x++){
      M.alt[x] = r.data[x-off]; M.unc[x] = (uint8_t)(M.alt[x]!=M.cur[x]);
    }
    if( c==0 ){
      F.nForce = 1;
      rc = r.pF->pMethods->xTruncate(r.pF, 4096);
      CHECK(rc!=SQLITE_OK && F.nForce==0, "directed a: the truncate did not fail");
      F.on = 0;
      do_read(&r, 0, 3*4096);
    }else{
      F.on = 0;
      do_write(&r, 5*4096+10, 100);
      do_read(&r, 0, 5*4096+110);
    }
    r.nOps++;
  }
  run_close(&r);
  printf("  directed failure sequences: %ld run\n", r.nOps);
  free(r.buf); free(r.data);
}

/*
** With the memory tier a file opens its lower file in the middle of a
** write: that file must then hold the lock SQLite took before (and the
** file must answer for the lock itself until then).
*/
static void run_lazy_lock(void){
  sqlite3_vfs *pVfs = sqlite3_vfs_find(SQLITE_TEMPCRYPT_VFS_NAME);
  sqlite3_file *pF = calloc(1, (size_t)pVfs->szOsFile);
  unsigned char a[8192];
  int outFlags = 0, res = 0, rc;
  memset(&F, 0, sizeof(F));
  sqlite3_tempcrypt_budget(4096 + 1024);     /* one block, then the lower file */
  rc = pVfs->xOpen(pVfs, 0, pF, SQLITE_OPEN_TEMP_DB|SQLITE_OPEN_READWRITE
                   |SQLITE_OPEN_CREATE|SQLITE_OPEN_DELETEONCLOSE, &outFlags);
  CHECK(rc==SQLITE_OK && gFile==0, "lazy lock: open without a lower file (rc=%d)", rc);
  if( rc!=SQLITE_OK ){ free(pF); return; }
  pF->pMethods->xLock(pF, SQLITE_LOCK_SHARED);
  pF->pMethods->xLock(pF, SQLITE_LOCK_RESERVED);
  pF->pMethods->xCheckReservedLock(pF, &res);
  CHECK(res==1, "lazy lock: a RESERVED lock kept without a lower file reads as %d", res);
  pF->pMethods->xLock(pF, SQLITE_LOCK_EXCLUSIVE);
  memset(a, 7, sizeof(a));
  model_reset();
  M.wData = a; M.wOff = 0; M.wN = 4096;             /* for checkvfs's layout check */
  rc = pF->pMethods->xWrite(pF, a, 4096, 0);
  CHECK(rc==SQLITE_OK && gFile==0, "lazy lock: the first block stays in memory (rc=%d)", rc);
  memcpy(M.cur, a, 4096); M.size = 4096;
  M.wOff = 4096; M.wN = sizeof(a);
  rc = pF->pMethods->xWrite(pF, a, sizeof(a), 4096);
  M.wN = 0;
  CHECK(rc==SQLITE_OK && gFile!=0, "lazy lock: the next blocks open the lower file (rc=%d)", rc);
  CHECK(gFile && gFile->eLock==SQLITE_LOCK_EXCLUSIVE,
        "lazy lock: the late lower file holds lock %d, not EXCLUSIVE", gFile ? gFile->eLock : -1);
  pF->pMethods->xUnlock(pF, SQLITE_LOCK_NONE);
  CHECK(gFile && gFile->eLock==SQLITE_LOCK_NONE, "lazy lock: unlock did not reach the lower file");
  pF->pMethods->xClose(pF);
  free(pF);
  sqlite3_tempcrypt_budget(0);
  printf("  lazy lower open takes the lock SQLite holds: checked\n");
}

static void run_mode(const char *zMode, long nOps, uint64_t seed, int bFaults){
  Run r;
  long i;
  int nFailBefore = check_nFail;
  memset(&r, 0, sizeof(r));
  r.zMode = zMode;
  r.rng.s = seed;
  r.pTcVfs = sqlite3_vfs_find(SQLITE_TEMPCRYPT_VFS_NAME);
  r.buf = malloc(4*65536);
  r.data = malloc(4*65536);
  memset(&F, 0, sizeof(F));
  F.on = bFaults;
  F.rng.s = seed ^ 0xfa17ULL;
  F.every = 40;
  r.nReopen = -1;
  {
    /* Start with a new file of the mode's kind. */
    int fon = F.on; F.on = 0;
    if( !strcmp(zMode, "sorter") ){
      sorter_open(&r);
    }else if( !strcmp(zMode, "db") || !strcmp(zMode, "sparse") ){
      run_open(&r, SQLITE_OPEN_TEMP_DB|SQLITE_OPEN_READWRITE|SQLITE_OPEN_CREATE|SQLITE_OPEN_DELETEONCLOSE);
      r.pgsz = !strcmp(zMode, "sparse") ? 1024 : pick_pgsz(&r);
      do_write(&r, r.pgsz, r.pgsz);
      CHECK(sqlite3_tempcrypt_test_block_size(r.pF)==r.pgsz,
            "%s: block size %d, page size %d", zMode,
            sqlite3_tempcrypt_test_block_size(r.pF), r.pgsz);
    }else{
      /* Not a database: no block size until the first write, which (a
      ** journal's header of 512 to 2048 bytes, or any size below 4096)
      ** gives 4096. */
      run_open(&r, SQLITE_OPEN_TEMP_JOURNAL|SQLITE_OPEN_READWRITE|SQLITE_OPEN_CREATE|SQLITE_OPEN_DELETEONCLOSE);
      CHECK(sqlite3_tempcrypt_test_block_size(r.pF)==0, "%s: block size before the first write", zMode);
      do_write(&r, 0, !strcmp(zMode, "journal") ? 512 << tu_below(&r.rng, 3) : 1 + (int)tu_below(&r.rng, 4000));
      CHECK(sqlite3_tempcrypt_test_block_size(r.pF)==4096, "%s: block size", zMode);
    }
    F.on = fon;
  }
  for(i=0; i<nOps && check_nFail-nFailBefore<20; i++){
    one_op(&r);
    r.nOps++;
  }
  run_close(&r);
  printf("  %-8s %-6s%s ops=%-8ld writes=%-7ld reads=%-7ld truncates=%-6ld files=%-5ld"
         " errors=%ld (faults: %d write, %d short, %d read, %d truncate, %d open)\n",
         zMode, bFaults ? "faults" : "clean", gTier ? " tier" : "", r.nOps, r.nWrite,
         r.nRead, r.nTrunc, r.nReopen+1, r.nErr, F.nWriteFail, F.nShortWrite,
         F.nReadFail, F.nTruncFail, F.nOpenFail);
  free(r.buf); free(r.data);
}

/* sqlite3_tempcrypt_register() and set_enabled(): errors, defaults, and
** tempcrypt registered over checkvfs for the runs. */
static void test_register(void){
  CHECK(sqlite3_tempcrypt_register("no-such-vfs", 0)==SQLITE_ERROR, "register over an unknown VFS");
  CHECK(sqlite3_vfs_find(SQLITE_TEMPCRYPT_VFS_NAME)==0, "nothing registered after the error");
  CHECK(sqlite3_tempcrypt_register("checkvfs", 0)==SQLITE_OK, "register over checkvfs");
  CHECK(sqlite3_vfs_find(0)==gMemBase, "makeDefault=0 leaves the default alone");
  CHECK(sqlite3_tempcrypt_set_enabled(0)==1, "enabled by default");
  CHECK(sqlite3_tempcrypt_set_enabled(1)==0, "set_enabled returns the previous value");
  CHECK(sqlite3_tempcrypt_register("checkvfs", 0)==SQLITE_OK, "register again is harmless");
  CHECK(sqlite3_tempcrypt_register(gMemBase->zName, 0)==SQLITE_MISUSE,
        "register over a different base is refused");
}

/* Mode "all": each mode without and with faults, the same with the
** memory tier, then the directed cases. */
static void test_all_modes(long nOps, uint64_t seed){
  static const char *az[] = { "random", "journal", "db", "sparse", "sorter" };
  const int nMode = (int)(sizeof(az)/sizeof(az[0]));
  int m;
  for(gTier=0; gTier<2; gTier++){
    for(m=0; m<nMode; m++){
      run_mode(az[m], nOps/(4*nMode), seed + (uint64_t)m + 200*(uint64_t)gTier, 0);
      run_mode(az[m], nOps/(4*nMode), seed + (uint64_t)m + 100 + 200*(uint64_t)gTier, 1);
    }
  }
  run_directed();
  run_lazy_lock();
}

/* The statistics; every file is closed now, so the memory tier must hold
** nothing, and it never held more than the largest budget (64 MiB). */
static void print_stats(void){
  struct sqlite3_tempcrypt_stats st;
  sqlite3_tempcrypt_stats(&st, 0);
  printf("tempcrypt: files=%llu (%llu with a lower file) logical w/r=%llu/%llu"
         " physical w/r=%llu/%llu enciphered=%llu rmw=%llu failed-block reads=%llu"
         " spilled=%llu memory peak=%llu now=%llu\n",
         (unsigned long long)st.nFileEncrypted, (unsigned long long)st.nFileSpilled,
         (unsigned long long)st.nLogicalWrite, (unsigned long long)st.nLogicalRead,
         (unsigned long long)st.nPhysicalWrite, (unsigned long long)st.nPhysicalRead,
         (unsigned long long)st.nEnciphered, (unsigned long long)st.nBlockRmw,
         (unsigned long long)st.nFailedBlockRead, (unsigned long long)st.nSpilled,
         (unsigned long long)st.nMemPeak, (unsigned long long)st.nMemBytes);
  CHECK(st.nMemBytes==0, "memory tier holds %llu bytes with every file closed",
        (unsigned long long)st.nMemBytes);
  CHECK(st.nMemPeak<=(64u<<20), "memory tier peaked at %llu bytes, over every budget",
        (unsigned long long)st.nMemPeak);
}

int main(int argc, char **argv){
  long nOps = 100000;
  uint64_t seed = 1;
  const char *zMode = "all";
  int bFaults = 0, i;
  for(i=1; i<argc; i++){
    if( !strcmp(argv[i], "-n") && i+1<argc ) nOps = atol(argv[++i]);
    else if( !strcmp(argv[i], "-s") && i+1<argc ) seed = strtoull(argv[++i], 0, 0);
    else if( !strcmp(argv[i], "-m") && i+1<argc ) zMode = argv[++i];
    else if( !strcmp(argv[i], "-f") ) bFaults = 1;
    else if( !strcmp(argv[i], "-t") ) gTier = 1;
    else { fprintf(stderr, "usage: %s [-n OPS] [-s SEED] [-m random|journal|db|sparse|sorter|all] [-f] [-t]\n", argv[0]); return 2; }
  }
  M.cur = calloc(MAX_MODEL + 4*65536, 1);
  M.alt = calloc(MAX_MODEL + 4*65536, 1);
  M.unc = calloc(MAX_MODEL + 4*65536, 1);

  sqlite3_initialize();
  register_checkvfs();
  test_register();
  sqlite3_tempcrypt_budget(0);
  sqlite3_tempcrypt_test_key_hook(key_hook, 0);

  printf("stress: seed=%llu ops=%ld mode=%s%s%s (replay: %s -n %ld -s %llu -m %s%s%s)\n",
         (unsigned long long)seed, nOps, zMode, bFaults ? " faults" : "", gTier ? " tier" : "",
         argv[0], nOps, (unsigned long long)seed, zMode, bFaults ? " -f" : "", gTier ? " -t" : "");
  if( !strcmp(zMode, "all") ){
    test_all_modes(nOps, seed);
  }else{
    run_mode(zMode, nOps, seed, bFaults);
  }
  print_stats();
  free(M.cur); free(M.alt); free(M.unc);
  return check_finish("stress");
}
