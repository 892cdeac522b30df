/*
** The temp-file buffers of the browser VFS (wasm/browser/storage_buf.c)
** against a sequential model, natively, over a stub of the storage bridge
** whose calls can fail.
**
**     storagebuf [-s SEED] [-n PROGRAMS] [-ops N] [-stride K]
**
** Each program is a random sequence of writes (appends of a block plus
** its counter as tempcrypt writes them, small and large writes anywhere,
** past the end), reads (sequential streams from several offsets in turn,
** as the sorter's merge reads, and random ones), truncates, syncs and
** size calls on one file.  The model holds what every call reported
** done.  Checked after every call:
**   - a read that succeeds returns the model's bytes (zeros past its
**     size, SQLITE_IOERR_SHORT_READ exactly when the read passes the end);
**   - a size that succeeds is the model's.
** Each program runs fault-free, then again with the K-th bridge call of
** each kind (write, read, truncate, sync) failing once and failing from
** then on, and with the K-th allocation failing, for every K (every
** stride-th).  A failed write makes its range unknown to the model; a
** failed call of any other kind changes nothing.  After the run, with the
** fault cleared: a sync succeeds, every byte the stub holds differently
** from the model (written, reported done, then lost by a failed flush)
** fails to read, and the file takes a write and reads it back.  Every allocation
** is freed (the count is checked).  Seeds are printed and replayable.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "storage_vfs.h"

#define MAXF  (8<<20)           /* largest file a program makes */

typedef sqlite3_int64 i64;
typedef unsigned char u8;

/* ---- the stub bridge: one file in memory, faults by call number */
enum { OP_WRITE, OP_READ, OP_TRUNC, OP_SYNC, OP_MALLOC, N_OP };
static const char *azOp[] = { "write", "read", "truncate", "sync", "malloc" };
static u8 *aLower;
static i64 nLower;
static int aCalls[N_OP];
static int faultOp = -1, faultAt = 0, faultPersist = 0;
static int nAlloc;

static int fails(int op){
  aCalls[op]++;
  return op==faultOp && (aCalls[op]==faultAt || (faultPersist && aCalls[op]>faultAt));
}

int storage_js_write(int fileId, const void *pBuf, int iAmt, double iOfst){
  (void)fileId;
  if( fails(OP_WRITE) ) return SQLITE_IOERR_WRITE;
  memcpy(aLower+(i64)iOfst, pBuf, (size_t)iAmt);
  if( (i64)iOfst+iAmt>nLower ) nLower = (i64)iOfst+iAmt;
  return SQLITE_OK;
}
int storage_js_read(int fileId, void *pBuf, int iAmt, double iOfst){
  i64 o = (i64)iOfst, n;
  (void)fileId;
  if( fails(OP_READ) ){ memset(pBuf, 0xa5, (size_t)iAmt); return SQLITE_IOERR_READ; }
  n = o>=nLower ? 0 : (nLower-o<iAmt ? nLower-o : iAmt);
  memcpy(pBuf, aLower+o, (size_t)n);
  memset((u8*)pBuf+n, 0, (size_t)(iAmt-n));
  return n<iAmt ? SQLITE_IOERR_SHORT_READ : SQLITE_OK;
}
int storage_js_truncate(int fileId, double size){
  (void)fileId;
  if( fails(OP_TRUNC) ) return SQLITE_IOERR_TRUNCATE;
  if( (i64)size<nLower ) memset(aLower+(i64)size, 0, (size_t)(nLower-(i64)size));
  nLower = (i64)size;
  return SQLITE_OK;
}
int storage_js_sync(int fileId, int flags){
  (void)fileId; (void)flags;
  return fails(OP_SYNC) ? SQLITE_IOERR_FSYNC : SQLITE_OK;
}
double storage_js_size(int fileId){ (void)fileId; return (double)nLower; }

/* The allocator storage_buf.c uses: counted, and failing as planned. */
void *sqlite3_malloc64(sqlite3_uint64 n){
  if( fails(OP_MALLOC) ) return 0;
  nAlloc++;
  return malloc((size_t)n);
}
void *sqlite3_malloc(int n){ return sqlite3_malloc64((sqlite3_uint64)n); }
void sqlite3_free(void *p){ if( p ){ nAlloc--; free(p); } }

/* ---- the model */
static u8 *aModel, *aKnown;
static i64 nModel;
static i64 nHigh = MAXF+64;     /* bytes of the three arrays a program touched */

static unsigned rng;
static unsigned rnd(unsigned n){
  rng ^= rng<<13; rng ^= rng>>17; rng ^= rng<<5;
  return n ? rng % n : 0;
}

static char zWhere[160];      /* the program and fault, for failures */

