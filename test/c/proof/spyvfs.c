/*
** The spy VFS.  One implementation, two roles: SPY under tempcrypt
** ("proofspy": file records, marker scan, I/O faults, fresh block
** counters, the layout check, declassification of ciphertext for
** ctgrind) and CT above it ("proofct", the default VFS after proof_init:
** the plaintext model for the layout check; marks plaintext secret on the
** way in and public on the way out).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "layout.h"
#include "tempcrypt.h"

enum { ROLE_SPY = 0, ROLE_CT = 1 };
typedef struct SpyVfs { sqlite3_vfs base; sqlite3_vfs *pReal; int role; } SpyVfs;
typedef struct SpyFile {
  sqlite3_file base;
  sqlite3_file *pReal;
  int iRec;              /* index in gRec.aFile, or -1 */
  int gen;               /* gRec.gen when iRec was assigned */
  int role;
  int isTemp;
  unsigned char *aBuf; int nBuf; /* CT role: copy of the write buffer */
  sqlite3_file *pTc;     /* the tempcrypt file above (encrypted files) */
  uint64_t mxCtr;        /* largest block counter written so far */
  Shadow *pShadow;       /* layout verification (shadow.c) */
} SpyFile;

/* The file records, under proofLock(). */
static struct {
  ProofFile *aFile; int nFile, nAlloc;
  int gen;                     /* bumped by proof_files_reset() */
  int64_t nCtrWrite, nCtrBad;  /* block-start writes checked / stale */
} gRec;

void (*proof_ct_secret)(const void *, size_t) = 0;
void (*proof_ct_public)(const void *, size_t) = 0;
void (*proof_key_observer)(const unsigned char *, int) = 0;

void proof_files_reset(void){
  proofLock();
  gRec.nFile = 0;
  gRec.gen++;
  proofUnlock();
}
int proof_files_count(void){ return gRec.nFile; }
ProofFile *proof_file(int i){ return &gRec.aFile[i]; }

static int newRec(int isTemp, int flags){
  int i;
  proofLock();
  if( gRec.nFile>=gRec.nAlloc ){
    int nNew = gRec.nAlloc ? 2*gRec.nAlloc : 64;
    ProofFile *a = realloc(gRec.aFile, sizeof(ProofFile)*(size_t)nNew);
    if( !a ){ proofUnlock(); return -1; }
    gRec.aFile = a; gRec.nAlloc = nNew;
  }
  i = gRec.nFile++;
  memset(&gRec.aFile[i], 0, sizeof(ProofFile));
  gRec.aFile[i].isTemp = isTemp;
  gRec.aFile[i].flags = flags;
  gRec.aFile[i].open = 1;
  proofUnlock();
  return i;
}
/* Records are addressed by index; a reset makes old indexes invalid, so
** each file also remembers the generation it was created in.  Called
** with proofLock() held. */
static ProofFile *rec(SpyFile *p){
  if( p->iRec<0 || p->iRec>=gRec.nFile || p->gen!=gRec.gen ) return 0;
  return &gRec.aFile[p->iRec];
}

static int countHits(const unsigned char *a, int64_t n){
  const char *zMarker = proof_marker();
  int nMarker = proofMarkerLen();
  int64_t i; int nHit = 0;
  for(i=0; i+nMarker<=n; i++){
    if( a[i]==(unsigned char)zMarker[0]
     && memcmp(a+i, zMarker, (size_t)nMarker)==0 ) nHit++;
  }
  return nHit;
}

static int spyClose(sqlite3_file *pFile){
  SpyFile *p = (SpyFile*)pFile;
  int rc;
  if( p->role==ROLE_SPY && p->pReal->pMethods ){
    /* Scan what is really in the file before it disappears. */
    sqlite3_int64 sz = 0, off;
    ProofFile *r;
    int nMarker = proofMarkerLen();
    unsigned char *aChunk = malloc(65536 + 64);
    if( aChunk && p->pReal->pMethods->xFileSize(p->pReal, &sz)==SQLITE_OK ){
      int64_t nHit = 0;
      for(off=0; off<sz; off+=65536){
        int n = (int)((sz-off) < 65536+nMarker-1 ? (sz-off) : 65536+nMarker-1);
        int rc2 = p->pReal->pMethods->xRead(p->pReal, aChunk, n, off);
        if( rc2!=SQLITE_OK && rc2!=SQLITE_IOERR_SHORT_READ ) break;
        if( proof_ct_public ) proof_ct_public(aChunk, (size_t)n);
        nHit += countHits(aChunk, n);
      }
      proofLock();
      r = rec(p);
      if( r ){ r->nDiskHit += nHit; r->open = 0; }
      proofUnlock();
    }
    free(aChunk);
  }
  rc = p->pReal->pMethods ? p->pReal->pMethods->xClose(p->pReal) : SQLITE_OK;
  proofShadowRelease(p->pShadow);
  p->pShadow = 0;
  free(p->aBuf);
  p->aBuf = 0;
  return rc;
}

