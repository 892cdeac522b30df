/*
** Replays temp-file I/O traces (tier-trace.c) against candidate policies
** of tempcrypt's memory tier and budgets, and prints what each would send
** to the lower VFS (encrypted) and read back from it, and its peak memory.
**
**   tier-sim BUDGET_MIB,... TRACE...
**
** Each trace is one workload run (a file of TierRec).  Blocks are as in
** tempcrypt: the page size for databases (from the first write), 4096
** bytes otherwise.  Policies (see docs/performance.md, "The memory tier"):
**   whole    a file lives in memory until a write needs a block the budget
**            cannot give; then all of it goes to the lower file (written
**            once) and it stays there
**   whole0   whole, but a spilled file truncated to 0 is in memory again
**   first    a block gets memory when first written if the budget has
**            room, else goes to the lower file; nothing ever moves
**   firstw   first, and a write to a block on the lower file moves it into
**            memory when the budget has room
**   lru      write-allocate; when the budget is full a file evicts its own
**            least recently used block (written to the lower file)
**   lrur     lru, and a read of a block on the lower file brings it in
**   glru     lru over all files' blocks (not thread-safe: reference only)
** Bytes: lower writes count whole blocks for evictions and spills and the
** bytes written otherwise; lower reads the bytes read (a whole block when
** a block is brought in).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"
#include "tier-trace.h"

enum { P_WHOLE, P_WHOLE0, P_FIRST, P_FIRSTW, P_LRU, P_LRUR, P_GLRU, P_N };
static const char *azPolicy[P_N] = { "whole", "whole0", "first", "firstw", "lru", "lrur", "glru" };

enum { S_HOLE = 0, S_MEM, S_DISK };

typedef struct Node { int file; int64_t blk; int prev, next; } Node;
typedef struct File {
  int used, isDb, B, spilled;
  int64_t size;
  int64_t nBlk; unsigned char *aState; int *aNode;   /* per block */
  int head, tail;                                    /* LRU: head = most recent */
  int64_t nMem;
} File;

static TierRec *aRec; static size_t nRec;
static File *aFile; static int nFile;
static Node *aNode; static int nNode, nNodeAlloc, freeNode = -1;
static int gHead = -1, gTail = -1;
static int64_t memUsed, memPeak, budget;
static double lowW, lowR, logicalW, logicalR;
static int policy;

static int isGlobal(void){ return policy==P_GLRU; }
/* The list a node lives on. */
static int *headOf(int f){ return isGlobal() ? &gHead : &aFile[f].head; }
static int *tailOf(int f){ return isGlobal() ? &gTail : &aFile[f].tail; }

static void unlinkNode(int n){
  Node *p = &aNode[n];
  int *h = headOf(p->file), *t = tailOf(p->file);
  if( p->prev>=0 ) aNode[p->prev].next = p->next; else *h = p->next;
  if( p->next>=0 ) aNode[p->next].prev = p->prev; else *t = p->prev;
  p->prev = p->next = -1;
}
static void pushFront(int n){
  Node *p = &aNode[n];
  int *h = headOf(p->file), *t = tailOf(p->file);
  p->prev = -1; p->next = *h;
  if( *h>=0 ) aNode[*h].prev = n; else *t = n;
  *h = n;
}
static void touch(int n){ unlinkNode(n); pushFront(n); }

static void grow(File *f, int64_t nBlk){
  if( nBlk<=f->nBlk ) return;
  {
    int64_t n = f->nBlk ? f->nBlk : 64;
    while( n<nBlk ) n *= 2;
    f->aState = realloc(f->aState, (size_t)n);
    f->aNode = realloc(f->aNode, (size_t)n*sizeof(int));
    memset(f->aState+f->nBlk, 0, (size_t)(n-f->nBlk));
    memset(f->aNode+f->nBlk, -1, (size_t)(n-f->nBlk)*sizeof(int));
    f->nBlk = n;
  }
}

