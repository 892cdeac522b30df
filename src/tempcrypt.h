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
** Process-wide counters, updated atomically.  One list, expanded by
** X-macros into the struct, the wasm export and the count the JS reads.
** (C allows no typedef with the function's name, so the type is spelled
** `struct ...`.)
*/
#define SQLITE_TEMPCRYPT_STATS(X) \
  X(nFileEncrypted,   "temp files opened with encryption") \
  X(nFilePlain,       "temp files opened while disabled") \
  X(nLogicalWrite,    "bytes SQLite wrote to encrypted temp files") \
  X(nLogicalRead,     "bytes SQLite read from encrypted temp files") \
  X(nPhysicalWrite,   "bytes tempcrypt wrote to the lower VFS") \
  X(nPhysicalRead,    "bytes tempcrypt read from the lower VFS") \
  X(nEnciphered,      "bytes run through ChaCha20 (both ways)") \
  X(nBlockRmw,        "blocks rewritten by read-modify-write") \
  X(nFailedBlockRead, "calls refused while a failed write is not yet repaired")

struct sqlite3_tempcrypt_stats {
#define SQLITE_TEMPCRYPT_STAT_FIELD(name, doc) uint64_t name;
  SQLITE_TEMPCRYPT_STATS(SQLITE_TEMPCRYPT_STAT_FIELD)
#undef SQLITE_TEMPCRYPT_STAT_FIELD
};

/* The number of counters. */
enum {
#define SQLITE_TEMPCRYPT_STAT_INDEX(name, doc) SQLITE_TEMPCRYPT_STAT_##name,
  SQLITE_TEMPCRYPT_STATS(SQLITE_TEMPCRYPT_STAT_INDEX)
#undef SQLITE_TEMPCRYPT_STAT_INDEX
  SQLITE_TEMPCRYPT_NSTATS
};

/* Copy the counters to *pOut (if not NULL); if reset != 0, reset each one
** in the same atomic step that reads it (no increment is lost). */
void sqlite3_tempcrypt_stats(struct sqlite3_tempcrypt_stats *pOut, int reset);

#ifdef SQLITE_TEMPCRYPT_TESTING
/*
** Test-only hooks.  They exist only in builds compiled with
** -DSQLITE_TEMPCRYPT_TESTING and must never reach production.
*/
struct sqlite3_file;

/* Called for every encrypted file right after it is opened, with its key
** and the lower file object that receives the ciphertext. */
typedef void (*sqlite3_tempcrypt_key_hook)(void *pArg,
    struct sqlite3_file *pFile, struct sqlite3_file *pLower,
    int openFlags, const unsigned char aKey[32]);
void sqlite3_tempcrypt_test_key_hook(sqlite3_tempcrypt_key_hook, void *pArg);

/* Replace the CSPRNG (NULL restores getentropy).  The function returns 0
** on success and nonzero on failure, like getentropy(). */
void sqlite3_tempcrypt_test_entropy(int (*xEntropy)(void *, size_t));

/* Block payload size of an encrypted file (0 while not yet known). */
int sqlite3_tempcrypt_test_block_size(struct sqlite3_file *pFile);
#endif

#ifdef __cplusplus
}
#endif
#endif /* SQLITE_TEMPCRYPT_H */
