/*
** Layout verification (proof_verify_layout): for every encrypted temp file
** a shadow, in libc memory, holds the file's key (from the test hook) and
** a model of its plaintext kept by the shim above tempcrypt.  The spy
** below decrypts every block write with the reference ChaCha20 (layout.c)
** and compares with the model: the bytes on disk must be exactly the
** documented format.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include "layout.h"

struct Shadow {
  sqlite3_file *pTc;
  unsigned char key[32];
  unsigned char *a; int64_t n, nAlloc;
  int nRef, bModel;
  Shadow *pNext;
};
int proof_verify_layout = 0;
static Shadow *gShadows = 0;
static int64_t gnChecked = 0, gnBad = 0;

/* The shadow of tempcrypt file pTc, made (unreferenced) if there is none. */
void proofShadowNew(sqlite3_file *pTc, const unsigned char aKey[32]){
  Shadow *sh;
  proofLock();
  for(sh=gShadows; sh && sh->pTc!=pTc; sh=sh->pNext){}
  if( sh==0 && (sh = calloc(1, sizeof(Shadow)))!=0 ){
    sh->pTc = pTc; memcpy(sh->key, aKey, 32);
    sh->pNext = gShadows; gShadows = sh;
  }
  proofUnlock();
}
static Shadow *shadowRef(sqlite3_file *pTc, int bModel){
  Shadow *sh;
  proofLock();
  for(sh=gShadows; sh && sh->pTc!=pTc; sh=sh->pNext){}
  if( sh && bModel ){
    if( sh->bModel ) sh = 0; else sh->bModel = 1;
  }
  if( sh ) sh->nRef++;
  proofUnlock();
  return sh;
}
Shadow *proofShadowAdopt(sqlite3_file *pTc){ return shadowRef(pTc, 1); }
Shadow *proofShadowAttach(sqlite3_file *pTc){ return shadowRef(pTc, 0); }
void proofShadowRelease(Shadow *sh){
  Shadow **pp;
  if( !sh ) return;
  proofLock();
  if( --sh->nRef>0 ){ proofUnlock(); return; }
  for(pp=&gShadows; *pp; pp=&(*pp)->pNext){
    if( *pp==sh ){ *pp = sh->pNext; break; }
  }
  proofUnlock();
  memset(sh->key, 0, sizeof(sh->key));
  free(sh->a);
  free(sh);
}
void proofShadowWrite(Shadow *sh, const void *pBuf, int n, int64_t off){
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
void proofShadowTruncate(Shadow *sh, int64_t size){
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
void proofShadowVerify(Shadow *sh, int B, uint64_t c, const unsigned char *a, int n,
                       int64_t off){
  unsigned char *pt;
  int64_t k = layout_block_of(B, off), i, nData = n, base = layout_block_start(B, k);
  int bad = 0;
  if( !sh->bModel || nData<=0 ) return;
  pt = malloc((size_t)nData);
  if( !pt ) return;
  layout_xor(pt, a, (size_t)nData, sh->key, c, 0);
  for(i=0; i<nData; i++){
    unsigned char m = base+i < sh->n ? sh->a[base+i] : 0;
    if( pt[i]!=m ){ bad = 1; break; }
  }
  free(pt);
  proofLock();
  gnChecked++;
  if( bad && gnBad++ < 5 ){
    fprintf(stderr, "proof: block %lld (%d bytes at offset %lld) does not decrypt to the"
            " plaintext SQLite wrote (first difference at byte %lld)\n",
            (long long)k, n, (long long)off, (long long)i);
  }
  proofUnlock();
}
int64_t proof_layout_checks(int64_t *pnBad){
  int64_t n;
  proofLock(); n = gnChecked; if( pnBad ) *pnBad = gnBad; proofUnlock();
  return n;
}
