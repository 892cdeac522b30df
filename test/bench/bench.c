/*
** Benchmark: what encrypting temp files costs, as ratios against baselines
** run side by side in the same process.
**
**   bench [rows] [repeats] [workloads.txt] [results.jsonl] [equal|default]
**   bench cipher              (ChaCha20 only)
**
** The SQL workloads come from test/bench/workloads.txt, the list every
** harness of `make bench` reads (native, WASI, Chromium).  Each runs with
** temp_store=FILE and tempcrypt off (plaintext temp files, the baseline),
** with tempcrypt on, and with temp_store=MEMORY; runs alternate and the
** median is reported.  Settings "equal" (the default) are those of the
** browser comparison (4096-byte pages, cache_size=-2000 on main and
** temp); "default" leaves the build's defaults.  With a results file, one
** JSON line per workload and mode is appended to it, with the peak of
** SQLite's heap during the run (memory statistics are turned on for that).
** The memory tier: encrypted runs take its default budget (or
** $BENCH_TIER_BUDGET bytes); a fourth mode, encrypted with the tier off
** (budget 0: every temp file on disk), joins them, and plaintext runs
** have the tier off.  BENCH_CLOCK=cpu times each run by the process's CPU
** time instead of the wall clock.  For profiling (callgrind), BENCH_ONLY
** names one workload and BENCH_MODE one mode (0-3, as azMode below): only
** that runs, without the warm-up and the cipher's speed test.  The cipher's own
** speed is measured against libsodium when built with HAVE_LIBSODIUM, on
** every path when built with SQLITE_TEMPCRYPT_TESTING (only the cipher's
** test hooks: the Makefile links the shipped tempcrypt.o).
** Nothing here fails on timing: it prints numbers.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "sqlite3.h"
#include "tempcrypt.h"
#include "chacha20.h"
#ifdef HAVE_LIBSODIUM
# include <sodium.h>
#endif

/* Wall-clock time, or with BENCH_CLOCK=cpu this process's CPU time (user
** and system: the file I/O is system time), which other jobs on a shared
** machine disturb less. */
static clockid_t gClock = CLOCK_MONOTONIC;

static double now(void){
  struct timespec ts;
  clock_gettime(gClock, &ts);
  return ts.tv_sec + ts.tv_nsec*1e-9;
}

static int cmp_double(const void *a, const void *b){
  double x = *(const double*)a, y = *(const double*)b;
  return x<y ? -1 : x>y;
}

static void exec_or_die(sqlite3 *db, const char *zSql){
  char *zErr = 0;
  if( sqlite3_exec(db, zSql, 0, 0, &zErr)!=SQLITE_OK ){
    fprintf(stderr, "bench: %s\n  in: %s\n", zErr, zSql);
    exit(1);
  }
}

/* The first column of the last row the SQL returned, as text. */
static int keep_last(void *pArg, int nCol, char **azVal, char **azCol){
  char *zOut = (char*)pArg;
  (void)azCol;
  snprintf(zOut, 64, "%s", nCol>0 && azVal[0] ? azVal[0] : "NULL");
  return 0;
}

#define MAX_WORK 32
typedef struct Workload { char *zName; char *zSql; } Workload;
static Workload aWork[MAX_WORK];
static int nWork = 0;
static char *zSetup = 0;

/* zIn with every "$ROWS" replaced by nRow; sqlite3_malloc'd. */
static char *subst_rows(const char *zIn, int nRow){
  sqlite3_str *s = sqlite3_str_new(0);
  const char *z;
  while( (z = strstr(zIn, "$ROWS"))!=0 ){
    sqlite3_str_append(s, zIn, (int)(z-zIn));
    sqlite3_str_appendf(s, "%d", nRow);
    zIn = z + 5;
  }
  sqlite3_str_appendall(s, zIn);
  return sqlite3_str_finish(s);
}

