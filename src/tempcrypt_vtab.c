/*
** sqlite-tempcrypt: the table-valued function tempcrypt_files.
**
**     SELECT * FROM tempcrypt_files;
**
** lists the temp files open in the process (every connection on the
** tempcrypt VFS), newest first, then the last 16 that closed, with what
** tempcrypt did with each: the columns below, from
** sqlite3_tempcrypt_files() in tempcrypt.c.  It is an eponymous, read-only
** virtual table; sqlite3_tempcrypt_register() adds it to every connection
** opened after it.
**
**   id            temp files are numbered as they open, from 1
**   kind          from SQLite's open flags: temp_db (the TEMP schema),
**                 transient_db (ephemeral tables: DISTINCT, GROUP BY,
**                 ORDER BY ... LIMIT, IN, materialized subqueries),
**                 temp_journal (sorter runs, and the journal of a temp
**                 database), subjournal (statement journals), main_db and
**                 main_journal (a database opened without a name), wal,
**                 super_journal
**   open          1 while open, 0 for a closed one (its figures at close)
**   encrypted     1 if encrypted, 0 if opened while tempcrypt was off
**   block_size    payload bytes of a block, 0 until the first write
**   in_storage    1 once the file opened its file on the lower VFS
**   size          logical size in bytes (NULL for a plaintext file)
**   bytes_written bytes SQLite wrote to it
**   bytes_in_memory  bytes the memory tier holds for it
**   bytes_to_storage bytes it wrote to the lower VFS: ciphertext, or
**                 plaintext when not encrypted
**   bytes_ciphered   bytes of it run through ChaCha20, both ways
**   found         with an argument, tempcrypt_files('needle'): how often
**                 the needle (text or blob, 1 to 65536 bytes) occurs in
**                 the bytes the file stored on the lower VFS, read back
**                 through it; counted only in the files of the connection
**                 that asks (its databases' files and their journals: the
**                 TEMP database), NULL for any other file and for a closed
**                 one; what the memory tier holds is not counted
*/
#include <string.h>
#include "sqlite3.h"
#include "tempcrypt.h"

#define TCV_ID       0
#define TCV_KIND     1
#define TCV_OPEN     2
#define TCV_ENC      3
#define TCV_BLOCK    4
#define TCV_STORAGE  5
#define TCV_SIZE     6
#define TCV_WRITTEN  7
#define TCV_MEMORY   8
#define TCV_TO_STORE 9
#define TCV_CIPHERED 10
#define TCV_FOUND    11
#define TCV_FIND     12   /* the hidden argument */

typedef struct TcvTable TcvTable;
struct TcvTable {
  sqlite3_vtab base;
  sqlite3 *db;              /* the connection: found is for its files only */
};

typedef struct TcvCursor TcvCursor;
struct TcvCursor {
  sqlite3_vtab_cursor base;
  struct sqlite3_tempcrypt_file *aFile;   /* snapshot taken by xFilter */
  int nFile;
  int iRow;
};

/* The kind of temp file, from the SQLITE_OPEN_* flags it was opened with. */
static const char *tcvKind(int flags){
  static const struct { int flag; const char *zName; } aKind[] = {
    { SQLITE_OPEN_MAIN_DB,       "main_db" },
    { SQLITE_OPEN_TEMP_DB,       "temp_db" },
    { SQLITE_OPEN_TRANSIENT_DB,  "transient_db" },
    { SQLITE_OPEN_MAIN_JOURNAL,  "main_journal" },
    { SQLITE_OPEN_TEMP_JOURNAL,  "temp_journal" },
    { SQLITE_OPEN_SUBJOURNAL,    "subjournal" },
    { SQLITE_OPEN_SUPER_JOURNAL, "super_journal" },
    { SQLITE_OPEN_WAL,           "wal" },
  };
  size_t i;
  for(i=0; i<sizeof(aKind)/sizeof(aKind[0]); i++){
    if( flags & aKind[i].flag ) return aKind[i].zName;
  }
  return "other";
}

static int tcvConnect(sqlite3 *db, void *pAux, int argc, const char *const*argv,
                      sqlite3_vtab **ppVtab, char **pzErr){
  TcvTable *pNew;
  int rc;
  (void)pAux; (void)argc; (void)argv; (void)pzErr;
  rc = sqlite3_declare_vtab(db,
     "CREATE TABLE x(id INTEGER, kind TEXT, open INTEGER, encrypted INTEGER,"
     " block_size INTEGER, in_storage INTEGER, size INTEGER,"
     " bytes_written INTEGER, bytes_in_memory INTEGER,"
     " bytes_to_storage INTEGER, bytes_ciphered INTEGER, found INTEGER,"
     " find HIDDEN)");
  if( rc!=SQLITE_OK ) return rc;
  pNew = sqlite3_malloc(sizeof(*pNew));
  if( pNew==0 ) return SQLITE_NOMEM;
  memset(pNew, 0, sizeof(*pNew));
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  pNew->db = db;
  *ppVtab = &pNew->base;
  return SQLITE_OK;
}

static int tcvDisconnect(sqlite3_vtab *pVtab){
  sqlite3_free(pVtab);
  return SQLITE_OK;
}

static int tcvOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCursor){
  TcvCursor *pCur;
  (void)pVtab;
  pCur = sqlite3_malloc(sizeof(*pCur));
  if( pCur==0 ) return SQLITE_NOMEM;
  memset(pCur, 0, sizeof(*pCur));
  *ppCursor = &pCur->base;
  return SQLITE_OK;
}