/* op: 0 write, 1 read, 2 truncate.  Returns 0 none, 1 fail, 2 half. */
static int faultHere(SpyFile *p, int op){
  ProofFile *pr;
  int bTemp;
  if( p->role!=ROLE_SPY ) return 0;
  proofLock();
  pr = rec(p);
  bTemp = pr && pr->isTemp;
  proofUnlock();
  return bTemp ? proofFaultIo(op) : 0;
}

static int spyRead(sqlite3_file *pFile, void *pBuf, int n, sqlite3_int64 off){
  SpyFile *p = (SpyFile*)pFile;
  int rc;
  if( faultHere(p, 1) ){
    memset(pBuf, 0x5a, (size_t)n);   /* garbage, must never be used */
    return SQLITE_IOERR_READ;
  }
  rc = p->pReal->pMethods->xRead(p->pReal, pBuf, n, off);
  if( p->role==ROLE_CT && proof_ct_public ) proof_ct_public(pBuf, (size_t)n);
  return rc;
}

#ifdef SQLITE_TEMPCRYPT_TESTING
/* The documented layout: every write that starts a block goes down under
** a counter (kept in the shim's memory, told by the test build) larger
** than any this file has seen (never 0, never reused, not even after a
** truncate); with a shadow, it decrypts to the plaintext. */
static void checkBlockWrite(SpyFile *p, const unsigned char *a, int n, int64_t off){
  int B = sqlite3_tempcrypt_test_block_size(p->pTc);
  uint64_t c;
  if( B<=0 || n<=0 || off!=layout_block_start(B, layout_block_of(B, off)) ) return;
  c = sqlite3_tempcrypt_test_block_counter(p->pTc, layout_block_of(B, off));
  proofLock();
  gRec.nCtrWrite++;
  if( c==0 || c<=p->mxCtr ){
    if( gRec.nCtrBad++ < 5 ){
      fprintf(stderr, "proof: stale block counter %llu (largest so far %llu) at offset %lld\n",
              (unsigned long long)c, (unsigned long long)p->mxCtr, (long long)off);
    }
  }
  proofUnlock();
  if( c>p->mxCtr ) p->mxCtr = c;
  if( p->pShadow ) proofShadowVerify(p->pShadow, B, c, a, n, off);
}
#endif

