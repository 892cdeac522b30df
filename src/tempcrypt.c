/*
** sqlite-tempcrypt: a VFS shim that encrypts SQLite's temporary files.
**
** WHAT
**
** SQLite writes temporary tables, sorter runs, DISTINCT and GROUP BY data,
** statement journals and whole database copies (VACUUM) to temporary files
** whenever they do not fit in memory or PRAGMA temp_store=FILE asks for it.
** Those files hold plaintext.  This shim sits on top of another VFS and
** encrypts every file that SQLite opens without a name, which is exactly
** the set of temporary files (temporary and transient databases, their
** journals, sorter files, statement journals and subjournals).  Each such
** file gets its own random 256-bit key from the platform CSPRNG; the key
** lives only in this file's memory while it is open and is wiped when it
** closes.  Files with a name (main database, rollback journal, WAL) pass
** straight through, byte for byte.
**
** COMPILING
**
** Compile this file and chacha20.c with the application and SQLite:
**
**     cc -c tempcrypt.c chacha20.c -I/path/to/sqlite3.h
**
** It needs getentropy() (glibc 2.25+, macOS, the BSDs, wasi-libc,
** Emscripten).  -DSQLITE_TEMPCRYPT_DEFAULT_ENABLED=0 makes the runtime
** switch start off; -DSQLITE_TEMPCRYPT_DEFAULT_BUDGET=N sets the memory
** tier's budget in bytes (below; 0: no tier).  -DSQLITE_TEMPCRYPT_TESTING
** adds hooks that expose keys to tests; never ship a build with it.
**
** USING
**
**     sqlite3_tempcrypt_register(0, 1);   // over the default VFS, as default
**
** From then on every connection that uses the default VFS gets encrypted
** temporary files, kept in memory up to a budget shared by all of them
** (sqlite3_tempcrypt_budget() or PRAGMA tempcrypt_budget sets it).
** sqlite3_tempcrypt_set_enabled(0) makes newly opened temporary files
** plaintext again (for comparisons and benchmarks), and
** sqlite3_tempcrypt_stats() reports what went through the cipher and
** what the memory tier holds.
**
** IMPLEMENTATION NOTES
**
** The cipher is ChaCha20 (RFC 8439), which runs in constant time without
** special instructions; table-based AES, the fallback where there is no
** AES hardware such as in WebAssembly, leaks through cache timing.
**
** A file is cut into blocks of B bytes, B fixed by its first write: a
** power of two written at a multiple of itself is taken as B (512 to
** 65536 bytes for databases without a name: main, temporary and
** transient, whose first write is a page; 4096 to 65536 for the other
** temp files, such as the sorter's runs, written in units of the main
** database's page size), anything else gives 4096, so one aligned unit
** of SQLite's is one block and one lower write.  Block k is stored at
** k*B as up to B bytes of ciphertext, so the lower file is exactly as
** long as the logical one and every block is aligned as SQLite's page:
**
**     | ciphertext 0 | ciphertext 1 | ... | ciphertext n | part |
**
** One 64-bit counter per file counts block writes, starting at 1; the
** value a block was written with is its nonce, so no keystream is ever
** used twice.  The nonces live in memory only, one u64 per block (aCtr,
** grown by doubling when a write reaches past it, never per call), like
** the key: nothing on the lower file says which keystream a block used,
** and since the key is fresh for each file and dies with it, a counter
** value is never used twice under one key.  Counter 0 means "never
** written": the block reads as zeros without a lower call, so the holes
** a temporary database leaves stay holes.  A read decrypts in SQLite's
** buffer: the ciphertext goes straight into it and the keystream is
** XORed there.
**
** An append to the last block continues that block's keystream: because
** the logical size tells how much of that keystream is used, an append
** writes just its own bytes under the block's counter.
** Any other write that leaves valid bytes of a block untouched is a
** read-modify-write under a fresh counter.  A write that starts past a
** partly filled last block first fills that block with encrypted zeros,
** because a hole inside a block would decrypt to keystream.
**
** Failures: when a lower write fails, the logical size stays what it was,
** whatever the write left past the end of the file is truncated away (so
** it cannot pose as data later), and the last block's keystream is not
** continued.  If the failed write rewrote valid bytes of a block, the
** block on disk may be half old, half new: the work buffer still holds
** its intended content (old bytes around the new ones), and that block
** becomes the file's one pending repair.  Every later call first retries
** the repair: it re-encrypts the block under a fresh counter, writes it
** and, if needed, redoes the clean-up truncate.  Until that succeeds every
** read, write, truncate and sync fails with an I/O error (SQLite never
** sees half a block under the wrong counter); once the lower file works
** again the file is whole, so a temporary database outlives a transient
** disk error.  Only one repair can be pending, because nothing else runs
** until it is done.
**
** The lower file holds nothing past the end of the file but what
** tempcrypt wrote there (or zeros a size hint added).  So
** SQLITE_FCNTL_CHUNK_SIZE (the unix VFS would round truncates up and keep
** old ciphertext past the end) and every file control tempcrypt does not
** know stop at an encrypted file; see tcFileControl for the list.
**
** Method tables: a file's methods never promise what its lower file
** lacks.  Named files get a table whose version and shared-memory and
** mmap methods mirror those of the lower file (SQLite decides that WAL is
** possible from xShmMap alone); encrypted files, which SQLite never puts
** in WAL mode and which are never memory-mapped, get a version 1 table.
**
** Encrypted files never hand out mmap pointers and do not claim atomic
** writes.  Reads decrypt in SQLite's buffer; writes encrypt from
** SQLite's buffer into one per-file work buffer of one block, which then
** goes down in a single lower write.  Neither path allocates memory,
** except that a file's first write allocates its work buffer (the block
** size is known then), a write past the end of the counter array doubles
** it, and a block entering the memory tier (below) gets its own.
**
** THE MEMORY TIER
**
** Temp data in memory is what PRAGMA temp_store=MEMORY gives, faster than
** any file; temp data in files keeps memory bounded.  The shim does both:
** the blocks of encrypted files stay in memory, as plaintext (SQLite's
** page cache holds the same bytes), while all files of the process
** together stay under a budget (sqlite3_tempcrypt_budget(), 64 MiB unless
** compiled otherwise); a block that does not fit goes to the lower file,
** encrypted as above.  A block gets memory when it is first written, if
** the budget has room and the allocator gives it (an allocation failure
** sends the block down, never fails the write); it stays in memory until
** the file shrinks past it or closes, and is wiped before it is freed.  A
** block on the lower file stays there.  Nothing moves between the two, so
** no block is ever written twice and plaintext never goes down.  The
** policy was chosen by replaying the temp-file I/O of the benchmark
** workloads against the alternatives (docs/performance.md, "The memory
** tier"): spilling a whole file once it outgrows the budget, as SQLite's
** in-memory journal does, sent three times the bytes down (64 MiB budget,
** a million rows), and evicting a file's least recently used blocks did no
** better than this while paying a write for every eviction.
**
** Per file the tier is an array of block pointers, grown by doubling and
** counted against the budget with the blocks.  nLowerBlk marks where the
** lower file holds nothing any more: only blocks from there on may take
** memory, so a block never lives in both places, and those of them that
** are not in memory are holes, which read as zeros without a lower call.
** The bytes of a memory block past the end of the file are zeros.
**
** Threads: the budget is process-wide and claimed by compare-and-swap, so
** the sorter's worker threads together never hold more than it.  SQLite
** uses a file from one thread at a time, and a thread touches only the
** blocks of the file it is in: no file's memory is ever taken back by
** another file.  A lower budget applies to blocks allocated from then on.
**
** A file opened while the budget is above 0 opens its lower file only
** when its first block does not fit, so temp files that fit never reach
** the disk (or an OPFS pool slot).  Until then its methods promise nothing
** the lower VFS might lack: locks are kept in the file (no other
** connection can see a file without a name) and taken on the lower file
** when it opens; the hints SQLite sends every temp file (SIZE_HINT,
** MMAP_SIZE, SYNC, COMMIT_PHASETWO) are answered here, and the file
** controls that report on the lower file open it first (tcFileControl);
** the device characteristics are 0 and the sector size is SQLite's
** default.  If the lower file cannot be opened, the write that needed it
** fails with an I/O error (SQLITE_FULL if the lower VFS said so) and the
** file is as it was.  The key is made at open either way, so a failing
** CSPRNG still fails the open.  With the budget at 0 a file opens its
** lower file at once and never uses the tier: the shim behaves as it did
** before the tier.
**
** SQLite's TEMP database (SQLITE_OPEN_TEMP_DB) lives as long as its
** connection and, without auto_vacuum, keeps the pages of a dropped table
** on its freelist: their blocks would hold the budget for good.  So the
** shim gives back the memory of the blocks of the free leaf pages of that
** file, which SQLite never reads again (it takes a free leaf back without
** reading it, PAGER_GET_NOCONTENT, and writes it whole), and which read as
** zeros from then on.  It does so only where the file is exactly the
** committed database: at SQLITE_FCNTL_COMMIT_PHASETWO of a commit that
** wrote out the whole page cache.  A temp pager writes its dirty pages at
** commit once a quarter of its cache is dirty (else it keeps them for a
** later commit), page 1 first, with the change counter (header offset 24)
** one above the last page 1 written, then SQLITE_FCNTL_SYNC, then
** COMMIT_PHASETWO; a rollback writes page 1 back with a counter that is
** not one above.  tcFreeNote follows that sequence (eFree), and any other
** write, or a failed one, cancels it: pages freed in a transaction that
** may still roll back are never touched.  The freelist comes from the
** header of the page 1 written (first trunk at 32, count at 36) and the
** trunk pages in the file.  A temp pager that keeps its dirty pages past
** the commit tells the file nothing of the pages it freed, so
** sqlite3_tempcrypt_reclaim(), called between statements, reads the
** freelist from SQLite itself (sqlite_dbpage) after a commit of the TEMP
** database.  The user's database is not changed: no
** PRAGMA, no header byte; only the content of free pages, which SQLite
** defines as meaningless, becomes zeros.
**
** What it does not do: it protects confidentiality, not integrity, and it
** cannot tell which connection a temporary file belongs to, so temporary
** files of every connection on the VFS are encrypted.
*/
#include <assert.h>
#include <string.h>
#include <sys/random.h>
#include "sqlite3.h"
#include "tempcrypt.h"
#include "chacha20.h"

#ifndef SQLITE_TEMPCRYPT_DEFAULT_ENABLED
# define SQLITE_TEMPCRYPT_DEFAULT_ENABLED 1
#endif

typedef sqlite3_int64  i64;
typedef sqlite3_uint64 u64;
typedef unsigned int   u32;
typedef unsigned char  u8;

typedef struct TcFile TcFile;

/* Access to the lower VFS and to the lower file behind each TcFile. */
#define ORIGVFS(p)  ((sqlite3_vfs*)((p)->pAppData))
#define ORIGFILE(p) ((sqlite3_file*)(((TcFile*)(p))+1))

#define TC_BLOCK      4096   /* smallest block of files that are not databases */
#define TC_MIN_PAGE   512
#define TC_MAX_PAGE   65536
#define TC_SECTOR     4096   /* SQLITE_DEFAULT_SECTOR_SIZE */

