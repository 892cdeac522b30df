/*
** SQLITE_SHELL_INIT_PROC for the sqlite3 shell: initialize SQLite and make
** "tempcrypt" the default VFS before the shell opens any database.  The
** environment variable SQLITE_TEMPCRYPT_BUDGET (bytes) sets the memory
** tier's budget, also for a shell whose database is in memory, where
** PRAGMA tempcrypt_budget has no file to reach.  SQLITE_TEMPCRYPT_ENABLED=0
** starts the shell with encryption off: the control of a leak check (its
** temp files are plaintext; SELECT * FROM tempcrypt_files shows it).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3.h"
#include "tempcrypt.h"

void sqlite3_tempcrypt_shell_init(void){
  const char *zBudget = getenv("SQLITE_TEMPCRYPT_BUDGET");
  const char *zEnabled = getenv("SQLITE_TEMPCRYPT_ENABLED");
  int rc = sqlite3_initialize();
  if( rc==SQLITE_OK ) rc = sqlite3_tempcrypt_register(0, 1);
  if( rc!=SQLITE_OK ){
    fprintf(stderr, "tempcrypt: cannot register VFS: %s\n", sqlite3_errstr(rc));
    exit(1);
  }
  if( zEnabled && zEnabled[0] ){
    if( strcmp(zEnabled, "0")!=0 && strcmp(zEnabled, "1")!=0 ){
      fprintf(stderr, "tempcrypt: SQLITE_TEMPCRYPT_ENABLED must be 0 or 1, not: %s\n", zEnabled);
      exit(1);
    }
    sqlite3_tempcrypt_set_enabled(zEnabled[0]=='1');
  }
  if( zBudget && zBudget[0] ){
    char *zEnd = 0;
    long long n = strtoll(zBudget, &zEnd, 10);
    if( n<0 || *zEnd ){
      fprintf(stderr, "tempcrypt: SQLITE_TEMPCRYPT_BUDGET is not a number of bytes: %s\n", zBudget);
      exit(1);
    }
    sqlite3_tempcrypt_budget(n);
  }
}
