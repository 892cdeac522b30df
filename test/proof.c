/*
** The proof library's set-up (SQLite's configuration, the VFS stack, the
** marker, scratch paths), the base database and the workloads.  The other
** parts are in test/proof/ (internal.h lists them); proof.h is the
** interface.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "proof/internal.h"
#include "tempcrypt.h"

static struct {
  char zMarker[40]; int nMarker;
  char zProg[32]; char zTag[4][256];
  unsigned int uRand;
} g;

const char *proof_marker(void){ return g.zMarker; }
int proofMarkerLen(void){ return g.nMarker; }

int proof_init(const char *zProg){
  int rc;
  sqlite3_vfs *pDflt;
  const char *z;
  unsigned int r = 0;
  z = strrchr(zProg, '/');
  snprintf(g.zProg, sizeof(g.zProg), "%s", z ? z+1 : zProg);
  proofMemInstall();
  /* Memory statistics on, so that a soft heap limit puts the page caches
  ** under pressure: then even ephemeral tables (whose cache is otherwise
  ** 2 MB) spill to their temp files with small workloads. */
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1);
  sqlite3_config(SQLITE_CONFIG_PMASZ, 4);           /* sorter PMAs spill early */
  sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, 2048);/* statement journals too */
  rc = sqlite3_initialize();
  if( rc ) return rc;
  proofMemInit();
  proofLockInit();
  sqlite3_soft_heap_limit64(1);
  pDflt = sqlite3_vfs_find(0);
  if( !pDflt ) return SQLITE_ERROR;
  rc = proofSpyRegister(pDflt);
  if( rc ) return rc;
  rc = sqlite3_tempcrypt_register("proofspy", 1);
  if( rc ) return rc;
#ifdef SQLITE_TEMPCRYPT_TESTING
  sqlite3_tempcrypt_test_key_hook(proofKeyHook, 0);
#endif
  /* The shim above tempcrypt (the default VFS from now on) models each
  ** temp file's plaintext for the layout verification. */
  rc = proof_register_ct();
  if( rc ) return rc;
  if( !proofRefSelfTest() ){
    fprintf(stderr, "proof: reference ChaCha20 fails RFC 8439 2.3.2\n");
    return SQLITE_ERROR;
  }
  /* The marker is assembled here so that it never appears in the binary
  ** or in this source: a hit can only come from data the test wrote. */
  sqlite3_randomness((int)sizeof(r), &r);
  g.uRand = r;
  snprintf(g.zMarker, sizeof(g.zMarker), "%c%c%s%u%c%08x%c", 'Z', 'q',
           "-pl", 4u*2u, 'x', r ^ 0x5a5a1234u, '!');
  g.nMarker = (int)strlen(g.zMarker);
  return SQLITE_OK;
}

const char *proof_path(int slot, const char *zTag){
  const char *zDir = getenv("PROOF_DIR");
  if( !zDir || !zDir[0] ) zDir = ".";
  snprintf(g.zTag[slot&3], sizeof(g.zTag[0]), "%s/%s-%08x-%s.db",
           zDir, g.zProg, g.uRand, zTag);
  return g.zTag[slot&3];
}
void proof_remove_db(const char *zPath){
  char z[300];
  remove(zPath);
  snprintf(z, sizeof(z), "%s-journal", zPath); remove(z);
  snprintf(z, sizeof(z), "%s-wal", zPath); remove(z);
  snprintf(z, sizeof(z), "%s-shm", zPath); remove(z);
}

unsigned char *proof_read_file(const char *zPath, long *pn){
  FILE *f = fopen(zPath, "rb");
  unsigned char *a; long n;
  if( !f ) return 0;
  fseek(f, 0, SEEK_END); n = ftell(f); fseek(f, 0, SEEK_SET);
  a = malloc((size_t)n + 1);
  if( a && fread(a, 1, (size_t)n, f)!=(size_t)n ){ free(a); a = 0; }
  fclose(f);
  *pn = n;
  return a;
}
int proof_write_file(const char *zPath, const unsigned char *a, long n){
  FILE *f = fopen(zPath, "wb");
  int ok;
  if( !f ) return 1;
  ok = fwrite(a, 1, (size_t)n, f)==(size_t)n;
  return (fclose(f)==0 && ok) ? 0 : 1;
}

int proof_make_base(const char *zPath, int nRow){
  sqlite3 *db;
  int rc;
  char *zSql;
  proof_remove_db(zPath);
  db = proof_open(zPath, 0);
  if( !db ) return SQLITE_CANTOPEN;
  zSql = sqlite3_mprintf(
    "PRAGMA page_size=1024;"
    "CREATE TABLE t(id INTEGER PRIMARY KEY, g INT, a TEXT, b TEXT, n REAL);"
    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<%d)"
    " INSERT INTO t SELECT i, i%%13, mk() || printf('-%%05d-', (i*7919)%%%d)"
    "   || substr('abcdefghijklmnopqrstuvwxyz', 1+i%%26),"
    " printf('%%08x', (i*2654435761)%%4294967296) || mk(), i*0.25 FROM c;"
    "CREATE TABLE u(id INTEGER PRIMARY KEY, s TEXT, k INT UNIQUE);"
    "INSERT INTO u SELECT id, a, id FROM t;",
    nRow, nRow);
  rc = zSql ? sqlite3_exec(db, zSql, 0, 0, 0) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  if( sqlite3_close(db) && rc==SQLITE_OK ) rc = SQLITE_ERROR;
  return rc;
}