/* An open file. */
struct TcFile {
  sqlite3_file base;       /* IO methods */
  u8 bCrypt;               /* Encrypted temporary file; else pass-through */
  u8 bDbFile;              /* A database: blocks from 512 bytes (else TC_BLOCK) */
  u8 bLower;               /* The lower file is open */
  u8 bLastKnown;           /* The last block's keystream may be continued */
  u8 bDirtyTail;           /* The lower file may hold bytes past the end */
  u8 bPending;             /* aBuf holds block kPending, to be rewritten */
  u8 eLock;                /* Lock level SQLite holds while !bLower */
  u8 bTempDb;              /* SQLite's TEMP database: free pages give memory back */
  u8 eFree;                /* TC_FREE_*: where a commit of it is (tcFreeNote) */
  u8 bCommitted;           /* It committed since sqlite3_tempcrypt_reclaim() */
  int openFlags;           /* Flags for opening the lower file later */
  int szBlock;             /* Block payload in bytes, 0 until known */
  int nPending;            /* Valid bytes of the pending block */
  i64 iSize;               /* Logical size */
  i64 kPending;            /* Block whose rewrite failed, if bPending */
  i64 nLowerBlk;           /* Blocks from here on hold nothing on the lower file */
  u64 iCounter;            /* Last counter handed out */
  u64 iPendingCtr;         /* Counter aBuf is encrypted under, if bPending */
  u64 *aCtr;               /* aCtr[k]: counter of lower block k, 0: a hole */
  i64 nCtr;                /* Entries of aCtr; blocks past them are holes */
  u8 *aBuf;                /* Work buffer: szBlock bytes */
  u8 **apMem;              /* Memory tier: apMem[k] holds block k, or NULL */
  i64 nMemSlot;            /* Entries of apMem */
  i64 nMemTop;             /* No block from here on is in memory */
  u64 nMemByte;            /* Bytes this file holds in the tier */
  TcFile *pNextTemp;       /* The list of open temp files (tcTempList) */
  TcFile **ppPrevTemp;     /* What points at this file in that list */
  u64 iId;                 /* Temp file number (from 1), 0: not a temp file */
  u64 nWrite;              /* Bytes SQLite wrote to this temp file */
  u64 nLowerWrite;         /* Bytes this temp file wrote to the lower VFS */
  u64 nEnciphered;         /* Bytes of this file run through ChaCha20 */
  u32 iChange;             /* TEMP database: change counter of the last page 1 written */
  u32 iTrunk;              /* ... its first freelist trunk page */
  u32 nFree;               /* ... its number of free pages */
  u32 szPage;              /* ... its page size */
  u32 szUsable;            /* ... its usable bytes of a page */
  u8 aKey[32];             /* This file's key */
};

/* File control that answers the TcFile (sqlite3_tempcrypt_reclaim), far
** from SQLite's own op codes. */
#define TC_FCNTL_SELF    0x74637266

/* TcFile.eFree: what the TEMP database's last writes were. */
#define TC_FREE_NONE     0   /* nothing to trust */
#define TC_FREE_FLUSH    1   /* page 1 written as the start of a commit's flush */
#define TC_FREE_SYNCED   2   /* and the flush ended (SQLITE_FCNTL_SYNC) */

/*
** Process-wide state: the runtime switch, the memory tier's budget and
** use, and the statistics.  All are touched from every thread that does
** I/O (the sorter has worker threads), so they use relaxed atomics, and
** the budget is claimed by compare-and-swap; wasm builds without threads
** need none.
*/
#if defined(__wasm__) && !defined(__wasm_atomics__)
# define TC_LOAD(x)      (x)
# define TC_STORE(x, v)  ((x) = (v))
# define TC_ADD(x, n)    ((x) += (n))
# define TC_SUB(x, n)    ((x) -= (n))
# define TC_SWAP(x, v)   tcSwap(&(x), (v))
# define TC_CAS(x, c, v) ((x)==(c) ? ((x) = (v), 1) : ((c) = (x), 0))
static uint64_t tcSwap(uint64_t *p, uint64_t v){ uint64_t o = *p; *p = v; return o; }
#else
# define TC_LOAD(x)      __atomic_load_n(&(x), __ATOMIC_RELAXED)
# define TC_STORE(x, v)  __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
# define TC_ADD(x, n)    ((void)__atomic_fetch_add(&(x), (n), __ATOMIC_RELAXED))
# define TC_SUB(x, n)    ((void)__atomic_fetch_sub(&(x), (n), __ATOMIC_RELAXED))
# define TC_SWAP(x, v)   __atomic_exchange_n(&(x), (v), __ATOMIC_RELAXED)
# define TC_CAS(x, c, v) __atomic_compare_exchange_n(&(x), &(c), (v), 1, \
                             __ATOMIC_RELAXED, __ATOMIC_RELAXED)
#endif
#define TC_TAKE(x)       TC_SWAP(x, 0)
/* A per-file counter: one thread writes it, sqlite3_tempcrypt_files()
** reads it from any thread. */
#define TC_BUMP(x, n)    TC_STORE(x, TC_LOAD(x) + (n))
/* The fields it reads of a file (size, block size, bLower) are stored
** with TC_STORE; bLower is published once the lower file is open, so
** that a reader that sees it may read the lower file (tcTempFind). */
#if defined(__wasm__) && !defined(__wasm_atomics__)
# define TC_PUBLISH(x, v) ((x) = (v))
# define TC_ACQUIRE(x)    (x)
#else
# define TC_PUBLISH(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
# define TC_ACQUIRE(x)    __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#endif

static int tcEnabled = SQLITE_TEMPCRYPT_DEFAULT_ENABLED ? 1 : 0;
static struct sqlite3_tempcrypt_stats tcStats;   /* the counters */
static u64 tcBudget = SQLITE_TEMPCRYPT_DEFAULT_BUDGET;
static u64 tcMemUsed = 0;     /* bytes the tier holds, all files */
static u64 tcMemPeak = 0;     /* most of tcMemUsed since the last reset */

/*
** The CSPRNG.  getentropy() returns at most 256 bytes a call.  There is no
** fallback: a file that cannot get a key cannot be opened.
*/
static int tcGetEntropy(void *pBuf, size_t n){
  u8 *z = (u8*)pBuf;
  while( n>0 ){
    size_t nChunk = n>256 ? 256 : n;
    if( getentropy(z, nChunk)!=0 ) return -1;
    z += nChunk;
    n -= nChunk;
  }
  return 0;
}

#ifdef SQLITE_TEMPCRYPT_TESTING
static int (*tcEntropy)(void*, size_t) = tcGetEntropy;
static sqlite3_tempcrypt_key_hook tcKeyHook = 0;
static void *tcKeyHookArg = 0;
static sqlite3_tempcrypt_block_hook tcBlockHook = 0;
static void *tcBlockHookArg = 0;
static sqlite3_tempcrypt_block_hook tcPublicHook = 0;
static void *tcPublicHookArg = 0;
# define TC_ENTROPY(p, n)  tcEntropy(p, n)
# define TC_PUBLIC(p, n)   do{ if( tcPublicHook ) tcPublicHook(tcPublicHookArg, p, n); }while(0)
#else
# define TC_ENTROPY(p, n)  tcGetEntropy(p, n)
# define TC_PUBLIC(p, n)   ((void)0)
#endif

/* Methods for TcFile */
static int tcClose(sqlite3_file*);
static int tcRead(sqlite3_file*, void*, int iAmt, sqlite3_int64 iOfst);
static int tcWrite(sqlite3_file*, const void*, int iAmt, sqlite3_int64 iOfst);
static int tcTruncate(sqlite3_file*, sqlite3_int64 size);
static int tcSync(sqlite3_file*, int flags);
static int tcFileSize(sqlite3_file*, sqlite3_int64 *pSize);
static int tcLock(sqlite3_file*, int);
static int tcUnlock(sqlite3_file*, int);
static int tcCheckReservedLock(sqlite3_file*, int *pResOut);
static int tcFileControl(sqlite3_file*, int op, void *pArg);
static int tcSectorSize(sqlite3_file*);
static int tcDeviceCharacteristics(sqlite3_file*);
static int tcShmMap(sqlite3_file*, int iPg, int pgsz, int, void volatile**);
static int tcShmLock(sqlite3_file*, int offset, int n, int flags);
static void tcShmBarrier(sqlite3_file*);
static int tcShmUnmap(sqlite3_file*, int deleteFlag);
static int tcFetch(sqlite3_file*, sqlite3_int64 iOfst, int iAmt, void **pp);
static int tcUnfetch(sqlite3_file*, sqlite3_int64 iOfst, void *p);

/* Methods for the VFS */
static int tcOpen(sqlite3_vfs*, const char*, sqlite3_file*, int, int*);
static int tcDelete(sqlite3_vfs*, const char *zName, int syncDir);
static int tcAccess(sqlite3_vfs*, const char *zName, int flags, int*);
static int tcFullPathname(sqlite3_vfs*, const char *zName, int, char *zOut);
static void *tcDlOpen(sqlite3_vfs*, const char *zFilename);
static void tcDlError(sqlite3_vfs*, int nByte, char *zErrMsg);
static void (*tcDlSym(sqlite3_vfs*, void*, const char *zSym))(void);
static void tcDlClose(sqlite3_vfs*, void*);
static int tcRandomness(sqlite3_vfs*, int nByte, char *zOut);
static int tcSleep(sqlite3_vfs*, int microseconds);
static int tcCurrentTime(sqlite3_vfs*, double*);
static int tcGetLastError(sqlite3_vfs*, int, char*);
static int tcCurrentTimeInt64(sqlite3_vfs*, sqlite3_int64*);
static int tcSetSystemCall(sqlite3_vfs*, const char*, sqlite3_syscall_ptr);
static sqlite3_syscall_ptr tcGetSystemCall(sqlite3_vfs*, const char*);
static const char *tcNextSystemCall(sqlite3_vfs*, const char *zName);

static sqlite3_vfs tc_vfs = {
  3,                          /* iVersion (that of the lower VFS) */
  0,                          /* szOsFile (set when registered) */
  1024,                       /* mxPathname (set when registered) */
  0,                          /* pNext */
  SQLITE_TEMPCRYPT_VFS_NAME,  /* zName */
  0,                          /* pAppData: the lower VFS */
  tcOpen,                     /* xOpen */
  tcDelete,                   /* xDelete */
  tcAccess,                   /* xAccess */
  tcFullPathname,             /* xFullPathname */
  tcDlOpen,                   /* xDlOpen */
  tcDlError,                  /* xDlError */
  tcDlSym,                    /* xDlSym */
  tcDlClose,                  /* xDlClose */
  tcRandomness,               /* xRandomness */
  tcSleep,                    /* xSleep */
  tcCurrentTime,              /* xCurrentTime */
  tcGetLastError,             /* xGetLastError */
  tcCurrentTimeInt64,         /* xCurrentTimeInt64 */
  tcSetSystemCall,            /* xSetSystemCall */
  tcGetSystemCall,            /* xGetSystemCall */
  tcNextSystemCall            /* xNextSystemCall */
};

/*
** The method tables.  Methods that act on content check bCrypt and pass
** named files (and temp files opened while disabled) straight down.  The
** tables differ only in what they promise beyond version 1, and tcOpen
** picks the one its lower file can keep (tcMethodsFor): SQLite takes a
** non-NULL xShmMap as "WAL works here", so a lower file without shared
** memory must not see tcShmMap in our table.
*/
#define TC_IF_0(x) 0
#define TC_IF_1(x) x
#define TC_IF(c, x) TC_IF_##c(x)
#define TC_IO_METHODS(NAME, VERSION, SHM, FETCH)                             \
static const sqlite3_io_methods NAME = {                                     \
  VERSION,                    /* iVersion: at most the lower file's */       \
  tcClose,                    /* xClose: wipes key, buffer, memory blocks */ \
  tcRead,                     /* xRead: memory, else decrypts by block */    \
  tcWrite,                    /* xWrite: memory, else fresh counters */      \
  tcTruncate,                 /* xTruncate: logical, memory and physical */  \
  tcSync,                     /* xSync: repairs first, then passes down */   \
  tcFileSize,                 /* xFileSize: logical size */                  \
  tcLock,                     /* xLock: pass-through, or kept (no lower) */  \
  tcUnlock,                   /* xUnlock: likewise */                        \
  tcCheckReservedLock,        /* xCheckReservedLock: likewise */             \
  tcFileControl,              /* xFileControl: audited list, VFSNAME tagged */\
  tcSectorSize,               /* xSectorSize: pass-through (no lower: 4096) */\
  tcDeviceCharacteristics,    /* xDeviceCharacteristics: no false claims */  \
  TC_IF(SHM, tcShmMap),       /* xShmMap: pass-through, if the lower has it */\
  TC_IF(SHM, tcShmLock),      /* xShmLock: likewise */                       \
  TC_IF(SHM, tcShmBarrier),   /* xShmBarrier: likewise */                    \
  TC_IF(SHM, tcShmUnmap),     /* xShmUnmap: likewise */                      \
  TC_IF(FETCH, tcFetch),      /* xFetch: named files only, if the lower has it */\
  TC_IF(FETCH, tcUnfetch)     /* xUnfetch: likewise */                       \
};
/*               name            version  shm  fetch */
TC_IO_METHODS(tc_io_methods_v1,       1,   0,    0)  /* encrypted files too */
TC_IO_METHODS(tc_io_methods_shm,      2,   1,    0)
TC_IO_METHODS(tc_io_methods_fetch,    3,   0,    1)  /* unix-none */
TC_IO_METHODS(tc_io_methods_v3,       3,   1,    1)  /* unix */

