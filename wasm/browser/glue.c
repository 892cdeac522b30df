/*
** Glue exported to the JS API (js/engine/engine.js): start-up, tempcrypt counters
** as doubles, the trampolines of user-defined functions and the per-call
** time limit.
*/
#include <stdint.h>
#include <emscripten.h>
#include "storage_vfs.h"
#include "tempcrypt.h"

#ifndef SQLITE_DEFAULT_PAGE_SIZE
# define SQLITE_DEFAULT_PAGE_SIZE 4096
#endif

/* Initialize SQLite, then put tempcrypt over "storage" as the default VFS,
** with the memory tier's budget (budget<0: the compiled default).
**
** The sorter's runs are sized from that budget: SQLite writes a run when
** its in-memory list reaches max(SQLITE_CONFIG_PMASZ pages, main's
** cache_size), so with runs as large as the budget one 16-way merge pass
** sorts up to 16 budgets of data (at the default 16 MiB cache a 1 GiB sort
** makes 64 runs and merges them twice).  The list is heap memory beside
** the tier's, held while the statement sorts.  A budget of 0 keeps
** SQLite's own runs (250 pages, at least the cache).  SQLITE_CONFIG_PMASZ
** is fixed once SQLite is initialized: a later tc_budget() changes the
** tier, not the runs.  At most 32767 pages, so that the run size of a
** database with 64 KiB pages still fits SQLite's int.
**
** TC_BASELINE is the conformance tests' build without tempcrypt (the
** baseline every result is compared with, mk/conformance.mk); dist/ is
** never built with it. */
int tc_init(double budget){
  int rc;
  sqlite3_int64 b = budget<0 ? sqlite3_tempcrypt_budget(-1) : (sqlite3_int64)budget;
  sqlite3_int64 nPage = b / SQLITE_DEFAULT_PAGE_SIZE;
  if( nPage>250 ){
    sqlite3_config(SQLITE_CONFIG_PMASZ, (unsigned)(nPage<32767 ? nPage : 32767));
  }
  rc = sqlite3_initialize();
  if( rc==SQLITE_OK && budget>=0 ) sqlite3_tempcrypt_budget(b);
#ifndef TC_BASELINE
  if( rc==SQLITE_OK ) rc = sqlite3_tempcrypt_register(STORAGE_VFS_NAME, 1);
#endif
  return rc;
}

/* The statistics in the order of SQLITE_TEMPCRYPT_STATS (tempcrypt.h), as
** doubles (exact below 2^53), into a[0 .. tc_stat_count()-1]. */
void tc_stats(double *a, int reset){
  struct sqlite3_tempcrypt_stats s;
  int i = 0;
  sqlite3_tempcrypt_stats(&s, reset);
#define TC_STAT_OUT(name, doc) a[i++] = (double)s.name;
  SQLITE_TEMPCRYPT_STATS(TC_STAT_OUT)
#undef TC_STAT_OUT
}

/* The memory tier's budget in bytes (sqlite3_tempcrypt_budget) as a
** double, exact below 2^53: sets it to n and returns the one it replaced;
** a negative n only returns the budget in force. */
double tc_budget(double n){
  return (double)sqlite3_tempcrypt_budget(n<0 ? -1 : (int64_t)n);
}

/* How many statistics there are, and the name of statistic i: the JS side
** reads both from here. */
int tc_stat_count(void){ return SQLITE_TEMPCRYPT_NSTATS; }
const char *tc_stat_name(int i){
  static const char *const azName[] = {
#define TC_STAT_NAME(name, doc) #name,
    SQLITE_TEMPCRYPT_STATS(TC_STAT_NAME)
#undef TC_STAT_NAME
  };
  return (i>=0 && i<SQLITE_TEMPCRYPT_NSTATS) ? azName[i] : 0;
}

/*
** The API's user-defined functions, aggregates and collations: one C
** trampoline of each kind calls its own JS function (api_library.js) with
** the integer id the JS side registered them under (kept as SQLite's user
** data).
*/
extern void tc_js_call(int id, sqlite3_context *ctx, int argc, sqlite3_value **argv);
extern void tc_js_step(int id, sqlite3_context *ctx, int argc, sqlite3_value **argv);
extern void tc_js_final(int id, sqlite3_context *ctx);
extern int tc_js_collate(int id, int n1, const void *z1, int n2, const void *z2);
extern void tc_js_destroy(int id);

#define TC_ID(p) ((int)(intptr_t)(p))

static void tcFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  tc_js_call(TC_ID(sqlite3_user_data(ctx)), ctx, argc, argv);
}
static void tcStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  tc_js_step(TC_ID(sqlite3_user_data(ctx)), ctx, argc, argv);
}
static void tcFinal(sqlite3_context *ctx){
  tc_js_final(TC_ID(sqlite3_user_data(ctx)), ctx);
}
static void tcDestroy(void *p){ tc_js_destroy(TC_ID(p)); }
static int tcCompare(void *p, int n1, const void *z1, int n2, const void *z2){
  return tc_js_collate(TC_ID(p), n1, z1, n2, z2);
}

/* flags: SQLITE_DETERMINISTIC, SQLITE_DIRECTONLY...; on failure SQLite
** calls tcDestroy itself. */
int tc_create_function(sqlite3 *db, const char *zName, int nArg, int flags,
                       int id, int isAggregate){
  void *p = (void*)(intptr_t)id;
  return sqlite3_create_function_v2(db, zName, nArg, SQLITE_UTF8|flags, p,
      isAggregate ? 0 : tcFunc, isAggregate ? tcStep : 0,
      isAggregate ? tcFinal : 0, tcDestroy);
}

int tc_create_collation(sqlite3 *db, const char *zName, int id){
  return sqlite3_create_collation_v2(db, zName, SQLITE_UTF8,
      (void*)(intptr_t)id, tcCompare, tcDestroy);
}

/*
** The transactions of a connection, as the JS API sees them
** (js/engine/connection.js): the commit and rollback hooks count every
** transaction that ends, so that transaction(fn) can tell that SQLite (or
** SQL run inside it) ended the one it began; and while the JS side vetoes
** commits (a collation threw: a comparison cannot fail in SQLite, so its
** statement must not commit), a commit becomes a rollback.  a: two ints
** the JS side owns, a[0] the count, a[1] the veto.
*/
static int tcCommitHook(void *p){
  int *a = (int*)p;
  if( a[1] ) return 1;    /* rolled back instead: the rollback hook counts it */
  a[0]++;
  return 0;
}
static void tcRollbackHook(void *p){
  ((int*)p)[0]++;
}
void tc_watch_transactions(sqlite3 *db, int *a){
  sqlite3_commit_hook(db, tcCommitHook, a);
  sqlite3_rollback_hook(db, tcRollbackHook, a);
}

/*
** A time limit per call: a progress handler (every 1000 VM instructions)
** that makes the statement fail with SQLITE_INTERRUPT once the deadline
** has passed.  ms<=0 removes it.  One connection per wasm instance.
*/
static double tcDeadline = 0;
static int tcProgress(void *p){
  (void)p;
  return emscripten_get_now() >= tcDeadline;
}
void tc_set_deadline(sqlite3 *db, double ms){
  if( ms>0 ){
    tcDeadline = emscripten_get_now() + ms;
    sqlite3_progress_handler(db, 1000, tcProgress, 0);
  }else{
    sqlite3_progress_handler(db, 0, 0, 0);
  }
}
