/*
** sqlite-tempcrypt: a VFS shim that encrypts every temporary file SQLite
** writes, with a fresh random ChaCha20 key per file.
**
** Public interface.  See tempcrypt.c for the design and README.md for use.
*/
#ifndef SQLITE_TEMPCRYPT_H
#define SQLITE_TEMPCRYPT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Name under which the shim registers itself. */
#define SQLITE_TEMPCRYPT_VFS_NAME "tempcrypt"

/*
** Register the "tempcrypt" VFS over the VFS named zBase (NULL: the current
** default VFS).  If makeDefault is true, "tempcrypt" becomes the default.
** Calling it again is harmless: it returns SQLITE_OK and changes at most
** which VFS is the default.  Asking for a different base VFS once
** registered returns SQLITE_MISUSE.  Returns an SQLite result code
** (SQLITE_ERROR if zBase does not name a registered VFS).
*/
int sqlite3_tempcrypt_register(const char *zBase, int makeDefault);

/*
** Runtime switch for temporary files opened from now on: on (nonzero, the
** default unless compiled with -DSQLITE_TEMPCRYPT_DEFAULT_ENABLED=0) they
** are encrypted; off, they pass through in plaintext.  Files already open
** keep their mode.  Returns the previous setting (0 or 1).
*/
int sqlite3_tempcrypt_set_enabled(int on);

/*
** The memory tier: the budget, in bytes, that all encrypted temp files of
** the process share for blocks kept in memory (plaintext, as SQLite's own
** page cache holds them).  A block that does not fit goes to the lower VFS,
** encrypted.  0 turns the tier off: every encrypted temp file then opens its
** lower file at once and every byte goes there, as before the tier.
**
** sqlite3_tempcrypt_budget(N) sets the budget to N bytes (N >= 0) and
** returns the budget it replaced; a negative N changes nothing and returns
** the budget in force.  The default is SQLITE_TEMPCRYPT_DEFAULT_BUDGET
** (64 MiB unless compiled otherwise).  Safe to call at any time from any
** thread: a lower budget applies to blocks allocated from then on, blocks
** already in memory stay until their file shrinks or closes, and whether a
** file opens its lower file lazily is decided when it opens (budget > 0).
** PRAGMA tempcrypt_budget and PRAGMA tempcrypt_budget=N do the same from
** SQL on a connection whose main database is a file.
*/
#ifndef SQLITE_TEMPCRYPT_DEFAULT_BUDGET
# define SQLITE_TEMPCRYPT_DEFAULT_BUDGET (64*1024*1024)
#endif
int64_t sqlite3_tempcrypt_budget(int64_t N);

/*
** Give the memory tier back the blocks of the free pages of db's TEMP
** database (the pages of dropped TEMP tables and deleted rows).  The shim
** does so by itself at each commit of the TEMP database that writes its
** page cache out; SQLite keeps a temp database's changed pages in its
** cache across commits until a quarter of the cache is dirty, so a
** program calls this between statements (no transaction open, no
** statement running; else it does nothing) to have the memory back at
** once.  It reads the freelist through sqlite_dbpage (SQLite compiled
** with SQLITE_ENABLE_DBPAGE_VTAB), only after a commit of the TEMP
** database since the last call, so it is cheap when there is nothing to
** do.  sqlite_dbpage takes a read lock on main: the call waits for no
** other connection (busy timeout 0 while it runs; a busy handler of the
** application's own is left in place), and when main is busy it does
** nothing and returns SQLITE_OK, and the next call tries again.  It
** changes nothing in the database (free pages read as zeros afterwards;
** SQLite never reads them).  Returns an SQLite result code.
*/
struct sqlite3;
int sqlite3_tempcrypt_reclaim(struct sqlite3 *db);

