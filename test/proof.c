/*
** Shared support for the SQL-level proof tests.  See proof.h.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "proof.h"
#include "tempcrypt.h"
#if defined(__has_include)
# if __has_include(<valgrind/memcheck.h>)
#  include <valgrind/memcheck.h>
# endif
#endif
#ifndef VALGRIND_MAKE_MEM_DEFINED
# define VALGRIND_MAKE_MEM_DEFINED(p, n) ((void)(p), (void)(n))
#endif

int proof_nPass = 0, proof_nFail = 0;
int proof_finish(void){
  printf("%d passed, %d failed\n", proof_nPass, proof_nFail);
  fflush(stdout);
  return proof_nFail ? 1 : 0;
}

const char *proof_fault_name[PF_NMODE] = {
  "none", "write-nth", "half-write-nth", "write-from-nth", "read-nth",
  "truncate-nth", "malloc-nth", "io-nth", "io-from-nth", "malloc-from-nth"
};

/* ================================================================ state */
static struct {
  sqlite3_mutex *mx;       /* guards everything below (sorter threads) */
  ProofFile *aFile; int nFile, nAlloc;
  int mode; int64_t n; int armed;
  ProofCounts c;
  char zMarker[40]; int nMarker;
  char zProg[32]; char zTag[4][256];
  unsigned int uRand;
  int gen;                 /* bumped by proof_files_reset() */
  int64_t nCtrWrite, nCtrBad;  /* block-start writes checked / stale */
  int64_t nLayoutChecked, nLayoutBad;
} g;

static void lock(void){ if( g.mx ) sqlite3_mutex_enter(g.mx); }
static void unlock(void){ if( g.mx ) sqlite3_mutex_leave(g.mx); }

const char *proof_marker(void){ return g.zMarker; }

/* ================================================================ allocator
** Own allocator on libc malloc with a 16-byte header.  Each block is
** linked in a list so proof_mem_scan() can look at every byte SQLite ever
** got from us; with quarantine on, freed blocks stay in the list. */
typedef struct MemHdr { struct MemHdr *pNext, *pPrev; int64_t n; int64_t freed; } MemHdr;
static MemHdr *gMemList = 0;
static int gQuarantine = 0;
static int64_t gMemBlocks = 0;
static sqlite3_mutex *gMemMx = 0;   /* static, so no allocation needed */

static int fault_malloc(void){
  int fail = 0;
  lock();
  g.c.nMalloc++;
  if( g.armed && ((g.mode==PF_MALLOC_NTH && g.c.nMalloc==g.n)
                || (g.mode==PF_MALLOC_FROM_NTH && g.c.nMalloc>=g.n)) ){
    fail = 1; g.c.nFired++;
  }
  unlock();
  return fail;
}
static void memLink(MemHdr *p){
  if( gMemMx ) sqlite3_mutex_enter(gMemMx);
  p->pPrev = 0; p->pNext = gMemList;
  if( gMemList ) gMemList->pPrev = p;
  gMemList = p; gMemBlocks++;
  if( gMemMx ) sqlite3_mutex_leave(gMemMx);
}
static void memUnlink(MemHdr *p){
  if( gMemMx ) sqlite3_mutex_enter(gMemMx);
  if( p->pPrev ) p->pPrev->pNext = p->pNext; else gMemList = p->pNext;
  if( p->pNext ) p->pNext->pPrev = p->pPrev;
  gMemBlocks--;
  if( gMemMx ) sqlite3_mutex_leave(gMemMx);
}
static void *pmMalloc(int n){
  MemHdr *p;
  if( fault_malloc() ) return 0;
  p = malloc(sizeof(MemHdr) + (size_t)n);
  if( !p ) return 0;
  p->n = n; p->freed = 0;
  memLink(p);
  return &p[1];
}
static void pmFree(void *pOld){
  MemHdr *p;
  if( !pOld ) return;
  p = ((MemHdr*)pOld) - 1;
  if( gQuarantine ){ p->freed = 1; return; }
  memUnlink(p);
  free(p);
}
static int pmSize(void *pOld){ return pOld ? (int)(((MemHdr*)pOld)-1)->n : 0; }
static void *pmRealloc(void *pOld, int n){
  void *pNew;
  int nOld = pmSize(pOld);
  pNew = pmMalloc(n);
  if( !pNew ) return 0;
  if( pOld ) memcpy(pNew, pOld, (size_t)(nOld<n ? nOld : n));
  pmFree(pOld);
  return pNew;
}
static int pmRoundup(int n){ return (n+7)&~7; }
static int pmInit(void *p){ (void)p; return SQLITE_OK; }
static void pmShutdown(void *p){ (void)p; }
static const sqlite3_mem_methods gMem = {
  pmMalloc, pmFree, pmRealloc, pmSize, pmRoundup, pmInit, pmShutdown, 0
};

