/*
** checkvfs: the in-memory VFS under the stress test (checkvfs.h says
** what it checks; stress.c drives it).
*/
#include "checkvfs.h"

CkModel M;
int gTier = 0;
CkFaults F;

/* ------------------------------------------------------------ faults */
/* Faults come in runs as well as alone (a full disk stays full for a
** while): half the faults make the next one to three lower calls fail
** too, so that a failed write's clean-up truncate, or the repair that
** follows, fails as well. */
static int fault_now(void){
  if( !F.on ) return 0;
  if( F.nForce>0 ){
    if( F.nSkip>0 ){ F.nSkip--; return 0; }
    F.nForce--;
    return 1;
  }
  if( F.nRun>0 ){ F.nRun--; return 1; }
  if( tu_below(&F.rng, F.every)!=0 ) return 0;
  if( tu_below(&F.rng, 2)==0 ) F.nRun = 1 + (int)tu_below(&F.rng, 3);
  return 1;
}

/* ------------------------------------------------------------ checkvfs */
CkFile *gFile;
sqlite3_vfs *gMemBase;

/* What a lower write may store at logical byte x.  Inside the write that
** is running, the new byte, or the old one: a call first repairs a block
** an earlier failed write left pending, with the block's old content. */
static int expected_byte(int64_t x, uint8_t *pAlt, int *pHasAlt){
  *pHasAlt = 0;
  if( x>=M.wOff && x<M.wOff+M.wN ){
    if( x<M.size ){ *pHasAlt = 1; *pAlt = M.unc[x] ? M.alt[x] : M.cur[x]; }
    return M.wData[x-M.wOff];
  }
  if( x<M.size ){
    if( M.unc[x] ){ *pHasAlt = 1; *pAlt = M.alt[x]; }
    return M.cur[x];
  }
  return 0;
}

static void ck_use(CkFile *p, uint64_t c, uint32_t j0, uint32_t j1){
  if( c>=p->nHi ){
    uint64_t n = p->nHi ? p->nHi*2 : 1024;
    while( n<=c ) n *= 2;
    p->aHi = realloc(p->aHi, n*sizeof(uint32_t));
    memset(p->aHi+p->nHi, 0, (n-p->nHi)*sizeof(uint32_t));
    p->nHi = n;
  }
  CHECK(j0>=p->aHi[c], "keystream reused: counter %llu bytes %u.. (used up to %u)",
        (unsigned long long)c, j0, p->aHi[c]);
  if( j1>p->aHi[c] ) p->aHi[c] = j1;
}

/* Check one lower write against the layout, the model and the keystream.
** The counter of each block comes from the test build (it lives in the
** shim's memory): a write from the start of a block is a whole new
** version of it under a fresh counter, above every one before (the first
** is 1); a write from inside a block appends under the counter the block
** has. */
static void ck_verify_write(CkFile *p, const uint8_t *z, int n, int64_t off){
  int B = sqlite3_tempcrypt_test_block_size(p->pTc);
  int64_t pos = off, end = off + n;
  static uint8_t pt[65536];
  CHECK(B>0, "write before the block size is known");
  if( B<=0 ) return;
  while( pos<end ){
    int64_t k = layout_block_of(B, pos), base = layout_block_start(B, k);
    uint64_t c = sqlite3_tempcrypt_test_block_counter(p->pTc, k);
    int j0, j1, j, nBad = 0;
    CHECK(c!=0, "block %lld written without a counter", (long long)k);
    if( c==0 ) return;
    if( pos==base ){
      CHECK(c>p->maxCtr, "counter went backwards: %llu after %llu",
            (unsigned long long)c, (unsigned long long)p->maxCtr);
      if( p->maxCtr==0 ) CHECK(c==1, "first counter is %llu, not 1", (unsigned long long)c);
      if( c>p->maxCtr ) p->maxCtr = c;
    }else{
      CHECK(c<=p->maxCtr, "append to block %lld under counter %llu, never written",
            (long long)k, (unsigned long long)c);
    }
    j0 = (int)(pos - base);
    j1 = (int)((end - base) < B ? (end - base) : B);
    ck_use(p, c, (uint32_t)j0, (uint32_t)j1);
    layout_xor(pt, z + (pos - off), (size_t)(j1-j0), p->key, c, j0);
    for(j=j0; j<j1; j++){
      uint8_t alt = 0, plain = pt[j-j0];
      int hasAlt, want = expected_byte(k*B + j, &alt, &hasAlt);
      if( plain!=want && !(hasAlt && plain==alt) ) nBad++;
    }
    CHECK(nBad==0, "%d stored bytes of block %lld are not plaintext^keystream(ctr %llu)",
          nBad, (long long)k, (unsigned long long)c);
    pos = base + j1;
  }
}

static void ck_grow(CkFile *p, int64_t n){
  if( n>p->nAlloc ){
    int64_t a = p->nAlloc ? p->nAlloc : 65536;
    while( a<n ) a *= 2;
    p->a = realloc(p->a, (size_t)a);
    memset(p->a+p->nAlloc, 0, (size_t)(a-p->nAlloc));
    p->nAlloc = a;
  }
}

