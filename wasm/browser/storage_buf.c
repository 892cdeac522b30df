/*
** Write-behind and read-ahead for the temp files of the "storage" VFS.
**
** Every storage call crosses from wasm into JS, and on OPFS a call costs
** 30-45 us whatever its size, so temp-file time follows the number of
** calls.  tempcrypt writes and reads one block (a page) per call; these buffers turn the sorter's appends and its
** merge's sequential reads into calls of up to STORAGE_WBUF and
** STORAGE_RBUF bytes.  Only files without a name get them (SQLite's temp
** files, which no other connection can open and which the backend deletes
** on close); named files (database, journal, WAL) go straight through.
**
** Write-behind: one buffer of STORAGE_WBUF bytes holds a contiguous range
** [iW, iW+nW) not yet written.  A write inside or right after that range
** is copied in; any other write first flushes it.  If a flush fails, the
** writes it carried were already reported as done: the call that flushed
** fails, and those bytes are lost for good.  Every later read that
** touches them fails with the same error, so nothing reported written is
** ever read back as anything else; they stop being lost only when the
** file no longer holds them (a truncate below them, or writes over all
** of them at one end of the range).  Writes, truncates, syncs and reads
** elsewhere go on: SQLite rolls the temp file back (its pager rewrites
** or truncates what the statement changed) and the connection's TEMP
** database outlives a full disk.  Closing drops what is buffered: the
** file is deleted then anyway.
**
** Read-ahead: STORAGE_NSLOT windows of up to STORAGE_RBUF bytes, each
** following one stream of reads.  A read that a window holds is copied
** from it.  A read that starts where a window's stream last read is
** sequential: it refills that window from its offset, reading twice what
** the last refill did (from STORAGE_RMIN up to STORAGE_RBUF, as an OS's
** read-ahead ramps up).  Any other read goes straight to storage, and the
** least recently used window starts following it.  So random page reads
** (the b-trees of DISTINCT, a temp table) cost what they did; the
** sorter's merge, which reads its runs of one file in turn, reads each a
** window at a time; and more streams than windows cost at most a small
** first refill each, never a full window per block.  A write patches the
** windows it overlaps once it is done or buffered, and a window's bytes
** are overlaid with the write-behind range, so a read always sees the
** latest write; a write or flush that fails empties the windows it
** overlaps instead, so no window holds bytes that storage may not.
**
** The size is kept here (the file is this connection's alone): xFileSize
** makes no call.  Buffers are allocated at a file's first write and its
** first sequential read, never per call; an allocation failure only means
** no buffering for that call.
*/
#include <string.h>
#include "storage_vfs.h"

#ifndef STORAGE_WBUF
# define STORAGE_WBUF  (1<<20)     /* write-behind bytes per temp file */
#endif
#ifndef STORAGE_RBUF
# define STORAGE_RBUF  (128<<10)   /* largest read-ahead, bytes per window */
#endif
#define STORAGE_RMIN  (16<<10)     /* a stream's first read-ahead */
#define STORAGE_NSLOT 32           /* windows: streams followed at once */

typedef sqlite3_int64 i64;
typedef unsigned char u8;

typedef struct StorageWindow StorageWindow;
struct StorageWindow {
  u8 *a;            /* STORAGE_RBUF bytes, or NULL until first used */
  i64 iOfst;        /* file offset of a[0] */
  int n;            /* valid bytes in a[] (0: empty) */
  i64 iNext;        /* where the stream this window follows read last */
  int nFill;        /* bytes of its last refill (0: none yet) */
  unsigned iUsed;   /* clock of the last use, for LRU */
};

struct StorageBuf {
  int fileId;
  int rcLost;       /* why bytes [iLost, iLostEnd) were lost (0: none) */
  i64 iLost, iLostEnd;
  i64 iSize;        /* the file's size, buffered bytes included */
  u8 *aW;           /* write-behind buffer, STORAGE_WBUF bytes, or NULL */
  i64 iW;           /* file offset of aW[0] */
  int nW;           /* bytes of aW not yet written */
  unsigned iClock;
  StorageWindow aWin[STORAGE_NSLOT];
};

/* Copy the part of src (n bytes at file offset iSrc) that overlaps dst
** (nDst bytes at iDst) into dst. */
static void overlay(u8 *dst, i64 iDst, int nDst, const u8 *src, i64 iSrc, int n){
  i64 lo = iDst>iSrc ? iDst : iSrc;
  i64 hi = iDst+nDst<iSrc+n ? iDst+nDst : iSrc+n;
  if( lo<hi ) memcpy(dst + (lo-iDst), src + (lo-iSrc), (size_t)(hi-lo));
}

