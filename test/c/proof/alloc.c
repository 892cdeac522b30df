/*
** SQLite's allocator in the proof tests: libc malloc with a header that
** links every block in a list, so that proof_mem_scan() can look at every
** byte SQLite ever got; with quarantine on, freed blocks stay in the list
** with their contents intact.  Allocations count for the malloc faults.
*/
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#if defined(__has_include)
# if __has_include(<valgrind/memcheck.h>)
#  include <valgrind/memcheck.h>
# endif
#endif
#ifndef VALGRIND_MAKE_MEM_DEFINED
# define VALGRIND_MAKE_MEM_DEFINED(p, n) ((void)(p), (void)(n))
#endif

typedef struct MemHdr { struct MemHdr *pNext, *pPrev; int64_t n; int64_t freed; } MemHdr;
static MemHdr *gMemList = 0;
static int gQuarantine = 0;
static int64_t gMemBlocks = 0;
static sqlite3_mutex *gMemMx = 0;   /* static, so no allocation needed */

static void memEnter(void){ if( gMemMx ) sqlite3_mutex_enter(gMemMx); }
static void memLeave(void){ if( gMemMx ) sqlite3_mutex_leave(gMemMx); }

static void memLink(MemHdr *p){
  memEnter();
  p->pPrev = 0; p->pNext = gMemList;
  if( gMemList ) gMemList->pPrev = p;
  gMemList = p; gMemBlocks++;
  memLeave();
}
/* Called with the list's mutex held. */
static void memUnlinkHeld(MemHdr *p){
  if( p->pPrev ) p->pPrev->pNext = p->pNext; else gMemList = p->pNext;
  if( p->pNext ) p->pNext->pPrev = p->pPrev;
  gMemBlocks--;
}
static void *pmMalloc(int n){
  MemHdr *p;
  if( proofFaultMalloc() ) return 0;
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
  memEnter(); memUnlinkHeld(p); memLeave();
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

void proofMemInstall(void){ sqlite3_config(SQLITE_CONFIG_MALLOC, &gMem); }
void proofMemInit(void){ gMemMx = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_APP2); }

void proof_mem_quarantine(int on){ gQuarantine = on; }
int64_t proof_mem_blocks(void){ return gMemBlocks; }
void proof_mem_release_quarantine(void){
  MemHdr *p, *pNext;
  memEnter();
  for(p=gMemList; p; p=pNext){
    pNext = p->pNext;
    if( p->freed ){ memUnlinkHeld(p); free(p); }
  }
  memLeave();
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
  memEnter();
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
  memLeave();
  if( pnPartial ) *pnPartial = nPart;
  return nHit;
}