static int ckClose(sqlite3_file *f){
  CkFile *p = (CkFile*)f;
  free(p->a); free(p->aHi);
  if( gFile==p ) gFile = 0;
  return SQLITE_OK;
}
static int ckRead(sqlite3_file *f, void *z, int n, sqlite3_int64 off){
  CkFile *p = (CkFile*)f;
  if( fault_now() ){ F.nReadFail++; return SQLITE_IOERR_READ; }
  if( off>=p->n ){ memset(z, 0, n); return SQLITE_IOERR_SHORT_READ; }
  if( off+n>p->n ){
    memcpy(z, p->a+off, (size_t)(p->n-off));
    memset((uint8_t*)z+(p->n-off), 0, (size_t)(off+n-p->n));
    return SQLITE_IOERR_SHORT_READ;
  }
  memcpy(z, p->a+off, n);
  return SQLITE_OK;
}
static int ckWrite(sqlite3_file *f, const void *z, int n, sqlite3_int64 off){
  CkFile *p = (CkFile*)f;
  int nDo = n, rc = SQLITE_OK;
  if( p->bKeyed ) ck_verify_write(p, z, n, off);
  if( fault_now() ){
    if( F.bHalf ){
      F.bHalf = 0; F.nShortWrite++; nDo = n/2;
    }else if( tu_below(&F.rng, 2) ){
      F.nWriteFail++; nDo = 0;
    }else{
      F.nShortWrite++; nDo = (int)tu_below(&F.rng, (uint64_t)n);
    }
    rc = tu_below(&F.rng, 4)==0 ? SQLITE_FULL : SQLITE_IOERR_WRITE;
  }
  if( nDo>0 ){
    ck_grow(p, off+nDo);
    memcpy(p->a+off, z, nDo);
    if( off+nDo>p->n ) p->n = off+nDo;
  }
  p->nPhysWritten += (uint64_t)nDo;
  return rc;
}
static int ckTruncate(sqlite3_file *f, sqlite3_int64 size){
  CkFile *p = (CkFile*)f;
  if( fault_now() ){ F.nTruncFail++; return SQLITE_IOERR_TRUNCATE; }
  ck_grow(p, size);
  if( size<p->n ) memset(p->a+size, 0, (size_t)(p->n-size));
  p->n = size;
  return SQLITE_OK;
}
static int ckSync(sqlite3_file *f, int flags){ (void)f; (void)flags; return SQLITE_OK; }
static int ckFileSize(sqlite3_file *f, sqlite3_int64 *pSize){ *pSize = ((CkFile*)f)->n; return SQLITE_OK; }
static int ckLock(sqlite3_file *f, int e){ ((CkFile*)f)->eLock = e; return SQLITE_OK; }
static int ckCheckReservedLock(sqlite3_file *f, int *pRes){ (void)f; *pRes = 0; return SQLITE_OK; }
static int ckFileControl(sqlite3_file *f, int op, void *pArg){ (void)f; (void)op; (void)pArg; return SQLITE_NOTFOUND; }
static int ckSectorSize(sqlite3_file *f){ (void)f; return 4096; }
static int ckDeviceCharacteristics(sqlite3_file *f){ (void)f; return SQLITE_IOCAP_ATOMIC4K|SQLITE_IOCAP_SAFE_APPEND; }

static const sqlite3_io_methods ck_io = {
  1, ckClose, ckRead, ckWrite, ckTruncate, ckSync, ckFileSize, ckLock, ckLock,  /* xUnlock: the same */
  ckCheckReservedLock, ckFileControl, ckSectorSize, ckDeviceCharacteristics,
  0, 0, 0, 0, 0, 0
};

static int ckOpen(sqlite3_vfs *v, const char *zName, sqlite3_file *f, int flags, int *pOut){
  CkFile *p = (CkFile*)f;
  (void)v; (void)zName;
  /* With the tier, the lower file opens in the middle of a write: that
  ** open may fail too (the data must stay as it was). */
  if( gTier && fault_now() ){ F.nOpenFail++; return SQLITE_CANTOPEN; }
  memset(p, 0, sizeof(*p));
  p->base.pMethods = &ck_io;
  gFile = p;
  if( pOut ) *pOut = flags;
  return SQLITE_OK;
}

void key_hook(void *pArg, sqlite3_file *pTc, sqlite3_file *pLower,
              int flags, const unsigned char *aKey){
  CkFile *p = (CkFile*)pLower;
  (void)pArg; (void)flags;
  if( p==0 ) return;           /* no lower file yet: called again when it opens */
  p->bKeyed = 1;
  p->pTc = pTc;
  memcpy(p->key, aKey, 32);
}


/* checkvfs: an in-memory VFS whose files are CkFile; everything but
** xOpen comes from the default VFS (only files matter). */
void register_checkvfs(void){
  static sqlite3_vfs ckVfs;
  gMemBase = sqlite3_vfs_find(0);
  ckVfs.iVersion = 1;
  ckVfs.szOsFile = sizeof(CkFile);
  ckVfs.mxPathname = 512;
  ckVfs.zName = "checkvfs";
  ckVfs.xOpen = ckOpen;
  ckVfs.xDelete = gMemBase->xDelete;
  ckVfs.xAccess = gMemBase->xAccess;
  ckVfs.xFullPathname = gMemBase->xFullPathname;
  ckVfs.xRandomness = gMemBase->xRandomness;
  ckVfs.xSleep = gMemBase->xSleep;
  ckVfs.xCurrentTime = gMemBase->xCurrentTime;
  ckVfs.xGetLastError = gMemBase->xGetLastError;
  sqlite3_vfs_register(&ckVfs, 0);
}
