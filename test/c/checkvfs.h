/*
** checkvfs: the storage under the stress test (stress.c).  An in-memory
** VFS under tempcrypt that checks every write on its way down against the
** on-disk layout, the model of the file above and the keystream (see the
** comment at the top of stress.c), with the faults it injects.
*/
#ifndef TEMPCRYPT_CHECKVFS_H
#define TEMPCRYPT_CHECKVFS_H
#include <stdint.h>
#include "sqlite3.h"
#include "tempcrypt.h"
#include "testutil.h"
#include "proof/layout.h"

#define MAX_MODEL (16*1024*1024)

/* The model of the file above tempcrypt. */
typedef struct CkModel {
  uint8_t *cur;        /* what the file holds */
  uint8_t *alt;        /* other possible value where unc[] is set */
  uint8_t *unc;        /* byte left uncertain by a failed write */
  int64_t size;
  /* The write tempcrypt is executing right now: what storage must get. */
  const uint8_t *wData;
  int64_t wOff, wN;
} CkModel;
extern CkModel M;

extern int gTier;            /* -t: budgets for the memory tier */

/* Faults injected into the lower calls. */
typedef struct CkFaults {
  int on;              /* inject faults */
  TuRng rng;
  unsigned every;      /* one lower call in `every` starts a fault */
  int nRun;            /* further lower calls that fail in this run */
  int nSkip, nForce;   /* directed: after nSkip calls, nForce calls fail */
  int bHalf;           /* the next failing write stores half its bytes */
  int nWriteFail, nShortWrite, nReadFail, nTruncFail, nOpenFail;
} CkFaults;
extern CkFaults F;

/* One file of checkvfs. */
typedef struct CkFile {
  sqlite3_file base;
  uint8_t *a;
  int64_t n, nAlloc;
  int bKeyed;
  uint8_t key[32];
  sqlite3_file *pTc;       /* the tempcrypt file above */
  int eLock;               /* the lock tempcrypt holds on it */
  uint32_t *aHi;           /* aHi[c]: first unused keystream byte of counter c */
  uint64_t nHi;
  uint64_t maxCtr;
  uint64_t nPhysWritten;
} CkFile;
extern CkFile *gFile;        /* the one file under test */
extern sqlite3_vfs *gMemBase;

/* The test-only key hook: gives the file its key and tempcrypt file. */
void key_hook(void *pArg, sqlite3_file *pTc, sqlite3_file *pLower,
              int flags, const unsigned char *aKey);
void register_checkvfs(void);
#endif