/* Read the workload list (see test/bench/workloads.txt). */
static void load_workloads(const char *zFile, int nRow){
  char zLine[4096];
  FILE *f = fopen(zFile, "r");
  if( f==0 ){ fprintf(stderr, "bench: cannot open %s\n", zFile); exit(1); }
  while( fgets(zLine, sizeof(zLine), f) ){
    char *zTab = strchr(zLine, '\t');
    size_t n = strlen(zLine);
    while( n>0 && (zLine[n-1]=='\n' || zLine[n-1]=='\r') ) zLine[--n] = 0;
    if( zLine[0]=='#' || zTab==0 || strncmp(zLine, "big.", 4)==0 ) continue;
    *zTab = 0;
    if( strcmp(zLine, "setup")==0 ){
      zSetup = subst_rows(zTab+1, nRow);
    }else if( nWork<MAX_WORK ){
      aWork[nWork].zName = sqlite3_mprintf("%s", zLine);
      aWork[nWork].zSql = subst_rows(zTab+1, nRow);
      nWork++;
    }
  }
  fclose(f);
  if( zSetup==0 || nWork==0 ){ fprintf(stderr, "bench: no workloads in %s\n", zFile); exit(1); }
}

/*
** The memory tier's budget for the next run: BENCH_TIER_DEFAULT is the
** default budget (or $BENCH_TIER_BUDGET), 0 turns the tier off.
*/
#define BENCH_TIER_DEFAULT (-1)
static sqlite3_int64 gTierBudget = SQLITE_TEMPCRYPT_DEFAULT_BUDGET;
#define BENCH_SET_TIER(n) \
  sqlite3_tempcrypt_budget((n)==BENCH_TIER_DEFAULT ? gTierBudget : (n))
#define BENCH_NMODE 4

/* Modes 0: FILE plaintext (tier off), 1: FILE encrypted (tier default),
** 2: MEMORY, 3: FILE encrypted with the tier off. */
static const char *azMode[] = { "plain", "encrypted", "memory", "encrypted" };
static const int aTier[] = { 0, BENCH_TIER_DEFAULT, BENCH_TIER_DEFAULT, 0 };

static double run_once(const char *zDb, int iWork, int mode, int bEqual,
                       struct sqlite3_tempcrypt_stats *pSt, char *zResult,
                       sqlite3_int64 *pHeap){
  sqlite3 *db;
  double t0, t1;
  char *zErr = 0;
  sqlite3_int64 iCur, iHigh;
  sqlite3_tempcrypt_set_enabled(mode==1 || mode==3);
  BENCH_SET_TIER(aTier[mode]);
  if( sqlite3_open(zDb, &db)!=SQLITE_OK ){ fprintf(stderr, "open\n"); exit(1); }
  exec_or_die(db, mode==2 ? "PRAGMA temp_store=MEMORY" : "PRAGMA temp_store=FILE");
  if( bEqual ) exec_or_die(db, "PRAGMA main.cache_size=-2000; PRAGMA temp.cache_size=-2000");
  exec_or_die(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF");
  sqlite3_tempcrypt_stats(0, 1);
  sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &iCur, &iHigh, 1);
  t0 = now();
  if( sqlite3_exec(db, aWork[iWork].zSql, keep_last, zResult, &zErr)!=SQLITE_OK ){
    fprintf(stderr, "bench: %s\n  in: %s\n", zErr, aWork[iWork].zSql);
    exit(1);
  }
  t1 = now();
  sqlite3_tempcrypt_stats(pSt, 0);
  sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &iCur, &iHigh, 0);
  *pHeap = iHigh;
  sqlite3_close(db);
  return t1 - t0;
}

/*
** ChaCha20 on 4 KiB blocks: each cipher path (built with the test hooks)
** and libsodium, in turns, median of 5 turns of about 0.1 s of CPU time.
*/
#define CIPHER_REPS 5
static uint8_t aCipherBuf[4096];