/*
** Process-wide statistics, updated atomically.  One list, expanded by
** X-macros into the struct, the wasm export and the count the JS reads.
** (C allows no typedef with the function's name, so the type is spelled
** `struct ...`.)  Counters count up and a reset takes them to 0; gauges
** say how things are now and a reset leaves them (nMemPeak restarts from
** nMemBytes).
*/
#define SQLITE_TEMPCRYPT_STATS(X) \
  SQLITE_TEMPCRYPT_COUNTERS(X) \
  SQLITE_TEMPCRYPT_GAUGES(X)
#define SQLITE_TEMPCRYPT_COUNTERS(X) \
  X(nFileEncrypted,   "temp files opened with encryption") \
  X(nFilePlain,       "temp files opened while disabled") \
  X(nLogicalWrite,    "bytes SQLite wrote to encrypted temp files") \
  X(nLogicalRead,     "bytes SQLite read from encrypted temp files") \
  X(nPhysicalWrite,   "bytes tempcrypt wrote to the lower VFS") \
  X(nPhysicalRead,    "bytes tempcrypt read from the lower VFS") \
  X(nEnciphered,      "bytes run through ChaCha20 (both ways)") \
  X(nBlockRmw,        "blocks rewritten by read-modify-write") \
  X(nFailedBlockRead, "calls refused while a failed write is not yet repaired") \
  X(nFileSpilled,     "encrypted temp files that opened their lower file") \
  X(nSpilled,         "bytes SQLite wrote to encrypted temp files that went to the lower VFS")
#define SQLITE_TEMPCRYPT_GAUGES(X) \
  X(nMemBytes,        "bytes the memory tier holds now") \
  X(nMemPeak,         "most bytes the memory tier held at once since the last reset")

struct sqlite3_tempcrypt_stats {
#define SQLITE_TEMPCRYPT_STAT_FIELD(name, doc) uint64_t name;
  SQLITE_TEMPCRYPT_STATS(SQLITE_TEMPCRYPT_STAT_FIELD)
#undef SQLITE_TEMPCRYPT_STAT_FIELD
};

/* The number of statistics (counters and gauges). */
enum {
#define SQLITE_TEMPCRYPT_STAT_INDEX(name, doc) SQLITE_TEMPCRYPT_STAT_##name,
  SQLITE_TEMPCRYPT_STATS(SQLITE_TEMPCRYPT_STAT_INDEX)
#undef SQLITE_TEMPCRYPT_STAT_INDEX
  SQLITE_TEMPCRYPT_NSTATS
};

/* Copy the statistics to *pOut (if not NULL); if reset != 0, reset each
** counter in the same atomic step that reads it (no increment is lost) and
** restart nMemPeak from nMemBytes. */
void sqlite3_tempcrypt_stats(struct sqlite3_tempcrypt_stats *pOut, int reset);

/*
** The temp files open in the process (every connection on the tempcrypt
** VFS), newest first, then the last 16 that closed, as they were when they
** closed.  Fills aOut[0..nOut-1] and returns how many there are (which may
** be more than nOut), or -1 if SQLite cannot initialize, is out of memory
** or the needle is longer than SQLITE_TEMPCRYPT_MAX_NEEDLE.  With a needle
** (nNeedle > 0), nFound counts its occurrences (overlapping ones too) in
** the bytes each open file stored on the lower VFS, read back through it
** once, under a mutex that file opens and closes wait for (-1: closed, or
** no needle); bytes in the memory tier are not storage.
**
** sqlite3_tempcrypt_files_db() is the same list with nFound counted only
** in the files of connection db (its databases' files and their journals:
** the TEMP database, a database opened without a name) and -1 for every
** other file.  The SQL table tempcrypt_files uses it: SQL may come from
** someone who must not learn whether another connection's plaintext temp
** data holds a string.  The process-wide search is for the program itself.
*/
#define SQLITE_TEMPCRYPT_MAX_NEEDLE 65536
struct sqlite3_tempcrypt_file {
  uint64_t id;           /* temp files are numbered as they open, from 1 */
  int flags;             /* the SQLITE_OPEN_* flags SQLite opened it with */
  int open;              /* 1: open now; 0: closed (the figures at close) */
  int encrypted;         /* 1: encrypted; 0: opened while tempcrypt was off */
  int blockSize;         /* payload bytes of a block, 0 until the first write */
  int lower;             /* 1 if it has opened its file on the lower VFS */
  int64_t size;          /* logical size in bytes (-1: not encrypted, untracked) */
  uint64_t nWrite;       /* bytes SQLite wrote to it */
  uint64_t nMemBytes;    /* bytes the memory tier holds for it */
  uint64_t nLowerWrite;  /* bytes it wrote to the lower VFS (storage) */
  uint64_t nEnciphered;  /* bytes of it run through ChaCha20, both ways */
  int64_t nFound;        /* occurrences of the needle in its stored bytes */
};
int sqlite3_tempcrypt_files(struct sqlite3_tempcrypt_file *aOut, int nOut,
                            const void *pNeedle, int nNeedle);