static int spyWrite(sqlite3_file *pFile, const void *pBuf, int n, sqlite3_int64 off){
  SpyFile *p = (SpyFile*)pFile;
  int f;
  if( p->role==ROLE_CT ){
    if( p->pShadow ) proofShadowWrite(p->pShadow, pBuf, n, off);
    if( proof_ct_secret && p->isTemp ){
      if( p->nBuf<n ){
        unsigned char *a = realloc(p->aBuf, (size_t)n);
        if( !a ) return SQLITE_NOMEM;
        p->aBuf = a; p->nBuf = n;
      }
      memcpy(p->aBuf, pBuf, (size_t)n);
      proof_ct_secret(p->aBuf, (size_t)n);
      pBuf = p->aBuf;
    }
    return p->pReal->pMethods->xWrite(p->pReal, pBuf, n, off);
  }
  if( proof_ct_public ) proof_ct_public(pBuf, (size_t)n);
  {
    ProofFile *r;
    int nHit = countHits((const unsigned char*)pBuf, n);
    int i;
    proofLock();
    r = rec(p);
    if( r ){
      r->nWrite++; r->nByte += n; r->nHit += nHit>0;
      for(i=0; i<n; i++) r->aHist[((const unsigned char*)pBuf)[i]]++;
    }
    proofUnlock();
  }
#ifdef SQLITE_TEMPCRYPT_TESTING
  if( p->pTc ) checkBlockWrite(p, (const unsigned char*)pBuf, n, off);
#endif
  f = faultHere(p, 0);
  if( f==1 ) return SQLITE_IOERR_WRITE;
  if( f==2 ){
    p->pReal->pMethods->xWrite(p->pReal, pBuf, n/2, off);
    return SQLITE_IOERR_WRITE;
  }
  return p->pReal->pMethods->xWrite(p->pReal, pBuf, n, off);
}
static int spyTruncate(sqlite3_file *pFile, sqlite3_int64 size){
  SpyFile *p = (SpyFile*)pFile;
  int rc;
  if( faultHere(p, 2) ) return SQLITE_IOERR_TRUNCATE;
  rc = p->pReal->pMethods->xTruncate(p->pReal, size);
  if( p->pShadow && p->role==ROLE_CT && rc==SQLITE_OK ) proofShadowTruncate(p->pShadow, size);
  return rc;
}
#define FWD(p) (((SpyFile*)(p))->pReal)
static int spySync(sqlite3_file *f, int fl){ return FWD(f)->pMethods->xSync(FWD(f), fl); }
static int spyFileSize(sqlite3_file *f, sqlite3_int64 *pSize){ return FWD(f)->pMethods->xFileSize(FWD(f), pSize); }
static int spyLock(sqlite3_file *f, int e){ return FWD(f)->pMethods->xLock(FWD(f), e); }
static int spyUnlock(sqlite3_file *f, int e){ return FWD(f)->pMethods->xUnlock(FWD(f), e); }
static int spyCheckReserved(sqlite3_file *f, int *pOut){ return FWD(f)->pMethods->xCheckReservedLock(FWD(f), pOut); }
static int spyFileControl(sqlite3_file *f, int op, void *pArg){ return FWD(f)->pMethods->xFileControl(FWD(f), op, pArg); }
static int spySectorSize(sqlite3_file *f){ return FWD(f)->pMethods->xSectorSize(FWD(f)); }
static int spyDevChar(sqlite3_file *f){ return FWD(f)->pMethods->xDeviceCharacteristics(FWD(f)); }
static int spyShmMap(sqlite3_file *f, int i, int sz, int w, void volatile **pp){ return FWD(f)->pMethods->xShmMap(FWD(f), i, sz, w, pp); }
static int spyShmLock(sqlite3_file *f, int o, int n, int fl){ return FWD(f)->pMethods->xShmLock(FWD(f), o, n, fl); }
static void spyShmBarrier(sqlite3_file *f){ FWD(f)->pMethods->xShmBarrier(FWD(f)); }
static int spyShmUnmap(sqlite3_file *f, int d){ return FWD(f)->pMethods->xShmUnmap(FWD(f), d); }
/* Memory mapping is forwarded, so that a shim that wrongly allows it for
** an encrypted file hands SQLite ciphertext (and the tests see that). */
static int spyFetch(sqlite3_file *f, sqlite3_int64 o, int n, void **pp){
  if( FWD(f)->pMethods->iVersion<3 ){ *pp = 0; return SQLITE_OK; }
  return FWD(f)->pMethods->xFetch(FWD(f), o, n, pp);
}
static int spyUnfetch(sqlite3_file *f, sqlite3_int64 o, void *p){
  if( FWD(f)->pMethods->iVersion<3 ) return SQLITE_OK;
  return FWD(f)->pMethods->xUnfetch(FWD(f), o, p);
}

static const sqlite3_io_methods spyMethods = {
  3, spyClose, spyRead, spyWrite, spyTruncate, spySync, spyFileSize,
  spyLock, spyUnlock, spyCheckReserved, spyFileControl, spySectorSize,
  spyDevChar, spyShmMap, spyShmLock, spyShmBarrier, spyShmUnmap,
  spyFetch, spyUnfetch
};

static int spyOpen(sqlite3_vfs *pVfs, const char *zName, sqlite3_file *pFile,
                   int flags, int *pOutFlags){
  SpyVfs *pV = (SpyVfs*)pVfs;
  SpyFile *p = (SpyFile*)pFile;
  int rc;
  memset(p, 0, sizeof(*p));
  p->pReal = (sqlite3_file*)&p[1];
  p->pReal->pMethods = 0;
  if( pV->role==ROLE_SPY && zName==0 && proofFaultOpen() ) return SQLITE_CANTOPEN;
  p->role = pV->role;
  p->isTemp = zName==0;
  p->iRec = pV->role==ROLE_SPY ? newRec(zName==0, flags) : -1;
  p->gen = gRec.gen;
  rc = pV->pReal->xOpen(pV->pReal, zName, p->pReal, flags, pOutFlags);
  if( rc!=SQLITE_OK ){
    if( p->pReal->pMethods ){ p->pReal->pMethods->xClose(p->pReal); }
    p->pReal->pMethods = 0;
    proofLock(); { ProofFile *r = rec(p); if( r ) r->open = 0; } proofUnlock();
    return rc;
  }
  p->base.pMethods = &spyMethods;
  if( p->role==ROLE_CT && zName==0 ) p->pShadow = proofShadowAdopt(p->pReal);
  return rc;
}
#define RV(v) (((SpyVfs*)(v))->pReal)
static int spyDelete(sqlite3_vfs *v, const char *z, int s){ return RV(v)->xDelete(RV(v), z, s); }
static int spyAccess(sqlite3_vfs *v, const char *z, int f, int *pOut){ return RV(v)->xAccess(RV(v), z, f, pOut); }
static int spyFullPathname(sqlite3_vfs *v, const char *z, int n, char *zOut){ return RV(v)->xFullPathname(RV(v), z, n, zOut); }
static void *spyDlOpen(sqlite3_vfs *v, const char *z){ return RV(v)->xDlOpen(RV(v), z); }
static void spyDlError(sqlite3_vfs *v, int n, char *z){ RV(v)->xDlError(RV(v), n, z); }
static void (*spyDlSym(sqlite3_vfs *v, void *p, const char *z))(void){ return RV(v)->xDlSym(RV(v), p, z); }
static void spyDlClose(sqlite3_vfs *v, void *p){ RV(v)->xDlClose(RV(v), p); }
static int spyRandomness(sqlite3_vfs *v, int n, char *z){ return RV(v)->xRandomness(RV(v), n, z); }
static int spySleep(sqlite3_vfs *v, int n){ return RV(v)->xSleep(RV(v), n); }
static int spyCurrentTime(sqlite3_vfs *v, double *p){ return RV(v)->xCurrentTime(RV(v), p); }
static int spyGetLastError(sqlite3_vfs *v, int n, char *z){ return RV(v)->xGetLastError(RV(v), n, z); }
static int spyCurrentTimeInt64(sqlite3_vfs *v, sqlite3_int64 *p){ return RV(v)->xCurrentTimeInt64(RV(v), p); }