/* Give block k of file fi memory (the caller checked the budget). */
static void toMem(int fi, int64_t k){
  File *f = &aFile[fi];
  int n;
  if( freeNode>=0 ){ n = freeNode; freeNode = aNode[n].next; }
  else{
    if( nNode>=nNodeAlloc ){ nNodeAlloc = nNodeAlloc ? 2*nNodeAlloc : 1024; aNode = realloc(aNode, sizeof(Node)*(size_t)nNodeAlloc); }
    n = nNode++;
  }
  aNode[n].file = fi; aNode[n].blk = k; aNode[n].prev = aNode[n].next = -1;
  pushFront(n);
  f->aState[k] = S_MEM; f->aNode[k] = n; f->nMem++;
  memUsed += f->B;
  if( memUsed>memPeak ) memPeak = memUsed;
}
/* Release block k's memory; its content goes to state st. */
static void fromMem(int fi, int64_t k, int st){
  File *f = &aFile[fi];
  int n = f->aNode[k];
  unlinkNode(n);
  aNode[n].next = freeNode; freeNode = n;
  f->aNode[k] = -1; f->aState[k] = (unsigned char)st; f->nMem--;
  memUsed -= f->B;
}

/* Spill file fi entirely (whole). */
static void spillFile(int fi){
  File *f = &aFile[fi];
  int64_t k;
  for(k=0; k<f->nBlk && f->nMem>0; k++){
    if( f->aState[k]==S_MEM ){ lowW += f->B; fromMem(fi, k, S_DISK); }
  }
  f->spilled = 1;
}

/* Make room for one block of file fi: 1 if memory is now available. */
static int makeRoom(int fi){
  File *f = &aFile[fi];
  if( memUsed + f->B <= budget ) return 1;
  if( policy==P_LRU || policy==P_LRUR ){
    while( memUsed + f->B > budget && f->tail>=0 ){
      int n = f->tail;
      lowW += f->B;
      fromMem(fi, aNode[n].blk, S_DISK);
    }
    return memUsed + f->B <= budget;
  }
  if( policy==P_GLRU ){
    while( memUsed + f->B > budget && gTail>=0 ){
      int n = gTail, g = aNode[n].file;
      lowW += aFile[g].B;
      fromMem(g, aNode[n].blk, S_DISK);
    }
    return memUsed + f->B <= budget;
  }
  return 0;
}

static void doWrite(int fi, int64_t off, int amt){
  File *f = &aFile[fi];
  logicalW += amt;
  if( f->B==0 ){
    f->B = 4096;
    if( f->isDb && amt>=512 && amt<=65536 && (amt&(amt-1))==0 && off%amt==0 ) f->B = amt;
  }
  while( amt>0 ){
    int64_t k = off / f->B;
    int o = (int)(off % f->B), n = f->B - o;
    int st;
    if( n>amt ) n = amt;
    grow(f, k+1);
    st = f->aState[k];
    if( st==S_MEM ){
      touch(f->aNode[k]);
    }else if( (policy==P_WHOLE || policy==P_WHOLE0) && f->spilled ){
      lowW += n; f->aState[k] = S_DISK;
    }else if( st==S_DISK && (policy==P_FIRST || policy==P_WHOLE || policy==P_WHOLE0) ){
      lowW += n;
    }else if( makeRoom(fi) ){
      if( st==S_DISK && (o>0 || n<f->B) ) lowR += f->B;   /* read-modify-write */
      toMem(fi, k);
    }else if( policy==P_WHOLE || policy==P_WHOLE0 ){
      spillFile(fi);
      lowW += n; f->aState[k] = S_DISK;
    }else{
      lowW += n; f->aState[k] = S_DISK;
    }
    off += n; amt -= n;
  }
  if( off>f->size ) f->size = off;
}

static void doRead(int fi, int64_t off, int amt){
  File *f = &aFile[fi];
  logicalR += amt;
  if( f->B==0 ) return;
  if( off+amt>f->size ) amt = off>=f->size ? 0 : (int)(f->size-off);
  while( amt>0 ){
    int64_t k = off / f->B;
    int o = (int)(off % f->B), n = f->B - o;
    if( n>amt ) n = amt;
    grow(f, k+1);
    if( f->aState[k]==S_MEM ){
      touch(f->aNode[k]);
    }else if( f->aState[k]==S_DISK || ((policy==P_WHOLE || policy==P_WHOLE0) && f->spilled) ){
      if( policy==P_LRUR && makeRoom(fi) ){ lowR += f->B; toMem(fi, k); }
      else lowR += n;
    }
    off += n; amt -= n;
  }
}