/* ================================================================ workloads
** Each runs on the base database (t: nRow rows, every a and b carry the
** marker; u: same rows with a UNIQUE column).  All results are ordered
** totally, so they can be compared across configurations. */
const ProofWorkload proof_workloads[] = {
  { "temp-table+index", 0,
    "CREATE TEMP TABLE tt AS SELECT * FROM t;"
    "CREATE INDEX temp.tti ON tt(a);"
    /* mmap asked for while the temp database is open: it must still be
    ** read through tempcrypt, never mapped as ciphertext. */
    "PRAGMA mmap_size=67108864;"
    "SELECT count(*), sum(length(a)) FROM tt WHERE a>'Z';"
    "SELECT a, b FROM tt ORDER BY a LIMIT 5", 0 },
  { "order-by", 0, "SELECT a, b, n FROM t ORDER BY b", 0 },
  { "order-by-threads", 0,
    "PRAGMA threads=4; SELECT a, b, n FROM t ORDER BY b DESC", 1 },
  { "distinct", 0,
    "SELECT DISTINCT a FROM t ORDER BY 1; SELECT DISTINCT g, a || b FROM t", 0 },
  { "group-by", 0, "SELECT a, count(*), sum(n) FROM t GROUP BY a", 0 },
  { "union-except", 0,
    "SELECT a FROM t UNION SELECT b FROM t ORDER BY 1;"
    "SELECT a FROM t EXCEPT SELECT a FROM t WHERE g=3 ORDER BY 1;"
    "SELECT count(*), max(x) FROM (SELECT a AS x FROM t UNION SELECT b FROM t);"
    "SELECT count(*), min(x) FROM (SELECT a||b AS x FROM t EXCEPT SELECT a||b FROM t WHERE g=5)", 0 },
  { "in-subquery", 0,
    "SELECT count(*), sum(id) FROM t WHERE a||b||a IN (SELECT a||b||a FROM t WHERE g<12)", 0 },
  { "window", 0,
    "SELECT a, g, row_number() OVER (PARTITION BY g ORDER BY b),"
    " sum(n) OVER (PARTITION BY g) FROM t ORDER BY b", 0 },
  { "cte-materialized", 0,
    "WITH m AS MATERIALIZED (SELECT a || b AS a, b, g FROM t WHERE g<11)"
    " SELECT x.a, x.b FROM m AS x WHERE x.g=(SELECT max(g) FROM m) ORDER BY x.b", 0 },
  { "create-index", 0, "CREATE INDEX ti ON t(a, b)", 0 },
  { "vacuum", "CREATE INDEX ub ON u(s)", "VACUUM", 0 },
  { "stmt-journal", 0,
    "BEGIN;"
    "UPDATE u SET s = s || 'x';"
    "UPDATE u SET s = mk() || s, k = CASE WHEN id=(SELECT max(id) FROM u) THEN 1 ELSE k END;"
    "COMMIT", 0 },
  { "savepoint", 0,
    "BEGIN; UPDATE u SET s = s || 'y';"
    "SAVEPOINT s1; UPDATE u SET s = mk() || 'z' || s; DELETE FROM u WHERE id%3=0;"
    "ROLLBACK TO s1; UPDATE u SET k = k + 100000 WHERE id%2=0; RELEASE s1; COMMIT", 0 },
  { "attach-anon", 0,
    "ATTACH '' AS anon; PRAGMA anon.cache_size=8;"
    "CREATE TABLE anon.x AS SELECT * FROM t;"
    "SELECT count(*), max(a) FROM anon.x; DETACH anon", 0 },
  { "temp-journal", 0,
    "PRAGMA temp.journal_mode=TRUNCATE;"
    "CREATE TEMP TABLE tj AS SELECT * FROM t;"
    "BEGIN; UPDATE tj SET a = a || 'j'; DELETE FROM tj WHERE g<3; COMMIT;"
    "BEGIN; UPDATE tj SET b = mk() || b WHERE g%2=0; ROLLBACK;"
    "SELECT count(*), max(a), max(b) FROM tj", 0 },
  { "overflow", 0,
    "CREATE TEMP TABLE big(id INTEGER PRIMARY KEY, v TEXT);"
    "INSERT INTO big SELECT id, mkrep(200+id%50) FROM t WHERE id<=40;"
    "SELECT id, length(v), substr(v, 3000, 40) FROM big ORDER BY id", 0 },
};
const int proof_nWorkload = (int)(sizeof(proof_workloads)/sizeof(proof_workloads[0]));

void proof_check_below(const char *zProg, int bLayout){
  int64_t nBad = 0, nChk = proof_counter_checks(&nBad);
  printf("%s: %lld block counters checked below tempcrypt, %lld stale\n",
         zProg, (long long)nChk, (long long)nBad);
  CHECK(nChk>0 && nBad==0, "block counters: %lld of %lld stale (reused or going backwards)",
        (long long)nBad, (long long)nChk);
  if( !bLayout ) return;
  nBad = 0;
  nChk = proof_layout_checks(&nBad);
  printf("%s: %lld block writes decrypted with the reference ChaCha20, %lld not matching SQLite's plaintext\n",
         zProg, (long long)nChk, (long long)nBad);
  CHECK(nChk>0 && nBad==0, "on-disk layout: %lld of %lld block writes wrong",
        (long long)nBad, (long long)nChk);
}