void proof_mem_quarantine(int on){ gQuarantine = on; }
int64_t proof_mem_blocks(void){ return gMemBlocks; }
void proof_mem_release_quarantine(void){
  MemHdr *p, *pNext;
  if( gMemMx ) sqlite3_mutex_enter(gMemMx);
  for(p=gMemList; p; p=pNext){
    pNext = p->pNext;
    if( p->freed ){
      if( p->pPrev ) p->pPrev->pNext = p->pNext; else gMemList = p->pNext;
      if( p->pNext ) p->pNext->pPrev = p->pPrev;
      gMemBlocks--;
      free(p);
    }
  }
  if( gMemMx ) sqlite3_mutex_leave(gMemMx);
}
static int contains(const unsigned char *a, int64_t n, const unsigned char *b, int nb){
  int64_t i;
  if( nb<=0 || n<nb ) return 0;
  for(i=0; i+nb<=n; i++){
    if( a[i]==b[0] && memcmp(a+i, b, (size_t)nb)==0 ) return 1;
  }
  return 0;
}
int proof_mem_scan(const unsigned char *needle, int nNeedle, int *pnPartial){
  MemHdr *p; int nHit = 0, nPart = 0, k;
  if( gMemMx ) sqlite3_mutex_enter(gMemMx);
  for(p=gMemList; p; p=p->pNext){
    const unsigned char *a = (const unsigned char*)&p[1];
    /* Blocks hold bytes nobody initialized; under valgrind scan a copy
    ** marked defined, so that the scan itself is no memcheck error. */
    unsigned char *aCopy = malloc((size_t)p->n + 1);
    if( aCopy ){
      memcpy(aCopy, a, (size_t)p->n);
      VALGRIND_MAKE_MEM_DEFINED(aCopy, (size_t)p->n);
      a = aCopy;
    }
    if( contains(a, p->n, needle, nNeedle) ) nHit++;
    if( nNeedle==32 ){
      for(k=0; k<4; k++){
        if( contains(a, p->n, needle+8*k, 8) ){ nPart++; break; }
      }
    }
    free(aCopy);
  }
  if( gMemMx ) sqlite3_mutex_leave(gMemMx);
  if( pnPartial ) *pnPartial = nPart;
  return nHit;
}

/* ================================================================ spy VFS
** One implementation, two roles: SPY under tempcrypt (records, marker
** scan, faults, declassification of ciphertext for ctgrind) and CT above
** tempcrypt (marks plaintext secret on the way in, public on the way out).
*/
enum { ROLE_SPY = 0, ROLE_CT = 1 };
typedef struct SpyVfs { sqlite3_vfs base; sqlite3_vfs *pReal; int role; } SpyVfs;
typedef struct SpyFile {
  sqlite3_file base;
  sqlite3_file *pReal;
  int iRec;              /* index in g.aFile, or -1 */
  int gen;               /* g.gen when iRec was assigned */
  int role;
  int isTemp;
  unsigned char *aBuf; int nBuf; /* CT role: copy of the write buffer */
  sqlite3_file *pTc;     /* the tempcrypt file above (encrypted files) */
  uint64_t mxCtr;        /* largest block counter written so far */
  struct Shadow *pShadow;/* layout verification (see below) */
} SpyFile;

/*
** Layout verification (proof_verify_layout): for every encrypted temp file
** a shadow, in libc memory, holds the file's key (from the test hook) and
** a model of its plaintext kept by the shim above tempcrypt.  The spy
** below decrypts every block write with its own ChaCha20, written from
** RFC 8439 independently of src/chacha20.c, using the counter in front of
** the block as nonce, and compares with the model: the bytes on disk must
** be exactly the documented format.
*/
typedef struct Shadow {
  sqlite3_file *pTc;
  unsigned char key[32];
  unsigned char *a; int64_t n, nAlloc;
  int nRef, bModel;
  struct Shadow *pNext;
} Shadow;
int proof_verify_layout = 0;
static Shadow *gShadows = 0;
void (*proof_ct_secret)(const void *, size_t) = 0;
void (*proof_ct_public)(const void *, size_t) = 0;
void (*proof_key_observer)(const unsigned char *, int) = 0;
void (*proof_after_stmt)(sqlite3 *, int, void *) = 0;
void *proof_after_arg = 0;

void proof_files_reset(void){
  lock();
  g.nFile = 0;
  g.gen++;
  unlock();
}
int proof_files_count(void){ return g.nFile; }
ProofFile *proof_file(int i){ return &g.aFile[i]; }

static int newRec(int isTemp, int flags){
  int i;
  lock();
  if( g.nFile>=g.nAlloc ){
    int nNew = g.nAlloc ? 2*g.nAlloc : 64;
    ProofFile *a = realloc(g.aFile, sizeof(ProofFile)*(size_t)nNew);
    if( !a ){ unlock(); return -1; }
    g.aFile = a; g.nAlloc = nNew;
  }
  i = g.nFile++;
  memset(&g.aFile[i], 0, sizeof(ProofFile));
  g.aFile[i].isTemp = isTemp;
  g.aFile[i].flags = flags;
  g.aFile[i].open = 1;
  unlock();
  return i;
}
/* Records are addressed by index; a reset makes old indexes invalid, so
** each file also remembers the generation it was created in. */
static ProofFile *rec(SpyFile *p){
  if( p->iRec<0 || p->iRec>=g.nFile || p->gen!=g.gen ) return 0;
  return &g.aFile[p->iRec];
}