/* This thread's CPU time: on a shared machine, less noisy than the clock. */
/* CPU time of this thread, or wall time where the runtime has no CPU-time
** clock (wasmtime and jco answer EBADF; the turns below would never end). */
static int bWallClock = 0;
static double cpu_now(void){
  struct timespec ts;
  if( bWallClock || clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)!=0 ){
    bWallClock = 1;
    return now();
  }
  return ts.tv_sec + ts.tv_nsec*1e-9;
}

/* MB/s of one turn: path iPath (-1: libsodium), calls until 0.1 s of CPU. */
static double cipher_turn(int iPath){
  uint8_t key[32] = {1}, nonce[12] = {2};
  long i, n = 0;
  double t0 = cpu_now(), t;
  (void)iPath;                 /* only libsodium's turn (-1) uses it */
  do{
    for(i=0; i<64; i++){
#ifdef HAVE_LIBSODIUM
      if( iPath<0 ){
        crypto_stream_chacha20_ietf_xor_ic(aCipherBuf, aCipherBuf, sizeof(aCipherBuf),
                                           nonce, 0, key);
        continue;
      }
#endif
      tempcrypt_chacha20_xor(aCipherBuf, aCipherBuf, sizeof(aCipherBuf), key, nonce, 0);
    }
    n += 64;
    t = cpu_now() - t0;
  }while( t<0.1 );
  return n*(double)sizeof(aCipherBuf)/t/1e6;
}

static void bench_cipher(void){
  enum { NCOL = 8 };              /* libsodium + up to 7 paths */
  double aT[NCOL][CIPHER_REPS], med[NCOL];
  const char *azName[NCOL];
  int aPath[NCOL], nCol = 0, r, c, iSodium = -1;
#ifdef SQLITE_TEMPCRYPT_TESTING
  int iStart = tempcrypt_chacha20_current_path();
  for(c=0; c<TEMPCRYPT_CHACHA20_NPATH && nCol<NCOL-1; c++){
    const char *zWhy = tempcrypt_chacha20_path_missing(c);
    if( zWhy ){
      printf("ChaCha20 path %s skipped: %s\n", tempcrypt_chacha20_path_name(c), zWhy);
      continue;
    }
    aPath[nCol] = c;
    azName[nCol++] = tempcrypt_chacha20_path_name(c);
  }
#else
  aPath[nCol] = 0;
  azName[nCol++] = "tempcrypt";
#endif
#ifdef HAVE_LIBSODIUM
  if( sodium_init()>=0 ){
    iSodium = nCol;
    aPath[nCol] = -1;
    azName[nCol++] = "libsodium";
  }
#endif
  for(r=0; r<CIPHER_REPS; r++){
    for(c=0; c<nCol; c++){
#ifdef SQLITE_TEMPCRYPT_TESTING
      if( aPath[c]>=0 ) tempcrypt_chacha20_use_path(aPath[c]);
#endif
      aT[c][r] = cipher_turn(aPath[c]);
    }
  }
#ifdef SQLITE_TEMPCRYPT_TESTING
  tempcrypt_chacha20_use_path(-1);
#endif
  printf("ChaCha20 on 4 KiB blocks, %s, median of %d interleaved turns:\n",
         bWallClock ? "wall time (no CPU-time clock)" : "CPU time", CIPHER_REPS);
  for(c=0; c<nCol; c++){
    qsort(aT[c], CIPHER_REPS, sizeof(double), cmp_double);
    med[c] = aT[c][CIPHER_REPS/2];
  }
  for(c=0; c<nCol; c++){
    printf("  %-14s %7.0f MB/s", azName[c], med[c]);
#ifdef SQLITE_TEMPCRYPT_TESTING
    if( aPath[c]==iStart ) printf("  (chosen at start-up)");
#endif
    if( iSodium>=0 && c!=iSodium ) printf("  %.2fx libsodium", med[c]/med[iSodium]);
    printf("\n");
  }
}