/* ------------------------------------------------------------ helpers */

static void store64_le(u8 *d, u64 w){
  int i;
  for(i=0; i<8; i++){ d[i] = (u8)w;  w >>= 8; }
}


/* Where block k starts in the lower file. */
static i64 tcPhysOffset(const TcFile *p, i64 k){
  return k*(i64)p->szBlock;
}

/* The counter block k of the lower file was written under, 0 if none. */
#define TC_CTR(p, k)  ((k)<(p)->nCtr ? (p)->aCtr[k] : 0)

/* Number of valid bytes of block k at the current logical size. */
static int tcValid(const TcFile *p, i64 k){
  i64 n = p->iSize - k*p->szBlock;
  if( n<=0 ) return 0;
  return n>p->szBlock ? p->szBlock : (int)n;
}

/* Index of the last block, or -1 for an empty file. */
static i64 tcLastBlock(const TcFile *p){
  return p->iSize>0 ? (p->iSize-1)/p->szBlock : -1;
}

/*
** XOR n bytes of the keystream of counter iCtr, from byte iOff of that
** stream on, into in and store them at out (in==out allowed).  The
** ChaCha20 nonce is the counter in its first 8 bytes; the 32-bit block
** counter addresses the 64-byte pieces of a block, so a block of up to
** 64 KiB never wraps it.
*/
static void tcCipher(TcFile *p, u8 *out, const u8 *in, int n,
                     u64 iCtr, int iOff){
  u8 aNonce[12];
  if( n<=0 ) return;
  TC_ADD(tcStats.nEnciphered, (u64)n);
  TC_BUMP(p->nEnciphered, (u64)n);
  store64_le(aNonce, iCtr);
  memset(aNonce+8, 0, 4);
  if( iOff & 63 ){
    /* Leading partial piece: one keystream block, used from iOff%64 on. */
    u8 aKs[64];
    int iSkip = iOff & 63;
    int nHead = 64 - iSkip;
    int i;
    if( nHead>n ) nHead = n;
    memset(aKs, 0, sizeof(aKs));
    tempcrypt_chacha20_xor(aKs, aKs, sizeof(aKs), p->aKey, aNonce,
                           (uint32_t)(iOff/64));
    for(i=0; i<nHead; i++) out[i] = in[i] ^ aKs[iSkip+i];
    tempcrypt_wipe(aKs, sizeof(aKs));
    out += nHead;  in += nHead;  n -= nHead;  iOff += nHead;
  }
  if( n>0 ){
    tempcrypt_chacha20_xor(out, in, (size_t)n, p->aKey, aNonce,
                           (uint32_t)(iOff/64));
  }
}

/* Fix the block size and allocate the work buffer. */
static int tcSetBlockSize(TcFile *p, int szBlock){
  assert( p->szBlock==0 && p->aBuf==0 );
  p->aBuf = sqlite3_malloc(szBlock);
  if( p->aBuf==0 ) return SQLITE_NOMEM;
  TC_STORE(p->szBlock, szBlock);
  return SQLITE_OK;
}

/*
** The block size of a file whose first write is iAmt bytes at iOfst.  A
** database writes whole pages, so a power of two from 512 to 65536
** written at a multiple of itself is its page size.  Other temp files
** take the size of such a first write too, from TC_BLOCK up: the sorter
** writes its runs in units of the main database's page size, aligned, so
** each unit is one block and one lower write (with 4096-byte blocks an
** 8 KiB unit took two).  A journal reaches its file with a 512-byte
** header or a 4-byte page number, or, spilled from memory, in one write
** of all it held so far (under 64 KiB of records; rarely a power of
** two).  Anything else gets TC_BLOCK.  Every block size is correct for
** every file: the choice is only about the number of lower calls.
*/
static int tcChooseBlockSize(int bDbFile, int iAmt, i64 iOfst){
  if( iAmt>=(bDbFile ? TC_MIN_PAGE : TC_BLOCK) && iAmt<=TC_MAX_PAGE
   && (iAmt & (iAmt-1))==0 && iOfst%iAmt==0 ){
    return iAmt;
  }
  return TC_BLOCK;
}

/* ------------------------------------------------------------ memory tier */

/* Raise the peak to v if it is lower. */
static void tcPeakRaise(u64 v){
  u64 pk = TC_LOAD(tcMemPeak);
  while( v>pk && !TC_CAS(tcMemPeak, pk, v) ){}
}

/* Claim n bytes of the budget for file p: 0 if they do not fit.  The
** compare-and-swap makes claims from several threads add up to at most
** the budget. */
static int tcMemClaim(TcFile *p, u64 n){
  u64 cur = TC_LOAD(tcMemUsed);
  do{
    if( cur + n > TC_LOAD(tcBudget) ) return 0;
  }while( !TC_CAS(tcMemUsed, cur, cur + n) );
  tcPeakRaise(cur + n);
  TC_BUMP(p->nMemByte, n);
  return 1;
}

static void tcMemUnclaim(TcFile *p, u64 n){
  assert( n<=p->nMemByte );
  TC_STORE(p->nMemByte, p->nMemByte - n);
  TC_SUB(tcMemUsed, n);
}

/* Block k in memory, or NULL. */
#define TC_MEM(p, k)  ((k)<(p)->nMemTop ? (p)->apMem[k] : 0)

/*
** Memory for block k, which holds nothing anywhere yet (the lower file has
** nothing from block nLowerBlk on), if the budget and the allocator allow;
** else NULL, and the block goes to the lower file.  The block is zeros
** except for bytes [iOff, iOff+n), which the caller fills at once.
*/
static u8 *tcMemNew(TcFile *p, i64 k, int iOff, int n){
  u8 *a;
  if( k<p->nLowerBlk ) return 0;
  if( k>=p->nMemSlot ){
    i64 nNew = p->nMemSlot ? 2*p->nMemSlot : 16;
    u64 nGrow;
    u8 **ap;
    while( nNew<=k ) nNew *= 2;
    nGrow = (u64)(nNew - p->nMemSlot)*sizeof(u8*);
    if( !tcMemClaim(p, nGrow) ) return 0;
    ap = sqlite3_realloc64(p->apMem, (u64)nNew*sizeof(u8*));
    if( ap==0 ){
      tcMemUnclaim(p, nGrow);
      return 0;
    }
    memset(ap + p->nMemSlot, 0, (size_t)nGrow);
    p->apMem = ap;
    p->nMemSlot = nNew;
  }
  if( !tcMemClaim(p, (u64)p->szBlock) ) return 0;
  a = sqlite3_malloc(p->szBlock);
  if( a==0 ){
    tcMemUnclaim(p, (u64)p->szBlock);
    return 0;
  }
#ifdef SQLITE_TEMPCRYPT_TESTING
  if( tcBlockHook ) tcBlockHook(tcBlockHookArg, a, p->szBlock);
#endif
  memset(a, 0, iOff);
  memset(a + iOff + n, 0, p->szBlock - iOff - n);
  p->apMem[k] = a;
  if( k>=p->nMemTop ) p->nMemTop = k+1;
  return a;
}

/* Wipe and free memory block k, if it is in memory.  nMemTop stays: the
** caller lowers it (tcMemTrim). */
static void tcMemFree(TcFile *p, i64 k){
  if( k<p->nMemTop && p->apMem[k] ){
    tempcrypt_wipe(p->apMem[k], (size_t)p->szBlock);
    sqlite3_free(p->apMem[k]);
    p->apMem[k] = 0;
    tcMemUnclaim(p, (u64)p->szBlock);
  }
}

/* nMemTop down to one past the last block in memory. */
static void tcMemTrim(TcFile *p){
  while( p->nMemTop>0 && p->apMem[p->nMemTop-1]==0 ) p->nMemTop--;
}

/* Wipe and free the memory blocks from block kFrom on. */
static void tcMemDrop(TcFile *p, i64 kFrom){
  i64 k;
  if( kFrom<0 ) kFrom = 0;
  for(k=kFrom; k<p->nMemTop; k++) tcMemFree(p, k);
  if( kFrom<p->nMemTop ) p->nMemTop = kFrom;
  tcMemTrim(p);
}

/*
** The logical size went back to iSize: free the memory blocks past it and
** zero the bytes past it in the last one (the bytes of a memory block past
** the end of the file are zeros, so that growing the file needs nothing).
*/
static void tcMemClip(TcFile *p){
  u8 *a;
  int iOff;
  if( p->nMemTop==0 ) return;
  tcMemDrop(p, (p->iSize + p->szBlock - 1)/p->szBlock);
  iOff = (int)(p->iSize % p->szBlock);
  if( iOff && (a = TC_MEM(p, p->iSize/p->szBlock))!=0 ){
    memset(a + iOff, 0, p->szBlock - iOff);
  }
}

/* Blocks from iSize on hold nothing on the lower file, which now ends
** there: they are holes again.  Only blocks below nLowerBlk can have a
** counter. */
static void tcLowerCut(TcFile *p, i64 iSize){
  i64 nBlk = p->szBlock ? (iSize + p->szBlock - 1)/p->szBlock : 0;
  if( p->nLowerBlk>nBlk ){
    i64 nTop = p->nLowerBlk<p->nCtr ? p->nLowerBlk : p->nCtr;
    if( nBlk<nTop ) memset(p->aCtr + nBlk, 0, (size_t)(nTop - nBlk)*sizeof(u64));
    p->nLowerBlk = nBlk;
  }
}

/*
** Room in the counter array for block k: doubled until it holds it, new
** entries 0 (holes).  Called only by a write that reaches past the array,
** so a file of n blocks grows it about log2(n) times.
*/
static int tcCtrGrow(TcFile *p, i64 k){
  i64 nNew = p->nCtr ? 2*p->nCtr : 64;
  u64 *a;
  while( nNew<=k ) nNew *= 2;
  a = sqlite3_realloc64(p->aCtr, (u64)nNew*sizeof(u64));
  if( a==0 ) return SQLITE_IOERR_NOMEM;
  memset(a + p->nCtr, 0, (size_t)(nNew - p->nCtr)*sizeof(u64));
  p->aCtr = a;
  p->nCtr = nNew;
  return SQLITE_OK;
}

/*
** Open the lower file of a file that was opened without it (the memory
** tier), and take the lock SQLite holds on the file.  Nothing of the file
** is in it yet: blocks that are not in memory read as zeros from it.  On
** failure everything stays as it was.
*/
static int tcLowerOpen(TcFile *p){
  static const u8 aLevel[] = {
    SQLITE_LOCK_SHARED, SQLITE_LOCK_RESERVED, SQLITE_LOCK_EXCLUSIVE
  };
  sqlite3_vfs *pOrig = ORIGVFS(&tc_vfs);
  sqlite3_file *pSub = ORIGFILE(p);
  int rc, i, outFlags = 0;
  assert( p->bCrypt && !p->bLower && p->nLowerBlk==0 );
  rc = pOrig->xOpen(pOrig, 0, pSub, p->openFlags, &outFlags);
  for(i=0; rc==SQLITE_OK && i<3 && aLevel[i]<=p->eLock; i++){
    rc = pSub->pMethods->xLock(pSub, aLevel[i]);
  }
  if( rc!=SQLITE_OK ){
    if( pSub->pMethods ) pSub->pMethods->xClose(pSub);
    pSub->pMethods = 0;
    sqlite3_log(rc, "tempcrypt: cannot open the lower file of a temp file");
    return rc;
  }
  TC_PUBLISH(p->bLower, 1);
  TC_ADD(tcStats.nFileSpilled, 1);
#ifdef SQLITE_TEMPCRYPT_TESTING
  if( tcKeyHook ) tcKeyHook(tcKeyHookArg, &p->base, pSub, p->openFlags, p->aKey);
#endif
  return SQLITE_OK;
}