#define RROTL(v, c) (((v) << (c)) | ((v) >> (32 - (c))))
#define RQR(a, b, c, d) a += b; d ^= a; d = RROTL(d, 16); c += d; b ^= c; b = RROTL(b, 12); \
                        a += b; d ^= a; d = RROTL(d, 8);  c += d; b ^= c; b = RROTL(b, 7);
static uint32_t rle32(const unsigned char *p){
  return (uint32_t)p[0] | (uint32_t)p[1]<<8 | (uint32_t)p[2]<<16 | (uint32_t)p[3]<<24;
}
/* Reference ChaCha20 (RFC 8439), deliberately plain and separate. */
static void refChacha20(unsigned char *out, const unsigned char *in, size_t n,
                        const unsigned char key[32], const unsigned char nonce[12],
                        uint32_t ctr){
  uint32_t st[16], x[16];
  size_t i, j;
  st[0] = 0x61707865; st[1] = 0x3320646e; st[2] = 0x79622d32; st[3] = 0x6b206574;
  for(i=0; i<8; i++) st[4+i] = rle32(key+4*i);
  st[12] = ctr;
  for(i=0; i<3; i++) st[13+i] = rle32(nonce+4*i);
  for(i=0; i<n; i+=64){
    for(j=0; j<16; j++) x[j] = st[j];
    for(j=0; j<10; j++){
      RQR(x[0], x[4], x[8], x[12]) RQR(x[1], x[5], x[9], x[13])
      RQR(x[2], x[6], x[10], x[14]) RQR(x[3], x[7], x[11], x[15])
      RQR(x[0], x[5], x[10], x[15]) RQR(x[1], x[6], x[11], x[12])
      RQR(x[2], x[7], x[8], x[13]) RQR(x[3], x[4], x[9], x[14])
    }
    for(j=0; j<64 && i+j<n; j++){
      uint32_t w = x[j/4] + st[j/4];
      out[i+j] = in[i+j] ^ (unsigned char)(w >> (8*(j%4)));
    }
    st[12]++;
  }
}
/* RFC 8439 2.3.2 as a self-test of the reference. */
static int refSelfTest(void){
  static const unsigned char want[16] = {0x10,0xf1,0xe7,0xe4,0xd1,0x3b,0x59,0x15,
                                         0x50,0x0f,0xdd,0x1f,0xa3,0x20,0x71,0xc4};
  unsigned char key[32], nonce[12] = {0,0,0,9,0,0,0,0x4a,0,0,0,0}, z[16], o[16];
  int i;
  for(i=0; i<32; i++) key[i] = (unsigned char)i;
  memset(z, 0, sizeof(z));
  refChacha20(o, z, 16, key, nonce, 1);
  return memcmp(o, want, 16)==0;
}

static void shadowRelease(Shadow *sh){
  Shadow **pp;
  if( !sh ) return;
  lock();
  if( --sh->nRef>0 ){ unlock(); return; }
  for(pp=&gShadows; *pp; pp=&(*pp)->pNext){
    if( *pp==sh ){ *pp = sh->pNext; break; }
  }
  unlock();
  memset(sh->key, 0, sizeof(sh->key));
  free(sh->a);
  free(sh);
}
static void shadowWrite(Shadow *sh, const void *pBuf, int n, int64_t off){
  if( off+n > sh->nAlloc ){
    int64_t nNew = (off+n)*2 + 4096;
    unsigned char *a = realloc(sh->a, (size_t)nNew);
    if( !a ){ sh->bModel = 0; return; }
    sh->a = a; sh->nAlloc = nNew;
  }
  if( off > sh->n ) memset(sh->a + sh->n, 0, (size_t)(off - sh->n));
  memcpy(sh->a + off, pBuf, (size_t)n);
  if( off+n > sh->n ) sh->n = off+n;
}
static void shadowTruncate(Shadow *sh, int64_t size){
  if( size > sh->n ){
    if( size > sh->nAlloc ){
      unsigned char *a = realloc(sh->a, (size_t)size);
      if( !a ){ sh->bModel = 0; return; }
      sh->a = a; sh->nAlloc = size;
    }
    memset(sh->a + sh->n, 0, (size_t)(size - sh->n));
  }
  sh->n = size;
}
static void shadowVerify(Shadow *sh, int B, const unsigned char *a, int n, int64_t off){
  unsigned char nonce[12], *pt;
  int64_t k = off/(B+8), i, nData = n-8, base = k*B;
  int bad = 0;
  if( !sh->bModel || nData<=0 ) return;
  memcpy(nonce, a, 8); memset(nonce+8, 0, 4);
  pt = malloc((size_t)nData);
  if( !pt ) return;
  refChacha20(pt, a+8, (size_t)nData, sh->key, nonce, 0);
  for(i=0; i<nData; i++){
    unsigned char m = base+i < sh->n ? sh->a[base+i] : 0;
    if( pt[i]!=m ){ bad = 1; break; }
  }
  free(pt);
  lock();
  g.nLayoutChecked++;
  if( bad && g.nLayoutBad++ < 5 ){
    fprintf(stderr, "proof: block %lld (%d bytes at offset %lld) does not decrypt to the"
            " plaintext SQLite wrote (first difference at byte %lld)\n",
            (long long)k, n, (long long)off, (long long)i);
  }
  unlock();
}
int64_t proof_layout_checks(int64_t *pnBad){
  int64_t n;
  lock(); n = g.nLayoutChecked; if( pnBad ) *pnBad = g.nLayoutBad; unlock();
  return n;
}