int main(int argc, char **argv){
  int nRow = argc>1 ? atoi(argv[1]) : 200000;
  int nRep = argc>2 ? atoi(argv[2]) : 5;
  const char *zWork = argc>3 ? argv[3] : "test/bench/workloads.txt";
  FILE *pJson = argc>4 && argv[4][0] ? fopen(argv[4], "a") : 0;
  int bEqual = !(argc>5 && strcmp(argv[5], "default")==0);
  char zDb[512];
  const char *zDir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  sqlite3 *db;
  int w, r, m;
  const char *zOnly = getenv("BENCH_ONLY");
  int iOnlyMode = getenv("BENCH_MODE") ? atoi(getenv("BENCH_MODE")) : -1;

  if( iOnlyMode>=BENCH_NMODE ){ fprintf(stderr, "bench: BENCH_MODE is 0 to %d\n", BENCH_NMODE-1); return 1; }
  if( iOnlyMode<0 && zOnly==0 ) bench_cipher();
  if( argc>1 && strcmp(argv[1], "cipher")==0 ) return 0;
  /* The heap peak of each run (the builds' default is no statistics):
  ** before anything initializes SQLite. */
  if( sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1)!=SQLITE_OK ){
    fprintf(stderr, "bench: cannot turn on memory statistics\n");
    return 1;
  }
  load_workloads(zWork, nRow);
  if( getenv("BENCH_TIER_BUDGET") ) gTierBudget = atoll(getenv("BENCH_TIER_BUDGET"));
  if( getenv("BENCH_CLOCK") && strcmp(getenv("BENCH_CLOCK"), "cpu")==0 ){
    struct timespec ts;
    if( clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)==0 ){
      gClock = CLOCK_PROCESS_CPUTIME_ID;
    }else{
      /* wasmtime has none: every run would time as 0 ms. */
      fprintf(stderr, "bench: BENCH_CLOCK=cpu: no CPU-time clock here, timing by the wall clock\n");
    }
  }
  if( nRep<1 ) nRep = 1;
  if( nRep>64 ) nRep = 64;
  if( sqlite3_tempcrypt_register(0, 1)!=SQLITE_OK ){ fprintf(stderr, "register\n"); return 1; }
  /* One name per target, so that native and WASI runs never share a file. */
#ifdef __wasi__
  snprintf(zDb, sizeof(zDb), "%s/tempcrypt-bench-wasi-%d.db", zDir, nRow);
#else
  snprintf(zDb, sizeof(zDb), "%s/tempcrypt-bench-native-%d.db", zDir, nRow);
