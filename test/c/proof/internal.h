/*
** Private to the parts of the proof library (the files in test/c/proof and
** test/c/proof.c); the tests use ../proof.h.
**
**   alloc.c      SQLite's allocator: every block listed, freed ones kept
**                in quarantine for the key scans, malloc faults
**   fault.c      the one lock, fault arming and the operation counters
**   spyvfs.c     the spy VFS under tempcrypt (file records, marker hits,
**                I/O faults, block counters) and the shim above it
**   shadow.c     the plaintext model of each encrypted temp file and the
**                check of every block write against it
**   layout.c     the on-disk layout, decoded (also used by stress.c)
**   refchacha.c  the reference ChaCha20 the checks decrypt with
**   sql.c        opening, running scripts, hashing and checking databases
*/
#ifndef PROOF_INTERNAL_H
#define PROOF_INTERNAL_H
#include <stdint.h>
#include "sqlite3.h"
#include "../proof.h"

/* fault.c: one lock over the shared records (the sorter's threads write
** temp files too).  proofLockInit() once, after sqlite3_initialize(). */
void proofLockInit(void);
void proofLock(void);
void proofUnlock(void);
/* Count an allocation; 1 if the armed fault makes it fail. */
int proofFaultMalloc(void);
/* Count a temp-file write (op 0), read (1) or truncate (2); returns 0, 1
** (fail it) or 2 (a write that stores half its bytes, then fails). */
int proofFaultIo(int op);
/* Count a temp-file open below tempcrypt; 1 if it must fail. */
int proofFaultOpen(void);

/* alloc.c: install the allocator (before sqlite3_initialize()); then
** proofMemInit() once SQLite is initialized. */
void proofMemInstall(void);
void proofMemInit(void);

/* spyvfs.c: register "proofspy" over pReal (not the default). */
int proofSpyRegister(sqlite3_vfs *pReal);
/* The test build's key hook (see proof_init). */
void proofKeyHook(void *pArg, struct sqlite3_file *pFile,
                  struct sqlite3_file *pLower, int openFlags,
                  const unsigned char aKey[32]);

/* shadow.c */
typedef struct Shadow Shadow;
/* A shadow for tempcrypt file pTc, if it has none; nobody holds it yet. */
void proofShadowNew(sqlite3_file *pTc, const unsigned char aKey[32]);
/* The shadow of tempcrypt file pTc not yet modelled by a file above, if
** any: it is now (its reference count goes up). */
Shadow *proofShadowAdopt(sqlite3_file *pTc);
/* The shadow of pTc for the spy below it (the reference count goes up). */
Shadow *proofShadowAttach(sqlite3_file *pTc);
void proofShadowRelease(Shadow *sh);
void proofShadowWrite(Shadow *sh, const void *pBuf, int n, int64_t off);
void proofShadowTruncate(Shadow *sh, int64_t size);
/* Decrypt the block write a (n bytes at off, the start of a block of B
** bytes, under counter c) and compare it with the model. */
void proofShadowVerify(Shadow *sh, int B, uint64_t c, const unsigned char *a, int n,
                       int64_t off);

/* refchacha.c: ChaCha20 from RFC 8439, plain and separate from
** src/chacha20.c; the self-test checks it against RFC 8439 2.3.2. */
void proofRefChacha20(unsigned char *out, const unsigned char *in, size_t n,
                      const unsigned char key[32], const unsigned char nonce[12],
                      uint32_t ctr);
int proofRefSelfTest(void);

/* proof.c: the marker and its length. */
int proofMarkerLen(void);
#endif