static int countHits(const unsigned char *a, int64_t n){
  int64_t i; int nHit = 0;
  for(i=0; i+g.nMarker<=n; i++){
    if( a[i]==(unsigned char)g.zMarker[0]
     && memcmp(a+i, g.zMarker, (size_t)g.nMarker)==0 ) nHit++;
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
    unsigned char *aChunk = malloc(65536 + 64);
    if( aChunk && p->pReal->pMethods->xFileSize(p->pReal, &sz)==SQLITE_OK ){
      int64_t nHit = 0;
      for(off=0; off<sz; off+=65536){
        int n = (int)((sz-off) < 65536+g.nMarker-1 ? (sz-off) : 65536+g.nMarker-1);
        int rc2 = p->pReal->pMethods->xRead(p->pReal, aChunk, n, off);
        if( rc2!=SQLITE_OK && rc2!=SQLITE_IOERR_SHORT_READ ) break;
        if( proof_ct_public ) proof_ct_public(aChunk, (size_t)n);
        nHit += countHits(aChunk, n);
      }
      lock();
      r = rec(p);
      if( r ){ r->nDiskHit += nHit; r->open = 0; }
      unlock();
    }
    free(aChunk);
  }
  rc = p->pReal->pMethods ? p->pReal->pMethods->xClose(p->pReal) : SQLITE_OK;
  shadowRelease(p->pShadow);
  p->pShadow = 0;
  free(p->aBuf);
  p->aBuf = 0;
  return rc;
}