int storageBufOpen(StorageBuf **pp, int fileId){
  StorageBuf *p;
  double d;
  int i;
  *pp = 0;
  d = storage_js_size(fileId);
  if( d<0 ) return SQLITE_IOERR_FSTAT;
  p = sqlite3_malloc64(sizeof(*p));
  if( p==0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->fileId = fileId;
  p->iSize = (i64)d;
  for(i=0; i<STORAGE_NSLOT; i++) p->aWin[i].iNext = -1;
  *pp = p;
  return SQLITE_OK;
}

/* Bytes [iOfst, iEnd) were reported written and are not in storage: a
** read of them fails with rc from now on.  One range covers them all. */
static void bufLose(StorageBuf *p, int rc, i64 iOfst, i64 iEnd){
  if( p->rcLost==0 ){ p->iLost = iOfst; p->iLostEnd = iEnd; }
  if( iOfst<p->iLost ) p->iLost = iOfst;
  if( iEnd>p->iLostEnd ) p->iLostEnd = iEnd;
  p->rcLost = rc;
}

/* A write or truncate left bytes [iOfst, iEnd) as the file holds them
** now: the lost range shrinks by what it covers at either end. */
static void bufFound(StorageBuf *p, i64 iOfst, i64 iEnd){
  if( p->rcLost==0 || iEnd<=p->iLost || iOfst>=p->iLostEnd ) return;
  if( iOfst<=p->iLost && iEnd>=p->iLostEnd ){ p->rcLost = 0; return; }
  if( iOfst<=p->iLost ) p->iLost = iEnd;
  else if( iEnd>=p->iLostEnd ) p->iLostEnd = iOfst;
}

/* Empty the windows that hold any of bytes [iOfst, iEnd): after a
** failed write, storage may hold anything there (the call may have
** stored part of it), so the next read of them asks storage. */
static void bufDrop(StorageBuf *p, i64 iOfst, i64 iEnd){
  int i;
  for(i=0; i<STORAGE_NSLOT; i++){
    StorageWindow *w = &p->aWin[i];
    if( w->n>0 && w->iOfst<iEnd && iOfst<w->iOfst+w->n ) w->n = 0;
  }
}

/* Write the buffered range; if that fails, its bytes are lost, and no
** window keeps them. */
static int bufFlush(StorageBuf *p){
  int rc;
  if( p->nW==0 ) return SQLITE_OK;
  rc = storage_js_write(p->fileId, p->aW, p->nW, (double)p->iW);
  if( rc!=SQLITE_OK ){
    bufLose(p, rc, p->iW, p->iW+p->nW);
    bufDrop(p, p->iW, p->iW+p->nW);
  }
  p->nW = 0;
  return rc;
}

/* Fill window w with w->nFill bytes from iOfst (not past the end of the
** file), the write-behind range laid over them. */
static int bufFill(StorageBuf *p, StorageWindow *w, i64 iOfst){
  i64 nAvail = p->iSize - iOfst;
  int n = nAvail<w->nFill ? (int)nAvail : w->nFill;
  int rc = storage_js_read(p->fileId, w->a, n, (double)iOfst);
  w->n = 0;
  /* Short: the rest is in the write-behind range, or a hole (zeros). */
  if( rc!=SQLITE_OK && rc!=SQLITE_IOERR_SHORT_READ ) return rc;
  if( p->nW ) overlay(w->a, iOfst, n, p->aW, p->iW, p->nW);
  w->iOfst = iOfst;
  w->n = n;
  return SQLITE_OK;
}

static StorageWindow *bufLru(StorageBuf *p){
  StorageWindow *w = &p->aWin[0];
  int i;
  for(i=1; i<STORAGE_NSLOT; i++){
    if( p->aWin[i].iUsed<w->iUsed ) w = &p->aWin[i];
  }
  return w;
}

int storageBufRead(StorageBuf *p, void *pBuf, int iAmt, i64 iOfst){
  u8 *z = (u8*)pBuf;
  StorageWindow *w = 0;
  int i, n, rc;
  if( p->rcLost && iOfst<p->iLostEnd && iOfst+iAmt>p->iLost ) return p->rcLost;
  n = iOfst>=p->iSize ? 0 : (p->iSize-iOfst<iAmt ? (int)(p->iSize-iOfst) : iAmt);
  if( n>0 ){
    for(i=0; i<STORAGE_NSLOT; i++){
      StorageWindow *x = &p->aWin[i];
      if( x->n>0 && iOfst>=x->iOfst && iOfst+n<=x->iOfst+x->n ){ w = x; break; }
    }
    if( w==0 && n<=STORAGE_RBUF/4 ){
      /* Sequential: the stream of a window continues here.  Each refill
      ** of a stream reads twice the last, from STORAGE_RMIN up. */
      for(i=0; i<STORAGE_NSLOT && p->aWin[i].iNext!=iOfst; i++){}
      if( i<STORAGE_NSLOT ){
        w = &p->aWin[i];
        w->nFill = w->nFill==0 ? STORAGE_RMIN : (w->nFill<STORAGE_RBUF ? w->nFill*2 : STORAGE_RBUF);
        while( w->nFill<2*n ) w->nFill *= 2;
        if( w->a==0 && (w->a = sqlite3_malloc(STORAGE_RBUF))==0 ) w = 0;
      }
      if( w ){
        rc = bufFill(p, w, iOfst);
        if( rc!=SQLITE_OK ) return rc;
      }
    }
    if( w ){
      memcpy(z, w->a + (iOfst-w->iOfst), (size_t)n);
    }else{
      rc = storage_js_read(p->fileId, z, n, (double)iOfst);
      if( rc!=SQLITE_OK && rc!=SQLITE_IOERR_SHORT_READ ) return rc;
      if( p->nW ) overlay(z, iOfst, n, p->aW, p->iW, p->nW);
      /* A possible stream: the least recently used window follows it
      ** (its bytes stay valid until a refill). */
      w = bufLru(p);
      w->nFill = 0;
    }
    w->iNext = iOfst+iAmt;
    w->iUsed = ++p->iClock;
  }
  if( n<iAmt ){
    memset(z+n, 0, (size_t)(iAmt-n));
    return SQLITE_IOERR_SHORT_READ;
  }
  return SQLITE_OK;
}

int storageBufWrite(StorageBuf *p, const void *pBuf, int iAmt, i64 iOfst){
  const u8 *z = (const u8*)pBuf;
  int i, rc;
  if( p->nW>0 && iOfst>=p->iW && iOfst<=p->iW+p->nW
   && iOfst+iAmt-p->iW<=STORAGE_WBUF ){
    int iEnd = (int)(iOfst+iAmt-p->iW);
    memcpy(p->aW + (iOfst-p->iW), z, (size_t)iAmt);
    if( iEnd>p->nW ) p->nW = iEnd;
  }else{
    rc = bufFlush(p);
    if( rc==SQLITE_OK ){
      if( p->aW==0 && iAmt<STORAGE_WBUF ) p->aW = sqlite3_malloc(STORAGE_WBUF);
      if( p->aW && iAmt<STORAGE_WBUF ){
        memcpy(p->aW, z, (size_t)iAmt);
        p->iW = iOfst;
        p->nW = iAmt;
      }else{
        rc = storage_js_write(p->fileId, z, iAmt, (double)iOfst);
      }
    }
    if( rc!=SQLITE_OK ){
      bufDrop(p, iOfst, iOfst+iAmt);
      return rc;
    }
  }
  /* Only now that the write is done (or buffered) do the windows see it. */
  for(i=0; i<STORAGE_NSLOT; i++){
    StorageWindow *w = &p->aWin[i];
    if( w->n>0 ) overlay(w->a, w->iOfst, w->n, z, iOfst, iAmt);
  }
  bufFound(p, iOfst, iOfst+iAmt);
  if( iOfst+iAmt>p->iSize ) p->iSize = iOfst+iAmt;
  return SQLITE_OK;
}

int storageBufTruncate(StorageBuf *p, i64 size){
  int i, rc;
  i64 iDrop = -1, iDropEnd = 0;
  if( p->nW>0 && size<p->iW+p->nW ){
    iDrop = size<=p->iW ? p->iW : size;
    iDropEnd = p->iW+p->nW;
    p->nW = (int)(iDrop-p->iW);
  }
  for(i=0; i<STORAGE_NSLOT; i++){
    StorageWindow *w = &p->aWin[i];
    if( w->n>0 && w->iOfst+w->n>size ) w->n = size<=w->iOfst ? 0 : (int)(size-w->iOfst);
  }
  rc = storage_js_truncate(p->fileId, (double)size);
  if( rc!=SQLITE_OK ){
    /* The file keeps its old size, without the dropped bytes. */
    if( iDrop>=0 ) bufLose(p, rc, iDrop, iDropEnd);
    return rc;
  }
  if( size<p->iSize ) bufFound(p, size, p->iSize);
  p->iSize = size;
  return SQLITE_OK;
}

int storageBufSync(StorageBuf *p, int flags){
  int rc = bufFlush(p);
  return rc==SQLITE_OK ? storage_js_sync(p->fileId, flags) : rc;
}

int storageBufSize(StorageBuf *p, i64 *pSize){
  *pSize = p->iSize;
  return SQLITE_OK;
}

void storageBufClose(StorageBuf *p){
  int i;
  if( p==0 ) return;
  for(i=0; i<STORAGE_NSLOT; i++) sqlite3_free(p->aWin[i].a);
  sqlite3_free(p->aW);
  sqlite3_free(p);
}
