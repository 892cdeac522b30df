/*
** Shared support for the SQL-level proof tests: a spy and
** fault-injection VFS that sits *under* tempcrypt, a test allocator for
** SQLite (malloc faults, quarantine for key scans), the workloads, and
** helpers to run scripts and hash results and database states.  The
** parts are in test/c/proof/ (internal.h lists them), the set-up and the
** workloads in test/c/proof.c.
**
** Portable C: no fork, no signals; threads only through SQLite's own
** multi-threaded sorter (PRAGMA threads), which a SQLITE_THREADSAFE=0
** build simply ignores.
*/
#ifndef PROOF_H
#define PROOF_H
#include <stdio.h>
#include <stdint.h>
#include <stddef.h>
#include "sqlite3.h"

/* CHECK and check_finish(). */
#include "check.h"

/* ------------------------------------------------------------ setup */
/* Configure SQLite (test allocator, small PMA, statement journal spill,
** memory pressure so ephemeral tables spill), register the spy VFS
** "proofspy" over the default VFS and tempcrypt over the spy as the
** default VFS.  Builds the run-time marker.  Returns 0 on success. */
int proof_init(const char *zProg);
/* The marker string (built at run time, never in the binary). */
const char *proof_marker(void);
/* A scratch file name "<dir>/<prog>-<random>-<tag>.db" (static buffer
** per tag slot 0..3). */
const char *proof_path(int slot, const char *zTag);
void proof_remove_db(const char *zPath);

/* ------------------------------------------------------------ spy VFS */
typedef struct ProofFile {
  int isTemp;            /* opened with zName==NULL */
  int flags;             /* open flags */
  int encrypted;         /* tempcrypt reported a key for it */
  int open;
  int64_t nWrite;        /* write calls */
  int64_t nByte;         /* bytes written */
  int64_t nHit;          /* writes containing the marker */
  int64_t nDiskHit;      /* marker occurrences in the file at close */
  uint64_t aHist[256];   /* byte histogram of everything written */
} ProofFile;
/* Forget all file records (files still open keep being counted). */
void proof_files_reset(void);
int proof_files_count(void);
ProofFile *proof_file(int i);
/* Shannon entropy in bits/byte of a histogram. */
double proof_entropy(const uint64_t *aHist, uint64_t *pnTotal);

/* Fault injection on temp files, below tempcrypt. */
enum { PF_NONE=0, PF_WRITE_NTH, PF_HALF_WRITE_NTH, PF_WRITE_FROM_NTH,
       PF_READ_NTH, PF_TRUNC_NTH, PF_MALLOC_NTH,
       /* Counted over every temp-file read, write and truncate (nIo), or
       ** every allocation: the Nth fails, or the Nth and all later ones
       ** (a persistent fault, until disarmed). */
       PF_IO_NTH, PF_IO_FROM_NTH, PF_MALLOC_FROM_NTH,
       /* The Nth temp-file open below tempcrypt fails (SQLITE_CANTOPEN):
       ** with the memory tier, the lazy open in the middle of a write. */
       PF_OPEN_NTH, PF_NMODE };
extern const char *proof_fault_name[PF_NMODE];
/* Arm a fault (PF_NONE: only count).  Counters restart at 0. */
void proof_fault_arm(int mode, int64_t n);
void proof_fault_disarm(void);
/* Operations counted since the last arm: temp writes, temp reads, temp
** truncates, mallocs, temp opens; and how often the armed fault fired. */
typedef struct ProofCounts { int64_t nWrite, nRead, nTrunc, nMalloc, nIo, nOpen, nFired; } ProofCounts;
void proof_fault_counts(ProofCounts *p);

/* Block-start writes below tempcrypt whose counter was checked for
** freshness (larger than every counter the file had before), and how many
** were stale (*pnBad).  Needs the test build. */
int64_t proof_counter_checks(int64_t *pnBad);

/* Set before any file opens: decrypt every block write below tempcrypt
** with an independent reference ChaCha20 and compare with the plaintext
** SQLite wrote above it.  Returns blocks checked, *pnBad mismatches. */
extern int proof_verify_layout;
int64_t proof_layout_checks(int64_t *pnBad);

/* Print and CHECK what the spy verified below tempcrypt: every block
** counter fresh, and (if bLayout) every block write decrypting to the
** plaintext SQLite wrote. */
void proof_check_below(const char *zProg, int bLayout);