static int faultHere(SpyFile *p, int op){
  /* op: 0 write, 1 read, 2 truncate.  Returns 0 none, 1 fail, 2 half. */
  int r = 0;
  ProofFile *pr;
  if( p->role!=ROLE_SPY ) return 0;
  lock();
  pr = rec(p);
  if( pr && pr->isTemp ){
    int64_t k, nIo = ++g.c.nIo;
    if( g.armed && ((g.mode==PF_IO_NTH && nIo==g.n)
                  || (g.mode==PF_IO_FROM_NTH && nIo>=g.n)) ) r = 1;
    if( op==0 ){
      k = ++g.c.nWrite;
      if( g.armed ){
        if( g.mode==PF_WRITE_NTH && k==g.n ) r = 1;
        if( g.mode==PF_HALF_WRITE_NTH && k==g.n ) r = 2;
        if( g.mode==PF_WRITE_FROM_NTH && k>=g.n ) r = 1;
      }
    }else if( op==1 ){
      k = ++g.c.nRead;
      if( g.armed && g.mode==PF_READ_NTH && k==g.n ) r = 1;
    }else{
      k = ++g.c.nTrunc;
      if( g.armed && g.mode==PF_TRUNC_NTH && k==g.n ) r = 1;
    }
    if( r ) g.c.nFired++;
  }
  unlock();
  return r;
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

static int spyWrite(sqlite3_file *pFile, const void *pBuf, int n, sqlite3_int64 off){
  SpyFile *p = (SpyFile*)pFile;
  int f;
  if( p->role==ROLE_CT ){
    if( p->pShadow ) shadowWrite(p->pShadow, pBuf, n, off);
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
    lock();
    r = rec(p);
    if( r ){
      r->nWrite++; r->nByte += n; r->nHit += nHit>0;
      for(i=0; i<n; i++) r->aHist[((const unsigned char*)pBuf)[i]]++;
    }
    unlock();
  }
#ifdef SQLITE_TEMPCRYPT_TESTING
  /* The documented layout: block k at k*(B+8) starts with the 8-byte
  ** little-endian counter, fresh for every block write.  So every write
  ** that starts a block must carry a counter larger than any this file
  ** has seen (never 0, never reused, not even after a truncate). */
  if( p->pTc ){
    int B = sqlite3_tempcrypt_test_block_size(p->pTc);
    if( B>0 && n>=8 && off%(B+8)==0 ){
      const unsigned char *a = (const unsigned char*)pBuf;
      uint64_t c = 0; int i;
      for(i=7; i>=0; i--) c = (c<<8) | a[i];
      lock();
      g.nCtrWrite++;
      if( c==0 || c<=p->mxCtr ){
        if( g.nCtrBad++ < 5 ){
          fprintf(stderr, "proof: stale block counter %llu (largest so far %llu) at offset %lld\n",
                  (unsigned long long)c, (unsigned long long)p->mxCtr, (long long)off);
        }
      }
      unlock();
      if( c>p->mxCtr ) p->mxCtr = c;
      if( p->pShadow ) shadowVerify(p->pShadow, B, a, n, off);
    }
  }
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
  if( p->pShadow && p->role==ROLE_CT && rc==SQLITE_OK ) shadowTruncate(p->pShadow, size);
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
  p->role = pV->role;
  p->isTemp = zName==0;
  p->iRec = pV->role==ROLE_SPY ? newRec(zName==0, flags) : -1;
  p->gen = g.gen;
  rc = pV->pReal->xOpen(pV->pReal, zName, p->pReal, flags, pOutFlags);
  if( rc!=SQLITE_OK ){
    if( p->pReal->pMethods ){ p->pReal->pMethods->xClose(p->pReal); }
    p->pReal->pMethods = 0;
    lock(); { ProofFile *r = rec(p); if( r ) r->open = 0; } unlock();
    return rc;
  }
  p->base.pMethods = &spyMethods;
  if( p->role==ROLE_CT && zName==0 ){
    Shadow *sh;
    lock();
    for(sh=gShadows; sh && sh->pTc!=p->pReal; sh=sh->pNext){}
    if( sh && !sh->bModel ){ sh->bModel = 1; sh->nRef++; p->pShadow = sh; }
    unlock();
  }
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
int proof_register_ct(void){
  sqlite3_vfs *p = sqlite3_vfs_find(SQLITE_TEMPCRYPT_VFS_NAME);
  if( gCt.pReal ) return SQLITE_OK;
  if( !p ) return SQLITE_ERROR;
  return spyRegister(&gCt, "proofct", p, ROLE_CT, 1);
}

#ifdef SQLITE_TEMPCRYPT_TESTING
static void keyHook(void *pArg, struct sqlite3_file *pFile,
                    struct sqlite3_file *pLower, int openFlags,
                    const unsigned char aKey[32]){
  SpyFile *p = (SpyFile*)pLower;
  (void)pArg; (void)pFile;
  if( proof_key_observer ) proof_key_observer(aKey, openFlags);
  if( p && p->base.pMethods==&spyMethods ){
    p->pTc = pFile;
    lock(); { ProofFile *r = rec(p); if( r ) r->encrypted = 1; } unlock();
    if( proof_verify_layout ){
      Shadow *sh = calloc(1, sizeof(Shadow));
      if( sh ){
        sh->pTc = pFile; memcpy(sh->key, aKey, 32); sh->nRef = 1;
        lock(); sh->pNext = gShadows; gShadows = sh; unlock();
        p->pShadow = sh;
      }
    }
  }
}
#endif

/* ================================================================ fault */
void proof_fault_arm(int mode, int64_t n){
  lock();
  memset(&g.c, 0, sizeof(g.c));
  g.mode = mode; g.n = n; g.armed = 1;
  unlock();
}
void proof_fault_disarm(void){ lock(); g.armed = 0; g.mode = PF_NONE; unlock(); }
void proof_fault_counts(ProofCounts *p){ lock(); *p = g.c; unlock(); }
int64_t proof_counter_checks(int64_t *pnBad){
  int64_t n;
  lock(); n = g.nCtrWrite; if( pnBad ) *pnBad = g.nCtrBad; unlock();
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

/* ================================================================ init */
int proof_init(const char *zProg){
  int rc;
  sqlite3_vfs *pDflt;
  const char *z;
  unsigned int r = 0;
  z = strrchr(zProg, '/');
  snprintf(g.zProg, sizeof(g.zProg), "%s", z ? z+1 : zProg);
  sqlite3_config(SQLITE_CONFIG_MALLOC, &gMem);
  /* Memory statistics on, so that a soft heap limit puts the page caches
  ** under pressure: then even ephemeral tables (whose cache is otherwise
  ** 2 MB) spill to their temp files with small workloads. */
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1);
  sqlite3_config(SQLITE_CONFIG_PMASZ, 4);           /* sorter PMAs spill early */
  sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, 2048);/* statement journals too */
  rc = sqlite3_initialize();
  if( rc ) return rc;
  gMemMx = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_APP2);
  g.mx = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_APP1);
  sqlite3_soft_heap_limit64(1);
  pDflt = sqlite3_vfs_find(0);
  if( !pDflt ) return SQLITE_ERROR;
  rc = spyRegister(&gSpy, "proofspy", pDflt, ROLE_SPY, 0);
  if( rc ) return rc;
  rc = sqlite3_tempcrypt_register("proofspy", 1);
  if( rc ) return rc;
