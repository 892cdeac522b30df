/*
** SQLITE_SHELL_INIT_PROC of the WASI shell (build/wasi/sqlite3.wasm): the
** common src/shell_init.c (tempcrypt registered as the default VFS), plus
** a clear message when the module has no directory for temporary files.
**
** Under WASI a program sees only the directories the runtime preopens.
** SQLite looks for temp files in $SQLITE_TMPDIR, $TMPDIR, /var/tmp,
** /usr/tmp, /tmp and "."; if none is a writable directory, every statement
** that needs a temp file fails with a bare "disk I/O error".  In that case
** (and only then, since it takes over the shell's .log) a log callback
** explains what to do the first time SQLite reports the failure.
*/
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sqlite3.h"

void sqlite3_tempcrypt_shell_init(void);
void sqlite3_tempcrypt_wasi_shell_init(void);

static int tcWasiUsableDir(const char *zDir){
  struct stat st;
  return zDir!=0 && stat(zDir, &st)==0 && S_ISDIR(st.st_mode)
      && access(zDir, W_OK|X_OK)==0;
}

static void tcWasiLog(void *pArg, int iErrCode, const char *zMsg){
  static int bToldOnce = 0;
  (void)pArg; (void)zMsg;
  if( iErrCode==SQLITE_IOERR_GETTEMPPATH && !bToldOnce ){
    bToldOnce = 1;
    fprintf(stderr,
      "sqlite3.wasm: cannot create a temporary file: no writable temporary "
      "directory.\n"
      "sqlite3.wasm: preopen one and name it in TMPDIR, for example:\n"
      "sqlite3.wasm:   wasmtime run --dir=. --env TMPDIR=. sqlite3.wasm DB\n");
  }
}

void sqlite3_tempcrypt_wasi_shell_init(void){
  static const char *azFixed[] = { "/var/tmp", "/usr/tmp", "/tmp", "." };
  int bHaveDir = tcWasiUsableDir(getenv("SQLITE_TMPDIR"))
              || tcWasiUsableDir(getenv("TMPDIR"));
  size_t i;
  for(i=0; !bHaveDir && i<sizeof(azFixed)/sizeof(azFixed[0]); i++){
    bHaveDir = tcWasiUsableDir(azFixed[i]);
  }
  if( !bHaveDir ) sqlite3_config(SQLITE_CONFIG_LOG, tcWasiLog, (void*)0);
  sqlite3_tempcrypt_shell_init();
}