static int tcvClose(sqlite3_vtab_cursor *cur){
  TcvCursor *pCur = (TcvCursor*)cur;
  sqlite3_free(pCur->aFile);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

/* Take a snapshot of the list: files may open while it is copied, so
** grow the array until everything fits. */
static int tcvFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                     int argc, sqlite3_value **argv){
  TcvCursor *pCur = (TcvCursor*)cur;
  int n = 32;
  const void *pNeedle = 0;
  int nNeedle = 0;
  (void)idxStr;
  if( idxNum==1 && argc==1 && sqlite3_value_type(argv[0])!=SQLITE_NULL ){
    pNeedle = sqlite3_value_blob(argv[0]);
    nNeedle = sqlite3_value_bytes(argv[0]);
    if( nNeedle==0 || nNeedle>SQLITE_TEMPCRYPT_MAX_NEEDLE ){
      sqlite3_free(cur->pVtab->zErrMsg);
      cur->pVtab->zErrMsg = sqlite3_mprintf(
          "tempcrypt_files: the needle must be 1 to %d bytes", SQLITE_TEMPCRYPT_MAX_NEEDLE);
      return SQLITE_ERROR;
    }
  }
  for(;;){
    int nHave;
    sqlite3_free(pCur->aFile);
    pCur->aFile = sqlite3_malloc64(sizeof(pCur->aFile[0])*(sqlite3_uint64)n);
    pCur->nFile = 0;
    if( pCur->aFile==0 ) return SQLITE_NOMEM;
    nHave = sqlite3_tempcrypt_files_db(((TcvTable*)cur->pVtab)->db, pCur->aFile, n, pNeedle, nNeedle);
    if( nHave<0 ) return SQLITE_NOMEM;
    if( nHave<=n ){
      pCur->nFile = nHave;
      break;
    }
    n = nHave + 32;
  }
  pCur->iRow = 0;
  return SQLITE_OK;
}

static int tcvNext(sqlite3_vtab_cursor *cur){
  ((TcvCursor*)cur)->iRow++;
  return SQLITE_OK;
}

static int tcvEof(sqlite3_vtab_cursor *cur){
  TcvCursor *pCur = (TcvCursor*)cur;
  return pCur->iRow>=pCur->nFile;
}

static int tcvColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i){
  TcvCursor *pCur = (TcvCursor*)cur;
  const struct sqlite3_tempcrypt_file *p = &pCur->aFile[pCur->iRow];
  switch( i ){
    case TCV_ID:       sqlite3_result_int64(ctx, (sqlite3_int64)p->id); break;
    case TCV_KIND:     sqlite3_result_text(ctx, tcvKind(p->flags), -1, SQLITE_STATIC); break;
    case TCV_OPEN:     sqlite3_result_int(ctx, p->open); break;
    case TCV_ENC:      sqlite3_result_int(ctx, p->encrypted); break;
    case TCV_BLOCK:    sqlite3_result_int(ctx, p->blockSize); break;
    case TCV_STORAGE:  sqlite3_result_int(ctx, p->lower); break;
    case TCV_SIZE:
      if( p->size>=0 ) sqlite3_result_int64(ctx, p->size);
      break;
    case TCV_WRITTEN:  sqlite3_result_int64(ctx, (sqlite3_int64)p->nWrite); break;
    case TCV_MEMORY:   sqlite3_result_int64(ctx, (sqlite3_int64)p->nMemBytes); break;
    case TCV_TO_STORE: sqlite3_result_int64(ctx, (sqlite3_int64)p->nLowerWrite); break;
    case TCV_CIPHERED: sqlite3_result_int64(ctx, (sqlite3_int64)p->nEnciphered); break;
    case TCV_FOUND:
      if( p->nFound>=0 ) sqlite3_result_int64(ctx, p->nFound);
      break;
    default:           break;   /* find: NULL */
  }
  return SQLITE_OK;
}

static int tcvRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  *pRowid = ((TcvCursor*)cur)->iRow + 1;
  return SQLITE_OK;
}

/* An equality on the hidden column find is the argument: idxNum 1. */
static int tcvBestIndex(sqlite3_vtab *tab, sqlite3_index_info *pInfo){
  int i;
  (void)tab;
  for(i=0; i<pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *c = &pInfo->aConstraint[i];
    if( c->iColumn!=TCV_FIND || c->op!=SQLITE_INDEX_CONSTRAINT_EQ ) continue;
    if( !c->usable ) return SQLITE_CONSTRAINT;
    pInfo->aConstraintUsage[i].argvIndex = 1;
    pInfo->aConstraintUsage[i].omit = 1;
    pInfo->idxNum = 1;
    break;
  }
  pInfo->estimatedCost = 100.0;
  pInfo->estimatedRows = 32;
  return SQLITE_OK;
}

static sqlite3_module tcvModule = {
  0,               /* iVersion */
  0,               /* xCreate: eponymous only */
  tcvConnect,      /* xConnect */
  tcvBestIndex,    /* xBestIndex */
  tcvDisconnect,   /* xDisconnect */
  0,               /* xDestroy */
  tcvOpen,         /* xOpen */
  tcvClose,        /* xClose */
  tcvFilter,       /* xFilter */
  tcvNext,         /* xNext */
  tcvEof,          /* xEof */
  tcvColumn,       /* xColumn */
  tcvRowid,        /* xRowid */
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

int sqlite3_tempcrypt_files_init(sqlite3 *db, char **pzErrMsg,
                                 const struct sqlite3_api_routines *pApi){
  (void)pzErrMsg; (void)pApi;
  return sqlite3_create_module(db, "tempcrypt_files", &tcvModule, 0);
}