#ifdef SQLITE_TEMPCRYPT_TESTING
  sqlite3_tempcrypt_test_key_hook(keyHook, 0);
#endif
  /* The shim above tempcrypt (the default VFS from now on) models each
  ** temp file's plaintext for the layout verification. */
  rc = proof_register_ct();
  if( rc ) return rc;
  if( !refSelfTest() ){
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

/* ================================================================ SQL */
static void mkFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc; (void)argv;
  sqlite3_result_text(ctx, g.zMarker, g.nMarker, SQLITE_TRANSIENT);
}
/* mkrep(n): the marker and a counter, n times: a long value whose every
** page has a marker in it. */
static void mkrepFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  int n = sqlite3_value_int(argv[0]), i;
  sqlite3_str *s = sqlite3_str_new(0);
  (void)argc;
  for(i=0; i<n; i++) sqlite3_str_appendf(s, "%s%06d.", g.zMarker, i);
  {
    int len = sqlite3_str_length(s);
    char *z = sqlite3_str_finish(s);
    if( !z ){ sqlite3_result_error_nomem(ctx); return; }
    sqlite3_result_text(ctx, z, len, sqlite3_free);
  }
}

sqlite3 *proof_open(const char *zPath, const ProofCfg *pCfg){
  sqlite3 *db = 0;
  char zSql[256];
  int rc = sqlite3_open_v2(zPath, &db,
      SQLITE_OPEN_READWRITE|SQLITE_OPEN_CREATE, 0);
  if( rc ){ sqlite3_close(db); return 0; }
  rc = sqlite3_create_function(db, "mk", 0, SQLITE_UTF8|SQLITE_DETERMINISTIC, 0, mkFunc, 0, 0);
  if( rc==SQLITE_OK ) rc = sqlite3_create_function(db, "mkrep", 1,
      SQLITE_UTF8|SQLITE_DETERMINISTIC, 0, mkrepFunc, 0, 0);
  snprintf(zSql, sizeof(zSql),
      "PRAGMA temp_store=%d; PRAGMA cache_size=8; PRAGMA threads=%d;"
      "PRAGMA mmap_size=67108864; PRAGMA synchronous=OFF; PRAGMA temp.page_size=%d; PRAGMA temp.cache_size=8;",
      pCfg ? pCfg->tempStore : 1, pCfg ? pCfg->threads : 0,
      (pCfg && pCfg->tempPageSize) ? pCfg->tempPageSize : 4096);
  if( rc==SQLITE_OK ) rc = sqlite3_exec(db, zSql, 0, 0, 0);
  if( rc ){
    if( getenv("PROOF_VERBOSE") ) fprintf(stderr, "proof_open(%s): %s\n", zPath, sqlite3_errmsg(db));
    sqlite3_close(db); return 0;
  }
  return db;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n){
  const unsigned char *a = p; size_t i;
  for(i=0; i<n; i++){ h ^= a[i]; h *= 0x100000001b3ull; }
  return h;
}
static uint64_t hashRow(uint64_t h, sqlite3_stmt *pStmt){
  int i, n = sqlite3_column_count(pStmt);
  for(i=0; i<n; i++){
    int t = sqlite3_column_type(pStmt, i);
    unsigned char tb = (unsigned char)t;
    h = fnv(h, &tb, 1);
    if( t==SQLITE_INTEGER ){ sqlite3_int64 v = sqlite3_column_int64(pStmt, i); h = fnv(h, &v, 8); }
    else if( t==SQLITE_FLOAT ){ double v = sqlite3_column_double(pStmt, i); h = fnv(h, &v, 8); }
    else if( t!=SQLITE_NULL ){
      const void *z = sqlite3_column_blob(pStmt, i);
      int nb = sqlite3_column_bytes(pStmt, i);
      h = fnv(h, &nb, sizeof(nb));
      if( z ) h = fnv(h, z, (size_t)nb);
    }
  }
  return h;
}