/* What a write returns when the lower file cannot be opened: the codes
** SQLite's pager and sorter expect of xWrite. */
static int tcLowerOpenError(int rc){
  if( rc==SQLITE_FULL || (rc & 0xff)==SQLITE_IOERR ) return rc;
  if( (rc & 0xff)==SQLITE_NOMEM ) return SQLITE_IOERR_NOMEM;
  return SQLITE_IOERR_WRITE;
}

/* Wipe and release everything secret about an encrypted file. */
static void tcWipeFile(TcFile *p){
  tcMemDrop(p, 0);
  if( p->apMem ){
    sqlite3_free(p->apMem);
    tcMemUnclaim(p, (u64)p->nMemSlot*sizeof(u8*));
    p->apMem = 0;
    p->nMemSlot = 0;
  }
  assert( p->nMemByte==0 );
  if( p->aBuf ){
    tempcrypt_wipe(p->aBuf, (size_t)p->szBlock);
    sqlite3_free(p->aBuf);
    p->aBuf = 0;
  }
  if( p->aCtr ){
    tempcrypt_wipe(p->aCtr, (size_t)p->nCtr*sizeof(u64));
    sqlite3_free(p->aCtr);
    p->aCtr = 0;
    p->nCtr = 0;
  }
  tempcrypt_wipe(p->aKey, sizeof(p->aKey));
  tempcrypt_wipe(&p->iCounter, sizeof(p->iCounter));
  tempcrypt_wipe(&p->iPendingCtr, sizeof(p->iPendingCtr));
}

/*
** Bytes [iOff, iOff+n) of block k of the lower file, decrypted, into z:
** the ciphertext is read straight into z and decrypted there.  A block
** without a counter was never written and reads as zeros without a lower
** call.  A written block holds all its valid bytes, so a short read of
** one means the lower file lost data: an error.
*/
static int tcFetchBlock(TcFile *p, i64 k, int iOff, int n, u8 *z){
  sqlite3_file *pSub = ORIGFILE(p);
  u64 iCtr = TC_CTR(p, k);
  int rc;
  assert( n>0 && iOff+n<=p->szBlock && !p->bPending );
  if( iCtr==0 ){
    memset(z, 0, n);
    return SQLITE_OK;
  }
  rc = pSub->pMethods->xRead(pSub, z, n, tcPhysOffset(p, k) + iOff);
  TC_ADD(tcStats.nPhysicalRead, (u64)n);
  if( rc==SQLITE_IOERR_SHORT_READ ) return SQLITE_IOERR_READ;
  if( rc!=SQLITE_OK ) return rc;
  tcCipher(p, z, z, n, iCtr, iOff);
  return SQLITE_OK;
}

/*
** Finish the repair a failed write left (see "Failures" above): rewrite
** the pending block under a fresh counter, then cut the lower file back
** to the logical size if the clean-up truncate failed.  Until this
** succeeds, nothing else may touch the file.
*/
static int tcRepair(TcFile *p){
  sqlite3_file *pSub = ORIGFILE(p);
  int rc;
  if( p->bPending ){
    u8 *aData = p->aBuf;
    u64 iNew = ++p->iCounter;
    assert( p->nPending>0 && p->nPending<=p->szBlock );
    assert( p->kPending<p->nCtr );
    /* Back to plaintext, then under the fresh counter. */
    tcCipher(p, aData, aData, p->nPending, p->iPendingCtr, 0);
    tcCipher(p, aData, aData, p->nPending, iNew, 0);
    p->iPendingCtr = iNew;
    p->aCtr[p->kPending] = iNew;   /* nothing reads it until this succeeds */
    rc = pSub->pMethods->xWrite(pSub, aData, p->nPending,
                                tcPhysOffset(p, p->kPending));
    TC_ADD(tcStats.nPhysicalWrite, (u64)p->nPending);
    TC_BUMP(p->nLowerWrite, (u64)p->nPending);
    if( rc!=SQLITE_OK ){
      /* The write may have stored part of the block: the tail again. */
      p->bDirtyTail = 1;
      TC_ADD(tcStats.nFailedBlockRead, 1);
      return rc;
    }
    p->bPending = 0;
    assert( !p->bLastKnown );  /* tcWriteFailed: never continue a keystream
                               ** the failed write may have used */
  }
  if( p->bDirtyTail ){
    rc = pSub->pMethods->xTruncate(pSub, p->iSize);
    if( rc!=SQLITE_OK ){
      TC_ADD(tcStats.nFailedBlockRead, 1);
      return rc;
    }
    p->bDirtyTail = 0;
    tcLowerCut(p, p->iSize);
  }
  return SQLITE_OK;
}

/*
** Store n bytes of z (zeros if z is NULL) at byte iOff of block k.  Three
** cases:
**   - append to the last block whose counter is known: continue its
**     keystream and write only the new bytes;
**   - the write covers every valid byte of the block: fresh counter,
**     nothing to read;
**   - otherwise read, decrypt, patch and re-encrypt under a fresh counter.
** Bytes between the valid end and iOff become zeros.  The block's counter
** is set before the lower write (the test build's checks read it there).
** If the write fails nothing reads the block under it: an append kept the
** counter, valid bytes the write may have half replaced become the
** pending repair, which gives the block a fresh counter before anything
** reads it, and a block that had no valid bytes lies past the end, which
** the caller cuts away, counters too (tcWriteFailed, tcLowerCut).
*/
static int tcWriteBlock(TcFile *p, i64 k, int iOff, const u8 *z, int n){
  sqlite3_file *pSub = ORIGFILE(p);
  u8 *aData = p->aBuf;
  int nValid = tcValid(p, k);
  int iEnd = iOff + n;
  int iFrom;                /* First byte of the block stored by this write */
  int iTo;                  /* One past the last byte stored */
  int bAppend = 0;          /* Continue the block's keystream */
  u64 iCtr;
  i64 iPhys;
  int nPhys;
  int rc;

  assert( !p->bPending && n>0 && iEnd<=p->szBlock );
  assert( p->bLower && TC_MEM(p, k)==0 );
  if( k>=p->nCtr ){
    rc = tcCtrGrow(p, k);
    if( rc!=SQLITE_OK ) return rc;
  }
  if( k>=p->nLowerBlk ) p->nLowerBlk = k+1;   /* even if the write fails */
  if( nValid>0 && iOff>=nValid && k==tcLastBlock(p) && p->bLastKnown ){
    bAppend = 1;
    iCtr = p->aCtr[k];
    iFrom = nValid;
    iTo = iEnd;
  }else{
    if( nValid>0 && (iOff>0 || iEnd<nValid) ){
      rc = tcFetchBlock(p, k, 0, nValid, aData);
      if( rc!=SQLITE_OK ) return rc;
      TC_ADD(tcStats.nBlockRmw, 1);
    }
    iCtr = ++p->iCounter;
    iFrom = 0;
    iTo = iEnd>nValid ? iEnd : nValid;
  }
  assert( 0<=iFrom && iFrom<=iOff && iOff<iEnd && iEnd<=iTo && iTo<=p->szBlock );
  /* Zeros between what was valid and where this write starts. */
  if( iOff>nValid ) memset(aData+nValid, 0, iOff-nValid);

  /* Encrypt the stored range; the new bytes go straight from z. */
  if( z ){
    tcCipher(p, aData+iOff, z, n, iCtr, iOff);
    tcCipher(p, aData+iFrom, aData+iFrom, iOff-iFrom, iCtr, iFrom);
    tcCipher(p, aData+iEnd, aData+iEnd, iTo-iEnd, iCtr, iEnd);
  }else{
    memset(aData+iOff, 0, n);
    tcCipher(p, aData+iFrom, aData+iFrom, iTo-iFrom, iCtr, iFrom);
  }

  assert( iCtr!=0 );
  iPhys = tcPhysOffset(p, k) + iFrom;
  nPhys = iTo - iFrom;
  p->aCtr[k] = iCtr;
  rc = pSub->pMethods->xWrite(pSub, aData+iFrom, nPhys, iPhys);
  TC_ADD(tcStats.nPhysicalWrite, (u64)nPhys);
  TC_BUMP(p->nLowerWrite, (u64)nPhys);
  if( rc!=SQLITE_OK ){
    if( !bAppend && nValid>0 ){
      /* The valid part on disk may be half old, half new.  aBuf holds
      ** what it should be (the old bytes around this write's): rewrite
      ** it before anything else happens to the file. */
      p->bPending = 1;
      p->kPending = k;
      p->nPending = nValid;
      p->iPendingCtr = iCtr;
    }
    return rc;
  }
  if( k*p->szBlock + iTo > p->iSize ) TC_STORE(p->iSize, k*p->szBlock + iTo);
  if( k==tcLastBlock(p) ) p->bLastKnown = 1;
  return SQLITE_OK;
}

/*
** Before the file grows to iEnd: store the zeros between the valid end of
** a partly filled last block and iEnd (or that block's end) as
** ciphertext, since a hole inside a block would decrypt to keystream.
** Whole blocks past it stay holes: counter 0 reads as zeros.
*/
static int tcFillLast(TcFile *p, i64 iEnd){
  i64 kLast = tcLastBlock(p);
  i64 iBlockEnd = (kLast+1)*p->szBlock;
  if( iEnd<=p->iSize || p->iSize%p->szBlock==0 ) return SQLITE_OK;
  /* A block in memory, or one the lower file holds nothing of, reads as
  ** zeros past its end already. */
  if( TC_MEM(p, kLast) || kLast>=p->nLowerBlk ) return SQLITE_OK;
  if( iEnd>iBlockEnd ) iEnd = iBlockEnd;
  return tcWriteBlock(p, kLast, tcValid(p, kLast), 0, (int)(iEnd - p->iSize));
}

/*
** After a failed write: the logical size goes back to iOldSize, and
** whatever lies past it in the lower file goes too, so that it never
** passes for data when the file grows again (if that truncate fails,
** tcRepair retries it before the next call).  The last block's keystream
** may have been used past the valid end: do not continue it.
*/
static void tcWriteFailed(TcFile *p, i64 iOldSize){
  sqlite3_file *pSub = ORIGFILE(p);
  TC_STORE(p->iSize, iOldSize);
  p->bLastKnown = 0;
  p->eFree = TC_FREE_NONE;   /* the file is not what SQLite thinks */
  /* The pending block had valid bytes before the write. */
  assert( !p->bPending || p->kPending*p->szBlock<iOldSize );
  tcMemClip(p);
  if( !p->bLower ) return;
  if( pSub->pMethods->xTruncate(pSub, iOldSize)!=SQLITE_OK ){
    p->bDirtyTail = 1;
  }else{
    tcLowerCut(p, iOldSize);
  }
}