static SpyVfs gSpy, gCt;
static int spyRegister(SpyVfs *pV, const char *zName, sqlite3_vfs *pReal, int role, int makeDflt){
  sqlite3_vfs *b = &pV->base;
  memset(pV, 0, sizeof(*pV));
  pV->pReal = pReal; pV->role = role;
  b->iVersion = 2;
  b->szOsFile = (int)sizeof(SpyFile) + pReal->szOsFile;
  b->mxPathname = pReal->mxPathname;
  b->zName = zName;
  b->xOpen = spyOpen; b->xDelete = spyDelete; b->xAccess = spyAccess;
  b->xFullPathname = spyFullPathname; b->xDlOpen = spyDlOpen;
  b->xDlError = spyDlError; b->xDlSym = spyDlSym; b->xDlClose = spyDlClose;
  b->xRandomness = spyRandomness; b->xSleep = spySleep;
  b->xCurrentTime = spyCurrentTime; b->xGetLastError = spyGetLastError;
  b->xCurrentTimeInt64 = spyCurrentTimeInt64;
  return sqlite3_vfs_register(b, makeDflt);
}
int proofSpyRegister(sqlite3_vfs *pReal){
  return spyRegister(&gSpy, "proofspy", pReal, ROLE_SPY, 0);
}
int proof_register_ct(void){
  sqlite3_vfs *p = sqlite3_vfs_find(SQLITE_TEMPCRYPT_VFS_NAME);
  if( gCt.pReal ) return SQLITE_OK;
  if( !p ) return SQLITE_ERROR;
  return spyRegister(&gCt, "proofct", p, ROLE_CT, 1);
}

/* Called when tempcrypt opens an encrypted file (pLower is NULL while it
** has no lower file: the memory tier) and again when such a file opens
** its lower file later. */
void proofKeyHook(void *pArg, struct sqlite3_file *pFile,
                  struct sqlite3_file *pLower, int openFlags,
                  const unsigned char aKey[32]){
  SpyFile *p = (SpyFile*)pLower;
  (void)pArg;
  if( proof_key_observer ) proof_key_observer(aKey, openFlags);
  if( proof_verify_layout ) proofShadowNew(pFile, aKey);
  if( p && p->base.pMethods==&spyMethods ){
    p->pTc = pFile;
    proofLock(); { ProofFile *r = rec(p); if( r ) r->encrypted = 1; } proofUnlock();
    if( proof_verify_layout ) p->pShadow = proofShadowAttach(pFile);
  }
}

int64_t proof_counter_checks(int64_t *pnBad){
  int64_t n;
  proofLock(); n = gRec.nCtrWrite; if( pnBad ) *pnBad = gRec.nCtrBad; proofUnlock();
  return n;
}

double proof_entropy(const uint64_t *a, uint64_t *pnTotal){
  uint64_t n = 0; int i; double h = 0;
  for(i=0; i<256; i++) n += a[i];
  if( pnTotal ) *pnTotal = n;
  if( n==0 ) return 0;
  for(i=0; i<256; i++){
    if( a[i] ){ double q = (double)a[i]/(double)n; h -= q*log2(q); }
  }
  return h;
}