void proof_run_script(sqlite3 *db, const char *zScript, ProofRun *pRun,
                      const ProofRun *pRef){
  const char *z = zScript;
  memset(pRun, 0, sizeof(*pRun));
  while( *z && pRun->nStmt<PROOF_MAXSTMT ){
    const char *zEnd = strchr(z, ';');
    size_t n = zEnd ? (size_t)(zEnd - z) : strlen(z);
    char zSql[1024];
    sqlite3_stmt *pStmt = 0;
    int rc, i = pRun->nStmt;
    uint64_t h = 0xcbf29ce484222325ull;
    int64_t nRow = 0;
    if( n>=sizeof(zSql) ) n = sizeof(zSql)-1;
    memcpy(zSql, z, n); zSql[n] = 0;
    z = zEnd ? zEnd+1 : z+n;
    while( *z==' ' || *z=='\n' ) z++;
    if( strspn(zSql, " \n\t")==strlen(zSql) ) continue;
    pRun->nStmt++;
    rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
    if( rc==SQLITE_OK && pStmt ){
      /* A PRAGMA's answer may name the configuration (journal_mode is
      ** "memory" for an in-memory temp database): only its rc counts. */
      int bPragma = sqlite3_strnicmp(zSql + strspn(zSql, " \n\t"), "PRAGMA", 6)==0;
      while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
        if( !bPragma ) h = hashRow(h, pStmt);
        nRow++;
      }
      if( rc==SQLITE_DONE ) rc = SQLITE_OK;
      sqlite3_finalize(pStmt);
    }
    pRun->aRc[i] = rc;
    pRun->aHash[i] = h;
    pRun->aRows[i] = nRow;
    if( proof_after_stmt ) proof_after_stmt(db, i, proof_after_arg);
    if( pRef && (i>=pRef->nStmt || pRef->aRc[i]!=rc) ) break;
  }
}

int proof_finish_tx(sqlite3 *db){
  int rc = SQLITE_OK;
  if( !sqlite3_get_autocommit(db) ){
    rc = sqlite3_exec(db, "COMMIT", 0, 0, 0);
    if( rc!=SQLITE_OK && !sqlite3_get_autocommit(db) ){
      sqlite3_exec(db, "ROLLBACK", 0, 0, 0);
    }
  }
  return rc;
}

static uint64_t hashQuery(sqlite3 *db, const char *zSql, uint64_t h, int *pOk){
  sqlite3_stmt *pStmt = 0;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &pStmt, 0);
  if( rc ){ *pOk = 0; return h; }
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ) h = hashRow(h, pStmt);
  if( rc!=SQLITE_DONE ) *pOk = 0;
  sqlite3_finalize(pStmt);
  return h;
}
uint64_t proof_db_hash(sqlite3 *db){ return proof_schema_hash(db, "main"); }
uint64_t proof_schema_hash(sqlite3 *db, const char *zSchema){
  uint64_t h = 0xcbf29ce484222325ull;
  int ok = 1;
  sqlite3_stmt *pStmt = 0;
  char *zQ = sqlite3_mprintf("SELECT type, name, tbl_name, sql FROM \"%w\".sqlite_schema ORDER BY name", zSchema);
  if( !zQ ) return 0;
  h = hashQuery(db, zQ, h, &ok);
  sqlite3_free(zQ);
  zQ = sqlite3_mprintf("SELECT name FROM \"%w\".sqlite_schema WHERE type='table' ORDER BY name", zSchema);
  if( !zQ ) return 0;
  if( sqlite3_prepare_v2(db, zQ, -1, &pStmt, 0) ){ sqlite3_free(zQ); return 0; }
  sqlite3_free(zQ);
  while( sqlite3_step(pStmt)==SQLITE_ROW ){
    char *zSql = sqlite3_mprintf("SELECT * FROM \"%w\".\"%w\" ORDER BY rowid", zSchema,
                                 (const char*)sqlite3_column_text(pStmt, 0));
    if( !zSql ){ ok = 0; break; }
    h = hashQuery(db, zSql, h, &ok);
    sqlite3_free(zSql);
  }
  if( sqlite3_finalize(pStmt) ) ok = 0;
  return ok ? (h|1) : 0;
}
int proof_integrity_ok(sqlite3 *db){ return proof_schema_integrity_ok(db, "main"); }
int proof_schema_integrity_ok(sqlite3 *db, const char *zSchema){
  sqlite3_stmt *pStmt = 0;
  int ok = 0;
  char *zQ = sqlite3_mprintf("PRAGMA \"%w\".integrity_check", zSchema);
  int rc = zQ ? sqlite3_prepare_v2(db, zQ, -1, &pStmt, 0) : SQLITE_NOMEM;
  sqlite3_free(zQ);
  if( rc ) return 0;
  if( sqlite3_step(pStmt)==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(pStmt, 0);
    ok = z && strcmp(z, "ok")==0;
    if( sqlite3_step(pStmt)!=SQLITE_DONE ) ok = 0;
  }
  sqlite3_finalize(pStmt);
  return ok;
}

int proof_make_base(const char *zPath, int nRow){
  sqlite3 *db;
  int rc;
  char *zSql;
  proof_remove_db(zPath);
  db = proof_open(zPath, 0);
  if( !db ) return SQLITE_CANTOPEN;
  zSql = sqlite3_mprintf(
    "PRAGMA page_size=1024;"
    "CREATE TABLE t(id INTEGER PRIMARY KEY, g INT, a TEXT, b TEXT, n REAL);"
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<%d)"
    " INSERT INTO t SELECT i, i%%13, mk() || printf('-%%05d-', (i*7919)%%%d)"
    "   || substr('abcdefghijklmnopqrstuvwxyz', 1+i%%26),"
    " printf('%%08x', (i*2654435761)%%4294967296) || mk(), i*0.25 FROM c;"
    "CREATE TABLE u(id INTEGER PRIMARY KEY, s TEXT, k INT UNIQUE);"
    "INSERT INTO u SELECT id, a, id FROM t;",
    nRow, nRow);
  rc = zSql ? sqlite3_exec(db, zSql, 0, 0, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  if( sqlite3_close(db) && rc==SQLITE_OK ) rc = SQLITE_ERROR;
  return rc;
}