/*
** Store n bytes of z (zeros if z is NULL) at byte iOff of block k: in the
** block's memory if it has some or can get some (tcMemNew), else in the
** lower file, encrypted (tcWriteBlock), which opens now if need be.
*/
static int tcStore(TcFile *p, i64 k, int iOff, const u8 *z, int n){
  u8 *a = TC_MEM(p, k);
  i64 iEnd = k*p->szBlock + iOff + n;
  int rc;
  if( a==0 ) a = tcMemNew(p, k, iOff, n);
  if( a ){
    if( z ){
      memcpy(a + iOff, z, n);
    }else{
      memset(a + iOff, 0, n);
    }
    if( iEnd>p->iSize ){
      TC_STORE(p->iSize, iEnd);
      p->bLastKnown = 0;   /* the last block is in memory now */
    }
    return SQLITE_OK;
  }
  if( !p->bLower ){
    rc = tcLowerOpen(p);
    if( rc!=SQLITE_OK ) return tcLowerOpenError(rc);
  }
  if( z ) TC_ADD(tcStats.nSpilled, (u64)n);
  return tcWriteBlock(p, k, iOff, z, n);
}

/* ------------------------------------------------------------ file list */

/*
** The temp files open in the process, newest first, and what the last
** TC_NCLOSED closed ones looked like when they closed: what
** sqlite3_tempcrypt_files() reports (the SQL table tempcrypt_files,
** tempcrypt_vtab.c).  Touched at open and close only, under the mutex
** SQLite keeps for extension VFSes, which sqlite3_tempcrypt_register()
** also takes (never both at once).
*/
#define TC_NCLOSED 16
static TcFile *tcTempList = 0;
static u64 tcTempCount = 0;           /* temp files opened so far */
static struct sqlite3_tempcrypt_file tcClosed[TC_NCLOSED];
static u64 tcClosedCount = 0;         /* temp files closed so far */

static void tcTempInfo(TcFile *p, struct sqlite3_tempcrypt_file *pOut){
  memset(pOut, 0, sizeof(*pOut));
  pOut->id = p->iId;
  pOut->flags = p->openFlags;
  pOut->open = 1;
  pOut->encrypted = p->bCrypt;
  pOut->blockSize = TC_LOAD(p->szBlock);
  pOut->lower = TC_ACQUIRE(p->bLower);
  pOut->size = p->bCrypt ? TC_LOAD(p->iSize) : -1;
  pOut->nWrite = TC_LOAD(p->nWrite);
  pOut->nMemBytes = TC_LOAD(p->nMemByte);
  pOut->nLowerWrite = TC_LOAD(p->nLowerWrite);
  pOut->nEnciphered = TC_LOAD(p->nEnciphered);
  pOut->nFound = -1;
}

/*
** The needle search of sqlite3_tempcrypt_files(): Knuth-Morris-Pratt.  It
** runs under the mutex, so its work is linear in the bytes searched
** whatever the needle: each stored byte is read once, in whole chunks,
** and the state of a partial match carries from one chunk to the next.
** aNext[i] is the length of the longest proper prefix of the needle that
** is also a suffix of its first i+1 bytes.
*/
static void tcFindPrepare(const u8 *aNeedle, int nNeedle, int *aNext){
  int i, k = 0;
  aNext[0] = 0;
  for(i=1; i<nNeedle; i++){
    while( k>0 && aNeedle[i]!=aNeedle[k] ) k = aNext[k-1];
    if( aNeedle[i]==aNeedle[k] ) k++;
    aNext[i] = k;
  }
}

/*
** Occurrences of the needle (overlapping ones too) in what file p stored
** on the lower VFS, read back through it; -1 if a read fails.
*/
static i64 tcTempFind(TcFile *p, const u8 *aNeedle, int nNeedle,
                      const int *aNext, u8 *aChunk, int nChunk){
  sqlite3_file *pSub = ORIGFILE(p);
  i64 iSize = 0, iOfst, nFound = 0;
  int k = 0;                /* bytes of the needle matched so far */
  if( !TC_ACQUIRE(p->bLower) ) return 0;
  if( pSub->pMethods->xFileSize(pSub, &iSize)!=SQLITE_OK ) return -1;
  for(iOfst=0; iOfst<iSize; iOfst+=nChunk){
    int n = iSize-iOfst < nChunk ? (int)(iSize-iOfst) : nChunk, i;
    if( pSub->pMethods->xRead(pSub, aChunk, n, iOfst)!=SQLITE_OK ) return -1;
    for(i=0; i<n; i++){
      while( k>0 && aChunk[i]!=aNeedle[k] ) k = aNext[k-1];
      if( aChunk[i]==aNeedle[k] && ++k==nNeedle ){
        nFound++;
        k = aNext[k-1];
      }
    }
  }
  return nFound;
}

static void tcTempAdd(TcFile *p){
  sqlite3_mutex *pMutex = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_VFS2);
  sqlite3_mutex_enter(pMutex);
  p->iId = ++tcTempCount;
  p->pNextTemp = tcTempList;
  p->ppPrevTemp = &tcTempList;
  if( tcTempList ) tcTempList->ppPrevTemp = &p->pNextTemp;
  tcTempList = p;
  sqlite3_mutex_leave(pMutex);
}

static void tcTempRemove(TcFile *p){
  sqlite3_mutex *pMutex = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_VFS2);
  struct sqlite3_tempcrypt_file *pLast;
  sqlite3_mutex_enter(pMutex);
  *p->ppPrevTemp = p->pNextTemp;
  if( p->pNextTemp ) p->pNextTemp->ppPrevTemp = p->ppPrevTemp;
  pLast = &tcClosed[tcClosedCount++ % TC_NCLOSED];
  tcTempInfo(p, pLast);
  pLast->open = 0;
  sqlite3_mutex_leave(pMutex);
}

/*
** The list for sqlite3_tempcrypt_files() (db NULL: the needle searched in
** every open file) and sqlite3_tempcrypt_files_db() (only in the files of
** connection db: each of its databases' file and journal, which is how
** SQLite lets a connection name its own files).
*/
static int tcTempFiles(sqlite3 *db, struct sqlite3_tempcrypt_file *aOut,
                       int nOut, const void *pNeedle, int nNeedle){
  const int nChunk = 65536;
  sqlite3_file *apMine[2*(125+2)];   /* SQLite attaches at most 125 */
  int nMine = 0;
  sqlite3_mutex *pMutex;
  TcFile *p;
  u64 i, nClosed;
  u8 *aChunk = 0;
  int *aNext = 0;
  int n = 0;
  if( sqlite3_initialize()!=SQLITE_OK ) return -1;
  if( nNeedle>0 ){
    if( nNeedle>SQLITE_TEMPCRYPT_MAX_NEEDLE ) return -1;
    aChunk = sqlite3_malloc64(nChunk + sizeof(int)*(sqlite3_uint64)nNeedle);
    if( aChunk==0 ) return -1;
    aNext = (int*)(aChunk + nChunk);
    tcFindPrepare((const u8*)pNeedle, nNeedle, aNext);
  }
  if( aChunk && db ){
    const char *zDb;
    int iDb;
    for(iDb=0; (zDb = sqlite3_db_name(db, iDb))!=0 && nMine+2<=(int)(sizeof(apMine)/sizeof(apMine[0])); iDb++){
      sqlite3_file *pF = 0;
      if( sqlite3_file_control(db, zDb, SQLITE_FCNTL_FILE_POINTER, &pF)==SQLITE_OK && pF ) apMine[nMine++] = pF;
      pF = 0;
      if( sqlite3_file_control(db, zDb, SQLITE_FCNTL_JOURNAL_POINTER, &pF)==SQLITE_OK && pF ) apMine[nMine++] = pF;
    }
  }
  pMutex = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_VFS2);
  /* No file in the list closes while the mutex is held (tcTempRemove). */
  sqlite3_mutex_enter(pMutex);
  for(p=tcTempList; p; p=p->pNextTemp, n++){
    int bMine = db==0, j;
    if( n>=nOut ) continue;
    tcTempInfo(p, &aOut[n]);
    for(j=0; !bMine && j<nMine; j++) bMine = apMine[j]==(sqlite3_file*)p;
    if( aChunk && bMine ){
      aOut[n].nFound = tcTempFind(p, (const u8*)pNeedle, nNeedle, aNext, aChunk, nChunk);
    }
  }
  /* Then the closed ones, newest first. */
  nClosed = tcClosedCount<TC_NCLOSED ? tcClosedCount : TC_NCLOSED;
  for(i=1; i<=nClosed; i++, n++){
    if( n<nOut ) aOut[n] = tcClosed[(tcClosedCount-i) % TC_NCLOSED];
  }
  sqlite3_mutex_leave(pMutex);
  sqlite3_free(aChunk);
  return n;
}

int sqlite3_tempcrypt_files(struct sqlite3_tempcrypt_file *aOut, int nOut,
                            const void *pNeedle, int nNeedle){
  return tcTempFiles(0, aOut, nOut, pNeedle, nNeedle);
}

int sqlite3_tempcrypt_files_db(sqlite3 *db, struct sqlite3_tempcrypt_file *aOut,
                               int nOut, const void *pNeedle, int nNeedle){
  if( db==0 ) return -1;
  return tcTempFiles(db, aOut, nOut, pNeedle, nNeedle);
}

/* ------------------------------------------------------------ methods */

static int tcClose(sqlite3_file *pFile){
  TcFile *p = (TcFile*)pFile;
  pFile = ORIGFILE(pFile);
  if( p->iId ) tcTempRemove(p);
  if( p->bCrypt ) tcWipeFile(p);
  if( !p->bLower ) return SQLITE_OK;
  return pFile->pMethods->xClose(pFile);
}

/*
** Read block by block.  A block in memory is copied; one that holds
** nothing on the lower file reads as zeros; one on the lower file is read
** into zBuf and decrypted there (tcFetchBlock), one lower call a block.
*/
static int tcReadRange(TcFile *p, u8 *z, int iAmt, i64 iOfst){
  int rc = SQLITE_OK;
  while( iAmt>0 ){
    i64 k;
    int iOff, n;
    const u8 *a;
    if( iOfst>=p->iSize ){
      memset(z, 0, iAmt);
      return SQLITE_IOERR_SHORT_READ;
    }
    k = iOfst / p->szBlock;
    iOff = (int)(iOfst % p->szBlock);
    n = tcValid(p, k) - iOff;
    if( n>iAmt ) n = iAmt;
    if( (a = TC_MEM(p, k))!=0 ){
      memcpy(z, a + iOff, n);
    }else if( k>=p->nLowerBlk ){
      memset(z, 0, n);
    }else{
      rc = tcFetchBlock(p, k, iOff, n, z);
    }
    if( rc!=SQLITE_OK ) break;
    z += n;
    iOfst += n;
    iAmt -= n;
  }
  if( rc!=SQLITE_OK ) memset(z, 0, iAmt);  /* no ciphertext left in zBuf */
  return rc;
}

static int tcRead(sqlite3_file *pFile, void *zBuf, int iAmt, sqlite3_int64 iOfst){
  TcFile *p = (TcFile*)pFile;
  sqlite3_file *pSub = ORIGFILE(pFile);

  if( !p->bCrypt ) return pSub->pMethods->xRead(pSub, zBuf, iAmt, iOfst);
  if( tcRepair(p)!=SQLITE_OK ){
    memset(zBuf, 0, iAmt);
    return SQLITE_IOERR_READ;
  }
  TC_ADD(tcStats.nLogicalRead, (u64)iAmt);
  return tcReadRange(p, (u8*)zBuf, iAmt, iOfst);
}

/* ------------------------------------------------ the TEMP database's free pages */

static u32 tcGet4(const u8 *a){
  return ((u32)a[0]<<24) | ((u32)a[1]<<16) | ((u32)a[2]<<8) | a[3];
}

/* The freelist and page size from the header z of the TEMP database. */
static void tcFreeHeader(TcFile *p, const u8 *z){
  u32 szPage = ((u32)z[16]<<8) | z[17];
  if( szPage==1 ) szPage = 65536;
  p->iTrunk = tcGet4(z+32);
  p->nFree = tcGet4(z+36);
  p->szPage = szPage;
  p->szUsable = szPage - z[20];
}