#endif
  remove(zDb);
  if( sqlite3_open(zDb, &db)!=SQLITE_OK ){ fprintf(stderr, "bench: cannot open %s\n", zDb); return 1; }
  exec_or_die(db, bEqual ? "PRAGMA page_size=4096; PRAGMA journal_mode=OFF"
                         : "PRAGMA journal_mode=OFF");
  exec_or_die(db, zSetup);
  sqlite3_close(db);
  printf("SQL workloads on %d rows, settings %s, median of %d alternating runs%s:\n",
         nRow, bEqual ? "equal (4096-byte pages, cache 2 MB)" : "the build's defaults", nRep,
         gClock==CLOCK_MONOTONIC ? "" : ", process CPU time");
  printf("  memory tier budget %lld bytes (crypt); tier-0: encrypted without the tier\n",
         (long long)gTierBudget);
  printf("  %-15s %10s %10s %10s %9s %9s %9s %9s %9s %7s %9s %10s %6s\n", "workload", "plain ms",
         "crypt ms", "memory ms", "crypt/pl", "mem/pl", "temp MiB", "phys MiB", "tier MiB", "rmw",
         "heap MiB", "tier-0 ms", "t0/pl");
  for(w=0; w<nWork; w++){
    double aT[BENCH_NMODE][64];
    struct sqlite3_tempcrypt_stats aSt[BENCH_NMODE];
    sqlite3_int64 aHeap[BENCH_NMODE];
    double med[BENCH_NMODE];
    char azRes[BENCH_NMODE][64];
    if( zOnly && strcmp(zOnly, aWork[w].zName)!=0 ) continue;
    memset(aSt, 0, sizeof(aSt));
    if( iOnlyMode>=0 ){
      double t = run_once(zDb, w, iOnlyMode, bEqual, &aSt[iOnlyMode], azRes[iOnlyMode], &aHeap[iOnlyMode]);
      printf("  %-15s %s%s: %.1f ms, result %s\n", aWork[w].zName, azMode[iOnlyMode],
             aTier[iOnlyMode]==0 && iOnlyMode!=0 ? " (tier-0)" : "", t*1e3, azRes[iOnlyMode]);
      continue;
    }
    run_once(zDb, w, 1, bEqual, &aSt[1], azRes[0], &aHeap[1]);   /* warm the page cache */
    for(r=0; r<nRep; r++){
      for(m=0; m<BENCH_NMODE; m++){
        aT[m][r] = run_once(zDb, w, m, bEqual, &aSt[m], azRes[m], &aHeap[m]);
      }
    }
    for(m=0; m<BENCH_NMODE; m++){
      if( strcmp(azRes[m], azRes[0])!=0 ){
        fprintf(stderr, "bench: %s: %s gives %s, %s gives %s\n", aWork[w].zName,
                azMode[0], azRes[0], azMode[m], azRes[m]);
        return 1;
      }
      qsort(aT[m], (size_t)nRep, sizeof(double), cmp_double);
      med[m] = aT[m][nRep/2];
    }
    printf("  %-15s %10.1f %10.1f %10.1f %9.2f %9.2f %9.1f %9.1f %9.1f %7llu %9.1f %10.1f %6.2f\n",
           aWork[w].zName, med[0]*1e3, med[1]*1e3, med[2]*1e3, med[1]/med[0], med[2]/med[0],
           (aSt[1].nLogicalWrite + aSt[1].nLogicalRead)/1048576.0,
           (aSt[1].nPhysicalWrite + aSt[1].nPhysicalRead)/1048576.0,
           aSt[1].nMemPeak/1048576.0, (unsigned long long)aSt[3].nBlockRmw,
           aHeap[1]/1048576.0, med[3]*1e3, med[3]/med[0]);
    for(m=0; pJson && m<BENCH_NMODE; m++){
      fprintf(pJson, "{\"engine\":\"ours\",\"mode\":\"%s\",\"settings\":\"%s\",\"rows\":%d,"
              "\"workload\":\"%s\",\"ms\":%.3f,\"reps\":%d,\"result\":\"%s\",\"heap\":%lld",
              azMode[m], bEqual ? "equal" : "default", nRow, aWork[w].zName,
              med[m]*1e3, nRep, azRes[m], (long long)aHeap[m]);
      if( aTier[m]==0 ){
        fprintf(pJson, ",\"tier\":0");
      }else{
        fprintf(pJson, ",\"tier\":\"default\"");
      }
      fprintf(pJson, ",\"tempBytes\":%llu,\"tempBytesBelow\":%llu,\"budget\":%lld,"
              "\"tierPeak\":%llu",
              (unsigned long long)(aSt[m].nLogicalWrite + aSt[m].nLogicalRead),
              (unsigned long long)(aSt[m].nPhysicalWrite + aSt[m].nPhysicalRead),
              (long long)(aTier[m]==0 ? 0 : gTierBudget), (unsigned long long)aSt[m].nMemPeak);
      fprintf(pJson, "}\n");
    }
    if( pJson ) fflush(pJson);
    fflush(stdout);
  }
  remove(zDb);
  if( pJson ) fclose(pJson);
  printf("crypt/pl: time with encrypted temp files (memory tier at its budget) over time with\n"
         "plaintext temp files (no tier); t0/pl: the same without the tier (tier-0).\n");
  printf("temp MiB: bytes SQLite wrote to and read from encrypted temp files per run (crypt);\n"
         "phys MiB: the same below tempcrypt; tier MiB: the most the memory tier held;\n"
         "rmw: blocks rewritten by read-modify-write (tier-0);\n"
         "heap MiB: the peak of SQLite's heap during an encrypted run.\n");
  return 0;
}