static int checkRead(StorageBuf *p, i64 iOfst, int iAmt, u8 *z){
  int rc = storageBufRead(p, z, iAmt, iOfst), i;
  if( rc!=SQLITE_OK && rc!=SQLITE_IOERR_SHORT_READ ) return rc;
  CHECK(rc==(iOfst+iAmt>nModel ? SQLITE_IOERR_SHORT_READ : SQLITE_OK),
        "%s: read %d at %lld of %lld bytes gave rc %d", zWhere, iAmt, (long long)iOfst, (long long)nModel, rc);
  /* Fast path: the known bytes agree (most reads). */
  if( iOfst+iAmt<=nModel && memcmp(z, aModel+iOfst, (size_t)iAmt)==0 ) return rc;
  for(i=0; i<iAmt; i++){
    i64 k = iOfst+i;
    u8 want = k<nModel ? aModel[k] : 0;
    if( k<nModel && !aKnown[k] ) continue;
    if( z[i]!=want ){
      CHECK(0, "%s: read %d at %lld: byte %lld is %02x, the model has %02x",
            zWhere, iAmt, (long long)iOfst, (long long)k, z[i], want);
      break;
    }
  }
  return rc;
}

static void fill(u8 *z, int n){
  int i;
  unsigned v = rnd(1u<<30);
  for(i=0; i<n; i++) z[i] = (u8)(v + i*7 + (i>>8));
}

/* One program; returns 0, or 1 if a check failed. */
static int runProgram(unsigned seed, int nOps){
  static u8 aData[(2<<20)+64], aOut[(2<<20)+64];
  StorageBuf *p = 0;
  i64 aStream[6];
  int nFailBefore = check_nFail, i, rc;
  rng = seed*2654435761u + 1;
  memset(aCalls, 0, sizeof(aCalls));
  /* Clear what the last program used (its stub file and model). */
  memset(aLower, 0, (size_t)nHigh); memset(aModel, 0, (size_t)nHigh); memset(aKnown, 1, (size_t)nHigh);
  nLower = 0; nModel = 0; nHigh = 0;
  for(i=0; i<6; i++) aStream[i] = 0;
  if( storageBufOpen(&p, 1)!=SQLITE_OK ) return 0;   /* a failed malloc: nothing to check */
  for(i=0; i<nOps; i++){
    unsigned op = rnd(100);
    if( nModel+(3<<20)>nHigh ) nHigh = nModel+(3<<20)>MAXF ? MAXF : nModel+(3<<20);
    if( op<45 ){                                     /* write */
      int n; i64 o;
      unsigned kind = rnd(10);
      if( kind<6 ){ n = 8200; o = nModel - nModel%8200; if( rnd(4)==0 ) o = nModel; }
      else if( kind<8 ){ n = 1+rnd(20000); o = rnd((unsigned)(nModel+1)); }
      else if( kind<9 ){ n = rnd(4) ? 20000+rnd(200000) : (1<<20) + rnd(1<<20); o = rnd((unsigned)(nModel+1)); }
      else { n = 1+rnd(9000); o = nModel + rnd(300000); }
      if( o+n>MAXF ){ o = rnd(MAXF/2); n = n>MAXF/4 ? MAXF/4 : n; }
      fill(aData, n);
      rc = storageBufWrite(p, aData, n, o);
      if( rc==SQLITE_OK ){
        memcpy(aModel+o, aData, (size_t)n);
        memset(aKnown+o, 1, (size_t)n);
        if( o+n>nModel ){
          /* A gap reads as zeros. */
          if( o>nModel ){ memset(aModel+nModel, 0, (size_t)(o-nModel)); memset(aKnown+nModel, 1, (size_t)(o-nModel)); }
          nModel = o+n;
        }
      }else{
        memset(aKnown+o, 0, (size_t)n);
        if( o+n>nModel ){
          if( o>nModel ) memset(aKnown+nModel, 0, (size_t)(o-nModel));
          memset(aModel+nModel, 0, (size_t)(o+n-nModel));
          break;      /* the size is unknown now: end the program */
        }
      }
    }else if( op<80 ){                               /* read */
      int n; i64 o;
      if( rnd(3) ){
        int s = rnd(6);
        n = rnd(8)==0 ? 1+rnd(40000) : rnd(2) ? 8200 : 4096;
        if( aStream[s]>=nModel || rnd(40)==0 ) aStream[s] = (i64)rnd((unsigned)(nModel/8200+1))*8200;
        o = aStream[s];
        aStream[s] += n;
      }else{
        n = 1+rnd(rnd(8)==0 ? 600000 : 9000);
        o = rnd((unsigned)(nModel+10000));
      }
      if( o+n>MAXF ) continue;
      checkRead(p, o, n, aOut);
    }else if( op<87 ){                               /* truncate */
      i64 sz = rnd(3)==0 ? nModel + rnd(50000) : rnd((unsigned)(nModel+1));
      rc = storageBufTruncate(p, sz);
      if( rc==SQLITE_OK ){
        if( sz<nModel ){ memset(aModel+sz, 0, (size_t)(nModel-sz)); }
        else { memset(aModel+nModel, 0, (size_t)(sz-nModel)); memset(aKnown+nModel, 1, (size_t)(sz-nModel)); }
        nModel = sz;
      }
    }else if( op<92 ){                               /* sync */
      storageBufSync(p, 0);
    }else{                                           /* size */
      i64 sz = -1;
      if( storageBufSize(p, &sz)==SQLITE_OK ){
        CHECK(sz==nModel, "%s: size %lld, the model has %lld", zWhere, (long long)sz, (long long)nModel);
      }
    }
  }
  /* The fault cleared: a sync succeeds, and every byte the storage holds
  ** differently from the model (one a failed flush lost) fails to read. */
  faultOp = -1;
  rc = storageBufSync(p, 0);
  CHECK(rc==SQLITE_OK, "%s: a sync with the fault cleared gave %d", zWhere, rc);
  if( rc==SQLITE_OK ){
    i64 k;
    int nLost = 0;
    for(k=0; k<nModel; k++){
      if( aKnown[k] && (k>=nLower ? 0 : aLower[k])!=aModel[k] ){
        u8 b;
        nLost++;
        if( storageBufRead(p, &b, 1, k)==SQLITE_OK ){
          CHECK(0, "%s: byte %lld was reported written, is not in storage, and reads as %02x (the model has %02x)",
                zWhere, (long long)k, b, aModel[k]);
          break;
        }
      }
    }
    /* Everything else still works: a write and its read-back. */
    memset(aData, 0x5c, 64);
    if( nModel+64>nHigh ) nHigh = nModel+64;
    if( storageBufWrite(p, aData, 64, nModel)==SQLITE_OK ){
      CHECK(storageBufRead(p, aOut, 64, nModel)==SQLITE_OK && memcmp(aOut, aData, 64)==0,
            "%s: a write past the end did not read back", zWhere);
    }else{
      CHECK(0, "%s: a write past the end failed after the fault (%d lost bytes)", zWhere, nLost);
    }
  }
  storageBufClose(p);
  CHECK(nAlloc==0, "%s: %d allocations not freed at close", zWhere, nAlloc);
  nAlloc = 0;
  return check_nFail>nFailBefore;
}