/* ------------------------------------------------------------ allocator */
/* Quarantine: freed blocks are kept (contents intact) so that a scan can
** look for secrets left behind in freed memory. */
void proof_mem_quarantine(int on);
/* Count blocks (live and quarantined) containing needle; also counts
** blocks containing any of the four aligned 8-byte quarters of a 32-byte
** needle when nNeedle==32 (reported through *pnPartial). */
int proof_mem_scan(const unsigned char *needle, int nNeedle, int *pnPartial);
int64_t proof_mem_blocks(void);
void proof_mem_release_quarantine(void);

/* ------------------------------------------------------------ ctgrind */
/* When set, the spy marks every buffer it passes to storage defined
** (ciphertext is public) and the upper shim "proofct" (over tempcrypt,
** the default VFS after proof_init) marks plaintext from SQLite secret on
** the way in and public on the way out. */
extern void (*proof_ct_secret)(const void *, size_t);
extern void (*proof_ct_public)(const void *, size_t);
int proof_register_ct(void);
/* Called with every key tempcrypt reports through its test hook. */
extern void (*proof_key_observer)(const unsigned char *aKey, int flags);

/* ------------------------------------------------------------ running */
typedef struct ProofCfg {
  int tempStore;   /* 1 = FILE, 2 = MEMORY */
  int threads;     /* PRAGMA threads */
  int tempPageSize;/* PRAGMA temp.page_size, 0 = default */
} ProofCfg;
/* Open zPath with the default VFS, install mk()/mkrep(), apply cfg. */
sqlite3 *proof_open(const char *zPath, const ProofCfg *pCfg);
#define PROOF_MAXSTMT 24
typedef struct ProofRun {
  int nStmt;
  int aRc[PROOF_MAXSTMT];        /* SQLITE_OK/DONE -> 0, else the error */
  uint64_t aHash[PROOF_MAXSTMT]; /* hash of result rows */
  int64_t aRows[PROOF_MAXSTMT];
  int finalRc;                   /* of the COMMIT/ROLLBACK cleanup */
} ProofRun;
/* Run a ';'-separated script statement by statement.  Without pRef it
** carries on after errors; with pRef it stops at the first statement whose
** result code differs from pRef's (as a careful application would).
** Leaves an open transaction open (see proof_finish_tx). */
void proof_run_script(sqlite3 *db, const char *zScript, ProofRun *pRun,
                      const ProofRun *pRef);
/* If a transaction is still open: COMMIT, or ROLLBACK if that fails. */
int proof_finish_tx(sqlite3 *db);
/* Hash of the schema and every table's rows in main (or zSchema, such
** as "temp"); 0 on error. */
uint64_t proof_db_hash(sqlite3 *db);
uint64_t proof_schema_hash(sqlite3 *db, const char *zSchema);
/* 1 if PRAGMA integrity_check says ok (for main, or zSchema). */
int proof_integrity_ok(sqlite3 *db);
int proof_schema_integrity_ok(sqlite3 *db, const char *zSchema);
/* If set, called by proof_run_script after statement i (0-based). */
extern void (*proof_after_stmt)(sqlite3 *db, int i, void *pArg);
extern void *proof_after_arg;
/* Build the base database (tables t and u) at zPath. */
int proof_make_base(const char *zPath, int nRow);
/* proof_make_base() then proof_read_file(): the template, or 0 (a failed CHECK). */
unsigned char *proof_base_template(const char *zPath, int nRow, long *pn);

/* ------------------------------------------------------------ workloads */
typedef struct ProofWorkload {
  const char *zName;
  const char *zSetup;   /* extra setup after the base, or NULL */
  const char *zScript;  /* the statements under test */
  int threads;          /* needs the multi-threaded sorter */
} ProofWorkload;
extern const ProofWorkload proof_workloads[];
extern const int proof_nWorkload;
/* The SQL that builds the base database of nRow rows (sqlite3_free it).
** Both come from test/workloads.txt. */
char *proof_base_sql(int nRow);

/* Whole-file helpers (plain stdio). */
unsigned char *proof_read_file(const char *zPath, long *pn);
int proof_write_file(const char *zPath, const unsigned char *a, long n);
#endif
