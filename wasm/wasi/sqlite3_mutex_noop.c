/*
** The sqlite3_mutex_*() API for the single-threaded WASI SQLite.
**
** WASI preview1 has no threads, so build/wasi/libsqlite3.a is compiled
** with SQLITE_THREADSAFE=0, and then sqlite3.c leaves out the mutex API
** altogether (SQLITE_MUTEX_OMIT).  tempcrypt (and other extensions) call
** it, so libsqlite3.a adds these no-op versions, the same as SQLite's own
** SQLITE_MUTEX_OMIT macros.  Not for a thread-safe SQLite build.
*/
#include "sqlite3.h"

#if defined(__wasi__)
sqlite3_mutex *sqlite3_mutex_alloc(int id){
  (void)id;
  return (sqlite3_mutex*)8;   /* non-NULL, never dereferenced */
}
void sqlite3_mutex_free(sqlite3_mutex *p){ (void)p; }
void sqlite3_mutex_enter(sqlite3_mutex *p){ (void)p; }
int sqlite3_mutex_try(sqlite3_mutex *p){ (void)p; return SQLITE_OK; }
void sqlite3_mutex_leave(sqlite3_mutex *p){ (void)p; }
#endif