/*
** A write of n bytes at iOfst reached the TEMP database (see "The TEMP
** database" above).  A write of page 1 whose change counter is one above
** that of the last page 1 starts a commit's flush and records the header;
** any other page 1, or any write after the flush ended, cancels it.
*/
static void tcFreeNote(TcFile *p, const u8 *z, int n, i64 iOfst){
  if( iOfst==0 && n>=100 ){
    u32 iChange;
    TC_PUBLIC(z+16, 24);                  /* page size ... freelist count */
    iChange = tcGet4(z+24);
    p->eFree = iChange==p->iChange+1 ? TC_FREE_FLUSH : TC_FREE_NONE;
    p->iChange = iChange;
    tcFreeHeader(p, z);
  }else if( p->eFree==TC_FREE_SYNCED ){
    p->eFree = TC_FREE_NONE;
  }
}

/*
** A page of the TEMP database as it is committed, or NULL: read from the
** file by the commit path (tcFreeFromFile), from SQLite's cache by
** sqlite3_tempcrypt_reclaim() (tcFreeFromCache).
*/
typedef const u8 *(*TcPageFn)(TcFile *p, void *pCtx, u32 iPage);

/*
** Give back the memory of the blocks of the TEMP database's free leaf
** pages, of the freelist that tcFreeHeader recorded, with its trunk pages
** from xPage.  Only blocks that lie wholly inside one free page go (a
** block larger than a page holds other pages too).  The walk reads at most
** as many pages as the header counts and stops at anything that is not a
** well-formed freelist.
*/
static void tcFreeRelease(TcFile *p, TcPageFn xPage, void *pCtx){
  u32 iTrunk = p->iTrunk;
  u32 nLeft = p->nFree;
  i64 nPage;
  int perPage;
  if( p->szPage<512 || p->szPage>65536 || (p->szPage & (p->szPage-1))!=0
   || p->szUsable<480 || p->szUsable>p->szPage
   || p->szBlock==0 || (u32)p->szBlock>p->szPage || p->nMemTop==0 ){
    return;
  }
  nPage = p->iSize / p->szPage;
  perPage = (int)(p->szPage / (u32)p->szBlock);
  while( iTrunk>=2 && iTrunk<=nPage && nLeft>0 ){
    const u8 *a = xPage(p, pCtx, iTrunk);
    u32 nLeaf, i;
    if( a==0 ) break;
    TC_PUBLIC(a, 8);                      /* next trunk, number of leaves */
    nLeaf = tcGet4(a+4);
    nLeft--;
    if( nLeaf>p->szUsable/4-2 || nLeaf>nLeft ) break;
    TC_PUBLIC(a+8, (int)nLeaf*4);         /* the leaves' page numbers */
    for(i=0; i<nLeaf; i++){
      u32 iLeaf = tcGet4(a + 8 + i*4);
      int j;
      if( iLeaf<2 || iLeaf>nPage ) continue;
      for(j=0; j<perPage; j++) tcMemFree(p, (i64)(iLeaf-1)*perPage + j);
    }
    nLeft -= nLeaf;
    iTrunk = tcGet4(a);
  }
  tcMemTrim(p);
}

/* The commit path: the file is equal to the database. */
static const u8 *tcFreeFromFile(TcFile *p, void *pCtx, u32 iPage){
  u8 *a = (u8*)pCtx;
  if( tcReadRange(p, a, (int)p->szPage, (i64)(iPage-1)*p->szPage)!=SQLITE_OK ) return 0;
  return a;
}

/* A commit of the TEMP database wrote its page cache out (eFree). */
static void tcFreeAtCommit(TcFile *p){
  u8 *a;
  if( p->bPending || p->nMemTop==0 || p->nFree==0 || p->szPage<512 || p->szPage>65536 ) return;
  a = sqlite3_malloc((int)p->szPage);
  if( a==0 ) return;                    /* then the next one */
#ifdef SQLITE_TEMPCRYPT_TESTING
  if( tcBlockHook ) tcBlockHook(tcBlockHookArg, a, (int)p->szPage);
#endif
  tcFreeRelease(p, tcFreeFromFile, a);
  tempcrypt_wipe(a, p->szPage);         /* a trunk page keeps old rows */
  sqlite3_free(a);
}

static int tcWrite(sqlite3_file *pFile, const void *zBuf, int iAmt, sqlite3_int64 iOfst){
  TcFile *p = (TcFile*)pFile;
  sqlite3_file *pSub = ORIGFILE(pFile);
  const u8 *z = (const u8*)zBuf;
  const int iAmtIn = iAmt;
  const i64 iOfstIn = iOfst;
  i64 iOldSize = p->iSize;
  int rc;

  if( !p->bCrypt ){
    if( p->iId && iAmt>0 ){           /* a plaintext temp file */
      TC_BUMP(p->nWrite, (u64)iAmt);
      TC_BUMP(p->nLowerWrite, (u64)iAmt);
    }
    return pSub->pMethods->xWrite(pSub, zBuf, iAmt, iOfst);
  }
  if( iAmt<=0 ) return SQLITE_OK;
  if( p->szBlock==0 ){
    rc = tcSetBlockSize(p, tcChooseBlockSize(p->bDbFile, iAmt, iOfst));
    if( rc!=SQLITE_OK ) return SQLITE_IOERR_NOMEM;
  }
  rc = tcRepair(p);
  if( rc!=SQLITE_OK ) return rc==SQLITE_FULL ? rc : SQLITE_IOERR_WRITE;
  TC_ADD(tcStats.nLogicalWrite, (u64)iAmt);
  TC_BUMP(p->nWrite, (u64)iAmt);

  /* A write that starts in a later block first fills up the last one. */
  if( iOfst/p->szBlock > tcLastBlock(p) ) rc = tcFillLast(p, iOfst);
  while( rc==SQLITE_OK && iAmt>0 ){
    i64 k = iOfst / p->szBlock;
    int iOff = (int)(iOfst % p->szBlock);
    int n = p->szBlock - iOff;
    if( n>iAmt ) n = iAmt;
    rc = tcStore(p, k, iOff, z, n);
    z += n;
    iOfst += n;
    iAmt -= n;
  }
  if( rc!=SQLITE_OK ){
    tcWriteFailed(p, iOldSize);
  }else if( p->bTempDb ){
    tcFreeNote(p, (const u8*)zBuf, iAmtIn, iOfstIn);
  }
  return rc;
}

static int tcTruncate(sqlite3_file *pFile, sqlite3_int64 size){
  TcFile *p = (TcFile*)pFile;
  sqlite3_file *pSub = ORIGFILE(pFile);
  i64 iSizeBefore = p->iSize;
  int rc;

  if( !p->bCrypt ) return pSub->pMethods->xTruncate(pSub, size);
  if( size<0 ) return SQLITE_IOERR_TRUNCATE;
  if( size>0 && p->szBlock==0 ){
    rc = tcSetBlockSize(p, TC_BLOCK);
    if( rc!=SQLITE_OK ) return SQLITE_IOERR_NOMEM;
  }
  /* Repair first a pending block that stays, and anything before the
  ** file grows (growing must not expose a failed write's leftovers).  A
  ** pending block the truncate cuts away stays pending until the lower
  ** truncate has succeeded. */
  if( (p->bPending && p->kPending*p->szBlock<size) || size>p->iSize ){
    rc = tcRepair(p);
    if( rc!=SQLITE_OK ){
      p->eFree = TC_FREE_NONE;
      return SQLITE_IOERR_TRUNCATE;
    }
  }
  rc = tcFillLast(p, size);
  if( rc!=SQLITE_OK ){
    tcWriteFailed(p, iSizeBefore);
    return rc;
  }
  if( p->bLower ){
    rc = pSub->pMethods->xTruncate(pSub, size);
    if( rc!=SQLITE_OK ){
      /* The fill above may have grown the file: undo it, as for a write. */
      if( p->iSize!=iSizeBefore ) tcWriteFailed(p, iSizeBefore);
      p->eFree = TC_FREE_NONE;
      return rc;
    }
    tcLowerCut(p, size);
  }
  TC_STORE(p->iSize, size);
  tcMemClip(p);
  p->bLastKnown = 0;   /* keystream past the new end is spent */
  p->bDirtyTail = 0;   /* the lower file ends where the data does */
  p->bPending = 0;     /* only a block cut away can have been pending */
  return SQLITE_OK;
}

/* A sync must not report success while a failed write is unrepaired. */
static int tcSync(sqlite3_file *pFile, int flags){
  TcFile *p = (TcFile*)pFile;
  if( p->bCrypt && tcRepair(p)!=SQLITE_OK ) return SQLITE_IOERR_FSYNC;
  if( !p->bLower ) return SQLITE_OK;      /* nothing below to sync */
  pFile = ORIGFILE(pFile);
  return pFile->pMethods->xSync(pFile, flags);
}

static int tcFileSize(sqlite3_file *pFile, sqlite3_int64 *pSize){
  TcFile *p = (TcFile*)pFile;
  if( p->bCrypt ){
    *pSize = p->iSize;
    return SQLITE_OK;
  }
  pFile = ORIGFILE(pFile);
  return pFile->pMethods->xFileSize(pFile, pSize);
}

/*
** Locks pass down.  A file without its lower file yet (the memory tier)
** has no other connection that could see it: it keeps the level SQLite
** asks for, and tcLowerOpen takes that level on the lower file.
*/
static int tcLock(sqlite3_file *pFile, int eLock){
  TcFile *p = (TcFile*)pFile;
  if( !p->bLower ){
    p->eLock = (u8)eLock;
    return SQLITE_OK;
  }
  pFile = ORIGFILE(pFile);
  return pFile->pMethods->xLock(pFile, eLock);
}

static int tcUnlock(sqlite3_file *pFile, int eLock){
  TcFile *p = (TcFile*)pFile;
  if( !p->bLower ){
    if( eLock<p->eLock ) p->eLock = (u8)eLock;
    return SQLITE_OK;
  }
  pFile = ORIGFILE(pFile);
  return pFile->pMethods->xUnlock(pFile, eLock);
}

static int tcCheckReservedLock(sqlite3_file *pFile, int *pResOut){
  TcFile *p = (TcFile*)pFile;
  if( !p->bLower ){
    *pResOut = p->eLock>=SQLITE_LOCK_RESERVED;
    return SQLITE_OK;
  }
  pFile = ORIGFILE(pFile);
  return pFile->pMethods->xCheckReservedLock(pFile, pResOut);
}

/*
** PRAGMA tempcrypt_budget and PRAGMA tempcrypt_budget=N (bytes): the
** memory tier's budget, process-wide, like PRAGMA soft_heap_limit.  Any
** file of tempcrypt answers it (SQLite asks the main database's).
*/
static int tcPragma(char **azArg){
  i64 n = 0;
  const char *z = azArg[2];
  if( sqlite3_stricmp(azArg[1], "tempcrypt_budget")!=0 ) return SQLITE_NOTFOUND;
  if( z ){
    do{
      if( *z<'0' || *z>'9' || n>(((i64)0x7fffffffffffffffLL) - 9)/10 ){
        azArg[0] = sqlite3_mprintf("tempcrypt_budget: not a number of bytes: %s", azArg[2]);
        return SQLITE_ERROR;
      }
      n = n*10 + (*z - '0');
    }while( *++z );
    sqlite3_tempcrypt_budget(n);
  }
  azArg[0] = sqlite3_mprintf("%lld", (long long)sqlite3_tempcrypt_budget(-1));
  return azArg[0] ? SQLITE_OK : SQLITE_NOMEM;
}