int main(int argc, char **argv){
  unsigned seed = 20261204;
  int nProg = 6, nOps = 400, stride = 1, i, prog;
  int nRuns = 0, nFired = 0;
  for(i=1; i+1<argc; i+=2){
    if( strcmp(argv[i], "-s")==0 ) seed = (unsigned)strtoul(argv[i+1], 0, 10);
    else if( strcmp(argv[i], "-n")==0 ) nProg = atoi(argv[i+1]);
    else if( strcmp(argv[i], "-ops")==0 ) nOps = atoi(argv[i+1]);
    else if( strcmp(argv[i], "-stride")==0 ) stride = atoi(argv[i+1]);
  }
  printf("storagebuf: seed %u (replay: -s %u -n %d -ops %d -stride %d)\n", seed, seed, nProg, nOps, stride);
  aLower = malloc(MAXF+64); aModel = malloc(MAXF+64); aKnown = malloc(MAXF+64);
  if( !aLower || !aModel || !aKnown ) return 2;
  for(prog=0; prog<nProg; prog++){
    unsigned s = seed + (unsigned)prog;
    int counts[N_OP], op;
    snprintf(zWhere, sizeof(zWhere), "program %u, no fault", s);
    faultOp = -1;
    if( runProgram(s, nOps) ) continue;
    memcpy(counts, aCalls, sizeof(counts));
    printf("  program %u: %d writes, %d reads, %d truncates, %d syncs, %d allocations below the buffers\n",
           s, counts[OP_WRITE], counts[OP_READ], counts[OP_TRUNC], counts[OP_SYNC], counts[OP_MALLOC]);
    for(op=0; op<N_OP; op++){
      int at, persist;
      for(at=1; at<=counts[op]; at+=stride){
        for(persist=0; persist<2; persist++){
          snprintf(zWhere, sizeof(zWhere), "program %u, %s fails at call %d%s", s, azOp[op], at, persist ? " and after" : "");
          faultOp = op; faultAt = at; faultPersist = persist;
          nRuns++;
          if( runProgram(s, nOps) ) goto next;
          if( aCalls[op]>=at ) nFired++;
        }
      }
    }
  next:;
  }
  printf("  %d runs with a fault, %d of them reached it\n", nRuns, nFired);
  CHECK(nFired>0, "no fault fired: the check could not fail");
  free(aLower); free(aModel); free(aKnown);
  return check_finish("storagebuf");
}
