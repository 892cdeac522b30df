/*
** Fault injection on temp files (below tempcrypt) and on allocations, the
** operation counters, and the one lock of the proof library.
*/
#include <string.h>
#include "internal.h"

const char *proof_fault_name[PF_NMODE] = {
  "none", "write-nth", "half-write-nth", "write-from-nth", "read-nth",
  "truncate-nth", "malloc-nth", "io-nth", "io-from-nth", "malloc-from-nth",
  "open-nth"
};

static sqlite3_mutex *gMx = 0;       /* static: needs no allocation */
static struct {
  int mode; int64_t n; int armed;
  ProofCounts c;
} gFault;

void proofLockInit(void){ gMx = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_APP1); }
void proofLock(void){ if( gMx ) sqlite3_mutex_enter(gMx); }
void proofUnlock(void){ if( gMx ) sqlite3_mutex_leave(gMx); }

int proofFaultMalloc(void){
  int fail = 0;
  proofLock();
  gFault.c.nMalloc++;
  if( gFault.armed && ((gFault.mode==PF_MALLOC_NTH && gFault.c.nMalloc==gFault.n)
                    || (gFault.mode==PF_MALLOC_FROM_NTH && gFault.c.nMalloc>=gFault.n)) ){
    fail = 1; gFault.c.nFired++;
  }
  proofUnlock();
  return fail;
}

int proofFaultOpen(void){
  int r = 0;
  proofLock();
  gFault.c.nOpen++;
  if( gFault.armed && gFault.mode==PF_OPEN_NTH && gFault.c.nOpen==gFault.n ){
    r = 1; gFault.c.nFired++;
  }
  proofUnlock();
  return r;
}

int proofFaultIo(int op){
  int r = 0;
  int64_t k, nIo;
  proofLock();
  nIo = ++gFault.c.nIo;
  if( gFault.armed && ((gFault.mode==PF_IO_NTH && nIo==gFault.n)
                    || (gFault.mode==PF_IO_FROM_NTH && nIo>=gFault.n)) ) r = 1;
  if( op==0 ){
    k = ++gFault.c.nWrite;
    if( gFault.armed ){
      if( gFault.mode==PF_WRITE_NTH && k==gFault.n ) r = 1;
      if( gFault.mode==PF_HALF_WRITE_NTH && k==gFault.n ) r = 2;
      if( gFault.mode==PF_WRITE_FROM_NTH && k>=gFault.n ) r = 1;
    }
  }else if( op==1 ){
    k = ++gFault.c.nRead;
    if( gFault.armed && gFault.mode==PF_READ_NTH && k==gFault.n ) r = 1;
  }else{
    k = ++gFault.c.nTrunc;
    if( gFault.armed && gFault.mode==PF_TRUNC_NTH && k==gFault.n ) r = 1;
  }
  if( r ) gFault.c.nFired++;
  proofUnlock();
  return r;
}

void proof_fault_arm(int mode, int64_t n){
  proofLock();
  memset(&gFault.c, 0, sizeof(gFault.c));
  gFault.mode = mode; gFault.n = n; gFault.armed = 1;
  proofUnlock();
}
void proof_fault_disarm(void){
  proofLock(); gFault.armed = 0; gFault.mode = PF_NONE; proofUnlock();
}
void proof_fault_counts(ProofCounts *p){ proofLock(); *p = gFault.c; proofUnlock(); }