static void doTruncate(int fi, int64_t size){
  File *f = &aFile[fi];
  int64_t k, kFirst;
  if( f->B==0 ){ f->size = size; return; }
  kFirst = (size + f->B - 1)/f->B;
  for(k=kFirst; k<f->nBlk; k++){
    if( f->aState[k]==S_MEM ) fromMem(fi, k, S_HOLE);
    else f->aState[k] = S_HOLE;
  }
  f->size = size;
  if( size==0 && policy==P_WHOLE0 ) f->spilled = 0;
}

static void doClose(int fi){
  File *f = &aFile[fi];
  doTruncate(fi, 0);
  free(f->aState); free(f->aNode);
  memset(f, 0, sizeof(*f));
}

static void run(void){
  size_t i;
  int fi;
  memUsed = memPeak = 0; lowW = lowR = logicalW = logicalR = 0;
  nNode = 0; freeNode = -1; gHead = gTail = -1;
  for(fi=0; fi<nFile; fi++) memset(&aFile[fi], 0, sizeof(File));
  for(i=0; i<nRec; i++){
    TierRec *r = &aRec[i];
    fi = (int)r->file;
    switch( r->op ){
      case TIER_OPEN:
        memset(&aFile[fi], 0, sizeof(File));
        aFile[fi].used = 1; aFile[fi].head = aFile[fi].tail = -1;
        aFile[fi].isDb = (r->flags & (SQLITE_OPEN_MAIN_DB|SQLITE_OPEN_TEMP_DB|SQLITE_OPEN_TRANSIENT_DB))!=0;
        break;
      case TIER_WRITE: doWrite(fi, r->off, r->amt); break;
      case TIER_READ: doRead(fi, r->off, r->amt); break;
      case TIER_TRUNCATE: doTruncate(fi, r->off); break;
      case TIER_CLOSE: doClose(fi); break;
    }
  }
  for(fi=0; fi<nFile; fi++) if( aFile[fi].used ) doClose(fi);
}

int main(int argc, char **argv){
  int a, nBudget = 0, b;
  double aBudget[32];
  char *z;
  if( argc<3 ){ fprintf(stderr, "usage: tier-sim MIB,MIB,... TRACE...\n"); return 2; }
  for(z=argv[1]; *z && nBudget<32; ){
    aBudget[nBudget++] = strtod(z, &z);
    if( *z==',' ) z++;
  }
  printf("trace\tpolicy\tbudget_mib\tlogical_w_mib\tlogical_r_mib\tlower_w_mib\tlower_r_mib\tpeak_mib\n");
  for(a=2; a<argc; a++){
    FILE *in = fopen(argv[a], "rb");
    long sz;
    size_t i;
    if( !in ){ fprintf(stderr, "tier-sim: cannot open %s\n", argv[a]); return 1; }
    fseek(in, 0, SEEK_END); sz = ftell(in); fseek(in, 0, SEEK_SET);
    nRec = (size_t)sz / sizeof(TierRec);
    aRec = malloc(nRec*sizeof(TierRec) + 1);
    if( fread(aRec, sizeof(TierRec), nRec, in)!=nRec ){ fprintf(stderr, "tier-sim: short read\n"); return 1; }
    fclose(in);
    nFile = 0;
    for(i=0; i<nRec; i++) if( (int)aRec[i].file>=nFile ) nFile = (int)aRec[i].file + 1;
    aFile = calloc((size_t)nFile + 1, sizeof(File));
    for(policy=0; policy<P_N; policy++){
      for(b=0; b<nBudget; b++){
        budget = (int64_t)(aBudget[b]*1048576.0);
        run();
        printf("%s\t%s\t%g\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\n", argv[a], azPolicy[policy], aBudget[b],
               logicalW/1048576.0, logicalR/1048576.0, lowW/1048576.0, lowR/1048576.0,
               memPeak/1048576.0);
        fflush(stdout);
      }
    }
    free(aRec); free(aFile);
  }
  free(aNode);
  return 0;
}