int sqlite3_tempcrypt_files_db(struct sqlite3 *db, struct sqlite3_tempcrypt_file *aOut,
                               int nOut, const void *pNeedle, int nNeedle);

/*
** The eponymous virtual table tempcrypt_files (SELECT * FROM
** tempcrypt_files), the same list in SQL.  sqlite3_tempcrypt_register()
** adds it to every connection opened after it (sqlite3_auto_extension);
** call this for a connection opened before.  Returns an SQLite result code.
*/
struct sqlite3;
struct sqlite3_api_routines;
int sqlite3_tempcrypt_files_init(struct sqlite3 *db, char **pzErrMsg,
                                 const struct sqlite3_api_routines *pApi);

#ifdef SQLITE_TEMPCRYPT_TESTING
/*
** Test-only hooks.  They exist only in builds compiled with
** -DSQLITE_TEMPCRYPT_TESTING and must never reach production.
*/
struct sqlite3_file;

/* Called for every encrypted file right after it is opened, with its key
** and the lower file object that receives the ciphertext (NULL while the
** file has no lower file); and again, with the same key, when a file
** opened without one opens its lower file later (the memory tier). */
typedef void (*sqlite3_tempcrypt_key_hook)(void *pArg,
    struct sqlite3_file *pFile, struct sqlite3_file *pLower,
    int openFlags, const unsigned char aKey[32]);
void sqlite3_tempcrypt_test_key_hook(sqlite3_tempcrypt_key_hook, void *pArg);

/* Replace the CSPRNG (NULL restores getentropy).  The function returns 0
** on success and nonzero on failure, like getentropy(). */
void sqlite3_tempcrypt_test_entropy(int (*xEntropy)(void *, size_t));

/* Block payload size of an encrypted file (0 while not yet known). */
int sqlite3_tempcrypt_test_block_size(struct sqlite3_file *pFile);

/* The counter (nonce) block k of an encrypted file's lower file was
** written under: kept in memory only, so the tests that check the lower
** file's bytes ask for it here.  0 for a block never written (a hole).
** During a lower write of block k it is the counter of that write. */
unsigned long long sqlite3_tempcrypt_test_block_counter(struct sqlite3_file *pFile,
                                                        long long k);

/* Called with every block the memory tier allocates (n bytes at p), and
** every page buffer the shim decrypts a TEMP database page into to free
** pages, before it holds data, so that a test can check it is wiped when
** freed. */
typedef void (*sqlite3_tempcrypt_block_hook)(void *pArg, const void *p, int n);
void sqlite3_tempcrypt_test_block_hook(sqlite3_tempcrypt_block_hook, void *pArg);

/* Called with the bytes of the TEMP database that the shim reads as
** structure to free pages (page 1's page size, change counter and
** freelist fields; a freelist trunk page's next trunk, count and leaf page
** numbers) before it branches on them: page numbers and counters, public
** by design (the offsets SQLite writes at show them), which a constant-time
** check (test/c/ctgrind.c) declares public. */
void sqlite3_tempcrypt_test_public_hook(sqlite3_tempcrypt_block_hook, void *pArg);
#endif

#ifdef __cplusplus
}
#endif
#endif /* SQLITE_TEMPCRYPT_H */