/* ================================================================ workloads
** Each runs on the base database (t: nRow rows, every a and b carry the
** marker; u: same rows with a UNIQUE column).  All results are ordered
** totally, so they can be compared across configurations. */
const ProofWorkload proof_workloads[] = {
  { "temp-table+index", 0,
    "CREATE TEMP TABLE tt AS SELECT * FROM t;"
    "CREATE INDEX temp.tti ON tt(a);"
    /* mmap asked for while the temp database is open: it must still be
    ** read through tempcrypt, never mapped as ciphertext. */
    "PRAGMA mmap_size=67108864;"
    "SELECT count(*), sum(length(a)) FROM tt WHERE a>'Z';"
    "SELECT a, b FROM tt ORDER BY a LIMIT 5", 0 },
  { "order-by", 0, "SELECT a, b, n FROM t ORDER BY b", 0 },
  { "order-by-threads", 0,
    "PRAGMA threads=4; SELECT a, b, n FROM t ORDER BY b DESC", 1 },
  { "distinct", 0,
    "SELECT DISTINCT a FROM t ORDER BY 1; SELECT DISTINCT g, a || b FROM t", 0 },
  { "group-by", 0, "SELECT a, count(*), sum(n) FROM t GROUP BY a", 0 },
  { "union-except", 0,
    "SELECT a FROM t UNION SELECT b FROM t ORDER BY 1;"
    "SELECT a FROM t EXCEPT SELECT a FROM t WHERE g=3 ORDER BY 1;"
    "SELECT count(*), max(x) FROM (SELECT a AS x FROM t UNION SELECT b FROM t);"
    "SELECT count(*), min(x) FROM (SELECT a||b AS x FROM t EXCEPT SELECT a||b FROM t WHERE g=5)", 0 },
  { "in-subquery", 0,
    "SELECT count(*), sum(id) FROM t WHERE a||b||a IN (SELECT a||b||a FROM t WHERE g<12)", 0 },
  { "window", 0,
    "SELECT a, g, row_number() OVER (PARTITION BY g ORDER BY b),"
    " sum(n) OVER (PARTITION BY g) FROM t ORDER BY b", 0 },
  { "cte-materialized", 0,
    "WITH m AS MATERIALIZED (SELECT a || b AS a, b, g FROM t WHERE g<11)"
    " SELECT x.a, x.b FROM m AS x WHERE x.g=(SELECT max(g) FROM m) ORDER BY x.b", 0 },
  { "create-index", 0, "CREATE INDEX ti ON t(a, b)", 0 },
  { "vacuum", "CREATE INDEX ub ON u(s)", "VACUUM", 0 },
  { "stmt-journal", 0,
    "BEGIN;"
    "UPDATE u SET s = s || 'x';"
    "UPDATE u SET s = mk() || s, k = CASE WHEN id=(SELECT max(id) FROM u) THEN 1 ELSE k END;"
    "COMMIT", 0 },
  { "savepoint", 0,
    "BEGIN; UPDATE u SET s = s || 'y';"
    "SAVEPOINT s1; UPDATE u SET s = mk() || 'z' || s; DELETE FROM u WHERE id%3=0;"
    "ROLLBACK TO s1; UPDATE u SET k = k + 100000 WHERE id%2=0; RELEASE s1; COMMIT", 0 },
  { "attach-anon", 0,
    "ATTACH '' AS anon; PRAGMA anon.cache_size=8;"
    "CREATE TABLE anon.x AS SELECT * FROM t;"
    "SELECT count(*), max(a) FROM anon.x; DETACH anon", 0 },
  { "temp-journal", 0,
    "PRAGMA temp.journal_mode=TRUNCATE;"
    "CREATE TEMP TABLE tj AS SELECT * FROM t;"
    "BEGIN; UPDATE tj SET a = a || 'j'; DELETE FROM tj WHERE g<3; COMMIT;"
    "BEGIN; UPDATE tj SET b = mk() || b WHERE g%2=0; ROLLBACK;"
    "SELECT count(*), max(a), max(b) FROM tj", 0 },
  { "overflow", 0,
    "CREATE TEMP TABLE big(id INTEGER PRIMARY KEY, v TEXT);"
    "INSERT INTO big SELECT id, mkrep(200+id%50) FROM t WHERE id<=40;"
    "SELECT id, length(v), substr(v, 3000, 40) FROM big ORDER BY id", 0 },
};
const int proof_nWorkload = (int)(sizeof(proof_workloads)/sizeof(proof_workloads[0]));

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