/*
** File controls.  Named files pass everything down but PRAGMA
** tempcrypt_budget.  For an encrypted file every op was looked at, and
** only those that cannot break the layout go down; everything else,
** including ops newer than this list, gets SQLITE_NOTFOUND, which SQLite
** takes as "not for this file":
**
**   forwarded   VFSNAME (tagged), TEMPFILENAME, LOCKSTATE, LAST_ERRNO,
**               HAS_MOVED, SYNC, COMMIT_PHASETWO, BUSYHANDLER,
**               LOCK_TIMEOUT, PERSIST_WAL, POWERSAFE_OVERWRITE: they
**               name, report or set flags and move no file bytes
**               (xDeviceCharacteristics strips POWERSAFE_OVERWRITE for
**               encrypted files anyway);
**   translated  SIZE_HINT: passed down with the file's size, which is the
**               lower file's (a lower file grown by a hint holds zeros
**               past the end, which no read uses: a block without a
**               counter is a hole); a hint of 0 is answered SQLITE_OK;
**   limited     MMAP_SIZE: the lower file's limit is set to (or asked as)
**               0 and the answer is 0: the file is never mapped (its
**               table has no xFetch); the result code is the lower's, so
**               a lower VFS without mmap still says SQLITE_NOTFOUND;
**   answered    PRAGMA tempcrypt_budget (tcPragma); TC_FCNTL_SELF, the
**               shim's own, for sqlite3_tempcrypt_reclaim();
**   refused     CHUNK_SIZE (the unix VFS would then round truncates up and
**               leave old ciphertext past the end), SIZE_LIMIT
**               (a memdb limit on a size that is not ours), the atomic
**               write batch ops (no atomic claims), NULL_IO, other
**               PRAGMAs, WIN32_*, ZIPVFS, RBU, CKPT_*, and anything
**               unknown.
**
** A file without its lower file yet (the memory tier) answers the hints
** SQLite sends every temp file itself: SIZE_HINT SQLITE_OK (there is
** nothing to reserve), MMAP_SIZE SQLITE_OK and 0 (never mapped), SYNC and
** COMMIT_PHASETWO SQLITE_NOTFOUND (nothing to sync; of the TEMP database
** they first drive tcFreeNote's sequence).  The forwarded ops
** that report on or configure the lower file open it first, so that they
** answer what the lower file would.
*/
static int tcFileControl(sqlite3_file *pFile, int op, void *pArg){
  TcFile *p = (TcFile*)pFile;
  sqlite3_file *pSub = ORIGFILE(pFile);
  int rc;
  if( op==TC_FCNTL_SELF ){
    *(TcFile**)pArg = p;
    return SQLITE_OK;
  }
  if( op==SQLITE_FCNTL_PRAGMA ){
    rc = tcPragma((char**)pArg);
    if( rc!=SQLITE_NOTFOUND || p->bCrypt ) return rc;
  }
  if( p->bCrypt ){
    switch( op ){
      case SQLITE_FCNTL_SYNC:
      case SQLITE_FCNTL_COMMIT_PHASETWO:
        if( p->bTempDb ){
          /* The end of a commit's flush, then of the commit (tcFreeNote). */
          if( op==SQLITE_FCNTL_SYNC ){
            if( p->eFree==TC_FREE_FLUSH ) p->eFree = TC_FREE_SYNCED;
          }else{
            if( p->eFree==TC_FREE_SYNCED ) tcFreeAtCommit(p);
            p->eFree = TC_FREE_NONE;
            p->bCommitted = 1;
          }
        }
        if( !p->bLower ) return SQLITE_NOTFOUND;
        break;
      case SQLITE_FCNTL_VFSNAME:
      case SQLITE_FCNTL_TEMPFILENAME:
      case SQLITE_FCNTL_LOCKSTATE:
      case SQLITE_FCNTL_LAST_ERRNO:
      case SQLITE_FCNTL_HAS_MOVED:
      case SQLITE_FCNTL_BUSYHANDLER:
      case SQLITE_FCNTL_LOCK_TIMEOUT:
      case SQLITE_FCNTL_PERSIST_WAL:
      case SQLITE_FCNTL_POWERSAFE_OVERWRITE:
        if( !p->bLower ){
          rc = tcLowerOpen(p);
          if( rc!=SQLITE_OK ) return rc;
        }
        break;
      case SQLITE_FCNTL_SIZE_HINT: {
        sqlite3_int64 iHint;
        if( !p->bLower ) return SQLITE_OK;
        iHint = *(sqlite3_int64*)pArg;
        if( iHint==0 ) return SQLITE_OK;
        return pSub->pMethods->xFileControl(pSub, op, &iHint);
      }
      case SQLITE_FCNTL_MMAP_SIZE: {
        /* Set (or ask) the lower limit as 0; answer as the lower does. */
        sqlite3_int64 iLimit = *(sqlite3_int64*)pArg<0 ? -1 : 0;
        if( !p->bLower ){
          *(sqlite3_int64*)pArg = 0;
          return SQLITE_OK;
        }
        rc = pSub->pMethods->xFileControl(pSub, op, &iLimit);
        if( rc==SQLITE_OK ) *(sqlite3_int64*)pArg = 0;
        return rc;
      }
      default:
        return SQLITE_NOTFOUND;
    }
  }
  rc = pSub->pMethods->xFileControl(pSub, op, pArg);
  if( rc==SQLITE_OK && op==SQLITE_FCNTL_VFSNAME ){
    *(char**)pArg = sqlite3_mprintf(SQLITE_TEMPCRYPT_VFS_NAME "/%z", *(char**)pArg);
  }
  return rc;
}

/* SQLite asks no temp file for its sector size; without a lower file,
** SQLite's own default. */
static int tcSectorSize(sqlite3_file *pFile){
  TcFile *p = (TcFile*)pFile;
  if( !p->bLower ) return TC_SECTOR;
  pFile = ORIGFILE(pFile);
  return pFile->pMethods->xSectorSize(pFile);
}

static int tcDeviceCharacteristics(sqlite3_file *pFile){
  TcFile *p = (TcFile*)pFile;
  int dc;
  if( !p->bLower ) return 0;   /* no lower file to promise anything of */
  pFile = ORIGFILE(pFile);
  dc = pFile->pMethods->xDeviceCharacteristics(pFile);
  if( p->bCrypt ){
    /* Counter and data are two pieces: no write is atomic any more; and
    ** a write inside a block rewrites the whole block, so it is not
    ** powersafe for the bytes around it either. */
    dc &= ~(SQLITE_IOCAP_ATOMIC | SQLITE_IOCAP_ATOMIC512 | SQLITE_IOCAP_ATOMIC1K
          | SQLITE_IOCAP_ATOMIC2K | SQLITE_IOCAP_ATOMIC4K | SQLITE_IOCAP_ATOMIC8K
          | SQLITE_IOCAP_ATOMIC16K | SQLITE_IOCAP_ATOMIC32K
          | SQLITE_IOCAP_ATOMIC64K | SQLITE_IOCAP_SAFE_APPEND
          | SQLITE_IOCAP_BATCH_ATOMIC | SQLITE_IOCAP_POWERSAFE_OVERWRITE);
  }
  return dc;
}

static int tcShmMap(sqlite3_file *pFile, int iPg, int pgsz, int bExtend,
                    void volatile **pp){
  pFile = ORIGFILE(pFile);
  return pFile->pMethods->xShmMap(pFile, iPg, pgsz, bExtend, pp);
}

static int tcShmLock(sqlite3_file *pFile, int offset, int n, int flags){
  pFile = ORIGFILE(pFile);
  return pFile->pMethods->xShmLock(pFile, offset, n, flags);
}

static void tcShmBarrier(sqlite3_file *pFile){
  pFile = ORIGFILE(pFile);
  pFile->pMethods->xShmBarrier(pFile);
}

static int tcShmUnmap(sqlite3_file *pFile, int deleteFlag){
  pFile = ORIGFILE(pFile);
  return pFile->pMethods->xShmUnmap(pFile, deleteFlag);
}

/* Only in the tables of named files whose lower file maps. */
static int tcFetch(sqlite3_file *pFile, sqlite3_int64 iOfst, int iAmt, void **pp){
  assert( !((TcFile*)pFile)->bCrypt );
  pFile = ORIGFILE(pFile);
  return pFile->pMethods->xFetch(pFile, iOfst, iAmt, pp);
}

static int tcUnfetch(sqlite3_file *pFile, sqlite3_int64 iOfst, void *pPage){
  assert( !((TcFile*)pFile)->bCrypt );
  pFile = ORIGFILE(pFile);
  return pFile->pMethods->xUnfetch(pFile, iOfst, pPage);
}

/* ------------------------------------------------------------ the VFS */

/* The method table that promises no more than the lower file keeps. */
static const sqlite3_io_methods *tcMethodsFor(const TcFile *p){
  const sqlite3_io_methods *pSub = ORIGFILE(p)->pMethods;
  int bShm, bFetch;
  if( p->bCrypt ) return &tc_io_methods_v1;
  bShm = pSub->iVersion>=2 && pSub->xShmMap && pSub->xShmLock
      && pSub->xShmBarrier && pSub->xShmUnmap;
  bFetch = pSub->iVersion>=3 && pSub->xFetch && pSub->xUnfetch;
  if( bFetch ) return bShm ? &tc_io_methods_v3 : &tc_io_methods_fetch;
  return bShm ? &tc_io_methods_shm : &tc_io_methods_v1;
}

/*
** Open a file.  Files without a name are temporary: they get a key before
** the lower file exists, so a failing CSPRNG creates nothing.  With a
** memory tier (budget > 0) the lower file opens when the first block
** cannot stay in memory (tcStore), or when a file control asks about it.
*/
static int tcOpen(sqlite3_vfs *pVfs, const char *zName, sqlite3_file *pFile,
                  int flags, int *pOutFlags){
  TcFile *p = (TcFile*)pFile;
  sqlite3_file *pSub = ORIGFILE(pFile);
  int rc = SQLITE_OK;

  memset(p, 0, sizeof(*p));
  pSub->pMethods = 0;
  if( zName==0 && TC_LOAD(tcEnabled) ){
    if( TC_ENTROPY(p->aKey, sizeof(p->aKey))!=0 ){
      sqlite3_log(SQLITE_CANTOPEN, "tempcrypt: no key for a temp file: getentropy failed");
      rc = SQLITE_CANTOPEN;
      goto tc_open_done;
    }
    p->bCrypt = 1;
    /* The block size comes with the first write (tcChooseBlockSize): a
    ** database without a name (sqlite3_open(""), the temp schema,
    ** ephemeral tables) gets its page size. */
    p->bDbFile = (flags & (SQLITE_OPEN_MAIN_DB|SQLITE_OPEN_TEMP_DB
                           |SQLITE_OPEN_TRANSIENT_DB))!=0;
    p->bTempDb = (flags & SQLITE_OPEN_TEMP_DB)!=0;
    if( TC_LOAD(tcBudget)>0 ){
      p->openFlags = flags;
      if( pOutFlags ) *pOutFlags = flags;
      goto tc_open_done;
    }
  }
  rc = ORIGVFS(pVfs)->xOpen(ORIGVFS(pVfs), zName, pSub, flags, pOutFlags);
  if( rc==SQLITE_OK ){
    TC_PUBLISH(p->bLower, 1);
    if( p->bCrypt ) TC_ADD(tcStats.nFileSpilled, 1);
  }else if( pSub->pMethods ){
    pSub->pMethods->xClose(pSub);
    pSub->pMethods = 0;
  }

tc_open_done:
  if( rc!=SQLITE_OK ){
    tcWipeFile(p);
    pFile->pMethods = 0;
    return rc;
  }
  pFile->pMethods = tcMethodsFor(p);
  if( zName==0 ){
    p->openFlags = flags;
    tcTempAdd(p);
    if( p->bCrypt ){
      TC_ADD(tcStats.nFileEncrypted, 1);
#ifdef SQLITE_TEMPCRYPT_TESTING
      if( tcKeyHook ){
        tcKeyHook(tcKeyHookArg, pFile, p->bLower ? pSub : 0, flags, p->aKey);
      }
#endif
    }else{
      TC_ADD(tcStats.nFilePlain, 1);
    }
  }
  return SQLITE_OK;
}

static int tcDelete(sqlite3_vfs *pVfs, const char *zPath, int dirSync){
  return ORIGVFS(pVfs)->xDelete(ORIGVFS(pVfs), zPath, dirSync);
}

