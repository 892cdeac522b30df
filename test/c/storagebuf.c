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
** stride-th).  A failed call changes nothing, except that the stub's
** failed write inside the file stores its first half (a write cut short):
** a read of its range returns what the stub holds, never bytes that were
** not stored.  After the run, with the
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
  if( fails(OP_WRITE) ){
    /* A failed write inside the file stores its first half, as a write
    ** cut short does. */
    if( (i64)iOfst+iAmt<=nLower ) memcpy(aLower+(i64)iOfst, pBuf, (size_t)(iAmt/2));
    return SQLITE_IOERR_WRITE;
  }
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
static u8 *aModel;
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
  /* Fast path: all the bytes agree (most reads). */
  if( iOfst+iAmt<=nModel && memcmp(z, aModel+iOfst, (size_t)iAmt)==0 ) return rc;
  for(i=0; i<iAmt; i++){
    i64 k = iOfst+i;
    u8 want = k<nModel ? aModel[k] : 0;
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
  memset(aLower, 0, (size_t)nHigh); memset(aModel, 0, (size_t)nHigh);
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
        if( o+n>nModel ){
          /* A gap reads as zeros. */
          if( o>nModel ) memset(aModel+nModel, 0, (size_t)(o-nModel));
          nModel = o+n;
        }
      }else if( o<nModel ){
        /* A failed write: its range holds what the stub holds now (the
        ** old bytes, or the first half of a write cut short), never the
        ** bytes it did not store; the size is unchanged. */
        i64 e = o+n<nModel ? o+n : nModel;
        memcpy(aModel+o, aLower+o, (size_t)(e-o));
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
        else memset(aModel+nModel, 0, (size_t)(sz-nModel));
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
      if( (k>=nLower ? 0 : aLower[k])!=aModel[k] ){
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

/* A write larger than the write-behind buffer goes straight to storage;
** here it fails after storing its first half, over two read-ahead
** windows, one in each half.  A read of either must return what storage
** holds: neither the bytes that were not stored nor the ones it replaced. */
static void cutShortWrite(void){
  static u8 aOld[2<<20], aNew[(1<<20)+8192], aGot[4096];
  const int nNew = (int)sizeof(aNew);
  const i64 aAt[2] = { 100000, 800000 };   /* a window in each half */
  StorageBuf *p = 0;
  int i, rc;
  memset(aLower, 0, (size_t)nHigh); nLower = 0; nHigh = sizeof(aOld);
  memset(aCalls, 0, sizeof(aCalls)); faultOp = -1;
  memset(aOld, 0x11, sizeof(aOld)); memset(aNew, 0x22, sizeof(aNew));
  if( storageBufOpen(&p, 1)!=SQLITE_OK ){ CHECK(0, "cut-short write: open failed"); return; }
  CHECK(storageBufWrite(p, aOld, (int)sizeof(aOld), 0)==SQLITE_OK, "cut-short write: the first write failed");
  for(i=0; i<2; i++){
    /* Two reads in a row: the second fills a window from aAt[i]+4096. */
    storageBufRead(p, aGot, 4096, aAt[i]);
    storageBufRead(p, aGot, 4096, aAt[i]+4096);
  }
  faultOp = OP_WRITE; faultAt = aCalls[OP_WRITE]+1; faultPersist = 0;
  rc = storageBufWrite(p, aNew, nNew, 0);
  faultOp = -1;
  CHECK(rc!=SQLITE_OK && aCalls[OP_WRITE]==faultAt, "cut-short write: the write did not fail (%d)", rc);
  CHECK(memcmp(aLower, aNew, (size_t)nNew/2)==0 && aLower[nNew/2]==0x11, "cut-short write: the stub did not store half");
  for(i=0; i<2; i++){
    rc = storageBufRead(p, aGot, 4096, aAt[i]+8192);
    CHECK(rc==SQLITE_OK && memcmp(aGot, aLower+aAt[i]+8192, 4096)==0,
          "cut-short write: a read at %lld gave rc %d and %02x, storage holds %02x",
          (long long)(aAt[i]+8192), rc, aGot[0], aLower[aAt[i]+8192]);
  }
  storageBufClose(p);
  CHECK(nAlloc==0, "cut-short write: %d allocations not freed at close", nAlloc);
  nAlloc = 0;
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
  aLower = malloc(MAXF+64); aModel = malloc(MAXF+64);
  if( !aLower || !aModel ) return 2;
  cutShortWrite();
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
  free(aLower); free(aModel);
  return check_finish("storagebuf");
}
