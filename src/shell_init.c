/*
** SQLITE_SHELL_INIT_PROC for the sqlite3 shell: initialize SQLite and make
** "tempcrypt" the default VFS before the shell opens any database.
*/
#include <stdio.h>
#include <stdlib.h>
#include "sqlite3.h"
#include "tempcrypt.h"

void sqlite3_tempcrypt_shell_init(void){
  int rc = sqlite3_initialize();
  if( rc==SQLITE_OK ) rc = sqlite3_tempcrypt_register(0, 1);
  if( rc!=SQLITE_OK ){
    fprintf(stderr, "tempcrypt: cannot register VFS: %s\n", sqlite3_errstr(rc));
    exit(1);
  }
}