static int tcAccess(sqlite3_vfs *pVfs, const char *zPath, int flags, int *pResOut){
  return ORIGVFS(pVfs)->xAccess(ORIGVFS(pVfs), zPath, flags, pResOut);
}

static int tcFullPathname(sqlite3_vfs *pVfs, const char *zPath, int nOut, char *zOut){
  return ORIGVFS(pVfs)->xFullPathname(ORIGVFS(pVfs), zPath, nOut, zOut);
}

static void *tcDlOpen(sqlite3_vfs *pVfs, const char *zPath){
  return ORIGVFS(pVfs)->xDlOpen(ORIGVFS(pVfs), zPath);
}

static void tcDlError(sqlite3_vfs *pVfs, int nByte, char *zErrMsg){
  ORIGVFS(pVfs)->xDlError(ORIGVFS(pVfs), nByte, zErrMsg);
}

static void (*tcDlSym(sqlite3_vfs *pVfs, void *p, const char *zSym))(void){
  return ORIGVFS(pVfs)->xDlSym(ORIGVFS(pVfs), p, zSym);
}

static void tcDlClose(sqlite3_vfs *pVfs, void *pHandle){
  ORIGVFS(pVfs)->xDlClose(ORIGVFS(pVfs), pHandle);
}

/*
** SQLite seeds its PRNG (temp file names, randomblob()) from here.  Under
** WASI the lower VFS has no /dev/urandom and falls back to time and pid,
** so take the CSPRNG.  Keys never come from this path; should the CSPRNG
** fail, the lower VFS's own randomness is still better than none.
*/
static int tcRandomness(sqlite3_vfs *pVfs, int nByte, char *zBufOut){
  if( nByte>0 && TC_ENTROPY(zBufOut, (size_t)nByte)==0 ) return nByte;
  return ORIGVFS(pVfs)->xRandomness(ORIGVFS(pVfs), nByte, zBufOut);
}

static int tcSleep(sqlite3_vfs *pVfs, int nMicro){
  return ORIGVFS(pVfs)->xSleep(ORIGVFS(pVfs), nMicro);
}

static int tcCurrentTime(sqlite3_vfs *pVfs, double *pTimeOut){
  return ORIGVFS(pVfs)->xCurrentTime(ORIGVFS(pVfs), pTimeOut);
}

static int tcGetLastError(sqlite3_vfs *pVfs, int a, char *b){
  return ORIGVFS(pVfs)->xGetLastError(ORIGVFS(pVfs), a, b);
}

static int tcCurrentTimeInt64(sqlite3_vfs *pVfs, sqlite3_int64 *p){
  return ORIGVFS(pVfs)->xCurrentTimeInt64(ORIGVFS(pVfs), p);
}

static int tcSetSystemCall(sqlite3_vfs *pVfs, const char *zName,
                           sqlite3_syscall_ptr pCall){
  return ORIGVFS(pVfs)->xSetSystemCall(ORIGVFS(pVfs), zName, pCall);
}

static sqlite3_syscall_ptr tcGetSystemCall(sqlite3_vfs *pVfs, const char *zName){
  return ORIGVFS(pVfs)->xGetSystemCall(ORIGVFS(pVfs), zName);
}

static const char *tcNextSystemCall(sqlite3_vfs *pVfs, const char *zName){
  return ORIGVFS(pVfs)->xNextSystemCall(ORIGVFS(pVfs), zName);
}

/* ------------------------------------------------------------ public API */

int sqlite3_tempcrypt_register(const char *zBase, int makeDefault){
  sqlite3_mutex *pMutex;
  sqlite3_vfs *pOrig;
  int rc;

  rc = sqlite3_initialize();
  if( rc!=SQLITE_OK ) return rc;
  pMutex = sqlite3_mutex_alloc(SQLITE_MUTEX_STATIC_VFS2);
  sqlite3_mutex_enter(pMutex);
  if( sqlite3_vfs_find(SQLITE_TEMPCRYPT_VFS_NAME)==&tc_vfs ){
    /* Already registered: only the default may change. */
    if( zBase && sqlite3_vfs_find(zBase)!=ORIGVFS(&tc_vfs) ){
      rc = SQLITE_MISUSE;
    }else if( makeDefault ){
      rc = sqlite3_vfs_register(&tc_vfs, 1);
    }
    goto register_done;
  }
  pOrig = sqlite3_vfs_find(zBase);
  if( pOrig==0 || pOrig==&tc_vfs ){
    rc = SQLITE_ERROR;
    goto register_done;
  }
  tc_vfs.iVersion = pOrig->iVersion<3 ? pOrig->iVersion : 3;
  tc_vfs.szOsFile = (int)sizeof(TcFile) + pOrig->szOsFile;
  tc_vfs.mxPathname = pOrig->mxPathname;
  tc_vfs.pAppData = pOrig;
  rc = sqlite3_vfs_register(&tc_vfs, makeDefault);

register_done:
  sqlite3_mutex_leave(pMutex);
  /* The SQL table tempcrypt_files in every connection opened from now on. */
  if( rc==SQLITE_OK ){
    rc = sqlite3_auto_extension((void(*)(void))sqlite3_tempcrypt_files_init);
  }
  return rc;
}

int sqlite3_tempcrypt_set_enabled(int on){
  int prev = TC_LOAD(tcEnabled);
  TC_STORE(tcEnabled, on ? 1 : 0);
  return prev;
}

int64_t sqlite3_tempcrypt_budget(int64_t N){
  if( N<0 ) return (int64_t)TC_LOAD(tcBudget);
  return (int64_t)TC_SWAP(tcBudget, (u64)N);
}

void sqlite3_tempcrypt_stats(struct sqlite3_tempcrypt_stats *pOut, int reset){
  uint64_t v, now;
#define TC_STAT_COPY(name, doc) \
  v = reset ? TC_TAKE(tcStats.name) : TC_LOAD(tcStats.name); \
  if( pOut ) pOut->name = v;
  SQLITE_TEMPCRYPT_COUNTERS(TC_STAT_COPY)
#undef TC_STAT_COPY
  /* The gauges: a reset restarts the peak from what is held now (and
  ** from what a claim racing with it may have added since). */
  now = TC_LOAD(tcMemUsed);
  v = reset ? TC_SWAP(tcMemPeak, now) : TC_LOAD(tcMemPeak);
  if( reset ) tcPeakRaise(TC_LOAD(tcMemUsed));
  if( pOut ){
    pOut->nMemBytes = now;
    pOut->nMemPeak = v>now ? v : now;
  }
}

/* sqlite3_tempcrypt_reclaim: a page as SQLite has it (pCtx: a TcReclaim,
** whose statement is on sqlite_dbpage('temp')).  A step that fails (main
** busy, say) leaves its code in rc and answers NULL. */
typedef struct TcReclaim TcReclaim;
struct TcReclaim {
  sqlite3_stmt *pStmt;     /* SELECT data FROM sqlite_dbpage('temp') ... */
  int rc;                  /* SQLITE_OK, or the first step's error */
};
static const u8 *tcFreeFromCache(TcFile *p, void *pCtx, u32 iPage){
  TcReclaim *r = (TcReclaim*)pCtx;
  const u8 *a = 0;
  int rc;
  sqlite3_reset(r->pStmt);
  sqlite3_bind_int64(r->pStmt, 1, iPage);
  rc = sqlite3_step(r->pStmt);
  if( rc==SQLITE_ROW ){
    a = (const u8*)sqlite3_column_blob(r->pStmt, 0);
    if( p && (u32)sqlite3_column_bytes(r->pStmt, 0)!=p->szPage ) a = 0;
  }else if( rc!=SQLITE_DONE && r->rc==SQLITE_OK ){
    r->rc = rc;
  }
  return a;
}

/* The connection's busy_timeout (0: none, or a busy handler of the
** application's own, which sqlite3_busy_handler() leaves at 0). */
static int tcBusyTimeout(sqlite3 *db){
  sqlite3_stmt *pStmt;
  int ms = 0;
  if( sqlite3_prepare_v2(db, "PRAGMA busy_timeout", -1, &pStmt, 0)!=SQLITE_OK ) return 0;
  if( sqlite3_step(pStmt)==SQLITE_ROW ) ms = sqlite3_column_int(pStmt, 0);
  sqlite3_finalize(pStmt);
  return ms;
}

/*
** sqlite_dbpage reads under a read lock on main, which another connection
** may hold off (a writer's PENDING or EXCLUSIVE lock): the reclaim waits
** for no one (busy timeout 0 while it runs; an application's own busy
** handler is its own) and, when a page cannot be read, leaves bCommitted
** set, so that the next call tries again.  A busy main database is not an
** error here: the memory comes back later.
*/
int sqlite3_tempcrypt_reclaim(sqlite3 *db){
  TcReclaim r;
  const u8 *a;
  TcFile *p = 0;
  int rc, rc2, msBusy;
  /* Our file, also under another shim (which passes the op down). */
  if( sqlite3_file_control(db, "temp", TC_FCNTL_SELF, &p)!=SQLITE_OK || p==0 ){
    return SQLITE_OK;             /* no TEMP database file, or not ours */
  }
  if( !p->bTempDb || !p->bCommitted || p->nMemTop==0 ) return SQLITE_OK;
  /* No transaction open and no statement running: what SQLite has is the
  ** committed database, and a free page is no one's. */
  if( !sqlite3_get_autocommit(db) ) return SQLITE_OK;
  for(r.pStmt=sqlite3_next_stmt(db, 0); r.pStmt; r.pStmt=sqlite3_next_stmt(db, r.pStmt)){
    if( sqlite3_stmt_busy(r.pStmt) ) return SQLITE_OK;
  }
  rc = sqlite3_prepare_v2(db, "SELECT data FROM sqlite_dbpage('temp') WHERE pgno=?1",
                          -1, &r.pStmt, 0);
  if( rc!=SQLITE_OK ) return rc;
  r.rc = SQLITE_OK;
  msBusy = tcBusyTimeout(db);
  if( msBusy>0 ) sqlite3_busy_timeout(db, 0);
  a = tcFreeFromCache(0, &r, 1);
  if( a && sqlite3_column_bytes(r.pStmt, 0)>=100 ){
    tcFreeHeader(p, a);
    if( p->nFree>0 ) tcFreeRelease(p, tcFreeFromCache, &r);
  }
  rc2 = sqlite3_finalize(r.pStmt);
  if( msBusy>0 ) sqlite3_busy_timeout(db, msBusy);
  rc = r.rc;
  if( rc==SQLITE_OK ) rc = rc2;
  if( rc==SQLITE_OK ) p->bCommitted = 0;
  return (rc & 0xff)==SQLITE_BUSY || (rc & 0xff)==SQLITE_LOCKED ? SQLITE_OK : rc;
}

#ifdef SQLITE_TEMPCRYPT_TESTING
void sqlite3_tempcrypt_test_key_hook(sqlite3_tempcrypt_key_hook xHook, void *pArg){
  tcKeyHook = xHook;
  tcKeyHookArg = pArg;
}

void sqlite3_tempcrypt_test_entropy(int (*xEntropy)(void*, size_t)){
  tcEntropy = xEntropy ? xEntropy : tcGetEntropy;
}

int sqlite3_tempcrypt_test_block_size(sqlite3_file *pFile){
  TcFile *p = (TcFile*)pFile;
  return p->bCrypt ? p->szBlock : 0;
}

unsigned long long sqlite3_tempcrypt_test_block_counter(sqlite3_file *pFile, long long k){
  TcFile *p = (TcFile*)pFile;
  return p->bCrypt && k>=0 ? TC_CTR(p, k) : 0;
}

void sqlite3_tempcrypt_test_block_hook(sqlite3_tempcrypt_block_hook xHook, void *pArg){
  tcBlockHook = xHook;
  tcBlockHookArg = pArg;
}

void sqlite3_tempcrypt_test_public_hook(sqlite3_tempcrypt_block_hook xHook, void *pArg){
  tcPublicHook = xHook;
  tcPublicHookArg = pArg;
}
#endif
